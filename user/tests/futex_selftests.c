// futex_selftests: Linux 6.1's own futex selftests
// (tools/testing/selftests/futex/functional/), every program of its
// Makefile, built unmodified from Debian's linux-source-6.1 by
// scripts/build-futex-selftests and run as its run.sh runs them
// (futex_requeue_pi with each of run.sh's argument sets); each case here
// is one of their results that must be "ok".  The programs live in
// ../linux-selftests/futex from this program's own directory
// (/linux-selftests/futex on Switchyard); without them every case is
// skipped.
//
// futex_requeue_pi and futex_requeue_pi_signal_restart create their
// threads SCHED_FIFO (pthread_create fails without it): their cases are
// skipped where sched_setscheduler(SCHED_FIFO) is refused.  Some programs
// wait a fixed 10 ms for a thread to fall asleep before waking it (a
// guess a loaded machine can miss): a result that is not "ok" runs the
// program again, up to five times in all.  futex_wait and futex_waitv
// leave the System V shared memory segments they made (never IPC_RMID):
// every run's are removed after it.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "sysv_cleanup.h"

#define RUN_TIMEOUT 20		// seconds one program may take
#define ATTEMPTS 5

static char dir[PATH_MAX];

// One way run.sh runs a program, and what it printed last.
struct run {
	const char *prog;
	const char *args[5];
	int rt;			// needs SCHED_FIFO threads
	char out[4096];
};

enum {
	R_TIMEOUT, R_WOULDBLOCK, R_MISMATCHED, R_SIGNAL_RESTART, R_UNINIT_HEAP, R_MAPPED_FILE,
	R_WAIT, R_REQUEUE, R_WAITV,
	R_RQ, R_RQ_B, R_RQ_BL, R_RQ_BO, R_RQ_L, R_RQ_O, R_RQ_BL_T5K, R_RQ_L_T5K, R_RQ_BL_T500K,
	R_RQ_L_T500K, R_RQ_B_T5K, R_RQ_T5K, R_RQ_B_T500K, R_RQ_T500K, R_RQ_BO_T5K,
	R_RQ_BO_T500K, R_RQ_BL_T2S, R_RQ_L_T2S,
};

static struct run runs[] = {
	[R_TIMEOUT] = { "futex_wait_timeout", { 0 }, 0, "" },
	[R_WOULDBLOCK] = { "futex_wait_wouldblock", { 0 }, 0, "" },
	[R_MISMATCHED] = { "futex_requeue_pi_mismatched_ops", { 0 }, 0, "" },
	[R_SIGNAL_RESTART] = { "futex_requeue_pi_signal_restart", { 0 }, 1, "" },
	[R_UNINIT_HEAP] = { "futex_wait_uninitialized_heap", { 0 }, 0, "" },
	[R_MAPPED_FILE] = { "futex_wait_private_mapped_file", { 0 }, 0, "" },
	[R_WAIT] = { "futex_wait", { 0 }, 0, "" },
	[R_REQUEUE] = { "futex_requeue", { 0 }, 0, "" },
	[R_WAITV] = { "futex_waitv", { 0 }, 0, "" },
	[R_RQ] = { "futex_requeue_pi", { 0 }, 1, "" },
	[R_RQ_B] = { "futex_requeue_pi", { "-b" }, 1, "" },
	[R_RQ_BL] = { "futex_requeue_pi", { "-b", "-l" }, 1, "" },
	[R_RQ_BO] = { "futex_requeue_pi", { "-b", "-o" }, 1, "" },
	[R_RQ_L] = { "futex_requeue_pi", { "-l" }, 1, "" },
	[R_RQ_O] = { "futex_requeue_pi", { "-o" }, 1, "" },
	[R_RQ_BL_T5K] = { "futex_requeue_pi", { "-b", "-l", "-t", "5000" }, 1, "" },
	[R_RQ_L_T5K] = { "futex_requeue_pi", { "-l", "-t", "5000" }, 1, "" },
	[R_RQ_BL_T500K] = { "futex_requeue_pi", { "-b", "-l", "-t", "500000" }, 1, "" },
	[R_RQ_L_T500K] = { "futex_requeue_pi", { "-l", "-t", "500000" }, 1, "" },
	[R_RQ_B_T5K] = { "futex_requeue_pi", { "-b", "-t", "5000" }, 1, "" },
	[R_RQ_T5K] = { "futex_requeue_pi", { "-t", "5000" }, 1, "" },
	[R_RQ_B_T500K] = { "futex_requeue_pi", { "-b", "-t", "500000" }, 1, "" },
	[R_RQ_T500K] = { "futex_requeue_pi", { "-t", "500000" }, 1, "" },
	[R_RQ_BO_T5K] = { "futex_requeue_pi", { "-b", "-o", "-t", "5000" }, 1, "" },
	[R_RQ_BO_T500K] = { "futex_requeue_pi", { "-b", "-o", "-t", "500000" }, 1, "" },
	[R_RQ_BL_T2S] = { "futex_requeue_pi", { "-b", "-l", "-t", "2000000000" }, 1, "" },
	[R_RQ_L_T2S] = { "futex_requeue_pi", { "-l", "-t", "2000000000" }, 1, "" },
};

// Runs r once, keeping its standard output: 0, -1 if the program is not
// there, or a failure recorded.
static int run_once(struct run *r)
{
	char path[PATH_MAX + 64];
	const char *argv[7] = { r->prog };
	int pfd[2], status;
	size_t len = 0;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", dir, r->prog);
	if (access(path, X_OK) != 0)
		return -1;
	for (int i = 0; i < 5 && r->args[i]; i++)
		argv[i + 1] = r->args[i];
	if (pipe(pfd) < 0)
		return fail("pipe");
	sysv_note_objects();
	pid = fork_child();
	if (pid == 0) {
		alarm(RUN_TIMEOUT);
		dup2(pfd[1], 1);
		close(pfd[0]);
		// futex_wait makes "futex_shm_file" in its working directory
		// and removes it only if it gets to its end: in /tmp a file it
		// leaves behind (a run cut short by the allocation-failure
		// injection) is removed below and swept by init.
		if (chdir("/tmp") != 0)
			_exit(126);
		execv(path, (char **)argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t n = read(pfd[0], r->out + len, sizeof(r->out) - 1 - len);

		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == sizeof(r->out) - 1)
			break;
	}
	r->out[len] = 0;
	close(pfd[0]);
	status = reap(pid);
	sysv_remove_new_objects();
	unlink("/tmp/futex_shm_file");
	// A program with a failed result exits non-zero: only a death counts.
	if (WIFSIGNALED(status))
		return fail("%s killed by signal %d", r->prog, WTERMSIG(status));
	return 0;
}

// Is there a result line "ok N NAME..." in out?
static int has_ok(const char *out, const char *name)
{
	size_t nl = strlen(name);

	for (const char *line = out; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char *rest;

		if (strncmp(line, "ok ", 3) != 0)
			continue;
		strtol(line + 3, &rest, 10);
		if (*rest == ' ' && strncmp(rest + 1, name, nl) == 0 &&
		    (rest[1 + nl] == ' ' || rest[1 + nl] == '\n' || rest[1 + nl] == 0))
			return 1;
	}
	return 0;
}

// May this machine create SCHED_FIFO threads, as root can on Linux?
static int fifo_allowed(void)
{
	static int known = -1;

	if (known < 0) {
		pid_t pid = fork_child();

		if (pid == 0) {
			struct sched_param sp = { .sched_priority = 1 };
			// Raw: musl's sched_setscheduler is ENOSYS by design.
			_exit(syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &sp) == 0 ? 0 : 1);
		}
		int st = reap(pid);
		known = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	return known;
}

// The result line "ok N NAME..." of run 'which' must be there.
static void expect_ok(int which, const char *name)
{
	struct run *r = &runs[which];

	if (r->rt && !fifo_allowed()) {
		skip("needs SCHED_FIFO threads: sched_setscheduler refuses them (EPERM)");
		return;
	}
	for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
		if (attempt > 0 || !r->out[0]) {
			if (run_once(r) < 0) {
				skip("no Linux selftests (linux-source-6.1 not installed at build time)");
				return;
			}
			if (fail_why[0])
				return;
		}
		if (has_ok(r->out, name))
			return;
	}
	// Its output, as KTAP diagnostics, to tell why.
	for (const char *line = r->out; *line;) {
		size_t n = strcspn(line, "\n");

		printf("# %s: %.*s\n", r->prog, (int)n, line);
		line += n + (line[n] == '\n');
	}
	const char *bad = strstr(r->out, "not ok");
	char line[120] = "";
	if (bad)
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(bad, "\n"), bad);
	fail("%s: no \"ok ... %s\" line in %d runs (%s)", r->prog, name, ATTEMPTS, line);
}

static void t_wait_relative(void) { expect_ok(R_TIMEOUT, "futex_wait relative"); }
static void t_bitset_rt(void) { expect_ok(R_TIMEOUT, "futex_wait_bitset realtime"); }
static void t_bitset_mono(void) { expect_ok(R_TIMEOUT, "futex_wait_bitset monotonic"); }
static void t_requeue_pi_rt(void) { expect_ok(R_TIMEOUT, "futex_wait_requeue_pi realtime"); }
static void t_requeue_pi_mono(void) { expect_ok(R_TIMEOUT, "futex_wait_requeue_pi monotonic"); }
static void t_lock_pi_rt(void) { expect_ok(R_TIMEOUT, "futex_lock_pi realtime"); }
static void t_lock_pi_flag(void) { expect_ok(R_TIMEOUT, "futex_lock_pi invalid timeout flag"); }
static void t_waitv_mono(void) { expect_ok(R_TIMEOUT, "futex_waitv monotonic"); }
static void t_waitv_rt(void) { expect_ok(R_TIMEOUT, "futex_waitv realtime"); }
static void t_wouldblock_wait(void) { expect_ok(R_WOULDBLOCK, "futex_wait"); }
static void t_wouldblock_waitv(void) { expect_ok(R_WOULDBLOCK, "futex_waitv"); }
static void t_mismatched(void) { expect_ok(R_MISMATCHED, "futex-requeue-pi-mismatched-ops"); }
static void t_signal_restart(void) { expect_ok(R_SIGNAL_RESTART, "futex-requeue-pi-signal-restart"); }
static void t_uninit_heap(void) { expect_ok(R_UNINIT_HEAP, "futex-wait-uninitialized-heap"); }
static void t_mapped_file(void) { expect_ok(R_MAPPED_FILE, "futex-wait-private-mapped-file"); }
static void t_wait_private(void) { expect_ok(R_WAIT, "futex_wake private"); }
static void t_wait_anon(void) { expect_ok(R_WAIT, "futex_wake shared (page anon)"); }
static void t_wait_file(void) { expect_ok(R_WAIT, "futex_wake shared (file backed)"); }
static void t_requeue_simple(void) { expect_ok(R_REQUEUE, "futex_requeue simple"); }
static void t_requeue_many(void) { expect_ok(R_REQUEUE, "futex_requeue many"); }
static void t_waitv_private(void) { expect_ok(R_WAITV, "futex_waitv private"); }
static void t_waitv_shared(void) { expect_ok(R_WAITV, "futex_waitv shared"); }
static void t_waitv_no32(void) { expect_ok(R_WAITV, "futex_waitv without FUTEX_32"); }
static void t_waitv_unaligned(void) { expect_ok(R_WAITV, "futex_waitv with an unaligned address"); }
static void t_waitv_null_uaddr(void) { expect_ok(R_WAITV, "futex_waitv NULL address in waitv.uaddr"); }
static void t_waitv_null_waiters(void) { expect_ok(R_WAITV, "futex_waitv NULL address in *waiters"); }
static void t_waitv_clockid(void) { expect_ok(R_WAITV, "futex_waitv invalid clockid"); }
static void t_rq(void) { expect_ok(R_RQ, "futex-requeue-pi"); }
static void t_rq_b(void) { expect_ok(R_RQ_B, "futex-requeue-pi"); }
static void t_rq_bl(void) { expect_ok(R_RQ_BL, "futex-requeue-pi"); }
static void t_rq_bo(void) { expect_ok(R_RQ_BO, "futex-requeue-pi"); }
static void t_rq_l(void) { expect_ok(R_RQ_L, "futex-requeue-pi"); }
static void t_rq_o(void) { expect_ok(R_RQ_O, "futex-requeue-pi"); }
static void t_rq_bl_t5k(void) { expect_ok(R_RQ_BL_T5K, "futex-requeue-pi"); }
static void t_rq_l_t5k(void) { expect_ok(R_RQ_L_T5K, "futex-requeue-pi"); }
static void t_rq_bl_t500k(void) { expect_ok(R_RQ_BL_T500K, "futex-requeue-pi"); }
static void t_rq_l_t500k(void) { expect_ok(R_RQ_L_T500K, "futex-requeue-pi"); }
static void t_rq_b_t5k(void) { expect_ok(R_RQ_B_T5K, "futex-requeue-pi"); }
static void t_rq_t5k(void) { expect_ok(R_RQ_T5K, "futex-requeue-pi"); }
static void t_rq_b_t500k(void) { expect_ok(R_RQ_B_T500K, "futex-requeue-pi"); }
static void t_rq_t500k(void) { expect_ok(R_RQ_T500K, "futex-requeue-pi"); }
static void t_rq_bo_t5k(void) { expect_ok(R_RQ_BO_T5K, "futex-requeue-pi"); }
static void t_rq_bo_t500k(void) { expect_ok(R_RQ_BO_T500K, "futex-requeue-pi"); }
static void t_rq_bl_t2s(void) { expect_ok(R_RQ_BL_T2S, "futex-requeue-pi"); }
static void t_rq_l_t2s(void) { expect_ok(R_RQ_L_T2S, "futex-requeue-pi"); }

static const struct test_case cases[] = {
	{ "futex_wait_timeout_wait_relative", t_wait_relative },
	{ "futex_wait_timeout_bitset_realtime", t_bitset_rt },
	{ "futex_wait_timeout_bitset_monotonic", t_bitset_mono },
	{ "futex_wait_timeout_requeue_pi_realtime", t_requeue_pi_rt },
	{ "futex_wait_timeout_requeue_pi_monotonic", t_requeue_pi_mono },
	{ "futex_wait_timeout_lock_pi_realtime", t_lock_pi_rt },
	{ "futex_wait_timeout_lock_pi_invalid_flag", t_lock_pi_flag },
	{ "futex_wait_timeout_waitv_monotonic", t_waitv_mono },
	{ "futex_wait_timeout_waitv_realtime", t_waitv_rt },
	{ "futex_wait_wouldblock_wait", t_wouldblock_wait },
	{ "futex_wait_wouldblock_waitv", t_wouldblock_waitv },
	{ "futex_requeue_pi_mismatched_ops", t_mismatched },
	{ "futex_requeue_pi_signal_restart", t_signal_restart },
	{ "futex_wait_uninitialized_heap", t_uninit_heap },
	{ "futex_wait_private_mapped_file", t_mapped_file },
	{ "futex_wait_private", t_wait_private },
	{ "futex_wait_shared_anon", t_wait_anon },
	{ "futex_wait_shared_file", t_wait_file },
	{ "futex_requeue_simple", t_requeue_simple },
	{ "futex_requeue_many", t_requeue_many },
	{ "futex_waitv_private", t_waitv_private },
	{ "futex_waitv_shared", t_waitv_shared },
	{ "futex_waitv_without_futex_32", t_waitv_no32 },
	{ "futex_waitv_unaligned", t_waitv_unaligned },
	{ "futex_waitv_null_uaddr", t_waitv_null_uaddr },
	{ "futex_waitv_null_waiters", t_waitv_null_waiters },
	{ "futex_waitv_invalid_clockid", t_waitv_clockid },
	{ "futex_requeue_pi", t_rq },
	{ "futex_requeue_pi_b", t_rq_b },
	{ "futex_requeue_pi_b_l", t_rq_bl },
	{ "futex_requeue_pi_b_o", t_rq_bo },
	{ "futex_requeue_pi_l", t_rq_l },
	{ "futex_requeue_pi_o", t_rq_o },
	{ "futex_requeue_pi_b_l_t5000", t_rq_bl_t5k },
	{ "futex_requeue_pi_l_t5000", t_rq_l_t5k },
	{ "futex_requeue_pi_b_l_t500000", t_rq_bl_t500k },
	{ "futex_requeue_pi_l_t500000", t_rq_l_t500k },
	{ "futex_requeue_pi_b_t5000", t_rq_b_t5k },
	{ "futex_requeue_pi_t5000", t_rq_t5k },
	{ "futex_requeue_pi_b_t500000", t_rq_b_t500k },
	{ "futex_requeue_pi_t500000", t_rq_t500k },
	{ "futex_requeue_pi_b_o_t5000", t_rq_bo_t5k },
	{ "futex_requeue_pi_b_o_t500000", t_rq_bo_t500k },
	{ "futex_requeue_pi_b_l_t2000000000", t_rq_bl_t2s },
	{ "futex_requeue_pi_l_t2000000000", t_rq_l_t2s },
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
