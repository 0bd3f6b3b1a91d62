// What x86-64 keeps per address space beside the page-table root (struct
// mm's 'arch'): its PCID and the CPUs whose TLB may still hold stale
// entries under it (arch/x86_64/tlb.c).
#ifndef ARCH_MM_ARCH_H
#define ARCH_MM_ARCH_H

#include <stdint.h>
#include <kernel/smp.h>

struct mm_arch {
	uint16_t asid;			// PCID, 0 = none
	volatile cpumask_t stale_cpus;	// CPUs whose TLB may hold stale entries tagged asid
};

#endif
