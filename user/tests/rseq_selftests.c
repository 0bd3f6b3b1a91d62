// rseq_selftests: Linux 6.1's own rseq selftests, built unmodified from
// Debian's linux-source-6.1 by scripts/build-rseq-selftests, run as
// they are: basic_test, basic_percpu_ops_test, and param_test (with its
// compare-twice build) in every mode of the selftests' run_param_test.sh,
// plain and with its delay, yield, signal and sleep injections, but with
// fewer repetitions and threads (the script's 1000 repetitions and
// 10000-loop delays take hours under emulation).  The membarrier mode
// runs when membarrier offers PRIVATE_EXPEDITED_RSEQ.  The programs live
// in ../linux-selftests/rseq from this program's own directory
// (/linux-selftests/rseq on Switchyard); without them every case is
// skipped.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testcase.h"

#define REPS "100"
#define THREADS "6"
// Seconds one program may take.  basic_percpu_ops_test runs 200 threads
// on per-CPU rseq spinlocks: on one CPU a holder preempted in its critical
// section leaves the others to spin away a whole slice each (one tick
// here; Linux's slice shrinks to 0.75 ms with 200 runnable threads), so a
// run that usually takes under a minute has a tail past 100 s (one CI run).
#define RUN_TIMEOUT 240
#define MEMBARRIER_CMD_QUERY 0
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ (1 << 7)

static char dir[PATH_MAX];

// Runs dir/PROG with 'args' (NULL-terminated), its output discarded;
// records a failure unless it exits 0.
static int run(const char *prog, const char *const *args)
{
	char path[PATH_MAX + 64];
	char *argv[24];
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, prog);
	argv[n++] = (char *)prog;
	for (; args && *args && n < 23; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
	// Each program gets its own time (a loaded host or emulation makes
	// the 200-thread ones slow): the child's watchdog, then the case's.
	alarm(RUN_TIMEOUT + 10);
	pid_t pid = fork_child();
	if (pid == 0) {
		alarm(RUN_TIMEOUT);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execv(path, argv);
		_exit(127);
	}
	char what[256];
	size_t len = 0;
	for (int i = 0; i < n; i++)
		len += snprintf(what + len, sizeof(what) - len, "%s%s", i ? " " : "", argv[i]);
	return check_child_ok(pid, what);
}

static int have_programs(void)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/param_test", dir);
	if (access(path, X_OK) == 0)
		return 1;
	skip("no Linux selftests (linux-source-6.1 not installed at build time)");
	return 0;
}

static void test_basic(void)
{
	if (have_programs())
		run("basic_test", NULL);
}

static void test_basic_percpu_ops(void)
{
	if (have_programs())
		run("basic_percpu_ops_test", NULL);
}

// The injections of run_param_test.sh, scaled down: none, a delay loop at
// each of the nine points, and at the three blocking points a yield,
// signal or 1 ms sleep every fourth time.
static const char *const injections[][6] = {
	{ NULL },
	{ "-1", "100", NULL }, { "-2", "100", NULL }, { "-3", "100", NULL },
	{ "-4", "100", NULL }, { "-5", "100", NULL }, { "-6", "100", NULL },
	{ "-7", "100", NULL }, { "-8", "100", NULL }, { "-9", "100", NULL },
	{ "-7", "-1", "-m", "4", "-y", NULL }, { "-8", "-1", "-m", "4", "-y", NULL },
	{ "-9", "-1", "-m", "4", "-y", NULL },
	{ "-7", "-1", "-m", "4", "-k", NULL }, { "-8", "-1", "-m", "4", "-k", NULL },
	{ "-9", "-1", "-m", "4", "-k", NULL },
	{ "-7", "-1", "-m", "4", "-s", "1" }, { "-8", "-1", "-m", "4", "-s", "1" },
	{ "-9", "-1", "-m", "4", "-s", "1" },
};
#define NR_INJECTIONS (int)(sizeof(injections) / sizeof(injections[0]))

// param_test and param_test_compare_twice in one mode ("-T x" and maybe
// "-M"), with every injection.
static void param_mode(const char *mode, int barrier)
{
	if (!have_programs())
		return;
	for (int i = 0; i < NR_INJECTIONS && !fail_why[0]; i++) {
		const char *args[16];
		int n = 0;
		args[n++] = "-T";
		args[n++] = mode;
		if (barrier)
			args[n++] = "-M";
		args[n++] = "-r";
		args[n++] = REPS;
		args[n++] = "-t";
		args[n++] = THREADS;
		for (int j = 0; j < 6 && injections[i][j]; j++)
			args[n++] = injections[i][j];
		args[n] = NULL;
		run("param_test", args);
		run("param_test_compare_twice", args);
	}
}

static void test_spinlock(void) { param_mode("s", 0); }
static void test_list(void) { param_mode("l", 0); }
static void test_buffer(void) { param_mode("b", 0); }
static void test_buffer_barrier(void) { param_mode("b", 1); }
static void test_memcpy(void) { param_mode("m", 0); }
static void test_memcpy_barrier(void) { param_mode("m", 1); }
static void test_increment(void) { param_mode("i", 0); }

static void test_membarrier(void)
{
	long mask = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (mask < 0 || !(mask & MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ)) {
		skip("membarrier has no PRIVATE_EXPEDITED_RSEQ");
		return;
	}
	param_mode("r", 0);
}

static const struct test_case cases[] = {
	{ "basic_test", test_basic },
	{ "basic_percpu_ops_test", test_basic_percpu_ops },
	{ "param_test_spinlock", test_spinlock },
	{ "param_test_list", test_list },
	{ "param_test_buffer", test_buffer },
	{ "param_test_buffer_with_barrier", test_buffer_barrier },
	{ "param_test_memcpy", test_memcpy },
	{ "param_test_memcpy_with_barrier", test_memcpy_barrier },
	{ "param_test_increment", test_increment },
	{ "param_test_membarrier", test_membarrier },
};

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	// Without /proc (a bare Linux guest) argv[0] says where we are.
	if (n <= 0 && argc > 0)
		n = snprintf(self, sizeof(self), "%s", argv[0]);
	if (n > 0 && n < (ssize_t)sizeof(self)) {
		self[n] = 0;
		snprintf(dir, sizeof(dir), "%s/../linux-selftests/rseq", dirname(self));
	}
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
