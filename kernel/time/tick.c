// The tick: a CPU's periodic work (time slices, CPU-time timers and
// limits, pulling work to an idle CPU, the clock's first-seconds check),
// run timer_hz times a second by a kernel timer, and only while the CPU
// needs it.  Everything else that happens at a time has a timer of its
// own (include/kernel/ktimer.h), so an idle CPU stops its tick and takes
// no timer interrupt until its next timer is due.
//
// The tick stops when the CPU goes idle and nothing needs it there
// (tick_needed), and starts again when the CPU leaves idle, or when
// another CPU gets threads waiting that this one could pull
// (tick_kick_idle).

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

// Does this CPU need its tick?  A thread runs (its slice, its CPU
// timers), the clock is still being checked, or another CPU has threads
// waiting that this idle one should pull.
static bool tick_needed(struct cpu *c)
{
	struct thread *cur = c->current;

	if (!cur->is_idle || arch_clock_needs_tick())
		return true;
	return ncpus_online > 1 && sched_others_waiting(c->id);
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
	if (!tick_needed(c)) {
		c->tick_stopped = true;
		return;
	}
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

	c->tick_stopped = false;
	ktimer_arm(&tick_timers[c->id], clock_monotonic_ns() + tick_period_ns(), 0);
}

void tick_init_cpu(int cpu)
{
	ktimer_init(&tick_timers[cpu], tick_fn);
	cpus[cpu].tick_stopped = true;
}

// The idle loop, interrupts off, about to halt: stop the tick if nothing
// needs it (it would only find nothing to do).
void tick_idle_enter(void)
{
	struct cpu *c = this_cpu();

	if (!c->tick_stopped && !tick_needed(c)) {
		ktimer_cancel(&tick_timers[c->id]);
		c->tick_stopped = true;
	}
	ktimer_idle_enter();
}

// ... and woken: start the tick again if something now needs it.
void tick_idle_exit(void)
{
	struct cpu *c = this_cpu();

	ktimer_idle_exit();
	if (c->tick_stopped && (c->need_resched || tick_needed(c)))
		tick_start();
}

// A thread is about to run on this CPU, which may have stopped its tick
// while idle.
void tick_resume(void)
{
	if (this_cpu()->tick_stopped)
		tick_start();
}

// Another CPU has threads waiting: wake the idle CPUs whose tick stopped,
// so they start it again and pull (sched_tick).
void tick_kick_idle(int busy_cpu)
{
	for (int i = 0; i < ncpus; i++) {
		struct cpu *c = &cpus[i];
		if (i == busy_cpu || !c->online || !__atomic_load_n(&c->tick_stopped, __ATOMIC_RELAXED))
			continue;
		struct thread *cur = __atomic_load_n(&c->current, __ATOMIC_RELAXED);
		if (cur && cur->is_idle)
			arch_send_ipi(i, IPI_RESCHED);
	}
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
