// RLIMIT_SIGPENDING: queued real-time signals are counted per user
// against the receiver's limit.  Past it sigqueue and tgkill fail with
// EAGAIN (LTP tgkill02), kill() still makes the signal pending (without
// its data), taking a signal makes room again, and /proc/self/status
// shows the count in SigQ.  Each case runs in a child as its own user,
// so that other processes' queued signals do not count.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"

#define U_SIGQ 3456	// a user no other test runs as

static int set_limit(rlim_t n)
{
	struct rlimit rl = { n, n };

	return setrlimit(RLIMIT_SIGPENDING, &rl);
}

static int queue(int sig, int value)
{
	union sigval v = { .sival_int = value };

	return sigqueue(getpid(), sig, v);
}

static int take(int sig, siginfo_t *si)
{
	sigset_t set;
	struct timespec zero = { 0, 0 };

	sigemptyset(&set);
	sigaddset(&set, sig);
	return sigtimedwait(&set, si, &zero);
}

// "SigQ:\tN/LIMIT" of this process: N, or -1.
static long sigq_count(void)
{
	char buf[4096], *p;
	FILE *f = fopen("/proc/self/status", "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strstr(buf, "SigQ:\t");
	return p ? strtol(p + 6, NULL, 10) : -1;
}

static int block_rt(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigaddset(&set, SIGRTMIN + 1);
	return sigprocmask(SIG_BLOCK, &set, NULL);
}

static int c_limit_two(void)
{
	siginfo_t si;

	if (drop_to(U_SIGQ, U_SIGQ, 0, NULL) || c_ok(block_rt(), "block") ||
	    c_ok(set_limit(2), "RLIMIT_SIGPENDING 2"))
		return 1;
	if (c_ok(queue(SIGRTMIN, 1), "first") || c_ok(queue(SIGRTMIN + 1, 2), "second") ||
	    c_err(queue(SIGRTMIN, 3), EAGAIN, "third past the limit") ||
	    c_err(syscall(SYS_tgkill, getpid(), gettid(), SIGRTMIN), EAGAIN, "tgkill past the limit"))
		return 1;
	if (c_eq(sigq_count(), 2, "SigQ shows 2"))
		return 1;
	// Taking one makes room for one.
	if (c_eq(take(SIGRTMIN, &si), SIGRTMIN, "take the first") ||
	    c_eq(si.si_value.sival_int, 1, "its data") ||
	    c_ok(queue(SIGRTMIN, 4), "room again") ||
	    c_err(queue(SIGRTMIN, 5), EAGAIN, "full again"))
		return 1;
	if (c_eq(take(SIGRTMIN + 1, &si), SIGRTMIN + 1, "take the second") ||
	    c_eq(take(SIGRTMIN, &si), SIGRTMIN, "take the third") ||
	    c_eq(si.si_value.sival_int, 4, "the third's data"))
		return 1;
	return c_eq(sigq_count(), 0, "SigQ back to 0");
}
static void t_limit_two(void) { in_child(c_limit_two, "limit 2"); }

// With the limit at 0 (LTP tgkill02), a kill() still makes the signal
// pending: it arrives once, without data.
static int c_limit_zero(void)
{
	siginfo_t si;

	if (drop_to(U_SIGQ, U_SIGQ, 0, NULL) || c_ok(block_rt(), "block") ||
	    c_ok(set_limit(0), "RLIMIT_SIGPENDING 0"))
		return 1;
	if (c_err(syscall(SYS_tgkill, getpid(), gettid(), SIGRTMIN), EAGAIN, "tgkill") ||
	    c_err(queue(SIGRTMIN, 1), EAGAIN, "sigqueue"))
		return 1;
	if (c_ok(kill(getpid(), SIGRTMIN), "kill() is not refused") ||
	    c_eq(take(SIGRTMIN, &si), SIGRTMIN, "the killed signal is pending") ||
	    c_eq(si.si_code, SI_USER, "as sent by kill"))
		return 1;
	return c_err(take(SIGRTMIN, &si), EAGAIN, "once");
}
static void t_limit_zero(void) { in_child(c_limit_zero, "limit 0"); }

// Standard signals are not refused whatever the limit.
static int c_standard(void)
{
	siginfo_t si;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (drop_to(U_SIGQ, U_SIGQ, 0, NULL) || c_ok(sigprocmask(SIG_BLOCK, &set, NULL), "block") ||
	    c_ok(set_limit(0), "RLIMIT_SIGPENDING 0"))
		return 1;
	if (c_ok(queue(SIGUSR1, 7), "sigqueue SIGUSR1") ||
	    c_eq(take(SIGUSR1, &si), SIGUSR1, "taken"))
		return 1;
	return 0;
}
static void t_standard(void) { in_child(c_standard, "standard signals"); }

static void t_default_limit(void)
{
	struct rlimit rl;

	check_ok(getrlimit(RLIMIT_SIGPENDING, &rl), "getrlimit");
	check(rl.rlim_cur > 0 && rl.rlim_cur != RLIM_INFINITY, "a finite default, as Linux's");
	check(rl.rlim_cur == rl.rlim_max, "soft and hard limits alike");
}

static const struct test_case cases[] = {
	{ "default_limit_finite", t_default_limit },
	{ "limit_two_queues_two", t_limit_two },
	{ "limit_zero_kill_still_pending", t_limit_zero },
	{ "standard_signals_not_limited", t_standard },
};

int main(void)
{
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
