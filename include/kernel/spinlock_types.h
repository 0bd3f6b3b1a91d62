// The spinlock itself, for structures that embed one (struct cpu among
// them); the operations are in kernel/spinlock.h.
#ifndef KERNEL_SPINLOCK_TYPES_H
#define KERNEL_SPINLOCK_TYPES_H

#include <stdint.h>

struct spinlock {
	volatile uint32_t locked;
	int owner_cpu;		// for diagnostics: who holds it, -1 if nobody
	const char *name;
};

#define SPINLOCK_INIT(n) { 0, -1, (n) }

#endif
