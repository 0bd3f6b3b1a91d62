// The idle loop, and how an idle CPU waits for work (boot option idle=):
//
//	haltpoll  (the default) poll for a while after going idle, then
//		  halt (Linux's cpuidle-haltpoll): the poll time adapts as
//		  Linux's governor does it, growing while wake-ups come soon
//		  after the halt and shrinking when idle periods are long, so a
//		  busy ping-pong between CPUs stays in the poll and an idle
//		  machine halts;
//	halt	  HLT until an interrupt: a virtual CPU sleeps in the host, and
//		  a wake-up from another CPU costs an IPI and the way out of
//		  the halt;
//	poll	  spin, never halt: the fastest wake-up (the waker sees the CPU
//		  polling and sends no IPI at all), a whole host CPU burnt per
//		  idle CPU.
//
// haltpoll is the default because it measured best on both counts that
// matter (docs/benchmarking.md, "Idle modes"): a cross-CPU ping-pong runs
// 7 to 11 times as fast as with halt on a quiet host, 3 to 4 times beside
// a spinning host process, and an idle machine costs the host no more
// than with halt, since its limit falls to 0 within a few idle periods.
//
// While an idle CPU polls it says so (idle_polling), and a waker that
// sees it skips the reschedule IPI: the poller notices the thread queued
// for it (Linux's TIF_POLLING_NRFLAG).  It clears the flag before it
// halts and then looks for work once more; the waker queues the thread
// before it looks at the flag, each with a full barrier between, so one
// of them sees the other.

#include <kernel/sched.h>
#include <kernel/thread.h>
#include <kernel/cpu.h>
#include <kernel/time.h>
#include <kernel/boot.h>
#include <lib/string.h>
#include <arch/irq.h>

enum idle_mode { IDLE_HALT, IDLE_POLL, IDLE_HALTPOLL };

#define HALTPOLL_START_NS	50000ULL	// Linux's guest_halt_poll_grow_start
#define HALTPOLL_MAX_NS		200000ULL	// ... guest_halt_poll_ns

static enum idle_mode idle_mode = IDLE_HALTPOLL;
static uint64_t poll_limit_ns[MAX_CPUS];	// haltpoll: this CPU's poll time now

static int set_idle(const char *value)
{
	if (!value)
		return -1;
	if (!strcmp(value, "halt"))
		idle_mode = IDLE_HALT;
	else if (!strcmp(value, "poll"))
		idle_mode = IDLE_POLL;
	else if (!strcmp(value, "haltpoll"))
		idle_mode = IDLE_HALTPOLL;
	else
		return -1;
	return 0;
}
BOOT_OPTION(idle, "how an idle CPU waits: haltpoll (default: poll up to 200 us, then halt), halt, or poll",
	    set_idle);

const char *sched_idle_mode(void)
{
	static const char *const names[] = { "halt", "poll", "haltpoll" };

	return names[idle_mode];
}

bool sched_idle_polling(int cpu)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&cpus[cpu].idle_polling, __ATOMIC_RELAXED);
}

static bool work_here(struct cpu *c)
{
	return __atomic_load_n(&c->need_resched, __ATOMIC_RELAXED) || sched_nr_waiting(c->id);
}

// Polls (interrupts on: timers and IPIs still run) until there is work
// or 'ns' passed (never, for UINT64_MAX).  True if work came.
static bool poll_for(struct cpu *c, uint64_t ns)
{
	uint64_t t0 = clock_monotonic_ns();
	bool work;

	__atomic_store_n(&c->idle_polling, true, __ATOMIC_SEQ_CST);
	irq_enable();
	while (!work_here(c) && clock_monotonic_ns() - t0 < ns)
		cpu_relax();
	irq_disable();
	__atomic_store_n(&c->idle_polling, false, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	work = work_here(c);
	if (work)
		c->stats.idle_poll_hits++;
	return work;
}

// Linux's haltpoll governor (adjust_poll_limit): an idle period that
// outlasted the poll but not the maximum grows the poll time; one longer
// than the maximum shrinks it.
static void adjust_poll_limit(struct cpu *c, uint64_t block_ns)
{
	uint64_t *limit = &poll_limit_ns[c->id];

	if (block_ns > *limit && block_ns <= HALTPOLL_MAX_NS) {
		*limit = *limit ? *limit * 2 : HALTPOLL_START_NS;
		if (*limit > HALTPOLL_MAX_NS)
			*limit = HALTPOLL_MAX_NS;
	} else if (block_ns > HALTPOLL_MAX_NS) {
		*limit /= 2;
		if (*limit < HALTPOLL_START_NS)
			*limit = 0;
	}
}

// One idle period, interrupts off on entry and exit.
static void idle_wait(struct cpu *c)
{
	uint64_t t0 = clock_monotonic_ns();
	uint64_t limit = poll_limit_ns[c->id];

	if (idle_mode == IDLE_POLL) {
		poll_for(c, UINT64_MAX);
	} else if (idle_mode == IDLE_HALTPOLL && limit && poll_for(c, limit)) {
		;	// work came while polling
	} else {
		// Enabling interrupts and halting is one step: a wake-up IPI
		// cannot slip in between the last look for work and the halt.
		irq_enable_and_wait();
		irq_disable();
	}
	uint64_t block = clock_monotonic_ns() - t0;
	c->stats.idle_ns += block;
	if (idle_mode == IDLE_HALTPOLL)
		adjust_poll_limit(c, block);
}

__attribute__((noreturn)) void sched_idle_loop(void)
{
	struct cpu *c = this_cpu();

	for (;;) {
		irq_disable();
		if (work_here(c)) {
			// schedule() starts the tick if the thread it picks
			// needs one (not if it runs alone).
			c->current->preempted = false;
			irq_enable();
			schedule();
			continue;
		}
		tick_idle_enter();
		idle_wait(c);
		tick_idle_exit();
	}
}
