// perms: permission checks on files by mode bits, owners and groups.
//
// Root makes the files; a forked child drops to an unprivileged user and
// tries: open by owner/group/other bits (supplementary groups included),
// exec, search on every directory of a path, create/unlink/rename and
// their directory's write bit, sticky and setgid directories, umask,
// chmod/chown rules and the setuid bits that chown and writes remove,
// access() with and without AT_EACCESS, O_NOATIME, utimensat, truncate,
// and busybox su dropping to nobody.  Must start as root.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"

// Root makes a file with owner, group and mode (0 or 1 with the reason).
static int mkfile(const char *path, uid_t uid, gid_t gid, mode_t mode)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);

	if (fd < 0)
		return cfail("create %s: errno=%d", path, errno);
	if (write(fd, "data", 4) != 4)
		return cfail("write %s", path);
	close(fd);
	if (chown(path, uid, gid) < 0 || chmod(path, mode) < 0)
		return cfail("chown/chmod %s: errno=%d", path, errno);
	return 0;
}

static int mkdir_as(const char *path, uid_t uid, gid_t gid, mode_t mode)
{
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return cfail("mkdir %s: errno=%d", path, errno);
	if (chown(path, uid, gid) < 0 || chmod(path, mode) < 0)
		return cfail("chown/chmod %s: errno=%d", path, errno);
	return 0;
}

static int open_close(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? -1 : 0;
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static void rm_tree(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return;
}

// Each case works in a directory of its own, made by root with 0755.
static char casedir[128];

static const char *at(const char *name)
{
	static char ring[4][256];
	static int next;
	char *p = ring[next++ % 4];

	snprintf(p, 256, "%s/%s", casedir, name);
	return p;
}

static void new_casedir(const char *name)
{
	snprintf(casedir, sizeof(casedir), "%s", scratch(name));
	rm_tree(casedir);
	mkdir(casedir, 0755);
	chmod(casedir, 0755);
}

// ---- open by mode bits ----

static int c_open_bits(void)
{
	gid_t gx = GX;

	if (mkfile(at("root600"), 0, 0, 0600) || mkfile(at("root644"), 0, 0, 0644) ||
	    mkfile(at("own077"), U1, G1, 0077) || mkfile(at("grp040"), 0, GX, 0040) ||
	    mkfile(at("oth606"), 0, G1, 0606))
		return 1;
	if (drop_to(U1, G1, 1, &gx))
		return 1;
	return c_err(open_close(at("root600"), O_RDONLY), EACCES, "read root 0600") ||
	       c_ok(open_close(at("root644"), O_RDONLY), "read root 0644") ||
	       c_err(open_close(at("root644"), O_WRONLY), EACCES, "write root 0644") ||
	       c_err(open_close(at("root644"), O_RDWR), EACCES, "read-write root 0644") ||
	       c_err(open_close(at("root644"), O_RDONLY | O_TRUNC), EACCES, "O_TRUNC needs write") ||
	       // The owner's bits alone count for the owner.
	       c_err(open_close(at("own077"), O_RDONLY), EACCES, "owner with 0077") ||
	       // A supplementary group gets the group bits.
	       c_ok(open_close(at("grp040"), O_RDONLY), "read through group GX") ||
	       // The group's bits alone count for the group.
	       c_err(open_close(at("oth606"), O_RDONLY), EACCES, "group with 0606") ||
	       c_ok(open_close(at("root644"), O_PATH), "O_PATH needs no bits");
}
static void t_open_bits(void) { new_casedir("open"); in_child(c_open_bits, "open"); }

// Root reads and writes anything, but executes only with an x bit.
static int c_root_bypass(void)
{
	if (mkfile(at("none"), U1, G1, 0000) || mkfile(at("x"), U1, G1, 0100))
		return 1;
	return c_ok(open_close(at("none"), O_RDWR), "root opens 0000") ||
	       c_err(access(at("none"), X_OK), EACCES, "root X_OK without x bits") ||
	       c_ok(access(at("x"), X_OK), "root X_OK with one x bit") ||
	       c_err(execl(at("none"), "none", (char *)NULL), EACCES, "root exec without x bits");
}
static void t_root_bypass(void) { new_casedir("root"); in_child(c_root_bypass, "root"); }

static int c_exec_bits(void)
{
	if (mkfile(at("root700"), 0, 0, 0700) || mkfile(at("root644"), 0, 0, 0644))
		return 1;
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	return c_err(execl(at("root700"), "x", (char *)NULL), EACCES, "exec root 0700") ||
	       c_err(execl(at("root644"), "x", (char *)NULL), EACCES, "exec 0644") ||
	       c_err(execl(casedir, "x", (char *)NULL), EACCES, "exec a directory");
}
static void t_exec_bits(void) { new_casedir("exec"); in_child(c_exec_bits, "exec"); }

// ---- directories: search and read ----

static int c_search(void)
{
	struct stat st;
	DIR *d;

	if (mkdir_as(at("d700"), 0, 0, 0700) || mkfile(at("d700/f"), 0, 0, 0644) ||
	    mkdir_as(at("d711"), 0, 0, 0711) || mkfile(at("d711/f"), 0, 0, 0644) ||
	    mkdir_as(at("d744"), 0, 0, 0744) || mkfile(at("d744/f"), 0, 0, 0644) ||
	    mkdir_as(at("d700/sub"), 0, 0, 0755))
		return 1;
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	if (c_err(stat(at("d700/f"), &st), EACCES, "stat under 0700") ||
	    c_err(stat(at("d700/sub/../f"), &st), EACCES, "deeper under 0700") ||
	    c_err(chdir(at("d700")), EACCES, "chdir 0700") ||
	    c_ok(stat(at("d711/f"), &st), "stat under 0711") ||
	    c_err(open_close(at("d711"), O_RDONLY | O_DIRECTORY), EACCES, "list 0711") ||
	    c_err(stat(at("d744/f"), &st), EACCES, "stat under 0744") ||
	    c_ok(chdir(at("d711")), "chdir 0711"))
		return 1;
	d = opendir(at("d744"));
	if (!d)
		return cfail("opendir 0744: errno=%d", errno);
	closedir(d);
	int fd = open(at("d700"), O_PATH);
	if (fd < 0)
		return cfail("O_PATH of d700: errno=%d", errno);
	return c_err(fchdir(fd), EACCES, "fchdir 0700");
}
static void t_search(void) { new_casedir("search"); in_child(c_search, "search"); }

// ---- names: create, unlink, rename need write and search ----

static int c_names(void)
{
	if (mkdir_as(at("ro"), 0, 0, 0755) || mkfile(at("ro/f"), U1, G1, 0644) ||
	    mkdir_as(at("rw"), U1, G1, 0755))
		return 1;
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	return c_err(open_close(at("ro/new"), O_CREAT | O_WRONLY), EACCES, "create in 0755 root dir") ||
	       c_ok(open_close(at("ro/f"), O_CREAT | O_RDONLY), "O_CREAT of an existing file") ||
	       c_err(mkdir(at("ro/d"), 0755), EACCES, "mkdir") ||
	       c_err(mkdir(at("ro/f"), 0755), EEXIST, "mkdir of an existing name") ||
	       c_err(symlink("f", at("ro/l")), EACCES, "symlink") ||
	       c_err(link(at("ro/f"), at("ro/h")), EACCES, "link") ||
	       c_err(unlink(at("ro/f")), EACCES, "unlink own file in root's dir") ||
	       c_err(rename(at("ro/f"), at("ro/g")), EACCES, "rename in root's dir") ||
	       c_err(rename(at("ro/f"), at("rw/f")), EACCES, "rename out of root's dir") ||
	       c_err(unlink(at("ro/none")), ENOENT, "unlink of a missing name") ||
	       c_ok(open_close(at("rw/new"), O_CREAT | O_WRONLY), "create in own dir") ||
	       c_ok(rename(at("rw/new"), at("rw/new2")), "rename in own dir") ||
	       c_ok(unlink(at("rw/new2")), "unlink in own dir");
}
static void t_names(void) { new_casedir("names"); in_child(c_names, "names"); }

// A directory moving to another parent needs write on itself ("..").
static int c_rename_dir(void)
{
	if (mkdir_as(at("a"), U1, G1, 0755) || mkdir_as(at("b"), U1, G1, 0755) ||
	    mkdir_as(at("a/rootdir"), 0, 0, 0755) || mkdir_as(at("a/owndir"), U1, G1, 0755))
		return 1;
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	return c_err(rename(at("a/rootdir"), at("b/rootdir")), EACCES, "move root's dir") ||
	       c_ok(rename(at("a/rootdir"), at("a/rootdir2")), "rename within a parent") ||
	       c_ok(rename(at("a/owndir"), at("b/owndir")), "move own dir");
}
static void t_rename_dir(void) { new_casedir("rendir"); in_child(c_rename_dir, "rename dir"); }

// ---- sticky directories ----

static int c_sticky(void)
{
	if (mkdir_as(at("t"), 0, 0, 01777) || mkfile(at("t/other"), U2, G2, 0666) ||
	    mkfile(at("t/other2"), U2, G2, 0666) || mkfile(at("t/mine"), U1, G1, 0644) ||
	    mkdir_as(at("own"), U1, G1, 01777) || mkfile(at("own/other"), U2, G2, 0644))
		return 1;
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	return c_err(unlink(at("t/other")), EPERM, "unlink other's file") ||
	       c_err(rename(at("t/other"), at("t/x")), EPERM, "rename other's file") ||
	       c_err(rename(at("t/mine"), at("t/other2")), EPERM, "replace other's file") ||
	       c_ok(rename(at("t/mine"), at("t/mine2")), "rename own file") ||
	       c_ok(unlink(at("t/mine2")), "unlink own file") ||
	       // The directory's owner may remove anything in it.
	       c_ok(unlink(at("own/other")), "unlink in own sticky dir");
}
static void t_sticky(void) { new_casedir("sticky"); in_child(c_sticky, "sticky"); }

// ---- setgid directories and new owners ----

static int c_setgid_dir(void)
{
	struct stat st;

	if (mkdir_as(at("g"), 0, GX, 02777))
		return 1;
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	umask(0);
	if (c_ok(open_close(at("g/f"), O_CREAT | O_WRONLY), "create") || stat(at("g/f"), &st))
		return 1;
	if (st.st_uid != U1 || st.st_gid != GX)
		return cfail("file owner %u:%u, want %u:%u", st.st_uid, st.st_gid, U1, GX);
	if (c_ok(mkdir(at("g/d"), 0755), "mkdir") || stat(at("g/d"), &st))
		return 1;
	if (st.st_gid != GX || !(st.st_mode & S_ISGID))
		return cfail("dir gid %u mode %o, want gid %u and setgid", st.st_gid,
			     st.st_mode & 07777, GX);
	// A setgid file made by a non-member loses the bit.
	int fd = open(at("g/s"), O_CREAT | O_WRONLY, 02755);
	if (c_ok(fd, "create setgid") || fstat(fd, &st))
		return 1;
	close(fd);
	return c_eq(st.st_mode & 07777, 0755, "setgid file mode from a non-member");
}
static void t_setgid_dir(void) { new_casedir("sgid"); in_child(c_setgid_dir, "setgid dir"); }

static int c_new_owner(void)
{
	struct stat st;

	if (mkdir_as(at("t"), 0, 0, 01777))
		return 1;
	// The filesystem IDs own new files.
	setfsuid(1234);
	setfsgid(4321);
	if (c_ok(open_close(at("t/fs"), O_CREAT | O_WRONLY), "create with fsuid") ||
	    stat(at("t/fs"), &st))
		return 1;
	if (st.st_uid != 1234 || st.st_gid != 4321)
		return cfail("owner %u:%u, want 1234:4321", st.st_uid, st.st_gid);
	setfsuid(0);
	setfsgid(0);
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	if (c_ok(mkdir(at("t/d"), 0700), "mkdir") || stat(at("t/d"), &st))
		return 1;
	return c_eq(st.st_uid, U1, "dir uid") || c_eq(st.st_gid, G1, "dir gid");
}
static void t_new_owner(void) { new_casedir("owner"); in_child(c_new_owner, "owner"); }

static int c_umask(void)
{
	int fd;

	if (c_eq(umask(027), 022, "old umask") || c_eq(umask(027), 027, "umask returns the old"))
		return 1;
	fd = open(at("f"), O_CREAT | O_WRONLY, 0666);
	if (c_ok(fd, "create"))
		return 1;
	close(fd);
	if (c_ok(mkdir(at("d"), 0777), "mkdir"))
		return 1;
	return c_eq(mode_of(at("f")), 0640, "file mode") || c_eq(mode_of(at("d")), 0750, "dir mode");
}
static void t_umask(void) { new_casedir("umask"); in_child(c_umask, "umask"); }

// ---- chmod and chown ----

static int c_chmod(void)
{
	if (mkfile(at("root"), 0, 0, 0644) || mkfile(at("mine"), U1, G1, 0644) ||
	    mkfile(at("minegx"), U1, GX, 0644))
		return 1;
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	return c_err(chmod(at("root"), 0666), EPERM, "chmod root's file") ||
	       c_ok(chmod(at("mine"), 04750), "chmod own file") ||
	       c_eq(mode_of(at("mine")), 04750, "mode") ||
	       // Not in the file's group: the setgid bit is silently cleared.
	       c_ok(chmod(at("minegx"), 02755), "chmod setgid") ||
	       c_eq(mode_of(at("minegx")), 0755, "setgid dropped");
}
static void t_chmod(void) { new_casedir("chmod"); in_child(c_chmod, "chmod"); }

static int c_chown(void)
{
	gid_t gx = GX;

	if (mkfile(at("mine"), U1, G1, 0644) || mkfile(at("root"), 0, 0, 0644))
		return 1;
	if (drop_to(U1, G1, 1, &gx))
		return 1;
	return c_err(chown(at("mine"), U2, -1), EPERM, "give own file away") ||
	       c_ok(chown(at("mine"), U1, -1), "chown to self") ||
	       c_ok(chown(at("mine"), -1, GX), "chgrp to a supplementary group") ||
	       c_err(chown(at("mine"), -1, G2), EPERM, "chgrp to another group") ||
	       c_err(chown(at("root"), U1, -1), EPERM, "take root's file") ||
	       c_err(chown(at("root"), 0, -1), EPERM, "chown root's file to its owner") ||
	       c_ok(chown(at("root"), -1, -1), "chown(-1, -1) of root's file") ||
	       c_err(lchown(at("root"), -1, G1), EPERM, "lchown");
}
static void t_chown(void) { new_casedir("chown"); in_child(c_chown, "chown"); }

// chown ends setuid and group-executable setgid, root's chown too.
static int c_chown_kills_suid(void)
{
	if (mkfile(at("a"), 0, 0, 06755) || mkfile(at("b"), 0, 0, 02745))
		return 1;
	if (c_ok(chown(at("a"), U1, -1), "chown a") || c_ok(chown(at("b"), U1, -1), "chown b"))
		return 1;
	return c_eq(mode_of(at("a")), 0755, "setuid and setgid gone") ||
	       c_eq(mode_of(at("b")), 02745, "setgid without group x stays");
}
static void t_chown_kills_suid(void) { new_casedir("chsuid"); in_child(c_chown_kills_suid, "chown suid"); }

// A write by someone without CAP_FSETID ends the setuid bit.
static int c_write_kills_suid(void)
{
	int fd;

	if (mkfile(at("a"), 0, 0, 06777) || mkfile(at("r"), 0, 0, 04777))
		return 1;
	fd = open(at("r"), O_WRONLY);
	if (c_ok(fd, "open as root") || c_eq(write(fd, "x", 1), 1, "root write"))
		return 1;
	close(fd);
	if (c_eq(mode_of(at("r")), 04777, "root's write keeps the bits"))
		return 1;
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	fd = open(at("a"), O_WRONLY);
	if (c_ok(fd, "open"))
		return 1;
	if (c_eq(mode_of(at("a")), 06777, "open alone keeps the bits"))
		return 1;
	if (c_eq(write(fd, "x", 1), 1, "write"))
		return 1;
	close(fd);
	return c_eq(mode_of(at("a")), 0777, "after the write");
}
static void t_write_kills_suid(void) { new_casedir("wsuid"); in_child(c_write_kills_suid, "write suid"); }

// ---- access and faccessat ----

static int c_access(void)
{
	if (mkfile(at("root600"), 0, 0, 0600) || mkfile(at("u1"), U1, G1, 0600))
		return 1;
	// Real uid U1, effective root: access() answers for U1.
	if (c_ok(setresgid(G1, 0, 0), "setresgid") || c_ok(setresuid(U1, 0, 0), "setresuid"))
		return 1;
	return c_err(access(at("root600"), R_OK), EACCES, "access by the real uid") ||
	       c_ok(access(at("u1"), R_OK | W_OK), "access of the real uid's file") ||
	       c_ok(faccessat(AT_FDCWD, at("root600"), R_OK | W_OK, AT_EACCESS), "AT_EACCESS") ||
	       c_ok(syscall(SYS_faccessat2, AT_FDCWD, at("root600"), R_OK, AT_EACCESS), "faccessat2") ||
	       c_err(syscall(SYS_faccessat2, AT_FDCWD, at("root600"), R_OK, 0), EACCES,
		     "faccessat2 without AT_EACCESS") ||
	       c_ok(access(at("root600"), F_OK), "F_OK") ||
	       c_ok(open_close(at("root600"), O_RDONLY), "open uses the effective uid");
}
static void t_access(void) { new_casedir("access"); in_child(c_access, "access"); }

static int c_access_search(void)
{
	if (mkdir_as(at("d"), 0, 0, 0700) || mkfile(at("d/f"), 0, 0, 0644))
		return 1;
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	return c_err(access(at("d/f"), F_OK), EACCES, "F_OK through an unsearchable dir") ||
	       c_err(access(at("d"), W_OK), EACCES, "W_OK on root's dir") ||
	       c_err(access(casedir, W_OK), EACCES, "W_OK on 0755 dir");
}
static void t_access_search(void) { new_casedir("accsearch"); in_child(c_access_search, "access search"); }

// ---- O_NOATIME, utimensat, truncate ----

static int c_noatime(void)
{
	int fd;

	if (mkfile(at("root"), 0, 0, 0644) || mkfile(at("mine"), U1, G1, 0644))
		return 1;
	if (c_ok(open_close(at("root"), O_RDONLY | O_NOATIME), "root O_NOATIME"))
		return 1;
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	if (c_err(open_close(at("root"), O_RDONLY | O_NOATIME), EPERM, "O_NOATIME, not owner") ||
	    c_ok(open_close(at("mine"), O_RDONLY | O_NOATIME), "O_NOATIME, owner"))
		return 1;
	fd = open(at("root"), O_RDONLY);
	if (c_ok(fd, "open"))
		return 1;
	if (c_err(fcntl(fd, F_SETFL, O_NOATIME), EPERM, "F_SETFL O_NOATIME, not owner"))
		return 1;
	close(fd);
	fd = open(at("mine"), O_RDONLY);
	return c_ok(fcntl(fd, F_SETFL, O_NOATIME), "F_SETFL O_NOATIME, owner") ||
	       c_eq(fcntl(fd, F_GETFL) & O_NOATIME, O_NOATIME, "F_GETFL");
}
static void t_noatime(void) { new_casedir("noatime"); in_child(c_noatime, "noatime"); }

// O_NOATIME reads leave the access time alone.
static int c_noatime_works(void)
{
	struct timespec old[2] = { { 1000, 0 }, { 1000, 0 } };
	struct stat st;
	char buf[4];
	int fd;

	if (mkfile(at("f"), 0, 0, 0644) || c_ok(utimensat(AT_FDCWD, at("f"), old, 0), "utimensat"))
		return 1;
	fd = open(at("f"), O_RDONLY | O_NOATIME);
	if (c_ok(fd, "open") || c_eq(read(fd, buf, 4), 4, "read"))
		return 1;
	close(fd);
	if (stat(at("f"), &st) || st.st_atime != 1000)
		return cfail("atime %ld after an O_NOATIME read", (long)st.st_atime);
	return 0;
}
static void t_noatime_works(void) { new_casedir("noatime2"); in_child(c_noatime_works, "noatime read"); }

static int c_utimens(void)
{
	struct timespec set[2] = { { 1000, 0 }, { 2000, 0 } };
	struct timespec now[2] = { { 0, UTIME_NOW }, { 0, UTIME_NOW } };
	struct timespec omit[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };

	if (mkfile(at("w"), 0, 0, 0666) || mkfile(at("r"), 0, 0, 0644) ||
	    mkfile(at("mine"), U1, G1, 0444))
		return 1;
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	return c_ok(utimensat(AT_FDCWD, at("w"), NULL, 0), "touch with write permission") ||
	       c_ok(utimensat(AT_FDCWD, at("w"), now, 0), "UTIME_NOW with write permission") ||
	       c_err(utimensat(AT_FDCWD, at("w"), set, 0), EPERM, "set times, not owner") ||
	       c_err(utimensat(AT_FDCWD, at("r"), NULL, 0), EACCES, "touch without write") ||
	       c_ok(utimensat(AT_FDCWD, at("r"), omit, 0), "both UTIME_OMIT") ||
	       c_ok(utimensat(AT_FDCWD, at("mine"), set, 0), "set times as owner") ||
	       c_ok(utimensat(AT_FDCWD, at("mine"), NULL, 0), "touch as owner");
}
static void t_utimens(void) { new_casedir("utimens"); in_child(c_utimens, "utimensat"); }

static int c_truncate(void)
{
	if (mkfile(at("r"), 0, 0, 0644) || mkfile(at("w"), 0, 0, 0666))
		return 1;
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	return c_err(truncate(at("r"), 0), EACCES, "truncate without write") ||
	       c_ok(truncate(at("w"), 1), "truncate with write") ||
	       c_err(truncate(casedir, 0), EISDIR, "truncate a directory");
}
static void t_truncate(void) { new_casedir("trunc"); in_child(c_truncate, "truncate"); }

// ---- busybox su ----

// busybox su drops to nobody, who then cannot read root's 0600 file.
static void t_su(void)
{
	char cmd[512], out[64] = "";
	size_t n;
	FILE *p;

	if (access("/bin/busybox", X_OK) < 0 || !getpwnam("nobody")) {
		skip("no /bin/busybox or no user nobody");
		return;
	}
	new_casedir("su");
	if (mkfile(at("secret"), 0, 0, 0600)) {
		fail("%s", child_why);
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 "/bin/busybox su -s /bin/sh nobody -c '/bin/busybox id -u; "
		 "/bin/busybox cat %s >/dev/null 2>&1 || echo denied' 2>&1", at("secret"));
	fflush(stdout);
	p = popen(cmd, "r");
	if (!p) {
		fail("popen: errno=%d", errno);
		return;
	}
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	pclose(p);
	if (strcmp(out, "65534\ndenied\n"))
		fail("su printed \"%s\"", out);
}

static const struct test_case cases[] = {
	{ "open_by_owner_group_other_bits_EACCES", t_open_bits },
	{ "root_bypasses_but_exec_needs_an_x_bit", t_root_bypass },
	{ "exec_needs_x_permission_EACCES", t_exec_bits },
	{ "search_permission_on_every_directory", t_search },
	{ "create_unlink_rename_need_dir_write_EACCES", t_names },
	{ "rename_dir_to_new_parent_needs_write_on_it", t_rename_dir },
	{ "sticky_directory_EPERM", t_sticky },
	{ "setgid_directory_group_and_bit", t_setgid_dir },
	{ "new_files_owned_by_fsuid_fsgid", t_new_owner },
	{ "umask_applies_to_files_and_dirs", t_umask },
	{ "chmod_owner_only_EPERM_and_setgid_rule", t_chmod },
	{ "chown_chgrp_rules_EPERM", t_chown },
	{ "chown_clears_setuid_setgid", t_chown_kills_suid },
	{ "write_clears_setuid_without_CAP_FSETID", t_write_kills_suid },
	{ "access_real_ids_and_AT_EACCESS", t_access },
	{ "access_search_and_write_EACCES", t_access_search },
	{ "O_NOATIME_owner_only_EPERM", t_noatime },
	{ "O_NOATIME_read_keeps_atime", t_noatime_works },
	{ "utimensat_permission_EPERM_EACCES", t_utimens },
	{ "truncate_needs_write_EACCES", t_truncate },
	{ "busybox_su_drops_to_nobody", t_su },
};

int main(void)
{
	privdrop_init();
	umask(022);
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/perms-%d", (int)getpid());
	mkdir(scratch_dir, 0755);
	chmod(scratch_dir, 0755);
	run_cases(cases, (int)(sizeof(cases) / sizeof(cases[0])));
	rm_tree(scratch_dir);
	return ktap_finish();
}
