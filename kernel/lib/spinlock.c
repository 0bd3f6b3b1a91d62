// Test-and-test-and-set spinlocks.  Holding a spinlock disables
// preemption on this CPU (the holder must not be switched out while other
// CPUs spin on it).

#include <kernel/spinlock.h>
#include <kernel/cpu.h>
#include <kernel/panic.h>
#include <arch/irq.h>

void spin_init(struct spinlock *lock, const char *name)
{
	lock->locked = 0;
	lock->owner_cpu = -1;
	lock->name = name;
}

static int current_cpu_id(void)
{
	struct cpu *c = this_cpu();
	return c ? c->id : 0;
}

static void preempt_disable(void)
{
	struct cpu *c = this_cpu();
	if (c)
		c->preempt_count++;
}

static void preempt_enable(void)
{
	struct cpu *c = this_cpu();
	if (c)
		c->preempt_count--;
}

void spin_lock(struct spinlock *lock)
{
	preempt_disable();
	if (lock->locked && lock->owner_cpu == current_cpu_id())
		panic("spinlock '%s' taken twice on cpu %d", lock->name, lock->owner_cpu);
	while (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED))
			cpu_relax();
	}
	lock->owner_cpu = current_cpu_id();
}

int spin_trylock(struct spinlock *lock)
{
	preempt_disable();
	if (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE)) {
		preempt_enable();
		return 0;
	}
	lock->owner_cpu = current_cpu_id();
	return 1;
}

void spin_unlock(struct spinlock *lock)
{
	lock->owner_cpu = -1;
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
	preempt_enable();
}

uint64_t spin_lock_irqsave(struct spinlock *lock)
{
	uint64_t flags = irq_save();
	spin_lock(lock);
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *lock, uint64_t flags)
{
	spin_unlock(lock);
	irq_restore(flags);
}

int spin_held(struct spinlock *lock)
{
	return lock->locked && lock->owner_cpu == current_cpu_id();
}
