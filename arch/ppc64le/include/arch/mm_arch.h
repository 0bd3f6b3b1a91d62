// What ppc64 keeps per address space beside the page-table root (struct
// mm's 'arch'): its radix PID (the process-table entry the MMU uses, and
// the TLB's tag) and the CPUs whose TLB may hold stale entries under it.
#ifndef ARCH_MM_ARCH_H
#define ARCH_MM_ARCH_H

#include <stdint.h>
#include <kernel/smp.h>

struct mm_arch {
	uint32_t pid;			// radix PID, 0 = the kernel's
	volatile cpumask_t stale_cpus;
};

#endif
