// Spinlocks.  A lock taken from interrupt context must be taken with
// interrupts disabled everywhere (spin_lock_irqsave), or the holder can be
// interrupted on its own CPU by a handler that then spins forever.
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdint.h>

struct spinlock {
	volatile uint32_t locked;
	int owner_cpu;		// for diagnostics: who holds it, -1 if nobody
	const char *name;
};

#define SPINLOCK_INIT(n) { 0, -1, (n) }

void spin_init(struct spinlock *lock, const char *name);
void spin_lock(struct spinlock *lock);
void spin_unlock(struct spinlock *lock);
int spin_trylock(struct spinlock *lock);
uint64_t spin_lock_irqsave(struct spinlock *lock);
void spin_unlock_irqrestore(struct spinlock *lock, uint64_t flags);
int spin_held(struct spinlock *lock);

#endif
