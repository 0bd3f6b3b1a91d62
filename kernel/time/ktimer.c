// Kernel timers (include/kernel/ktimer.h): one queue per CPU, ordered by
// the latest moment each timer may fire, with the CPU's one-shot timer
// programmed for the first of them.
//
// The queue is two pairing heaps (lib/pheap.h) keyed by expiry, one for
// the timers that wake the CPU and one for the deferrable ones, so that
// the next expiry an idle CPU must wake for is a root too.  Equal
// expiries keep the order they were armed in (within a heap).  Arming
// costs O(1) whatever the timers of that CPU (a sorted list walked from
// its head cost 1350 instructions a sleep with 1000 threads sleeping),
// firing and cancelling O(log n) amortized.
//
// Locking: a queue's lock guards its heaps and the 'queue' field of
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
#include <lib/pheap.h>
#include <stddef.h>

#define NONE UINT64_MAX

struct ktimer_base {
	struct spinlock lock;
	struct ph_heap due;		// the timers that wake the CPU
	struct ph_heap deferred;	// the deferrable ones
	struct ktimer *running;		// its function is being called
	uint64_t programmed;		// the hardware fires then (NONE: not set)
	bool idle;			// deferrable timers do not count
};

static struct ktimer_base bases[MAX_CPUS];

void ktimer_init_cpu(int cpu)
{
	spin_init(&bases[cpu].lock, "ktimer queue");
	ph_init(&bases[cpu].due);
	ph_init(&bases[cpu].deferred);
	bases[cpu].programmed = NONE;
}

void ktimer_init(struct ktimer *t, ktimer_fn fn)
{
	t->node = (struct ph_node){ 0 };
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

static struct ktimer *timer_of(const struct ph_node *n)
{
	return (struct ktimer *)((const char *)n - offsetof(struct ktimer, node));
}

static struct ph_heap *heap_of(struct ktimer_base *b, const struct ktimer *t)
{
	return t->deferrable ? &b->deferred : &b->due;
}

static struct ktimer *first_of(const struct ph_heap *h)
{
	return h->root ? timer_of(h->root) : 0;
}

static void unlink_locked(struct ktimer_base *b, struct ktimer *t)
{
	ph_remove(heap_of(b, t), &t->node);
	__atomic_store_n(&t->queue, 0, __ATOMIC_RELAXED);
}

// After the timers of equal expiry already there, so equal timers fire
// in the order they were armed.
static void insert_locked(struct ktimer_base *b, struct ktimer *t, int cpu)
{
	ph_insert(heap_of(b, t), &t->node, t->expires);
	__atomic_store_n(&t->queue, cpu + 1, __ATOMIC_RELAXED);
}

// The timer that must fire first, the deferrable ones counted or not
// (of equal expiries, one that wakes the CPU).
static struct ktimer *first_locked(struct ktimer_base *b, bool deferred)
{
	struct ktimer *t = first_of(&b->due), *d = deferred ? first_of(&b->deferred) : 0;

	return !t || (d && d->expires < t->expires) ? d : t;
}

// When the hardware must next interrupt: the first timer that may wake
// the CPU as it is now.
static uint64_t next_expiry_locked(struct ktimer_base *b)
{
	struct ktimer *t = first_locked(b, !b->idle);

	return t ? t->expires : NONE;
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
		struct ktimer *t = first_locked(b, true);
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
	struct ktimer *t = first_of(&b->due);
	uint64_t when = t ? t->expires : NONE;

	spin_unlock_irqrestore(&b->lock, flags);
	return when;
}

void ktimer_idle_enter(void)
{
	struct ktimer_base *b = &bases[this_cpu()->id];
	uint64_t flags = spin_lock_irqsave(&b->lock);

	b->idle = true;
	if (first_locked(b, true) != first_locked(b, false))
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

// Takes every node of h out onto the chain at **tail, linked by their
// 'next' (free once out of the heap), first to fire first.  Their
// timers' 'queue' stays: they are back before the lock is released.
static void take_all(struct ph_heap *h, struct ph_node ***tail)
{
	struct ph_node *n;

	while ((n = ph_first(h))) {
		ph_remove(h, n);
		n->next = 0;
		**tail = n;
		*tail = &n->next;
	}
}

// On each CPU: realtime timers get their monotonic expiry again and
// their place in the queue.  Rare (the clock was set): every timer is
// taken out and put back, in the order they would have fired, so equal
// expiries keep their order.
static void rebase_here(void *arg)
{
	struct ktimer_base *b = &bases[this_cpu()->id];
	struct ph_node *all = 0, **tail = &all;
	uint64_t flags = spin_lock_irqsave(&b->lock);

	(void)arg;
	take_all(&b->due, &tail);
	take_all(&b->deferred, &tail);
	while (all) {
		struct ktimer *t = timer_of(all);
		all = all->next;
		if (t->deadline & DEADLINE_REALTIME)
			set_expiry(t);
		ph_insert(heap_of(b, t), &t->node, t->expires);
	}
	program_locked(b, true);
	spin_unlock_irqrestore(&b->lock, flags);
}

void ktimer_clock_was_set(void)
{
	cross_call_mask(cpumask_online(), rebase_here, 0, true);
}
