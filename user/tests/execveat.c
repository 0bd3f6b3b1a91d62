// execveat: paths relative to a directory descriptor, AT_FDCWD, absolute
// paths (dirfd ignored), AT_EMPTY_PATH on an O_PATH, an O_RDONLY and a
// memfd descriptor (AT_EXECFN "/dev/fd/N"), AT_SYMLINK_NOFOLLOW on a
// symlink (ELOOP), and Linux's errnos for bad flags, descriptors and
// paths; memfd_create's own checks.  The program executes itself with
// "--child EXECFN": the child checks AT_EXECFN and exits 0.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "testcase.h"

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

static char self[PATH_MAX - 64], self_dir[PATH_MAX - 64];
static const char *self_base;

static long sys_execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
			 int flags)
{
	return syscall(SYS_execveat, dirfd, path, argv, envp, flags);
}

static int sys_memfd(const char *name, unsigned flags)
{
	return (int)syscall(SYS_memfd_create, name, flags);
}

// In a child: execveat(dirfd, path, flags) with the AT_EXECFN the new
// program must see ("" for "don't check").  Returns the wait status, or
// 256 + errno if execveat failed.
static int try_exec(int dirfd, const char *path, int flags, const char *execfn)
{
	pid_t pid = fork_child();
	if (pid == 0) {
		char *argv[] = { "execveat", "--child", (char *)execfn, NULL };
		char *envp[] = { NULL };
		sys_execveat(dirfd, path, argv, envp, flags);
		_exit(100 + errno);
	}
	int st = reap_child(pid);
	if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) >= 100)
		return 256 + WEXITSTATUS(st) - 100;
	return st;
}

static void expect_runs(int dirfd, const char *path, int flags, const char *execfn,
			const char *what)
{
	int st = try_exec(dirfd, path, flags, execfn);
	if (st != 0)
		fail("%s: status %#x (256+errno if execveat failed)", what, st);
}

static void expect_errno(int dirfd, const char *path, int flags, int want, const char *what)
{
	int st = try_exec(dirfd, path, flags, "");
	if (st != 256 + want)
		fail("%s: status %#x, want execveat errno %d", what, st, want);
}

static void t_dirfd_relative(void)
{
	char execfn[PATH_MAX];
	int dfd = open(self_dir, O_RDONLY | O_DIRECTORY);

	if (!check_ok(dfd, "open the program's directory"))
		return;
	snprintf(execfn, sizeof(execfn), "/dev/fd/%d/%s", dfd, self_base);
	expect_runs(dfd, self_base, 0, execfn, "relative to a directory descriptor");
	close(dfd);
}

static void t_fdcwd(void)
{
	char cwd[PATH_MAX];

	if (!getcwd(cwd, sizeof(cwd)) || chdir(self_dir) < 0) {
		fail("chdir: errno %d", errno);
		return;
	}
	expect_runs(AT_FDCWD, self_base, 0, self_base, "AT_FDCWD");
	if (chdir(cwd) < 0)
		fail("chdir back: errno %d", errno);
}

static void t_absolute(void)
{
	expect_runs(-1, self, 0, self, "absolute path with dirfd -1");
	expect_runs(9999, self, 0, self, "absolute path with a closed dirfd");
}

static void t_empty_path(void)
{
	char execfn[64];
	int fd = open(self, O_PATH);

	if (!check_ok(fd, "open O_PATH"))
		return;
	snprintf(execfn, sizeof(execfn), "/dev/fd/%d", fd);
	expect_runs(fd, "", AT_EMPTY_PATH, execfn, "AT_EMPTY_PATH on an O_PATH descriptor");
	expect_errno(fd, "", 0, ENOENT, "an empty path without AT_EMPTY_PATH");
	close(fd);
	fd = open(self, O_RDONLY);
	if (!check_ok(fd, "open O_RDONLY"))
		return;
	snprintf(execfn, sizeof(execfn), "/dev/fd/%d", fd);
	expect_runs(fd, "", AT_EMPTY_PATH, execfn, "AT_EMPTY_PATH on an O_RDONLY descriptor");
	close(fd);
}

static void t_memfd(void)
{
	int in = open(self, O_RDONLY);
	int mfd = sys_memfd("execveat-test", 0);
	char buf[65536], execfn[64];
	ssize_t n;

	if (!check_ok(in, "open self") || !check_ok(mfd, "memfd_create"))
		return;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(mfd, buf, (size_t)n) != n) {
			fail("write the memfd: errno %d", errno);
			break;
		}
	close(in);
	snprintf(execfn, sizeof(execfn), "/dev/fd/%d", mfd);
	expect_runs(mfd, "", AT_EMPTY_PATH, execfn, "AT_EMPTY_PATH on a memfd");
	close(mfd);
}

static void t_symlink_nofollow(void)
{
	if (symlink(self, scratch("link")) < 0) {
		fail("symlink: errno %d", errno);
		return;
	}
	expect_errno(AT_FDCWD, scratch("link"), AT_SYMLINK_NOFOLLOW, ELOOP,
		     "AT_SYMLINK_NOFOLLOW on a symlink");
	expect_runs(AT_FDCWD, scratch("link"), 0, scratch("link"), "following the symlink");
	unlink(scratch("link"));
}

static void t_errors(void)
{
	int dfd = open(self_dir, O_RDONLY | O_DIRECTORY);
	int ffd = open(self, O_RDONLY);

	expect_errno(AT_FDCWD, self, 0x1, EINVAL, "unknown flag 0x1");
	expect_errno(AT_FDCWD, self, 0x200, EINVAL, "unknown flag 0x200 (AT_REMOVEDIR)");
	expect_errno(9999, "x", 0, EBADF, "relative path, closed dirfd");
	expect_errno(ffd, "x", 0, ENOTDIR, "relative path, dirfd a file");
	expect_errno(dfd, "", AT_EMPTY_PATH, EACCES, "AT_EMPTY_PATH on a directory");
	expect_errno(dfd, "no-such-program", 0, ENOENT, "missing file");
	expect_errno(9999, "", 0, ENOENT, "empty path, closed dirfd, no AT_EMPTY_PATH");
	expect_errno(9999, "", AT_EMPTY_PATH, EBADF, "empty path, closed dirfd");
	int p[2];
	if (pipe(p) == 0) {
		expect_errno(p[0], "", AT_EMPTY_PATH, EACCES, "AT_EMPTY_PATH on a pipe");
		close(p[0]);
		close(p[1]);
	}
	check_errno(sys_execveat(AT_FDCWD, (char *)8, NULL, NULL, 0), EFAULT, "bad path pointer");
	close(dfd);
	close(ffd);
}

static void t_memfd_create(void)
{
	char name[300];
	struct stat st;

	memset(name, 'n', sizeof(name));
	name[249] = 0;
	int fd = sys_memfd(name, MFD_CLOEXEC);
	if (!check_ok(fd, "a 249-byte name"))
		return;
	check(fcntl(fd, F_GETFD) == FD_CLOEXEC, "MFD_CLOEXEC sets FD_CLOEXEC");
	check(fcntl(fd, F_GETFL) & O_RDWR, "opened read-write");
	check_ok(fstat(fd, &st), "fstat");
	check(S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0777 && st.st_size == 0 &&
	      st.st_nlink == 0, "a regular file, 0777, empty, no links");
	check(write(fd, "hello", 5) == 5 && pread(fd, name + 256, 5, 0) == 5 &&
	      memcmp(name + 256, "hello", 5) == 0, "write and read back");
	check_ok(ftruncate(fd, 8192), "ftruncate");
	char *m = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
	if (check(m != MAP_FAILED, "mmap")) {
		check(memcmp(m, "hello", 5) == 0 && m[4096] == 0, "the mapping shows the file");
		munmap(m, 8192);
	}
	close(fd);
	name[249] = 'n';
	name[250] = 0;
	check_errno(sys_memfd(name, 0), EINVAL, "a 250-byte name");
	check_errno(sys_memfd((char *)8, 0), EFAULT, "a bad name pointer");
	check_errno(sys_memfd("x", 0x40000000U), EINVAL, "an unknown flag");
}

static const struct test_case cases[] = {
	{ "dirfd_relative", t_dirfd_relative },
	{ "at_fdcwd", t_fdcwd },
	{ "absolute_path_ignores_dirfd", t_absolute },
	{ "empty_path", t_empty_path },
	{ "memfd", t_memfd },
	{ "symlink_nofollow_eloop", t_symlink_nofollow },
	{ "errors", t_errors },
	{ "memfd_create", t_memfd_create },
};

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "--child") == 0) {
		const char *fn = (const char *)getauxval(AT_EXECFN);
		if (argv[2][0] && (!fn || strcmp(fn, argv[2]) != 0)) {
			fprintf(stderr, "execveat child: AT_EXECFN %s, want %s\n", fn ? fn : "(none)",
				argv[2]);
			return 1;
		}
		return 0;
	}
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = 0;
	snprintf(self_dir, sizeof(self_dir), "%s", self);
	char *slash = strrchr(self_dir, '/');
	if (slash)
		*slash = 0;
	self_base = strrchr(self, '/') ? strrchr(self, '/') + 1 : self;
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/execveat-%d", (int)getpid());
	if (mkdir(scratch_dir, 0755) < 0)
		ktap_diag("cannot create %s: errno %d", scratch_dir, errno);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
