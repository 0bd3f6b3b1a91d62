// xattr: extended attributes on the in-memory tree, as Linux's tmpfs
// keeps them (6.6 and later, with user. attributes): set, get, list and
// remove through paths, l* and f* calls; XATTR_CREATE and XATTR_REPLACE;
// empty values; ERANGE for a small buffer and the size query; the
// namespaces (user. only on files and directories, trusted. for root
// only and hidden from others' lists, security., unknown ones
// EOPNOTSUPP, a bare prefix EINVAL); permissions (the file's read and
// write bits, the sticky directory); pipes, /proc and device nodes; and
// Linux's checks on the file, the name, the flags and the size first.
// On Linux the files are made in /dev/shm (a tmpfs).
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"

// glibc declares the buffer sizes of the xattr calls (attribute access):
// the bad sizes and pointers passed on purpose would fail the build.
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-overread"

static char path[200];

static const char *file(const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", scratch_dir, name);
	return path;
}

static int make(const char *name, int mode)
{
	int fd = open(file(name), O_CREAT | O_RDWR | O_TRUNC, mode);

	if (fd < 0)
		fail("create %s: errno=%d", name, errno);
	return fd;
}

static void t_set_get_list_remove(void)
{
	char buf[256];
	int fd = make("f", 0644);

	if (fd < 0)
		return;
	check_errno(getxattr(file("f"), "user.x", buf, sizeof(buf)), ENODATA, "none yet");
	check_ok(setxattr(file("f"), "user.x", "hello", 5, 0), "setxattr");
	check(getxattr(file("f"), "user.x", buf, sizeof(buf)) == 5 && !memcmp(buf, "hello", 5),
	      "getxattr gives it back");
	check(fgetxattr(fd, "user.x", 0, 0) == 5, "size 0 asks the length");
	check_errno(fgetxattr(fd, "user.x", buf, 3), ERANGE, "a buffer too small");
	check_ok(fsetxattr(fd, "user.y", "", 0, 0), "an empty value");
	check(fgetxattr(fd, "user.y", buf, sizeof(buf)) == 0, "reads back empty");
	check_errno(setxattr(file("f"), "user.x", "a", 1, XATTR_CREATE), EEXIST, "XATTR_CREATE of one there");
	check_errno(setxattr(file("f"), "user.z", "a", 1, XATTR_REPLACE), ENODATA, "XATTR_REPLACE of none");
	check_ok(setxattr(file("f"), "user.x", "bye", 3, XATTR_REPLACE), "XATTR_REPLACE");
	check(getxattr(file("f"), "user.x", buf, sizeof(buf)) == 3 && !memcmp(buf, "bye", 3), "replaced");
	long n = listxattr(file("f"), buf, sizeof(buf));
	check(n == 14 && memmem(buf, (size_t)n, "user.x\0", 7) && memmem(buf, (size_t)n, "user.y\0", 7),
	      "listxattr: user.x and user.y");
	check(flistxattr(fd, 0, 0) == 14, "size 0 asks the length");
	check_errno(listxattr(file("f"), buf, 5), ERANGE, "a list buffer too small");
	check_ok(fremovexattr(fd, "user.y"), "fremovexattr");
	check_errno(removexattr(file("f"), "user.y"), ENODATA, "removing it again");
	check(listxattr(file("f"), buf, sizeof(buf)) == 7, "one left");
	static char big[65536];
	check_ok(fsetxattr(fd, "user.big", big, sizeof(big), 0), "a 64 KiB value");
	check_errno(fsetxattr(fd, "user.big", big, sizeof(big) + 1, 0), E2BIG, "one byte more");
	close(fd);
	unlink(file("f"));
}

static void t_namespaces(void)
{
	char buf[64];
	int fd = make("ns", 0644);

	if (fd < 0)
		return;
	check_ok(fsetxattr(fd, "trusted.t", "1", 1, 0), "trusted. as root");
	check_ok(fsetxattr(fd, "security.s", "1", 1, 0), "security. as root");
	check_errno(fsetxattr(fd, "foo.bar", "1", 1, 0), EOPNOTSUPP, "an unknown namespace");
	check_errno(fsetxattr(fd, "system.foo", "1", 1, 0), EOPNOTSUPP, "system.foo");
	check_errno(fsetxattr(fd, "user.", "1", 1, 0), EINVAL, "a bare prefix");
	check_errno(fsetxattr(fd, "security.capability", "1", 1, 0), EINVAL, "a malformed capability");
	check_errno(fremovexattr(fd, "security.capability"), ENODATA, "no capability to remove");
	check(flistxattr(fd, buf, sizeof(buf)) == 21, "root lists trusted.t and security.s");
	close(fd);
	// user. only on files and directories.
	symlink("nowhere", file("sl"));
	check_errno(lsetxattr(file("sl"), "user.x", "1", 1, 0), EPERM, "user. on a symlink");
	check_errno(lgetxattr(file("sl"), "user.x", buf, sizeof(buf)), ENODATA, "reading one");
	check_ok(lsetxattr(file("sl"), "trusted.x", "1", 1, 0), "trusted. on a symlink");
	unlink(file("sl"));
	check_ok(mkdir(file("d"), 0755), "mkdir");
	check_ok(setxattr(file("d"), "user.x", "1", 1, 0), "user. on a directory");
	rmdir(file("d"));
	check_errno(setxattr("/dev/null", "user.x", "1", 1, 0), EPERM, "user. on a device");
	int p[2];
	if (pipe(p) == 0) {
		check_errno(fgetxattr(p[0], "user.x", buf, sizeof(buf)), ENODATA, "user. of a pipe");
		check_errno(fsetxattr(p[0], "user.x", "1", 1, 0), EPERM, "setting one");
		check_errno(fsetxattr(p[0], "trusted.x", "1", 1, 0), EOPNOTSUPP, "trusted. of a pipe");
		check(flistxattr(p[0], buf, sizeof(buf)) == 0, "a pipe lists none");
		close(p[0]);
		close(p[1]);
	}
	check_errno(getxattr("/proc/self/status", "user.x", buf, sizeof(buf)), EOPNOTSUPP,
		    "/proc has none");
	check(listxattr("/proc/self/status", buf, sizeof(buf)) == 0, "lists none");
	unlink(file("ns"));
}

static int c_unprivileged(void)
{
	char buf[64];
	int bad = 0;

	if (drop_to(U1, G1, 0, 0))
		return 1;
	bad |= c_err(setxattr(file("mine"), "trusted.t", "1", 1, 0), EPERM, "trusted. set");
	bad |= c_err(getxattr(file("mine"), "trusted.t", buf, sizeof(buf)), ENODATA, "trusted. get");
	bad |= c_eq(listxattr(file("mine"), buf, sizeof(buf)), 18, "user.u and security.s listed, not trusted.t");
	bad |= c_err(setxattr(file("mine"), "security.s", "1", 1, 0), EPERM, "security. set");
	bad |= c_eq(getxattr(file("mine"), "security.s", buf, sizeof(buf)), 1, "security. is readable");
	bad |= c_err(setxattr(file("ro"), "user.x", "1", 1, 0), EACCES, "no write permission");
	bad |= c_err(getxattr(file("noread"), "user.u", buf, sizeof(buf)), EACCES, "no read permission");
	bad |= c_ok(setxattr(file("mine"), "user.v", "1", 1, 0), "a file of one's own");
	bad |= c_err(setxattr(file("sticky"), "user.x", "1", 1, 0), EPERM, "a sticky dir not owned");
	return bad;
}

static void t_unprivileged(void)
{
	if (geteuid() != 0) {
		skip("needs root");
		return;
	}
	int a = make("mine", 0666), b = make("ro", 0644), c = make("noread", 0600);
	if (a < 0 || b < 0 || c < 0)
		return;
	fsetxattr(a, "trusted.t", "1", 1, 0);
	fsetxattr(a, "security.s", "1", 1, 0);
	fsetxattr(a, "user.u", "1", 1, 0);
	fsetxattr(c, "user.u", "1", 1, 0);
	fchown(a, U1, G1);
	mkdir(file("sticky"), 01777);
	chmod(file("sticky"), 01777);
	chmod(scratch_dir, 0755);
	in_child(c_unprivileged, "unprivileged");
	close(a); close(b); close(c);
	unlink(file("mine")); unlink(file("ro")); unlink(file("noread"));
	rmdir(file("sticky"));
}

static void t_checks(void)
{
	char buf[64], longname[300];
	int fd = make("c", 0644);

	if (fd < 0)
		return;
	check_errno(getxattr(file("missing"), "user.x", buf, sizeof(buf)), ENOENT, "missing file");
	check_errno(fgetxattr(-1, "user.x", buf, sizeof(buf)), EBADF, "bad descriptor");
	check_errno(getxattr(file("c"), "", buf, sizeof(buf)), ERANGE, "empty name");
	memset(longname, 'a', sizeof(longname));
	memcpy(longname, "user.", 5);
	longname[256] = 0;
	check_errno(getxattr(file("c"), longname, buf, sizeof(buf)), ERANGE, "256-byte name");
	check_errno(getxattr(file("c"), (char *)8, buf, sizeof(buf)), EFAULT, "bad name pointer");
	check_errno(setxattr(file("c"), "user.x", "1", 1, 4), EINVAL, "unknown flags");
	check_errno(setxattr(file("c"), "user.x", (void *)8, 4, 0), EFAULT, "bad value pointer");
	fsetxattr(fd, "user.x", "12345", 5, 0);
	check_errno(fgetxattr(fd, "user.x", (void *)8, 5), EFAULT, "bad buffer for the value");
	check_errno(flistxattr(fd, (void *)8, 64), EFAULT, "bad buffer for the list");
	int o = open(file("c"), O_PATH);
	check_errno(fgetxattr(o, "user.x", buf, sizeof(buf)), EBADF, "an O_PATH descriptor");
	close(o);
	close(fd);
	unlink(file("c"));
}

static const struct test_case cases[] = {
	{ "set_get_list_remove", t_set_get_list_remove },
	{ "namespaces", t_namespaces },
	{ "unprivileged_rules", t_unprivileged },
	{ "checks_in_linux_order", t_checks },
};

int main(void)
{
	struct utsname u;
	bool sy = uname(&u) == 0 && strstr(u.version, "Switchyard");

	snprintf(scratch_dir, sizeof(scratch_dir), "%s/xattr-%d", sy ? "/tmp" : "/dev/shm",
		 (int)getpid());
	if (mkdir(scratch_dir, 0755) < 0)
		ktap_diag("cannot create %s: errno %d", scratch_dir, errno);
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
