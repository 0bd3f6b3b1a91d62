// ppc64 part of the per-CPU state, and the per-CPU pointer: r13 holds
// this CPU's struct cpu while in the kernel (as Linux's paca).
#ifndef ARCH_CPU_ARCH_H
#define ARCH_CPU_ARCH_H

#include <stdint.h>
#include <stdbool.h>

// The exception entry reads these by offset (arch/asm_offsets.h).
struct cpu_arch {
	uint64_t kstack_top;		// top of the current thread's kernel stack
	uint64_t emergency_top;		// a stack for interrupts that cannot return
	uint64_t scratch[4];		// the entry's save area before a stack is known
	uint64_t user_r13;		// user r13 (the TLS pointer) while in the kernel
	uint32_t hw_id;			// the hardware thread (RTAS start-cpu's id,
					// XICS's interrupt server)
	volatile uint32_t ipi_pending;	// kinds of IPI sent here, one bit each
	bool fp_off;			// MSR[FP] left off for user mode
	bool vec_off;			// MSR[VEC], MSR[VSX] left off
	bool tm_off;			// MSR[TM] left off
};

struct cpu;

static inline struct cpu *arch_this_cpu(void)
{
	struct cpu *c;
	__asm__ volatile("mr %0, 13" : "=r"(c));
	return c;
}

#endif
