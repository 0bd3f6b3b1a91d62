// argcheck: lengths, ranges and values checked the way Linux checks them.
//
//  - read/write/pread64/pwrite64 check the whole [buf, buf+count) range
//    before moving a byte (count 2^63 from a small buffer: EFAULT, not a
//    short transfer); readv/writev/preadv/pwritev check every segment
//    first (a bad later segment: EFAULT and nothing written); a negative
//    position is EINVAL before anything else.
//  - setitimer with a huge value or interval saturates instead of
//    wrapping into a short timer; alarm takes an unsigned int.
//  - the two-path calls (link, linkat, rename, renameat2, symlink,
//    symlinkat) give EFAULT for a bad new path.
//
// Buffers are static so that they sit low in the address space: a huge
// count from there stays inside the user half, and only a check of the
// whole range refuses it.  Linux is the reference: every case passes there.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"

#define KERNEL_ADDR	0xffff800000000000UL

static char small[64];

// ---- whole-range checks of read and write --------------------------------------

static const unsigned long huge_counts[] = {
	1UL << 63, ~0UL, 1UL << 47, 0x00007fffffffffffUL,
};
#define NR_HUGE (int)(sizeof(huge_counts) / sizeof(huge_counts[0]))

static int scratch_file(const char *name)
{
	int fd = open(scratch(name), O_CREAT | O_TRUNC | O_RDWR, 0644);

	if (fd < 0)
		fail("create %s: errno=%d", name, errno);
	return fd;
}

static off_t file_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) < 0 ? -1 : st.st_size;
}

static void t_write_huge_count(void)
{
	int fd = scratch_file("w");
	int null = open("/dev/null", O_WRONLY);
	int p[2];

	if (fd < 0 || null < 0 || pipe(p) < 0) {
		fail("setup: errno=%d", errno);
		return;
	}
	for (int i = 0; i < NR_HUGE; i++) {
		char what[80];
		snprintf(what, sizeof(what), "%#lx bytes from a 64-byte buffer", huge_counts[i]);
		check_errno(syscall(SYS_write, fd, small, huge_counts[i]), EFAULT, "file: write");
		check_errno(syscall(SYS_write, p[1], small, huge_counts[i]), EFAULT, "pipe: write");
		check_errno(syscall(SYS_write, null, small, huge_counts[i]), EFAULT, "/dev/null: write");
		check_errno(syscall(SYS_pwrite64, fd, small, huge_counts[i], 0), EFAULT, "file: pwrite64");
		if (fail_why[0]) {
			size_t len = strlen(fail_why);
			snprintf(fail_why + len, sizeof(fail_why) - len, " (%s)", what);
			break;
		}
	}
	check(file_size(fd) == 0, "nothing written");
	close(fd);
	close(null);
	close(p[0]);
	close(p[1]);
	unlink(scratch("w"));
}

// Each read runs in a child: a kernel that does not check the range
// first zeroes or overwrites everything after the buffer.
static void read_huge_in_child(int fd, int positioned, const char *what)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		for (int i = 0; i < NR_HUGE; i++) {
			long rc = positioned ? syscall(SYS_pread64, fd, small, huge_counts[i], 0)
					     : syscall(SYS_read, fd, small, huge_counts[i]);
			if (rc != -1 || errno != EFAULT)
				_exit(10 + i);
		}
		_exit(0);
	}
	char why[96];
	snprintf(why, sizeof(why), "%s into a 64-byte buffer (10+i: count i not EFAULT)", what);
	check_child_ok(pid, why);
}

static void t_read_huge_count(void)
{
	int fd = scratch_file("r");
	int zero = open("/dev/zero", O_RDONLY);
	int p[2];

	if (fd < 0 || zero < 0 || pipe(p) < 0) {
		fail("setup: errno=%d", errno);
		return;
	}
	if (write(fd, "data", 4) != 4 || write(p[1], "data", 4) != 4)
		fail("write: errno=%d", errno);
	lseek(fd, 0, SEEK_SET);
	read_huge_in_child(fd, 0, "read of a file");
	read_huge_in_child(fd, 1, "pread64 of a file");
	read_huge_in_child(zero, 0, "read of /dev/zero");
	read_huge_in_child(p[0], 0, "read of a pipe");
	check(lseek(fd, 0, SEEK_CUR) == 0, "position unchanged");
	close(fd);
	close(zero);
	close(p[0]);
	close(p[1]);
	unlink(scratch("r"));
}

// A large count that stays in the user half is fine: the read is short.
static void t_large_count_in_range(void)
{
	int fd = scratch_file("l");
	static char big[8192];

	if (fd < 0)
		return;
	if (write(fd, "0123456789", 10) != 10)
		fail("write: errno=%d", errno);
	lseek(fd, 0, SEEK_SET);
	long rc = syscall(SYS_read, fd, big, 1UL << 32);
	if (rc != 10)
		fail("read of 4 GiB from a 10-byte file: %ld errno=%d", rc, errno);
	close(fd);
	unlink(scratch("l"));
}

static void t_negative_offset(void)
{
	int p[2];

	if (pipe(p) < 0) {
		fail("pipe: errno=%d", errno);
		return;
	}
	check_errno(syscall(SYS_pread64, p[0], small, 1, -1L), EINVAL, "pread64 on a pipe at -1");
	check_errno(syscall(SYS_pwrite64, p[1], small, 1, -1L), EINVAL, "pwrite64 on a pipe at -1");
	check_errno(syscall(SYS_pread64, 9999, small, 1, -1L), EINVAL, "pread64 on a bad fd at -1");
	check_errno(syscall(SYS_pread64, p[0], small, 1, 0L), ESPIPE, "pread64 on a pipe at 0");
	close(p[0]);
	close(p[1]);
}

// ---- vectored forms: every segment checked before any I/O ---------------------------

static void t_vectored_checks_all_segments(void)
{
	int fd = scratch_file("v");
	struct iovec iov[2] = { { small, 4 }, { (void *)KERNEL_ADDR, 4 } };

	if (fd < 0)
		return;
	check_errno(syscall(SYS_writev, fd, iov, 2), EFAULT, "writev with a kernel-address segment");
	check_errno(syscall(SYS_pwritev, fd, iov, 2, 0, 0), EFAULT, "pwritev, kernel segment");
	iov[1].iov_base = small;
	iov[1].iov_len = 1UL << 62;
	check_errno(syscall(SYS_writev, fd, iov, 2), EFAULT, "writev with a 2^62-byte segment");
	check(file_size(fd) == 0, "nothing written by the refused writevs");
	if (write(fd, "abcdefgh", 8) != 8)
		fail("write: errno=%d", errno);
	lseek(fd, 0, SEEK_SET);
	check_errno(syscall(SYS_readv, fd, iov, 2), EFAULT, "readv with a 2^62-byte segment");
	check_errno(syscall(SYS_preadv, fd, iov, 2, 0, 0), EFAULT, "preadv, 2^62-byte segment");
	check(lseek(fd, 0, SEEK_CUR) == 0, "position unchanged by the refused readv");
	iov[1].iov_len = 1UL << 63;	// negative as ssize_t
	check_errno(syscall(SYS_readv, fd, iov, 2), EINVAL, "readv with a 2^63-byte segment");
	check_errno(syscall(SYS_writev, fd, iov, 2), EINVAL, "writev with a 2^63-byte segment");
	// Mapped later in the range but a user address: Linux copies what
	// it can (the first segment) and returns that.
	iov[1].iov_base = (void *)0x10;
	iov[1].iov_len = 4;
	lseek(fd, 0, SEEK_SET);
	long rc = syscall(SYS_writev, fd, iov, 2);
	if (rc != 4)
		fail("writev with an unmapped user segment: %ld errno=%d, want 4", rc, errno);
	close(fd);
	unlink(scratch("v"));
}

// ---- interval timers -----------------------------------------------------------------

// About 18446744074 s is 2^64 ns plus 0.29 s: a wrapping conversion arms
// a 0.29 s timer.
#define WRAPPING_SEC 18446744074L

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void t_setitimer_huge_value(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		struct itimerval v = { { 0, 0 }, { WRAPPING_SEC, 0 } }, now;

		alarm(0);
		signal(SIGALRM, on_alarm);
		if (setitimer(ITIMER_REAL, &v, NULL) < 0)
			_exit(2);
		sleep_ns(700 * 1000000L);
		if (alarms)
			_exit(3);		// armed as a short timer
		if (getitimer(ITIMER_REAL, &now) < 0)
			_exit(4);
		if (now.it_value.tv_sec < 1000000000L)
			_exit(5);		// not a huge time left
		_exit(0);
	}
	check_child_ok(pid, "huge setitimer value (3: fired within 0.7 s, 5: getitimer small)");
}

static void t_setitimer_huge_interval(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		struct itimerval v = { { WRAPPING_SEC, 0 }, { 0, 10000 } }, now;

		alarm(0);
		signal(SIGALRM, on_alarm);
		if (setitimer(ITIMER_REAL, &v, NULL) < 0)
			_exit(2);
		sleep_ns(800 * 1000000L);
		if (alarms != 1)
			_exit(alarms ? 3 : 6);	// 3: the interval wrapped
		if (getitimer(ITIMER_REAL, &now) < 0)
			_exit(4);
		if (now.it_interval.tv_sec < 1000000000L || now.it_value.tv_sec < 1000000000L)
			_exit(5);
		_exit(0);
	}
	check_child_ok(pid, "huge interval (3: fired again, 6: never fired, 5: getitimer small)");
}

// alarm(2) takes an unsigned int: the upper half of the register is not
// part of the value.
static void t_alarm_unsigned_int(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		struct itimerval now;

		alarm(0);
		signal(SIGALRM, on_alarm);
		syscall(SYS_alarm, (1UL << 32) | 5);
		if (getitimer(ITIMER_REAL, &now) < 0)
			_exit(4);
		if (now.it_value.tv_sec > 5 || now.it_value.tv_sec < 3)
			_exit(3);
		alarm(0);
		_exit(0);
	}
	check_child_ok(pid, "alarm(2^32 + 5) arms 5 s (3: something else)");
}

// ---- two-path calls ----------------------------------------------------------------

static void t_two_path_bad_new_path(void)
{
	char old[PATH_MAX], missing[PATH_MAX], new_name[PATH_MAX];
	void *unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const unsigned long bad[] = {
		0, 1, KERNEL_ADDR, 0xffffffff80000000UL, 0x8000000000000000UL,
		0x00007ffffffff000UL, (unsigned long)unmapped,
	};
	int fd;

	snprintf(old, sizeof(old), "%s", scratch("old"));
	snprintf(missing, sizeof(missing), "%s", scratch("missing"));
	snprintf(new_name, sizeof(new_name), "%s", scratch("new"));
	fd = open(old, O_CREAT | O_WRONLY, 0644);
	if (fd < 0) {
		fail("create: errno=%d", errno);
		return;
	}
	close(fd);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unsigned long b = bad[i];
		char what[64];

#define TRY(call, name) do { \
		snprintf(what, sizeof(what), "%s, new path %#lx", name, b); \
		check_errno(call, EFAULT, what); \
	} while (0)
		TRY(syscall(SYS_link, old, b), "link");
		TRY(syscall(SYS_linkat, AT_FDCWD, old, AT_FDCWD, b, 0), "linkat");
		TRY(syscall(SYS_rename, old, b), "rename");
		TRY(syscall(SYS_renameat, AT_FDCWD, old, AT_FDCWD, b), "renameat");
		TRY(syscall(SYS_renameat2, AT_FDCWD, old, AT_FDCWD, b, 0), "renameat2");
		TRY(syscall(SYS_symlink, "target", b), "symlink");
		TRY(syscall(SYS_symlinkat, "target", AT_FDCWD, b), "symlinkat");
		TRY(syscall(SYS_link, b, new_name), "link (old path)");
		TRY(syscall(SYS_rename, missing, b), "rename of a missing file");
#undef TRY
		// Linux looks the old name up before it reads the new one.
		snprintf(what, sizeof(what), "link of a missing file, new path %#lx", b);
		check_errno(syscall(SYS_link, missing, b), ENOENT, what);
	}
	check(access(old, F_OK) == 0, "old name still there");
	unlink(old);
	munmap(unmapped, 4096);
}

static const struct test_case cases[] = {
	{ "write_huge_count_efault", t_write_huge_count },
	{ "read_huge_count_efault", t_read_huge_count },
	{ "large_count_in_range_short_read", t_large_count_in_range },
	{ "negative_offset_einval_first", t_negative_offset },
	{ "vectored_checks_all_segments_first", t_vectored_checks_all_segments },
	{ "setitimer_huge_value_saturates", t_setitimer_huge_value },
	{ "setitimer_huge_interval_saturates", t_setitimer_huge_interval },
	{ "alarm_takes_unsigned_int", t_alarm_unsigned_int },
	{ "two_path_calls_bad_new_path_efault", t_two_path_bad_new_path },
};

int main(void)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/argcheck-%d", (int)getpid());
	if (mkdir(scratch_dir, 0755) < 0)
		ktap_diag("cannot create %s: errno %d", scratch_dir, errno);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
