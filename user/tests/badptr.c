// badptr: system calls given bad user pointers.  Each call that takes a
// pointer is made (raw, through syscall(2), so the C library cannot check
// first) with NULL, a kernel address, an unmapped address, two
// non-canonical addresses and, where the kernel writes through the
// pointer, a read-only page.  Each must fail with EFAULT, exactly as Linux
// does, and the process must keep running.  Linux is the reference: every
// case passes there.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"

// ---- bad addresses ---------------------------------------------------------------

enum { PAGE = 4096 };

struct bad_address {
	const char *name;
	void *addr;
};

// The last entry, a read-only page, only counts for calls in which the
// kernel writes to user memory.
static struct bad_address bad[] = {
	{ "NULL", NULL },
	{ "kernel", (void *)0xffffffff80000000UL },
	{ "unmapped", NULL },			// filled in by main()
	{ "noncanonical-low", (void *)0x0000800000000000UL },
	{ "noncanonical-high", (void *)0x8000000000000000UL },
	{ "readonly", NULL },			// filled in by main()
};

enum { BAD_FOR_READS = 5, BAD_FOR_WRITES = 6 };

// Many pointer arguments are optional: NULL means "not given" and is no
// error, so those loops start past the NULL entry.
enum { FIRST_NON_NULL = 1 };

static char data_file[64];

// The call made with bad[i] must have failed with EFAULT.
static void check_efault(long rc, int i, const char *call)
{
	if (rc == -1 && errno == EFAULT)
		return;
	fail("%s(%s): rc=%ld errno=%d, want EFAULT", call, bad[i].name, rc,
	     rc == -1 ? errno : 0);
}

static int open_data(void)
{
	int fd = open(data_file, O_RDONLY);

	if (fd < 0)
		fail("open %s: errno=%d", data_file, errno);
	return fd;
}

// A pipe that holds some bytes.
static int full_pipe(int p[2])
{
	if (pipe(p) < 0)
		return fail("pipe: errno=%d", errno);
	if (write(p[1], "0123456789abcdef", 16) != 16)
		return fail("pipe write: errno=%d", errno);
	return 1;
}

// ---- read and write ---------------------------------------------------------------

static void t_read_file(void)
{
	for (int i = 0; i < BAD_FOR_WRITES; i++) {
		int fd = open_data();

		check_efault(syscall(SYS_read, fd, bad[i].addr, 16), i, "read");
		close(fd);
	}
}

static void t_read_pipe(void)
{
	for (int i = 0; i < BAD_FOR_WRITES; i++) {
		int p[2];

		if (!full_pipe(p))
			return;
		check_efault(syscall(SYS_read, p[0], bad[i].addr, 16), i, "read");
		close(p[0]);
		close(p[1]);
	}
}

static void t_write_pipe(void)
{
	for (int i = 0; i < BAD_FOR_READS; i++) {
		int p[2];

		if (pipe(p) < 0)
			return (void)fail("pipe: errno=%d", errno);
		check_efault(syscall(SYS_write, p[1], bad[i].addr, 16), i, "write");
		close(p[0]);
		close(p[1]);
	}
}

static void t_write_file(void)
{
	char path[80];
	int fd;

	snprintf(path, sizeof(path), "%s.w", data_file);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		return (void)fail("create: errno=%d", errno);
	for (int i = 0; i < BAD_FOR_READS; i++)
		check_efault(syscall(SYS_write, fd, bad[i].addr, 16), i, "write");
	close(fd);
	unlink(path);
}

static void t_pread_pwrite(void)
{
	int fd = open_data();

	for (int i = 0; i < BAD_FOR_WRITES; i++)
		check_efault(syscall(SYS_pread64, fd, bad[i].addr, 8, 0), i, "pread64");
	close(fd);
}

static void t_readv_writev_array(void)
{
	int fd = open_data(), p[2];

	if (fd < 0 || pipe(p) < 0)
		return;
	for (int i = 0; i < BAD_FOR_READS; i++) {
		check_efault(syscall(SYS_readv, fd, bad[i].addr, 1), i, "readv(iov)");
		check_efault(syscall(SYS_writev, p[1], bad[i].addr, 1), i, "writev(iov)");
	}
	close(fd);
	close(p[0]);
	close(p[1]);
}

static void t_readv_writev_buffer(void)
{
	int p[2];

	if (pipe(p) < 0)
		return;
	for (int i = 0; i < BAD_FOR_WRITES; i++) {
		struct iovec iov = { .iov_base = bad[i].addr, .iov_len = 8 };
		int fd = open_data();

		check_efault(syscall(SYS_readv, fd, &iov, 1), i, "readv(buffer)");
		close(fd);
		if (i < BAD_FOR_READS)
			check_efault(syscall(SYS_writev, p[1], &iov, 1), i,
				     "writev(buffer)");
	}
	close(p[0]);
	close(p[1]);
}

// ---- paths ------------------------------------------------------------------------------

static void t_open_path(void)
{
	for (int i = 0; i < BAD_FOR_READS; i++) {
		check_efault(syscall(SYS_open, bad[i].addr, O_RDONLY), i, "open");
		check_efault(syscall(SYS_openat, AT_FDCWD, bad[i].addr, O_RDONLY), i,
			     "openat");
	}
}

static void t_path_calls(void)
{
	for (int i = 0; i < BAD_FOR_READS; i++) {
		check_efault(syscall(SYS_access, bad[i].addr, F_OK), i, "access");
		check_efault(syscall(SYS_chdir, bad[i].addr), i, "chdir");
		check_efault(syscall(SYS_mkdir, bad[i].addr, 0755), i, "mkdir");
		check_efault(syscall(SYS_unlink, bad[i].addr), i, "unlink");
		check_efault(syscall(SYS_rename, bad[i].addr, "/tmp/x"), i, "rename");
	}
}

static void t_stat_path(void)
{
	struct stat st;

	for (int i = 0; i < BAD_FOR_READS; i++) {
		check_efault(syscall(SYS_stat, bad[i].addr, &st), i, "stat(path)");
		check_efault(syscall(SYS_lstat, bad[i].addr, &st), i, "lstat(path)");
		check_efault(syscall(SYS_newfstatat, AT_FDCWD, bad[i].addr, &st, 0), i,
			     "newfstatat(path)");
	}
}

static void t_stat_buffer(void)
{
	int fd = open_data();

	for (int i = 0; i < BAD_FOR_WRITES; i++) {
		check_efault(syscall(SYS_stat, data_file, bad[i].addr), i, "stat(buf)");
		check_efault(syscall(SYS_fstat, fd, bad[i].addr), i, "fstat(buf)");
		check_efault(syscall(SYS_newfstatat, AT_FDCWD, data_file, bad[i].addr, 0),
			     i, "newfstatat(buf)");
	}
	close(fd);
}

static void t_readlink(void)
{
	char buf[64];

	for (int i = 0; i < BAD_FOR_WRITES; i++) {
		if (i < BAD_FOR_READS)
			check_efault(syscall(SYS_readlink, bad[i].addr, buf, sizeof(buf)),
				     i, "readlink(path)");
		check_efault(syscall(SYS_readlink, "/proc/self/exe", bad[i].addr, 64),
			     i, "readlink(buf)");
	}
}

static void t_getcwd(void)
{
	for (int i = 0; i < BAD_FOR_WRITES; i++)
		check_efault(syscall(SYS_getcwd, bad[i].addr, 256), i, "getcwd");
}

static void t_getdents64(void)
{
	for (int i = 0; i < BAD_FOR_WRITES; i++) {
		int fd = open("/", O_RDONLY | O_DIRECTORY);

		check_efault(syscall(SYS_getdents64, fd, bad[i].addr, 4096), i,
			     "getdents64");
		close(fd);
	}
}

// ---- descriptors and polling ----------------------------------------------------------

static void t_pipe(void)
{
	int before = open("/dev/null", O_RDONLY), after;

	close(before);
	for (int i = 0; i < BAD_FOR_WRITES; i++) {
		check_efault(syscall(SYS_pipe, bad[i].addr), i, "pipe");
		check_efault(syscall(SYS_pipe2, bad[i].addr, 0), i, "pipe2");
	}
	// A failed pipe must not leave descriptors behind.
	after = open("/dev/null", O_RDONLY);
	check(after == before, "no leaked descriptors");
	close(after);
}

// Sockets: the pair socketpair writes, the address bind and connect read
// and getsockname writes (and its length), the data of sendto and
// recvfrom, the msghdr of sendmsg and recvmsg, the option values.
static void t_sockets(void)
{
	int sv[2], before = open("/dev/null", O_RDONLY), after, v = 1;
	unsigned len;

	close(before);
	for (int i = 0; i < BAD_FOR_WRITES; i++)
		check_efault(syscall(SYS_socketpair, 1, 1, 0, bad[i].addr), i, "socketpair");
	after = open("/dev/null", O_RDONLY);
	check(after == before, "no leaked descriptors");
	close(after);
	if (syscall(SYS_socketpair, 1, 2, 0, sv) < 0)
		return (void)fail("socketpair: errno=%d", errno);
	for (int i = 0; i < BAD_FOR_READS; i++) {
		check_efault(syscall(SYS_bind, sv[0], bad[i].addr, 8), i, "bind");
		check_efault(syscall(SYS_connect, sv[0], bad[i].addr, 8), i, "connect");
		check_efault(syscall(SYS_sendto, sv[0], bad[i].addr, 1, 0, NULL, 0), i, "sendto");
		check_efault(syscall(SYS_sendmsg, sv[0], bad[i].addr, 0), i, "sendmsg");
		check_efault(syscall(SYS_recvmsg, sv[0], bad[i].addr, 0), i, "recvmsg");
		check_efault(syscall(SYS_setsockopt, sv[0], 1, 16, bad[i].addr, 4), i, "setsockopt");
	}
	for (int i = 0; i < BAD_FOR_WRITES; i++) {
		len = 16;
		check_efault(syscall(SYS_getsockname, sv[0], bad[i].addr, &len), i, "getsockname");
		check_efault(syscall(SYS_getsockname, sv[0], &v, bad[i].addr), i,
			     "getsockname(len)");
		len = 4;
		check_efault(syscall(SYS_getsockopt, sv[0], 1, 3, bad[i].addr, &len), i, "getsockopt");
		check_efault(syscall(SYS_getsockopt, sv[0], 1, 3, &v, bad[i].addr), i,
			     "getsockopt(len)");
		if (write(sv[1], "d", 1) != 1)
			fail("write: errno=%d", errno);
		check_efault(syscall(SYS_recvfrom, sv[0], bad[i].addr, 1, 0, NULL, NULL), i,
			     "recvfrom");
	}
	close(sv[0]);
	close(sv[1]);
}

static void t_poll(void)
{
	for (int i = 0; i < BAD_FOR_READS; i++)
		check_efault(syscall(SYS_poll, bad[i].addr, 1, 0), i, "poll");
	check_efault(syscall(SYS_poll, bad[BAD_FOR_READS].addr, 1, 0),
		     BAD_FOR_READS, "poll (revents not writable)");
}

static void t_ppoll_select(void)
{
	struct pollfd pfd = { .fd = 0, .events = 0 };
	struct timeval tv = { 0, 0 };

	// A NULL timeout means "wait forever" and NULL sets are allowed.
	for (int i = FIRST_NON_NULL; i < BAD_FOR_READS; i++) {
		check_efault(syscall(SYS_ppoll, &pfd, 1, bad[i].addr, NULL, 8), i,
			     "ppoll(timeout)");
		check_efault(syscall(SYS_select, 1, bad[i].addr, NULL, NULL, &tv), i,
			     "select(readfds)");
	}
}

// eventfd, signalfd, timerfd: the counter's buffer both ways, the mask,
// the new and old timer values.
static void t_event_fds(void)
{
	int efd = (int)syscall(SYS_eventfd2, 0, 0), tfd = (int)syscall(SYS_timerfd_create, 1, 0);
	uint64_t one = 1;
	long its[4] = { 0, 0, 100, 0 };

	for (int i = 0; i < BAD_FOR_WRITES; i++) {
		if (write(efd, &one, 8) != 8)
			fail("eventfd write: errno=%d", errno);
		check_efault(syscall(SYS_read, efd, bad[i].addr, 8), i, "read(eventfd)");
		check_efault(syscall(SYS_timerfd_gettime, tfd, bad[i].addr), i, "timerfd_gettime");
		if (i >= FIRST_NON_NULL)
			check_efault(syscall(SYS_timerfd_settime, tfd, 0, its, bad[i].addr), i,
				     "timerfd_settime(old)");
	}
	for (int i = 0; i < BAD_FOR_READS; i++) {
		check_efault(syscall(SYS_write, efd, bad[i].addr, 8), i, "write(eventfd)");
		check_efault(syscall(SYS_signalfd4, -1, bad[i].addr, 8, 0), i, "signalfd4");
		check_efault(syscall(SYS_timerfd_settime, tfd, 0, bad[i].addr, NULL), i,
			     "timerfd_settime(new)");
	}
	close(efd);
	close(tfd);
}

// epoll: the event epoll_ctl reads, the array epoll_wait writes (with an
// event ready: nothing is written otherwise), epoll_pwait's mask and
// epoll_pwait2's timeout.
static void t_epoll(void)
{
	int ep = (int)syscall(SYS_epoll_create1, 0), p[2];
	struct { uint32_t events; uint64_t data; } __attribute__((packed)) ev = { 1, 0 }, out[1];

	if (pipe(p) < 0 || write(p[1], "x", 1) != 1)
		fail("pipe: errno=%d", errno);
	for (int i = 0; i < BAD_FOR_READS; i++)
		check_efault(syscall(SYS_epoll_ctl, ep, 1, p[0], bad[i].addr), i, "epoll_ctl(event)");
	if (syscall(SYS_epoll_ctl, ep, 1, p[0], &ev) < 0)
		fail("epoll_ctl ADD: errno=%d", errno);
	for (int i = 0; i < BAD_FOR_WRITES; i++)
		check_efault(syscall(SYS_epoll_wait, ep, bad[i].addr, 1, 0), i, "epoll_wait(events)");
	for (int i = FIRST_NON_NULL; i < BAD_FOR_READS; i++) {
		check_efault(syscall(SYS_epoll_pwait, ep, out, 1, 0, bad[i].addr, 8), i,
			     "epoll_pwait(sigmask)");
		check_efault(syscall(SYS_epoll_pwait2, ep, out, 1, bad[i].addr, NULL, 8), i,
			     "epoll_pwait2(timeout)");
	}
	close(p[0]);
	close(p[1]);
	close(ep);
}

// POSIX timers: the sigevent and the id of timer_create, the new and old
// values of timer_settime, timer_gettime's.
static void t_posix_timers(void)
{
	struct { long value; int signo, notify, tid, pad[11]; } ev = { 0, 0, 1, 0, { 0 } };
	long its[4] = { 0, 0, 100, 0 };
	int id = -1;

	if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id) != 0) {
		fail("timer_create: errno=%d", errno);
		return;
	}
	for (int i = 0; i < BAD_FOR_WRITES; i++) {
		check_efault(syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, bad[i].addr), i,
			     "timer_create(id)");
		check_efault(syscall(SYS_timer_gettime, id, bad[i].addr), i, "timer_gettime");
		if (i >= FIRST_NON_NULL)
			check_efault(syscall(SYS_timer_settime, id, 0, its, bad[i].addr), i,
				     "timer_settime(old)");
	}
	for (int i = FIRST_NON_NULL; i < BAD_FOR_READS; i++) {
		check_efault(syscall(SYS_timer_create, CLOCK_MONOTONIC, bad[i].addr, &id), i,
			     "timer_create(sigevent)");
		check_efault(syscall(SYS_timer_settime, id, 0, bad[i].addr, NULL), i,
			     "timer_settime(new)");
	}
	syscall(SYS_timer_delete, id);
}

// ---- time --------------------------------------------------------------------------------

static void t_clock_gettime(void)
{
	for (int i = 0; i < BAD_FOR_WRITES; i++) {
		check_efault(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, bad[i].addr), i,
			     "clock_gettime");
		// clock_getres accepts NULL: the caller only checks the clock.
		if (i >= FIRST_NON_NULL)
			check_efault(syscall(SYS_clock_getres, CLOCK_MONOTONIC,
					     bad[i].addr), i, "clock_getres");
	}
}

static void t_gettimeofday(void)
{
	for (int i = FIRST_NON_NULL; i < BAD_FOR_WRITES; i++) {
		check_efault(syscall(SYS_gettimeofday, bad[i].addr, NULL), i,
			     "gettimeofday(tv)");
		check_efault(syscall(SYS_gettimeofday, NULL, bad[i].addr), i,
			     "gettimeofday(tz)");
	}
}

static void t_nanosleep(void)
{
	for (int i = 0; i < BAD_FOR_READS; i++) {
		check_efault(syscall(SYS_nanosleep, bad[i].addr, NULL), i, "nanosleep");
		check_efault(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0,
				     bad[i].addr, NULL), i, "clock_nanosleep");
	}
}

// ---- processes and signals -----------------------------------------------------------------

static void t_uname(void)
{
	for (int i = 0; i < BAD_FOR_WRITES; i++)
		check_efault(syscall(SYS_uname, bad[i].addr), i, "uname");
}

static void t_wait4(void)
{
	for (int i = FIRST_NON_NULL; i < BAD_FOR_WRITES; i++) {
		pid_t pid = fork_child();

		if (pid == 0)
			_exit(0);
		if (pid < 0)
			return;
		check_efault(syscall(SYS_wait4, pid, bad[i].addr, 0, NULL), i,
			     "wait4(status)");
		// Linux has reaped the child even so; reap it here if not.
		waitpid(pid, NULL, 0);
	}
}

static void t_rt_sigaction(void)
{
	for (int i = FIRST_NON_NULL; i < BAD_FOR_WRITES; i++) {
		if (i < BAD_FOR_READS)
			check_efault(syscall(SYS_rt_sigaction, SIGUSR1, bad[i].addr,
					     NULL, 8), i, "rt_sigaction(act)");
		check_efault(syscall(SYS_rt_sigaction, SIGUSR1, NULL, bad[i].addr, 8),
			     i, "rt_sigaction(oldact)");
	}
}

static void t_rt_sigprocmask(void)
{
	for (int i = FIRST_NON_NULL; i < BAD_FOR_WRITES; i++) {
		if (i < BAD_FOR_READS)
			check_efault(syscall(SYS_rt_sigprocmask, SIG_BLOCK, bad[i].addr,
					     NULL, 8), i, "rt_sigprocmask(set)");
		check_efault(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, bad[i].addr, 8),
			     i, "rt_sigprocmask(oldset)");
	}
}

static void t_getrandom(void)
{
	for (int i = 0; i < BAD_FOR_WRITES; i++)
		check_efault(syscall(SYS_getrandom, bad[i].addr, 16, 0), i, "getrandom");
}

static void t_prlimit(void)
{
	for (int i = FIRST_NON_NULL; i < BAD_FOR_WRITES; i++) {
		if (i < BAD_FOR_READS)
			check_efault(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, bad[i].addr,
					     NULL), i, "prlimit64(new)");
		check_efault(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, bad[i].addr),
			     i, "prlimit64(old)");
	}
}

static void t_futex(void)
{
	for (int i = 0; i < BAD_FOR_READS; i++)
		check_efault(syscall(SYS_futex, bad[i].addr, 0 /* FUTEX_WAIT */, 0,
				     NULL, NULL, 0), i, "futex(WAIT)");
}

#ifdef SYS_arch_prctl		// x86 only
static void t_arch_prctl(void)
{
	for (int i = 0; i < BAD_FOR_WRITES; i++)
		check_efault(syscall(SYS_arch_prctl, 0x1003 /* ARCH_GET_FS */,
				     bad[i].addr), i, "arch_prctl(ARCH_GET_FS)");
}
#endif

static void t_execve_path(void)
{
	char *argv[] = { "badptr", NULL };

	for (int i = 0; i < BAD_FOR_READS; i++)
		check_efault(syscall(SYS_execve, bad[i].addr, argv, NULL), i,
			     "execve(path)");
}

// In a child: a kernel that wrongly accepts the call replaces it.  NULL is
// left out: Linux accepts a NULL argv as an empty one.
static void t_execve_argv(void)
{
	for (int i = FIRST_NON_NULL; i < BAD_FOR_READS; i++) {
		pid_t pid = fork_child();

		if (pid == 0) {
			char *argv[] = { "badptr", bad[i].addr, NULL };

			if (syscall(SYS_execve, "/proc/self/exe", bad[i].addr, NULL) != -1 ||
			    errno != EFAULT)
				_exit(1);
			if (syscall(SYS_execve, "/proc/self/exe", argv, NULL) != -1 ||
			    errno != EFAULT)
				_exit(2);
			_exit(0);
		}
		if (!check_child_ok(pid, "1: argv array, 2: argv[1] string"))
			fail("for the %s address", bad[i].name);
	}
}

static void t_still_running(void)
{
	check(getpid() > 0, "process alive");
	check(write(1, "", 0) == 0, "stdout still writable");
}

static const struct test_case cases[] = {
	{ "read_file", t_read_file },
	{ "read_pipe", t_read_pipe },
	{ "write_pipe", t_write_pipe },
	{ "write_file", t_write_file },
	{ "pread64", t_pread_pwrite },
	{ "readv_writev_iovec_array", t_readv_writev_array },
	{ "readv_writev_iovec_buffer", t_readv_writev_buffer },
	{ "open_openat_path", t_open_path },
	{ "path_calls", t_path_calls },
	{ "stat_path", t_stat_path },
	{ "stat_buffer", t_stat_buffer },
	{ "readlink", t_readlink },
	{ "getcwd", t_getcwd },
	{ "getdents64", t_getdents64 },
	{ "pipe_pipe2", t_pipe },
	{ "sockets", t_sockets },
	{ "poll", t_poll },
	{ "eventfd_signalfd_timerfd", t_event_fds },
	{ "epoll", t_epoll },
	{ "posix_timers", t_posix_timers },
	{ "ppoll_select", t_ppoll_select },
	{ "clock_gettime_getres", t_clock_gettime },
	{ "gettimeofday", t_gettimeofday },
	{ "nanosleep", t_nanosleep },
	{ "uname", t_uname },
	{ "wait4_status", t_wait4 },
	{ "rt_sigaction", t_rt_sigaction },
	{ "rt_sigprocmask", t_rt_sigprocmask },
	{ "getrandom", t_getrandom },
	{ "prlimit64", t_prlimit },
	{ "futex", t_futex },
#ifdef SYS_arch_prctl
	{ "arch_prctl_get_fs", t_arch_prctl },
#endif
	{ "execve_path", t_execve_path },
	{ "execve_argv", t_execve_argv },
	{ "still_running", t_still_running },
};

// An address with nothing mapped: map a page far from everything else,
// then unmap it.
static void *unmapped_address(void)
{
	void *p = mmap((void *)0x3f0000000000UL, PAGE, PROT_READ,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return (void *)0x3f0000000000UL;
	munmap(p, PAGE);
	return p;
}

int main(int argc, char **argv)
{
	int fd;

	// Re-executed with a broken argv by a faulty kernel: do nothing.
	if (argc < 1 || argv[0] == NULL || argc > 1)
		return 99;
	bad[2].addr = unmapped_address();
	bad[5].addr = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	snprintf(data_file, sizeof(data_file), "/tmp/badptr-%d", (int)getpid());
	fd = open(data_file, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0 || write(fd, "some bytes to read back, 64 of them, enough for any read........",
			    64) != 64)
		ktap_diag("cannot create %s: errno %d", data_file, errno);
	close(fd);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	unlink(data_file);
	return ktap_finish();
}
