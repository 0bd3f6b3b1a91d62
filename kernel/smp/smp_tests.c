// In-kernel tests of SMP: IPIs, cross-CPU calls, per-CPU ticks, the clock.

#include <kernel/ktest.h>
#include <kernel/smp.h>
#include <kernel/cpu.h>
#include <kernel/arch.h>
#include <kernel/sched.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/console.h>
#include <arch/irq.h>

static volatile uint64_t test_ipi_count[MAX_CPUS];
static volatile int test_ipi_reply_to[MAX_CPUS];	// CPU + 1; 0: no reply

// Counts test IPIs; if a test asked for it, answers with one.  Safe at
// any point of boot (a CPU coming online may get one): nothing to set up.
void ipi_test_interrupt(void)
{
	int me = this_cpu()->id;
	int to = test_ipi_reply_to[me];

	test_ipi_count[me]++;
	if (to > 0) {
		test_ipi_reply_to[me] = 0;
		arch_send_ipi(to - 1, IPI_TEST);
	}
}

static bool wait_for(volatile uint64_t *v, uint64_t target, uint64_t timeout_ns)
{
	uint64_t t0 = clock_monotonic_ns();
	while (*v < target) {
		if (clock_monotonic_ns() - t0 > timeout_ns)
			return false;
		cpu_relax();
	}
	return true;
}

KTEST(smp, all_cpus_online)
{
	KEXPECT(ncpus >= 1);
	KEXPECT(ncpus_online == ncpus);
	for (int i = 0; i < ncpus; i++)
		KEXPECT(cpus[i].online);
	return true;
}

KTEST(smp, ipi_to_every_cpu_and_back)
{
	int me = this_cpu()->id;

	for (int i = 0; i < ncpus; i++)
		test_ipi_reply_to[i] = 0;
	for (int i = 0; i < ncpus; i++) {
		if (i == me)
			continue;
		uint64_t sent_before = this_cpu()->stats.ipi_sent;
		uint64_t theirs = test_ipi_count[i], mine = test_ipi_count[me];
		test_ipi_reply_to[i] = me + 1;
		arch_send_ipi(i, IPI_TEST);
		KEXPECT(wait_for(&test_ipi_count[i], theirs + 1, 2000000000));
		KEXPECT(wait_for(&test_ipi_count[me], mine + 1, 2000000000));
		KEXPECT(this_cpu()->stats.ipi_sent == sent_before + 1);
	}
	return true;
}

static void record_cpu(void *arg)
{
	*(volatile int *)arg = this_cpu()->id;
}

struct pair_result {
	volatile int ran_on[MAX_CPUS];
	volatile int failures;
	volatile int finished;
};

// Runs pinned on one CPU: calls every other CPU and checks where it ran.
static void call_everyone(void *arg)
{
	struct pair_result *r = arg;
	int me = this_cpu()->id;

	for (int j = 0; j < ncpus; j++) {
		volatile int where = -1;
		if (cross_call(j, record_cpu, (void *)&where, true) != 0 || where != j)
			__atomic_add_fetch(&r->failures, 1, __ATOMIC_SEQ_CST);
	}
	r->ran_on[me] = this_cpu()->id;
	__atomic_add_fetch(&r->finished, 1, __ATOMIC_SEQ_CST);
}

KTEST(smp, cross_call_every_cpu_to_every_cpu)
{
	static struct pair_result r;

	r.failures = 0;
	r.finished = 0;
	for (int i = 0; i < ncpus; i++) {
		r.ran_on[i] = -1;
		KEXPECT(kthread_create("xcall-test", call_everyone, &r, i) != 0);
	}
	uint64_t t0 = clock_monotonic_ns();
	while (r.finished < ncpus && clock_monotonic_ns() - t0 < 10000000000ULL)
		sched_yield();
	KEXPECT(r.finished == ncpus);
	KEXPECT(r.failures == 0);
	for (int i = 0; i < ncpus; i++)
		KEXPECT(r.ran_on[i] == i);
	return true;
}

static void count_call(void *arg)
{
	__atomic_add_fetch((volatile int *)arg, 1, __ATOMIC_SEQ_CST);
}

KTEST(smp, cross_call_mask_waits_for_all)
{
	volatile int hits = 0;

	cross_call_mask(cpumask_online(), count_call, (void *)&hits, true);
	KEXPECT(hits == ncpus_online);
	return true;
}

static volatile bool spinners_stop;
static volatile int spinners_done;

static void spin_until_stopped(void *arg)
{
	(void)arg;
	while (!spinners_stop)
		cpu_relax();
	__atomic_add_fetch(&spinners_done, 1, __ATOMIC_SEQ_CST);
}

// A CPU with a thread waiting for it ticks (time slices): two spinners
// on every other CPU, one besides this thread here.  (An idle CPU, or
// one running a single thread, need not: the ktimer tests.)  Kernel
// threads are not preempted, so the second spinner of a CPU runs only
// once the first has stopped.
KTEST(time, timer_ticks_on_every_cpu_with_threads_waiting)
{
	uint64_t before[MAX_CPUS];
	bool ticked[MAX_CPUS];
	int me = this_cpu()->id, started = 0;

	spinners_stop = false;
	spinners_done = 0;
	for (int i = 0; i < ncpus; i++)
		before[i] = cpus[i].stats.ticks;
	for (int i = 0; i < ncpus; i++)
		for (int n = i == me ? 1 : 2; n > 0 && cpus[i].online; n--)
			if (kthread_create("spinner", spin_until_stopped, 0, i))
				started++;
	for (int i = 0; i < ncpus; i++) {
		uint64_t t1 = clock_monotonic_ns();
		while (cpus[i].online && cpus[i].stats.ticks < before[i] + 2 &&
		       clock_monotonic_ns() - t1 < 5000000000ULL)
			cpu_relax();		// this CPU stays busy too
		ticked[i] = !cpus[i].online || cpus[i].stats.ticks >= before[i] + 2;
	}
	spinners_stop = true;
	while (spinners_done < started)
		sched_yield();
	for (int i = 0; i < ncpus; i++)
		KEXPECT(ticked[i]);
	return true;
}

static void read_clock(void *arg)
{
	*(volatile uint64_t *)arg = clock_monotonic_ns();
}

// Keeps its CPU's tick running: with a second runnable thread there the
// tick is needed (kernel/time/tick.c stops it on a CPU with one thread).
struct tick_companions {
	volatile bool stop;
	int ended;
};

static void tick_companion(void *arg)
{
	struct tick_companions *tc = arg;

	while (!tc->stop)
		sched_yield();
	__atomic_fetch_add(&tc->ended, 1, __ATOMIC_RELEASE);
}

KTEST(time, clock_monotonic_across_cpus)
{
	for (int round = 0; round < 200; round++) {
		for (int j = 0; j < ncpus; j++) {
			volatile uint64_t theirs = 0;
			uint64_t t0 = clock_monotonic_ns();
			KEXPECT(cross_call(j, read_clock, (void *)&theirs, true) == 0);
			uint64_t t1 = clock_monotonic_ns();
			KEXPECT(t0 <= theirs && theirs <= t1);
		}
	}
	// And it does not run slow against the tick.  Only a lower bound:
	// when the host deschedules a vCPU for longer than a tick, QEMU
	// delivers the periodic timer's missed interrupts as one, so ticks can
	// be lost but never gained (the clock's rate itself is checked against
	// the RTC at boot and by the clock-under-load test).
	// jiffies move only while some CPU ticks: a companion on every CPU
	// keeps this thread's CPU ticking wherever it runs (alone there,
	// with the others idle, every tick stops and the loop never ends).
	static struct tick_companions tc;
	int made = 0;

	tc = (struct tick_companions){ 0 };
	for (int i = 0; i < ncpus; i++)
		made += kthread_create("tick-companion", tick_companion, &tc, i) != 0;
	// A tick that starts again brings jiffies up to date at once, for
	// the time it was stopped (a CI run saw ten "ticks" in less than
	// five): the count starts only after two ticks have come.
	uint64_t t0 = clock_monotonic_ns();
	for (uint64_t seen = jiffies, changes = 0;
	     changes < 2 && clock_monotonic_ns() - t0 < 10000000000ULL; sched_yield()) {
		if (jiffies != seen) {
			seen = jiffies;
			changes++;
		}
	}
	uint64_t j0 = jiffies;
	t0 = clock_monotonic_ns();
	while (jiffies < j0 + 10 && clock_monotonic_ns() - t0 < 10000000000ULL)
		sched_yield();
	uint64_t elapsed = clock_monotonic_ns() - t0;
	uint64_t ticks = jiffies - j0;
	tc.stop = true;
	while (__atomic_load_n(&tc.ended, __ATOMIC_ACQUIRE) < made)
		sched_yield();
	uint64_t expect = 10 * 1000000000ULL / timer_hz;
	KEXPECT(made == ncpus);
	KEXPECT(ticks >= 10);
	KEXPECT(elapsed > expect / 2);
	return true;
}

// A call to every other CPU goes out as one broadcast IPI ("all
// excluding self") and each of them receives exactly one.
KTEST(smp, broadcast_to_all_others)
{
	volatile int hits = 0;
	uint64_t recv_before[MAX_CPUS];
	int me = this_cpu()->id;

	if (ncpus_online < 2) {
		ktest_skip("one CPU: nobody to broadcast to");
		return true;
	}
	for (int i = 0; i < ncpus; i++)
		recv_before[i] = cpus[i].stats.ipi_call;
	cross_call_mask(cpumask_online() & ~cpumask_of(me), count_call, (void *)&hits, true);
	KEXPECT(hits == ncpus_online - 1);
	for (int i = 0; i < ncpus; i++) {
		if (i == me)
			continue;
		KEXPECT(cpus[i].stats.ipi_call >= recv_before[i] + 1);
	}
	return true;
}
