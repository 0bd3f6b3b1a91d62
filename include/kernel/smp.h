// CPUs other than our own: bringing them online, and running functions
// on them (cross-CPU calls).
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <stdint.h>
#include <stdbool.h>

struct cpu;

typedef uint64_t cpumask_t;	// bit n = logical CPU n (MAX_CPUS <= 64)

static inline cpumask_t cpumask_of(int cpu)
{
	return (cpumask_t)1 << cpu;
}

cpumask_t cpumask_online(void);

struct cross_call {
	void (*fn)(void *arg);
	void *arg;
	struct cross_call *next;
	volatile bool done;
	bool heap;		// free after running (no one waits)
};

// Runs fn(arg) on 'cpu' (directly if it is this CPU).  With 'wait', returns
// after fn has finished there.  Returns 0, or -1 if the CPU is offline or
// memory ran out.
int cross_call(int cpu, void (*fn)(void *), void *arg, bool wait);

// Runs fn(arg) on every CPU in 'mask' (this one included if set).
void cross_call_mask(cpumask_t mask, void (*fn)(void *), void *arg, bool wait);

// The same, announced with a given IPI kind (so counters tell TLB
// shootdowns from other calls).
enum ipi_kind;
void cross_call_mask_ipi(cpumask_t mask, void (*fn)(void *), void *arg, bool wait,
			 enum ipi_kind kind);

void cross_call_interrupt(void);

// Arch: starts the other CPUs; each ends in smp_cpu_online().
void arch_start_secondary_cpus(void);
__attribute__((noreturn)) void smp_cpu_online(struct cpu *c);
// The boot CPU, once its scheduler state exists: online, tick, interrupts.
void smp_boot_cpu_online(struct cpu *c);

#endif
