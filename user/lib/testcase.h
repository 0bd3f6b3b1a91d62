// Case runner and fork helpers for Switchyard's userland test programs.
//
// A program holds a table of cases; run_cases() prints the KTAP plan and
// one KTAP line per case.  Each case records why it failed (first reason
// only) through fail() and the check_*() helpers.  A case that hangs or
// faults is cut short by a signal handler so the cases after it still run.
//
// Cases that need a process of their own fork it with fork_child(); the
// child reports through its exit status (0 = fine, other codes say which
// of its checks failed) and the parent judges it with check_child_ok().
//
// Header-only, like ktap.h, so every test program stays a single C file
// and a single static binary.  Every function is static inline so that a
// program which uses only part of this file compiles without warnings.
#ifndef USER_TESTCASE_H
#define USER_TESTCASE_H

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"

// Seconds one case may take before the runner gives up on it.
#define CASE_TIMEOUT 30
// Seconds a forked child may live; shorter than CASE_TIMEOUT so a hung
// child is reported by its parent's case rather than cutting the case.
#define CHILD_TIMEOUT 20

struct test_case {
	const char *name;
	void (*run)(void);
};

// The watchdog and the crash signals that the runner turns into a failed
// case instead of the end of the program.
static const int escape_signals[] = { SIGALRM, SIGSEGV, SIGBUS, SIGILL, SIGFPE };
#define NR_ESCAPE_SIGNALS (int)(sizeof(escape_signals) / sizeof(escape_signals[0]))

static char fail_why[256];
static char skip_why[128];
static sigjmp_buf case_escape;
static volatile sig_atomic_t case_signal;

// ---- recording results ----------------------------------------------------

// Record why the current case failed, unless it already failed.  Returns 0
// so callers can write 'return fail(...)'.
static inline int fail(const char *fmt, ...)
{
	va_list ap;

	if (fail_why[0])
		return 0;
	va_start(ap, fmt);
	vsnprintf(fail_why, sizeof(fail_why), fmt, ap);
	va_end(ap);
	return 0;
}

static inline int check(int cond, const char *what)
{
	if (!cond)
		fail("%s", what);
	return cond;
}

// The call must succeed (return a non-negative value).
static inline int check_ok(long rc, const char *what)
{
	if (rc >= 0)
		return 1;
	return fail("%s: rc=%ld errno=%d (%s)", what, rc, errno, strerror(errno));
}

// The call must fail with errno 'want'.
static inline int check_errno(long rc, int want, const char *what)
{
	if (rc == -1 && errno == want)
		return 1;
	return fail("%s: rc=%ld errno=%d, want -1 errno=%d", what, rc,
		    rc == -1 ? errno : 0, want);
}

// Report the current case as skipped (unless it also failed).
static inline void skip(const char *why)
{
	snprintf(skip_why, sizeof(skip_why), "%s", why);
}

// ---- the runner -----------------------------------------------------------

static inline void escape_handler(int sig)
{
	case_signal = sig;
	siglongjmp(case_escape, 1);
}

static inline void install_escape_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = escape_handler;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < NR_ESCAPE_SIGNALS; i++)
		sigaction(escape_signals[i], &sa, NULL);
}

static inline void run_cases(const struct test_case *cases, int count)
{
	ktap_plan(count);
	install_escape_handlers();
	for (int i = 0; i < count; i++) {
		fail_why[0] = 0;
		skip_why[0] = 0;
		case_signal = 0;
		if (sigsetjmp(case_escape, 1) == 0) {
			alarm(CASE_TIMEOUT);
			cases[i].run();
		} else if (case_signal == SIGALRM) {
			fail("timed out after %d s", CASE_TIMEOUT);
		} else {
			fail("caught signal %d", (int)case_signal);
		}
		alarm(0);
		if (fail_why[0])
			ktap_result(0, "%s # %s", cases[i].name, fail_why);
		else if (skip_why[0])
			ktap_skip(cases[i].name, skip_why);
		else
			ktap_result(1, "%s", cases[i].name);
	}
}

// ---- scratch files --------------------------------------------------------

// A program that makes files keeps them in a directory of its own, named
// /tmp/PROGRAM-PID; its main() fills in the name and creates it.
static char scratch_dir[64];

// A path inside the scratch directory.  Each call gets its own buffer from a
// small ring so a case can hold a few paths at once.
static inline const char *scratch(const char *name)
{
	static char ring[4][PATH_MAX];
	static int next;
	char *p = ring[next++ % 4];

	// A program that forgot to name its directory would make files in
	// the root, which nothing cleans up: in /tmp then, and say so.
	if (!scratch_dir[0]) {
		fail("scratch(\"%s\") without a scratch directory", name);
		snprintf(p, PATH_MAX, "/tmp/%s", name);
		return p;
	}
	snprintf(p, PATH_MAX, "%s/%s", scratch_dir, name);
	return p;
}

// ---- forked children ------------------------------------------------------

// Fork a child that runs with default signal dispositions (the parent's
// escape handlers must not catch what the child is meant to die of) and
// with its own watchdog, since a pending alarm is not inherited.
static inline pid_t fork_child(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < NR_ESCAPE_SIGNALS; i++)
			signal(escape_signals[i], SIG_DFL);
		alarm(CHILD_TIMEOUT);
	} else if (pid < 0) {
		fail("fork: errno=%d", errno);
	}
	return pid;
}

// Wait for 'pid' and return its status, or -1 after recording why not.
static inline int reap(pid_t pid)
{
	int status = 0;
	pid_t r;

	do
		r = waitpid(pid, &status, 0);
	while (r < 0 && errno == EINTR);
	if (r != pid)
		return fail("waitpid(%d): rc=%d errno=%d", (int)pid, (int)r, errno), -1;
	return status;
}

// Describe a wait status in a failure reason.
static inline int fail_status(const char *what, int status)
{
	if (WIFEXITED(status))
		return fail("%s: child exited with %d", what, WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		return fail("%s: child killed by signal %d", what, WTERMSIG(status));
	return fail("%s: odd wait status %#x", what, status);
}

// Reap the child that fork_child() returned and give its wait status, or
// -1 when there is none to judge: the fork or the wait failed, and the
// reason is already recorded.
static inline int reap_child(pid_t pid)
{
	if (pid < 0)
		return -1;
	return reap(pid);
}

// The child must exit normally with 'code'.
static inline int check_exit_code(pid_t pid, int code, const char *what)
{
	int status = reap_child(pid);

	if (status < 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == code)
		return 1;
	return fail_status(what, status);
}

// The child must exit normally with status 0 (children use other exit
// codes to say which of their checks failed).
static inline int check_child_ok(pid_t pid, const char *what)
{
	return check_exit_code(pid, 0, what);
}

// The child must have died of signal 'sig'.
static inline int check_killed_by(pid_t pid, int sig, const char *what)
{
	int status = reap_child(pid);

	if (status < 0)
		return 0;
	if (WIFSIGNALED(status) && WTERMSIG(status) == sig)
		return 1;
	return fail_status(what, status);
}

#endif
