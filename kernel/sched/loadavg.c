// The load average, computed as Linux computes it (kernel/sched/loadavg.c
// there): every LOAD_FREQ (5 s and one tick) the number of runnable
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

#define FIXED_1		(1UL << LOAD_FSHIFT)
#define EXP_1		1884
#define EXP_5		2014
#define EXP_15		2037

static unsigned long avenrun[3];
static uint64_t next_sample;		// jiffies of the next sample

// Linux's calc_load: load = load * e + active * (1 - e), rounded up
// while rising so that a steady load is eventually reached.
static unsigned long calc_load(unsigned long load, unsigned long exp, unsigned long active)
{
	unsigned long newload = load * exp + active * (FIXED_1 - exp);

	if (active >= load)
		newload += FIXED_1 - 1;
	return newload / FIXED_1;
}

void loadavg_tick(void)
{
	unsigned long active;

	if (next_sample == 0)		// the first sample is one period after boot
		next_sample = jiffies + 5 * (uint64_t)timer_hz + 1;
	if (jiffies < next_sample)
		return;
	next_sample = jiffies + 5 * (uint64_t)timer_hz + 1;
	active = (unsigned long)sched_nr_running() * FIXED_1;
	__atomic_store_n(&avenrun[0], calc_load(avenrun[0], EXP_1, active), __ATOMIC_RELAXED);
	__atomic_store_n(&avenrun[1], calc_load(avenrun[1], EXP_5, active), __ATOMIC_RELAXED);
	__atomic_store_n(&avenrun[2], calc_load(avenrun[2], EXP_15, active), __ATOMIC_RELAXED);
}

void loadavg_get(unsigned long avg[3])
{
	for (int i = 0; i < 3; i++)
		avg[i] = __atomic_load_n(&avenrun[i], __ATOMIC_RELAXED);
}
