// inotify: inotify_init/init1 (IN_NONBLOCK, IN_CLOEXEC, EINVAL), the
// errnos of add_watch and rm_watch in Linux's order, the events of a
// watched directory (IN_CREATE, IN_OPEN, IN_MODIFY, IN_CLOSE_WRITE,
// IN_ACCESS, IN_CLOSE_NOWRITE, IN_ATTRIB, IN_DELETE, IN_ISDIR) and of a
// watched file (IN_ATTRIB, IN_DELETE_SELF and IN_IGNORED on unlink, only
// at the last close when the file is open; IN_ATTRIB when a write clears
// the setuid bit), rename's IN_MOVED_FROM/TO
// pair with one cookie and IN_MOVE_SELF, coalescing of identical
// consecutive events, read() with too small a buffer (EINVAL) and the
// name padding, FIONREAD, IN_ONESHOT, IN_MASK_ADD and IN_MASK_CREATE
// (EEXIST), IN_ONLYDIR, IN_DONT_FOLLOW, IN_EXCL_UNLINK, rm_watch's
// IN_IGNORED, poll/epoll readiness and a blocked read woken by a write,
// /proc/sys/fs/inotify (defaults; max_queued_events and IN_Q_OVERFLOW;
// max_user_instances EMFILE and max_user_watches ENOSPC for another
// user, as root).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "sysutil.h"

static int on_switchyard;

struct ev {
	int wd;
	uint32_t mask, cookie;
	char name[256];
};

// Reads what is queued now (the descriptor is non-blocking) into evs;
// the count, or -1 with errno.
static int drain(int fd, struct ev *evs, int max)
{
	char buf[8192] __attribute__((aligned(8)));
	int n = 0;

	for (;;) {
		long got = read(fd, buf, sizeof(buf));

		if (got < 0)
			return errno == EAGAIN ? n : -1;
		for (long off = 0; off < got;) {
			struct inotify_event *e = (struct inotify_event *)(buf + off);

			if (n < max) {
				evs[n].wd = e->wd;
				evs[n].mask = e->mask;
				evs[n].cookie = e->cookie;
				snprintf(evs[n].name, sizeof(evs[n].name), "%s", e->len ? e->name : "");
				n++;
			}
			off += (long)sizeof(*e) + e->len;
		}
	}
}

// The events must be exactly these (wd, mask, name) in order.
struct want {
	int wd;
	uint32_t mask;
	const char *name;
};

static void expect(int fd, const struct want *w, int nw, const char *what)
{
	struct ev evs[64];
	int n = drain(fd, evs, 64);

	if (n < 0) {
		fail("%s: read errno=%d", what, errno);
		return;
	}
	for (int i = 0; i < nw || i < n; i++) {
		if (i >= n) {
			fail("%s: event %d missing (wd %d mask %#x %s)", what, i, w[i].wd, w[i].mask,
			     w[i].name);
			return;
		}
		if (i >= nw) {
			fail("%s: extra event %d: wd %d mask %#x '%s'", what, i, evs[i].wd,
			     evs[i].mask, evs[i].name);
			return;
		}
		if (evs[i].wd != w[i].wd || evs[i].mask != w[i].mask ||
		    strcmp(evs[i].name, w[i].name)) {
			fail("%s: event %d is wd %d mask %#x '%s', want wd %d mask %#x '%s'", what,
			     i, evs[i].wd, evs[i].mask, evs[i].name, w[i].wd, w[i].mask, w[i].name);
			return;
		}
	}
}

#define EXPECT(fd, what, ...)                                                    \
	do {                                                                       \
		const struct want w_[] = { __VA_ARGS__ };                          \
		expect(fd, w_, (int)(sizeof(w_) / sizeof(w_[0])), what);           \
	} while (0)

static void expect_none(int fd, const char *what)
{
	struct ev evs[8];
	int n = drain(fd, evs, 8);

	if (n != 0)
		fail("%s: %d events (first wd %d mask %#x '%s'), want none", what, n,
		     n > 0 ? evs[0].wd : 0, n > 0 ? evs[0].mask : 0, n > 0 ? evs[0].name : "");
}

static int new_fd(void)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	if (fd < 0)
		fail("inotify_init1: errno=%d", errno);
	return fd;
}

static void touch(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY, 0644);

	if (fd < 0)
		fail("create %s: errno=%d", path, errno);
	else
		close(fd);
}

static void write_byte(int fd)
{
	if (write(fd, "x", 1) != 1)
		fail("write: errno=%d", errno);
}

// ---- cases ----

static void t_init(void)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC), plain;
	char buf[64];

	if (!check(fd >= 0, "inotify_init1"))
		return;
	check(fcntl(fd, F_GETFD) == FD_CLOEXEC, "IN_CLOEXEC sets FD_CLOEXEC");
	check((fcntl(fd, F_GETFL) & (O_NONBLOCK | O_ACCMODE)) == (O_NONBLOCK | O_RDONLY),
	      "IN_NONBLOCK and O_RDONLY");
	check_errno(read(fd, buf, sizeof(buf)), EAGAIN, "empty read");
	check_errno(write(fd, "x", 1), EBADF, "write to the read-only descriptor");
	check_errno(inotify_init1(0x4), EINVAL, "unknown init1 flag");
	plain = (int)syscall(SYS_inotify_init);
	if (check(plain >= 0, "inotify_init")) {
		check(fcntl(plain, F_GETFD) == 0 && !(fcntl(plain, F_GETFL) & O_NONBLOCK),
		      "inotify_init: no flags");
		close(plain);
	}
	close(fd);
}

static void t_watch_errnos(void)
{
	int fd = new_fd(), pfd[2];
	const char *f = scratch("errf");

	touch(f);
	if (pipe(pfd) < 0)
		return (void)fail("pipe");
	check_errno(inotify_add_watch(fd, f, 0), EINVAL, "empty mask");
	check_errno(inotify_add_watch(fd, f, IN_MODIFY | 0x1000), EINVAL, "unknown bit");
	check_errno(inotify_add_watch(-1, f, 0x1000), EINVAL, "mask checked before fd");
	check_errno(inotify_add_watch(-1, f, IN_MODIFY), EBADF, "bad fd");
	check_errno(inotify_add_watch(pfd[0], "/nonexistent", IN_MODIFY | IN_MASK_ADD | IN_MASK_CREATE),
		    EINVAL, "MASK_ADD with MASK_CREATE");
	check_errno(inotify_add_watch(pfd[0], f, IN_MODIFY), EINVAL, "not an inotify fd");
	check_errno(inotify_add_watch(fd, scratch("none"), IN_MODIFY), ENOENT, "missing path");
	check_errno(inotify_add_watch(fd, (const char *)8, IN_MODIFY), EFAULT, "bad path");
	check_errno(inotify_add_watch(fd, f, IN_MODIFY | IN_ONLYDIR), ENOTDIR, "IN_ONLYDIR");
	check(inotify_add_watch(fd, scratch_dir, IN_MODIFY | IN_ONLYDIR) > 0, "IN_ONLYDIR on a dir");
	check_errno(inotify_rm_watch(fd, 12345), EINVAL, "rm of an unknown wd");
	check_errno(inotify_rm_watch(pfd[0], 1), EINVAL, "rm on a pipe");
	check_errno(inotify_rm_watch(-1, 1), EBADF, "rm on a bad fd");
	close(pfd[0]);
	close(pfd[1]);
	close(fd);
	unlink(f);
}

static void t_dir_events(void)
{
	int fd = new_fd(), wd, f;
	const char *d = scratch("dir1"), *p = scratch("dir1/a"), *sub = scratch("dir1/sub");
	struct ev evs[8];
	char c;
	int n;

	mkdir(d, 0755);
	wd = inotify_add_watch(fd, d, IN_ALL_EVENTS);
	if (!check(wd > 0, "add_watch"))
		return;
	f = open(p, O_CREAT | O_WRONLY, 0644);
	write_byte(f);
	close(f);
	EXPECT(fd, "create, write, close", { wd, IN_CREATE, "a" }, { wd, IN_OPEN, "a" },
	       { wd, IN_MODIFY, "a" }, { wd, IN_CLOSE_WRITE, "a" });
	f = open(p, O_RDONLY);
	if (read(f, &c, 1) != 1)
		fail("read");
	close(f);
	chmod(p, 0600);
	EXPECT(fd, "open, read, close, chmod", { wd, IN_OPEN, "a" }, { wd, IN_ACCESS, "a" },
	       { wd, IN_CLOSE_NOWRITE, "a" }, { wd, IN_ATTRIB, "a" });
	// Linux 6.1 truncates before it reports the open, later kernels
	// after: either order.
	f = open(p, O_WRONLY | O_TRUNC);
	n = drain(fd, evs, 8);
	check(n == 2 && evs[0].mask + evs[1].mask == (IN_MODIFY | IN_OPEN) &&
	      evs[0].mask != evs[1].mask, "O_TRUNC: IN_MODIFY and IN_OPEN");
	close(f);
	truncate(p, 10);
	EXPECT(fd, "close, truncate", { wd, IN_CLOSE_WRITE, "a" }, { wd, IN_MODIFY, "a" });
	unlink(p);
	EXPECT(fd, "unlink", { wd, IN_DELETE, "a" });
	mkdir(sub, 0755);
	f = open(sub, O_RDONLY | O_DIRECTORY);
	close(f);
	rmdir(sub);
	EXPECT(fd, "mkdir, open, rmdir", { wd, IN_CREATE | IN_ISDIR, "sub" },
	       { wd, IN_OPEN | IN_ISDIR, "sub" }, { wd, IN_CLOSE_NOWRITE | IN_ISDIR, "sub" },
	       { wd, IN_DELETE | IN_ISDIR, "sub" });
	symlink("a", p);
	link(p, sub);		// "sub" again: scratch's ring holds four paths
	unlink(p);
	unlink(sub);
	EXPECT(fd, "symlink, link, unlinks", { wd, IN_CREATE, "a" }, { wd, IN_CREATE, "sub" },
	       { wd, IN_DELETE, "a" }, { wd, IN_DELETE, "sub" });
	rmdir(d);
	EXPECT(fd, "watched dir removed", { wd, IN_DELETE_SELF, "" }, { wd, IN_IGNORED, "" });
	close(fd);
}

static void t_self_events(void)
{
	int fd = new_fd(), wd, f;
	const char *p = scratch("self");

	touch(p);
	wd = inotify_add_watch(fd, p, IN_ALL_EVENTS);
	if (!check(wd > 0, "add_watch"))
		return;
	f = open(p, O_RDWR);
	write_byte(f);
	chmod(p, 0600);
	EXPECT(fd, "open, write, chmod", { wd, IN_OPEN, "" }, { wd, IN_MODIFY, "" },
	       { wd, IN_ATTRIB, "" });
	unlink(p);
	EXPECT(fd, "unlink while open: the link count", { wd, IN_ATTRIB, "" });
	close(f);
	EXPECT(fd, "last close", { wd, IN_CLOSE_WRITE, "" }, { wd, IN_DELETE_SELF, "" },
	       { wd, IN_IGNORED, "" });
	check_errno(inotify_rm_watch(fd, wd), EINVAL, "the watch is gone");
	close(fd);
}

// A write by a user without CAP_FSETID clears the setuid bit: IN_ATTRIB
// before the write's IN_MODIFY, as Linux's file_remove_privs.
static void t_write_kills_suid(void)
{
	const char *p = scratch("suid");
	int fd, wd;
	pid_t child;

	if (geteuid() != 0)
		return skip("not root");
	fd = new_fd();
	touch(p);
	chmod(p, 04777);
	wd = inotify_add_watch(fd, p, IN_ATTRIB | IN_MODIFY);
	child = fork_child();
	if (child == 0) {
		int f;

		if (setresuid(1000, 1000, 1000) < 0)
			_exit(2);
		f = open(p, O_WRONLY);
		_exit(f >= 0 && write(f, "x", 1) == 1 ? 0 : 3);
	}
	check_child_ok(child, "the write");
	EXPECT(fd, "setuid cleared, then written", { wd, IN_ATTRIB, "" }, { wd, IN_MODIFY, "" });
	unlink(p);
	close(fd);
}

static void t_rename(void)
{
	int fd = new_fd(), w1, w2, wf;
	const char *d1 = scratch("r1"), *d2 = scratch("r2");
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];
	struct ev evs[8];
	int n;

	snprintf(a, sizeof(a), "%s/a", d1);
	snprintf(b, sizeof(b), "%s/b", d2);
	snprintf(c, sizeof(c), "%s/c", d2);
	mkdir(d1, 0755);
	mkdir(d2, 0755);
	touch(a);
	touch(c);
	w1 = inotify_add_watch(fd, d1, IN_MOVE);
	w2 = inotify_add_watch(fd, d2, IN_MOVE);
	wf = inotify_add_watch(fd, a, IN_MOVE_SELF | IN_ATTRIB);
	if (!check(w1 > 0 && w2 > 0 && wf > 0 && w1 != w2, "add_watch"))
		return;
	if (rename(a, b) < 0)
		return (void)fail("rename");
	n = drain(fd, evs, 8);
	if (!check(n == 3, "three events"))
		return;
	check(evs[0].wd == w1 && evs[0].mask == IN_MOVED_FROM && !strcmp(evs[0].name, "a"),
	      "IN_MOVED_FROM a");
	check(evs[1].wd == w2 && evs[1].mask == IN_MOVED_TO && !strcmp(evs[1].name, "b"),
	      "IN_MOVED_TO b");
	check(evs[0].cookie != 0 && evs[0].cookie == evs[1].cookie, "one cookie");
	check(evs[2].wd == wf && evs[2].mask == IN_MOVE_SELF, "IN_MOVE_SELF");
	// Over an existing name: the replaced file's watch sees its link go.
	inotify_rm_watch(fd, wf);
	drain(fd, evs, 8);
	wf = inotify_add_watch(fd, c, IN_ATTRIB | IN_DELETE_SELF);
	rename(b, c);
	n = drain(fd, evs, 8);
	if (check(n == 5, "five events")) {
		check(evs[0].mask == IN_MOVED_FROM && evs[1].mask == IN_MOVED_TO &&
		      evs[0].cookie == evs[1].cookie && evs[0].cookie != 0, "the pair");
		check(evs[2].wd == wf && evs[2].mask == IN_ATTRIB, "victim IN_ATTRIB");
		check(evs[3].wd == wf && evs[3].mask == IN_DELETE_SELF, "victim IN_DELETE_SELF");
		check(evs[4].wd == wf && evs[4].mask == IN_IGNORED, "victim IN_IGNORED");
	}
	unlink(c);
	rmdir(d1);
	rmdir(d2);
	close(fd);
}

static void t_coalesce(void)
{
	int fd = new_fd(), wd, f;
	const char *p = scratch("co");

	touch(p);
	wd = inotify_add_watch(fd, p, IN_MODIFY | IN_ACCESS);
	f = open(p, O_RDWR);
	write_byte(f);
	write_byte(f);
	write_byte(f);
	EXPECT(fd, "three writes, one event", { wd, IN_MODIFY, "" });
	write_byte(f);
	lseek(f, 0, SEEK_SET);
	char c;
	if (read(f, &c, 1) != 1)
		fail("read");
	write_byte(f);
	EXPECT(fd, "not merged across another", { wd, IN_MODIFY, "" }, { wd, IN_ACCESS, "" },
	       { wd, IN_MODIFY, "" });
	close(f);
	unlink(p);
	close(fd);
}

static void t_read_sizes(void)
{
	int fd = new_fd(), wd, avail = -1;
	char d[PATH_MAX];
	char buf[256] __attribute__((aligned(8)));
	struct inotify_event *e = (struct inotify_event *)buf;

	snprintf(d, sizeof(d), "%s", scratch("rs"));	// scratch's ring holds four
	mkdir(d, 0755);
	wd = inotify_add_watch(fd, d, IN_CREATE);
	touch(scratch("rs/abcdefghijklmnopq"));	// 17 bytes: padded to 32
	touch(scratch("rs/x"));
	check_ok(ioctl(fd, FIONREAD, &avail), "FIONREAD");
	check(avail == 16 + 32 + 16 + 16, "FIONREAD counts both padded events");
	check_errno(read(fd, buf, 16), EINVAL, "16-byte buffer for a named event");
	check_errno(read(fd, buf, 47), EINVAL, "one byte short");
	if (check(read(fd, buf, 50) == 48, "one event fits in 50 bytes")) {
		check(e->wd == wd && e->mask == IN_CREATE && e->len == 32 &&
		      !strcmp(e->name, "abcdefghijklmnopq"), "the event");
		for (int i = 16 + 17; i < 48; i++)
			if (buf[i]) {
				fail("padding byte %d is %d", i, buf[i]);
				break;
			}
	}
	check(read(fd, buf, sizeof(buf)) == 32 && e->len == 16 && !strcmp(e->name, "x"),
	      "the short name padded to 16");
	check_ok(ioctl(fd, FIONREAD, &avail), "FIONREAD");
	check(avail == 0, "FIONREAD empty");
	unlink(scratch("rs/abcdefghijklmnopq"));
	unlink(scratch("rs/x"));
	rmdir(d);
	close(fd);
}

static void t_oneshot_and_masks(void)
{
	int fd = new_fd(), wd, wd2, f;
	const char *p = scratch("os");

	touch(p);
	wd = inotify_add_watch(fd, p, IN_MODIFY | IN_ONESHOT);
	f = open(p, O_WRONLY);
	write_byte(f);
	write_byte(f);
	EXPECT(fd, "one event then IN_IGNORED", { wd, IN_MODIFY, "" }, { wd, IN_IGNORED, "" });
	write_byte(f);
	expect_none(fd, "nothing after the oneshot");
	wd = inotify_add_watch(fd, p, IN_MODIFY);
	wd2 = inotify_add_watch(fd, p, IN_ATTRIB);
	check(wd == wd2, "same file, same wd");
	check_errno(inotify_add_watch(fd, p, IN_ATTRIB | IN_MASK_CREATE), EEXIST, "IN_MASK_CREATE");
	write_byte(f);
	chmod(p, 0644);
	EXPECT(fd, "the mask was replaced", { wd, IN_ATTRIB, "" });
	check(inotify_add_watch(fd, p, IN_MODIFY | IN_MASK_ADD) == wd, "IN_MASK_ADD");
	write_byte(f);
	chmod(p, 0600);
	EXPECT(fd, "both now", { wd, IN_MODIFY, "" }, { wd, IN_ATTRIB, "" });
	check_ok(inotify_rm_watch(fd, wd), "rm_watch");
	EXPECT(fd, "rm_watch queues IN_IGNORED", { wd, IN_IGNORED, "" });
	check_errno(inotify_rm_watch(fd, wd), EINVAL, "second rm_watch");
	wd2 = inotify_add_watch(fd, p, IN_MODIFY);
	check(wd2 > wd, "wds are not reused at once");
	close(f);
	unlink(p);
	close(fd);
}

static void t_dont_follow_excl_unlink(void)
{
	int fd = new_fd(), wl, wt, wd, we, f;
	const char *t = scratch("tgt"), *l = scratch("lnk"), *d = scratch("ex");
	char p[PATH_MAX];

	touch(t);
	symlink("tgt", l);
	wt = inotify_add_watch(fd, l, IN_ATTRIB);
	wl = inotify_add_watch(fd, l, IN_ATTRIB | IN_DONT_FOLLOW);
	check(wt > 0 && wl > 0 && wt != wl, "the link and its target are two watches");
	chmod(t, 0600);
	EXPECT(fd, "chmod of the target", { wt, IN_ATTRIB, "" });
	unlink(l);
	unlink(t);
	drain(fd, (struct ev[8]){ 0 }, 8);
	close(fd);

	fd = new_fd();
	snprintf(p, sizeof(p), "%s/f", d);
	mkdir(d, 0755);
	wd = inotify_add_watch(fd, d, IN_MODIFY);
	f = open(p, O_CREAT | O_WRONLY, 0644);
	unlink(p);
	write_byte(f);
	EXPECT(fd, "an unlinked child still reports", { wd, IN_MODIFY, "f" });
	we = inotify_add_watch(fd, d, IN_MODIFY | IN_EXCL_UNLINK);
	check(we == wd, "same wd");
	write_byte(f);
	expect_none(fd, "IN_EXCL_UNLINK");
	close(f);
	rmdir(d);
	close(fd);
}

static void t_poll_epoll(void)
{
	int fd = new_fd(), ep = epoll_create1(0);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct epoll_event ev = { .events = EPOLLIN }, out;
	const char *d = scratch("pl");

	mkdir(d, 0755);
	inotify_add_watch(fd, d, IN_CREATE);
	check(poll(&pfd, 1, 0) == 0, "nothing ready");
	check_ok(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), "epoll_ctl");
	check(epoll_wait(ep, &out, 1, 0) == 0, "epoll: nothing ready");
	touch(scratch("pl/x"));
	check(poll(&pfd, 1, 0) == 1 && pfd.revents == POLLIN, "POLLIN");
	check(epoll_wait(ep, &out, 1, 0) == 1 && out.events == EPOLLIN, "epoll EPOLLIN");
	drain(fd, (struct ev[8]){ 0 }, 8);
	check(poll(&pfd, 1, 0) == 0, "drained");
	unlink(scratch("pl/x"));
	rmdir(d);
	close(ep);
	close(fd);
}

static void *later_touch(void *arg)
{
	sleep_ms(50);
	touch((const char *)arg);
	return NULL;
}

static void t_blocking_read(void)
{
	int fd = inotify_init1(0);
	const char *d = scratch("bl");
	char buf[256] __attribute__((aligned(8)));
	struct inotify_event *e = (struct inotify_event *)buf;
	pthread_t th;

	mkdir(d, 0755);
	inotify_add_watch(fd, d, IN_CREATE);
	pthread_create(&th, NULL, later_touch, (void *)scratch("bl/late"));
	check(read(fd, buf, sizeof(buf)) == 32 && e->mask == IN_CREATE && !strcmp(e->name, "late"),
	      "a blocked read gets the event");
	pthread_join(th, NULL);
	unlink(scratch("bl/late"));
	rmdir(d);
	close(fd);
}

#define SYSCTL "/proc/sys/fs/inotify/"

static long sysctl_get(const char *name)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), SYSCTL "%s", name);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

static int sysctl_set(const char *name, long v)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), SYSCTL "%s", name);
	snprintf(buf, sizeof(buf), "%ld", v);
	return write_file(path, buf);
}

static void t_limits(void)
{
	long queued = sysctl_get("max_queued_events"), inst = sysctl_get("max_user_instances");
	long watches = sysctl_get("max_user_watches");
	int fd, n, status;
	struct ev evs[16];
	char d[PATH_MAX];
	pid_t pid;

	check(queued > 0 && inst > 0 && watches >= 8192, "the three limits read");
	if (on_switchyard)
		check(queued == 16384 && inst == 128 && watches <= 1048576, "Linux's defaults");
	if (geteuid() != 0)
		return skip("not root");
	snprintf(d, sizeof(d), "%s", scratch("lim"));
	mkdir(d, 0755);
	// A queue of 4: the fifth event is IN_Q_OVERFLOW, then nothing more.
	sysctl_set("max_queued_events", 4);
	fd = new_fd();
	sysctl_set("max_queued_events", queued);
	inotify_add_watch(fd, d, IN_CREATE | IN_DELETE);
	for (int i = 0; i < 8; i++) {
		char name[16];

		snprintf(name, sizeof(name), "lim/%d", i);
		touch(scratch(name));
		unlink(scratch(name));
	}
	n = drain(fd, evs, 16);
	if (check(n == 5, "4 events and the overflow"))
		check(evs[4].wd == -1 && evs[4].mask == IN_Q_OVERFLOW && evs[3].mask == IN_DELETE,
		      "IN_Q_OVERFLOW last, wd -1");
	close(fd);
	// Another user's instances and watches, with limits of 1.
	sysctl_set("max_user_instances", 1);
	sysctl_set("max_user_watches", 1);
	pid = fork_child();
	if (pid == 0) {
		int a, b;

		if (setresuid(4321, 4321, 4321) < 0)
			_exit(2);
		a = inotify_init1(0);
		b = inotify_init1(0);
		if (a < 0 || b != -1 || errno != EMFILE)
			_exit(3);
		if (inotify_add_watch(a, "/", IN_CREATE) < 0)
			_exit(4);
		if (inotify_add_watch(a, "/tmp", IN_CREATE) != -1 || errno != ENOSPC)
			_exit(5);
		if (inotify_add_watch(a, "/", IN_DELETE) < 0)
			_exit(6);		// updating a watch is no new watch
		close(a);
		// Closing gave both back.
		a = inotify_init1(0);
		_exit(a >= 0 && inotify_add_watch(a, "/", IN_CREATE) >= 0 ? 0 : 7);
	}
	status = reap(pid);
	sysctl_set("max_user_instances", inst);
	sysctl_set("max_user_watches", watches);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "EMFILE and ENOSPC for uid 4321");
	if (WIFEXITED(status) && WEXITSTATUS(status))
		fail("child exit %d", WEXITSTATUS(status));
	check(sysctl_get("max_user_instances") == inst, "restored");
	rmdir(d);
}

static const struct test_case cases[] = {
	{ "init_and_init1_flags", t_init },
	{ "add_and_rm_watch_errnos", t_watch_errnos },
	{ "directory_events", t_dir_events },
	{ "file_events_and_delete_self", t_self_events },
	{ "write_clearing_setuid_attrib", t_write_kills_suid },
	{ "rename_cookies_move_self", t_rename },
	{ "identical_events_coalesce", t_coalesce },
	{ "read_sizes_padding_fionread", t_read_sizes },
	{ "oneshot_mask_add_mask_create", t_oneshot_and_masks },
	{ "dont_follow_and_excl_unlink", t_dont_follow_excl_unlink },
	{ "poll_and_epoll", t_poll_epoll },
	{ "blocking_read_woken", t_blocking_read },
	{ "proc_limits_overflow_emfile_enospc", t_limits },
};

int main(void)
{
	struct utsname u;

	on_switchyard = uname(&u) == 0 && strstr(u.version, "Switchyard") != NULL;
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/inotify-%d", (int)getpid());
	if (mkdir(scratch_dir, 0755) < 0)
		ktap_diag("cannot create %s: errno %d", scratch_dir, errno);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
