// xattr: the extended-attribute calls exist (GNU ls -l asks for ACLs
// through lgetxattr and reported ENOSYS as an error).  A file system may
// lack xattrs (EOPNOTSUPP, Switchyard's tree) or have them (ENODATA for a
// missing one, Linux's tmpfs); either way the checks on the file, the
// name, the flags and the size come first and give Linux's errnos, and a
// file with no attributes lists none.
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "testcase.h"

static int no_attr(long rc)
{
	return rc == -1 && (errno == EOPNOTSUPP || errno == ENODATA);
}

static void t_get(void)
{
	char buf[64];
	int fd = open(scratch("f"), O_CREAT | O_RDWR, 0644);

	if (!check_ok(fd, "create"))
		return;
	check(no_attr(getxattr(scratch("f"), "user.x", buf, sizeof(buf))), "getxattr: none");
	check(no_attr(lgetxattr(scratch("f"), "system.posix_acl_access", buf, sizeof(buf))),
	      "lgetxattr of the ACL: none");
	check(no_attr(fgetxattr(fd, "user.x", buf, sizeof(buf))), "fgetxattr: none");
	check_errno(getxattr(scratch("missing"), "user.x", buf, sizeof(buf)), ENOENT, "missing file");
	check_errno(fgetxattr(-1, "user.x", buf, sizeof(buf)), EBADF, "bad descriptor");
	check_errno(getxattr(scratch("f"), "", buf, sizeof(buf)), ERANGE, "empty name");
	char longname[300];
	memset(longname, 'a', sizeof(longname));
	memcpy(longname, "user.", 5);
	longname[256] = 0;
	check_errno(getxattr(scratch("f"), longname, buf, sizeof(buf)), ERANGE, "256-byte name");
	check_errno(getxattr(scratch("f"), (char *)8, buf, sizeof(buf)), EFAULT, "bad name pointer");
	close(fd);
}

static void t_list(void)
{
	char buf[256];

	check(listxattr(scratch("f"), buf, sizeof(buf)) == 0, "listxattr: empty");
	check(llistxattr(scratch("f"), NULL, 0) == 0, "llistxattr size 0: empty");
	check_errno(listxattr(scratch("missing"), buf, sizeof(buf)), ENOENT, "missing file");
}

static void t_set_remove(void)
{
	check_errno(setxattr(scratch("f"), "user.x", "v", 1, 4), EINVAL, "unknown flag");
	check_errno(setxattr(scratch("f"), "", "v", 1, 0), ERANGE, "empty name");
	check_errno(setxattr(scratch("f"), "user.x", "v", 65537, 0), E2BIG, "65537-byte value");
	check_errno(removexattr(scratch("missing"), "user.x"), ENOENT, "remove from a missing file");
	check_errno(removexattr(scratch("f"), ""), ERANGE, "remove an empty name");
	check(no_attr(removexattr(scratch("f"), "user.none")), "remove what is not there");
	unlink(scratch("f"));
}

static const struct test_case cases[] = {
	{ "get", t_get },
	{ "list", t_list },
	{ "set_remove", t_set_remove },
};

int main(void)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/xattr-%d", (int)getpid());
	if (mkdir(scratch_dir, 0755) < 0)
		ktap_diag("cannot create %s: errno %d", scratch_dir, errno);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
