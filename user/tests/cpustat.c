// cpustat: Switchyard's per-CPU counters in /proc/switchyard/cpustat (its
// format is described in lib/cpustat_parse.h).  On a kernel without the
// file (Linux) every case is skipped.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpustat_parse.h"
#include "ktap.h"
#include "sysutil.h"
#include "watchdog.h"

#define WATCHDOG_SECONDS 120
#define NR_CASES 7
#define PINGPONG_ROUNDS 1000

// CPUSTAT_PATH, or the file named by SWITCHYARD_CPUSTAT (see cpustat_file).
static const char *cpustat_path;

static const char *const expected_fields[] = {
	"cpu", "ctxsw", "ctxsw_vol", "ctxsw_invol", "migrations", "ipi_sent", "ipi_recv",
	"ipi_resched", "ipi_call", "ipi_tlb", "syscalls", "pgfaults", "ticks", "idle_ns",
	"xsave", "xsave_skip", "xrstor", "xrstor_skip", "fpu_traps",
	"mb_ipi_sent", "mb_ipi_recv", "mb_sync_core", "rseq_aborts", "rseq_id_writes",
	"timer_irqs", "idle_poll_hits",
	"preempt_ipi", "lb_moves", "rt_pulls", "pi_boosts",
};
#define NR_EXPECTED (int)(sizeof(expected_fields) / sizeof(expected_fields[0]))

static int field_index(const struct cpustat *st, const char *name)
{
	for (int i = 0; i < st->nr_fields; i++)
		if (strcmp(st->names[i], name) == 0)
			return i;
	return -1;
}

static uint64_t field_sum(const struct cpustat *st, int field)
{
	uint64_t sum = 0;

	for (int c = 0; c < st->nr_cpus; c++)
		sum += st->value[c][field];
	return sum;
}

// The row whose first field is 'cpu', or -1.
static int row_of_cpu(const struct cpustat *st, int cpu)
{
	for (int c = 0; c < st->nr_cpus; c++)
		if ((int)st->value[c][0] == cpu)
			return c;
	return -1;
}

static struct cpustat before, after;

// ---- cases ----

static void test_parses(void)
{
	int ok = cpustat_snapshot(cpustat_path, &before);
	int missing = 0;

	if (!ok)
		ktap_diag("parse error: %s", before.error);
	for (int i = 0; ok && i < NR_EXPECTED; i++)
		if (field_index(&before, expected_fields[i]) < 0) {
			ktap_diag("missing field '%s'", expected_fields[i]);
			missing++;
		}
	ktap_result(ok && missing == 0 && before.nr_fields == NR_EXPECTED, "cpustat_parses");
}

static void test_one_line_per_cpu(void)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int ok = cpustat_snapshot(cpustat_path, &before) && before.nr_cpus == online;

	for (int c = 0; ok && c < before.nr_cpus; c++)
		if (before.value[c][0] != (uint64_t)c)
			ok = 0;
	ktap_diag("%d CPU lines, %ld CPUs online", before.nr_cpus, online);
	ktap_result(ok, "one_line_per_online_cpu");
}

static void test_reset(void)
{
	long long start = now_ns(CLOCK_MONOTONIC);
	int ok = cpustat_reset(cpustat_path) && cpustat_snapshot(cpustat_path, &after);
	long long elapsed = now_ns(CLOCK_MONOTONIC) - start;
	int idle = field_index(&after, "idle_ns");

	for (int c = 0; ok && c < after.nr_cpus; c++)
		for (int f = 1; f < after.nr_fields; f++) {
			uint64_t v = after.value[c][f];
			// Time may pass on idle CPUs; counts only by a little.
			uint64_t limit = f == idle ? (uint64_t)elapsed + 10000000ULL : 1000;

			if (v > limit) {
				ktap_diag("after reset cpu %d %s = %llu", c, after.names[f], (unsigned long long)v);
				ok = 0;
			}
		}
	ktap_result(ok, "reset_zeroes_counters");
}

static int pipe_pingpong(int cpu, int rounds)
{
	int to_child[2], to_parent[2];
	char c = 'p';
	pid_t pid;
	int status, ok = 1;

	if (pipe(to_child) != 0 || pipe(to_parent) != 0)
		return 0;
	pid = fork();
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		pin_self(cpu);
		// Tell the parent we are pinned and about to block.
		if (write(to_parent[1], &c, 1) != 1)
			_exit(1);
		for (int i = 0; i < rounds; i++)
			if (read(to_child[0], &c, 1) != 1 || write(to_parent[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	if (read(to_parent[0], &c, 1) != 1)
		ok = 0;
	ok = ok && cpustat_snapshot(cpustat_path, &before);
	for (int i = 0; ok && i < rounds; i++)
		if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &c, 1) != 1)
			ok = 0;
	ok = cpustat_snapshot(cpustat_path, &after) && ok;
	// Closing the pipes first ends a child left waiting by a failure.
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
	waitpid(pid, &status, 0);
	return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_pingpong_ctxsw(void)
{
	cpu_set_t mask;
	int cpu = 0, ok, f;
	uint64_t delta, delta_cpu = 0;
	uint64_t low = 2 * PINGPONG_ROUNDS;
	uint64_t high = low + PINGPONG_ROUNDS / 2 + 200;

	sched_getaffinity(0, sizeof(mask), &mask);
	while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &mask))
		cpu++;
	pin_self(cpu);
	ok = pipe_pingpong(cpu, PINGPONG_ROUNDS);
	sched_setaffinity(0, sizeof(mask), &mask);
	f = field_index(&after, "ctxsw");
	if (!ok || f < 0) {
		ktap_result(0, "pingpong_ctxsw_count # ping-pong or parse failed");
		return;
	}
	delta = field_sum(&after, f) - field_sum(&before, f);
	int row_a = row_of_cpu(&after, cpu), row_b = row_of_cpu(&before, cpu);
	if (row_a >= 0 && row_b >= 0)
		delta_cpu = after.value[row_a][f] - before.value[row_b][f];
	ktap_diag("%d round trips on CPU %d: ctxsw +%llu (that CPU +%llu), expected %llu..%llu",
		  PINGPONG_ROUNDS, cpu, (unsigned long long)delta, (unsigned long long)delta_cpu,
		  (unsigned long long)low, (unsigned long long)high);
	ktap_result(delta >= low && delta <= high && delta_cpu >= low, "pingpong_ctxsw_count");
}

static void test_syscalls_counted(void)
{
	enum { CALLS = 2000 };
	int f, ok = cpustat_snapshot(cpustat_path, &before);

	for (int i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
	ok = cpustat_snapshot(cpustat_path, &after) && ok;
	f = field_index(&after, "syscalls");
	if (!ok || f < 0) {
		ktap_result(0, "syscalls_counted # parse failed");
		return;
	}
	uint64_t delta = field_sum(&after, f) - field_sum(&before, f);
	ktap_diag("%d getppid calls: syscalls +%llu", CALLS, (unsigned long long)delta);
	ktap_result(delta >= CALLS, "syscalls_counted");
}

static void test_monotonic(void)
{
	int ok = cpustat_snapshot(cpustat_path, &before);

	// Counters only grow between two reads (no reset in between).
	sched_yield();
	ok = cpustat_snapshot(cpustat_path, &after) && ok && after.nr_cpus == before.nr_cpus;
	for (int c = 0; ok && c < after.nr_cpus; c++)
		for (int f = 1; f < after.nr_fields; f++)
			if (after.value[c][f] < before.value[c][f]) {
				ktap_diag("cpu %d %s went backwards", c, after.names[f]);
				ok = 0;
			}
	ktap_result(ok, "counters_monotonic");
}

// Regression: the file must read the same in small pieces as in one
// read, while counters change between the pieces (a reader such as cat
// or stdio takes what fits its buffer).
static void test_small_reads(void)
{
	static char text[65536];
	struct cpustat st;
	int ok = 1;

	for (int round = 0; ok && round < 50; round++) {
		// Small counters gain digits fastest while we read.
		cpustat_reset(cpustat_path);
		int fd = open(cpustat_path, O_RDONLY);
		size_t len = 0;
		ssize_t n;

		if (fd < 0) {
			ok = 0;
			break;
		}
		while (len + 7 < sizeof(text) && (n = read(fd, text + len, 7)) > 0) {
			len += (size_t)n;
			getppid();	// counters move between the pieces
		}
		close(fd);
		text[len] = 0;
		if (!cpustat_parse(text, &st)) {
			ktap_diag("round %d: %s", round, st.error);
			ok = 0;
		}
	}
	ktap_result(ok, "read_in_small_pieces");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	start_watchdog("cpustat", WATCHDOG_SECONDS);
	ktap_plan(NR_CASES);

	cpustat_path = cpustat_file();
	if (access(cpustat_path, R_OK) != 0) {
		static const char *const names[NR_CASES] = {
			"cpustat_parses", "one_line_per_online_cpu", "reset_zeroes_counters",
			"pingpong_ctxsw_count", "syscalls_counted", "counters_monotonic",
			"read_in_small_pieces",
		};

		for (int i = 0; i < NR_CASES; i++)
			ktap_skip(names[i], "no " CPUSTAT_PATH " (not Switchyard)");
		return ktap_finish();
	}
	test_parses();
	test_one_line_per_cpu();
	test_reset();
	test_pingpong_ctxsw();
	test_syscalls_counted();
	test_monotonic();
	test_small_reads();
	return ktap_finish();
}
