// Kernel timers (include/kernel/ktimer.h): one queue per CPU, sorted by
// the latest moment each timer may fire, with the CPU's one-shot timer
// programmed for the first of them.
//
// The queue is a sorted list: arming is linear in the timers queued on
// that CPU, which are few (the threads sleeping there with a timeout,
// the armed timers of its processes, its tick), and firing and the
// common cancel (of a sleep that ended early) are constant.
//
// Locking: a queue's lock guards its list and the 'queue' field of
// the timers on it; it is taken with interrupts off and is never held while
// a timer's function runs, so a function may take the lock of the timer's
// owner, which in turn may be held around ktimer_arm and ktimer_cancel
// (owner lock -> queue lock).  'running' says which timer's function is
// being called on that CPU, for ktimer_cancel_sync.

#include <kernel/ktimer.h>
#include <kernel/time.h>
#include <kernel/wait.h>
#include <kernel/cpu.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <arch/irq.h>

#define NONE UINT64_MAX

struct ktimer_base {
	struct spinlock lock;
	struct ktimer *head;
	struct ktimer *running;		// its function is being called
	uint64_t programmed;		// the hardware fires then (NONE: not set)
	bool idle;			// deferrable timers do not count
};

static struct ktimer_base bases[MAX_CPUS];

void ktimer_init_cpu(int cpu)
{
	spin_init(&bases[cpu].lock, "ktimer queue");
	bases[cpu].programmed = NONE;
}

void ktimer_init(struct ktimer *t, ktimer_fn fn)
{
	t->next = t->prev = 0;
	t->deadline = t->soft = t->expires = t->slack = 0;
	t->fn = fn;
	t->queue = 0;
	t->deferrable = false;
}

// A deadline as monotonic ns: a realtime one through the clock's offset
// as it is now (ktimer_clock_was_set recomputes when it changes).
static uint64_t to_monotonic(uint64_t deadline)
{
	if (!(deadline & DEADLINE_REALTIME))
		return deadline;
	int64_t mono = (int64_t)(deadline & ~DEADLINE_REALTIME) - clock_realtime_offset();
	return mono < 0 ? 0 : (uint64_t)mono;
}

static void set_expiry(struct ktimer *t)
{
	t->soft = to_monotonic(t->deadline);
	t->expires = t->soft + t->slack < t->soft ? NONE - 1 : t->soft + t->slack;
}

static void unlink_locked(struct ktimer_base *b, struct ktimer *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else
		b->head = t->next;
	if (t->next)
		t->next->prev = t->prev;
	t->next = t->prev = 0;
	__atomic_store_n(&t->queue, 0, __ATOMIC_RELAXED);
}

// After the timers of equal expiry already there, so equal timers fire
// in the order they were armed.
static void insert_locked(struct ktimer_base *b, struct ktimer *t, int cpu)
{
	struct ktimer *prev = 0, *p = b->head;

	while (p && p->expires <= t->expires) {
		prev = p;
		p = p->next;
	}
	t->prev = prev;
	t->next = p;
	if (prev)
		prev->next = t;
	else
		b->head = t;
	if (p)
		p->prev = t;
	__atomic_store_n(&t->queue, cpu + 1, __ATOMIC_RELAXED);
}

// When the hardware must next interrupt: the first timer that may wake
// the CPU as it is now.
static uint64_t next_expiry_locked(struct ktimer_base *b)
{
	for (struct ktimer *t = b->head; t; t = t->next)
		if (!b->idle || !t->deferrable)
			return t->expires;
	return NONE;
}

// Programs this CPU's hardware if it must fire earlier than it is set
// to (a later interrupt than needed is only a spurious one: it finds
// nothing due and programs the right time).  'force' reprograms in any
// case, as after an interrupt, when what was set has passed.
static void program_locked(struct ktimer_base *b, bool force)
{
	uint64_t when = next_expiry_locked(b);

	if (!force && when >= b->programmed)
		return;
	if (when == NONE) {
		b->programmed = NONE;
		arch_timer_stop();
		return;
	}
	uint64_t now = clock_monotonic_ns();
	uint64_t delta = when > now ? when - now : 0;
	if (delta > arch_timer_max_ns()) {
		delta = arch_timer_max_ns();	// an interrupt on the way
		when = now + delta;
	}
	b->programmed = when;
	arch_timer_oneshot(delta);
}

// Takes 't' off whatever queue it is on.  The queue is found through
// t->queue, which may change until its lock is held.
static bool remove_locked_anywhere(struct ktimer *t)
{
	for (;;) {
		int queue = __atomic_load_n(&t->queue, __ATOMIC_RELAXED);
		if (!queue)
			return false;
		struct ktimer_base *b = &bases[queue - 1];
		spin_lock(&b->lock);
		if (t->queue == queue) {
			unlink_locked(b, t);
			spin_unlock(&b->lock);
			return true;
		}
		spin_unlock(&b->lock);
	}
}

void ktimer_arm(struct ktimer *t, uint64_t deadline, uint64_t slack)
{
	uint64_t flags = irq_save();
	int cpu = this_cpu()->id;
	struct ktimer_base *b = &bases[cpu];

	remove_locked_anywhere(t);
	spin_lock(&b->lock);
	t->deadline = deadline;
	t->slack = slack;
	set_expiry(t);
	insert_locked(b, t, cpu);
	program_locked(b, false);
	spin_unlock(&b->lock);
	irq_restore(flags);
}

bool ktimer_cancel(struct ktimer *t)
{
	if (!ktimer_queued(t))
		return false;
	uint64_t flags = irq_save();
	bool was = remove_locked_anywhere(t);
	irq_restore(flags);
	return was;
}

void ktimer_cancel_sync(struct ktimer *t)
{
	ktimer_cancel(t);
	// A function that began before the cancel took the queue's lock
	// shows in that CPU's 'running' (set under the same lock).
	for (int i = 0; i < ncpus; i++)
		while (__atomic_load_n(&bases[i].running, __ATOMIC_ACQUIRE) == t)
			cpu_relax();
}

void ktimer_interrupt(void)
{
	struct ktimer_base *b = &bases[this_cpu()->id];

	spin_lock(&b->lock);
	for (;;) {
		struct ktimer *t = b->head;
		if (!t || t->soft > clock_monotonic_ns())
			break;
		unlink_locked(b, t);
		__atomic_store_n(&b->running, t, __ATOMIC_RELAXED);
		spin_unlock(&b->lock);
		t->fn(t);
		spin_lock(&b->lock);
		__atomic_store_n(&b->running, 0, __ATOMIC_RELEASE);
	}
	program_locked(b, true);
	spin_unlock(&b->lock);
}

uint64_t ktimer_next_expiry(void)
{
	struct ktimer_base *b = &bases[this_cpu()->id];
	uint64_t flags = spin_lock_irqsave(&b->lock);
	uint64_t when = NONE;

	for (struct ktimer *t = b->head; t && when == NONE; t = t->next)
		if (!t->deferrable)
			when = t->expires;
	spin_unlock_irqrestore(&b->lock, flags);
	return when;
}

void ktimer_idle_enter(void)
{
	struct ktimer_base *b = &bases[this_cpu()->id];
	uint64_t flags = spin_lock_irqsave(&b->lock);

	b->idle = true;
	if (b->head && b->head->deferrable)
		program_locked(b, true);	// later than set: set it again
	spin_unlock_irqrestore(&b->lock, flags);
}

void ktimer_idle_exit(void)
{
	struct ktimer_base *b = &bases[this_cpu()->id];
	uint64_t flags = spin_lock_irqsave(&b->lock);

	b->idle = false;
	program_locked(b, false);
	spin_unlock_irqrestore(&b->lock, flags);
}

// On each CPU: realtime timers get their monotonic expiry again and
// their place in the queue.
static void rebase_here(void *arg)
{
	struct ktimer_base *b = &bases[this_cpu()->id];
	struct ktimer *moved = 0;
	uint64_t flags = spin_lock_irqsave(&b->lock);

	(void)arg;
	for (struct ktimer *t = b->head, *next; t; t = next) {
		next = t->next;
		if (t->deadline & DEADLINE_REALTIME) {
			unlink_locked(b, t);
			t->next = moved;
			moved = t;
		}
	}
	while (moved) {
		struct ktimer *t = moved;
		moved = t->next;
		set_expiry(t);
		insert_locked(b, t, this_cpu()->id);
	}
	program_locked(b, true);
	spin_unlock_irqrestore(&b->lock, flags);
}

void ktimer_clock_was_set(void)
{
	cross_call_mask(cpumask_online(), rebase_here, 0, true);
}
