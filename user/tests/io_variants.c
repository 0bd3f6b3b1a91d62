// io_variants: the other ways of moving and stamping file data, as Linux
// 6.1: preadv2/pwritev2 (offset -1 is the position, RWF_APPEND,
// RWF_NOWAIT and unknown flags EOPNOTSUPP, the no-op flags),
// copy_file_range (offsets or positions, same-file overlap, its errnos),
// utime/utimes/futimesat, readahead, sync_file_range, mlock2 and
// restart_syscall.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <stdbool.h>
#include <unistd.h>
#include <utime.h>

#include "testcase.h"

#ifndef RWF_HIPRI	// glibc's <sys/uio.h> has them, musl's not
#define RWF_HIPRI	0x01
#define RWF_DSYNC	0x02
#define RWF_SYNC	0x04
#define RWF_NOWAIT	0x08
#define RWF_APPEND	0x10
#endif

static char path[64], path2[64];

static bool on_switchyard(void)
{
	struct utsname u;

	return uname(&u) == 0 && strstr(u.version, "Switchyard") != NULL;
}

static int fresh(const char *p, const char *text)
{
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0 && text && write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fail("write %s", p);
	return fd;
}

static long preadv2_(int fd, struct iovec *iov, int n, off_t off, int flags)
{
	return syscall(SYS_preadv2, fd, iov, n, off, 0, flags);
}

static long pwritev2_(int fd, struct iovec *iov, int n, off_t off, int flags)
{
	return syscall(SYS_pwritev2, fd, iov, n, off, 0, flags);
}

static void t_preadv2_pwritev2(void)
{
	int fd = fresh(path, "0123456789");
	char a[4] = { 0 }, b[4] = { 0 };
	struct iovec iov[2] = { { a, 3 }, { b, 3 } };

	check(preadv2_(fd, iov, 2, 2, 0) == 6 && !memcmp(a, "234", 3) && !memcmp(b, "567", 3),
	      "preadv2 at an offset");
	check(lseek(fd, 0, SEEK_CUR) == 10, "the position stays");
	lseek(fd, 1, SEEK_SET);
	check(preadv2_(fd, iov, 1, -1, RWF_HIPRI) == 3 && !memcmp(a, "123", 3), "offset -1: the position");
	check(lseek(fd, 0, SEEK_CUR) == 4, "which moves");
	struct iovec w = { "ab", 2 };
	check(pwritev2_(fd, &w, 1, 0, RWF_DSYNC | RWF_SYNC) == 2, "pwritev2 with the sync flags");
	check(pwritev2_(fd, &w, 1, 3, RWF_APPEND) == 2, "RWF_APPEND with an offset");
	struct stat st;
	check(fstat(fd, &st) == 0 && st.st_size == 12, "appended at the end, not at 3");
	lseek(fd, 0, SEEK_SET);
	check(pwritev2_(fd, &w, 1, -1, RWF_APPEND) == 2 && lseek(fd, 0, SEEK_CUR) == 14,
	      "RWF_APPEND at the position: the position follows");
	// Linux 6.1's tmpfs has no FMODE_NOWAIT (other file systems and later
	// kernels take the flag).
	long nw = preadv2_(fd, iov, 1, 0, RWF_NOWAIT);
	if (on_switchyard())
		check(nw == -1 && errno == EOPNOTSUPP, "RWF_NOWAIT on a file: EOPNOTSUPP");
	check_errno(preadv2_(fd, iov, 1, 0, 0x10000000), EOPNOTSUPP, "an unknown flag");
	check(preadv2_(fd, iov, 0, 0, 0x10000000) == 0, "no bytes: flags not looked at");
	check_errno(preadv2_(fd, iov, 1, -2, 0), EINVAL, "offset -2");
	close(fd);
}

static long cfr(int in, off_t *oin, int out, off_t *oout, size_t len, unsigned flags)
{
	return syscall(SYS_copy_file_range, in, oin, out, oout, len, flags);
}

static void t_copy_file_range(void)
{
	int in = fresh(path, "hello world"), out = fresh(path2, NULL), ro = open(path, O_RDONLY);
	char buf[32] = { 0 };
	off_t oin = 6, oout = 0;

	check(cfr(in, &oin, out, &oout, 5, 0) == 5 && oin == 11 && oout == 5, "with offsets, updated");
	check(pread(out, buf, sizeof(buf), 0) == 5 && !strcmp(buf, "world"), "the bytes");
	lseek(in, 0, SEEK_SET);
	check(cfr(in, NULL, out, NULL, 100, 0) == 11, "at the positions, stopping at the end");
	check(lseek(in, 0, SEEK_CUR) == 11 && lseek(out, 0, SEEK_CUR) == 11, "positions moved");
	oin = 0;
	oout = 2;
	check_errno(cfr(in, &oin, in, &oout, 5, 0), EINVAL, "overlapping ranges of one file");
	oout = 20;
	check(cfr(in, &oin, in, &oout, 5, 0) == 5, "apart in one file");
	check_errno(cfr(in, NULL, out, NULL, 1, 1), EINVAL, "flags");
	check_errno(cfr(in, NULL, ro, NULL, 1, 0), EBADF, "output not writable");
	check_errno(cfr(-1, NULL, out, NULL, 1, 0), EBADF, "no input");
	int d = open("/tmp", O_RDONLY | O_DIRECTORY);
	check_errno(cfr(d, NULL, out, NULL, 1, 0), EISDIR, "a directory");
	int p[2];
	if (pipe(p) == 0) {
		check_errno(cfr(p[0], NULL, out, NULL, 1, 0), EINVAL, "a pipe");
		close(p[0]);
		close(p[1]);
	}
	int app = open(path2, O_WRONLY | O_APPEND);
	check_errno(cfr(in, NULL, app, NULL, 1, 0), EBADF, "an O_APPEND output");
	check_errno(cfr(in, (off_t *)8, out, NULL, 1, 0), EFAULT, "a bad offset pointer");
	close(app);
	close(d);
	close(ro);
	close(in);
	close(out);
}

static void t_utime_family(void)
{
	struct stat st;
	struct utimbuf ub = { .actime = 1000, .modtime = 2000 };
	struct timeval tv[2] = { { 3000, 5 }, { 4000, 999999 } };
	int fd = fresh(path, NULL), dfd = open("/tmp", O_RDONLY);

	close(fd);
	check_ok(syscall(SYS_utime, path, &ub), "utime");
	check(stat(path, &st) == 0 && st.st_atime == 1000 && st.st_mtime == 2000, "whole seconds");
	check_ok(syscall(SYS_utimes, path, tv), "utimes");
	check(stat(path, &st) == 0 && st.st_atime == 3000 && st.st_atim.tv_nsec == 5000 &&
	      st.st_mtime == 4000 && st.st_mtim.tv_nsec == 999999000, "microseconds");
	check_ok(syscall(SYS_futimesat, dfd, path + 5, tv), "futimesat relative to /tmp");
	tv[0].tv_usec = 1000000;
	check_errno(syscall(SYS_utimes, path, tv), EINVAL, "a microsecond count of 10^6");
	check_ok(syscall(SYS_utime, path, NULL), "utime(NULL): now");
	check(stat(path, &st) == 0 && st.st_mtime > 4000, "now");
	check_errno(syscall(SYS_utime, path, (void *)8), EFAULT, "a bad utimbuf");
	check_errno(syscall(SYS_utime, "/nonexistent-file", &ub), ENOENT, "a missing file");
	close(dfd);
}

static void t_readahead_sync_file_range(void)
{
	int fd = fresh(path, "data"), wo = open(path, O_WRONLY), p[2];

	check_ok(readahead(fd, 0, 4096), "readahead of a file");
	check_errno(readahead(wo, 0, 4096), EBADF, "not open for reading");
	check_ok(sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE), "sync_file_range");
	check_errno(sync_file_range(fd, 0, 0, 8), EINVAL, "unknown flags");
	check_errno(sync_file_range(fd, -1, 0, 0), EINVAL, "a negative offset");
	if (pipe(p) == 0) {
		check_errno(readahead(p[0], 0, 1), EINVAL, "readahead of a pipe");
		check_errno(sync_file_range(p[0], 0, 0, 0), ESPIPE, "sync_file_range of a pipe");
		close(p[0]);
		close(p[1]);
	}
	close(wo);
	close(fd);
}

static void t_mlock2_restart(void)
{
	char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	check_ok(syscall(SYS_mlock2, page, 4096, 1), "mlock2(MLOCK_ONFAULT)");
	check_errno(syscall(SYS_mlock2, page, 4096, 2), EINVAL, "unknown flags");
	munlock(page, 4096);
	munmap(page, 4096);
	check_errno(syscall(SYS_restart_syscall), EINTR, "restart_syscall with nothing to restart");
}

static void t_mincore(void)
{
	char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char vec[3] = { 9, 9, 9 };

	p[4096] = 1;		// only the middle page is touched
	check_ok(mincore(p, 3 * 4096, vec), "mincore");
	check(vec[0] == 0 && vec[1] == 1 && vec[2] == 0, "the touched page only");
	check_errno(mincore(p + 1, 4096, vec), EINVAL, "an unaligned start");
	munmap(p + 4096, 4096);
	check_errno(mincore(p, 3 * 4096, vec), ENOMEM, "a hole in the range");
	check_errno(mincore(p, 4096, (unsigned char *)8), EFAULT, "a bad vector");
	munmap(p, 3 * 4096);
}

// sendfile reads the offset first and writes it back last, and a fault
// either way is the answer, even when nothing moved (LTP sendfile04).
static void t_sendfile_offset(void)
{
	int in = fresh(path, "abc"), out = fresh(path2, NULL);
	off_t *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	off_t off = 1;

	check(sendfile(out, in, &off, 10) == 2 && off == 3, "two bytes from 1, offset 3");
	check(sendfile(out, in, &off, 10) == 0 && off == 3, "at the end: 0, offset kept");
	check_errno(sendfile(out, in, ro, 1), EFAULT, "a read-only offset, nothing to send");
	check_errno(sendfile(out, -1, ro, 1), EFAULT, "a read-only offset beats EBADF");
	check_errno(sendfile(out, -1, &off, 1), EBADF, "a bad descriptor");
	check_errno(sendfile(out, in, (off_t *)8, 1), EFAULT, "an unmapped offset");
	munmap(ro, 4096);
	close(in);
	close(out);
}

static const struct test_case cases[] = {
	{ "preadv2_pwritev2", t_preadv2_pwritev2 },
	{ "copy_file_range", t_copy_file_range },
	{ "utime_utimes_futimesat", t_utime_family },
	{ "readahead_sync_file_range", t_readahead_sync_file_range },
	{ "mlock2_restart_syscall", t_mlock2_restart },
	{ "mincore", t_mincore },
	{ "sendfile_offset_read_first_written_last", t_sendfile_offset },
};

int main(void)
{
	snprintf(path, sizeof(path), "/tmp/iov-%d", (int)getpid());
	snprintf(path2, sizeof(path2), "/tmp/iov2-%d", (int)getpid());
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	unlink(path);
	unlink(path2);
	return ktap_finish();
}
