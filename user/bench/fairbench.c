// fairbench: does the scheduler share the CPUs as the nice levels say?
// N CPU-bound threads, each with its nice level (setpriority on its own
// thread id, as Linux's per-thread nice), allowed on CPUs 0..C-1, spin
// for S seconds; each thread's CPU time (CLOCK_THREAD_CPUTIME_ID) over the
// run is compared with the share its weight entitles it to, from Linux's
// nice-to-weight table, no thread getting more than one CPU.
//
// Output: per thread, then per scenario,
//   RESULT fair kernel=.. policy=.. scenario=nice0055 cpus=2 thread=2 nice=5
//          cpu_ms=X share_pct=X entitled_pct=X dev_pct=X
//   RESULT fairsum kernel=.. policy=.. scenario=nice0055 cpus=2 threads=4 seconds=S
//          busy_pct=X max_dev_pct=X
// share_pct is the thread's part of all the threads' CPU time, dev_pct
// |share - entitled| / entitled in percent, busy_pct the threads' CPU time
// over S x C.  A kernel that cannot set a nice level prints
//   RESULT fairsum ... unsupported=setpriority:ENOSYS
//
// Then the SCHED_FIFO check: a SCHED_OTHER thread spins on CPU 0; a
// SCHED_FIFO thread on CPU 0 sleeps 1 ms (absolute, CLOCK_MONOTONIC) and
// spins 2 ms, R times:
//   RESULT fifo kernel=.. policy=.. rounds=R late_median_us=X late_p90_us=X
//          late_max_us=X other_ran=K
// late_* is how long after its deadline the FIFO thread ran despite the
// spinner, other_ran the rounds in which the spinner advanced while the
// FIFO thread was running (0 when FIFO strictly preempts).
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"
#include "bench_util.h"

#define MAX_THREADS 16

// Linux's weights for nice -20..19 (kernel/sched/core.c): each level is
// about 10% of CPU time against a neighbour.
static const int nice_weight[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
	110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
};

struct scenario {
	const char *name;
	int ncpu;	// allowed on CPUs 0..ncpu-1
	int n;
	int nice[MAX_THREADS];
};

static struct scenario scenarios[] = {
	{ "equal3", 2, 3, { 0, 0, 0 } },
	{ "nice0055", 2, 4, { 0, 0, 5, 5 } },
	{ "pinned05", 1, 2, { 0, 5 } },
};
static int nscenarios = 3;

struct worker {
	pthread_t thread;
	int ncpu, nice;
	int err;		// errno of pinning or setpriority, 0 if fine
	long long cpu_ns;	// CPU time over the run
};

static _Atomic int ready, go, stop;
static double seconds = 2;
static int fifo_rounds = 20;
static const char *only;
static char kernel[32], policy[48];

static int pin_to_first(int ncpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int cpu = 0; cpu < ncpu; cpu++)
		CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0 ? 0 : errno;
}

static void *spin_worker(void *arg)
{
	struct worker *w = arg;

	w->err = pin_to_first(w->ncpu);
	if (!w->err && w->nice != 0 && setpriority(PRIO_PROCESS, (id_t)my_tid(), w->nice) != 0)
		w->err = errno;
	atomic_fetch_add(&ready, 1);
	while (!atomic_load(&go))
		sched_yield();
	long long start = now_ns(CLOCK_THREAD_CPUTIME_ID);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	w->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - start;
	return NULL;
}

// Each thread's entitled part of the threads' CPU time: weight-proportional
// over ncpu CPUs, a thread never above one CPU (what it cannot use goes
// to the others in proportion).
static void entitled_shares(const struct scenario *s, double *share)
{
	int capped[MAX_THREADS] = { 0 };
	double cpus = s->ncpu < s->n ? s->ncpu : s->n;
	double left = cpus;

	for (int changed = 1; changed;) {
		double weights = 0;
		changed = 0;
		for (int i = 0; i < s->n; i++)
			if (!capped[i])
				weights += nice_weight[s->nice[i] + 20];
		for (int i = 0; i < s->n; i++) {
			if (capped[i])
				continue;
			share[i] = left * nice_weight[s->nice[i] + 20] / weights;
			if (share[i] > 1.0) {
				capped[i] = 1;
				share[i] = 1.0;
				left -= 1.0;
				changed = 1;
				break;
			}
		}
	}
	for (int i = 0; i < s->n; i++)
		share[i] /= cpus;
}

static void print_scenario(const struct scenario *s, struct worker *w)
{
	double entitled[MAX_THREADS], total = 0, max_dev = 0;

	entitled_shares(s, entitled);
	for (int i = 0; i < s->n; i++)
		total += (double)w[i].cpu_ns;
	for (int i = 0; i < s->n; i++) {
		double share = total > 0 ? (double)w[i].cpu_ns / total : 0;
		double dev = share > entitled[i] ? share - entitled[i] : entitled[i] - share;
		dev = dev / entitled[i] * 100;
		if (dev > max_dev)
			max_dev = dev;
		printf("RESULT fair kernel=%s policy=%s scenario=%s cpus=%d thread=%d nice=%d "
		       "cpu_ms=%.0f share_pct=%.1f entitled_pct=%.1f dev_pct=%.1f\n", kernel, policy,
		       s->name, s->ncpu, i, s->nice[i], (double)w[i].cpu_ns / 1e6, share * 100,
		       entitled[i] * 100, dev);
	}
	printf("RESULT fairsum kernel=%s policy=%s scenario=%s cpus=%d threads=%d seconds=%.1f "
	       "busy_pct=%.1f max_dev_pct=%.1f\n", kernel, policy, s->name, s->ncpu, s->n, seconds,
	       total / (seconds * 1e9 * s->ncpu) * 100, max_dev);
	fflush(stdout);
}

static void run_scenario(const struct scenario *s)
{
	struct worker w[MAX_THREADS];
	int started = 0, err = 0;

	atomic_store(&ready, 0);
	atomic_store(&go, 0);
	atomic_store(&stop, 0);
	for (int i = 0; i < s->n; i++) {
		w[i] = (struct worker){ .ncpu = s->ncpu, .nice = s->nice[i] };
		if (pthread_create(&w[i].thread, NULL, spin_worker, &w[i]) != 0)
			break;
		started++;
	}
	while (atomic_load(&ready) < started)
		sched_yield();
	for (int i = 0; i < started; i++)
		if (w[i].err && !err)
			err = w[i].err;
	if (started < s->n)
		atomic_store(&stop, 1);	// a thread short: no run
	atomic_store(&go, 1);
	if (started == s->n && !err) {
		struct timespec ts = { (time_t)seconds, (long)((seconds - (long)seconds) * 1e9) };
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	if (started < s->n || err) {
		printf("RESULT fairsum kernel=%s policy=%s scenario=%s cpus=%d threads=%d "
		       "unsupported=%s:%s\n", kernel, policy, s->name, s->ncpu, s->n,
		       started < s->n ? "pthread_create" : err == EINVAL ? "sched_setaffinity" :
		       "setpriority", started < s->n ? "EAGAIN" : errno_name(err));
		fflush(stdout);
		return;
	}
	print_scenario(s, w);
}

// The FIFO check's two threads and what they share.
static _Atomic long spins;
static _Atomic int fifo_done;
static double late_ns[1000];

static void *other_spinner(void *arg)
{
	(void)arg;
	pin_self(0);
	while (!atomic_load_explicit(&fifo_done, memory_order_relaxed))
		atomic_fetch_add_explicit(&spins, 1, memory_order_relaxed);
	return NULL;
}

static void spin_for(long long ns)
{
	long long until = now_ns(CLOCK_MONOTONIC) + ns;

	while (now_ns(CLOCK_MONOTONIC) < until)
		;
}

// Runs in the FIFO thread; returns the rounds the spinner ran in.
static int fifo_rounds_run(void)
{
	int other_ran = 0;

	for (int r = 0; r < fifo_rounds; r++) {
		long long target = now_ns(CLOCK_MONOTONIC) + 1000000;
		struct timespec ts = { (time_t)(target / 1000000000LL), (long)(target % 1000000000LL) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		late_ns[r] = (double)(now_ns(CLOCK_MONOTONIC) - target);
		long before = atomic_load(&spins);
		spin_for(2000000);
		if (atomic_load(&spins) != before)
			other_ran++;
	}
	return other_ran;
}

static void *fifo_thread(void *arg)
{
	struct sched_param p = { .sched_priority = 1 };
	int *result = arg;

	if (pin_self(0) != 0) {
		*result = -errno;
		return NULL;
	}
	// musl's sched_setscheduler() is a stub that always fails.
	if (syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &p) != 0) {
		*result = -errno;
		return NULL;
	}
	*result = fifo_rounds_run();
	return NULL;
}

static void run_fifo_check(void)
{
	pthread_t other, fifo;
	int result = 0;

	atomic_store(&fifo_done, 0);
	if (pthread_create(&other, NULL, other_spinner, NULL) != 0)
		return;
	if (pthread_create(&fifo, NULL, fifo_thread, &result) == 0)
		pthread_join(fifo, NULL);
	else
		result = -EAGAIN;
	atomic_store(&fifo_done, 1);
	pthread_join(other, NULL);
	if (result < 0) {
		printf("RESULT fifo kernel=%s policy=%s unsupported=sched_setscheduler:%s\n", kernel,
		       policy, errno_name(-result));
		fflush(stdout);
		return;
	}
	struct stats s = summarise(late_ns, fifo_rounds);
	printf("RESULT fifo kernel=%s policy=%s rounds=%d late_median_us=%.1f late_p90_us=%.1f "
	       "late_max_us=%.1f other_ran=%d\n", kernel, policy, fifo_rounds, s.median / 1e3,
	       s.p90 / 1e3, s.max / 1e3, result);
	fflush(stdout);
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fairbench [-d SECONDS] [-t NICES -c NCPU] [-s SCENARIOS] [-r ROUNDS] [-h]\n"
		"  -d  run time of each scenario; default 2\n"
		"  -t  one scenario instead of the defaults: threads with these nice levels\n"
		"      (comma-separated), on CPUs 0..NCPU-1 (-c, default 2)\n"
		"  -s  comma-separated scenarios: equal3,nice0055,pinned05,fifo; default all\n"
		"  -r  rounds of the SCHED_FIFO check; default 20\n"
		"Prints RESULT fair (per thread), fairsum (per scenario) and fifo lines.\n");
}

// -t NICES: the custom scenario, replacing the defaults.
static int parse_nices(const char *arg)
{
	static struct scenario custom = { "custom", 2, 0, { 0 } };
	char *end;

	for (const char *p = arg; *p; p = end + (*end == ',')) {
		long nice = strtol(p, &end, 10);
		if (end == p || nice < -20 || nice > 19 || custom.n == MAX_THREADS)
			return 0;
		custom.nice[custom.n++] = (int)nice;
		if (*end && *end != ',')
			return 0;
	}
	scenarios[0] = custom;
	nscenarios = 1;
	return custom.n > 0;
}

static int parse_options(int argc, char **argv)
{
	int ch, ncpu = 0;
	char *end;

	while ((ch = getopt(argc, argv, "d:t:c:s:r:h")) != -1) {
		switch (ch) {
		case 'd':
			seconds = strtod(optarg, &end);
			if (*end || !(seconds > 0 && seconds <= 3600))
				return 0;
			break;
		case 't':
			if (!parse_nices(optarg))
				return 0;
			break;
		case 'c':
			ncpu = (int)strtol(optarg, &end, 10);
			if (*end || ncpu <= 0 || ncpu > CPU_SETSIZE)
				return 0;
			break;
		case 's':
			only = optarg;
			break;
		case 'r':
			fifo_rounds = (int)strtol(optarg, &end, 10);
			if (*end || fifo_rounds <= 0 || fifo_rounds > 1000)
				return 0;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return 0;
		}
	}
	if (ncpu && nscenarios == 1 && strcmp(scenarios[0].name, "custom") == 0)
		scenarios[0].ncpu = ncpu;
	return optind == argc;
}

int main(int argc, char **argv)
{
	if (!parse_options(argc, argv)) {
		usage(stderr);
		return 2;
	}
	kernel_and_policy(kernel, sizeof(kernel), policy, sizeof(policy));
	for (int i = 0; i < nscenarios; i++)
		if (listed(only, scenarios[i].name) || strcmp(scenarios[i].name, "custom") == 0)
			run_scenario(&scenarios[i]);
	if (listed(only, "fifo"))
		run_fifo_check();
	return 0;
}
