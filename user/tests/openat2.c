// openat2: struct open_how's size rules (EINVAL below 24 bytes, a longer
// struct zero beyond the known fields or E2BIG, EFAULT), the flag checks
// openat skips (unknown flags and resolve bits, BENEATH with IN_ROOT, a
// mode without O_CREAT or beyond 07777, O_DIRECTORY|O_CREAT, O_PATH with
// other flags: EINVAL; RESOLVE_CACHED with O_CREAT or O_TRUNC: EAGAIN),
// O_CLOEXEC, and path resolution: RESOLVE_NO_SYMLINKS (ELOOP for a last
// or inner symlink, the link itself with O_PATH|O_NOFOLLOW),
// RESOLVE_NO_MAGICLINKS (/proc/self/fd/N and /proc/self/exe: ELOOP;
// /proc/self is an ordinary symlink), RESOLVE_BENEATH (absolute paths,
// ".." above the start, absolute symlinks, magic links: EXDEV; ".."
// inside it works), RESOLVE_IN_ROOT (absolute paths, ".." and symlinks
// stay inside; O_CREAT there), RESOLVE_NO_XDEV inside one file system.
// Linux's own tools/testing/selftests/openat2/openat2_test passes too.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testcase.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

struct how {
	uint64_t flags, mode, resolve;
};

#define NO_XDEV		0x01
#define NO_MAGICLINKS	0x02
#define NO_SYMLINKS	0x04
#define BENEATH		0x08
#define IN_ROOT		0x10
#define CACHED		0x20

static long oa2(int dirfd, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve)
{
	struct how h = { flags, mode, resolve };

	return syscall(SYS_openat2, dirfd, path, &h, sizeof(h));
}

// Opens, checks it is the same file as 'want' (a path), closes.
static void same_file(long fd, const char *want, const char *what)
{
	struct stat a, b;

	if (fd < 0) {
		fail("%s: errno=%d", what, errno);
		return;
	}
	if (fstat((int)fd, &a) < 0 || stat(want, &b) < 0)
		fail("%s: stat", what);
	else if (a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		fail("%s: not %s", what, want);
	close((int)fd);
}

static void t_sizes(void)
{
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct how *h = (struct how *)page;
	long fd;

	if (page == MAP_FAILED)
		return (void)fail("mmap");
	h->flags = O_RDONLY;
	check_errno(syscall(SYS_openat2, AT_FDCWD, "/", h, 0), EINVAL, "size 0");
	check_errno(syscall(SYS_openat2, AT_FDCWD, "/", h, 23), EINVAL, "size 23");
	fd = syscall(SYS_openat2, AT_FDCWD, "/", h, 24);
	check(fd >= 0, "size 24");
	close((int)fd);
	fd = syscall(SYS_openat2, AT_FDCWD, "/", h, 4096);
	check(fd >= 0, "a page of zeros after the struct");
	close((int)fd);
	page[100] = 1;
	check_errno(syscall(SYS_openat2, AT_FDCWD, "/", h, 4096), E2BIG, "a non-zero tail");
	page[100] = 0;
	check_errno(syscall(SYS_openat2, AT_FDCWD, "/", h, 4097), E2BIG, "more than a page");
	munmap(page + 4096, 4096);
	h = (struct how *)(page + 4096 - 100);
	memset(h, 0, 100);
	check_errno(syscall(SYS_openat2, AT_FDCWD, "/", h, 200), EFAULT, "a tail past the mapping");
	check_errno(syscall(SYS_openat2, AT_FDCWD, "/", (void *)8, 24), EFAULT, "a bad pointer");
	// A struct ending at the mapping's end is fine.
	h = (struct how *)(page + 4096 - 24);
	memset(h, 0, 24);
	fd = syscall(SYS_openat2, AT_FDCWD, "/", h, 24);
	check(fd >= 0, "a struct at the end of the mapping");
	close((int)fd);
	munmap(page, 4096);
}

static void t_flags(void)
{
	const char *f = scratch("flags");
	long fd;

	check_errno(oa2(AT_FDCWD, f, O_RDONLY | (1ULL << 40), 0, 0), EINVAL, "flag bit 40");
	check_errno(oa2(AT_FDCWD, f, O_RDONLY | 0x4, 0, 0), EINVAL, "an unknown low flag");
	check_errno(oa2(AT_FDCWD, f, O_RDONLY, 0, 0x40), EINVAL, "unknown resolve bit");
	check_errno(oa2(AT_FDCWD, f, O_RDONLY, 0, BENEATH | IN_ROOT), EINVAL, "BENEATH|IN_ROOT");
	check_errno(oa2(AT_FDCWD, f, O_RDONLY, 0644, 0), EINVAL, "mode without O_CREAT");
	check_errno(oa2(AT_FDCWD, f, O_CREAT | O_WRONLY, 010000, 0), EINVAL, "mode above 07777");
	check_errno(oa2(AT_FDCWD, f, O_CREAT | O_DIRECTORY, 0644, 0), EINVAL, "O_DIRECTORY|O_CREAT");
	check_errno(oa2(AT_FDCWD, f, O_PATH | O_RDWR, 0, 0), EINVAL, "O_PATH|O_RDWR");
	check_errno(oa2(AT_FDCWD, f, O_CREAT | O_WRONLY, 0644, CACHED), EAGAIN, "CACHED with O_CREAT");
	fd = oa2(AT_FDCWD, f, O_CREAT | O_WRONLY | O_CLOEXEC, 0640, 0);
	if (check(fd >= 0, "create")) {
		struct stat st;

		check(fcntl((int)fd, F_GETFD) == FD_CLOEXEC, "O_CLOEXEC");
		check(fstat((int)fd, &st) == 0 && (st.st_mode & 0777) == (0640 & ~umask(022)),
		      "the mode");
		close((int)fd);
	}
	check_errno(oa2(AT_FDCWD, f, O_WRONLY | O_TRUNC, 0, CACHED), EAGAIN, "CACHED with O_TRUNC");
	fd = oa2(AT_FDCWD, f, O_RDONLY, 0, CACHED);
	check(fd >= 0, "CACHED open of a cached file");
	close((int)fd);
	fd = oa2(AT_FDCWD, f, O_PATH | O_NOFOLLOW, 0, 0);
	check(fd >= 0, "O_PATH|O_NOFOLLOW");
	close((int)fd);
	unlink(f);
}

static void t_no_symlinks(void)
{
	char d[PATH_MAX], file[PATH_MAX];
	long fd;

	snprintf(d, sizeof(d), "%s", scratch("ns"));
	snprintf(file, sizeof(file), "%s", scratch("ns/file"));
	mkdir(d, 0755);
	close(open(file, O_CREAT | O_WRONLY, 0644));
	symlink("file", scratch("ns/link"));
	symlink(".", scratch("ns/dot"));
	same_file(oa2(AT_FDCWD, file, O_RDONLY, 0, NO_SYMLINKS), file, "a plain path");
	check_errno(oa2(AT_FDCWD, scratch("ns/link"), O_RDONLY, 0, NO_SYMLINKS), ELOOP, "last link");
	check_errno(oa2(AT_FDCWD, scratch("ns/dot/file"), O_RDONLY, 0, NO_SYMLINKS), ELOOP,
		    "inner link");
	fd = oa2(AT_FDCWD, scratch("ns/link"), O_PATH | O_NOFOLLOW, 0, NO_SYMLINKS);
	check(fd >= 0, "the link itself with O_PATH|O_NOFOLLOW");
	close((int)fd);
	same_file(oa2(AT_FDCWD, scratch("ns/link"), O_RDONLY, 0, 0), file, "without the flag");
	unlink(scratch("ns/link"));
	unlink(scratch("ns/dot"));
	unlink(file);
	rmdir(d);
}

static void t_no_magiclinks(void)
{
	char path[64];
	int fd = open("/proc/self/status", O_RDONLY);
	long got;

	if (fd < 0)
		return skip("no /proc");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	check_errno(oa2(AT_FDCWD, path, O_RDONLY, 0, NO_MAGICLINKS), ELOOP, "fd/N");
	check_errno(oa2(AT_FDCWD, "/proc/self/exe", O_RDONLY, 0, NO_MAGICLINKS), ELOOP, "exe");
	check_errno(oa2(AT_FDCWD, path, O_RDONLY, 0, NO_SYMLINKS), ELOOP, "NO_SYMLINKS too");
	got = oa2(AT_FDCWD, "/proc/self/status", O_RDONLY, 0, NO_MAGICLINKS);
	check(got >= 0, "/proc/self is an ordinary symlink");
	close((int)got);
	got = oa2(AT_FDCWD, path, O_PATH | O_NOFOLLOW, 0, NO_MAGICLINKS);
	check(got >= 0, "the magic link itself with O_PATH|O_NOFOLLOW");
	close((int)got);
	got = oa2(AT_FDCWD, path, O_RDONLY, 0, 0);
	check(got >= 0, "followed without the flag");
	close((int)got);
	close(fd);
}

static void t_beneath(void)
{
	char d[PATH_MAX];
	int dfd, pfd;
	long fd;

	snprintf(d, sizeof(d), "%s", scratch("bn"));
	mkdir(d, 0755);
	mkdir(scratch("bn/sub"), 0755);
	close(open(scratch("bn/a"), O_CREAT | O_WRONLY, 0644));
	symlink("/tmp", scratch("bn/abs"));
	symlink("sub/../a", scratch("bn/rel"));
	symlink("..", scratch("bn/up"));
	dfd = open(d, O_RDONLY | O_DIRECTORY);
	same_file(oa2(dfd, "a", O_RDONLY, 0, BENEATH), scratch("bn/a"), "a");
	same_file(oa2(dfd, "sub/../a", O_RDONLY, 0, BENEATH), scratch("bn/a"), "sub/../a");
	same_file(oa2(dfd, "rel", O_RDONLY, 0, BENEATH), scratch("bn/a"), "a relative symlink");
	check_errno(oa2(dfd, "../bn/a", O_RDONLY, 0, BENEATH), EXDEV, "..");
	check_errno(oa2(dfd, "sub/../../bn/a", O_RDONLY, 0, BENEATH), EXDEV, "sub/../..");
	check_errno(oa2(dfd, "/tmp", O_RDONLY, 0, BENEATH), EXDEV, "an absolute path");
	check_errno(oa2(dfd, "abs", O_RDONLY, 0, BENEATH), EXDEV, "an absolute symlink");
	check_errno(oa2(dfd, "up/bn/a", O_RDONLY, 0, BENEATH), EXDEV, "a symlink to ..");
	fd = oa2(dfd, "new", O_CREAT | O_WRONLY, 0644, BENEATH);
	check(fd >= 0, "O_CREAT beneath");
	close((int)fd);
	check_errno(oa2(dfd, "../bn/new2", O_CREAT | O_WRONLY, 0644, BENEATH), EXDEV,
		    "O_CREAT above the start");
	check(access(scratch("bn/new2"), F_OK) != 0, "nothing created");
	pfd = open("/proc/self", O_RDONLY | O_DIRECTORY);
	if (pfd >= 0) {
		check_errno(oa2(pfd, "exe", O_RDONLY, 0, BENEATH), EXDEV, "a magic link");
		close(pfd);
	}
	fd = oa2(dfd, ".", O_RDONLY | O_DIRECTORY, 0, BENEATH);
	same_file(fd, d, "the start itself");
	close(dfd);
	unlink(scratch("bn/new"));
	unlink(scratch("bn/a"));
	unlink(scratch("bn/abs"));
	unlink(scratch("bn/rel"));
	unlink(scratch("bn/up"));
	rmdir(scratch("bn/sub"));
	rmdir(d);
}

static void t_in_root(void)
{
	char d[PATH_MAX];
	char a[PATH_MAX + 8];
	int dfd, pfd;
	long fd;

	snprintf(d, sizeof(d), "%s", scratch("ir"));
	snprintf(a, sizeof(a), "%s/a", d);
	mkdir(d, 0755);
	mkdir(scratch("ir/sub"), 0755);
	close(open(a, O_CREAT | O_WRONLY, 0644));
	symlink("/a", scratch("ir/abs"));
	symlink("../../../../a", scratch("ir/sub/up"));
	dfd = open(d, O_RDONLY | O_DIRECTORY);
	same_file(oa2(dfd, "/a", O_RDONLY, 0, IN_ROOT), a, "/a is the root's a");
	same_file(oa2(dfd, "../../a", O_RDONLY, 0, IN_ROOT), a, ".. stops at the root");
	same_file(oa2(dfd, "abs", O_RDONLY, 0, IN_ROOT), a, "an absolute symlink");
	same_file(oa2(dfd, "sub/up", O_RDONLY, 0, IN_ROOT), a, "a symlink climbing out");
	same_file(oa2(dfd, "/", O_RDONLY | O_DIRECTORY, 0, IN_ROOT), d, "/ is the start");
	fd = oa2(dfd, "/../new", O_CREAT | O_WRONLY, 0644, IN_ROOT);
	check(fd >= 0, "O_CREAT of /../new");
	close((int)fd);
	check(access(scratch("ir/new"), F_OK) == 0, "created inside");
	pfd = open("/proc/self", O_RDONLY | O_DIRECTORY);
	if (pfd >= 0) {
		check_errno(oa2(pfd, "exe", O_RDONLY, 0, IN_ROOT), EXDEV, "a magic link");
		close(pfd);
	}
	close(dfd);
	unlink(scratch("ir/new"));
	unlink(scratch("ir/abs"));
	unlink(scratch("ir/sub/up"));
	unlink(a);
	rmdir(scratch("ir/sub"));
	rmdir(d);
}

static void t_no_xdev(void)
{
	char d[PATH_MAX];
	int dfd;

	snprintf(d, sizeof(d), "%s", scratch("xd"));
	mkdir(d, 0755);
	close(open(scratch("xd/a"), O_CREAT | O_WRONLY, 0644));
	dfd = open(d, O_RDONLY | O_DIRECTORY);
	same_file(oa2(dfd, "a", O_RDONLY, 0, NO_XDEV), scratch("xd/a"), "inside one file system");
	same_file(oa2(dfd, "../xd/./a", O_RDONLY, 0, NO_XDEV | NO_SYMLINKS), scratch("xd/a"),
		  "with .. and .");
	close(dfd);
	unlink(scratch("xd/a"));
	rmdir(d);
}

static const struct test_case cases[] = {
	{ "struct_sizes", t_sizes },
	{ "flag_checks", t_flags },
	{ "resolve_no_symlinks", t_no_symlinks },
	{ "resolve_no_magiclinks", t_no_magiclinks },
	{ "resolve_beneath", t_beneath },
	{ "resolve_in_root", t_in_root },
	{ "resolve_no_xdev", t_no_xdev },
};

int main(void)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/openat2-%d", (int)getpid());
	if (mkdir(scratch_dir, 0755) < 0)
		ktap_diag("cannot create %s: errno %d", scratch_dir, errno);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
