// Interrupt enabling and the CPU's pause hint: the arch hooks that
// arch-neutral code (locks, the scheduler) uses.
#ifndef ARCH_IRQ_H
#define ARCH_IRQ_H

#include <stdint.h>
#include <stdbool.h>

#define RFLAGS_IF		(1UL << 9)

static inline uint64_t read_rflags(void)
{
	uint64_t v;
	__asm__ volatile("pushfq; popq %0" : "=r"(v));
	return v;
}

static inline void irq_enable(void)	{ __asm__ volatile("sti" ::: "memory"); }
static inline void irq_disable(void)	{ __asm__ volatile("cli" ::: "memory"); }
static inline void cpu_relax(void)	{ __asm__ volatile("pause" ::: "memory"); }
static inline void halt(void)		{ __asm__ volatile("hlt" ::: "memory"); }

// Enables interrupts and halts until one arrives, as one step: STI takes
// effect after the next instruction, so no interrupt is lost in between.
static inline void irq_enable_and_wait(void)
{
	__asm__ volatile("sti; hlt" ::: "memory");
}

static inline bool irq_enabled(void)
{
	return (read_rflags() & RFLAGS_IF) != 0;
}

// Save and disable interrupts; restore the previous state later.
static inline uint64_t irq_save(void)
{
	uint64_t flags = read_rflags();
	irq_disable();
	return flags;
}

static inline void irq_restore(uint64_t flags)
{
	if (flags & RFLAGS_IF)
		irq_enable();
}

#endif
