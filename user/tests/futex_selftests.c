// futex_selftests: Linux 6.1's own futex_wait_timeout and
// futex_wait_wouldblock selftests (tools/testing/selftests/futex/
// functional/), built unmodified from Debian's linux-source-6.1 by
// scripts/build-futex-selftests, run as they are; each case here is one
// of their results that must be "ok": the FUTEX_WAIT, FUTEX_WAIT_BITSET
// and futex_waitv timeouts and the two EAGAIN (would block) checks.
// Their FUTEX_WAIT_REQUEUE_PI and FUTEX_LOCK_PI results are not counted:
// Switchyard refuses the PI operations with ENOSYS (docs/syscalls.md).
// The programs live in ../linux-selftests/futex from this program's own
// directory (/linux-selftests/futex on Switchyard); without them every
// case is skipped.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"

#define RUN_TIMEOUT 20		// seconds one program may take

static char dir[PATH_MAX];
static char outputs[2][8192];	// what each program printed

// Runs dir/PROG once, keeping its standard output in 'out'.
static int run_once(const char *prog, char *out, size_t size)
{
	char path[PATH_MAX + 64];
	int pfd[2], status;
	size_t len = 0;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", dir, prog);
	if (access(path, X_OK) != 0)
		return -1;
	if (pipe(pfd) < 0)
		return fail("pipe");
	pid = fork_child();
	if (pid == 0) {
		alarm(RUN_TIMEOUT);
		dup2(pfd[1], 1);
		close(pfd[0]);
		execl(path, prog, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t n = read(pfd[0], out + len, size - 1 - len);

		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == size - 1)
			break;
	}
	out[len] = 0;
	close(pfd[0]);
	status = reap(pid);
	// A program whose PI cases fail exits non-zero: only a death counts.
	if (WIFSIGNALED(status))
		return fail("%s killed by signal %d", prog, WTERMSIG(status));
	return 0;
}

// The result line "ok N NAME..." of output 'which' must be there.
static void expect_ok(int which, const char *prog, const char *name)
{
	char *out = outputs[which];

	if (!out[0]) {
		if (run_once(prog, out, sizeof(outputs[which])) < 0) {
			skip("no Linux selftests (linux-source-6.1 not installed at build time)");
			return;
		}
		if (fail_why[0])
			return;
	}
	for (char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char *rest;

		if (strncmp(line, "ok ", 3) != 0)
			continue;
		strtol(line + 3, &rest, 10);
		if (*rest == ' ' && strncmp(rest + 1, name, strlen(name)) == 0 &&
		    (rest[1 + strlen(name)] == ' ' || rest[1 + strlen(name)] == '\n' ||
		     rest[1 + strlen(name)] == 0))
			return;
	}
	fail("%s: no \"ok ... %s\" line", prog, name);
}

static void t_wait_relative(void) { expect_ok(0, "futex_wait_timeout", "futex_wait relative"); }
static void t_bitset_rt(void) { expect_ok(0, "futex_wait_timeout", "futex_wait_bitset realtime"); }
static void t_bitset_mono(void) { expect_ok(0, "futex_wait_timeout", "futex_wait_bitset monotonic"); }
static void t_lock_pi_flag(void)
{
	expect_ok(0, "futex_wait_timeout", "futex_lock_pi invalid timeout flag");
}
static void t_waitv_mono(void) { expect_ok(0, "futex_wait_timeout", "futex_waitv monotonic"); }
static void t_waitv_rt(void) { expect_ok(0, "futex_wait_timeout", "futex_waitv realtime"); }
static void t_wouldblock_wait(void) { expect_ok(1, "futex_wait_wouldblock", "futex_wait"); }
static void t_wouldblock_waitv(void) { expect_ok(1, "futex_wait_wouldblock", "futex_waitv"); }

static const struct test_case cases[] = {
	{ "futex_wait_timeout_wait_relative", t_wait_relative },
	{ "futex_wait_timeout_bitset_realtime", t_bitset_rt },
	{ "futex_wait_timeout_bitset_monotonic", t_bitset_mono },
	{ "futex_wait_timeout_lock_pi_invalid_flag", t_lock_pi_flag },
	{ "futex_wait_timeout_waitv_monotonic", t_waitv_mono },
	{ "futex_wait_timeout_waitv_realtime", t_waitv_rt },
	{ "futex_wait_wouldblock_wait", t_wouldblock_wait },
	{ "futex_wait_wouldblock_waitv", t_wouldblock_waitv },
};

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0 && argc > 0)
		n = snprintf(self, sizeof(self), "%s", argv[0]);
	if (n > 0 && n < (ssize_t)sizeof(self)) {
		self[n] = 0;
		snprintf(dir, sizeof(dir), "%s/../linux-selftests/futex", dirname(self));
	}
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
