// POSIX per-process timers (timer_create, timer_settime, timer_gettime,
// timer_getoverrun, timer_delete), through the raw system calls (ids are
// the kernel's ints) and through libc for SIGEV_THREAD: ids from 0 in a
// fresh process, the NULL sigevent (SIGALRM, the id as value), the
// siginfo (SI_TIMER, si_timerid, si_overrun, si_value) to sigtimedwait, a
// handler and a signalfd, overruns counted while the signal is pending
// and reported by timer_getoverrun, the preallocated signal under
// RLIMIT_SIGPENDING (EAGAIN for another timer, never a lost signal),
// SIGEV_NONE, SIGEV_THREAD_ID (and EINVAL for another process's thread),
// libc's SIGEV_THREAD, TIMER_ABSTIME on CLOCK_REALTIME and
// CLOCK_MONOTONIC, settime's old value and gettime's time left, timers on
// the process and thread CPU-time clocks, not inherited by fork and
// deleted by exec, /proc/self/timers, and Linux's errnos.  Timing checks
// assert lower bounds only.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"

#define MS 1000000L
#define X_SIGEV_THREAD_ID 4

static char *self_exe;

struct ksigevent {
	union sigval value;
	int signo;
	int notify;
	int tid;
	int pad[11];
};

// A CPU clock id as Linux encodes it: ~pid << 3, 4 for a thread, the kind.
static clockid_t cpu_clock(int pid, int bits)
{
	return (clockid_t)(((unsigned)~pid << 3) | (unsigned)bits);
}

static long tcreate(clockid_t clock, const struct ksigevent *ev, int *id)
{
	return syscall(SYS_timer_create, (long)clock, ev, id);
}

static long tset(int id, int flags, long value_ns, long interval_ns, struct itimerspec *old)
{
	struct itimerspec its = {
		{ interval_ns / 1000000000L, interval_ns % 1000000000L },
		{ value_ns / 1000000000L, value_ns % 1000000000L },
	};
	return syscall(SYS_timer_settime, (long)id, (long)flags, &its, old);
}

static long tget(int id, struct itimerspec *cur)
{
	return syscall(SYS_timer_gettime, (long)id, cur);
}

static long toverrun(int id)
{
	return syscall(SYS_timer_getoverrun, (long)id);
}

static long tdelete(int id)
{
	return syscall(SYS_timer_delete, (long)id);
}

static struct ksigevent sigev(int notify, int signo, long value)
{
	struct ksigevent ev;

	memset(&ev, 0, sizeof(ev));
	ev.notify = notify;
	ev.signo = signo;
	ev.value.sival_ptr = (void *)value;
	return ev;
}

static sigset_t only(int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return set;
}

static long ns_of(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000L + ts->tv_nsec;
}

static long now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ns_of(&ts);
}

// Waits (up to 10 s) for sig, blocked by the caller: the signal or -1.
static int wait_for(int sig, siginfo_t *si)
{
	sigset_t set = only(sig);
	struct timespec ts = { 10, 0 };

	return sigtimedwait(&set, si, &ts);
}

// ---- ids, the NULL sigevent ----

static void t_ids_from_zero(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		struct ksigevent ev = sigev(SIGEV_NONE, 0, 0);
		int a = -1, b = -1, c = -1;

		if (tcreate(CLOCK_MONOTONIC, &ev, &a) != 0 || a != 0)
			_exit(1);
		if (tcreate(CLOCK_MONOTONIC, &ev, &b) != 0 || b != 1)
			_exit(2);
		if (tdelete(a) != 0 || tdelete(a) != -1 || errno != EINVAL)
			_exit(3);
		if (tcreate(CLOCK_MONOTONIC, &ev, &c) != 0 || c != 2)
			_exit(4);	// not the freed 0 again
		_exit(0);
	}
	check_child_ok(pid, "0, 1, then 2 after deleting 0");
}

static void t_null_sigevent(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		sigset_t set = only(SIGALRM);
		siginfo_t si;
		int id = -1;
		long t0;

		sigprocmask(SIG_BLOCK, &set, NULL);
		if (tcreate(CLOCK_MONOTONIC, NULL, &id) != 0)
			_exit(1);
		t0 = now_mono();
		if (tset(id, 0, 20 * MS, 0, NULL) != 0)
			_exit(2);
		if (wait_for(SIGALRM, &si) != SIGALRM)
			_exit(3);
		if (now_mono() - t0 < 19 * MS)
			_exit(4);
		if (si.si_code != SI_TIMER || si.si_timerid != id || si.si_value.sival_int != id ||
		    si.si_overrun != 0)
			_exit(5);
		_exit(0);
	}
	check_child_ok(pid, "SIGALRM with SI_TIMER, the id as value, not early");
}

// ---- the siginfo ----

static void t_siginfo_sigtimedwait(void)
{
	int sig = SIGRTMIN + 1, id = -1;
	struct ksigevent ev = sigev(SIGEV_SIGNAL, sig, 0x12345678abcL);
	sigset_t set = only(sig);
	siginfo_t si;

	sigprocmask(SIG_BLOCK, &set, NULL);
	if (!check_ok(tcreate(CLOCK_MONOTONIC, &ev, &id), "create"))
		goto out;
	long t0 = now_mono();
	check_ok(tset(id, 0, 30 * MS, 0, NULL), "settime 30 ms");
	check(wait_for(sig, &si) == sig, "signal");
	check(now_mono() - t0 >= 29 * MS, "not early");
	check(si.si_code == SI_TIMER, "SI_TIMER");
	check(si.si_timerid == id, "si_timerid");
	check(si.si_value.sival_ptr == (void *)0x12345678abcL, "si_value");
	check(si.si_overrun == 0, "si_overrun 0");
	check(toverrun(id) == 0, "getoverrun 0");
	struct itimerspec cur;
	check_ok(tget(id, &cur), "gettime");
	check(ns_of(&cur.it_value) == 0 && ns_of(&cur.it_interval) == 0, "fired: disarmed");
	check_ok(tdelete(id), "delete");
out:
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static volatile sig_atomic_t h_count, h_code, h_tid, h_int;

static void handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	h_count++;
	h_code = si->si_code;
	h_tid = si->si_timerid;
	h_int = si->si_value.sival_int;
}

static void t_siginfo_handler(void)
{
	int sig = SIGRTMIN + 2, id = -1;
	struct ksigevent ev = sigev(SIGEV_SIGNAL, sig, 77);
	struct sigaction sa = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO }, old;
	sigset_t set = only(sig), none;

	sigemptyset(&none);
	sigaction(sig, &sa, &old);
	sigprocmask(SIG_BLOCK, &set, NULL);
	h_count = 0;
	if (check_ok(tcreate(CLOCK_MONOTONIC, &ev, &id), "create")) {
		check_ok(tset(id, 0, 5 * MS, 0, NULL), "settime");
		while (!h_count)
			sigsuspend(&none);
		check(h_code == SI_TIMER && h_tid == id && h_int == 77, "handler's siginfo");
		tdelete(id);
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	sigaction(sig, &old, NULL);
}

static void t_siginfo_signalfd(void)
{
	int sig = SIGRTMIN + 3, id = -1;
	struct ksigevent ev = sigev(SIGEV_SIGNAL, sig, 4242);
	sigset_t set = only(sig);
	struct signalfd_siginfo ssi;

	sigprocmask(SIG_BLOCK, &set, NULL);
	int fd = signalfd(-1, &set, 0);
	if (check_ok(fd, "signalfd") && check_ok(tcreate(CLOCK_MONOTONIC, &ev, &id), "create")) {
		check_ok(tset(id, 0, 5 * MS, 5 * MS, NULL), "periodic 5 ms");
		check(read(fd, &ssi, sizeof(ssi)) == sizeof(ssi), "read");
		check(ssi.ssi_signo == (uint32_t)sig && ssi.ssi_code == SI_TIMER &&
		      ssi.ssi_tid == (uint32_t)id && ssi.ssi_int == 4242,
		      "ssi_code, ssi_tid, ssi_int");
		// Taken through the signalfd, the periodic timer runs again.
		check(read(fd, &ssi, sizeof(ssi)) == sizeof(ssi) && ssi.ssi_tid == (uint32_t)id,
		      "a second period");
		tdelete(id);
	}
	if (fd >= 0)
		close(fd);
	sigtimedwait(&set, NULL, &(struct timespec){ 0, 0 });
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

// ---- overruns ----

static void t_overrun(void)
{
	int sig = SIGRTMIN + 4, id = -1;
	struct ksigevent ev = sigev(SIGEV_SIGNAL, sig, 0);
	sigset_t set = only(sig);
	struct timespec zero = { 0, 0 };
	siginfo_t si;

	sigprocmask(SIG_BLOCK, &set, NULL);
	if (!check_ok(tcreate(CLOCK_MONOTONIC, &ev, &id), "create"))
		goto out;
	long t0 = now_mono();
	check_ok(tset(id, 0, 5 * MS, 5 * MS, NULL), "periodic 5 ms");
	usleep(100 * 1000);
	long periods = (now_mono() - t0) / (5 * MS);
	check(wait_for(sig, &si) == sig, "one signal");
	// 20 periods in 100 ms: one signal, the rest overruns (at least the
	// periods of the 100 ms, less the first and a tick's worth).
	check(si.si_overrun >= 15 && si.si_overrun <= periods, "si_overrun counts the periods");
	check(toverrun(id) == si.si_overrun, "getoverrun = si_overrun");
	// The next period is a new signal with its own count.
	check(wait_for(sig, &si) == sig, "next period");
	check(toverrun(id) == si.si_overrun, "getoverrun follows the last delivery");
	check_ok(tset(id, 0, 0, 0, NULL), "disarm");
	sigtimedwait(&set, NULL, &zero);
	check_ok(tdelete(id), "delete");
out:
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

// The signal is queued once: 25 periods of one timer while its signal
// is blocked give one instance (a rearm after it is taken may add one
// more), and another timer's signal of the same number is its own.
static void t_one_pending_instance(void)
{
	int sig = SIGRTMIN + 5, a = -1, b = -1, got = 0, of_a = 0;
	struct ksigevent ea = sigev(SIGEV_SIGNAL, sig, 1), eb = sigev(SIGEV_SIGNAL, sig, 2);
	sigset_t set = only(sig);
	struct timespec zero = { 0, 0 };
	siginfo_t si;

	sigprocmask(SIG_BLOCK, &set, NULL);
	if (check_ok(tcreate(CLOCK_MONOTONIC, &ea, &a), "create a") &&
	    check_ok(tcreate(CLOCK_MONOTONIC, &eb, &b), "create b")) {
		tset(a, 0, 2 * MS, 2 * MS, NULL);
		tset(b, 0, 2 * MS, 0, NULL);
		usleep(50 * 1000);
		while (sigtimedwait(&set, &si, &zero) == sig) {
			got |= si.si_value.sival_int;
			of_a += si.si_value.sival_int == 1;
		}
		check(got == 3, "a signal of each timer");
		check(of_a >= 1 && of_a <= 3, "the periodic one queued once, not per period");
	}
	tdelete(a);
	tdelete(b);
	// A signal taken off before the delete is the last one (Linux 6.1
	// keeps a pending one queued past the delete, later ones drop it).
	sigtimedwait(&set, NULL, &zero);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

// ---- RLIMIT_SIGPENDING ----

static long sigq_count(void)
{
	char buf[4096], *p;
	int fd = open("/proc/self/status", O_RDONLY);
	long n = -1;

	if (fd < 0)
		return -1;
	ssize_t len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = 0;
	p = strstr(buf, "SigQ:");
	if (p)
		n = strtol(p + 5, NULL, 10);
	return n;
}

static void t_rlimit_sigpending(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		int sig = SIGRTMIN + 6, a = -1, b = -1;
		struct ksigevent ev = sigev(SIGEV_SIGNAL, sig, 9);
		sigset_t set = only(sig);
		siginfo_t si;
		long before = sigq_count();

		if (before < 0)
			_exit(1);
		struct rlimit rl = { before + 1, before + 1 };
		sigprocmask(SIG_BLOCK, &set, NULL);
		if (setrlimit(RLIMIT_SIGPENDING, &rl) != 0)
			_exit(2);
		if (tcreate(CLOCK_MONOTONIC, &ev, &a) != 0)
			_exit(3);
		if (sigq_count() != before + 1)
			_exit(4);	// the timer's signal is counted from creation
		if (tcreate(CLOCK_MONOTONIC, &ev, &b) != -1 || errno != EAGAIN)
			_exit(5);
		if (sigqueue(getpid(), sig, (union sigval){ 0 }) != -1 || errno != EAGAIN)
			_exit(6);
		if (tset(a, 0, 2 * MS, 0, NULL) != 0)
			_exit(7);
		if (wait_for(sig, &si) != sig || si.si_code != SI_TIMER || si.si_value.sival_int != 9)
			_exit(8);	// queued anyway
		if (tdelete(a) != 0 || sigq_count() != before)
			_exit(9);
		_exit(0);
	}
	check_child_ok(pid, "counted at create, EAGAIN for more, delivered at the limit");
}

// ---- SIGEV_NONE ----

static void t_sigev_none(void)
{
	struct ksigevent ev = sigev(SIGEV_NONE, 0, 0);
	struct itimerspec cur;
	int id = -1, p = -1;

	if (!check_ok(tcreate(CLOCK_MONOTONIC, &ev, &id), "create"))
		return;
	check_ok(tset(id, 0, 40 * MS, 0, NULL), "settime 40 ms");
	check_ok(tget(id, &cur), "gettime");
	check(ns_of(&cur.it_value) > 0 && ns_of(&cur.it_value) <= 40 * MS, "time left");
	usleep(50 * 1000);
	check_ok(tget(id, &cur), "gettime after");
	check(ns_of(&cur.it_value) == 0, "expired: 0 left");
	check_ok(tdelete(id), "delete");
	if (check_ok(tcreate(CLOCK_MONOTONIC, &ev, &p), "create periodic")) {
		tset(p, 0, 10 * MS, 10 * MS, NULL);
		usleep(35 * 1000);
		check_ok(tget(p, &cur), "gettime");
		check(ns_of(&cur.it_value) > 0 && ns_of(&cur.it_value) <= 10 * MS &&
		      ns_of(&cur.it_interval) == 10 * MS, "periodic: within the next period");
		tdelete(p);
	}
}

// ---- SIGEV_THREAD_ID ----

static int thread_sig;
static volatile int thread_tid, thread_got, thread_timerid = -1;

static void *thread_waiter(void *arg)
{
	siginfo_t si;

	(void)arg;
	thread_tid = (int)syscall(SYS_gettid);
	if (wait_for(thread_sig, &si) == thread_sig && si.si_code == SI_TIMER) {
		thread_timerid = si.si_timerid;
		thread_got = 1;
	}
	return NULL;
}

static void t_sigev_thread_id(void)
{
	int sig = SIGRTMIN + 7, id = -1;
	sigset_t set = only(sig);
	pthread_t th;

	thread_sig = sig;
	thread_tid = 0;
	thread_got = 0;
	sigprocmask(SIG_BLOCK, &set, NULL);	// the thread inherits it
	pthread_create(&th, NULL, thread_waiter, NULL);
	while (!thread_tid)
		usleep(1000);
	struct ksigevent ev = sigev(X_SIGEV_THREAD_ID, sig, 0);
	ev.tid = thread_tid;
	if (check_ok(tcreate(CLOCK_MONOTONIC, &ev, &id), "create for the thread")) {
		check_ok(tset(id, 0, 5 * MS, 0, NULL), "settime");
		pthread_join(th, NULL);
		check(thread_got && thread_timerid == id, "the thread took it");
		sigset_t pend;
		sigpending(&pend);
		check(!sigismember(&pend, sig), "not pending for the main thread");
		// The thread is gone: its timer's signals go nowhere.
		check_ok(tset(id, 0, 2 * MS, 2 * MS, NULL), "settime after the thread ended");
		usleep(20 * 1000);
		sigpending(&pend);
		check(!sigismember(&pend, sig), "nothing for the process");
		tdelete(id);
	} else {
		pthread_kill(th, sig);
		pthread_join(th, NULL);
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);

	// Another process's thread, or no thread: EINVAL.
	ev.tid = getppid();
	check_errno(tcreate(CLOCK_MONOTONIC, &ev, &id), EINVAL, "another process's thread");
	ev.tid = 0;
	check_errno(tcreate(CLOCK_MONOTONIC, &ev, &id), EINVAL, "tid 0");
	ev.tid = (int)syscall(SYS_gettid);
	ev.signo = 0;
	check_errno(tcreate(CLOCK_MONOTONIC, &ev, &id), EINVAL, "signal 0");
}

// ---- libc's SIGEV_THREAD ----

static volatile int notified;
static pthread_mutex_t n_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t n_cond = PTHREAD_COND_INITIALIZER;

static void notify_fn(union sigval v)
{
	pthread_mutex_lock(&n_lock);
	notified = v.sival_int;
	pthread_cond_signal(&n_cond);
	pthread_mutex_unlock(&n_lock);
}

static void t_libc_sigev_thread(void)
{
	struct sigevent sev;
	timer_t t;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD;
	sev.sigev_notify_function = notify_fn;
	sev.sigev_value.sival_int = 31;
	notified = 0;
	if (!check_ok(timer_create(CLOCK_MONOTONIC, &sev, &t), "timer_create(SIGEV_THREAD)"))
		return;
	struct itimerspec its = { { 0, 0 }, { 0, 10 * MS } };
	check_ok(timer_settime(t, 0, &its, NULL), "timer_settime");
	pthread_mutex_lock(&n_lock);
	while (!notified)
		pthread_cond_wait(&n_cond, &n_lock);
	pthread_mutex_unlock(&n_lock);
	check(notified == 31, "the function ran with the value");
	check_ok(timer_delete(t), "timer_delete");
}

// ---- absolute times, settime's old value, gettime ----

static void t_abstime(void)
{
	int sig = SIGRTMIN + 8, id = -1, m = -1;
	struct ksigevent ev = sigev(SIGEV_SIGNAL, sig, 0);
	sigset_t set = only(sig);
	struct timespec rt;
	siginfo_t si;

	sigprocmask(SIG_BLOCK, &set, NULL);
	if (check_ok(tcreate(CLOCK_MONOTONIC, &ev, &m), "create MONOTONIC")) {
		long t0 = now_mono();
		check_ok(tset(m, TIMER_ABSTIME, t0 + 30 * MS, 0, NULL), "absolute +30 ms");
		check(wait_for(sig, &si) == sig && si.si_timerid == m, "fired");
		check(now_mono() - t0 >= 29 * MS, "not before its time");
		tdelete(m);
	}
	if (check_ok(tcreate(CLOCK_REALTIME, &ev, &id), "create REALTIME")) {
		// 10.5 s ago with a 1 s period: due at once, 10 periods missed.
		clock_gettime(CLOCK_REALTIME, &rt);
		check_ok(tset(id, TIMER_ABSTIME, ns_of(&rt) - 10500 * MS, 1000 * MS, NULL),
			 "10.5 s ago, 1 s period");
		check(wait_for(sig, &si) == sig && si.si_timerid == id, "fired at once");
		check(si.si_overrun == 10, "10 overruns");
		check(toverrun(id) == 10, "getoverrun 10");
		tdelete(id);
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void t_settime_old_gettime(void)
{
	struct ksigevent ev = sigev(SIGEV_SIGNAL, SIGRTMIN + 9, 0);
	struct itimerspec old, cur;
	int id = -1;

	if (!check_ok(tcreate(CLOCK_MONOTONIC, &ev, &id), "create"))
		return;
	check_ok(tget(id, &cur), "gettime unarmed");
	check(ns_of(&cur.it_value) == 0 && ns_of(&cur.it_interval) == 0, "unarmed: zeros");
	check_ok(tset(id, 0, 10000 * MS, 3000 * MS, &old), "settime 10 s / 3 s");
	check(ns_of(&old.it_value) == 0 && ns_of(&old.it_interval) == 0, "old: unarmed");
	check_ok(tget(id, &cur), "gettime");
	check(ns_of(&cur.it_value) > 9000 * MS && ns_of(&cur.it_value) <= 10000 * MS,
	      "time left");
	check(ns_of(&cur.it_interval) == 3000 * MS, "interval");
	check_ok(tset(id, 0, 0, 0, &old), "disarm");
	check(ns_of(&old.it_value) > 9000 * MS && ns_of(&old.it_value) <= 10000 * MS &&
	      ns_of(&old.it_interval) == 3000 * MS, "old value");
	check_ok(tget(id, &cur), "gettime disarmed");
	check(ns_of(&cur.it_value) == 0 && ns_of(&cur.it_interval) == 0, "disarmed: zeros");
	// Unknown flag bits are ignored, as Linux; the old value still
	// written to a bad address is EFAULT after setting.
	check_ok(tset(id, 0x100, 5000 * MS, 0, NULL), "unknown flags ignored");
	check_errno(tset(id, 0, 6000 * MS, 0, (struct itimerspec *)1), EFAULT, "bad old pointer");
	check_ok(tget(id, &cur), "gettime");
	check(ns_of(&cur.it_value) > 5000 * MS, "set even so");
	tdelete(id);
}

// ---- CPU-time clocks ----

static volatile sig_atomic_t cpu_fired;

static void cpu_handler(int sig)
{
	(void)sig;
	cpu_fired = 1;
}

static long cpu_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ns_of(&ts);
}

static void cpu_case(clockid_t clock, const char *what)
{
	int sig = SIGRTMIN + 10, id = -1;
	struct ksigevent ev = sigev(SIGEV_SIGNAL, sig, 0);
	struct sigaction sa = { .sa_handler = cpu_handler }, old;

	sigaction(sig, &sa, &old);
	cpu_fired = 0;
	if (check_ok(tcreate(clock, &ev, &id), what)) {
		long start = cpu_ns(clock), t0 = now_mono();
		check_ok(tset(id, 0, 50 * MS, 0, NULL), "settime 50 ms of CPU time");
		while (!cpu_fired && now_mono() - t0 < 20000 * MS)
			;
		check(cpu_fired, "fired while spinning");
		check(cpu_ns(clock) - start >= 49 * MS, "after 50 ms of CPU time");
		tdelete(id);
	}
	sigaction(sig, &old, NULL);
}

static void t_cpu_process(void)
{
	cpu_case(CLOCK_PROCESS_CPUTIME_ID, "CLOCK_PROCESS_CPUTIME_ID");
}

static void t_cpu_thread(void)
{
	cpu_case(CLOCK_THREAD_CPUTIME_ID, "CLOCK_THREAD_CPUTIME_ID");
}

// Another process's CPU clock: the signal comes to the timer's owner.
static void t_other_process_clock(void)
{
	int sig = SIGRTMIN + 12, id = -1;
	struct ksigevent ev = sigev(SIGEV_SIGNAL, sig, 5);
	sigset_t set = only(sig);
	siginfo_t si;
	pid_t child = fork_child();

	if (child == 0) {
		for (;;)
			;
	}
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (check_ok(tcreate(cpu_clock(child, 2), &ev, &id), "the child's clock")) {
		check_ok(tset(id, 0, 30 * MS, 0, NULL), "30 ms of the child's time");
		check(wait_for(sig, &si) == sig && si.si_timerid == id, "fired for us");
		struct timespec ts;
		check_ok(clock_gettime(cpu_clock(child, 2), &ts), "read its clock");
		check(ns_of(&ts) >= 29 * MS, "after 30 ms of its time");
		tdelete(id);
	}
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	kill(child, SIGKILL);
	reap(child);
}

// A periodic timer whose signal is ignored runs on; once the signal is
// blocked and no longer ignored, it is queued again.
static void t_ignored_runs_on(void)
{
	int sig = SIGRTMIN + 13, id = -1;
	struct ksigevent ev = sigev(SIGEV_SIGNAL, sig, 0);
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigset_t set = only(sig), pend;
	siginfo_t si;

	sigaction(sig, &ign, &old);
	if (check_ok(tcreate(CLOCK_MONOTONIC, &ev, &id), "create")) {
		check_ok(tset(id, 0, 5 * MS, 5 * MS, NULL), "periodic 5 ms");
		usleep(30 * 1000);
		sigpending(&pend);
		check(!sigismember(&pend, sig), "ignored: nothing pending");
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigprocmask(SIG_BLOCK, &set, NULL);
		sigaction(sig, &dfl, NULL);
		check(wait_for(sig, &si) == sig && si.si_timerid == id, "no longer ignored: delivered");
		tset(id, 0, 0, 0, NULL);
		tdelete(id);
		sigtimedwait(&set, NULL, &(struct timespec){ 0, 0 });
		sigprocmask(SIG_UNBLOCK, &set, NULL);
	}
	sigaction(sig, &old, NULL);
}

static void t_cpu_clock_ids(void)
{
	struct ksigevent ev = sigev(SIGEV_NONE, 0, 0);
	clockid_t c;
	int id = -1;

	check_ok(clock_getcpuclockid(getpid(), &c), "clock_getcpuclockid");
	check_ok(tcreate(c, &ev, &id), "the process's clock by id");
	tdelete(id);
	check_ok(pthread_getcpuclockid(pthread_self(), &c), "pthread_getcpuclockid");
	check_ok(tcreate(c, &ev, &id), "the thread's clock by id");
	tdelete(id);
	pid_t child = fork_child();
	if (child == 0)
		_exit(0);
	reap(child);
	check_errno(tcreate(cpu_clock(child, 2), &ev, &id), EINVAL, "a gone process");
	check_errno(tcreate(cpu_clock(getppid(), 4 | 2), &ev, &id), EINVAL,
		    "another process's thread");
	check_errno(tcreate(cpu_clock(0, 4 | 3), &ev, &id), EINVAL, "kind 3 of a thread");
	check_errno(tcreate(cpu_clock(0, 3), &ev, &id), EOPNOTSUPP, "a clock fd id");
}

// ---- fork, exec ----

static void t_fork_exec(void)
{
	struct ksigevent ev = sigev(SIGEV_NONE, 0, 0);
	int id = -1;

	if (!check_ok(tcreate(CLOCK_MONOTONIC, &ev, &id), "create"))
		return;
	tset(id, 0, 10000 * MS, 0, NULL);
	pid_t pid = fork_child();
	if (pid == 0) {
		struct itimerspec cur;
		int nid = -1;

		if (tget(id, &cur) != -1 || errno != EINVAL)
			_exit(1);
		if (tcreate(CLOCK_MONOTONIC, &ev, &nid) != 0 || nid != 0)
			_exit(2);
		_exit(0);
	}
	check_child_ok(pid, "not inherited by fork; the child's ids start at 0");
	pid = fork_child();
	if (pid == 0) {
		int a = -1;
		char arg[16];

		if (tcreate(CLOCK_MONOTONIC, &ev, &a) != 0 || a != 0)
			_exit(1);
		tset(a, 0, 10000 * MS, 0, NULL);
		snprintf(arg, sizeof(arg), "%d", a);
		execl(self_exe, self_exe, "--after-exec", arg, (char *)NULL);
		_exit(2);
	}
	check_child_ok(pid, "deleted by exec");
	tdelete(id);
}

static int after_exec(const char *arg)
{
	struct itimerspec cur;

	if (tget(atoi(arg), &cur) != -1 || errno != EINVAL)
		return 3;
	return 0;
}

// ---- /proc/self/timers ----

static void t_proc_timers(void)
{
	struct ksigevent ev = sigev(SIGEV_SIGNAL, SIGRTMIN + 11, 0x1234);
	struct ksigevent none = sigev(SIGEV_NONE, 0, 0);
	char buf[4096], want[256];
	int a = -1, b = -1;

	int fd = open("/proc/self/timers", O_RDONLY);
	if (fd < 0) {
		skip("no /proc/self/timers (CONFIG_CHECKPOINT_RESTORE)");
		return;
	}
	close(fd);
	if (!check_ok(tcreate(CLOCK_MONOTONIC, &ev, &a), "create") ||
	    !check_ok(tcreate(CLOCK_BOOTTIME, &none, &b), "create none"))
		goto out;
	fd = open("/proc/self/timers", O_RDONLY);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	snprintf(want, sizeof(want), "ID: %d\nsignal: %d/0000000000001234\nnotify: signal/pid.%d\nClockID: 1\n",
		 a, SIGRTMIN + 11, getpid());
	check(strstr(buf, want) != NULL, "the signal timer's lines");
	snprintf(want, sizeof(want), "ID: %d\nsignal: 0/0000000000000000\nnotify: none/pid.%d\nClockID: 7\n",
		 b, getpid());
	check(strstr(buf, want) != NULL, "the SIGEV_NONE timer's lines");
out:
	tdelete(a);
	tdelete(b);
}

// ---- errnos ----

static void t_errnos(void)
{
	struct ksigevent ev = sigev(SIGEV_SIGNAL, SIGRTMIN, 0);
	struct itimerspec its = { { 0, 0 }, { 1, 0 } }, cur;
	int id = -1;

	check_errno(tcreate(10, &ev, &id), EINVAL, "clock 10");
	check_errno(tcreate(100, &ev, &id), EINVAL, "clock 100");
	check_errno(tcreate(CLOCK_MONOTONIC_RAW, &ev, &id), EOPNOTSUPP, "CLOCK_MONOTONIC_RAW");
	check_errno(tcreate(CLOCK_REALTIME_COARSE, &ev, &id), EOPNOTSUPP, "CLOCK_REALTIME_COARSE");
	check_errno(tcreate(CLOCK_MONOTONIC_COARSE, &ev, &id), EOPNOTSUPP, "CLOCK_MONOTONIC_COARSE");
	check_errno(tcreate(CLOCK_MONOTONIC, (void *)1, &id), EFAULT, "sigevent EFAULT");
	check_errno(tcreate(10, (void *)1, &id), EFAULT, "sigevent EFAULT before the clock");
	ev.notify = 99;
	check_errno(tcreate(CLOCK_MONOTONIC, &ev, &id), EINVAL, "unknown notify");
	ev.notify = SIGEV_SIGNAL;
	ev.signo = 65;
	check_errno(tcreate(CLOCK_MONOTONIC, &ev, &id), EINVAL, "signal 65");
	ev.signo = 0;
	check_errno(tcreate(CLOCK_MONOTONIC, &ev, &id), EINVAL, "signal 0");
	ev.signo = SIGRTMIN;
	check_errno(tcreate(CLOCK_MONOTONIC, &ev, (int *)1), EFAULT, "id EFAULT");
	check_errno(syscall(SYS_timer_settime, 12345L, 0L, &its, NULL), EINVAL, "settime no timer");
	check_errno(tget(12345, &cur), EINVAL, "gettime no timer");
	check_errno(toverrun(12345), EINVAL, "getoverrun no timer");
	check_errno(tdelete(12345), EINVAL, "delete no timer");
	if (!check_ok(tcreate(CLOCK_MONOTONIC, &ev, &id), "create"))
		return;
	check_errno(syscall(SYS_timer_settime, (long)id, 0L, NULL, NULL), EINVAL, "settime NULL");
	check_errno(syscall(SYS_timer_settime, (long)id, 0L, (void *)1, NULL), EFAULT,
		    "settime EFAULT");
	its.it_value.tv_nsec = 1000000000L;
	check_errno(syscall(SYS_timer_settime, (long)id, 0L, &its, NULL), EINVAL, "nsec 10^9");
	its.it_value.tv_nsec = 0;
	its.it_interval.tv_sec = -1;
	check_errno(syscall(SYS_timer_settime, (long)id, 0L, &its, NULL), EINVAL, "negative interval");
	check_errno(tget(id, (void *)1), EFAULT, "gettime EFAULT");
	check_ok(tdelete(id), "delete");
}

// The _ALARM clocks: root has CAP_WAKE_ALARM, another user has not.
static void t_alarm_clocks(void)
{
	struct ksigevent ev = sigev(SIGEV_NONE, 0, 0);
	int id = -1;

	if (getuid() != 0) {
		skip("needs root");
		return;
	}
	long rc = tcreate(CLOCK_BOOTTIME_ALARM, &ev, &id);
	if (rc != 0 && errno == EOPNOTSUPP) {
		skip("no RTC for alarm timers on this host");
		return;
	}
	check_ok(rc, "BOOTTIME_ALARM as root");
	tdelete(id);
	pid_t pid = fork_child();
	if (pid == 0) {
		if (setuid(65534) != 0)
			_exit(1);
		if (tcreate(CLOCK_BOOTTIME_ALARM, &ev, &id) != -1 || errno != EPERM)
			_exit(2);
		if (tcreate(CLOCK_REALTIME_ALARM, &ev, &id) != -1 || errno != EPERM)
			_exit(3);
		_exit(0);
	}
	check_child_ok(pid, "EPERM without CAP_WAKE_ALARM");
}

static const struct test_case cases[] = {
	{ "ids_from_zero_not_reused", t_ids_from_zero },
	{ "null_sigevent_sigalrm", t_null_sigevent },
	{ "siginfo_sigtimedwait", t_siginfo_sigtimedwait },
	{ "siginfo_handler", t_siginfo_handler },
	{ "siginfo_signalfd", t_siginfo_signalfd },
	{ "overrun_while_pending", t_overrun },
	{ "one_pending_instance_per_timer", t_one_pending_instance },
	{ "rlimit_sigpending_preallocated", t_rlimit_sigpending },
	{ "sigev_none", t_sigev_none },
	{ "sigev_thread_id", t_sigev_thread_id },
	{ "libc_sigev_thread", t_libc_sigev_thread },
	{ "abstime_realtime_monotonic", t_abstime },
	{ "settime_old_value_gettime", t_settime_old_gettime },
	{ "cpu_process_clock", t_cpu_process },
	{ "cpu_thread_clock", t_cpu_thread },
	{ "cpu_clock_ids", t_cpu_clock_ids },
	{ "another_process_cpu_clock", t_other_process_clock },
	{ "ignored_signal_timer_runs_on", t_ignored_runs_on },
	{ "fork_exec", t_fork_exec },
	{ "proc_self_timers", t_proc_timers },
	{ "errnos", t_errnos },
	{ "alarm_clocks_need_CAP_WAKE_ALARM", t_alarm_clocks },
};

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--after-exec") == 0)
		return after_exec(argv[2]);
	self_exe = "/proc/self/exe";
	run_cases(cases, (int)(sizeof(cases) / sizeof(cases[0])));
	return ktap_finish();
}
