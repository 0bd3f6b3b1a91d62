// Wait queues: a thread sleeps until another wakes it, a deadline passes
// or (if interruptible) a signal arrives.
//
// A wait queue has no lock of its own: the lock of the object it belongs
// to (a pipe, a futex bucket, a process) protects it, and the condition
// being waited for must change under that same lock.  That is what makes
// a wake-up between "condition false" and "asleep" impossible to lose.
//
//	spin_lock_irqsave(&obj->lock);
//	while (!condition) {
//		err = wq_wait(&obj->wq, &obj->lock, deadline, true);
//		if (err) break;
//	}
//	spin_unlock_irqrestore(&obj->lock, flags);
#ifndef KERNEL_WAIT_H
#define KERNEL_WAIT_H

#include <stdint.h>
#include <stdbool.h>
#include <kernel/spinlock.h>

struct thread;

struct wait_queue {
	struct thread *head;
};

#define WAIT_FOREVER 0
// A deadline with this bit is absolute CLOCK_REALTIME ns (the rest of
// the value) rather than monotonic: it follows clock_settime, as Linux's
// absolute realtime timers do (clock_nanosleep TIMER_ABSTIME, futex
// FUTEX_CLOCK_REALTIME).
#define DEADLINE_REALTIME	(1ULL << 63)
// Has 'deadline' (monotonic, or DEADLINE_REALTIME-tagged) passed?
bool deadline_passed(uint64_t deadline);

// Sleeps on 'wq' (may be NULL: a plain timed sleep), releasing 'lock'
// (may be NULL) meanwhile and holding it again on return.  'deadline' is
// absolute monotonic ns, or WAIT_FOREVER.  Returns 0 when woken (the
// caller re-checks its condition), -ETIMEDOUT, or -EINTR if interruptible
// and a signal is pending.
int wq_wait(struct wait_queue *wq, struct spinlock *lock, uint64_t deadline, bool interruptible);
// The same, but only a fatal signal (the process or thread is being
// killed) ends the sleep early, with -EINTR: for waits that must not be
// cut short by an ordinary signal yet must never make a task unkillable.
int wq_wait_killable(struct wait_queue *wq, struct spinlock *lock, uint64_t deadline);

// Wake threads sleeping on 'wq'; the object's lock must be held.
// Return the number woken.
int wq_wake_one(struct wait_queue *wq);
int wq_wake_all(struct wait_queue *wq);
int wq_wake_n(struct wait_queue *wq, int n);
bool wq_empty(const struct wait_queue *wq);

// Wakes a thread from an interruptible sleep (a signal arrived for it),
// or from a killable one when that signal is fatal.  Call it after
// recording the signal.
void wake_interruptible(struct thread *t);

// Sets up a new thread's sleep timer.
void wait_thread_init(struct thread *t);

// Hooks of the process layer: does 't' have a signal to handle?  Is it
// being killed (its process or thread is exiting)?
bool thread_signal_pending(struct thread *t);
bool thread_fatal_pending(struct thread *t);

#endif
