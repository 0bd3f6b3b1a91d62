// Wait queues and sleep deadlines.

#include <kernel/wait.h>
#include <kernel/thread.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <kernel/cpu.h>
#include <uapi/errno.h>
#include <kernel/ktimer.h>
#include <kernel/proc_internal.h>
#include <arch/irq.h>
#include <stddef.h>

// A sleep with a deadline arms the thread's own kernel timer, on the
// CPU it sleeps on; the timer's function marks the sleep timed out and
// wakes the thread.  After the sleep the thread cancels the timer and
// waits for a function already running elsewhere, so a late expiry
// never reaches a later sleep.

static void sleep_timer_fn(struct ktimer *kt)
{
	struct thread *t = (struct thread *)((char *)kt - offsetof(struct thread, sleep_timer));

	__atomic_store_n(&t->timed_out, true, __ATOMIC_RELAXED);
	sched_wake(t);
}

void wait_thread_init(struct thread *t)
{
	ktimer_init(&t->sleep_timer, sleep_timer_fn);
}

// Has 'deadline' passed at monotonic time 'mono'?  The realtime clock
// is read only for a realtime deadline.
bool deadline_passed(uint64_t deadline)
{
	uint64_t mono = clock_monotonic_ns();

	if (!(deadline & DEADLINE_REALTIME))
		return deadline <= mono;
	return (deadline & ~DEADLINE_REALTIME) <= (uint64_t)clock_realtime_offset() + mono;
}

static void wq_remove(struct wait_queue *wq, struct thread *t)
{
	for (struct thread **p = &wq->head; *p; p = &(*p)->wq_next) {
		if (*p == t) {
			*p = t->wq_next;
			break;
		}
	}
	t->wq_next = 0;
	t->waiting_on = 0;
}

// How a sleep may be cut short besides a wake-up or its deadline.
enum sleep_kind {
	SLEEP_UNINTERRUPTIBLE,	// never (kernel threads and short internal waits)
	SLEEP_KILLABLE,		// only by a fatal signal
	SLEEP_INTERRUPTIBLE,	// by any signal to handle
};

// Whatever can make a signal pending, a stop or an exit sets the
// thread's WORK_SIGNAL first (kernel/proc/return_to_user.c): without it
// there is nothing to look at.
static bool sleep_broken(struct thread *t, enum sleep_kind kind)
{
	if (!(__atomic_load_n(&t->work, __ATOMIC_SEQ_CST) & WORK_SIGNAL))
		return false;
	if (kind == SLEEP_INTERRUPTIBLE)
		return thread_signal_pending(t);
	if (kind == SLEEP_KILLABLE)
		return thread_fatal_pending(t);
	return false;
}

static int sleep_on(struct wait_queue *wq, struct spinlock *lock, uint64_t deadline,
		    enum sleep_kind kind)
{
	struct thread *t = current_thread();
	uint64_t flags = irq_save();
	int err = 0;

	// Say how we sleep before looking for signals: a sender records its
	// signal before it looks at these (wake_interruptible), so either we
	// see the signal here or it sees us and wakes us.
	__atomic_store_n(&t->state, THREAD_BLOCKED, __ATOMIC_SEQ_CST);
	__atomic_store_n(&t->interruptible, kind == SLEEP_INTERRUPTIBLE, __ATOMIC_SEQ_CST);
	__atomic_store_n(&t->killable, kind == SLEEP_KILLABLE, __ATOMIC_SEQ_CST);
	if (sleep_broken(t, kind))
		err = -EINTR;
	else if (deadline != WAIT_FOREVER && deadline_passed(deadline))
		err = -ETIMEDOUT;
	if (err) {
		// Not sleeping after all (a racing sched_wake finds us still
		// current and only marks us runnable, as we do).
		t->interruptible = false;
		t->killable = false;
		__atomic_store_n(&t->state, THREAD_RUNNABLE, __ATOMIC_SEQ_CST);
		irq_restore(flags);
		return err;
	}
	if (wq) {
		t->waiting_on = wq;
		t->wq_next = wq->head;
		wq->head = t;
	}
	if (deadline != WAIT_FOREVER) {
		t->timed_out = false;
		// User-visible sleeps may end up to the thread's timer slack
		// late, as on Linux, so that nearby expiries share an interrupt;
		// a real-time thread's never do (Linux's rt_task case).
		bool slack = kind == SLEEP_INTERRUPTIBLE && !sched_thread_rt(t);
		ktimer_arm(&t->sleep_timer, deadline, slack ? thread_timer_slack(t) : 0);
	}
	if (lock)
		spin_unlock(lock);
	t->preempted = false;
	schedule();
	// Interrupts back as the caller had them before spinning on its lock:
	// its holder may be waiting for this CPU to answer an IPI.
	irq_restore(flags);
	// Before the caller's lock: the timer's function takes a run
	// queue's lock, never the caller's, but waits on it here would be
	// needless.
	if (deadline != WAIT_FOREVER)
		ktimer_cancel_sync(&t->sleep_timer);
	if (lock)
		spin_lock(lock);
	flags = irq_save();
	// A waker takes us off the queue: then we were woken, whatever else
	// happened at the same time (a late timeout must not lose a wake-up).
	bool woken = wq && t->waiting_on != wq;
	if (deadline != WAIT_FOREVER && t->timed_out && !woken)
		err = -ETIMEDOUT;
	if (wq && !woken)
		wq_remove(wq, t);
	t->interruptible = false;
	t->killable = false;
	if (!err && !woken && sleep_broken(t, kind))
		err = -EINTR;
	irq_restore(flags);
	return err;
}

int wq_wait(struct wait_queue *wq, struct spinlock *lock, uint64_t deadline, bool interruptible)
{
	return sleep_on(wq, lock, deadline, interruptible ? SLEEP_INTERRUPTIBLE : SLEEP_UNINTERRUPTIBLE);
}

int wq_wait_killable(struct wait_queue *wq, struct spinlock *lock, uint64_t deadline)
{
	return sleep_on(wq, lock, deadline, SLEEP_KILLABLE);
}

int wq_wake_n(struct wait_queue *wq, int n)
{
	int woken = 0;

	while (wq->head && woken < n) {
		struct thread *t = wq->head;
		wq->head = t->wq_next;
		t->wq_next = 0;
		t->waiting_on = 0;
		sched_wake(t);
		woken++;
	}
	return woken;
}

int wq_wake_one(struct wait_queue *wq)
{
	return wq_wake_n(wq, 1);
}

int wq_wake_all(struct wait_queue *wq)
{
	return wq_wake_n(wq, 1 << 30);
}

bool wq_empty(const struct wait_queue *wq)
{
	return wq->head == 0;
}

void wake_interruptible(struct thread *t)
{
	// Pairs with sleep_on: the caller's signal is recorded before we look.
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (t->interruptible || (t->killable && thread_fatal_pending(t)))
		sched_wake(t);
}
