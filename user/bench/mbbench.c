// mbbench: what membarrier(2) costs, and what it costs others.
//
// 1. Latency per call of each command (QUERY as the bare syscall floor,
//    GLOBAL, GLOBAL_EXPEDITED, PRIVATE_EXPEDITED, PRIVATE_EXPEDITED_SYNC_CORE,
//    and PRIVATE_EXPEDITED_RSEQ where QUERY offers it), the caller pinned
//    to the first CPU, with
//      load=alone        the caller's process has no other thread;
//      load=siblings:K   K threads of the caller's process spin on the
//                        next K CPUs (K = 1 .. N-1);
//      load=unrelated:K  another process spins on the other K CPUs (the
//                        caller has one more thread, asleep).
//    The calls are timed in batches of 8 (GLOBAL: one at a time, 50 in
//    all), for -d seconds per row in 10 segments, the rows of one load
//    taking turns segment by segment (a phase of the host's load falls
//    on all of them alike); each row gives the mean and the distribution
//    of the batches' µs per call (p10, median, p90): on a loaded host one
//    batch can wait a host scheduling slice, and the median and the
//    spread say so where a mean would not.  Each row carries the counters over
//    the run: Switchyard's (/proc/switchyard/cpustat; "-" elsewhere)
//    membarrier IPIs sent, received by the sibling CPUs, received by the
//    unrelated process's CPUs (0 is the point), and core serializations;
//    on both kernels the IPIs the other CPUs took per call (Switchyard:
//    its membarrier IPIs; Linux: function-call interrupts, the CAL line
//    of /proc/interrupts), beside busy=K, the CPUs running a sibling,
//    which an expedited command must interrupt (or see pass a barrier);
//    and Switchyard's own timing of its IPIs (/proc/switchyard/mbstat):
//    the mean round trip from the send to the last handler done (krt_us),
//    its largest when this row set a new one (krt_max_us), and the mean
//    delay from the send to a handler's start (kipi_us).
//
//      RESULT membarrier kernel=.. policy=.. cmd=PRIVATE_EXPEDITED load=siblings:1
//             calls=N usecs_per_call=X p10_us=.. median_us=.. p90_us=..
//             ipi_sent=.. ipi_recv_siblings=.. ipi_recv_unrelated=.. sync_core=..
//             busy=1 ipis_per_call=.. krt_us=.. krt_max_us=.. kipi_us=..
//
// 2. What SYNC_CORE registration costs a pipe round trip between two
//    threads of one process on one CPU: the process unregistered vs
//    registered, and an unregistered process beside (same CPU) an
//    unregistered vs a registered one.  Runs alternate, medians of 3:
//
//      RESULT mbpipe kernel=.. policy=.. case=registered usecs_per_rt=X
//      RESULT mbpipe_cost kernel=.. policy=.. registered_pct=X unregistered_pct=Y
//
// usage: mbbench [-n NCPU] [-d SECONDS] [-p] [-l]
//   -n  CPUs to use (default: all online)   -d  seconds per measurement (0.5)
//   -p  only the pipe part                  -l  only the latency part
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "cpustat_parse.h"
#include "membarrier_abi.h"

static const struct { const char *name; int cmd; } commands[] = {
	{ "QUERY", CMD_QUERY },
	{ "GLOBAL", CMD_GLOBAL },
	{ "GLOBAL_EXPEDITED", CMD_GLOBAL_EXP },
	{ "PRIVATE_EXPEDITED", CMD_PRIVATE_EXP },
	{ "PRIVATE_EXPEDITED_SYNC_CORE", CMD_SYNC_CORE },
	{ "PRIVATE_EXPEDITED_RSEQ", CMD_RSEQ },
};
#define NR_COMMANDS (int)(sizeof(commands) / sizeof(commands[0]))

static int ncpu;
static double seconds = 0.5;
static char kernel[32], policy[64];
static int have_counters, have_mbstat;
static struct cpustat before, after, mb_before, mb_after;

#define MBSTAT_PATH "/proc/switchyard/mbstat"
#define MAX_SAMPLES 20000	// batches per row
#define SEGMENTS 10		// segments per row, interleaved with the other rows'

static long mb(int cmd)
{
	return syscall(SYS_membarrier, cmd, 0, 0);
}

// ---- spinning load ----

static volatile int stop_spinning;

static void *spin(void *arg)
{
	pin_self((int)(intptr_t)arg);
	while (!stop_spinning)
		;
	return NULL;
}

// K threads of this process on CPUs 1..K.
static int start_siblings(pthread_t *t, int k)
{
	stop_spinning = 0;
	for (int i = 0; i < k; i++)
		if (pthread_create(&t[i], NULL, spin, (void *)(intptr_t)(i + 1)) != 0)
			return i;
	sleep_ms(30);
	return k;
}

static void stop_siblings(pthread_t *t, int k)
{
	stop_spinning = 1;
	for (int i = 0; i < k; i++)
		pthread_join(t[i], NULL);
}

// Another process spinning on CPUs 1..k until killed.
static pid_t start_unrelated(int k)
{
	pid_t pid = fork();

	if (pid == 0) {
		pthread_t t[CPU_SETSIZE];

		for (int i = 1; i < k; i++)
			pthread_create(&t[i], NULL, spin, (void *)(intptr_t)(i + 1));
		spin((void *)(intptr_t)1);
		_exit(0);
	}
	sleep_ms(30);
	return pid;
}

static void *sleep_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

// ---- counters ----

static uint64_t counter(const struct cpustat *st, const char *name, int cpu)
{
	for (int f = 0; f < st->nr_fields; f++)
		if (!strcmp(st->names[f], name))
			for (int r = 0; r < st->nr_cpus; r++)
				if ((int)st->value[r][0] == cpu)
					return st->value[r][f];
	return 0;
}

static uint64_t counter_delta(const char *name, int first, int last)
{
	uint64_t sum = 0;

	for (int cpu = first; cpu <= last; cpu++)
		sum += counter(&after, name, cpu) - counter(&before, name, cpu);
	return sum;
}

static void snapshot(struct cpustat *st)
{
	if (have_counters && !cpustat_snapshot(CPUSTAT_PATH, st))
		have_counters = 0;
}

static void snapshot_mbstat(struct cpustat *st)
{
	if (have_mbstat && !cpustat_snapshot(MBSTAT_PATH, st))
		have_mbstat = 0;
}

// Linux's function-call interrupts per CPU (smp_call_function_many,
// which its membarrier uses), from the CAL line of /proc/interrupts:
// "CAL:  12  34  Function call interrupts".  0 if there is none.
static int read_cal(uint64_t *per_cpu, int n)
{
	static char text[1 << 16];
	char *line;

	memset(per_cpu, 0, sizeof(*per_cpu) * (size_t)n);
	if (read_file("/proc/interrupts", text, sizeof(text)) <= 0)
		return 0;
	for (line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char *p = line + strspn(line, " ");
		if (strncmp(p, "CAL:", 4) != 0)
			continue;
		p += 4;
		for (int i = 0; i < n; i++) {
			char *end;
			per_cpu[i] = strtoull(p, &end, 10);
			if (end == p)
				return 0;
			p = end;
		}
		return 1;
	}
	return 0;
}

static uint64_t cal_before[CPU_SETSIZE], cal_after[CPU_SETSIZE];
static int have_cal;

// IPIs the CPUs first..last took during the row: Switchyard's membarrier
// IPIs, or Linux's function-call interrupts; -1 if neither is readable.
static double ipis_taken(int first, int last)
{
	uint64_t sum = 0;

	if (first > last)
		return 0;
	if (have_counters)
		return (double)counter_delta("mb_ipi_recv", first, last);
	if (!have_cal)
		return -1;
	for (int cpu = first; cpu <= last; cpu++)
		sum += cal_after[cpu] - cal_before[cpu];
	return (double)sum;
}

// ---- part 1: latency per call ----

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

// What one row gathers over its segments: the timed batches, the
// calls, and every counter's change summed over the segments only (the
// other commands' segments in between are not counted).
struct row {
	long calls;
	double elapsed;			// seconds, all segments
	int nsamples;
	double *samples;		// µs per call of each batch
	uint64_t sent, recv_sib, recv_unrel, sync_core;
	double taken;			// IPIs CPUs 1..N-1 took; < 0: unknown
	uint64_t rt_n, rt_cycles, rt_max, ipi_n, ipi_cycles;
	double per_us;			// mbstat's cycles per µs; 0: no mbstat
};

static struct row rows[NR_COMMANDS];
static double sample_store[NR_COMMANDS][MAX_SAMPLES];

static uint64_t mb_delta(const char *name, int first, int last)
{
	uint64_t sum = 0;

	for (int cpu = first; cpu <= last; cpu++)
		sum += counter(&mb_after, name, cpu) - counter(&mb_before, name, cpu);
	return sum;
}

// Calls 'cmd' in timed batches (GLOBAL: single calls, at most 50 in
// all) for 'secs', into r, with the counters' changes over the segment.
// Each segment takes at most its share of the row's calls and batches.
static void segment(struct row *r, int cmd, double secs, int sib_last, int unrel_first,
		    int unrel_last)
{
	int batch = cmd == CMD_GLOBAL ? 1 : 8, limit = r->nsamples + MAX_SAMPLES / SEGMENTS;
	long max = cmd == CMD_GLOBAL ? 50 / SEGMENTS : 100000000;
	double start, now, taken;
	long n = 0;

	snapshot(&before);
	snapshot_mbstat(&mb_before);
	have_cal = !have_counters && read_cal(cal_before, ncpu);
	start = now = now_seconds();
	while (n < max && now - start < secs && r->nsamples < limit) {
		double t0 = now;
		for (int i = 0; i < batch; i++)
			mb(cmd);
		n += batch;
		now = now_seconds();
		r->samples[r->nsamples++] = (now - t0) * 1e6 / batch;
	}
	have_cal = have_cal && read_cal(cal_after, ncpu);
	snapshot_mbstat(&mb_after);
	snapshot(&after);
	r->calls += n;
	r->elapsed += now - start;
	taken = ipis_taken(1, ncpu - 1);
	r->taken = taken < 0 || r->taken < 0 ? -1 : r->taken + taken;
	if (have_counters) {
		r->sent += counter_delta("mb_ipi_sent", 0, ncpu - 1);
		r->recv_sib += sib_last >= 1 ? counter_delta("mb_ipi_recv", 1, sib_last) : 0;
		r->recv_unrel += unrel_first > 0 ?
			counter_delta("mb_ipi_recv", unrel_first, unrel_last) : 0;
		r->sync_core += counter_delta("mb_sync_core", 0, ncpu - 1);
	}
	if (have_mbstat) {
		uint64_t max0 = counter(&mb_before, "rt_max", 0), max1 = counter(&mb_after, "rt_max", 0);

		r->rt_n += mb_delta("rt_count", 0, 0);
		r->rt_cycles += mb_delta("rt_cycles", 0, 0);
		if (max1 > max0 && max1 > r->rt_max)
			r->rt_max = max1;	// a new largest: this segment's
		r->ipi_n += mb_delta("ipi_count", 1, ncpu - 1);
		r->ipi_cycles += mb_delta("ipi_cycles", 1, ncpu - 1);
		r->per_us = (double)counter(&mb_after, "cycles_per_ms", 0) / 1000.0;
	}
}

static void print_row(const char *name, struct row *r, const char *load, int busy)
{
	char sent[24] = "-", sib[24] = "-", unrel[24] = "-", core[24] = "-", per_call[24] = "-";
	char krt[24] = "-", krt_max[24] = "-", kipi[24] = "-";
	int n = r->nsamples;

	if (r->calls == 0 || n == 0)
		return;
	qsort(r->samples, (size_t)n, sizeof(r->samples[0]), compare_doubles);
	if (r->taken >= 0)
		snprintf(per_call, sizeof(per_call), "%.3f", r->taken / (double)r->calls);
	if (have_counters) {
		snprintf(sent, sizeof(sent), "%llu", (unsigned long long)r->sent);
		snprintf(sib, sizeof(sib), "%llu", (unsigned long long)r->recv_sib);
		snprintf(unrel, sizeof(unrel), "%llu", (unsigned long long)r->recv_unrel);
		snprintf(core, sizeof(core), "%llu", (unsigned long long)r->sync_core);
	}
	if (r->per_us > 0 && r->rt_n)
		snprintf(krt, sizeof(krt), "%.3f", (double)r->rt_cycles / (double)r->rt_n / r->per_us);
	if (r->per_us > 0 && r->rt_max)
		snprintf(krt_max, sizeof(krt_max), "%.3f", (double)r->rt_max / r->per_us);
	if (r->per_us > 0 && r->ipi_n)
		snprintf(kipi, sizeof(kipi), "%.3f", (double)r->ipi_cycles / (double)r->ipi_n / r->per_us);
	printf("RESULT membarrier kernel=%s policy=%s cmd=%s load=%s calls=%ld usecs_per_call=%.3f "
	       "p10_us=%.3f median_us=%.3f p90_us=%.3f "
	       "ipi_sent=%s ipi_recv_siblings=%s ipi_recv_unrelated=%s sync_core=%s "
	       "busy=%d ipis_per_call=%s krt_us=%s krt_max_us=%s kipi_us=%s\n",
	       kernel, policy, name, load, r->calls, r->elapsed * 1e6 / (double)r->calls,
	       r->samples[n * 10 / 100], r->samples[n / 2], r->samples[n * 90 / 100],
	       sent, sib, unrel, core, busy, per_call, krt, krt_max, kipi);
	fflush(stdout);
}

// Every command offered, under one load, in SEGMENTS rounds of short
// segments, one command after the other: a phase of the host's load
// (another guest holding the cores for a while) then falls on every
// command alike instead of on whichever row ran at that moment.
static void all_commands(const char *load, int sib_last, int unrel_first, int unrel_last)
{
	int offered = (int)mb(CMD_QUERY);

	for (int c = 0; c < NR_COMMANDS; c++)
		rows[c] = (struct row){ .samples = sample_store[c] };
	for (int round = 0; round < SEGMENTS; round++)
		for (int c = 0; c < NR_COMMANDS; c++)
			if (!commands[c].cmd || (offered & commands[c].cmd))
				segment(&rows[c], commands[c].cmd, seconds / SEGMENTS, sib_last,
					unrel_first, unrel_last);
	for (int c = 0; c < NR_COMMANDS; c++)
		if (!commands[c].cmd || (offered & commands[c].cmd))
			print_row(commands[c].name, &rows[c], load, sib_last);
}

// In a child, so that "alone" really has one thread and the
// registrations end with it.
static void latency_part(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		int offered = (int)mb(CMD_QUERY);
		pthread_t t[CPU_SETSIZE];
		char load[32];

		pin_self(0);
		mb(CMD_REG_PRIVATE_EXP);
		mb(CMD_REG_SYNC_CORE);
		mb(CMD_REG_GLOBAL_EXP);
		if (offered & CMD_REG_RSEQ)
			mb(CMD_REG_RSEQ);
		all_commands("alone", 0, 0, 0);
		for (int k = 1; k < ncpu; k++) {
			int got = start_siblings(t, k);
			snprintf(load, sizeof(load), "siblings:%d", k);
			if (got == k)
				all_commands(load, k, 0, 0);
			stop_siblings(t, got);
		}
		if (ncpu > 1) {
			pthread_t sleeper;
			pthread_create(&sleeper, NULL, sleep_forever, NULL);
			pid_t other = start_unrelated(ncpu - 1);
			snprintf(load, sizeof(load), "unrelated:%d", ncpu - 1);
			all_commands(load, 0, 1, ncpu - 1);
			kill(other, SIGKILL);
			waitpid(other, NULL, 0);
		}
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

// ---- part 2: pipe round trips ----

struct pingpong {
	int to_b[2], to_a[2];
	double seconds;		// 0: until the pipe closes
	long rounds;
};

static void *echo_side(void *arg)
{
	struct pingpong *p = arg;
	char c;

	pin_self(0);
	while (read(p->to_b[0], &c, 1) == 1 && write(p->to_a[1], &c, 1) == 1)
		;
	return NULL;
}

// Two threads of this process on CPU 0; usecs per round trip.
static double pingpong(double secs)
{
	struct pingpong p = { .seconds = secs };
	pthread_t b;
	char c = 'x';
	double start, now;
	long n = 0;

	if (pipe(p.to_b) || pipe(p.to_a))
		return -1;
	pin_self(0);
	pthread_create(&b, NULL, echo_side, &p);
	start = now = now_seconds();
	while (secs <= 0 || now - start < secs) {
		for (int i = 0; i < 64; i++, n++)
			if (write(p.to_b[1], &c, 1) != 1 || read(p.to_a[0], &c, 1) != 1)
				return -1;
		now = now_seconds();
	}
	close(p.to_b[1]);
	pthread_join(b, NULL);
	close(p.to_b[0]);
	close(p.to_a[0]);
	close(p.to_a[1]);
	return (now - start) * 1e6 / (double)n;
}

// A process (registered or not) measuring its own round trips; the
// result comes back through shared memory.
static pid_t start_measured(int registered, double secs, volatile double *out)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (registered && mb(CMD_REG_SYNC_CORE) != 0)
			_exit(2);
		*out = pingpong(secs);
		_exit(0);
	}
	return pid;
}

// The background process: ping-pongs until killed.
static pid_t start_background(int registered)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (registered && mb(CMD_REG_SYNC_CORE) != 0)
			_exit(2);
		pingpong(1e9);
		_exit(0);
	}
	sleep_ms(20);
	return pid;
}

enum { UNREG, REG, UNREG_BESIDE_UNREG, UNREG_BESIDE_REG, NR_PIPE_CASES };
static const char *const pipe_case_names[] = {
	"unregistered", "registered", "unregistered_beside_unregistered",
	"unregistered_beside_registered",
};

static double run_pipe_case(int which, volatile double *shared)
{
	pid_t bg = -1, pid;

	*shared = -1;
	if (which == UNREG_BESIDE_UNREG || which == UNREG_BESIDE_REG)
		bg = start_background(which == UNREG_BESIDE_REG);
	pid = start_measured(which == REG, seconds * 2, shared);
	waitpid(pid, NULL, 0);
	if (bg > 0) {
		kill(bg, SIGKILL);
		waitpid(bg, NULL, 0);
	}
	return *shared;
}

static void pipe_part(void)
{
	enum { ROUNDS = 3 };
	double v[NR_PIPE_CASES][ROUNDS], median[NR_PIPE_CASES];
	volatile double *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (shared == MAP_FAILED)
		return;
	for (int r = 0; r < ROUNDS; r++)
		for (int c = 0; c < NR_PIPE_CASES; c++)
			v[c][r] = run_pipe_case(c, shared);
	for (int c = 0; c < NR_PIPE_CASES; c++) {
		qsort(v[c], ROUNDS, sizeof(double), compare_doubles);
		median[c] = v[c][ROUNDS / 2];
		printf("RESULT mbpipe kernel=%s policy=%s case=%s cpus=0,0 usecs_per_rt=%.3f "
		       "min=%.3f max=%.3f\n", kernel, policy, pipe_case_names[c], median[c],
		       v[c][0], v[c][ROUNDS - 1]);
	}
	printf("RESULT mbpipe_cost kernel=%s policy=%s registered_pct=%.2f unregistered_pct=%.2f\n",
	       kernel, policy, 100.0 * (median[REG] / median[UNREG] - 1),
	       100.0 * (median[UNREG_BESIDE_REG] / median[UNREG_BESIDE_UNREG] - 1));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int only_pipe = 0, only_latency = 0, opt;

	while ((opt = getopt(argc, argv, "n:d:plh")) != -1) {
		switch (opt) {
		case 'n': ncpu = atoi(optarg); break;
		case 'd': seconds = atof(optarg); break;
		case 'p': only_pipe = 1; break;
		case 'l': only_latency = 1; break;
		default:
			fprintf(stderr, "usage: mbbench [-n NCPU] [-d SECONDS] [-p] [-l]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (ncpu <= 0)
		ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu <= 0)
		ncpu = 1;
	if (seconds <= 0)
		seconds = 0.5;
	if (mb(CMD_QUERY) < 0) {
		printf("SKIP membarrier: QUERY failed: %s\n", strerror(errno));
		return 0;
	}
	kernel_and_policy(kernel, sizeof(kernel), policy, sizeof(policy));
	mount_proc();	// Linux's /proc/interrupts
	have_counters = access(CPUSTAT_PATH, R_OK) == 0;
	have_mbstat = access(MBSTAT_PATH, R_OK) == 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!only_pipe)
		latency_part();
	if (!only_latency)
		pipe_part();
	return 0;
}
