// Test-and-test-and-set spinlocks: what include/kernel/spinlock.h does
// not inline.

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

void spin_lock_contended(struct spinlock *lock)
{
	if (lock->owner_cpu == current_cpu_id())
		panic("spinlock '%s' taken twice on cpu %d", lock->name, lock->owner_cpu);
	do {
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED))
			cpu_relax();
	} while (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE));
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

int spin_held(struct spinlock *lock)
{
	return lock->locked && lock->owner_cpu == current_cpu_id();
}
