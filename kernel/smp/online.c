// The last steps of a CPU coming online.
//
// A CPU takes no interrupt before its scheduler state (current and idle
// thread, run queue) exists: interrupts stay off until the calls below
// have set it up, so no handler ever sees a half-built CPU.  The online
// flag comes before the count of online CPUs: a CPU that reads
// ncpus_online == ncpus (and then broadcasts an IPI to all others) knows
// every flag is set.

#include <kernel/smp.h>
#include <kernel/cpu.h>
#include <kernel/arch.h>
#include <kernel/sched.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <arch/irq.h>

// The CPUs: the arch fills in ncpus and each CPU's arch part from the
// firmware's tables (arch_init_platform).
struct cpu cpus[MAX_CPUS];
int ncpus = 1;
volatile int ncpus_online;

void smp_boot_cpu_online(struct cpu *c)
{
	__atomic_store_n(&c->online, true, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ncpus_online, 1, __ATOMIC_SEQ_CST);
	arch_cpu_start_timer();
	tick_start();
	loadavg_start();
	irq_enable();
}

void smp_cpu_online(struct cpu *c)
{
	// This CPU's idle thread runs on the stack the CPU started on.
	c->current = c->idle;
	c->idle->on_cpu = true;
	__atomic_store_n(&c->online, true, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&ncpus_online, 1, __ATOMIC_SEQ_CST);
	arch_cpu_start_timer();
	tick_start();
	sched_idle_loop();	// enables interrupts
}
