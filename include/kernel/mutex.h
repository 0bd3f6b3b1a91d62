// Sleeping locks, for state that must stay locked across code that may
// sleep or take a page fault (a copy to or from user memory).  A waiter
// sleeps on a wait queue instead of spinning, so a holder that faults,
// allocates or waits for another CPU blocks nobody's CPU meanwhile.
//
// Not for interrupt context.  The wait is not interruptible (like
// Linux's mutex_lock): hold one only for work that ends by itself.
#ifndef KERNEL_MUTEX_H
#define KERNEL_MUTEX_H

#include <stdbool.h>
#include <kernel/spinlock.h>
#include <kernel/wait.h>

struct thread;

struct mutex {
	struct spinlock lock;		// guards owner and waiters
	struct thread *owner;		// NULL when free
	struct wait_queue waiters;
};

#define MUTEX_INIT(name) { SPINLOCK_INIT(name), 0, { 0 } }

void mutex_init(struct mutex *m, const char *name);
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);
// Does the calling thread hold m?
bool mutex_held(struct mutex *m);

#endif
