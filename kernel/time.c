// The periodic tick.  Every CPU's local timer interrupts timer_hz times a
// second; the tick drives preemption and timeouts.

#include <kernel/time.h>
#include <kernel/arch.h>
#include <kernel/trap.h>
#include <kernel/cpu.h>
#include <kernel/boot.h>
#include <kernel/sched.h>
#include <kernel/membarrier.h>
#include <lib/string.h>
#include <kernel/proc_internal.h>
#include <fs/dev.h>
#include <fs/timerfd.h>
#include <arch/irq.h>

unsigned timer_hz = 100;
volatile uint64_t jiffies;

static int set_hz(const char *value)
{
	uint64_t v;
	if (!value || !parse_u64(value, 10, &v) || v < 10 || v > 10000)
		return -1;
	timer_hz = (unsigned)v;
	return 0;
}
BOOT_OPTION(hz, "timer ticks per second per CPU (10..10000, default 100)", set_hz);

// Safe at any point of boot: jiffies, the interval-, timerfd and POSIX-timer lists and the
// console input buffer are static, and the scheduler's part runs only
// once this CPU has a current thread.  (Interrupts stay off until it has
// one anyway; this keeps a stray tick harmless whatever the order.)
void timer_interrupt(struct trap_frame *f)
{
	struct cpu *c = this_cpu();

	(void)f;
	c->stats.ticks++;
	arch_clock_tick();
	if (c->id == 0) {
		jiffies++;
		itimer_tick();
		timerfd_tick();
		posix_timer_tick();
		console_poll_input();
		loadavg_tick();
	}
	membarrier_tick();
	if (__atomic_load_n(&c->current, __ATOMIC_ACQUIRE)) {
		acct_tick(c);
		sched_tick();
	}
}

void delay_ns(uint64_t ns)
{
	uint64_t t0 = clock_monotonic_ns();
	while (clock_monotonic_ns() - t0 < ns)
		cpu_relax();
}
