// rt_sigtimedwait (sigwaitinfo, sigtimedwait): a pending signal of the
// set is taken with its data, none is EAGAIN at once with a zero timeout
// and after a short one, a signal sent to the process while the waiter
// blocks it wakes the waiter, a handled signal outside the set is EINTR,
// and Linux's argument errnos (EINVAL for the set size and a bad
// timespec, EFAULT).
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"
#include "poke.h"

static sigset_t only(int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return set;
}

static long raw_wait(const void *set, siginfo_t *si, const struct timespec *ts, size_t size)
{
	return syscall(SYS_rt_sigtimedwait, set, si, ts, size);
}

static void t_takes_pending_with_data(void)
{
	sigset_t set = only(SIGRTMIN + 2);
	union sigval v = { .sival_int = 1234 };
	struct timespec zero = { 0, 0 };
	siginfo_t si;

	sigprocmask(SIG_BLOCK, &set, NULL);
	check_ok(sigqueue(getpid(), SIGRTMIN + 2, v), "sigqueue");
	check(sigtimedwait(&set, &si, &zero) == SIGRTMIN + 2, "taken");
	check(si.si_code == SI_QUEUE && si.si_value.sival_int == 1234 && si.si_pid == getpid(),
	      "its siginfo");
	check_errno(sigtimedwait(&set, &si, &zero), EAGAIN, "only once");
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void t_timeout(void)
{
	sigset_t set = only(SIGUSR2);
	struct timespec ts = { 0, 20 * 1000 * 1000 }, a, b;

	sigprocmask(SIG_BLOCK, &set, NULL);
	clock_gettime(CLOCK_MONOTONIC, &a);
	check_errno(sigtimedwait(&set, NULL, &ts), EAGAIN, "20 ms, nothing sent");
	clock_gettime(CLOCK_MONOTONIC, &b);
	long ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	check(ms >= 19, "waited the timeout");
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void *send_later(void *arg)
{
	(void)arg;
	usleep(20000);
	kill(getpid(), SIGUSR1);
	return NULL;
}

// The signal goes to the process; every thread blocks it, so only the
// waiter's unblocking for the wait lets it in.
static void t_woken_by_process_signal(void)
{
	sigset_t set = only(SIGUSR1);
	struct timespec ts = { 5, 0 };
	pthread_t th;
	siginfo_t si;

	sigprocmask(SIG_BLOCK, &set, NULL);
	pthread_create(&th, NULL, send_later, NULL);
	check(sigtimedwait(&set, &si, &ts) == SIGUSR1, "woken with SIGUSR1");
	check(si.si_code == SI_USER, "sent by kill");
	pthread_join(th, NULL);
	sigset_t now;
	sigprocmask(SIG_SETMASK, NULL, &now);
	check(sigismember(&now, SIGUSR1), "the mask is back");
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static volatile sig_atomic_t handled;
static void on_urg(int sig) { (void)sig; handled = 1; }

static void t_eintr(void)
{
	sigset_t set = only(SIGUSR2);
	struct sigaction sa = { .sa_handler = on_urg };
	struct timespec ts = { 5, 0 };
	struct poke poke;

	sigaction(SIGURG, &sa, NULL);
	sigprocmask(SIG_BLOCK, &set, NULL);
	handled = 0;
	poke_later(&poke, SIGURG);
	// The system call itself: C libraries may retry on EINTR.
	check_errno(raw_wait(&set, NULL, &ts, 8), EINTR, "a handled signal outside the set");
	check(handled, "its handler ran");
	poke_join(&poke);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	signal(SIGURG, SIG_DFL);
}

// A signal whose default action is to ignore it is kept while blocked,
// so that it can be waited for: the classic sigwait for SIGCHLD.
static void t_blocked_default_ignored_kept(void)
{
	sigset_t set = only(SIGCHLD);
	struct timespec ts = { 5, 0 };
	siginfo_t si;

	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(7);
	check(sigtimedwait(&set, &si, &ts) == SIGCHLD, "SIGCHLD waited for");
	check(si.si_pid == pid && si.si_code == CLD_EXITED && si.si_status == 7, "its siginfo");
	waitpid(pid, NULL, 0);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

// Setting SIG_IGN discards what is pending, queued real-time signals
// included.
static void t_sig_ign_discards_queue(void)
{
	sigset_t set = only(SIGRTMIN + 3), pending;
	union sigval v = { 0 };

	sigprocmask(SIG_BLOCK, &set, NULL);
	sigqueue(getpid(), SIGRTMIN + 3, v);
	sigqueue(getpid(), SIGRTMIN + 3, v);
	signal(SIGRTMIN + 3, SIG_IGN);
	signal(SIGRTMIN + 3, SIG_DFL);
	sigpending(&pending);
	check(!sigismember(&pending, SIGRTMIN + 3), "nothing pending after SIG_IGN");
	struct timespec zero = { 0, 0 };
	check_errno(sigtimedwait(&set, NULL, &zero), EAGAIN, "nothing queued either");
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void t_errors(void)
{
	sigset_t set = only(SIGUSR1);
	struct timespec bad = { 0, 1000000000 }, neg = { -1, 0 };
	siginfo_t si;

	check_errno(raw_wait(&set, &si, NULL, 4), EINVAL, "set size 4");
	check_errno(raw_wait(&set, &si, NULL, 128), EINVAL, "set size 128");
	check_errno(raw_wait(&set, &si, &bad, 8), EINVAL, "tv_nsec 1e9");
	check_errno(raw_wait(&set, &si, &neg, 8), EINVAL, "tv_sec -1");
	check_errno(raw_wait((void *)8, &si, NULL, 8), EFAULT, "an unreadable set");
	check_errno(raw_wait(&set, &si, (void *)8, 8), EFAULT, "an unreadable timeout");
}

static const struct test_case cases[] = {
	{ "takes_pending_with_data", t_takes_pending_with_data },
	{ "timeout_EAGAIN", t_timeout },
	{ "woken_by_process_signal", t_woken_by_process_signal },
	{ "handled_signal_EINTR", t_eintr },
	{ "blocked_default_ignored_signal_kept", t_blocked_default_ignored_kept },
	{ "sig_ign_discards_queued", t_sig_ign_discards_queue },
	{ "argument_errors", t_errors },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
