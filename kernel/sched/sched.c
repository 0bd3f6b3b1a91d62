// The scheduler.
//
// Policy: each CPU has a FIFO run queue; a thread runs for a slice of
// SCHED_SLICE_TICKS ticks, then goes to the back of its queue (round
// robin: every runnable thread on a CPU gets an equal share).  A woken
// thread goes to the back of the queue of the CPU it last ran on, and that
// CPU is poked with a reschedule IPI if it is idle.  An idle CPU pulls one
// waiting thread from the busiest queue on each tick; a thread that just
// moved is left alone for a few ticks, so threads do not ping-pong.
//
// Locking: a run queue's lock guards its list and the state of the
// threads on it.  The lock is held across the stack switch and released
// by the thread that starts running (sched_finish_switch), so no other
// CPU sees a half-switched CPU.  A thread blocked on one CPU may be woken
// by another while it is still switching out: on_cpu tells the picker to
// wait until its stack is free.

#include <kernel/sched.h>
#include <kernel/thread.h>
#include <kernel/cpu.h>
#include <kernel/arch.h>
#include <kernel/panic.h>
#include <kernel/time.h>
#include <kernel/console.h>
#include <arch/irq.h>
#include <kernel/trap.h>
#include <kernel/wait.h>
#include <kernel/facility.h>
#include <kernel/membarrier.h>
#include <kernel/rseq.h>
#include <kernel/ktimer.h>

#define MIGRATION_COOLDOWN_TICKS 4

static struct runqueue runqueues[MAX_CPUS];

static struct runqueue *rq_of(int cpu)
{
	return &runqueues[cpu];
}

static void rq_push(struct runqueue *rq, struct thread *t)
{
	if (t->on_rq || t->state != THREAD_RUNNABLE)
		panic("run queue: pushing thread %s (tid %d) that is %s", t->name, t->tid,
		      t->on_rq ? "already queued" : "not runnable");
	t->rq_next = 0;
	t->rq_prev = rq->tail;
	if (rq->tail)
		rq->tail->rq_next = t;
	else
		rq->head = t;
	rq->tail = t;
	rq->nr_waiting++;
	t->on_rq = true;
}

static void rq_remove(struct runqueue *rq, struct thread *t)
{
	if (t->rq_prev)
		t->rq_prev->rq_next = t->rq_next;
	else
		rq->head = t->rq_next;
	if (t->rq_next)
		t->rq_next->rq_prev = t->rq_prev;
	else
		rq->tail = t->rq_prev;
	t->rq_next = t->rq_prev = 0;
	rq->nr_waiting--;
	t->on_rq = false;
}

static void idle_thread_fn(void *arg)
{
	(void)arg;
	sched_idle_loop();
}

// Runs on the boot CPU for every CPU, with interrupts off, before any
// CPU takes an interrupt: the tick and every IPI handler may rely on
// what is set here.  current is published last; a tick that found it NULL
// would skip the scheduler (timer_interrupt).
void sched_init_cpu(struct cpu *c)
{
	struct runqueue *rq = rq_of(c->id);
	struct thread *first;

	spin_init(&rq->lock, "runqueue");
	ktimer_init_cpu(c->id);
	tick_init_cpu(c->id);
	acct_cpu_init(c);
	struct thread *idle = thread_alloc("idle");
	if (!idle)
		panic("no memory for cpu %d's idle thread", c->id);
	idle->is_idle = true;
	idle->state = THREAD_RUNNABLE;
	idle->cpu = c->id;
	idle->affinity = cpumask_of(c->id);
	arch_thread_init(idle, idle_thread_fn, 0);
	c->idle = idle;
	first = idle;
	if (c->id == 0) {
		// The boot CPU's first thread is the boot flow itself: wrap the
		// running context in a thread so it can be switched away from.
		first = thread_alloc("boot");
		if (!first)
			panic("no memory for the boot thread");
		first->cpu = 0;
		first->on_cpu = true;
		first->state = THREAD_RUNNABLE;
		first->affinity = cpumask_of(0);
	}
	__atomic_store_n(&c->current, first, __ATOMIC_RELEASE);
}

static bool may_run_on(struct thread *t, int cpu)
{
	return (t->affinity & cpumask_of(cpu)) != 0;
}

static int first_allowed_cpu(struct thread *t)
{
	for (int i = 0; i < ncpus; i++)
		if (cpus[i].online && may_run_on(t, i))
			return i;
	return 0;
}

// A thread was queued on 'cpu': an idle CPU there is told to run it; a
// busy one now has a thread waiting, which idle CPUs whose tick stopped
// should come and pull.
static void poke(int cpu, bool was_idle)
{
	if (was_idle) {
		if (cpu != this_cpu()->id)
			arch_send_ipi(cpu, IPI_RESCHED);
		else
			this_cpu()->need_resched = true;
	} else {
		// It waits: its CPU's tick must run for its slice.
		tick_needed_on(cpu);
		if (ncpus_online > 1)
			tick_kick_idle(cpu);
	}
}

// Enqueues t (runnable, not running) on 'cpu' and pokes that CPU.
static void enqueue_on(struct thread *t, int cpu)
{
	struct runqueue *rq = rq_of(cpu);
	uint64_t flags = spin_lock_irqsave(&rq->lock);
	bool was_idle = cpus[cpu].current->is_idle;

	if (t->on_cpu)
		panic("enqueue_on: thread %s (tid %d) still runs on cpu %d", t->name, t->tid, t->cpu);
	if (t->cpu != cpu) {
		t->cpu = cpu;
		t->last_migration = jiffies;
		cpus[cpu].stats.migrations++;
	}
	rq_push(rq, t);
	spin_unlock_irqrestore(&rq->lock, flags);
	poke(cpu, was_idle);
}

void sched_start(struct thread *t)
{
	int cpu = t->cpu;

	if (cpu < 0 || cpu >= ncpus || !cpus[cpu].online || !may_run_on(t, cpu))
		cpu = first_allowed_cpu(t);
	t->state = THREAD_RUNNABLE;
	t->slice = SCHED_SLICE_TICKS;
	enqueue_on(t, cpu);
}

bool sched_wake(struct thread *t)
{
	for (;;) {
		int cpu = t->cpu;
		struct runqueue *rq = rq_of(cpu);
		uint64_t flags = spin_lock_irqsave(&rq->lock);
		if (t->cpu != cpu) {		// moved meanwhile: retry there
			spin_unlock_irqrestore(&rq->lock, flags);
			continue;
		}
		if (t->state != THREAD_BLOCKED || t->on_rq) {
			spin_unlock_irqrestore(&rq->lock, flags);
			return false;
		}
		__atomic_store_n(&t->state, THREAD_RUNNABLE, __ATOMIC_SEQ_CST);
		// Still the current thread there (it has not reached schedule()
		// yet): schedule() will see it runnable and keep it.
		if (cpus[cpu].current == t) {
			spin_unlock_irqrestore(&rq->lock, flags);
			return true;
		}
		bool was_idle = cpus[cpu].current->is_idle;
		t->slice = SCHED_SLICE_TICKS;
		if (!may_run_on(t, cpu)) {
			spin_unlock_irqrestore(&rq->lock, flags);
			enqueue_on(t, first_allowed_cpu(t));
			return true;
		}
		rq_push(rq, t);
		spin_unlock_irqrestore(&rq->lock, flags);
		poke(cpu, was_idle);
		return true;
	}
}

// Picks the next thread for this CPU; the run queue lock is held.
static struct thread *pick_next(struct cpu *c, struct runqueue *rq)
{
	struct thread *t = rq->head;

	if (!t)
		return c->idle;
	rq_remove(rq, t);
	return t;
}

// Also ends prev's system (or the CPU's idle) time, and counts the
// switch for getrusage as Linux does: voluntary if prev blocked.
static void account_switch(struct cpu *c, struct thread *prev)
{
	acct_kernel_lap(&c->acct, &prev->acct, prev->is_idle);
	if (prev->state == THREAD_RUNNABLE)
		prev->acct.nivcsw++;
	else
		prev->acct.nvcsw++;
	c->stats.ctxsw++;
	if (prev->preempted)
		c->stats.ctxsw_invol++;
	else
		c->stats.ctxsw_vol++;
}

// First thing a thread does when it gets the CPU: the thread that left
// holds this CPU's run queue lock and is still marked on_cpu.  Release
// both, then deal with what the leaving thread could not do itself.
//
// Whether the leaving thread is dead must be read before on_cpu is
// cleared: from that moment it may run on another CPU (a migrating thread
// is enqueued elsewhere right below), exit there and be freed there.
void sched_finish_switch(void)
{
	struct cpu *c = this_cpu();
	struct thread *prev = c->switch_prev;
	struct thread *migrating = c->migrate_pending;
	bool prev_dead = prev && prev->state == THREAD_DEAD;

	c->switch_prev = 0;
	c->migrate_pending = 0;
	if (prev)
		__atomic_store_n(&prev->on_cpu, false, __ATOMIC_RELEASE);
	spin_unlock(&rq_of(c->id)->lock);
	if (migrating)
		enqueue_on(migrating, first_allowed_cpu(migrating));
	if (prev_dead)
		thread_free(prev);
}

void schedule(void)
{
	uint64_t flags = irq_save();
	struct cpu *c = this_cpu();
	struct runqueue *rq = rq_of(c->id);
	struct thread *prev = c->current;

	if (c->preempt_count != 0)
		panic("schedule() with preemption disabled (count %d) in %s",
		      c->preempt_count, prev->name);
	spin_lock(&rq->lock);
	c->need_resched = false;
	if (prev->state == THREAD_RUNNABLE && !prev->is_idle) {
		if (may_run_on(prev, c->id)) {
			rq_push(rq, prev);
		} else {
			// Affinity changed: once off this CPU, it goes to an
			// allowed one.  It stays RUNNABLE, so wake-ups ignore it.
			c->migrate_pending = prev;
		}
	}
	struct thread *next = pick_next(c, rq);
	if (next->state != THREAD_RUNNABLE)
		panic("schedule: picked thread %s (tid %d) in state %d", next->name, next->tid, next->state);
	if (next == prev) {
		prev->preempted = false;
		spin_unlock(&rq->lock);
		irq_restore(flags);
		return;
	}
	// A thread woken while still switching out elsewhere: wait for its
	// stack to be free.
	while (__atomic_load_n(&next->on_cpu, __ATOMIC_ACQUIRE))
		cpu_relax();
	account_switch(c, prev);
	if (!next->is_idle)
		tick_switch_in(next);
	next->on_cpu = true;
	next->slice = next->slice > 0 ? next->slice : SCHED_SLICE_TICKS;
	c->current = next;
	// Publish the address space now running here, with the barriers
	// membarrier(2) relies on (docs/membarrier.md).
	membarrier_switch_mm(next->mm);
	c->switch_prev = prev;
	fac_switch_out(prev);
	if (rseq_registered(&prev->rseq))
		rseq_switched_out(prev);
	arch_context_switch(prev, next);
	// Back in prev, possibly on another CPU, with that CPU's lock held.
	sched_finish_switch();
	irq_restore(flags);
}

// Kernel code is not preempted: it gives up the CPU when it blocks, and
// user threads are preempted on their way back to user space.  Only the
// idle loop reacts to need_resched itself.
void preempt_from_interrupt(struct trap_frame *f)
{
	(void)f;
}

void sched_yield(void)
{
	current_thread()->preempted = false;
	schedule();
}

void sched_preempt(void)
{
	current_thread()->preempted = true;
	schedule();
}

int sched_nr_waiting(int cpu)
{
	return __atomic_load_n(&rq_of(cpu)->nr_waiting, __ATOMIC_RELAXED);
}

bool sched_others_waiting(int cpu)
{
	for (int i = 0; i < ncpus; i++)
		if (i != cpu && cpus[i].online && __atomic_load_n(&rq_of(i)->nr_waiting, __ATOMIC_RELAXED))
			return true;
	return false;
}

int sched_nr_running(void)
{
	int n = 0;

	for (int i = 0; i < ncpus && i < MAX_CPUS; i++) {
		struct cpu *c = &cpus[i];
		struct thread *cur = __atomic_load_n(&c->current, __ATOMIC_RELAXED);

		if (!c->online)
			continue;
		n += __atomic_load_n(&rq_of(i)->nr_waiting, __ATOMIC_RELAXED);
		if (cur && cur != c->idle)
			n++;
	}
	return n;
}

// An idle CPU takes one waiting thread from the busiest queue.
static void pull_one(struct cpu *c)
{
	int busiest = -1, most = 0;

	for (int i = 0; i < ncpus; i++) {
		int n = rq_of(i)->nr_waiting;
		if (i != c->id && cpus[i].online && n > most) {
			most = n;
			busiest = i;
		}
	}
	if (busiest < 0)
		return;
	struct runqueue *from = rq_of(busiest);
	uint64_t flags = spin_lock_irqsave(&from->lock);
	struct thread *t = from->head;
	while (t && (!may_run_on(t, c->id) ||
		     jiffies - t->last_migration < MIGRATION_COOLDOWN_TICKS || t->on_cpu))
		t = t->rq_next;
	if (t)
		rq_remove(from, t);
	spin_unlock_irqrestore(&from->lock, flags);
	if (t)
		enqueue_on(t, c->id);
}

void sched_tick(void)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->current;

	if (t->is_idle) {
		if (ncpus_online > 1)
			pull_one(c);
		if (rq_of(c->id)->nr_waiting)
			c->need_resched = true;
		return;
	}
	if (--t->slice <= 0) {
		t->slice = SCHED_SLICE_TICKS;
		if (rq_of(c->id)->nr_waiting)
			c->need_resched = true;
	}
}

int sched_set_affinity(struct thread *t, cpumask_t mask)
{
	mask &= cpumask_online();
	if (!mask)
		return -1;
	t->affinity = mask;
	if (t == current_thread()) {
		if (!may_run_on(t, this_cpu()->id))
			sched_yield();	// schedule() hands it to an allowed CPU
		return 0;
	}
	// Another thread: if it waits in a queue it may not use, move it; if
	// it runs on a CPU it may not use, make that CPU reschedule (its
	// schedule() hands it on).  A blocked thread moves when woken.
	int cpu = t->cpu;
	struct runqueue *rq = rq_of(cpu);
	uint64_t flags = spin_lock_irqsave(&rq->lock);
	bool queued = t->on_rq && t->cpu == cpu;
	bool running_there = cpus[cpu].current == t;
	if (queued && !may_run_on(t, cpu))
		rq_remove(rq, t);
	spin_unlock_irqrestore(&rq->lock, flags);
	if (queued && !may_run_on(t, cpu))
		enqueue_on(t, first_allowed_cpu(t));
	else if (running_there && !may_run_on(t, cpu))
		arch_send_ipi(cpu, IPI_RESCHED);
	return 0;
}

void sched_exit_current(void)
{
	irq_disable();
	struct thread *t = current_thread();
	t->state = THREAD_DEAD;
	schedule();
	panic("dead thread %s was scheduled again", t->name);
}

__attribute__((noreturn)) void sched_idle_loop(void)
{
	struct cpu *c = this_cpu();

	for (;;) {
		irq_disable();
		if (c->need_resched || rq_of(c->id)->nr_waiting) {
			c->current->preempted = false;
			if (rq_of(c->id)->nr_waiting)
				tick_resume();
			irq_enable();
			schedule();
			continue;
		}
		tick_idle_enter();
		// Enabling interrupts and halting is one step: a wake-up IPI
		// cannot slip in between the check above and the halt.
		uint64_t t0 = clock_monotonic_ns();
		irq_enable_and_wait();
		irq_disable();
		c->stats.idle_ns += clock_monotonic_ns() - t0;
		tick_idle_exit();
	}
}
