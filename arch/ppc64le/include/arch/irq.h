// Interrupt masking on ppc64 (Book3S): MSR[EE].  mtmsrd with L=1 changes
// only EE and RI, so it needs no read-modify-write of the whole MSR.
#ifndef ARCH_IRQ_H
#define ARCH_IRQ_H

#include <stdint.h>
#include <stdbool.h>

#include <arch/spr.h>

static inline uint64_t read_msr(void)
{
	uint64_t v;
	__asm__ volatile("mfmsr %0" : "=r"(v));
	return v;
}

static inline void irq_enable(void)
{
	__asm__ volatile("mtmsrd %0, 1" : : "r"(MSR_EE | MSR_RI) : "memory");
}

static inline void irq_disable(void)
{
	__asm__ volatile("mtmsrd %0, 1" : : "r"(MSR_RI) : "memory");
}

// Lower the hardware thread's priority while spinning, then restore it
// (Linux's HMT_low/HMT_medium).
static inline void cpu_relax(void)
{
	__asm__ volatile("or 1, 1, 1\n\tor 2, 2, 2" ::: "memory");
}

// Idle until an interrupt: H_CEDE, which also enables interrupts (so the
// wake-up cannot be lost between the two).  arch/ppc64le/idle.c.
void halt(void);
void irq_enable_and_wait(void);

static inline bool irq_enabled(void)
{
	return (read_msr() & MSR_EE) != 0;
}

static inline uint64_t irq_save(void)
{
	uint64_t msr = read_msr();
	irq_disable();
	return msr;
}

static inline void irq_restore(uint64_t msr)
{
	if (msr & MSR_EE)
		irq_enable();
}

#endif
