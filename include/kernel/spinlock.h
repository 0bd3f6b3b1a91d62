// Spinlocks.  A lock taken from interrupt context must be taken with
// interrupts disabled everywhere (spin_lock_irqsave), or the holder can be
// interrupted on its own CPU by a handler that then spins forever.
//
// Taking a free lock and letting it go are inline: one exchange, one
// store, and the preemption count (kernel/lib/spinlock.c has the rest).
// Holding a spinlock disables preemption on this CPU: the holder must not
// be switched out while other CPUs spin on it.
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdint.h>
#include <kernel/spinlock_types.h>

void spin_init(struct spinlock *lock, const char *name);
int spin_trylock(struct spinlock *lock);
int spin_held(struct spinlock *lock);

#ifdef HOST_TEST
// Host unit tests of modules that take locks supply these themselves.
void spin_lock(struct spinlock *lock);
void spin_unlock(struct spinlock *lock);
uint64_t spin_lock_irqsave(struct spinlock *lock);
void spin_unlock_irqrestore(struct spinlock *lock, uint64_t flags);
#else
#include <kernel/cpu.h>
#include <arch/irq.h>

// The lock was taken: panics if this CPU holds it (it would wait for
// ever), else waits for it.
void spin_lock_contended(struct spinlock *lock);

// The CPU pointer is set before any lock is taken, except by the boot
// code's first steps on a CPU (0: no count kept).
static inline void spin_lock(struct spinlock *lock)
{
	struct cpu *c = this_cpu();

	if (c)
		c->preempt_count++;
	if (__builtin_expect(__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE) != 0, 0))
		spin_lock_contended(lock);
	lock->owner_cpu = c ? c->id : 0;
}

static inline void spin_unlock(struct spinlock *lock)
{
	struct cpu *c = this_cpu();

	lock->owner_cpu = -1;
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
	if (c)
		c->preempt_count--;
}

static inline uint64_t spin_lock_irqsave(struct spinlock *lock)
{
	uint64_t flags = irq_save();

	spin_lock(lock);
	return flags;
}

static inline void spin_unlock_irqrestore(struct spinlock *lock, uint64_t flags)
{
	spin_unlock(lock);
	irq_restore(flags);
}
#endif

#endif
