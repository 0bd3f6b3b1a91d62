// pipes: pipe(2)/pipe2(2) semantics of Switchyard's Linux ABI: blocking and
// non-blocking I/O, end-of-file, EPIPE and SIGPIPE, large transfers between
// processes, and poll/ppoll/select readiness.  Linux is the reference:
// every case passes there.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sysutil.h"
#include "testcase.h"

// ---- helpers -----------------------------------------------------------------

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int make_pipe(int p[2], int flags)
{
	if (pipe2(p, flags) < 0) {
		fail("pipe2(%#x): errno=%d", flags, errno);
		return 0;
	}
	return 1;
}

static void close_pipe(int p[2])
{
	close(p[0]);
	close(p[1]);
}

// Read exactly 'len' bytes unless EOF or an error comes first.
static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return done ? (ssize_t)done : n;
		done += n;
	}
	return done;
}

static ssize_t write_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return done ? (ssize_t)done : n;
		done += n;
	}
	return done;
}

// The byte at offset 'i' of the test stream: not periodic at any power of
// two, so a dropped or repeated chunk changes the checksum.
static unsigned char stream_byte(size_t i)
{
	return (unsigned char)(i * 131 + (i >> 8) * 7 + (i >> 16));
}

// Fletcher-style checksum that depends on the order of bytes.
struct checksum {
	uint32_t a, b;
};

static void checksum_add(struct checksum *c, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		c->a = (c->a + p[i]) % 65521;
		c->b = (c->b + c->a) % 65521;
	}
}

static uint32_t expected_checksum(size_t len)
{
	struct checksum c = { 1, 0 };

	for (size_t i = 0; i < len; i++) {
		unsigned char b = stream_byte(i);

		checksum_add(&c, &b, 1);
	}
	return c.b << 16 | c.a;
}

// Write 'len' bytes of the test stream in chunks of odd sizes.
static int send_stream(int fd, size_t len)
{
	unsigned char chunk[7919];
	size_t sent = 0, step = 1000;

	while (sent < len) {
		size_t n = step < len - sent ? step : len - sent;

		for (size_t i = 0; i < n; i++)
			chunk[i] = stream_byte(sent + i);
		if (write_full(fd, chunk, n) != (ssize_t)n)
			return -1;
		sent += n;
		step = step * 3 % sizeof(chunk) + 1;
	}
	return 0;
}

// Read the test stream until EOF; returns the checksum, the length in *len.
static uint32_t receive_stream(int fd, size_t *len)
{
	unsigned char buf[5000];
	struct checksum c = { 1, 0 };
	ssize_t n;

	*len = 0;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		checksum_add(&c, buf, n);
		*len += n;
	}
	return c.b << 16 | c.a;
}

// ---- pipe creation ------------------------------------------------------------

static void t_pipe_basic(void)
{
	int p[2];
	char buf[16] = { 0 };

	if (!check_ok(pipe(p), "pipe"))
		return;
	check(p[0] != p[1] && p[0] >= 0 && p[1] >= 0, "two distinct descriptors");
	check(write(p[1], "ping", 4) == 4, "write 4");
	check(read(p[0], buf, sizeof(buf)) == 4 && !memcmp(buf, "ping", 4),
	      "read back what was written");
	close_pipe(p);
}

static void t_pipe_partial_reads(void)
{
	int p[2];
	char buf[16] = { 0 };

	if (!make_pipe(p, 0))
		return;
	check(write(p[1], "0123456789", 10) == 10, "write 10");
	check(read(p[0], buf, 4) == 4 && !memcmp(buf, "0123", 4), "read 4");
	check(write(p[1], "ab", 2) == 2, "write 2 more");
	check(read(p[0], buf, sizeof(buf)) == 8 && !memcmp(buf, "456789ab", 8),
	      "read returns what is there, in order");
	close_pipe(p);
}

static void t_pipe_wrong_ends(void)
{
	int p[2];
	char c = 'x';

	if (!make_pipe(p, 0))
		return;
	check_errno(write(p[0], &c, 1), EBADF, "write to the read end");
	check_errno(read(p[1], &c, 1), EBADF, "read from the write end");
	check((fcntl(p[0], F_GETFL) & O_ACCMODE) == O_RDONLY, "read end O_RDONLY");
	check((fcntl(p[1], F_GETFL) & O_ACCMODE) == O_WRONLY, "write end O_WRONLY");
	check_errno(lseek(p[0], 0, SEEK_SET), ESPIPE, "lseek on a pipe");
	close_pipe(p);
}

static void t_pipe2_cloexec(void)
{
	int p[2];

	if (!make_pipe(p, O_CLOEXEC))
		return;
	check(fcntl(p[0], F_GETFD) == FD_CLOEXEC, "read end FD_CLOEXEC");
	check(fcntl(p[1], F_GETFD) == FD_CLOEXEC, "write end FD_CLOEXEC");
	close_pipe(p);
	if (!make_pipe(p, 0))
		return;
	check(fcntl(p[0], F_GETFD) == 0 && fcntl(p[1], F_GETFD) == 0,
	      "no FD_CLOEXEC without the flag");
	close_pipe(p);
}

static void t_pipe2_bad_flags(void)
{
	int p[2];

	check_errno(syscall(SYS_pipe2, p, 0x1), EINVAL, "pipe2 unknown flag");
}

static void t_pipe2_nonblock_read(void)
{
	int p[2];
	char c;

	if (!make_pipe(p, O_NONBLOCK))
		return;
	check(fcntl(p[0], F_GETFL) & O_NONBLOCK, "O_NONBLOCK in F_GETFL");
	check_errno(read(p[0], &c, 1), EAGAIN, "read from an empty pipe");
	check(write(p[1], "z", 1) == 1, "write");
	check(read(p[0], &c, 1) == 1 && c == 'z', "read once data is there");
	close(p[1]);
	check(read(p[0], &c, 1) == 0, "EOF, not EAGAIN, once writers are gone");
	close(p[0]);
}

static void t_pipe2_nonblock_write_full(void)
{
	static char chunk[4096];
	int p[2];
	size_t total = 0;
	ssize_t n = 0;
	char c;

	if (!make_pipe(p, O_NONBLOCK))
		return;
	// Fill until the pipe refuses; bounded in case it never does.
	while (total < 4 * 1024 * 1024) {
		n = write(p[1], chunk, sizeof(chunk));
		if (n <= 0)
			break;
		total += n;
	}
	check(total > 0, "some data fits");
	check_errno(n, EAGAIN, "write to a full pipe");
	check(read(p[0], &c, 1) == 1, "drain one byte");
	close_pipe(p);
}

static void t_set_nonblock_with_fcntl(void)
{
	int p[2];
	char c;

	if (!make_pipe(p, 0))
		return;
	check_ok(fcntl(p[0], F_SETFL, O_NONBLOCK), "F_SETFL O_NONBLOCK");
	check_errno(read(p[0], &c, 1), EAGAIN, "read now EAGAIN");
	close_pipe(p);
}

// ---- blocking and end-of-file across processes ----------------------------------------

static void t_blocking_read_across_fork(void)
{
	int p[2];
	char buf[8] = { 0 };
	pid_t pid;

	if (!make_pipe(p, 0))
		return;
	pid = fork_child();
	if (pid == 0) {
		close(p[0]);
		sleep_ms(50);
		_exit(write(p[1], "late", 4) == 4 ? 0 : 1);
	}
	close(p[1]);
	check(read_full(p[0], buf, 4) == 4 && !memcmp(buf, "late", 4),
	      "blocked read gets the child's bytes");
	close(p[0]);
	check_child_ok(pid, "writer");
}

static void t_eof_when_all_writers_close(void)
{
	int p[2], go[2];
	char c;
	pid_t pid;

	if (!make_pipe(p, 0) || !make_pipe(go, 0))
		return;
	pid = fork_child();
	if (pid == 0) {
		// Hold a copy of the write end until told to let go.
		close(p[0]);
		close(go[1]);
		read(go[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	check_errno(read(p[0], &c, 1), EAGAIN, "no EOF while the child holds a writer");
	fcntl(p[0], F_SETFL, 0);
	close(go[1]);
	check(read(p[0], &c, 1) == 0, "EOF once the last writer exits");
	close(p[0]);
	check_child_ok(pid, "holder");
}

static void t_blocked_reader_wakes_on_close(void)
{
	int p[2];
	pid_t pid;

	if (!make_pipe(p, 0))
		return;
	pid = fork_child();
	if (pid == 0) {
		char c;

		close(p[1]);
		_exit(read(p[0], &c, 1) == 0 ? 0 : 1);
	}
	close(p[0]);
	sleep_ms(50);
	close(p[1]);
	check_child_ok(pid, "blocked reader sees EOF");
}

static void t_sigpipe_kills(void)
{
	int p[2], go[2];
	pid_t pid;
	char c;

	if (!make_pipe(p, 0))
		return;
	if (!make_pipe(go, 0)) {
		close_pipe(p);
		return;
	}
	pid = fork_child();
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		close(p[0]);
		close(go[1]);
		// Write only after the parent has closed its read end too
		// (end-of-file on 'go'): a child that runs first on another
		// CPU would otherwise still find a reader.
		if (read(go[0], &c, 1) != 0)
			_exit(2);
		write(p[1], "x", 1);
		_exit(0);
	}
	close_pipe(p);
	close_pipe(go);
	check_killed_by(pid, SIGPIPE, "write with no reader");
}

static void t_epipe_when_ignored(void)
{
	int p[2];
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;

	if (!make_pipe(p, 0))
		return;
	sigaction(SIGPIPE, &ign, &old);
	close(p[0]);
	check_errno(write(p[1], "x", 1), EPIPE, "write with no reader");
	sigaction(SIGPIPE, &old, NULL);
	close(p[1]);
}

static void t_blocked_writer_gets_epipe(void)
{
	int p[2];
	pid_t pid;

	if (!make_pipe(p, 0))
		return;
	pid = fork_child();
	if (pid == 0) {
		static char chunk[16384];

		signal(SIGPIPE, SIG_IGN);
		close(p[0]);
		// Far more than a pipe holds: the writer must block, then
		// fail with EPIPE when the reader goes away.
		for (int i = 0; i < 256; i++)
			if (write(p[1], chunk, sizeof(chunk)) < 0)
				_exit(errno == EPIPE ? 0 : 2);
		_exit(1);
	}
	close(p[1]);
	sleep_ms(100);
	close(p[0]);
	check_child_ok(pid, "blocked writer");
}

// ---- large transfers ----------------------------------------------------------------------

enum { BIG = 1024 * 1024 };

static void t_transfer_child_to_parent(void)
{
	int p[2];
	size_t len;
	uint32_t sum;
	pid_t pid;

	if (!make_pipe(p, 0))
		return;
	pid = fork_child();
	if (pid == 0) {
		close(p[0]);
		_exit(send_stream(p[1], BIG) == 0 ? 0 : 1);
	}
	close(p[1]);
	sum = receive_stream(p[0], &len);
	close(p[0]);
	check(len == BIG, "received 1 MiB");
	check(sum == expected_checksum(BIG), "checksum matches");
	check_child_ok(pid, "sender");
}

static void t_transfer_parent_to_child(void)
{
	int p[2];
	uint32_t want = expected_checksum(BIG);
	pid_t pid;

	if (!make_pipe(p, 0))
		return;
	pid = fork_child();
	if (pid == 0) {
		size_t len;
		uint32_t sum;

		close(p[1]);
		sum = receive_stream(p[0], &len);
		if (len != BIG)
			_exit(1);
		_exit(sum == want ? 0 : 2);
	}
	close(p[0]);
	check(send_stream(p[1], BIG) == 0, "send 1 MiB");
	close(p[1]);
	check_child_ok(pid, "receiver (1: short, 2: checksum)");
}

static void t_ping_pong(void)
{
	int up[2], down[2];
	pid_t pid;
	int i;

	if (!make_pipe(up, 0) || !make_pipe(down, 0))
		return;
	pid = fork_child();
	if (pid == 0) {
		unsigned char v;

		close(down[1]);
		close(up[0]);
		while (read(down[0], &v, 1) == 1) {
			v++;
			if (write(up[1], &v, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	for (i = 0; i < 200; i++) {
		unsigned char v = (unsigned char)i, r = 0;

		if (write(down[1], &v, 1) != 1 || read(up[0], &r, 1) != 1 ||
		    r != (unsigned char)(v + 1))
			break;
	}
	check(i == 200, "200 round trips, each answered in order");
	close(down[1]);
	close(up[0]);
	check_child_ok(pid, "echo child");
}

// ---- readiness ------------------------------------------------------------------------------

static void t_poll_timeout_zero(void)
{
	int p[2];
	struct pollfd pfd;
	long start;

	if (!make_pipe(p, 0))
		return;
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	start = now_ms();
	check(poll(&pfd, 1, 0) == 0, "empty pipe not readable");
	check(pfd.revents == 0, "revents 0");
	check(now_ms() - start < 5000, "timeout 0 does not block");
	close_pipe(p);
}

static void t_poll_short_timeout(void)
{
	int p[2];
	struct pollfd pfd;
	long start, waited;

	if (!make_pipe(p, 0))
		return;
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	start = now_ms();
	check(poll(&pfd, 1, 50) == 0, "times out with nothing ready");
	waited = now_ms() - start;
	// Only a lower bound: emulation may oversleep by any amount.
	if (waited < 49)
		fail("returned after %ld ms, asked for 50", waited);
	close_pipe(p);
}

static void t_poll_readable(void)
{
	int p[2];
	struct pollfd pfd;

	if (!make_pipe(p, 0))
		return;
	write(p[1], "r", 1);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	check(poll(&pfd, 1, 1000) == 1, "one descriptor ready");
	check(pfd.revents == POLLIN, "revents POLLIN");
	close_pipe(p);
}

static void t_poll_writable(void)
{
	int p[2];
	struct pollfd pfd;

	if (!make_pipe(p, 0))
		return;
	pfd = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	check(poll(&pfd, 1, 1000) == 1, "write end ready");
	check(pfd.revents == POLLOUT, "revents POLLOUT");
	close_pipe(p);
}

static void t_poll_hup(void)
{
	int p[2];
	struct pollfd pfd;

	if (!make_pipe(p, 0))
		return;
	close(p[1]);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	check(poll(&pfd, 1, 1000) == 1, "read end ready after writer closes");
	check(pfd.revents & POLLHUP, "POLLHUP set");
	close(p[0]);
}

static void t_poll_err_no_reader(void)
{
	int p[2];
	struct pollfd pfd;

	if (!make_pipe(p, 0))
		return;
	close(p[0]);
	pfd = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	check(poll(&pfd, 1, 1000) == 1, "write end ready after reader closes");
	check(pfd.revents & POLLERR, "POLLERR set");
	close(p[1]);
}

static void t_poll_nval_and_negative(void)
{
	int p[2];
	struct pollfd pfd[2];

	if (!make_pipe(p, 0))
		return;
	close(p[1]);
	close(p[0]);
	pfd[0] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = -1, .events = POLLIN, .revents = 7 };
	check(poll(pfd, 2, 0) == 1, "closed fd counts as ready");
	check(pfd[0].revents == POLLNVAL, "closed fd gives POLLNVAL");
	check(pfd[1].revents == 0, "negative fd ignored, revents cleared");
}

static void t_poll_wakes_on_write(void)
{
	int p[2];
	struct pollfd pfd;
	pid_t pid;

	if (!make_pipe(p, 0))
		return;
	pid = fork_child();
	if (pid == 0) {
		close(p[0]);
		sleep_ms(50);
		_exit(write(p[1], "w", 1) == 1 ? 0 : 1);
	}
	close(p[1]);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	check(poll(&pfd, 1, 10000) == 1, "poll woken by the child's write");
	check(pfd.revents & POLLIN, "POLLIN");
	close(p[0]);
	check_child_ok(pid, "writer");
}

static void t_poll_many(void)
{
	int a[2], b[2], c[2];
	struct pollfd pfd[3];

	if (!make_pipe(a, 0) || !make_pipe(b, 0) || !make_pipe(c, 0))
		return;
	write(b[1], "b", 1);
	pfd[0] = (struct pollfd){ .fd = a[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = b[0], .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = c[1], .events = POLLOUT };
	check(poll(pfd, 3, 1000) == 2, "two of three ready");
	check(pfd[0].revents == 0 && pfd[1].revents == POLLIN &&
	      pfd[2].revents == POLLOUT, "the right two");
	close_pipe(a);
	close_pipe(b);
	close_pipe(c);
}

static void t_ppoll(void)
{
	int p[2];
	struct pollfd pfd;
	struct timespec ts = { 0, 20 * 1000000L };
	sigset_t mask;
	long start;

	if (!make_pipe(p, 0))
		return;
	sigemptyset(&mask);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	start = now_ms();
	check(ppoll(&pfd, 1, &ts, &mask) == 0, "ppoll times out on an empty pipe");
	check(now_ms() - start >= 19, "waited about the timeout");
	write(p[1], "x", 1);
	ts = (struct timespec){ 1, 0 };
	check(ppoll(&pfd, 1, &ts, NULL) == 1 && pfd.revents == POLLIN,
	      "ppoll sees data");
	close_pipe(p);
}

static void t_select(void)
{
	int p[2];
	fd_set rd, wr;
	struct timeval tv = { 0, 0 };

	if (!make_pipe(p, 0))
		return;
	FD_ZERO(&rd);
	FD_SET(p[0], &rd);
	check(select(p[0] + 1, &rd, NULL, NULL, &tv) == 0, "empty pipe not readable");
	write(p[1], "s", 1);
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_SET(p[0], &rd);
	FD_SET(p[1], &wr);
	tv = (struct timeval){ 1, 0 };
	check(select(p[1] > p[0] ? p[1] + 1 : p[0] + 1, &rd, &wr, NULL, &tv) == 2,
	      "both ends ready");
	check(FD_ISSET(p[0], &rd) && FD_ISSET(p[1], &wr), "the right bits set");
	close_pipe(p);
}

// fs.pipe-user-pages-soft and -hard: the pages of a user's pipes count
// for that user; past the soft limit, an unprivileged user's new pipes
// hold two pages and cannot grow; past the hard one, there is no new
// pipe.  A user of its own (uid 4242) in a child; the settings restored.
#define PIPE_UID 4242

static int soft_limit_child(void)
{
	int a[2], b[2], c[2];
	long page = sysconf(_SC_PAGESIZE);

	if (setresgid(PIPE_UID, PIPE_UID, PIPE_UID) || setresuid(PIPE_UID, PIPE_UID, PIPE_UID))
		return 1;
	if (pipe(a) || pipe(b) || pipe(c))
		return 2;
	if (fcntl(a[0], F_GETPIPE_SZ) != 16 * page || fcntl(b[0], F_GETPIPE_SZ) != 16 * page)
		return 3;	// within the limit: the full 16 pages
	if (fcntl(c[0], F_GETPIPE_SZ) != 2 * page)
		return 4;	// past it: two pages
	if (fcntl(c[0], F_SETPIPE_SZ, 16 * page) != -1 || errno != EPERM)
		return 5;	// and no growing
	if (fcntl(a[0], F_SETPIPE_SZ, page) != page)
		return 6;	// shrinking is always allowed
	return 0;
}

static int hard_limit_child(void)
{
	int a[2], b[2];

	if (setresgid(PIPE_UID, PIPE_UID, PIPE_UID) || setresuid(PIPE_UID, PIPE_UID, PIPE_UID))
		return 1;
	if (pipe(a))
		return 2;
	if (pipe(b) != -1 || errno != ENFILE)
		return 3;
	return 0;
}

static void run_pipe_child(int (*body)(void), const char *what)
{
	pid_t pid = fork_child();
	int st;

	if (pid == 0)
		_exit(body());
	if (pid > 0 && waitpid(pid, &st, 0) == pid && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		fail("%s: the child failed at step %d", what, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void t_pipe_user_pages(void)
{
	char soft[32] = { 0 }, hard[32] = { 0 };

	if (geteuid() != 0) {
		skip("needs root to set the sysctls");
		return;
	}
	if (read_file("/proc/sys/fs/pipe-user-pages-soft", soft, sizeof(soft)) <= 0 ||
	    read_file("/proc/sys/fs/pipe-user-pages-hard", hard, sizeof(hard)) <= 0) {
		fail("cannot read the pipe-user-pages sysctls");
		return;
	}
	check(atol(soft) == 16384 && atol(hard) == 0, "Linux's defaults: 16384 and 0");
	if (check(write_file("/proc/sys/fs/pipe-user-pages-soft", "32") == 0, "set soft"))
		run_pipe_child(soft_limit_child, "soft limit");
	write_file("/proc/sys/fs/pipe-user-pages-soft", "0");
	if (check(write_file("/proc/sys/fs/pipe-user-pages-hard", "20") == 0, "set hard"))
		run_pipe_child(hard_limit_child, "hard limit");
	write_file("/proc/sys/fs/pipe-user-pages-soft", soft);
	write_file("/proc/sys/fs/pipe-user-pages-hard", hard);
}

static const struct test_case cases[] = {
	{ "pipe_basic", t_pipe_basic },
	{ "pipe_user_pages_soft_and_hard", t_pipe_user_pages },
	{ "pipe_partial_reads", t_pipe_partial_reads },
	{ "pipe_wrong_ends_ebadf", t_pipe_wrong_ends },
	{ "pipe2_cloexec", t_pipe2_cloexec },
	{ "pipe2_bad_flags_einval", t_pipe2_bad_flags },
	{ "pipe2_nonblock_read_eagain", t_pipe2_nonblock_read },
	{ "pipe2_nonblock_write_full_eagain", t_pipe2_nonblock_write_full },
	{ "fcntl_setfl_nonblock", t_set_nonblock_with_fcntl },
	{ "blocking_read_across_fork", t_blocking_read_across_fork },
	{ "eof_when_all_writers_close", t_eof_when_all_writers_close },
	{ "blocked_reader_wakes_on_close", t_blocked_reader_wakes_on_close },
	{ "sigpipe_default_kills", t_sigpipe_kills },
	{ "epipe_when_sigpipe_ignored", t_epipe_when_ignored },
	{ "blocked_writer_gets_epipe", t_blocked_writer_gets_epipe },
	{ "transfer_1mib_child_to_parent", t_transfer_child_to_parent },
	{ "transfer_1mib_parent_to_child", t_transfer_parent_to_child },
	{ "ping_pong_200", t_ping_pong },
	{ "poll_timeout_zero", t_poll_timeout_zero },
	{ "poll_short_timeout", t_poll_short_timeout },
	{ "poll_readable", t_poll_readable },
	{ "poll_writable", t_poll_writable },
	{ "poll_hup", t_poll_hup },
	{ "poll_err_without_reader", t_poll_err_no_reader },
	{ "poll_nval_and_negative_fd", t_poll_nval_and_negative },
	{ "poll_wakes_on_write", t_poll_wakes_on_write },
	{ "poll_many", t_poll_many },
	{ "ppoll", t_ppoll },
	{ "select", t_select },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
