// The load average, computed as Linux computes it (kernel/sched/loadavg.c
// there): every LOAD_FREQ (5 s and one tick, 10 ms) the number of runnable
// threads is sampled and folded into three exponentially decaying
// averages, with time constants of 1, 5 and 15 minutes, in fixed point
// with 11 fractional bits.  The decay factors are Linux's: e^(-5/60),
// e^(-5/300) and e^(-5/900) times 2^11.
//
// Linux also counts threads in uninterruptible sleep (disk I/O); here no
// wait lasts long enough for that to matter, so only runnable threads
// (running or on a run queue) are counted.

#include <kernel/sched.h>
#include <kernel/time.h>
#include <kernel/ktimer.h>

#define FIXED_1		(1UL << LOAD_FSHIFT)
#define EXP_1		1884
#define EXP_5		2014
#define EXP_15		2037

#define LOAD_FREQ_NS	(5 * 1000000000ULL + 10000000)	// 5 s and a (default) tick
#define MAX_CATCH_UP	1000		// samples: the averages are 0 long before

static unsigned long avenrun[3];
static struct ktimer sample_timer;

// Linux's calc_load: load = load * e + active * (1 - e), rounded up
// while rising so that a steady load is eventually reached.
static unsigned long calc_load(unsigned long load, unsigned long exp, unsigned long active)
{
	unsigned long newload = load * exp + active * (FIXED_1 - exp);

	if (active >= load)
		newload += FIXED_1 - 1;
	return newload / FIXED_1;
}

static void sample(unsigned long active)
{
	__atomic_store_n(&avenrun[0], calc_load(avenrun[0], EXP_1, active), __ATOMIC_RELAXED);
	__atomic_store_n(&avenrun[1], calc_load(avenrun[1], EXP_5, active), __ATOMIC_RELAXED);
	__atomic_store_n(&avenrun[2], calc_load(avenrun[2], EXP_15, active), __ATOMIC_RELAXED);
}

// The timer is deferrable: an idle boot CPU does not wake for it, and
// the samples it missed are folded in when it runs, with the number of
// threads running then (as Linux's calc_global_nohz does for the periods
// every CPU slept through; an idle machine's threads were 0 throughout).
static void sample_fn(struct ktimer *kt)
{
	uint64_t now = clock_monotonic_ns(), due = kt->deadline;
	unsigned long active = (unsigned long)sched_nr_running() * FIXED_1;
	int n = 0;

	while (due <= now && n < MAX_CATCH_UP) {
		sample(active);
		due += LOAD_FREQ_NS;
		n++;
	}
	if (due <= now)
		due = now + LOAD_FREQ_NS;
	ktimer_arm(kt, due, 0);
}

void loadavg_start(void)
{
	ktimer_init(&sample_timer, sample_fn);
	sample_timer.deferrable = true;
	ktimer_arm(&sample_timer, clock_monotonic_ns() + LOAD_FREQ_NS, 0);
}

void loadavg_get(unsigned long avg[3])
{
	for (int i = 0; i < 3; i++)
		avg[i] = __atomic_load_n(&avenrun[i], __ATOMIC_RELAXED);
}
