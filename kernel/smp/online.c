// The last steps of a CPU coming online.

#include <kernel/smp.h>
#include <kernel/cpu.h>
#include <kernel/sched.h>
#include <kernel/thread.h>

void arch_cpu_start_timer(void);

void smp_cpu_online(struct cpu *c)
{
	// This CPU's idle thread runs on the stack the CPU started on.
	c->current = c->idle;
	c->idle->on_cpu = true;
	__atomic_add_fetch(&ncpus_online, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&c->online, true, __ATOMIC_SEQ_CST);
	arch_cpu_start_timer();
	sched_idle_loop();
}
