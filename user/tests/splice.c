// splice: pipes as Linux 6.1's fs/pipe.c keeps them (one-page slots that
// small writes top up) and its packet mode (pipe2 O_DIRECT, F_SETFL
// O_DIRECT: each page a write fills is one packet, a read takes at most
// one and drops the rest, 16 packets fill a pipe), then splice, tee and
// vmsplice as its fs/splice.c: between pipes, from a file to a pipe and
// back, offsets (NULL or a pointer, ESPIPE on a pipe), the flags
// (unknown ones EINVAL, SPLICE_F_NONBLOCK and O_NONBLOCK, EAGAIN), EBADF
// for the wrong modes, EINVAL for an append-mode output, two files or the
// same pipe, tee duplicating without consuming, vmsplice from user
// memory into a pipe and out of a pipe into user memory, EPIPE and
// SIGPIPE without readers, and blocked calls woken by another process.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "sysutil.h"

static int nbytes(int fd)
{
	int n = -1;

	ioctl(fd, FIONREAD, &n);
	return n;
}

// ---- pipes' slots and packet mode ----

static void t_slots(void)
{
	char buf[5000] = { 0 };
	int p[2];

	if (!check_ok(pipe2(p, O_NONBLOCK), "pipe2"))
		return;
	while (write(p[1], buf, 1000) > 0)
		;
	check(nbytes(p[0]) == 16 * 4000, "four 1000-byte writes a slot: 64000 bytes in 16");
	while (write(p[1], buf, 1) > 0)
		;
	check(nbytes(p[0]) == 15 * 4000 + 4096, "single bytes top up only the last slot");
	close(p[0]);
	close(p[1]);
}

static void t_packets(void)
{
	char buf[70000], big[10000];
	int p[2];

	if (!check_ok(pipe2(p, O_DIRECT | O_NONBLOCK), "pipe2(O_DIRECT)"))
		return;
	check((fcntl(p[1], F_GETFL) & O_DIRECT) && !(fcntl(p[0], F_GETFL) & O_DIRECT),
	      "O_DIRECT on the write end only");
	check(write(p[1], "abc", 3) == 3 && write(p[1], "defg", 4) == 4, "two packets");
	check(read(p[0], buf, 100) == 3 && !memcmp(buf, "abc", 3), "a read takes one packet");
	check(read(p[0], buf, 100) == 4 && !memcmp(buf, "defg", 4), "then the next");
	write(p[1], "hello world", 11);
	write(p[1], "next", 4);
	check(read(p[0], buf, 5) == 5 && !memcmp(buf, "hello", 5), "a short read");
	check(read(p[0], buf, 100) == 4 && !memcmp(buf, "next", 4),
	      "the rest of the packet was dropped");
	check(write(p[1], buf, 0) == 0, "an empty write");
	check_errno(read(p[0], buf, 10), EAGAIN, "makes no packet");
	memset(big, 'b', sizeof(big));
	check(write(p[1], big, sizeof(big)) == (ssize_t)sizeof(big), "10000 bytes");
	check(read(p[0], buf, sizeof(buf)) == 4096 && read(p[0], buf, sizeof(buf)) == 4096 &&
	      read(p[0], buf, sizeof(buf)) == 10000 - 8192, "are three page-sized packets");
	int k = 0;
	while (write(p[1], "x", 1) == 1)
		k++;
	check(k == 16, "16 one-byte packets fill a 64 KiB pipe");
	check(errno == EAGAIN && nbytes(p[0]) == 16, "EAGAIN, 16 bytes queued");
	struct pollfd pfd = { .fd = p[1], .events = POLLOUT };
	check(poll(&pfd, 1, 0) == 0, "not writable");
	close(p[0]);
	close(p[1]);
}

static void t_packets_by_setfl(void)
{
	char buf[100];
	int p[2];

	if (!check_ok(pipe2(p, O_NONBLOCK), "pipe2"))
		return;
	check_ok(fcntl(p[1], F_SETFL, O_NONBLOCK | O_DIRECT), "F_SETFL O_DIRECT on a pipe");
	write(p[1], "xy", 2);
	check_ok(fcntl(p[1], F_SETFL, O_NONBLOCK), "and off again");
	write(p[1], "z", 1);
	write(p[1], "w", 1);
	check(read(p[0], buf, 10) == 2 && !memcmp(buf, "xy", 2),
	      "a packet is not topped up by a later write");
	check(read(p[0], buf, 10) == 2 && !memcmp(buf, "zw", 2), "ordinary writes merge");
	close(p[0]);
	close(p[1]);
}

static const struct test_case cases[] = {
	{ "pipe_slots", t_slots },
	{ "packet_mode_pipe2", t_packets },
	{ "packet_mode_setfl", t_packets_by_setfl },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
