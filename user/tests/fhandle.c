// File handles (as root): name_to_handle_at gives a handle (12 bytes,
// type 1 on a tmpfs) and the mount ID, EOVERFLOW with the size needed
// for a buffer too small; open_by_handle_at opens the same file again
// (also after it is renamed, and while an unlinked one is still open),
// ESTALE once it is gone; EINVAL, EFAULT, EBADF, EPERM without
// CAP_DAC_READ_SEARCH, EOPNOTSUPP for /proc.  On Linux the files are in
// /dev/shm (a tmpfs).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"

struct handle {
	struct file_handle fh;
	unsigned char bytes[128];
};

static int mountfd = AT_FDCWD;	// a descriptor on the files' mount

static int get_handle(const char *path, struct handle *h, int *mnt)
{
	h->fh.handle_bytes = 128;
	return name_to_handle_at(AT_FDCWD, path, &h->fh, mnt, 0);
}

static void t_round_trip(void)
{
	struct handle h;
	int mnt = -1, fd;
	struct stat a, b;
	const char *p = scratch("f");

	if (!check_ok(fd = open(p, O_CREAT | O_RDWR, 0644), "create"))
		return;
	write(fd, "data", 4);
	fstat(fd, &a);
	close(fd);
	if (!check_ok(get_handle(p, &h, &mnt), "name_to_handle_at"))
		return;
	check(h.fh.handle_bytes > 0 && h.fh.handle_bytes <= 128, "a handle size");
	check(mnt >= 0, "a mount ID");
	rename(p, scratch("g"));
	fd = open_by_handle_at(mountfd, &h.fh, O_RDONLY);
	if (check_ok(fd, "open_by_handle_at after a rename")) {
		char buf[8] = { 0 };
		fstat(fd, &b);
		check(a.st_ino == b.st_ino && read(fd, buf, 8) == 4 && !memcmp(buf, "data", 4),
		      "the same file");
		// Unlinked but open: still reachable.
		unlink(scratch("g"));
		int fd2 = open_by_handle_at(mountfd, &h.fh, O_RDONLY);
		check(fd2 >= 0, "an unlinked file still open");
		if (fd2 >= 0)
			close(fd2);
		close(fd);
	}
	check_errno(open_by_handle_at(mountfd, &h.fh, O_RDONLY), ESTALE, "gone");
}

static void t_small_buffer(void)
{
	struct handle h;
	int mnt, fd = open(scratch("s"), O_CREAT | O_RDWR, 0644);

	close(fd);
	h.fh.handle_bytes = 4;
	check_errno(name_to_handle_at(AT_FDCWD, scratch("s"), &h.fh, &mnt, 0), EOVERFLOW,
		    "too small");
	check(h.fh.handle_bytes > 4, "the size needed");
	h.fh.handle_bytes = 129;
	check_errno(name_to_handle_at(AT_FDCWD, scratch("s"), &h.fh, &mnt, 0), EINVAL,
		    "over MAX_HANDLE_SZ");
	unlink(scratch("s"));
}

static void t_errors(void)
{
	struct handle h;
	int mnt;

	h.fh.handle_bytes = 128;
	check_errno(name_to_handle_at(AT_FDCWD, scratch_dir, &h.fh, &mnt, 0x100), EINVAL,
		    "unknown flag");
	check_errno(name_to_handle_at(AT_FDCWD, scratch("missing"), &h.fh, &mnt, 0), ENOENT,
		    "missing");
	check_errno(name_to_handle_at(AT_FDCWD, scratch_dir, (void *)8, &mnt, 0), EFAULT,
		    "bad handle pointer");
	check_errno(name_to_handle_at(AT_FDCWD, "/proc/self/status", &h.fh, &mnt, 0), EOPNOTSUPP,
		    "/proc");
	if (!check_ok(get_handle(scratch_dir, &h, &mnt), "a directory's handle"))
		return;
	int fd = open_by_handle_at(mountfd, &h.fh, O_RDONLY | O_DIRECTORY);
	check(fd >= 0, "a directory opens");
	close(fd);
	check_errno(open_by_handle_at(-1, &h.fh, O_RDONLY), EBADF, "a bad mount descriptor");
	struct handle z = h;
	z.fh.handle_bytes = 0;
	check_errno(open_by_handle_at(mountfd, &z.fh, O_RDONLY), EINVAL, "size 0");
	check_errno(open_by_handle_at(mountfd, (void *)8, O_RDONLY), EFAULT, "bad pointer");
}

static struct handle saved;

static int c_unprivileged(void)
{
	if (drop_to(U1, G1, 0, 0))
		return 1;
	return c_err(open_by_handle_at(mountfd, &saved.fh, O_RDONLY), EPERM,
		     "without CAP_DAC_READ_SEARCH");
}

static void t_unprivileged(void)
{
	int mnt;

	if (!check_ok(get_handle(scratch_dir, &saved, &mnt), "handle"))
		return;
	in_child(c_unprivileged, "unprivileged");
}

static const struct test_case cases[] = {
	{ "round_trip", t_round_trip },
	{ "small_buffer_eoverflow", t_small_buffer },
	{ "errors", t_errors },
	{ "eperm_unprivileged", t_unprivileged },
};

int main(void)
{
	struct utsname u;
	bool sy = uname(&u) == 0 && strstr(u.version, "Switchyard");

	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root\n");
		return 0;
	}
	snprintf(scratch_dir, sizeof(scratch_dir), "%s/fhandle-%d", sy ? "/tmp" : "/dev/shm",
		 (int)getpid());
	if (mkdir(scratch_dir, 0755) < 0)
		ktap_diag("cannot create %s: errno %d", scratch_dir, errno);
	mountfd = open(scratch_dir, O_RDONLY | O_DIRECTORY);
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
