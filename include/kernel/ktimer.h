// Kernel timers: a function called at a point in time, as precisely as
// the CPU's one-shot timer allows (no tick involved).  Every timeout in
// the kernel is one: sleeps (wq_wait deadlines, so futex, poll, select,
// epoll, nanosleep), interval timers, POSIX timers, timerfd, and the
// tick itself, which runs only while a CPU needs it (kernel/time/tick.c).
//
// A timer sits in the queue of the CPU that armed it, ordered by when it
// must fire (a pairing heap: arming costs O(1), firing and cancelling
// O(log n) amortized); that CPU's hardware timer is programmed for the
// first of its queue.  The function runs on that CPU in the timer interrupt, with
// interrupts off and no timer lock held: it may take locks (never one
// held around ktimer_cancel_sync of the same timer) and arm timers,
// itself included.
//
// Slack (Linux's hrtimer ranges): a timer may fire anywhere between its
// deadline and deadline + slack, so that timers close together share one
// interrupt; the hardware is programmed for the latest moment, and an
// interrupt fires every timer whose deadline has come.
#ifndef KERNEL_KTIMER_H
#define KERNEL_KTIMER_H

#include <stdint.h>
#include <stdbool.h>
#include <lib/pheap.h>

struct ktimer;
typedef void (*ktimer_fn)(struct ktimer *t);

struct ktimer {
	struct ph_node node;	// in its CPU's queue, by 'expires'
	uint64_t deadline;	// as asked: monotonic ns or DEADLINE_REALTIME-tagged
	uint64_t soft;		// monotonic ns: may fire from here ...
	uint64_t expires;	// ... and must by here (soft + slack)
	uint64_t slack;
	ktimer_fn fn;
	int queue;		// 1 + the CPU whose queue it is on; 0: none
				// (so a zeroed timer is a disarmed one)
	bool deferrable;	// does not wake an idle CPU (housekeeping);
				// set before arming, never while queued
};

void ktimer_init_cpu(int cpu);		// each CPU's queue, before interrupts
void ktimer_init(struct ktimer *t, ktimer_fn fn);
// Arms (or re-arms) 't' on this CPU for 'deadline' (absolute monotonic
// ns, or DEADLINE_REALTIME-tagged absolute CLOCK_REALTIME ns, which then
// follows clock_settime).  A deadline already past fires at once (at the
// next interrupt this CPU takes, which is made immediate).
void ktimer_arm(struct ktimer *t, uint64_t deadline, uint64_t slack);
// Takes 't' off its queue; true if it was queued.  Its function may still
// be running on another CPU: use this where the function checks, under
// the owner's lock, whether the timer is still wanted.
bool ktimer_cancel(struct ktimer *t);
// The same, and returns only once its function is not running anywhere:
// before freeing the timer's owner, or where a late call would be wrong.
// Must not be called with a lock the function takes.
void ktimer_cancel_sync(struct ktimer *t);
static inline bool ktimer_queued(const struct ktimer *t)
{
	return __atomic_load_n(&t->queue, __ATOMIC_RELAXED) != 0;
}

// From the timer interrupt: runs the timers that are due, then programs
// the hardware for the next one.
void ktimer_interrupt(void);
// The realtime clock was set: realtime-tagged timers move (every CPU).
void ktimer_clock_was_set(void);
// This CPU is about to idle: program the hardware ignoring deferrable
// timers (they run at the next interrupt that comes anyway).
void ktimer_idle_enter(void);
void ktimer_idle_exit(void);
// When this CPU's next non-deferrable timer fires (UINT64_MAX: none).
uint64_t ktimer_next_expiry(void);

// Arch: make this CPU's timer interrupt fire in 'ns' nanoseconds (0: as
// soon as possible), replacing what was programmed; or not at all.
void arch_timer_oneshot(uint64_t ns);
void arch_timer_stop(void);
// The longest delay arch_timer_oneshot can express.
uint64_t arch_timer_max_ns(void);

#endif
