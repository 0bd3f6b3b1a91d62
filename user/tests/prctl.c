// prctl: the options programs use, each checked against Linux's rules:
// PR_SET/GET_NAME, PR_SET/GET_PDEATHSIG (sent when the parent *thread*
// exits, not inherited by fork), PR_SET/GET_DUMPABLE (2 refused, reset by
// exec), PR_SET/GET_TIMERSLACK (0 goes back to the default, which a child
// takes from its parent's current value), PR_SET/GET_NO_NEW_PRIVS (for
// good, kept across fork and exec, argument checks), PR_GET/SET_TSC
// (RDTSC and RDTSCP fault with SIGSEGV when disabled, per thread),
// PR_SET/GET_CHILD_SUBREAPER (orphans go to the nearest subreaper) and
// EINVAL for unknown options.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <stdbool.h>

#include "testcase.h"

#ifndef PR_SET_NO_NEW_PRIVS
#define PR_SET_NO_NEW_PRIVS 38
#define PR_GET_NO_NEW_PRIVS 39
#endif

#if defined(__x86_64__)
static uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static uint64_t rdtscp(void)
{
	uint32_t lo, hi, aux;
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	return (uint64_t)hi << 32 | lo;
}
#endif

static void t_name(void)
{
	char name[16];

	check_ok(prctl(PR_SET_NAME, "prctl-test-name-long"), "PR_SET_NAME");
	check_ok(prctl(PR_GET_NAME, name), "PR_GET_NAME");
	check(strcmp(name, "prctl-test-name") == 0, "name cut to 15 bytes");
	check_errno(prctl(PR_GET_NAME, (char *)8), EFAULT, "PR_GET_NAME to a bad pointer");
	check_errno(prctl(PR_SET_NAME, (char *)8), EFAULT, "PR_SET_NAME from a bad pointer");
	prctl(PR_SET_NAME, "prctl");
}

static void t_pdeathsig_get_set(void)
{
	int sig = -1;

	check_ok(prctl(PR_GET_PDEATHSIG, &sig), "PR_GET_PDEATHSIG");
	check(sig == 0, "no parent-death signal at first");
	check_errno(prctl(PR_SET_PDEATHSIG, 65), EINVAL, "signal 65");
	check_errno(prctl(PR_SET_PDEATHSIG, -1L), EINVAL, "signal -1");
	check_errno(prctl(PR_GET_PDEATHSIG, (int *)8), EFAULT, "GET to a bad pointer");
	check_ok(prctl(PR_SET_PDEATHSIG, SIGUSR1), "PR_SET_PDEATHSIG SIGUSR1");
	check_ok(prctl(PR_GET_PDEATHSIG, &sig), "PR_GET_PDEATHSIG");
	check(sig == SIGUSR1, "reads back SIGUSR1");
	pid_t pid = fork_child();
	if (pid == 0) {
		int s = -1;
		_exit(prctl(PR_GET_PDEATHSIG, &s) == 0 && s == 0 ? 0 : 1);
	}
	check_child_ok(pid, "a forked child has no parent-death signal");
	prctl(PR_SET_PDEATHSIG, 0);
}

// In a subreaper S: C forks G, which sets its parent-death signal and
// says so; C exits.  G must be killed by SIGUSR2 and reach S.
static int pdeath_child(void)
{
	int fds[2];
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 || pipe(fds) < 0)
		return 1;
	pid_t c = fork();
	if (c == 0) {
		pid_t g = fork();
		if (g == 0) {
			pid_t parent = getppid();
			prctl(PR_SET_PDEATHSIG, SIGUSR2);
			if (getppid() != parent)
				_exit(3);	// too late: the parent is gone
			if (write(fds[1], "x", 1) != 1)
				_exit(4);
			for (;;)
				pause();
		}
		char b;
		_exit(read(fds[0], &b, 1) == 1 ? 0 : 5);
	}
	int st;
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 2;
	pid_t g = waitpid(-1, &st, 0);
	if (g <= 0)
		return 6;		// the orphan did not come to the subreaper
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR2 ? 0 : 7;
}

static void t_pdeathsig_parent_exit(void)
{
	pid_t pid = fork_child();
	if (pid == 0)
		_exit(pdeath_child());
	check_child_ok(pid, "grandchild killed by its parent-death signal");
}

static int pdeath_pipe[2];

static void *thread_forks(void *arg)
{
	pid_t *g = arg;
	*g = fork();
	if (*g == 0) {
		prctl(PR_SET_PDEATHSIG, SIGUSR2);
		if (write(pdeath_pipe[1], "x", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	char b;
	if (read(pdeath_pipe[0], &b, 1) != 1)
		*g = -1;
	return NULL;		// the creating thread exits: G gets its signal
}

// The signal follows the thread that forked, not the process: G dies
// when that thread exits although its process lives on.
static void t_pdeathsig_thread_exit(void)
{
	pid_t pid = fork_child();
	if (pid == 0) {
		pthread_t th;
		pid_t g = 0;
		int st;
		if (pipe(pdeath_pipe) < 0 || pthread_create(&th, NULL, thread_forks, &g) != 0)
			_exit(1);
		pthread_join(th, NULL);
		if (g <= 0)
			_exit(2);
		if (waitpid(g, &st, 0) != g)
			_exit(3);
		_exit(WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR2 ? 0 : 4);
	}
	check_child_ok(pid, "child of an exited thread killed by its parent-death signal");
}

// Without a subreaper, orphans go to init; with one, to it, also from
// deeper down, and not to a subreaper that is not an ancestor.
static void t_subreaper(void)
{
	int v = -1;

	check_ok(prctl(PR_GET_CHILD_SUBREAPER, &v), "PR_GET_CHILD_SUBREAPER");
	check(v == 0, "not a subreaper at first");
	check_errno(prctl(PR_GET_CHILD_SUBREAPER, (int *)8), EFAULT, "GET to a bad pointer");
	pid_t pid = fork_child();
	if (pid == 0) {
		if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
			_exit(1);
		int r = -1;
		if (prctl(PR_GET_CHILD_SUBREAPER, &r) < 0 || r != 1)
			_exit(2);
		pid_t me = getpid();
		pid_t c = fork();
		if (c == 0) {
			int inherited = -1;
			prctl(PR_GET_CHILD_SUBREAPER, &inherited);
			if (inherited != 0)
				_exit(9);
			// Two levels down: C -> D -> E; C and D exit.
			pid_t d = fork();
			if (d == 0) {
				if (fork() == 0) {
					for (int i = 0; i < 2000 && getppid() != me; i++)
						usleep(1000);
					_exit(getppid() == me ? 7 : 8);
				}
				_exit(0);
			}
			int st;
			waitpid(d, &st, 0);
			_exit(0);
		}
		int st;
		if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			_exit(3);
		pid_t e = waitpid(-1, &st, 0);
		if (e <= 0)
			_exit(4);
		_exit(WIFEXITED(st) && WEXITSTATUS(st) == 7 ? 0 : 5);
	}
	check_child_ok(pid, "orphan reparented to the subreaper");
}

static void t_dumpable(void)
{
	check(prctl(PR_GET_DUMPABLE) == 1, "dumpable at first");
	check_errno(prctl(PR_SET_DUMPABLE, 2), EINVAL, "PR_SET_DUMPABLE 2");
	check_errno(prctl(PR_SET_DUMPABLE, 3), EINVAL, "PR_SET_DUMPABLE 3");
	pid_t pid = fork_child();
	if (pid == 0) {
		if (prctl(PR_SET_DUMPABLE, 0) < 0 || prctl(PR_GET_DUMPABLE) != 0)
			_exit(1);
		pid_t g = fork();
		if (g == 0)
			_exit(prctl(PR_GET_DUMPABLE) == 0 ? 0 : 1);
		int st;
		if (waitpid(g, &st, 0) != g || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			_exit(2);
		// exec makes it dumpable again.
		char *argv[] = { "prctl", "--child", "dumpable", NULL };
		execv("/proc/self/exe", argv);
		_exit(3);
	}
	check_child_ok(pid, "dumpable 0 kept by fork, reset by exec");
}

static void t_timerslack(void)
{
	long def = prctl(PR_GET_TIMERSLACK);

	check(def > 0, "a default slack");
	pid_t pid = fork_child();
	if (pid == 0) {
		if (prctl(PR_SET_TIMERSLACK, 123456) < 0 || prctl(PR_GET_TIMERSLACK) != 123456)
			_exit(1);
		pid_t g = fork();
		if (g == 0) {
			// The inherited value, and it is the child's default now.
			if (prctl(PR_GET_TIMERSLACK) != 123456)
				_exit(1);
			if (prctl(PR_SET_TIMERSLACK, 7) < 0 || prctl(PR_GET_TIMERSLACK) != 7)
				_exit(2);
			if (prctl(PR_SET_TIMERSLACK, 0) < 0 || prctl(PR_GET_TIMERSLACK) != 123456)
				_exit(3);
			_exit(0);
		}
		int st;
		if (waitpid(g, &st, 0) != g || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			_exit(10 + (WIFEXITED(st) ? WEXITSTATUS(st) : 9));
		_exit(prctl(PR_SET_TIMERSLACK, 0) == 0 && prctl(PR_GET_TIMERSLACK) == def ? 0 : 4);
	}
	check_child_ok(pid, "slack set, inherited, reset to the default");
}

static void t_no_new_privs(void)
{
	check(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 0, "no_new_privs off at first");
	check_errno(prctl(PR_GET_NO_NEW_PRIVS, 1, 0, 0, 0), EINVAL, "GET with arg2");
	check_errno(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 1), EINVAL, "GET with arg5");
	check_errno(prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0), EINVAL, "SET 0");
	check_errno(prctl(PR_SET_NO_NEW_PRIVS, 2, 0, 0, 0), EINVAL, "SET 2");
	check_errno(prctl(PR_SET_NO_NEW_PRIVS, 1, 1, 0, 0), EINVAL, "SET with arg3");
	pid_t pid = fork_child();
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(1);
		if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
			_exit(2);
		char *argv[] = { "prctl", "--child", "nnp", NULL };
		execv("/proc/self/exe", argv);
		_exit(3);
	}
	check_child_ok(pid, "no_new_privs set, kept across exec");
}

#if defined(__x86_64__)	// PR_SET_TSC and arch_prctl are x86's
static void t_tsc_get_set(void)
{
	int mode = -1;

	check_ok(prctl(PR_GET_TSC, &mode), "PR_GET_TSC");
	check(mode == PR_TSC_ENABLE, "TSC enabled at first");
	check_errno(prctl(PR_SET_TSC, 0), EINVAL, "PR_SET_TSC 0");
	check_errno(prctl(PR_SET_TSC, 3), EINVAL, "PR_SET_TSC 3");
	check_errno(prctl(PR_GET_TSC, (int *)8), EFAULT, "PR_GET_TSC to a bad pointer");
	pid_t pid = fork_child();
	if (pid == 0) {
		int m = -1;
		if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV) < 0 || prctl(PR_GET_TSC, &m) < 0 ||
		    m != PR_TSC_SIGSEGV)
			_exit(1);
		if (prctl(PR_SET_TSC, PR_TSC_ENABLE) < 0)
			_exit(2);
		rdtsc();		// allowed again
		_exit(0);
	}
	check_child_ok(pid, "disable, read back, enable");
}

static bool on_switchyard(void)
{
	struct utsname u;
	return uname(&u) == 0 && strstr(u.version, "Switchyard") != NULL;
}

static void t_tsc_faults(void)
{
	pid_t pid = fork_child();
	if (pid == 0) {
		prctl(PR_SET_TSC, PR_TSC_SIGSEGV);
		sched_yield();		// and after a switch
		rdtsc();
		_exit(0);
	}
	int st = reap_child(pid);
	if (st < 0)
		return;
	// Some hypervisors (paravirtualised guests that run the kernel
	// outside ring 0) do not let Linux enforce CR4.TSD; Switchyard runs
	// under QEMU, which does.
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && !on_switchyard()) {
		skip("this Linux host's virtualisation does not enforce CR4.TSD");
		return;
	}
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV) {
		fail_status("RDTSC with the TSC disabled", st);
		return;
	}
	pid = fork_child();
	if (pid == 0) {
		prctl(PR_SET_TSC, PR_TSC_SIGSEGV);
		rdtscp();
		_exit(0);
	}
	check_killed_by(pid, SIGSEGV, "RDTSCP with the TSC disabled");
	// Inherited by fork.
	pid = fork_child();
	if (pid == 0) {
		prctl(PR_SET_TSC, PR_TSC_SIGSEGV);
		pid_t g = fork();
		if (g == 0) {
			rdtsc();
			_exit(0);
		}
		int st;
		waitpid(g, &st, 0);
		_exit(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV ? 0 : 1);
	}
	check_child_ok(pid, "the disabled TSC is inherited by fork");
	// Others (this process) still read it, after all that switching.
	for (int i = 0; i < 100; i++) {
		rdtsc();
		sched_yield();
	}
}

static volatile int thread_mode = -1;

static void *tsc_thread(void *arg)
{
	(void)arg;
	int m = -1;
	prctl(PR_GET_TSC, &m);
	thread_mode = m;
	prctl(PR_SET_TSC, PR_TSC_SIGSEGV);
	return NULL;
}

// Per thread: a thread that disables it does not disable it for the
// others.
static void t_tsc_per_thread(void)
{
	pid_t pid = fork_child();
	if (pid == 0) {
		pthread_t th;
		if (pthread_create(&th, NULL, tsc_thread, NULL) != 0)
			_exit(1);
		pthread_join(th, NULL);
		int m = -1;
		prctl(PR_GET_TSC, &m);
		rdtsc();
		_exit(m == PR_TSC_ENABLE && thread_mode == PR_TSC_ENABLE ? 0 : 2);
	}
	check_child_ok(pid, "the main thread keeps the TSC");
}

// ARCH_GET_CPUID says CPUID works; ARCH_SET_CPUID needs CPUID faulting,
// which Switchyard does not offer: ENODEV, as Linux without it.
static void t_arch_cpuid(void)
{
	check(syscall(SYS_arch_prctl, 0x1011, 0) == 1, "ARCH_GET_CPUID is 1");
	long r = syscall(SYS_arch_prctl, 0x1012, 1);
	if (on_switchyard())
		check_errno(r, ENODEV, "ARCH_SET_CPUID without CPUID faulting");
	else
		check(r == 0 || errno == ENODEV, "ARCH_SET_CPUID: 0 or ENODEV");
}
#endif

// PR_SET_TIMING takes only the one method Linux has; the THP flag reads
// back, with the argument checks (LTP prctl02's rows).
static void t_timing_and_thp(void)
{
	check(prctl(PR_GET_TIMING, 0, 0, 0, 0) == PR_TIMING_STATISTICAL, "PR_GET_TIMING");
	check_ok(prctl(PR_SET_TIMING, PR_TIMING_STATISTICAL, 0, 0, 0), "statistical timing");
	check_errno(prctl(PR_SET_TIMING, 1, 0, 0, 0), EINVAL, "timestamp timing");
	check(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 0, "THP not disabled at first");
	check_errno(prctl(PR_SET_THP_DISABLE, 0, 1, 0, 0), EINVAL, "PR_SET_THP_DISABLE arg3");
	check_errno(prctl(PR_GET_THP_DISABLE, 1, 1, 0, 0), EINVAL, "PR_GET_THP_DISABLE args");
	check_ok(prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0), "disable THP");
	check(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1, "disabled");
	pid_t pid = fork_child();
	if (pid == 0)
		_exit(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1 ? 0 : 1);
	check_child_ok(pid, "a child inherits it");
	check_ok(prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0), "enable THP");
	check(prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 0, "enabled again");
}

static void t_unknown(void)
{
	check_errno(prctl(0x7fff0000, 0, 0, 0, 0), EINVAL, "option 0x7fff0000");
	check_errno(prctl(-1, 0, 0, 0, 0), EINVAL, "option -1");
	check_errno(prctl(1000, 0, 0, 0, 0), EINVAL, "option 1000");
}

static const struct test_case cases[] = {
	{ "name", t_name },
	{ "pdeathsig_get_set", t_pdeathsig_get_set },
	{ "pdeathsig_parent_exit", t_pdeathsig_parent_exit },
	{ "pdeathsig_thread_exit", t_pdeathsig_thread_exit },
	{ "child_subreaper", t_subreaper },
	{ "dumpable", t_dumpable },
	{ "timerslack", t_timerslack },
	{ "no_new_privs", t_no_new_privs },
#if defined(__x86_64__)
	{ "tsc_get_set", t_tsc_get_set },
	{ "tsc_faults", t_tsc_faults },
	{ "tsc_per_thread", t_tsc_per_thread },
	{ "arch_prctl_cpuid", t_arch_cpuid },
#endif
	{ "timing_and_thp_disable", t_timing_and_thp },
	{ "unknown_options_einval", t_unknown },
};

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "--child") == 0) {
		if (strcmp(argv[2], "dumpable") == 0)
			return prctl(PR_GET_DUMPABLE) == 1 ? 0 : 10;
		return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ? 0 : 11;
	}
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
