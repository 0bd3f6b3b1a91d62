// In-kernel tests of the scheduler and wait queues.

#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <kernel/thread.h>
#include <kernel/wait.h>
#include <kernel/time.h>
#include <kernel/cpu.h>
#include <uapi/errno.h>
#include <uapi/sched.h>

KTEST(sched, sleep_deadline_honoured)
{
	uint64_t t0 = clock_monotonic_ns();
	int r = wq_wait(0, 0, t0 + 20000000, false);	// 20 ms

	KEXPECT(r == -ETIMEDOUT);
	KEXPECT(clock_monotonic_ns() - t0 >= 20000000);
	return true;
}

struct sleeper {
	struct spinlock lock;
	struct wait_queue wq;
	volatile bool go;
	volatile int woke_on;
	volatile bool done;
};

static void sleeper_fn(void *arg)
{
	struct sleeper *s = arg;
	uint64_t flags = spin_lock_irqsave(&s->lock);

	while (!s->go)
		wq_wait(&s->wq, &s->lock, WAIT_FOREVER, false);
	spin_unlock_irqrestore(&s->lock, flags);
	s->woke_on = this_cpu()->id;
	s->done = true;
}

// A thread asleep on another CPU is woken by this one and runs there.
KTEST(sched, wake_up_on_other_cpu)
{
	static struct sleeper s;
	int target = ncpus > 1 ? 1 : 0;

	spin_init(&s.lock, "test sleeper");
	s.wq.head = 0;
	s.go = false;
	s.done = false;
	s.woke_on = -1;
	struct thread *t = kthread_create("sleeper", sleeper_fn, &s, target);
	KEXPECT(t != 0);
	// Let it reach its sleep (or not: the condition covers both orders).
	for (int i = 0; i < 10; i++)
		sched_yield();
	uint64_t flags = spin_lock_irqsave(&s.lock);
	s.go = true;
	wq_wake_all(&s.wq);
	spin_unlock_irqrestore(&s.lock, flags);
	uint64_t t0 = clock_monotonic_ns();
	while (!s.done && clock_monotonic_ns() - t0 < 5000000000ULL)
		sched_yield();
	KEXPECT(s.done);
	KEXPECT(s.woke_on == target);
	return true;
}

struct pinned {
	int cpu;
	volatile int wrong;
	volatile bool done;
};

static void pinned_fn(void *arg)
{
	struct pinned *p = arg;

	for (int i = 0; i < 200; i++) {
		if (this_cpu()->id != p->cpu)
			p->wrong++;
		sched_yield();
	}
	p->done = true;
}

// Threads pinned to each CPU never run anywhere else, while the idle
// CPUs' balancer is looking for work.
KTEST(sched, pinned_threads_stay)
{
	static struct pinned p[MAX_CPUS];

	for (int i = 0; i < ncpus; i++) {
		p[i] = (struct pinned){ i, 0, false };
		KEXPECT(kthread_create("pinned", pinned_fn, &p[i], i) != 0);
	}
	uint64_t t0 = clock_monotonic_ns();
	for (int i = 0; i < ncpus; i++)
		while (!p[i].done && clock_monotonic_ns() - t0 < 20000000000ULL)
			sched_yield();
	for (int i = 0; i < ncpus; i++) {
		KEXPECT(p[i].done);
		KEXPECT(p[i].wrong == 0);
	}
	return true;
}

struct hopper_count {
	volatile int done;
};

static void hop_and_exit(void *arg)
{
	struct hopper_count *h = arg;
	int there = ncpus > 1 ? 1 : 0;

	// Moving away makes this CPU enqueue us elsewhere while finishing
	// the switch; we then exit at once on the other CPU.
	sched_set_affinity(current_thread(), cpumask_of(there));
	__atomic_add_fetch(&h->done, 1, __ATOMIC_SEQ_CST);
}

// Regression: a thread that migrated and exited on its new CPU before
// the old CPU had finished switching away from it was freed twice.
KTEST(sched, migrate_then_exit)
{
	static struct hopper_count h;
	const int n = 1000;

	h.done = 0;
	for (int i = 0; i < n; i++) {
		struct thread *t = kthread_create("hopper", hop_and_exit, &h, 0);
		KEXPECT(t != 0);
		if (i % 8 == 0)
			sched_yield();
	}
	uint64_t t0 = clock_monotonic_ns();
	while (h.done < n && clock_monotonic_ns() - t0 < 20000000000ULL)
		sched_yield();
	KEXPECT(h.done == n);
	return true;
}

static void note_cpu_and_exit(void *arg)
{
	struct hopper_count *h = arg;

	for (int i = 0; i < 20; i++)
		sched_yield();
	if (this_cpu()->id != 0)
		__atomic_add_fetch(&h->done, 1000, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&h->done, 1, __ATOMIC_SEQ_CST);
}

// Regression: a kernel thread created for a CPU was only queued there,
// so an idle CPU's balancer could pull it away (seen on 4 CPUs as
// smp.cross_call_every_cpu_to_every_cpu running a test thread elsewhere).
KTEST(sched, kthread_for_a_cpu_stays_there)
{
	static struct hopper_count h;
	const int n = 16;

	h.done = 0;
	for (int i = 0; i < n; i++) {
		struct thread *t = kthread_create("bound", note_cpu_and_exit, &h, 0);
		KEXPECT(t != 0);
		KEXPECT(t->affinity == cpumask_of(0));
	}
	uint64_t t0 = clock_monotonic_ns();
	while (h.done < n && clock_monotonic_ns() - t0 < 20000000000ULL)
		sched_yield();
	KEXPECT(h.done == n);
	return true;
}

struct order {
	volatile int n;
	volatile char seen[4];
};

static void note_order(void *arg)
{
	struct order *o = arg;
	int i = __atomic_fetch_add(&o->n, 1, __ATOMIC_SEQ_CST);

	if (i < 4)
		o->seen[i] = current_thread()->policy == SCHED_FIFO ? 'R' : 'F';
}

// A real-time thread queued after a fair one runs first.
KTEST(sched, fifo_thread_runs_before_fair)
{
	static struct order o;
	int cpu = this_cpu()->id;

	o.n = 0;
	struct thread *f = kthread_create("fair", note_order, &o, cpu);
	struct thread *r = kthread_create("fifo", note_order, &o, cpu);
	KEXPECT(f && r);
	sched_set_params(r, SCHED_FIFO, 10, 0, false);
	uint64_t t0 = clock_monotonic_ns();
	while (o.n < 2 && clock_monotonic_ns() - t0 < 5000000000ULL)
		sched_yield();
	KEXPECT(o.n == 2);
	KEXPECT(o.seen[0] == 'R' && o.seen[1] == 'F');
	return true;
}

// A boost follows the chain of owners and goes when the waiter stops
// waiting.  The threads sleep throughout: only their priorities change.
KTEST(sched, pi_boost_follows_chain)
{
	static struct sleeper s[3];
	struct thread *t[3];

	for (int i = 0; i < 3; i++) {
		spin_init(&s[i].lock, "test sleeper");
		s[i].wq.head = 0;
		s[i].go = false;
		s[i].done = false;
		t[i] = kthread_create("pi", sleeper_fn, &s[i], -1);
		KEXPECT(t[i] != 0);
	}
	sched_set_params(t[0], SCHED_FIFO, 30, 0, false);
	sched_set_params(t[1], SCHED_FIFO, 5, 0, false);
	sched_pi_block(t[0], t[1]);
	sched_pi_block(t[1], t[2]);
	bool chained = t[1]->pi_boost == 30 && t[2]->pi_boost == 30 && sched_stat_prio(t[2]) == -31;
	sched_pi_unblock(t[0]);
	bool lowered = t[1]->pi_boost == 0 && t[2]->pi_boost == 5;
	sched_pi_unblock(t[1]);
	bool gone = t[2]->pi_boost == 0 && sched_stat_prio(t[2]) == 20;
	for (int i = 0; i < 3; i++) {
		uint64_t flags = spin_lock_irqsave(&s[i].lock);
		s[i].go = true;
		wq_wake_all(&s[i].wq);
		spin_unlock_irqrestore(&s[i].lock, flags);
	}
	uint64_t t0 = clock_monotonic_ns();
	for (int i = 0; i < 3; i++)
		while (!s[i].done && clock_monotonic_ns() - t0 < 5000000000ULL)
			sched_yield();
	KEXPECT(chained);
	KEXPECT(lowered);
	KEXPECT(gone);
	for (int i = 0; i < 3; i++)
		KEXPECT(s[i].done);
	return true;
}

#define YIELDERS	4
#define YIELD_ROUNDS	50

struct yielders {
	volatile bool go;
	int started, done;		// atomic
	int next;			// slots of seq taken (atomic)
	uint8_t seq[YIELDERS * YIELD_ROUNDS];
};

struct yielder {
	struct yielders *all;
	uint8_t id;
};

static void yielder_fn(void *arg)
{
	struct yielder *me = arg;
	struct yielders *y = me->all;

	__atomic_fetch_add(&y->started, 1, __ATOMIC_RELEASE);
	while (!y->go)
		sched_yield();
	for (int i = 0; i < YIELD_ROUNDS; i++) {
		int slot = __atomic_fetch_add(&y->next, 1, __ATOMIC_RELAXED);
		y->seq[slot] = me->id;
		sched_yield();
	}
	__atomic_fetch_add(&y->done, 1, __ATOMIC_RELEASE);
}

// Yields until 'counter' reaches n or 20 s pass.
static void yield_until(int *counter, int n)
{
	uint64_t t0 = clock_monotonic_ns();

	while (__atomic_load_n(counter, __ATOMIC_ACQUIRE) < n &&
	       clock_monotonic_ns() - t0 < 20000000000ULL)
		sched_yield();
}

// A fair thread that yields goes behind every fair thread waiting on its
// CPU: kernel threads pinned to one CPU that record themselves and yield
// take turns strictly (passing the yielder over only once let two of
// them alternate while the others waited).
KTEST(sched, yield_goes_behind_the_others)
{
	static struct yielders y;
	static struct yielder me[YIELDERS];
	int made = 0;

	y = (struct yielders){ 0 };
	for (int i = 0; i < YIELDERS; i++) {
		me[i] = (struct yielder){ &y, (uint8_t)i };
		if (kthread_create("yielder", yielder_fn, &me[i], ncpus - 1))
			made++;
	}
	// All of them in their loop first, so the turns start together.
	yield_until(&y.started, made);
	y.go = true;
	yield_until(&y.done, made);
	KEXPECT(made == YIELDERS);
	KEXPECT(y.done == YIELDERS);
	// Strict turns, but for a few places: a yielder whose vruntime the
	// clock pushed far ahead (its vCPU stalled by the host while it ran)
	// leaves the others behind by more than the yield's cap, a slice, so
	// the next of them does not go all the way back (Linux caps it too).
	// The bug this guards against broke the order at every other place.
	int broken = 0, places = YIELDERS * YIELD_ROUNDS - YIELDERS;
	for (int i = 0; i < places; i++)
		broken += y.seq[i] != y.seq[i + YIELDERS];
	KEXPECT(broken * 10 <= places);
	return true;
}
