// The tick: a CPU's periodic work (time slices, CPU-time timers and
// limits, pulling work to an idle CPU, the clock's first-seconds check),
// run timer_hz times a second by a kernel timer, and only while the CPU
// needs it.  Everything else that happens at a time has a timer of its
// own (include/kernel/ktimer.h), so an idle CPU stops its tick and takes
// no timer interrupt until its next timer is due.
//
// The tick stops when nothing needs it (tick_needed): on an idle CPU, and
// on one running a single thread without CPU-time timers or limits.  It
// starts again when the CPU leaves idle, when a second thread is queued
// there or its thread arms such a timer (tick_needed_on: an IPI_TICK
// from another CPU), or when another CPU has threads waiting, to pull
// or balance them (tick_kick_stopped, from that CPU's tick).
//
// Stopping and the reasons to start again race: a CPU marks its tick
// stopped, then looks once more at what needs it; one that makes it
// needed first changes the state, then looks whether the tick stopped.
// With a full barrier on both sides, one of the two sees the other.

#include <kernel/time.h>
#include <kernel/ktimer.h>
#include <kernel/arch.h>
#include <kernel/trap.h>
#include <kernel/cpu.h>
#include <kernel/boot.h>
#include <kernel/sched.h>
#include <kernel/thread.h>
#include <kernel/membarrier.h>
#include <kernel/cputime.h>
#include <lib/string.h>
#include <arch/irq.h>

#define NSEC 1000000000ULL

unsigned timer_hz = 100;
volatile uint64_t jiffies;

static struct ktimer tick_timers[MAX_CPUS];

static int set_hz(const char *value)
{
	uint64_t v;
	if (!value || !parse_u64(value, 10, &v) || v < 10 || v > 10000)
		return -1;
	timer_hz = (unsigned)v;
	return 0;
}
BOOT_OPTION(hz, "tick rate while a CPU needs one: time slice unit (10..10000, default 100)", set_hz);

uint64_t tick_period_ns(void)
{
	return NSEC / timer_hz;
}

// Does this CPU need its tick?  Threads wait for it here (time slices),
// its thread has CPU-time timers or limits, the clock is still being
// checked, or another CPU has threads waiting (this one, idle, should
// pull them; busy, it keeps ticking for the balance).
static bool tick_needed(struct cpu *c)
{
	struct thread *cur = c->current;

	if (arch_clock_needs_tick() || (ncpus_online > 1 && sched_others_waiting(c->id)))
		return true;
	if (cur->is_idle)
		return false;
	return sched_nr_waiting(c->id) > 0 || acct_needs_tick(cur);
}

// Marks the tick stopped unless, looked at again after that (see the
// top), it is needed after all.  True if it stopped.
static bool tick_try_stop(struct cpu *c)
{
	__atomic_store_n(&c->tick_stopped, true, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!tick_needed(c))
		return true;
	__atomic_store_n(&c->tick_stopped, false, __ATOMIC_RELAXED);
	return false;
}

static void tick_fn(struct ktimer *kt)
{
	struct cpu *c = this_cpu();
	uint64_t now = clock_monotonic_ns();
	uint64_t j = now / tick_period_ns();

	c->stats.ticks++;
	if (j > jiffies)
		jiffies = j;		// racy max across CPUs: only ever grows by a tick
	arch_clock_tick();
	membarrier_tick();
	acct_tick(c);
	sched_tick();
	if (!tick_needed(c) && tick_try_stop(c))
		return;
	// The next tick a period after this one was due, so ticks keep their
	// rhythm; one that came very late starts the rhythm again from now.
	uint64_t next = kt->deadline + tick_period_ns();
	if (next <= now)
		next = now + tick_period_ns();
	ktimer_arm(kt, next, 0);
}

// Starts this CPU's tick (interrupts off): at boot, and when it stopped.
void tick_start(void)
{
	struct cpu *c = this_cpu();

	__atomic_store_n(&c->tick_stopped, false, __ATOMIC_RELAXED);
	ktimer_arm(&tick_timers[c->id], clock_monotonic_ns() + tick_period_ns(), 0);
}

void tick_init_cpu(int cpu)
{
	ktimer_init(&tick_timers[cpu], tick_fn);
	cpus[cpu].tick_stopped = true;
}

// The idle loop, interrupts off, about to halt.  A running tick is left
// to stop itself at its next expiry (it then finds nothing needing it):
// a CPU that is idle only briefly, as in a ping-pong with another CPU,
// neither stops nor restarts it, and one that stays idle takes one more
// tick.
void tick_idle_enter(void)
{
	ktimer_idle_enter();
}

// ... and woken: start the tick again if something now needs it (an
// idle CPU's reasons; a thread it goes on to run gets its own in
// schedule(): tick_switch_in).
void tick_idle_exit(void)
{
	struct cpu *c = this_cpu();

	ktimer_idle_exit();
	if (c->tick_stopped && tick_needed(c))
		tick_start();
}

// Something on 'cpu' now needs its tick (after changing the state
// tick_needed reads; see the top): start it there.
void tick_needed_on(int cpu)
{
	// This CPU's own tick runs only in its interrupts, which see its
	// earlier stores in order: the barrier is for another CPU's flag.
	// (A wake-up on the same CPU, the common case, pays no barrier.)
	if (cpu != this_cpu()->id)
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&cpus[cpu].tick_stopped, __ATOMIC_RELAXED))
		return;
	if (cpu == this_cpu()->id) {
		uint64_t flags = irq_save();
		if (this_cpu()->tick_stopped && tick_needed(this_cpu()))
			tick_start();
		irq_restore(flags);
	} else {
		arch_send_ipi(cpu, IPI_TICK);
	}
}

void tick_ipi(void)
{
	struct cpu *c = this_cpu();

	if (c->tick_stopped && tick_needed(c))
		tick_start();
}

// busy_cpu has threads waiting (its tick): the CPUs whose tick stopped
// start it again, to pull them when idle or balance when busy
// (sched_tick).
void tick_kick_stopped(int busy_cpu)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (int i = 0; i < ncpus; i++) {
		struct cpu *c = &cpus[i];
		if (i != busy_cpu && c->online && __atomic_load_n(&c->tick_stopped, __ATOMIC_RELAXED))
			arch_send_ipi(i, IPI_TICK);
	}
}

// p armed a CPU-time timer or limit: the CPUs running its threads
// without a tick start theirs (one that switches to its thread later
// sees it at the switch: tick_switch_in).
void tick_process_changed(struct process *p)
{
	for (int i = 0; i < ncpus; i++) {
		struct thread *cur = __atomic_load_n(&cpus[i].current, __ATOMIC_RELAXED);
		if (cpus[i].online && cur && cur->proc == p)
			tick_needed_on(i);
	}
}

// schedule() chose 'next' with 'waiting' threads left in the queue
// (interrupts off): a preemption or a yield may leave threads waiting
// on a CPU whose tick stopped, and a thread with CPU-time timers needs
// it.
void tick_switch_in(struct thread *next, int waiting)
{
	if (__atomic_load_n(&this_cpu()->tick_stopped, __ATOMIC_RELAXED) &&
	    (waiting || (!next->is_idle && acct_needs_tick(next))))
		tick_start();
}

// Safe at any point of boot: a CPU's timers run only once it has a
// current thread (interrupts stay off until then anyway; this keeps a
// stray interrupt harmless whatever the order).
void timer_interrupt(struct trap_frame *f)
{
	struct cpu *c = this_cpu();

	(void)f;
	c->stats.timer_irqs++;
	if (__atomic_load_n(&c->current, __ATOMIC_ACQUIRE))
		ktimer_interrupt();
}

void delay_ns(uint64_t ns)
{
	uint64_t t0 = clock_monotonic_ns();
	while (clock_monotonic_ns() - t0 < ns)
		cpu_relax();
}
