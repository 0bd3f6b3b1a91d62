// Memory ordering and instruction-stream serialization, for membarrier
// (kernel/sched/membarrier.c, docs/membarrier.md).
#ifndef ARCH_BARRIER_H
#define ARCH_BARRIER_H

#include <arch/cpu_arch.h>

// A full memory barrier: every load and store before it is globally
// visible before any load or store after it.  A locked read-modify-write
// of the stack (value unchanged) orders ordinary memory as MFENCE does
// and is cheaper on most CPUs.
static inline void arch_mb(void)
{
	__asm__ volatile("lock; orq $0, (%%rsp)" ::: "memory", "cc");
}

// Serializes this core: instructions fetched after it see every store
// made visible before it (cross-modifying code), and it is a full
// barrier too.  SERIALIZE where the CPU has it; otherwise an IRET to the
// next instruction, which works on every x86-64 CPU and, unlike CPUID,
// never exits to a hypervisor.  (SYSRET, the usual way back to user
// space, does not serialize: hence this before returning there.)
static inline void arch_sync_core(void)
{
	uint64_t tmp;

	if (cpu_has.serialize) {
		__asm__ volatile(".byte 0x0f, 0x01, 0xe8" ::: "memory");	// SERIALIZE
		return;
	}
	__asm__ volatile(
		"movq	%%ss, %0\n\t"
		"pushq	%0\n\t"
		"pushq	%%rsp\n\t"
		"addq	$8, (%%rsp)\n\t"
		"pushfq\n\t"
		"movq	%%cs, %0\n\t"
		"pushq	%0\n\t"
		"leaq	1f(%%rip), %0\n\t"
		"pushq	%0\n\t"
		"iretq\n"
		"1:"
		: "=&r"(tmp) : : "cc", "memory");
}

#endif
