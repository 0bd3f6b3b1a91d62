// wakebench: wake-up latency, from a FUTEX_WAKE call to the woken thread
// running.  The sleeper waits in FUTEX_WAIT on a shared word; the waker
// reads CLOCK_MONOTONIC, stores the word and calls FUTEX_WAKE; the sleeper
// reads the clock as soon as FUTEX_WAIT returns.  The difference is one
// sample; the sleeper then wakes the waker through a second futex, so the
// next round starts with both settled.
//
// Modes (waker on CPU 0 always):
//   cross       sleeper on CPU 1, CPU 1 otherwise idle
//   same        sleeper on CPU 0 too: it runs when the waker blocks
//   busy_other  sleeper on CPU 1 beside a spinning SCHED_OTHER thread: how
//               soon a woken fair thread preempts a busy CPU
//   busy_fifo   the same with the sleeper SCHED_FIFO: it should preempt
//               the spinner at once (skipped, with an unsupported= line,
//               when sched_setscheduler refuses)
//
// Output: one line per mode,
//   RESULT wake kernel=.. policy=.. mode=cross cpus=0,1 samples=N median_us=X
//          p90_us=X max_us=X raced=K
// raced counts rounds thrown away because the waker stored the word before
// the sleeper was inside FUTEX_WAIT (FUTEX_WAIT returned EAGAIN).
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"
#include "bench_util.h"

// musl has no <linux/futex.h>: the two operations used, private.
#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129

struct mode {
	const char *name;
	int sleeper_cpu;
	int busy;	// a SCHED_OTHER spinner on the sleeper's CPU
	int fifo;	// the sleeper is SCHED_FIFO
};

static const struct mode modes[] = {
	{ "cross", 1, 0, 0 },
	{ "same", 0, 0, 0 },
	{ "busy_other", 1, 1, 0 },
	{ "busy_fifo", 1, 1, 1 },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

// The words the two sides share, and the sleeper's report.
static _Atomic uint32_t wake_word, ack_word;
static _Atomic int sleeping;		// the sleeper is about to wait
static _Atomic long long woke_at;	// its clock on return, or -1: raced
static _Atomic int stop_spinner, stop_sleeper;
static _Atomic int sleeper_ready;	// 1 set up, -errno when it could not
static _Atomic uint32_t sleeper_started;	// the futex the main thread waits on for it

// Wake-ups per mode; the busy modes wait for a CPU that another thread
// spins on (a tick or more each without wake-up preemption), so they
// take fewer unless -n says otherwise.
static int samples = 200, busy_samples = 50;
static const char *only;
static char kernel[32], policy[48];

static long futex(_Atomic uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

// Wait until *word is not 'val' any more.
static void wait_while(_Atomic uint32_t *word, uint32_t val)
{
	while (atomic_load(word) == val)
		futex(word, FUTEX_WAIT_PRIVATE, val);
}

static void *spinner(void *arg)
{
	int cpu = (int)(long)arg;

	pin_self(cpu);
	while (!atomic_load_explicit(&stop_spinner, memory_order_relaxed))
		;
	return NULL;
}

// SCHED_FIFO priority 1 for the calling thread, by the system call (musl's
// sched_setscheduler() is a stub that always fails).
static int become_fifo(void)
{
	struct sched_param p = { .sched_priority = 1 };

	return syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &p) == 0 ? 0 : -errno;
}

static void *sleeper(void *arg)
{
	const struct mode *m = arg;
	int ret = 0;

	if (pin_self(m->sleeper_cpu) != 0)
		ret = -errno;
	else if (m->fifo)
		ret = become_fifo();
	atomic_store(&sleeper_ready, ret ? ret : 1);
	atomic_store(&sleeper_started, 1);
	futex(&sleeper_started, FUTEX_WAKE_PRIVATE, 1);
	if (ret)
		return NULL;
	for (;;) {
		atomic_store(&sleeping, 1);
		long r = futex(&wake_word, FUTEX_WAIT_PRIVATE, 0);
		long long t = now_ns(CLOCK_MONOTONIC);
		if (atomic_load(&stop_sleeper))
			break;
		// A wait that never slept (the word was already set) or that
		// woke for another reason is no sample.
		atomic_store(&woke_at, r == 0 ? t : -1);
		atomic_store(&sleeping, 0);
		atomic_store(&wake_word, 0);
		atomic_store(&ack_word, 1);
		futex(&ack_word, FUTEX_WAKE_PRIVATE, 1);
	}
	return NULL;
}

// Let the sleeper get into FUTEX_WAIT: across CPUs spin a little past its
// flag, on one CPU yield to it (it runs until it blocks).
static void let_sleeper_block(const struct mode *m)
{
	while (!atomic_load(&sleeping))
		if (m->sleeper_cpu == 0)
			sched_yield();
	if (m->sleeper_cpu == 0) {
		sched_yield();
		return;
	}
	long long until = now_ns(CLOCK_MONOTONIC) + 30000;
	while (now_ns(CLOCK_MONOTONIC) < until)
		;
}

// One wake-up: its latency in ns, or -1 when the round raced.
static double one_round(const struct mode *m)
{
	let_sleeper_block(m);
	atomic_store(&ack_word, 0);
	long long start = now_ns(CLOCK_MONOTONIC);
	atomic_store(&wake_word, 1);
	futex(&wake_word, FUTEX_WAKE_PRIVATE, 1);
	wait_while(&ack_word, 0);
	long long t = atomic_load(&woke_at);
	return t < 0 ? -1 : (double)(t - start);
}

static void stop_threads(pthread_t sleeper_thread, int have_sleeper)
{
	if (have_sleeper) {
		atomic_store(&stop_sleeper, 1);
		atomic_store(&wake_word, 1);
		futex(&wake_word, FUTEX_WAKE_PRIVATE, 1);
		pthread_join(sleeper_thread, NULL);
	}
}

static void print_unsupported(const struct mode *m, const char *what, int err)
{
	printf("RESULT wake kernel=%s policy=%s mode=%s cpus=0,%d unsupported=%s:%s\n", kernel,
	       policy, m->name, m->sleeper_cpu, what, errno_name(err));
	fflush(stdout);
}

// Start the sleeper (and spinner) of one mode; 0, or -errno.
static int start_threads(const struct mode *m, pthread_t *sl, pthread_t *sp)
{
	atomic_store(&wake_word, 0);
	atomic_store(&stop_sleeper, 0);
	atomic_store(&stop_spinner, 0);
	atomic_store(&sleeper_ready, 0);
	atomic_store(&sleeper_started, 0);
	atomic_store(&sleeping, 0);
	if (m->busy && pthread_create(sp, NULL, spinner, (void *)(long)m->sleeper_cpu) != 0)
		return -EAGAIN;
	if (pthread_create(sl, NULL, sleeper, (void *)m) != 0)
		return -EAGAIN;
	// Blocking, not yielding in a loop: under QEMU's icount a vCPU that
	// only yields kept the other vCPU, where the sleeper had to start,
	// from running at all.
	wait_while(&sleeper_started, 0);
	return atomic_load(&sleeper_ready) < 0 ? atomic_load(&sleeper_ready) : 0;
}

static int run_mode(const struct mode *m, double *v)
{
	pthread_t sl, sp;
	int raced = 0, n = 0, want = m->busy ? busy_samples : samples;
	int ret = start_threads(m, &sl, &sp);

	if (ret == 0) {
		while (n < want && raced < want) {
			double d = one_round(m);
			if (d < 0)
				raced++;
			else
				v[n++] = d;
		}
		stop_threads(sl, 1);
	} else if (ret != -EAGAIN) {
		pthread_join(sl, NULL);
	}
	atomic_store(&stop_spinner, 1);
	if (m->busy)
		pthread_join(sp, NULL);
	if (ret) {
		print_unsupported(m, m->fifo && ret == -EPERM ? "sched_setscheduler" : "setup", -ret);
		return 0;
	}
	struct stats s = summarise(v, n);
	printf("RESULT wake kernel=%s policy=%s mode=%s cpus=0,%d samples=%d median_us=%.1f "
	       "p90_us=%.1f max_us=%.1f raced=%d\n", kernel, policy, m->name, m->sleeper_cpu, n,
	       s.median / 1e3, s.p90 / 1e3, s.max / 1e3, raced);
	fflush(stdout);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: wakebench [-n SAMPLES] [-m MODES] [-h]\n"
		"  -n  wake-ups per mode; default 200, 50 in the busy modes\n"
		"  -m  comma-separated modes: cross,same,busy_other,busy_fifo; default all\n"
		"      (the cross and busy modes need CPU 1)\n"
		"Prints per mode: RESULT wake kernel=.. policy=.. mode=.. cpus=.. samples=..\n"
		"  median_us=.. p90_us=.. max_us=.. raced=..\n");
}

static int parse_options(int argc, char **argv)
{
	int ch;
	char *end;

	while ((ch = getopt(argc, argv, "n:m:h")) != -1) {
		switch (ch) {
		case 'n':
			samples = (int)strtol(optarg, &end, 10);
			if (*end || samples <= 0 || samples > 100000)
				return 0;
			busy_samples = samples;
			break;
		case 'm':
			only = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return 0;
		}
	}
	return optind == argc;
}

int main(int argc, char **argv)
{
	double *v;

	if (!parse_options(argc, argv)) {
		usage(stderr);
		return 2;
	}
	if (!(v = calloc((size_t)samples, sizeof(*v))))
		return 1;
	kernel_and_policy(kernel, sizeof(kernel), policy, sizeof(policy));
	if (pin_or_complain("wakebench", 0) != 0)
		return 1;
	for (size_t i = 0; i < NELEM(modes); i++)
		if (listed(only, modes[i].name))
			run_mode(&modes[i], v);
	free(v);
	return 0;
}
