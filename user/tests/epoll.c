// epoll: level- and edge-triggered reports on pipes, eventfd, timerfd and
// signalfd, EPOLLONESHOT until MOD, EPOLLERR/EPOLLHUP always reported,
// nested epoll sets (readable when an item is ready, ET through them),
// the loop and depth rules (ELOOP), items keyed by (file, fd): a close of
// the last descriptor removes them, a dup keeps them; fork shares the set;
// LT items served in turn under a small maxevents; timeouts, EINTR (also
// with SA_RESTART), epoll_pwait's mask and epoll_pwait2's timespec; the
// fdinfo lines, and Linux's errno for every argument.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int ep_add(int ep, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

static int ep_mod(int ep, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };

	return epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
}

// epoll_wait with a zero timeout: how many reports; the first in *ev.
static int ready_now(int ep, struct epoll_event *ev)
{
	struct epoll_event dummy;

	return epoll_wait(ep, ev ? ev : &dummy, 1, 0);
}

static void put(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		fail("write: errno=%d", errno);
}

static void drain(int fd)
{
	char buf[256];

	while (read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf))
		;
}

static int nonblocking_pipe(int p[2])
{
	return check_ok(pipe2(p, O_NONBLOCK), "pipe2");
}

static void t_create(void)
{
	char link[64], target[64];
	ssize_t n;
	int ep;

	// musl's epoll_create does not pass the size on: the raw call does.
	check_errno(syscall(SYS_epoll_create, 0), EINVAL, "epoll_create(0)");
	check_errno(syscall(SYS_epoll_create, -1), EINVAL, "epoll_create(-1)");
	check_errno(epoll_create1(1), EINVAL, "epoll_create1(1)");
	check_errno(epoll_create1(O_NONBLOCK), EINVAL, "epoll_create1(O_NONBLOCK)");
	ep = epoll_create(1);
	check_ok(ep, "epoll_create(1)");
	check(fcntl(ep, F_GETFD) == 0, "no FD_CLOEXEC without the flag");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", ep);
	n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = 0;
	check(n > 0 && strcmp(target, "anon_inode:[eventpoll]") == 0, "anon_inode:[eventpoll]");
	close(ep);
	ep = epoll_create1(EPOLL_CLOEXEC);
	check_ok(ep, "epoll_create1(EPOLL_CLOEXEC)");
	check(fcntl(ep, F_GETFD) == FD_CLOEXEC, "FD_CLOEXEC");
	close(ep);
}

static void t_level_pipe(void)
{
	struct epoll_event ev;
	int p[2], ep = epoll_create1(0);

	nonblocking_pipe(p);
	check_ok(ep_add(ep, p[0], EPOLLIN, 7), "add");
	check(ready_now(ep, NULL) == 0, "empty pipe: nothing");
	put(p[1], "x");
	check(ready_now(ep, &ev) == 1 && ev.events == EPOLLIN && ev.data.u64 == 7, "EPOLLIN, data");
	check(ready_now(ep, NULL) == 1, "still reported (level)");
	drain(p[0]);
	check(ready_now(ep, NULL) == 0, "drained: nothing");
	check_ok(ep_add(ep, p[1], EPOLLOUT, 8), "add the write end");
	check(ready_now(ep, &ev) == 1 && ev.events == EPOLLOUT && ev.data.u64 == 8, "EPOLLOUT");
	close(p[0]);
	check(ready_now(ep, &ev) == 1 && ev.events == (EPOLLOUT | EPOLLERR), "reader gone: ERR");
	close(p[1]);
	close(ep);
}

static void t_edge_pipe(void)
{
	struct epoll_event ev;
	int p[2], ep = epoll_create1(0);
	char c;

	nonblocking_pipe(p);
	check_ok(ep_add(ep, p[0], EPOLLIN | EPOLLET, 1), "add ET");
	check(ready_now(ep, NULL) == 0, "empty: nothing");
	put(p[1], "a");
	check(ready_now(ep, &ev) == 1 && ev.events == EPOLLIN, "first write reported");
	check(ready_now(ep, NULL) == 0, "once");
	put(p[1], "b");
	check(ready_now(ep, &ev) == 1 && ev.events == EPOLLIN, "second write to a readable pipe: again");
	check(ready_now(ep, NULL) == 0, "once again");
	drain(p[0]);
	check(ready_now(ep, NULL) == 0, "drained");
	put(p[1], "cd");
	check(ready_now(ep, NULL) == 1, "readable again");
	check(read(p[0], &c, 1) == 1, "a partial read");
	check(ready_now(ep, NULL) == 0, "a read that did not wait is no news for readers");
	check(read(p[0], &c, 1) == 1, "read the rest");
	check(ready_now(ep, NULL) == 0, "empty after the read");
	check_ok(ep_add(ep, p[1], EPOLLOUT | EPOLLET, 2), "add the write end ET");
	check(ready_now(ep, &ev) == 1 && ev.data.u64 == 2, "writable at once");
	check(ready_now(ep, NULL) == 0, "writable only once");
	put(p[1], "e");
	check(ready_now(ep, &ev) == 1 && ev.data.u64 == 1, "a write: news for the reader only");
	check(read(p[0], &c, 1) == 1, "a read of a pipe that was not full");
	check(ready_now(ep, NULL) == 0, "is no news for the writer");
	check_ok(ep_mod(ep, p[1], EPOLLOUT | EPOLLET, 3), "MOD re-arms");
	check(ready_now(ep, &ev) == 1 && ev.data.u64 == 3, "reported again after MOD");
	close(p[0]);
	check(ready_now(ep, &ev) == 1 && (ev.events & EPOLLERR), "reader closed: EPOLLERR");
	close(p[1]);
	close(ep);
}

static void t_blocking_wakeup(void)
{
	struct epoll_event ev;
	int p[2], ep = epoll_create1(0);
	pid_t pid;

	nonblocking_pipe(p);
	check_ok(ep_add(ep, p[0], EPOLLIN | EPOLLET, 5), "add");
	pid = fork_child();
	if (pid == 0) {
		usleep(30 * 1000);
		_exit(write(p[1], "z", 1) == 1 ? 0 : 1);
	}
	long t0 = now_ms();
	int n = epoll_wait(ep, &ev, 1, 5000);
	check(n == 1 && ev.data.u64 == 5, "woken by the writer");
	check(now_ms() - t0 >= 20, "slept until the write");
	check_child_ok(pid, "writer");
	close(p[0]);
	close(p[1]);
	close(ep);
}

static void t_eventfd(void)
{
	struct epoll_event ev;
	int efd = eventfd(0, EFD_NONBLOCK), ep = epoll_create1(0), ep2 = epoll_create1(0);
	uint64_t v = 1;

	check_ok(efd, "eventfd");
	check_ok(ep_add(ep, efd, EPOLLIN | EPOLLET, 1), "add ET");
	check_ok(ep_add(ep2, efd, EPOLLIN | EPOLLOUT, 2), "add LT in another set");
	check(ready_now(ep, NULL) == 0, "zero count: nothing");
	check(ready_now(ep2, &ev) == 1 && ev.events == EPOLLOUT, "LT: EPOLLOUT only");
	check(write(efd, &v, 8) == 8, "write 1");
	check(ready_now(ep, &ev) == 1 && ev.events == EPOLLIN, "ET: EPOLLIN");
	check(ready_now(ep, NULL) == 0, "ET: once");
	check(write(efd, &v, 8) == 8, "write 1 more");
	check(ready_now(ep, &ev) == 1, "ET: a new write reports again");
	check(ready_now(ep2, &ev) == 1 && ev.events == (EPOLLIN | EPOLLOUT), "LT: both");
	check(read(efd, &v, 8) == 8 && v == 2, "read 2");
	check(ready_now(ep, NULL) == 0, "ET: nothing after the read");
	check(ready_now(ep2, &ev) == 1 && ev.events == EPOLLOUT, "LT: EPOLLOUT again");
	close(efd);
	// A semaphore read leaves the count readable but only wakes writers.
	efd = eventfd(2, EFD_NONBLOCK | EFD_SEMAPHORE);
	check_ok(ep_add(ep, efd, EPOLLIN | EPOLLET, 3), "add a semaphore ET");
	check(ready_now(ep, &ev) == 1 && ev.data.u64 == 3, "readable at once");
	check(read(efd, &v, 8) == 8 && v == 1, "take one");
	check(ready_now(ep, NULL) == 0, "a read is no news for EPOLLIN");
	check_ok(ep_mod(ep, efd, EPOLLOUT | EPOLLET, 4), "MOD to EPOLLOUT");
	check(ready_now(ep, &ev) == 1 && ev.events == EPOLLOUT, "writable");
	check(read(efd, &v, 8) == 8, "take the other");
	check(ready_now(ep, &ev) == 1 && ev.events == EPOLLOUT, "a read is news for EPOLLOUT");
	close(efd);
	close(ep);
	close(ep2);
}

static void t_timerfd(void)
{
	struct itimerspec once = { { 0, 0 }, { 0, 20 * 1000 * 1000 } };
	struct itimerspec every = { { 0, 20 * 1000 * 1000 }, { 0, 20 * 1000 * 1000 } };
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK), ep = epoll_create1(0);
	struct epoll_event ev;
	uint64_t ticks;

	check_ok(tfd, "timerfd_create");
	check_ok(ep_add(ep, tfd, EPOLLIN, 1), "add LT");
	check(ready_now(ep, NULL) == 0, "disarmed: nothing");
	long t0 = now_ms();
	check_ok(timerfd_settime(tfd, 0, &once, NULL), "arm 20 ms");
	check(epoll_wait(ep, &ev, 1, 5000) == 1 && ev.events == EPOLLIN, "expiry reported");
	check(now_ms() - t0 >= 19, "not before the expiry");
	check(ready_now(ep, NULL) == 1, "LT: still");
	check(read(tfd, &ticks, 8) == 8 && ticks == 1, "one tick");
	check(ready_now(ep, NULL) == 0, "read: nothing");
	check_ok(ep_mod(ep, tfd, EPOLLIN | EPOLLET, 2), "MOD to ET");
	check_ok(timerfd_settime(tfd, 0, &every, NULL), "arm every 20 ms");
	check(epoll_wait(ep, &ev, 1, 5000) == 1 && ev.data.u64 == 2, "first expiry");
	// The period restarts only when the ticks are read, as Linux's
	// hrtimer: nothing new until then.
	check(epoll_wait(ep, &ev, 1, 60) == 0, "ET: nothing new while the ticks are unread");
	check(read(tfd, &ticks, 8) == 8 && ticks >= 1, "read the ticks");
	check(epoll_wait(ep, &ev, 1, 5000) == 1, "ET: the next expiry");
	close(tfd);
	close(ep);
}

static void t_signalfd(void)
{
	sigset_t set;
	struct epoll_event ev;
	int sfd, ep = epoll_create1(0);

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_NONBLOCK);
	check_ok(sfd, "signalfd");
	check_ok(ep_add(ep, sfd, EPOLLIN, 9), "add");
	check(ready_now(ep, NULL) == 0, "nothing pending");
	kill(getpid(), SIGUSR2);
	check(ready_now(ep, &ev) == 1 && ev.events == EPOLLIN && ev.data.u64 == 9, "pending signal");
	struct signalfd_siginfo si;
	check(read(sfd, &si, sizeof(si)) == sizeof(si) && si.ssi_signo == SIGUSR2, "read it");
	check(ready_now(ep, NULL) == 0, "taken");
	close(sfd);
	close(ep);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void t_oneshot(void)
{
	struct epoll_event ev;
	int p[2], ep = epoll_create1(0);

	nonblocking_pipe(p);
	check_ok(ep_add(ep, p[0], EPOLLIN | EPOLLONESHOT, 1), "add ONESHOT");
	put(p[1], "a");
	check(ready_now(ep, &ev) == 1, "reported");
	check(ready_now(ep, NULL) == 0, "then disabled");
	put(p[1], "b");
	check(ready_now(ep, NULL) == 0, "a new write: still disabled");
	close(p[1]);
	check(ready_now(ep, NULL) == 0, "not even EPOLLHUP");
	check_errno(ep_add(ep, p[0], EPOLLIN, 1), EEXIST, "the item is still there");
	check_ok(ep_mod(ep, p[0], EPOLLIN | EPOLLONESHOT, 2), "MOD re-arms");
	check(ready_now(ep, &ev) == 1 && ev.events == (EPOLLIN | EPOLLHUP) && ev.data.u64 == 2,
	      "reported after MOD");
	check(ready_now(ep, NULL) == 0, "disabled again");
	close(p[0]);
	close(ep);
}

static void t_err_hup_always(void)
{
	struct epoll_event ev;
	int p[2], q[2], ep = epoll_create1(0);

	nonblocking_pipe(p);
	nonblocking_pipe(q);
	check_ok(ep_add(ep, p[0], 0, 1), "read end, no events asked");
	check_ok(ep_add(ep, q[1], EPOLLIN, 2), "write end, EPOLLIN only");
	put(p[1], "x");
	check(ready_now(ep, NULL) == 0, "data alone is not reported");
	close(p[1]);
	check(ready_now(ep, &ev) == 1 && ev.events == EPOLLHUP && ev.data.u64 == 1, "EPOLLHUP");
	check_ok(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL), "DEL with a NULL event");
	close(q[0]);
	check(ready_now(ep, &ev) == 1 && ev.events == EPOLLERR && ev.data.u64 == 2, "EPOLLERR");
	close(p[0]);
	close(q[1]);
	close(ep);
}

static void t_nested(void)
{
	struct epoll_event ev;
	int p[2], inner = epoll_create1(0), outer = epoll_create1(0), et = epoll_create1(0);
	struct pollfd pfd = { .fd = inner, .events = POLLIN };

	nonblocking_pipe(p);
	check_ok(ep_add(inner, p[0], EPOLLIN, 1), "pipe into inner");
	check_ok(ep_add(outer, inner, EPOLLIN, 2), "inner into outer");
	check_ok(ep_add(et, inner, EPOLLIN | EPOLLET, 3), "inner into another, ET");
	check(poll(&pfd, 1, 0) == 0, "inner not readable");
	check(ready_now(outer, NULL) == 0 && ready_now(et, NULL) == 0, "outer sets: nothing");
	put(p[1], "x");
	check(poll(&pfd, 1, 0) == 1 && pfd.revents == POLLIN, "inner readable");
	check(ready_now(outer, &ev) == 1 && ev.events == EPOLLIN && ev.data.u64 == 2, "outer: inner ready");
	check(ready_now(outer, NULL) == 1, "outer: level");
	check(ready_now(et, &ev) == 1 && ev.data.u64 == 3, "ET set: reported");
	check(ready_now(et, NULL) == 0, "ET set: once");
	put(p[1], "y");
	check(ready_now(et, NULL) == 1, "ET set: a new write in the inner set reports again");
	check(ready_now(inner, &ev) == 1 && ev.data.u64 == 1, "inner reports the pipe");
	drain(p[0]);
	check(ready_now(outer, NULL) == 0, "drained: outer has nothing");
	close(p[0]);
	close(p[1]);
	close(inner);
	close(outer);
	close(et);
}

static void t_loops(void)
{
	int a = epoll_create1(0), b = epoll_create1(0), c = epoll_create1(0);
	int chain[10];
	int i;

	check_errno(ep_add(a, a, EPOLLIN, 0), EINVAL, "a set into itself");
	check_ok(ep_add(a, b, EPOLLIN, 0), "b into a");
	check_ok(ep_add(b, c, EPOLLIN, 0), "c into b");
	check_errno(ep_add(b, a, EPOLLIN, 0), ELOOP, "a into b: a cycle");
	check_errno(ep_add(c, a, EPOLLIN, 0), ELOOP, "a into c: a longer cycle");
	int fresh = epoll_create1(0);
	check_ok(ep_add(c, fresh, EPOLLIN, 0), "a fresh set into c");
	check_errno(ep_add(fresh, b, EPOLLIN, 0), ELOOP, "b below fresh: a cycle through c");
	close(fresh);
	close(a);
	close(b);
	close(c);
	// Built bottom-up, each set holding the previous one: Linux allows
	// five sets in a chain (EP_MAX_NESTS 4 below the top one; Debian's
	// 6.1 has the upward check of 6.10).
	for (i = 0; i < 10; i++)
		chain[i] = epoll_create1(0);
	for (i = 1; i < 10; i++) {
		int rc = ep_add(chain[i], chain[i - 1], EPOLLIN, 0);

		if (rc < 0)
			break;
	}
	check(i == 5 && errno == ELOOP, "a sixth level is ELOOP");
	if (i != 5)
		fail("stopped at %d, errno=%d", i, errno);
	for (i = 0; i < 10; i++)
		close(chain[i]);
}

static void t_close_removes(void)
{
	struct epoll_event ev;
	int p[2], ep = epoll_create1(0), d;

	nonblocking_pipe(p);
	check_ok(ep_add(ep, p[0], EPOLLIN, 1), "add");
	d = dup(p[0]);
	check_ok(d, "dup");
	close(p[0]);
	put(p[1], "x");
	check(ready_now(ep, &ev) == 1 && ev.data.u64 == 1, "a dup keeps the item");
	check_errno(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL), EBADF, "DEL of the closed fd");
	check_errno(epoll_ctl(ep, EPOLL_CTL_DEL, d, NULL), ENOENT, "the dup is another key");
	check_ok(ep_add(ep, d, EPOLLIN, 2), "the dup added too");
	struct epoll_event two[2];
	check(epoll_wait(ep, two, 2, 0) == 2, "both items report");
	close(d);
	check(ready_now(ep, NULL) == 0, "last close removed both");
	close(p[1]);
	close(ep);
}

static void t_fork_shares(void)
{
	struct epoll_event ev;
	int p[2], q[2], ep = epoll_create1(0);
	pid_t pid;

	nonblocking_pipe(p);
	nonblocking_pipe(q);
	check_ok(ep_add(ep, p[0], EPOLLIN, 1), "add");
	pid = fork_child();
	if (pid == 0) {
		struct epoll_event cev;

		if (ep_add(ep, q[0], EPOLLIN, 2) < 0)
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(2);
		if (epoll_wait(ep, &cev, 1, 1000) != 1 || cev.data.u64 != 1)
			_exit(3);
		_exit(0);
	}
	check_child_ok(pid, "child");
	check_errno(ep_add(ep, q[0], EPOLLIN, 2), EEXIST, "the child's ADD is in the shared set");
	check(ready_now(ep, &ev) == 1 && ev.data.u64 == 1, "the child's write reported");
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
	close(ep);
}

static void t_round_robin(void)
{
	struct epoll_event ev;
	int p[2], q[2], ep = epoll_create1(0);
	uint64_t first, second;

	nonblocking_pipe(p);
	nonblocking_pipe(q);
	check_ok(ep_add(ep, p[0], EPOLLIN, 1), "add p");
	check_ok(ep_add(ep, q[0], EPOLLIN, 2), "add q");
	put(p[1], "x");
	put(q[1], "y");
	check(ready_now(ep, &ev) == 1, "one of them");
	first = ev.data.u64;
	check(ready_now(ep, &ev) == 1, "one of them again");
	second = ev.data.u64;
	check(first != second, "maxevents 1 serves both in turn");
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
	close(ep);
}

// 300 ready eventfds: one call takes them all; 100 at a time serves each
// once in three calls; a buffer with room for 10 before unmapped memory
// gets 10, and the rest stay ready.
static void t_many(void)
{
	static struct epoll_event evs[400];
	static int efds[300];
	static char seen[300];
	int ep = epoll_create1(0), n, distinct = 0;
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	check(page != MAP_FAILED && munmap(page + 4096, 4096) == 0, "a page before a hole");
	for (int i = 0; i < 300; i++) {
		efds[i] = eventfd(1, 0);
		if (efds[i] < 0 || ep_add(ep, efds[i], EPOLLIN, (uint64_t)i) < 0) {
			fail("eventfd %d: errno=%d", i, errno);
			break;
		}
	}
	n = epoll_wait(ep, evs, 400, 0);
	check(n == 300, "all 300 in one call");
	memset(seen, 0, sizeof(seen));
	for (int round = 0; round < 3; round++) {
		n = epoll_wait(ep, evs, 100, 0);
		check(n == 100, "100 a call");
		for (int i = 0; i < n; i++) {
			uint64_t k = evs[i].data.u64;
			if (k < 300 && !seen[k]++)
				distinct++;
		}
	}
	check(distinct == 300, "three calls of 100 served every item");
	n = epoll_wait(ep, (struct epoll_event *)(page + 4096 - 10 * sizeof(struct epoll_event)), 300, 0);
	check(n == 10, "a fault after 10 events returns 10");
	check(epoll_wait(ep, evs, 400, 0) == 300, "every item still ready");
	for (int i = 0; i < 300; i++)
		close(efds[i]);
	munmap(page, 4096);
	close(ep);
}

// Threads at once on one set: a waiter, an fdinfo reader, and a thread
// that adds, writes to and closes pipes and nested sets, with a pidfd in
// the set (its poll takes the process lock that /proc's fdinfo takes).
static int race_ep;
static volatile int race_stop;

static void *race_waiter(void *arg)
{
	struct epoll_event evs[8];

	(void)arg;
	while (!race_stop)
		epoll_wait(race_ep, evs, 8, 5);
	return NULL;
}

static void *race_fdinfo(void *arg)
{
	char path[64], buf[4096];

	(void)arg;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", race_ep);
	while (!race_stop) {
		int fd = open(path, O_RDONLY);

		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf)) < 0)
				break;
			close(fd);
		}
	}
	return NULL;
}

static void t_threads(void)
{
	pthread_t w, r;
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	race_ep = epoll_create1(0);
	race_stop = 0;
	if (pidfd >= 0)
		ep_add(race_ep, pidfd, EPOLLIN, 99);
	check(pthread_create(&w, NULL, race_waiter, NULL) == 0, "waiter thread");
	check(pthread_create(&r, NULL, race_fdinfo, NULL) == 0, "fdinfo thread");
	for (int i = 0; i < 200 && !fail_why[0]; i++) {
		int p[2], inner = epoll_create1(0);

		if (pipe(p) < 0 || inner < 0) {
			fail("pipe/epoll_create1: errno=%d", errno);
			break;
		}
		check_ok(ep_add(inner, p[0], EPOLLIN | (i & 1 ? EPOLLET : 0), 1), "into inner");
		check_ok(ep_add(race_ep, p[0], EPOLLIN, 2), "into the set");
		check_ok(ep_add(race_ep, inner, EPOLLIN, 3), "inner into the set");
		put(p[1], "x");
		if (i % 3 == 0)
			check_ok(epoll_ctl(race_ep, EPOLL_CTL_DEL, p[0], NULL), "DEL");
		close(p[0]);
		close(p[1]);
		close(inner);
	}
	race_stop = 1;
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	check(ready_now(race_ep, NULL) == 0, "every closed item gone");
	if (pidfd >= 0)
		close(pidfd);
	close(race_ep);
}

static void t_timeouts(void)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 }, zero = { 0, 0 };
	struct epoll_event ev;
	int ep = epoll_create1(0), p[2];
	long t0;

	nonblocking_pipe(p);
	check_ok(ep_add(ep, p[0], EPOLLIN, 1), "add");
	t0 = now_ms();
	check(epoll_wait(ep, &ev, 1, 0) == 0, "timeout 0");
	t0 = now_ms();
	check(epoll_wait(ep, &ev, 1, 50) == 0, "timeout 50 ms");
	check(now_ms() - t0 >= 49, "waited 50 ms");
	t0 = now_ms();
	check(epoll_pwait(ep, &ev, 1, 30, NULL) == 0, "epoll_pwait 30 ms");
	check(now_ms() - t0 >= 29, "waited 30 ms");
	t0 = now_ms();
	check(syscall(SYS_epoll_pwait2, ep, &ev, 1, &ts, NULL, 8) == 0, "epoll_pwait2 30 ms");
	check(now_ms() - t0 >= 29, "waited 30 ms too");
	check(syscall(SYS_epoll_pwait2, ep, &ev, 1, &zero, NULL, 8) == 0, "epoll_pwait2 zero");
	put(p[1], "x");
	check(syscall(SYS_epoll_pwait2, ep, &ev, 1, NULL, NULL, 8) == 1, "epoll_pwait2 no timeout, ready");
	check(epoll_wait(ep, &ev, 1, -1) == 1, "timeout -1, ready");
	close(p[0]);
	close(p[1]);
	close(ep);
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

// A child sends SIGUSR1 to the parent after 30 ms.
static pid_t signal_me_later(void)
{
	pid_t parent = getpid(), pid = fork_child();

	if (pid == 0) {
		usleep(30 * 1000);
		kill(parent, SIGUSR1);
		_exit(0);
	}
	return pid;
}

static void t_eintr(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 }, old;
	struct epoll_event ev;
	int ep = epoll_create1(0);
	sigset_t block, none;
	pid_t pid;

	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;	// epoll_wait is never restarted
	sigaction(SIGUSR1, &sa, &old);
	got_usr1 = 0;
	pid = signal_me_later();
	check_errno(epoll_wait(ep, &ev, 1, 5000), EINTR, "epoll_wait: EINTR despite SA_RESTART");
	check(got_usr1, "the handler ran");
	check_child_ok(pid, "signaller");

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &block, NULL);
	got_usr1 = 0;
	pid = signal_me_later();
	check_errno(epoll_pwait(ep, &ev, 1, 5000, &none), EINTR, "epoll_pwait unblocks it: EINTR");
	check(got_usr1, "its handler ran");
	check_child_ok(pid, "signaller");
	got_usr1 = 0;
	pid = signal_me_later();
	check_errno(syscall(SYS_epoll_pwait2, ep, &ev, 1, NULL, &none, 8), EINTR, "epoll_pwait2: EINTR");
	check(got_usr1, "its handler ran too");
	check_child_ok(pid, "signaller");
	got_usr1 = 0;
	pid = signal_me_later();
	check(epoll_pwait(ep, &ev, 1, 200, &block) == 0, "a mask that blocks it: the timeout");
	check(!got_usr1, "no handler inside");
	check_child_ok(pid, "signaller");
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	check(got_usr1, "delivered after unblocking");
	sigaction(SIGUSR1, &old, NULL);
	close(ep);
}

static void t_fdinfo(void)
{
	char path[64], buf[1024];
	int p[2], ep = epoll_create1(0), fd, tfd = -1;
	unsigned events = 0;
	unsigned long long data = 0;
	ssize_t n;

	nonblocking_pipe(p);
	check_ok(ep_add(ep, p[0], EPOLLIN | EPOLLET, 0x1234), "add");
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", ep);
	fd = open(path, O_RDONLY);
	check_ok(fd, "open fdinfo");
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	char *line = strstr(buf, "tfd:");
	check(line && sscanf(line, "tfd: %d events: %x data: %llx", &tfd, &events, &data) == 3,
	      "a tfd line");
	check(tfd == p[0], "its fd");
	check(events == (EPOLLIN | EPOLLET | EPOLLERR | EPOLLHUP), "its events, with ERR and HUP");
	check(data == 0x1234, "its data");
	close(fd);
	// A line per item, however many.
	int efds[30], lines = 0;
	for (int i = 0; i < 30; i++) {
		efds[i] = eventfd(0, 0);
		ep_add(ep, efds[i], EPOLLIN, (uint64_t)i);
	}
	static char big[8192];
	fd = open(path, O_RDONLY);
	n = read(fd, big, sizeof(big) - 1);
	big[n > 0 ? n : 0] = 0;
	for (char *q = big; (q = strstr(q, "tfd:")); q++)
		lines++;
	check(lines == 31, "31 tfd lines");
	close(fd);
	for (int i = 0; i < 30; i++)
		close(efds[i]);
	close(p[0]);
	close(p[1]);
	close(ep);
}

// kcmp(KCMP_EPOLL_TFD): is an item's target the file behind a descriptor?
#define KCMP_FILE 0
#define KCMP_EPOLL_TFD 7
static long kcmp_tfd(int fd, int efd, int tfd, int toff)
{
	struct { uint32_t efd, tfd, toff; } slot = { (uint32_t)efd, (uint32_t)tfd, (uint32_t)toff };
	pid_t me = getpid();

	return syscall(SYS_kcmp, me, me, KCMP_EPOLL_TFD, fd, &slot);
}

static void t_kcmp(void)
{
	int p[2], ep = epoll_create1(0), d;

	nonblocking_pipe(p);
	check_ok(ep_add(ep, p[0], EPOLLIN, 0), "add");
	d = dup(p[0]);
	check(kcmp_tfd(p[0], ep, p[0], 0) == 0, "the target is the file");
	check(kcmp_tfd(d, ep, p[0], 0) == 0, "also behind the dup");
	check(kcmp_tfd(p[1], ep, p[0], 0) > 0, "not the other end");
	check_errno(kcmp_tfd(p[0], ep, p[0], 1), ENOENT, "no second item with that fd");
	check_errno(kcmp_tfd(p[0], ep, p[1], 0), ENOENT, "no item with that fd");
	check_errno(kcmp_tfd(p[0], p[1], p[0], 0), EINVAL, "efd not an epoll set");
	check_errno(kcmp_tfd(p[0], 999, p[0], 0), EBADF, "efd not open");
	check_errno(kcmp_tfd(999, ep, p[0], 0), EBADF, "fd not open");
	pid_t me = getpid();
	check_errno(syscall(SYS_kcmp, me, me, KCMP_EPOLL_TFD, p[0], (void *)8), EFAULT, "a bad slot");
	close(d);
	close(p[0]);
	close(p[1]);
	close(ep);
}

static void t_ctl_errors(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(0), ep2 = epoll_create1(0), p[2], file, dir;

	nonblocking_pipe(p);
	file = open(scratch("file"), O_CREAT | O_RDWR, 0600);
	dir = open(scratch_dir, O_RDONLY | O_DIRECTORY);
	check_errno(epoll_ctl(-1, EPOLL_CTL_ADD, p[0], &ev), EBADF, "bad epfd");
	check_errno(epoll_ctl(ep, EPOLL_CTL_ADD, 999, &ev), EBADF, "bad fd");
	check_errno(epoll_ctl(p[1], EPOLL_CTL_ADD, p[0], &ev), EINVAL, "epfd not an epoll fd");
	check_errno(epoll_ctl(ep, EPOLL_CTL_ADD, file, &ev), EPERM, "a regular file");
	check_errno(epoll_ctl(ep, EPOLL_CTL_ADD, dir, &ev), EPERM, "a directory");
	check_errno(epoll_ctl(ep, EPOLL_CTL_ADD, ep, &ev), EINVAL, "itself");
	check_errno(epoll_ctl(ep, 99, p[0], &ev), EINVAL, "unknown op");
	check_errno(epoll_ctl(ep, 0, p[0], &ev), EINVAL, "op 0");
	check_errno(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], NULL), EFAULT, "ADD with NULL");
	check_errno(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], (void *)8), EFAULT, "MOD with a bad pointer");
	check_errno(epoll_ctl(ep, 99, p[0], NULL), EFAULT, "unknown op reads the event first");
	check_errno(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev), ENOENT, "MOD of no item");
	check_errno(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], &ev), ENOENT, "DEL of no item");
	check_ok(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), "ADD");
	check_errno(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev), EEXIST, "ADD twice");
	check_ok(epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev), "MOD");
	check_ok(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL), "DEL");
	check_ok(ep_add(ep, p[0], EPOLLIN | EPOLLWAKEUP | EPOLLRDHUP | EPOLLPRI | EPOLLRDNORM |
			EPOLLRDBAND | EPOLLWRNORM | EPOLLWRBAND | EPOLLMSG, 0), "every event bit");
	check_ok(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL), "DEL");
	// EPOLLEXCLUSIVE: ADD only, with IN/OUT/ERR/HUP/WAKEUP/ET, not on an epoll fd.
	check_ok(ep_add(ep, p[0], EPOLLIN | EPOLLEXCLUSIVE | EPOLLET, 0), "EXCLUSIVE");
	check_errno(ep_mod(ep, p[0], EPOLLIN, 0), EINVAL, "MOD of an EXCLUSIVE item");
	check_errno(ep_mod(ep, p[0], EPOLLIN | EPOLLEXCLUSIVE, 0), EINVAL, "MOD with EXCLUSIVE");
	check_errno(ep_add(ep, p[1], EPOLLOUT | EPOLLEXCLUSIVE | EPOLLONESHOT, 0), EINVAL,
		    "EXCLUSIVE with ONESHOT");
	check_errno(ep_add(ep, p[1], EPOLLOUT | EPOLLEXCLUSIVE | EPOLLRDHUP, 0), EINVAL,
		    "EXCLUSIVE with RDHUP");
	check_errno(ep_add(ep, ep2, EPOLLIN | EPOLLEXCLUSIVE, 0), EINVAL, "EXCLUSIVE on an epoll fd");
	check_errno(ep_mod(ep, p[1], EPOLLOUT | EPOLLEXCLUSIVE, 0), EINVAL,
		    "MOD with EXCLUSIVE of no item is EINVAL first");
	check_ok(epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL), "DEL of an EXCLUSIVE item");
	close(file);
	close(dir);
	close(p[0]);
	close(p[1]);
	close(ep);
	close(ep2);
}

// glibc declares the buffer sizes of these calls (attribute access), and
// the bad sizes and pointers passed on purpose would fail the build.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wnonnull"
static void t_wait_errors(void)
{
	struct epoll_event ev[2];
	struct timespec bad = { 0, 1000000000 }, neg = { -1, 0 };
	sigset_t none;
	int ep = epoll_create1(0), p[2];
	void *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	sigemptyset(&none);
	nonblocking_pipe(p);
	check_errno(epoll_wait(ep, ev, 0, 0), EINVAL, "maxevents 0");
	check_errno(epoll_wait(ep, ev, -1, 0), EINVAL, "maxevents -1");
	check_errno(epoll_wait(ep, ev, INT_MAX / 12 + 1, 0), EINVAL, "maxevents past INT_MAX/12");
	check_errno(epoll_wait(-1, ev, 1, 0), EBADF, "bad epfd");
	check_errno(epoll_wait(p[0], ev, 1, 0), EINVAL, "not an epoll fd");
	// (6.1 checks maxevents and the buffer before the fd, later kernels
	// after: not asserted.)
	check_errno(epoll_wait(ep, (void *)0xffff800000000000ul, 1, 0), EFAULT, "a kernel buffer");
	check(epoll_wait(ep, NULL, 1, 0) == 0, "NULL but nothing to write: 0");
	check_ok(ep_add(ep, p[0], EPOLLIN, 1), "add");
	put(p[1], "x");
	check_errno(epoll_wait(ep, NULL, 1, 0), EFAULT, "NULL with an event");
	check_errno(epoll_wait(ep, page, 1, 0), EFAULT, "a read-only buffer");
	check(epoll_wait(ep, ev, 2, 0) == 1 && ev[0].data.u64 == 1, "the event was kept");
	check_errno(epoll_pwait(ep, ev, 1, 0, (sigset_t *)8), EFAULT, "epoll_pwait: bad mask");
	check_errno(syscall(SYS_epoll_pwait, ep, ev, 1, 0, &none, 4), EINVAL, "epoll_pwait: size 4");
	check_errno(syscall(SYS_epoll_pwait2, ep, ev, 1, &bad, NULL, 8), EINVAL, "pwait2: nsec 1e9");
	check_errno(syscall(SYS_epoll_pwait2, ep, ev, 1, &neg, NULL, 8), EINVAL, "pwait2: sec -1");
	check_errno(syscall(SYS_epoll_pwait2, ep, ev, 1, (void *)8, NULL, 8), EFAULT,
		    "pwait2: bad timespec");
	check_errno(syscall(SYS_epoll_pwait2, -1, ev, 1, &bad, NULL, 8), EINVAL,
		    "pwait2: timespec before the fd");
	check_errno(syscall(SYS_epoll_pwait2, ep, ev, 1, NULL, &none, 16), EINVAL, "pwait2: size 16");
	munmap(page, 4096);
	close(p[0]);
	close(p[1]);
	close(ep);
}
#pragma GCC diagnostic pop

// Which /proc files take epoll, as on Linux (file_can_poll): /proc's own
// files and sysctls (proc_reg_poll, proc_sys_poll), a process's mounts
// (mounts_poll), but not its other files, which have no poll (EPERM).
static void t_ctl_proc_files(void)
{
	static const struct { const char *path; int err; } files[] = {
		{ "/proc/meminfo", 0 },
		{ "/proc/self/status", EPERM },
		{ "/proc/self/maps", EPERM },
		{ "/proc/sys/kernel/ostype", 0 },
		{ "/proc/sys/kernel/pid_max", 0 },
		{ "/proc/mounts", 0 },
		{ "/proc/self/mounts", 0 },
	};
	int ep = epoll_create1(0);

	for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct epoll_event ev = { .events = EPOLLIN };
		int fd = open(files[i].path, O_RDONLY);

		if (!check_ok(fd, files[i].path))
			continue;
		if (files[i].err)
			check_errno(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), files[i].err, files[i].path);
		else if (check_ok(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), files[i].path))
			check(epoll_wait(ep, &ev, 1, 0) == 1 && (ev.events & EPOLLIN),
			      "a pollable /proc file is readable at once");
		epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
		close(fd);
	}
	close(ep);
}

static const struct test_case cases[] = {
	{ "create", t_create },
	{ "level_pipe", t_level_pipe },
	{ "edge_pipe", t_edge_pipe },
	{ "blocking_wakeup", t_blocking_wakeup },
	{ "eventfd_level_and_edge", t_eventfd },
	{ "timerfd_level_and_edge", t_timerfd },
	{ "signalfd", t_signalfd },
	{ "oneshot", t_oneshot },
	{ "err_hup_always", t_err_hup_always },
	{ "nested", t_nested },
	{ "loops_ELOOP", t_loops },
	{ "close_removes_dup_keeps", t_close_removes },
	{ "fork_shares", t_fork_shares },
	{ "round_robin", t_round_robin },
	{ "many_items", t_many },
	{ "threads", t_threads },
	{ "timeouts", t_timeouts },
	{ "EINTR_and_masks", t_eintr },
	{ "fdinfo", t_fdinfo },
	{ "kcmp_EPOLL_TFD", t_kcmp },
	{ "ctl_errors", t_ctl_errors },
	{ "ctl_proc_files", t_ctl_proc_files },
	{ "wait_errors", t_wait_errors },
};

int main(void)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/epoll-%d", (int)getpid());
	mkdir(scratch_dir, 0700);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	unlink(scratch("file"));
	rmdir(scratch_dir);
	return ktap_finish();
}
