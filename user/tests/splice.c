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
#include <termios.h>
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

// ---- splice ----

static long do_splice(int in, loff_t *oin, int out, loff_t *oout, size_t len, unsigned flags)
{
	return syscall(SYS_splice, in, oin, out, oout, len, flags);
}

// A scratch file holding 'n' bytes of the pattern i % 251, open O_RDWR.
static int pattern_file(const char *name, size_t n, int extra)
{
	char *buf = malloc(n ? n : 1);
	int fd = open(scratch(name), O_CREAT | O_TRUNC | O_RDWR | extra, 0600);

	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(i % 251);
	if (fd >= 0 && write(fd, buf, n) != (ssize_t)n) {
		close(fd);
		fd = -1;
	}
	free(buf);
	if (fd >= 0)
		lseek(fd, 0, SEEK_SET);
	return fd;
}

static int pattern_ok(const char *buf, size_t n, size_t from)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i] != (char)((from + i) % 251))
			return 0;
	return 1;
}

static void t_file_to_pipe(void)
{
	static char buf[70000];
	int fd = pattern_file("f2p", 100000, 0), p[2];
	loff_t off = 100;

	if (!check_ok(fd, "file") || !check_ok(pipe(p), "pipe"))
		return;
	check(do_splice(fd, NULL, p[1], NULL, 5000, 0) == 5000, "5000 bytes at the position");
	check(lseek(fd, 0, SEEK_CUR) == 5000, "the file position moved");
	check(read(p[0], buf, sizeof(buf)) == 5000 && pattern_ok(buf, 5000, 0), "the data");
	check(do_splice(fd, &off, p[1], NULL, 50, SPLICE_F_MOVE | SPLICE_F_MORE) == 50 &&
	      off == 150, "at an offset, written back");
	check(lseek(fd, 0, SEEK_CUR) == 5000, "the file position stays");
	check(read(p[0], buf, sizeof(buf)) == 50 && pattern_ok(buf, 50, 100), "the data");
	// As far as the pipe has room: from offset 100, a buffer per page.
	off = 100;
	check(do_splice(fd, &off, p[1], NULL, 200000, 0) == 3996 + 15 * 4096,
	      "a partial first page and 15 more fill the 16 slots");
	check(nbytes(p[0]) == 3996 + 15 * 4096, "all in the pipe");
	while (read(p[0], buf, sizeof(buf)) > 0 && nbytes(p[0]) > 0)
		;
	off = 100000;
	check(do_splice(fd, &off, p[1], NULL, 10, 0) == 0, "end of file: 0");
	off = -1;
	check_errno(do_splice(fd, &off, p[1], NULL, 10, 0), EINVAL, "a negative offset");
	close(fd);
	close(p[0]);
	close(p[1]);
}

static void t_pipe_to_file(void)
{
	char buf[64] = { 0 };
	int fd = pattern_file("p2f", 20, 0), afd, p[2];
	loff_t off = 3;

	if (!check_ok(fd, "file") || !check_ok(pipe(p), "pipe"))
		return;
	write(p[1], "hello", 5);
	check(do_splice(p[0], NULL, fd, &off, 100, 0) == 5 && off == 8,
	      "what the pipe holds, at the offset");
	check(lseek(fd, 0, SEEK_CUR) == 0, "the file position stays");
	check(pread(fd, buf, 10, 0) == 10 && !memcmp(buf + 3, "hello", 5), "written there");
	write(p[1], "abcdefgh", 8);
	check(do_splice(p[0], NULL, fd, NULL, 3, 0) == 3, "3 bytes at the position");
	check(lseek(fd, 0, SEEK_CUR) == 3 && nbytes(p[0]) == 5, "position moved, 5 left");
	check(pread(fd, buf, 3, 0) == 3 && !memcmp(buf, "abc", 3), "written");
	afd = open(scratch("p2f"), O_WRONLY | O_APPEND);
	check_errno(do_splice(p[0], NULL, afd, NULL, 3, 0), EINVAL, "an O_APPEND output");
	close(afd);
	int null = open("/dev/null", O_WRONLY);
	check(do_splice(p[0], NULL, null, NULL, 100, 0) == 5, "into /dev/null");
	close(null);
	close(p[1]);
	check(do_splice(p[0], NULL, fd, NULL, 100, 0) == 0, "no writer: 0");
	close(fd);
	close(p[0]);
}

static void t_splice_errnos(void)
{
	int fd = pattern_file("err", 100, 0), ro = open(scratch("err"), O_RDONLY), p[2], q[2];
	int dir = open(scratch_dir, O_RDONLY | O_DIRECTORY), path = open(scratch("err"), O_PATH);
	loff_t off = 0;

	if (!check_ok(fd, "file") || !check_ok(pipe(p), "pipe") || !check_ok(pipe(q), "pipe"))
		return;
	check(do_splice(-1, NULL, -1, NULL, 0, 0) == 0, "length 0: 0 before anything");
	check_errno(do_splice(fd, NULL, p[1], NULL, 1, 0x10), EINVAL, "unknown flags");
	check_errno(do_splice(-1, NULL, p[1], NULL, 1, 0), EBADF, "a bad input");
	check_errno(do_splice(fd, NULL, 999, NULL, 1, 0), EBADF, "a bad output");
	check_errno(do_splice(path, NULL, p[1], NULL, 1, 0), EBADF, "an O_PATH input");
	check_errno(do_splice(fd, NULL, p[1], &off, 1, 0), ESPIPE, "an offset on the output pipe");
	write(p[1], "x", 1);
	check_errno(do_splice(p[0], &off, fd, NULL, 1, 0), ESPIPE, "an offset on the input pipe");
	check_errno(do_splice(p[0], NULL, q[1], &off, 1, 0), ESPIPE, "offsets between pipes");
	check_errno(do_splice(fd, NULL, fd, NULL, 1, 0), EINVAL, "file to file");
	check_errno(do_splice(p[0], NULL, p[1], NULL, 1, 0), EINVAL, "a pipe to itself");
	check_errno(do_splice(p[1], NULL, q[1], NULL, 1, 0), EBADF, "a write end as input");
	check_errno(do_splice(p[0], NULL, ro, NULL, 1, 0), EBADF, "a read-only output");
	check_errno(do_splice(fd, (loff_t *)8, p[1], NULL, 1, 0), EFAULT, "a bad offset pointer");
	check_errno(do_splice(dir, NULL, q[1], NULL, 1, 0), EINVAL, "a directory: no splice_read");
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
	close(fd);
	close(ro);
	close(dir);
	close(path);
}

static void t_pipe_to_pipe(void)
{
	char buf[64];
	int a[2], b[2];

	if (!check_ok(pipe(a), "pipe") || !check_ok(pipe(b), "pipe"))
		return;
	write(a[1], "abcdef", 6);
	check(do_splice(a[0], NULL, b[1], NULL, 4, 0) == 4, "4 of 6 bytes");
	check(nbytes(a[0]) == 2 && nbytes(b[0]) == 4, "2 left, 4 moved");
	check(read(b[0], buf, 64) == 4 && !memcmp(buf, "abcd", 4), "in order");
	check(read(a[0], buf, 64) == 2 && !memcmp(buf, "ef", 2), "the rest");
	check_errno(do_splice(a[0], NULL, b[1], NULL, 4, SPLICE_F_NONBLOCK), EAGAIN,
		    "empty, SPLICE_F_NONBLOCK");
	fcntl(b[1], F_SETFL, O_NONBLOCK);
	check_errno(do_splice(a[0], NULL, b[1], NULL, 4, 0), EAGAIN, "empty, O_NONBLOCK output");
	fcntl(b[1], F_SETFL, 0);
	// Packets keep their bounds when whole buffers move.
	fcntl(a[1], F_SETFL, O_DIRECT);
	write(a[1], "pkt1", 4);
	write(a[1], "pkt2", 4);
	check(do_splice(a[0], NULL, b[1], NULL, 100, 0) == 8, "two packets moved");
	check(read(b[0], buf, 64) == 4 && !memcmp(buf, "pkt1", 4), "still packets");
	check(read(b[0], buf, 64) == 4, "the second");
	close(a[1]);
	check(do_splice(a[0], NULL, b[1], NULL, 4, 0) == 0, "no writer: 0");
	close(a[0]);
	close(b[0]);
	close(b[1]);
}

// Into a pipe nobody reads: EPIPE, and SIGPIPE for the caller.
static void t_epipe(void)
{
	int fd = pattern_file("epipe", 100, 0), a[2], b[2];
	struct iovec iov = { "x", 1 };
	sigset_t set, old, pend;

	if (!check_ok(fd, "file") || !check_ok(pipe(a), "pipe") || !check_ok(pipe(b), "pipe"))
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &set, &old);
	close(b[0]);
	write(a[1], "data", 4);
	for (int i = 0; i < 4; i++) {
		static const char *what[] = { "file to pipe", "pipe to pipe", "tee", "vmsplice" };
		struct timespec zero = { 0, 0 };
		long rc = i == 0 ? do_splice(fd, NULL, b[1], NULL, 10, 0)
			: i == 1 ? do_splice(a[0], NULL, b[1], NULL, 10, 0)
			: i == 2 ? syscall(SYS_tee, a[0], b[1], 10, 0)
			: syscall(SYS_vmsplice, b[1], &iov, 1, 0);

		check(rc == -1 && errno == EPIPE, what[i]);
		sigemptyset(&pend);
		sigpending(&pend);
		check(sigismember(&pend, SIGPIPE), "SIGPIPE sent");
		sigtimedwait(&set, NULL, &zero);
	}
	check(nbytes(a[0]) == 4, "nothing taken from the input");
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(fd);
	close(a[0]);
	close(a[1]);
	close(b[1]);
}

// A terminal spliced from and to: a pseudo-terminal's slave in raw
// mode, fed and read through its master.
static void t_terminal(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY), sl, p[2];
	struct termios t;
	char buf[64];
	loff_t off = 0;

	if (!check_ok(m, "posix_openpt") || !check_ok(grantpt(m), "grantpt") ||
	    !check_ok(unlockpt(m), "unlockpt"))
		return;
	sl = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (!check_ok(sl, "open the slave") || !check_ok(pipe(p), "pipe"))
		return;
	tcgetattr(sl, &t);
	cfmakeraw(&t);
	tcsetattr(sl, TCSANOW, &t);
	check(write(m, "typed", 5) == 5, "input at the master");
	sleep_ms(50);
	check(do_splice(sl, NULL, p[1], NULL, 100, 0) == 5, "the terminal's input into a pipe");
	check(read(p[0], buf, sizeof(buf)) == 5 && !memcmp(buf, "typed", 5), "those bytes");
	check_errno(do_splice(sl, &off, p[1], NULL, 100, 0), EINVAL, "an offset on a terminal");
	write(p[1], "shown", 5);
	check(do_splice(p[0], NULL, sl, NULL, 100, 0) == 5, "a pipe out to the terminal");
	sleep_ms(50);
	check(read(m, buf, sizeof(buf)) == 5 && !memcmp(buf, "shown", 5), "read at the master");
	write(p[1], "x", 1);
	check_errno(do_splice(p[0], NULL, sl, &off, 100, 0), EINVAL, "an output offset too");
	close(sl);
	close(m);
	close(p[0]);
	close(p[1]);
}

// ---- tee ----

static void t_tee(void)
{
	char buf[64];
	int a[2], b[2], fd = pattern_file("tee", 10, 0);

	if (!check_ok(pipe(a), "pipe") || !check_ok(pipe(b), "pipe"))
		return;
	check_errno(syscall(SYS_tee, a[0], b[1], 0, 0x10), EINVAL, "unknown flags, even for 0");
	check(syscall(SYS_tee, a[0], b[1], 0, 0) == 0, "length 0");
	write(a[1], "hello", 5);
	write(a[1], " world", 6);
	check(syscall(SYS_tee, a[0], b[1], 100, 0) == 11, "all of it duplicated");
	check(nbytes(a[0]) == 11 && nbytes(b[0]) == 11, "the input keeps it");
	check(syscall(SYS_tee, a[0], b[1], 3, 0) == 3, "a part");
	check(read(b[0], buf, 64) == 14 && !memcmp(buf, "hello worldhel", 14), "the copies");
	check(read(a[0], buf, 64) == 11 && !memcmp(buf, "hello world", 11), "the original");
	check_errno(syscall(SYS_tee, a[0], a[1], 10, 0), EINVAL, "the same pipe");
	check_errno(syscall(SYS_tee, fd, b[1], 10, 0), EINVAL, "a file in");
	check_errno(syscall(SYS_tee, a[0], fd, 10, 0), EINVAL, "a file out");
	check_errno(syscall(SYS_tee, a[1], b[1], 10, 0), EBADF, "a write end in");
	check_errno(syscall(SYS_tee, -1, b[1], 10, 0), EBADF, "a bad descriptor");
	check_errno(syscall(SYS_tee, a[0], b[1], 10, SPLICE_F_NONBLOCK), EAGAIN,
		    "empty, SPLICE_F_NONBLOCK");
	close(a[1]);
	check(syscall(SYS_tee, a[0], b[1], 10, 0) == 0, "empty, no writer: 0");
	close(a[0]);
	close(b[0]);
	close(b[1]);
	close(fd);
}

// ---- vmsplice ----

static void t_vmsplice(void)
{
	static char big[100000] __attribute__((aligned(4096)));
	char buf[64], one[3], two[10];
	struct iovec in[2] = { { "abc", 3 }, { "defgh", 5 } };
	struct iovec out[2] = { { one, sizeof(one) }, { two, sizeof(two) } };
	int p[2], fd = pattern_file("vm", 10, 0);

	if (!check_ok(pipe(p), "pipe"))
		return;
	check(syscall(SYS_vmsplice, p[1], in, 2, 0) == 8, "two segments into the pipe");
	check(read(p[0], buf, 64) == 8 && !memcmp(buf, "abcdefgh", 8), "their bytes");
	write(p[1], "xyz12345", 8);
	memset(two, 0, sizeof(two));
	check(syscall(SYS_vmsplice, p[0], out, 2, 0) == 8, "out of the pipe into two segments");
	check(!memcmp(one, "xyz", 3) && !memcmp(two, "12345", 5), "their bytes");
	check(nbytes(p[0]) == 0, "taken from the pipe");
	check_errno(syscall(SYS_vmsplice, p[0], out, 2, SPLICE_F_NONBLOCK), EAGAIN,
		    "empty, SPLICE_F_NONBLOCK");
	check_errno(syscall(SYS_vmsplice, p[1], in, 1, 0x20), EINVAL, "unknown flags");
	check_errno(syscall(SYS_vmsplice, -1, in, 1, 0), EBADF, "a bad descriptor");
	check_errno(syscall(SYS_vmsplice, fd, in, 1, 0), EBADF, "a file");
	check(syscall(SYS_vmsplice, fd, in, 0, 0) == 0, "no segments: 0, even on a file");
	check_errno(syscall(SYS_vmsplice, p[1], in, 1025, 0), EINVAL, "1025 segments");
	check_errno(syscall(SYS_vmsplice, p[1], (void *)8, 1, 0), EFAULT, "a bad iovec array");
	struct iovec bad = { (void *)8, 10 };
	check_errno(syscall(SYS_vmsplice, p[1], &bad, 1, 0), EFAULT, "an unreadable segment");
	// Into the pipe until it is full: a buffer per page.
	struct iovec all = { big, sizeof(big) };
	check(syscall(SYS_vmsplice, p[1], &all, 1, 0) == 16 * 4096, "16 pages fill the pipe");
	check_errno(syscall(SYS_vmsplice, p[1], &all, 1, SPLICE_F_NONBLOCK | SPLICE_F_GIFT),
		    EAGAIN, "full, SPLICE_F_NONBLOCK");
	close(p[0]);
	close(p[1]);
	close(fd);
}

// ---- waiting ----

static void t_blocking(void)
{
	int a[2], b[2], fd = pattern_file("blk", 0, 0);
	char buf[16];
	pid_t pid;

	if (!check_ok(pipe(a), "pipe") || !check_ok(pipe(b), "pipe"))
		return;
	pid = fork_child();
	if (pid == 0) {
		sleep_ms(100);
		_exit(write(a[1], "late", 4) == 4 ? 0 : 1);
	}
	check(do_splice(a[0], NULL, fd, NULL, 100, 0) == 4, "a splice waited for the writer");
	check_child_ok(pid, "writer");
	// A full output pipe (one slot, one page): splice waits for a
	// reader to make room.
	static char page[4096];
	check(fcntl(b[1], F_SETPIPE_SZ, 4096) == 4096, "a one-slot pipe");
	check(write(b[1], page, sizeof(page)) == 4096, "filled");
	write(a[1], "more", 4);
	pid = fork_child();
	if (pid == 0) {
		char big[70000];

		sleep_ms(100);
		_exit(read(b[0], big, sizeof(big)) > 0 ? 0 : 1);
	}
	check(do_splice(a[0], NULL, b[1], NULL, 100, 0) == 4, "waited for room");
	check_child_ok(pid, "reader");
	check(read(b[0], buf, sizeof(buf)) == 4 && !memcmp(buf, "more", 4), "then moved");
	// A reader asleep on an empty pipe is woken by tee, splice and
	// vmsplice putting data there.
	for (int how = 0; how < 3; how++) {
		struct iovec iov = { "vm", 2 };

		write(a[1], "in", 2);
		pid = fork_child();
		if (pid == 0) {
			char c[8];

			_exit(read(b[0], c, sizeof(c)) == 2 ? 0 : 1);
		}
		sleep_ms(100);
		long rc = how == 0 ? syscall(SYS_tee, a[0], b[1], 2, 0)
			: how == 1 ? do_splice(a[0], NULL, b[1], NULL, 2, 0)
			: syscall(SYS_vmsplice, b[1], &iov, 1, 0);
		check(rc == 2, "data in");
		check_child_ok(pid, "the reader woke");
		if (how == 0)
			read(a[0], buf, sizeof(buf));
		else if (how == 2)
			read(a[0], buf, sizeof(buf));
	}
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	close(fd);
}
static const struct test_case cases[] = {
	{ "pipe_slots", t_slots },
	{ "packet_mode_pipe2", t_packets },
	{ "packet_mode_setfl", t_packets_by_setfl },
	{ "splice_file_to_pipe", t_file_to_pipe },
	{ "splice_pipe_to_file", t_pipe_to_file },
	{ "splice_errnos", t_splice_errnos },
	{ "splice_pipe_to_pipe", t_pipe_to_pipe },
	{ "epipe_and_sigpipe", t_epipe },
	{ "terminal", t_terminal },
	{ "tee", t_tee },
	{ "vmsplice", t_vmsplice },
	{ "blocking", t_blocking },
};

int main(void)
{
	static const char *files[] = { "f2p", "p2f", "err", "epipe", "tee", "vm", "blk" };

	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/splice-%d", (int)getpid());
	mkdir(scratch_dir, 0700);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(scratch(files[i]));
	rmdir(scratch_dir);
	return ktap_finish();
}
