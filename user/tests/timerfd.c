// timerfd_create, timerfd_settime, timerfd_gettime: clocks and flags
// (EINVAL, and EPERM for the _ALARM clocks without CAP_WAKE_ALARM); a
// one-shot timer read once (blocking until it fires, EAGAIN without
// blocking, EINVAL below 8 bytes); a periodic timer counting every period
// that went by; gettime's time left and interval, settime's old value;
// absolute times in the past and the future on CLOCK_REALTIME and
// CLOCK_MONOTONIC; TFD_TIMER_CANCEL_ON_SET accepted; ticks forgotten by
// settime; poll and select woken at expiry; EINTR; TFD_IOC_SET_TICKS;
// the timer shared across fork; bad descriptors and pointers; the file
// as Linux shows it (anon_inode:[timerfd], fdinfo). Times assert lower
// bounds, and upper bounds only from the elapsed time measured.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"
#include "sysutil.h"
#include "poke.h"

#define MS 1000000LL
#define SEC 1000000000LL
#ifndef TFD_TIMER_CANCEL_ON_SET
#define TFD_TIMER_CANCEL_ON_SET (1 << 1)
#endif
#define X_TFD_IOC_SET_TICKS 0x40085400UL

static struct itimerspec its(long long value_ns, long long interval_ns)
{
	struct itimerspec t = {
		{ interval_ns / SEC, interval_ns % SEC },
		{ value_ns / SEC, value_ns % SEC },
	};
	return t;
}

static long long ns_of(const struct timespec *ts)
{
	return ts->tv_sec * SEC + ts->tv_nsec;
}

static uint64_t ticks_of(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		fail("read: errno=%d", errno);
	return v;
}

static int arm(int fd, int flags, long long value, long long interval)
{
	struct itimerspec t = its(value, interval);

	return check_ok(timerfd_settime(fd, flags, &t, NULL), "timerfd_settime");
}

static void t_create(void)
{
	int ids[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME };

	for (int i = 0; i < 3; i++) {
		int fd = timerfd_create(ids[i], 0);
		if (fd < 0)
			fail("clock %d: errno=%d", ids[i], errno);
		close(fd);
	}
	check_errno(timerfd_create(CLOCK_PROCESS_CPUTIME_ID, 0), EINVAL, "a CPU clock");
	check_errno(timerfd_create(CLOCK_MONOTONIC_RAW, 0), EINVAL, "MONOTONIC_RAW");
	check_errno(timerfd_create(CLOCK_REALTIME_COARSE, 0), EINVAL, "REALTIME_COARSE");
	check_errno(timerfd_create(11, 0), EINVAL, "TAI");
	check_errno(timerfd_create(-1, 0), EINVAL, "-1");
	check_errno(timerfd_create(CLOCK_MONOTONIC, 1), EINVAL, "flag 1");
	check_errno(timerfd_create(CLOCK_MONOTONIC, TFD_TIMER_ABSTIME << 1), EINVAL, "flag 2");
	check_errno(timerfd_create(99, 1), EINVAL, "bad clock and flag");
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	check(fcntl(fd, F_GETFD) == FD_CLOEXEC, "TFD_CLOEXEC");
	check(fcntl(fd, F_GETFL) == (O_RDWR | O_NONBLOCK), "TFD_NONBLOCK");
	close(fd);
}

// Root has CAP_WAKE_ALARM; another user has not.
static void t_alarm_clocks(void)
{
	if (getuid() != 0) {
		skip("needs root");
		return;
	}
	int fd = timerfd_create(CLOCK_BOOTTIME_ALARM, TFD_NONBLOCK);
	int rfd = timerfd_create(CLOCK_REALTIME_ALARM, 0);
	check_ok(fd, "BOOTTIME_ALARM as root");
	check_ok(rfd, "REALTIME_ALARM as root");
	arm(fd, 0, 1 * MS, 0);
	sleep_ms(10);
	check(ticks_of(fd) == 1, "it fires as BOOTTIME");
	pid_t pid = fork_child();
	if (pid == 0) {
		struct itimerspec t = its(SEC, 0);
		if (setuid(65534) != 0)
			_exit(1);
		if (timerfd_create(CLOCK_BOOTTIME_ALARM, 0) != -1 || errno != EPERM)
			_exit(2);
		if (timerfd_create(CLOCK_REALTIME_ALARM, 0) != -1 || errno != EPERM)
			_exit(3);
		if (timerfd_settime(fd, 0, &t, NULL) != -1 || errno != EPERM)
			_exit(4);
		if (timerfd_gettime(fd, &t) != 0)
			_exit(5);
		_exit(0);
	}
	check_child_ok(pid, "unprivileged: EPERM to create and to set, gettime works");
	close(fd);
	close(rfd);
}

static void t_oneshot(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec cur;
	uint64_t v;
	char small[4];

	long long t0 = now_ns(CLOCK_MONOTONIC);
	arm(fd, 0, 50 * MS, 0);
	check_errno(read(fd, small, sizeof(small)), EINVAL, "4 bytes: EINVAL");
	check(ticks_of(fd) == 1, "one expiration");
	check(now_ns(CLOCK_MONOTONIC) - t0 >= 50 * MS, "not before 50 ms");
	timerfd_gettime(fd, &cur);
	check(ns_of(&cur.it_value) == 0 && ns_of(&cur.it_interval) == 0, "gettime: disarmed");
	fcntl(fd, F_SETFL, O_NONBLOCK);
	check_errno(read(fd, &v, 8), EAGAIN, "read once only");
	check_errno(syscall(SYS_read, fd, (void *)8, 8), EAGAIN, "EAGAIN before a bad buffer");
	close(fd);
}

static void t_periodic(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	long long t0 = now_ns(CLOCK_MONOTONIC);

	arm(fd, 0, 10 * MS, 10 * MS);
	sleep_ms(105);
	uint64_t n = ticks_of(fd);
	long long elapsed = now_ns(CLOCK_MONOTONIC) - t0;
	check(n >= 10, "at least 10 periods in 105 ms");
	if ((long long)n > elapsed / (10 * MS))
		fail("%llu ticks in %lld ms", (unsigned long long)n, elapsed / MS);
	t0 = now_ns(CLOCK_MONOTONIC);
	check(ticks_of(fd) >= 1, "it goes on");
	check(now_ns(CLOCK_MONOTONIC) - t0 < 5 * SEC, "within a period or so");
	close(fd);
}

static void t_gettime_settime(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec cur, nv = its(3 * SEC, 0), old;

	timerfd_gettime(fd, &cur);
	check(ns_of(&cur.it_value) == 0 && ns_of(&cur.it_interval) == 0, "new: disarmed");
	arm(fd, 0, 10 * SEC, 2 * SEC);
	timerfd_gettime(fd, &cur);
	check(ns_of(&cur.it_value) > 9 * SEC && ns_of(&cur.it_value) <= 10 * SEC, "about 10 s left");
	check(ns_of(&cur.it_interval) == 2 * SEC, "interval 2 s");
	check_ok(timerfd_settime(fd, 0, &nv, &old), "settime with old");
	check(ns_of(&old.it_value) > 9 * SEC && ns_of(&old.it_value) <= 10 * SEC, "old value");
	check(ns_of(&old.it_interval) == 2 * SEC, "old interval");
	nv = its(0, 2 * SEC);
	check_ok(timerfd_settime(fd, 0, &nv, &old), "disarm keeping an interval");
	check(ns_of(&old.it_value) > 2 * SEC && ns_of(&old.it_interval) == 0, "old: the 3 s one");
	timerfd_gettime(fd, &cur);
	check(ns_of(&cur.it_value) == 0 && ns_of(&cur.it_interval) == 2 * SEC,
	      "disarmed, the interval still shown");
	// A fired periodic timer: the old value is the time to its next period.
	arm(fd, 0, 1 * MS, 200 * MS);
	sleep_ms(20);
	nv = its(0, 0);
	timerfd_settime(fd, 0, &nv, &old);
	check(ns_of(&old.it_value) > 0 && ns_of(&old.it_value) <= 200 * MS,
	      "fired periodic: the next period's time");
	close(fd);
}

static void t_abstime(void)
{
	int fd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
	struct pollfd p = { fd, POLLIN, 0 };
	struct timespec now;
	struct itimerspec t;

	clock_gettime(CLOCK_REALTIME, &now);
	t = its(ns_of(&now) - 10 * SEC - 500 * MS, SEC);
	check_ok(timerfd_settime(fd, TFD_TIMER_ABSTIME, &t, NULL), "realtime, 10.5 s ago");
	uint64_t n = ticks_of(fd);
	check(n >= 11 && n <= 12, "every period since counts: 11");
	close(fd);
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	clock_gettime(CLOCK_MONOTONIC, &now);
	t = its(ns_of(&now) + 40 * MS, 0);
	check_ok(timerfd_settime(fd, TFD_TIMER_ABSTIME, &t, NULL), "monotonic, 40 ms ahead");
	check(ticks_of(fd) == 1, "fires");
	check(now_ns(CLOCK_MONOTONIC) >= ns_of(&t.it_value), "not before the time");
	t = its(1, 0);
	check_ok(timerfd_settime(fd, TFD_TIMER_ABSTIME, &t, NULL), "at 1 ns after boot");
	p.fd = fd;
	check(poll(&p, 1, 0) == 1 && p.revents == POLLIN, "expired at once: POLLIN");
	close(fd);
}

static void t_flags_and_values(void)
{
	int fd = timerfd_create(CLOCK_REALTIME, 0);
	struct itimerspec t = its(3600 * SEC, 0);
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	t.it_value.tv_sec += now.tv_sec;
	check_ok(timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &t, NULL),
		 "ABSTIME|CANCEL_ON_SET");
	check_ok(timerfd_settime(fd, TFD_TIMER_CANCEL_ON_SET, &t, NULL), "CANCEL_ON_SET alone");
	check_errno(timerfd_settime(fd, 4, &t, NULL), EINVAL, "flag 4");
	t = its(0, 0);
	t.it_value.tv_nsec = SEC;
	check_errno(timerfd_settime(fd, 0, &t, NULL), EINVAL, "value nsec 1e9");
	t = its(0, 0);
	t.it_interval.tv_sec = -1;
	check_errno(timerfd_settime(fd, 0, &t, NULL), EINVAL, "interval -1 s");
	t = its(0, 0);
	t.it_value.tv_nsec = -1;
	check_errno(timerfd_settime(0x7fff, 0, &t, NULL), EINVAL, "EINVAL before EBADF");
	t = its(0, 0);
	check_errno(timerfd_settime(0x7fff, 0, &t, NULL), EBADF, "closed: EBADF");
	check_errno(timerfd_settime(fd, 0, (void *)8, NULL), EFAULT, "unreadable value");
	t = its(10 * SEC, 0);
	check_errno(timerfd_settime(fd, 0, &t, (void *)8), EFAULT, "unwritable old value");
	struct itimerspec cur;
	timerfd_gettime(fd, &cur);
	check(ns_of(&cur.it_value) > 9 * SEC, "set anyway, as Linux");
	check_errno(timerfd_gettime(fd, (void *)8), EFAULT, "gettime: EFAULT");
	check_errno(timerfd_gettime(0x7fff, &cur), EBADF, "gettime: EBADF");
	int efd = eventfd(0, 0);
	check_errno(timerfd_gettime(efd, &cur), EINVAL, "gettime on an eventfd: EINVAL");
	check_errno(timerfd_settime(efd, 0, &t, NULL), EINVAL, "settime on an eventfd: EINVAL");
	close(efd);
	char c = 0;
	check_errno(write(fd, &c, 1), EINVAL, "write: EINVAL");
	t = its(0x7fffffffffffffffLL / SEC * SEC, 0);
	t.it_value.tv_sec = 0x7fffffffffffffffLL;
	check_ok(timerfd_settime(fd, 0, &t, NULL), "the largest time");
	timerfd_gettime(fd, &cur);
	check(cur.it_value.tv_sec > 9000000000LL, "saturated, not wrapped");
	close(fd);
}

static void t_settime_resets_ticks(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	uint64_t v;

	arm(fd, 0, 1 * MS, 0);
	sleep_ms(10);
	arm(fd, 0, 10 * SEC, 0);
	check_errno(read(fd, &v, 8), EAGAIN, "the expiration before settime is forgotten");
	close(fd);
}

static void *arm_later(void *arg)
{
	sleep_ms(20);
	struct itimerspec t = its(10 * MS, 0);
	timerfd_settime(*(int *)arg, 0, &t, NULL);
	return NULL;
}

static void t_poll(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct pollfd p = { fd, POLLIN | POLLOUT, 0 };
	fd_set rd;
	struct timeval tv = { 5, 0 };
	pthread_t th;

	check(poll(&p, 1, 0) == 0, "unarmed: not ready (never POLLOUT)");
	long long t0 = now_ns(CLOCK_MONOTONIC);
	arm(fd, 0, 30 * MS, 0);
	check(poll(&p, 1, 5000) == 1 && p.revents == POLLIN, "poll woken at expiry");
	check(now_ns(CLOCK_MONOTONIC) - t0 >= 30 * MS, "not before");
	ticks_of(fd);
	FD_ZERO(&rd);
	FD_SET(fd, &rd);
	arm(fd, 0, 20 * MS, 0);
	check(select(fd + 1, &rd, NULL, NULL, &tv) == 1 && FD_ISSET(fd, &rd), "select woken");
	ticks_of(fd);
	// A reader blocked before the timer is armed.
	pthread_create(&th, NULL, arm_later, &fd);
	check(ticks_of(fd) == 1, "a blocked read sees a later settime's expiry");
	pthread_join(th, NULL);
	close(fd);
}

static void on_usr1(int sig) { (void)sig; }

static void t_eintr(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	// no SA_RESTART
	struct poke poke;
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	uint64_t v;

	arm(fd, 0, 60 * SEC, 0);
	sigaction(SIGUSR1, &sa, NULL);
	poke_later(&poke, SIGUSR1);
	check_errno(syscall(SYS_read, fd, &v, 8), EINTR, "blocked read, handled signal: EINTR");
	poke_join(&poke);
	signal(SIGUSR1, SIG_DFL);
	close(fd);
}

static void t_set_ticks(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	uint64_t v = 5, zero = 0;

	if (ioctl(fd, X_TFD_IOC_SET_TICKS, &v) < 0 && errno == ENOTTY) {
		skip("no CONFIG_CHECKPOINT_RESTORE");
		close(fd);
		return;
	}
	check(ticks_of(fd) == 5, "TFD_IOC_SET_TICKS 5: read 5");
	check_errno(ioctl(fd, X_TFD_IOC_SET_TICKS, &zero), EINVAL, "0: EINVAL");
	check_errno(ioctl(fd, X_TFD_IOC_SET_TICKS, (void *)8), EFAULT, "EFAULT");
	check_errno(ioctl(fd, FIONREAD, &v), ENOTTY, "FIONREAD: ENOTTY");
	close(fd);
}

static void t_fork(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	pid_t pid;

	arm(fd, 0, 20 * MS, 0);
	pid = fork_child();
	if (pid == 0) {
		uint64_t v;
		_exit(read(fd, &v, 8) == 8 && v == 1 ? 0 : 1);
	}
	check_child_ok(pid, "the child read the shared timer's expiration");
	fcntl(fd, F_SETFL, O_NONBLOCK);
	uint64_t v;
	check_errno(read(fd, &v, 8), EAGAIN, "gone for the parent");
	close(fd);
}

static void t_proc_view(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	char path[64], buf[512];
	ssize_t n;

	arm(fd, 0, 100 * SEC, 2 * SEC);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	check(strcmp(buf, "anon_inode:[timerfd]") == 0, "fd link anon_inode:[timerfd]");
	check_errno(open(path, O_RDONLY), ENXIO, "reopened: ENXIO");
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	int f = open(path, O_RDONLY);
	n = f >= 0 ? read(f, buf, sizeof(buf) - 1) : -1;
	buf[n > 0 ? n : 0] = 0;
	if (f >= 0)
		close(f);
	check(strstr(buf, "\nclockid: 1\nticks: 0\nsettime flags: 00\nit_value: (99, ") != NULL,
	      "fdinfo clockid, ticks, flags, value");
	check(strstr(buf, "\nit_interval: (2, 0)\n") != NULL, "fdinfo interval");
	check(lseek(fd, 0, SEEK_END) == 0, "lseek 0");
	close(fd);
}

static const struct test_case cases[] = {
	{ "create_clocks_and_flags", t_create },
	{ "alarm_clocks_need_CAP_WAKE_ALARM", t_alarm_clocks },
	{ "oneshot_read", t_oneshot },
	{ "periodic_counts_every_period", t_periodic },
	{ "gettime_and_old_value", t_gettime_settime },
	{ "absolute_times", t_abstime },
	{ "settime_flags_values_errors", t_flags_and_values },
	{ "settime_forgets_ticks", t_settime_resets_ticks },
	{ "poll_select_and_blocked_read_woken", t_poll },
	{ "blocked_read_EINTR", t_eintr },
	{ "ioctl_set_ticks", t_set_ticks },
	{ "shared_across_fork", t_fork },
	{ "proc_fd_and_fdinfo", t_proc_view },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
