// sharedsig: two processes sharing their signal dispositions, as
// clone(CLONE_VM | CLONE_SIGHAND) without CLONE_THREAD makes them (LTP's
// clone tests, old threading libraries).  A sigaction in either is seen
// by the other; signals stay each process's own; exec gives the new
// program dispositions of its own (the caught ones reset, the ignored
// kept) and leaves the other process's alone; unshare cannot split them
// (EINVAL, as Linux).  Each case runs in a forked child, so that the
// runner's own handlers are never shared.
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"

#define STACK_SIZE (64 * 1024)

static char stack[STACK_SIZE] __attribute__((aligned(16)));
static char *self;		// argv[0], for the exec case
static volatile pid_t handled_in;	// the pid the SIGUSR1 handler ran in

static void on_usr1(int sig)
{
	(void)sig;
	handled_in = getpid();
}

static void on_usr2(int sig)
{
	(void)sig;
}

static void on_term(int sig)
{
	(void)sig;
}

static void *handler_of(int sig)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, &sa) != 0)
		return (void *)-1;
	return (void *)sa.sa_handler;
}

static int set_handler(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	return sigaction(sig, &sa, NULL);
}

// A process sharing memory and dispositions with the caller, running fn.
static pid_t clone_sharing(int (*fn)(void *), void *arg)
{
	return clone(fn, stack + STACK_SIZE, CLONE_VM | CLONE_SIGHAND | SIGCHLD, arg);
}

// Runs 'body' in a forked child; the case fails with the child's exit
// code or signal.
static void in_child(int (*body)(void), const char *what)
{
	pid_t pid = fork_child();

	if (pid == 0)
		_exit(body());
	if (pid > 0)
		check_child_ok(pid, what);
}

static pid_t wait_exit(pid_t pid, int *code)
{
	int st;
	pid_t r = waitpid(pid, &st, 0);

	*code = r == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 100 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return r;
}

// ---- a sigaction is seen by both ----

static int sets_usr1(void *arg)
{
	(void)arg;
	if (handler_of(SIGUSR2) != (void *)on_usr2)
		return 3;	// the parent's disposition, seen here
	return set_handler(SIGUSR1, on_usr1) == 0 ? 0 : 4;
}

static int c_both_ways(void)
{
	int code;

	if (set_handler(SIGUSR2, on_usr2) != 0)
		return 1;
	pid_t pid = clone_sharing(sets_usr1, NULL);
	if (pid < 0)
		return printf("# clone: errno %d\n", errno), 2;
	if (wait_exit(pid, &code) != pid || code != 0)
		return printf("# the sharing child ended with %d\n", code), 5;
	if (handler_of(SIGUSR1) != (void *)on_usr1)
		return printf("# the child's sigaction was not seen here\n"), 6;
	return 0;
}

static void t_both_ways(void)
{
	in_child(c_both_ways, "dispositions shared both ways");
}

// ---- a signal is still one process's ----

static volatile int usr1_ready;

static int waits_for_usr1(void *arg)
{
	(void)arg;
	usr1_ready = 1;
	for (int i = 0; i < 20000 && !handled_in; i++)
		usleep(1000);
	return handled_in == getpid() ? 0 : 3;
}

static int c_signal_per_process(void)
{
	int code;

	if (set_handler(SIGUSR1, on_usr1) != 0)
		return 1;
	pid_t pid = clone_sharing(waits_for_usr1, NULL);
	if (pid < 0)
		return 2;
	while (!usr1_ready)
		usleep(1000);
	if (kill(pid, SIGUSR1) != 0)
		return 4;
	if (wait_exit(pid, &code) != pid || code != 0)
		return printf("# the child ended with %d (handler ran in %d, child %d, me %d)\n",
			      code, (int)handled_in, (int)pid, (int)getpid()), 5;
	return handled_in == pid ? 0 : 6;
}

static void t_signal_per_process(void)
{
	in_child(c_signal_per_process, "a signal to the other process");
}

// ---- exec: dispositions of its own ----

// The program after exec ("--report RFD WFD"): caught signals reset,
// ignored ones kept; then, once the parent has set SIGTERM's handler
// (a byte on RFD), still its own default.  Answers one byte on WFD.
static int report(int rfd, int wfd)
{
	char c = 'k', go;

	if (handler_of(SIGUSR1) != SIG_DFL)
		c = '1';
	else if (handler_of(SIGUSR2) != SIG_IGN)
		c = '2';
	if (write(wfd, &c, 1) != 1 || read(rfd, &go, 1) != 1)
		return 1;
	c = handler_of(SIGTERM) == SIG_DFL ? 'k' : 'T';
	return write(wfd, &c, 1) == 1 ? 0 : 1;
}

static int fds[4];	// to the reporter: fds[0] (its end), fds[1]; back: fds[2], fds[3] (its end)

static int execs_report(void *arg)
{
	char rfd[16], wfd[16];

	(void)arg;
	snprintf(rfd, sizeof(rfd), "%d", fds[0]);
	snprintf(wfd, sizeof(wfd), "%d", fds[3]);
	execl(self, self, "--report", rfd, wfd, (char *)NULL);
	return 9;
}

static int c_exec_own(void)
{
	int code;
	char c;

	if (pipe(fds) != 0 || pipe(fds + 2) != 0)
		return 1;
	if (set_handler(SIGUSR1, on_usr1) != 0 || signal(SIGUSR2, SIG_IGN) == SIG_ERR)
		return 1;
	pid_t pid = clone_sharing(execs_report, NULL);
	if (pid < 0)
		return 2;
	if (read(fds[2], &c, 1) != 1)
		return 3;
	if (c != 'k')
		return printf("# after exec, %s\n", c == '1' ? "a caught signal was not reset"
							     : "an ignored signal was not kept"), 4;
	// Its exec reset its dispositions, not these.
	if (handler_of(SIGUSR1) != (void *)on_usr1)
		return printf("# the other process's exec reset this one's handler\n"), 5;
	if (set_handler(SIGTERM, on_term) != 0 || write(fds[1], "g", 1) != 1 || read(fds[2], &c, 1) != 1)
		return 6;
	if (c != 'k')
		return printf("# a sigaction here changed the exec'd program's\n"), 7;
	if (wait_exit(pid, &code) != pid || code != 0)
		return printf("# the reporter ended with %d\n", code), 8;
	return 0;
}

static void t_exec_own(void)
{
	in_child(c_exec_own, "exec gives dispositions of its own");
}

// ---- unshare cannot split them ----

static int tries_unshare(void *arg)
{
	(void)arg;
	if (unshare(CLONE_SIGHAND) != -1 || errno != EINVAL)
		return 3;
	return 0;
}

static int c_unshare(void)
{
	int code;
	pid_t pid = clone_sharing(tries_unshare, NULL);

	if (pid < 0)
		return 2;
	if (wait_exit(pid, &code) != pid || code != 0)
		return printf("# unshare(CLONE_SIGHAND) while shared: not EINVAL (%d)\n", code), 4;
	// Alone again: nothing to split, and it succeeds.
	return unshare(CLONE_SIGHAND) == 0 ? 0 : 5;
}

static void t_unshare(void)
{
	in_child(c_unshare, "unshare of shared dispositions");
}

static const struct test_case cases[] = {
	{ "sigaction_seen_by_both", t_both_ways },
	{ "signal_goes_to_one_process", t_signal_per_process },
	{ "exec_gets_dispositions_of_its_own", t_exec_own },
	{ "unshare_shared_EINVAL", t_unshare },
};

int main(int argc, char **argv)
{
	self = argv[0];
	if (argc == 4 && strcmp(argv[1], "--report") == 0)
		return report(atoi(argv[2]), atoi(argv[3]));
	setvbuf(stdout, NULL, _IOLBF, 0);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
