// The scheduler.
//
// Classes (docs/scheduler.md): real-time threads (SCHED_FIFO, SCHED_RR,
// priorities 1..99) always run before fair ones; each CPU keeps one FIFO
// list per real-time priority and a bitmap of the non-empty ones.  Fair
// threads (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE) share a CPU by virtual
// runtime: ns run scaled by 1024 / weight (Linux's nice-to-weight table),
// and the one with the least runs next.  A fair thread runs at least a
// slice unless a thread that should preempt it wakes: Linux's slice,
// which shrinks as more threads share the CPU (fair_slice), ended by a
// timer of its own (slice_arm) so that a slice shorter than a tick is
// exact; an RR thread runs a quantum of 100 ms before going to the back
// of its priority.  Time is measured in ns of the scheduler's clock (the
// cycle counter in ns: sched_clock); the tick and the slice timer only
// decide when to look.
//
// A woken thread goes to the queue of the CPU it last ran on (a real-time
// one to a CPU running a lower class if its own cannot take it at once);
// if it should preempt what runs there, that CPU's need_resched is set and
// it is sent a reschedule IPI, busy or idle.  Every few ticks each CPU
// compares weighted loads and takes a thread from a busier CPU (equal
// weights rotate, so three threads on two CPUs share them evenly), and a
// CPU running no real-time thread takes one that waits elsewhere.  A
// thread that just moved is left alone for a few ticks.
//
// Locking: a run queue's lock guards its lists and the state of the
// threads on it.  The lock is held across the stack switch and released
// by the thread that starts running (sched_finish_switch), so no other
// CPU sees a half-switched CPU.  A thread blocked on one CPU may be woken
// by another while it is still switching out: on_cpu tells the picker to
// wait until its stack is free.  pi_lock (priority inheritance) is taken
// before a run queue lock, never under one.

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
#include <kernel/facility_return.h>
#include <kernel/membarrier.h>
#include <kernel/rseq.h>
#include <kernel/ktimer.h>

#include <mm/kmalloc.h>
#include <uapi/sched.h>
#include <lib/rbtree.h>
#include <stddef.h>

#define MIGRATION_COOLDOWN_TICKS 4
#define BALANCE_TICKS		4	// the busy balancer runs every this many ticks
#define NICE_0_WEIGHT		1024
#define IDLE_WEIGHT		3	// SCHED_IDLE, as Linux's WEIGHT_IDLEPRIO
// A sleeper comes back at most this far (ns, unweighted) behind the
// CPU's min_vruntime: Linux's GENTLE_FAIR_SLEEPERS half of a 6 ms latency.
#define SLEEPER_CREDIT_NS	3000000ULL
// A woken fair thread preempts only with this much vruntime lead (ns at
// its own weight): Linux's 1 ms wakeup granularity.
#define WAKEUP_GRAN_NS		1000000ULL
#define PI_CHAIN_MAX		16	// longest chain a boost follows

static struct runqueue runqueues[MAX_CPUS];
static struct spinlock pi_lock = SPINLOCK_INIT("sched_pi");
// SCHED_LATENCY_NS and SCHED_MIN_GRAN_NS scaled for the CPUs there are
// (sched_init_cpu).
static uint64_t latency_ns = SCHED_LATENCY_NS, min_gran_ns = SCHED_MIN_GRAN_NS;

static void pi_propagate_locked(struct thread *t);
static void slice_timer_fn(struct ktimer *kt);
static void slice_queued(struct runqueue *rq, int cpu);

// Linux's sched_prio_to_weight: each nice step is about 10 % of CPU.
static const uint32_t nice_weight[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
	110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
};

static struct runqueue *rq_of(int cpu)
{
	return &runqueues[cpu];
}

// The real-time priority a thread runs at: its own or an inherited one;
// 0 for the fair classes.  Kept in t->run_prio and worked out again
// wherever the policy, the priority or the boost change (set_run_prio):
// a switch asks it four times.
static int rt_prio_of(const struct thread *t)
{
	return t->run_prio;
}

static void set_run_prio(struct thread *t)
{
	int own = (t->policy == SCHED_FIFO || t->policy == SCHED_RR) ? t->rt_prio : 0;

	t->run_prio = (uint8_t)(t->pi_boost > own ? t->pi_boost : own);
}

// For comparing what runs: idle below every fair thread, real time above.
bool sched_thread_rt(const struct thread *t)
{
	return rt_prio_of(t) > 0;
}

static int rank_of(const struct thread *t)
{
	return t->is_idle ? -1 : rt_prio_of(t);
}

static uint32_t weight_of(const struct thread *t)
{
	return t->policy == SCHED_IDLE ? IDLE_WEIGHT : nice_weight[t->nice + 20];
}

// ns run, in the vruntime of a thread of weight w.
static uint64_t scaled(uint64_t ns, uint32_t w)
{
	if (w == NICE_0_WEIGHT)
		return ns;	// the common weight: no division on the switch path
	return ns * NICE_0_WEIGHT / w;
}

// Linux's sched_slice: the period (latency_ns, or min_gran_ns a thread
// when more than SCHED_NR_LATENCY share the CPU) divided among the 'nr'
// fair threads of a CPU, of total weight 'load', in proportion to the
// weight w of the one asking; at least min_gran_ns.  So with n equal
// threads each runs latency / n, down to the minimum granularity, and a
// round of all of them takes the period.
static uint64_t fair_slice(uint64_t nr, uint64_t load, uint32_t w)
{
	uint64_t period = nr > SCHED_NR_LATENCY ? nr * min_gran_ns : latency_ns;
	uint64_t slice = period * w / load;

	return slice > min_gran_ns ? slice : min_gran_ns;
}

// Fair threads waiting in rq.
static int fair_waiting(const struct runqueue *rq)
{
	return rq->nr_waiting - rq->nr_rt_waiting;
}

// The slice of t, a fair thread running on rq's CPU (not in its queue).
static uint64_t running_slice(const struct runqueue *rq, const struct thread *t)
{
	return fair_slice((uint64_t)fair_waiting(rq) + 1, rq->fair_weight + t->weight, t->weight);
}

static int rr_ticks(void)
{
	uint64_t t = SCHED_RR_NS * timer_hz / 1000000000ULL;

	return t ? (int)t : 1;
}

// The slice fair thread t gets on cpu as it is loaded now, t counted
// once whether it runs there, waits there or is not there yet (a
// lock-free snapshot unless the caller holds the run queue's lock).
static uint64_t slice_on(int cpu, const struct thread *t)
{
	const struct runqueue *rq = rq_of(cpu);
	const struct thread *cur = __atomic_load_n(&cpus[cpu].current, __ATOMIC_RELAXED);
	uint64_t nr = (uint64_t)fair_waiting(rq), load = rq->fair_weight;

	if (cur && !cur->is_idle && !sched_thread_rt(cur)) {
		nr++;
		load += cur->weight;
	}
	if (!(t->on_rq && t->cpu == cpu) && cur != t) {
		nr++;
		load += t->weight;
	}
	return fair_slice(nr, load, t->weight);
}

// Linux reports 0 for SCHED_FIFO, the quantum for SCHED_RR and for the
// fair classes the slice the thread gets on its CPU now (in ns; Linux
// 6.1 rounds it down to whole jiffies).
uint64_t sched_rr_interval_ns(const struct thread *t)
{
	if (t->policy == SCHED_FIFO)
		return 0;
	if (t->policy == SCHED_RR)
		return SCHED_RR_NS;
	return slice_on(t->cpu >= 0 && t->cpu < ncpus ? t->cpu : 0, t);
}

int sched_stat_prio(const struct thread *t)
{
	int rt = rt_prio_of(t);

	return rt ? -1 - rt : t->nice + 20;
}

static void rt_list_push(struct runqueue *rq, struct thread *t, int prio, bool at_head)
{
	if (at_head) {
		t->rq_prev = 0;
		t->rq_next = rq->rt_head[prio];
		if (rq->rt_head[prio])
			rq->rt_head[prio]->rq_prev = t;
		else
			rq->rt_tail[prio] = t;
		rq->rt_head[prio] = t;
	} else {
		t->rq_next = 0;
		t->rq_prev = rq->rt_tail[prio];
		if (rq->rt_tail[prio])
			rq->rt_tail[prio]->rq_next = t;
		else
			rq->rt_head[prio] = t;
		rq->rt_tail[prio] = t;
	}
	rq->rt_bitmap[prio / 64] |= 1ULL << (prio % 64);
	rq->nr_rt_waiting++;
}

static struct thread *fair_thread(const struct rb_node *n)
{
	return (struct thread *)((const char *)n - offsetof(struct thread, rq_node));
}

// vruntimes are compared by their difference, so that they may wrap.
static bool vruntime_before(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0;
}

// The fair queue is a red-black tree keyed by vruntime (lib/rbtree.h):
// the pick and min_vruntime read its cached first node, and no switch,
// wake-up or yield costs more than O(log n) however many threads wait
// (a sorted list walked from its tail cost a woken thread placed near
// the head a walk over all the others: 2900 instructions a sleep with
// 1000 threads).  A thread with no less vruntime than the last (one that
// yielded, a new one) goes after it, one with less than the first (a
// woken sleeper) before it, without a descent; any other descends from
// the root.  Equal vruntimes go right: they keep their order of arrival.
// A queued thread's vruntime never changes (it is set before the push,
// or the thread is taken off and queued again), so the order holds.
static void fair_enqueue(struct runqueue *rq, struct thread *t)
{
	struct rb_node *parent = rq->fair.last, *n;
	bool left = false;

	if (parent && vruntime_before(t->vruntime, fair_thread(parent)->vruntime)) {
		parent = rq->fair.first;
		left = true;
		if (!vruntime_before(t->vruntime, fair_thread(parent)->vruntime)) {
			for (n = rq->fair.root; n; n = left ? n->left : n->right) {
				parent = n;
				left = vruntime_before(t->vruntime, fair_thread(n)->vruntime);
			}
		}
	}
	rb_insert(&rq->fair, &t->rq_node, parent, left);
	t->rq_weight = t->weight;
	rq->fair_weight += t->rq_weight;
}

// A preempted real-time thread goes back to the head of its priority (it
// has the CPU next), anything else to the back.
static void rq_push(struct runqueue *rq, struct thread *t, bool at_head)
{
	int prio = rt_prio_of(t);

	if (t->on_rq || t->state != THREAD_RUNNABLE)
		panic("run queue: pushing thread %s (tid %d) that is %s", t->name, t->tid,
		      t->on_rq ? "already queued" : "not runnable");
	t->rq_list = (uint8_t)prio;
	if (prio)
		rt_list_push(rq, t, prio, at_head);
	else
		fair_enqueue(rq, t);
	rq->nr_waiting++;
	t->on_rq = true;
}

// Unlinks t from the real-time list of priority prio.
static void rt_list_remove(struct runqueue *rq, struct thread *t, int prio)
{
	if (t->rq_prev)
		t->rq_prev->rq_next = t->rq_next;
	else
		rq->rt_head[prio] = t->rq_next;
	if (t->rq_next)
		t->rq_next->rq_prev = t->rq_prev;
	else
		rq->rt_tail[prio] = t->rq_prev;
	t->rq_next = t->rq_prev = 0;
	if (!rq->rt_head[prio])
		rq->rt_bitmap[prio / 64] &= ~(1ULL << (prio % 64));
	rq->nr_rt_waiting--;
}

// Takes t off the list or tree it is on: the one it was queued on.
static void rq_remove(struct runqueue *rq, struct thread *t)
{
	int prio = t->rq_list;

	if (prio) {
		rt_list_remove(rq, t, prio);
	} else {
		rb_erase(&rq->fair, &t->rq_node);
		rq->fair_weight -= t->rq_weight;
	}
	rq->nr_waiting--;
	t->on_rq = false;
}

// The highest real-time priority waiting, 0 if none.
static int rt_top(const struct runqueue *rq)
{
	if (rq->rt_bitmap[1])
		return 64 + 63 - __builtin_clzll(rq->rt_bitmap[1]);
	if (rq->rt_bitmap[0])
		return 63 - __builtin_clzll(rq->rt_bitmap[0]);
	return 0;
}

// The waiting fair thread with the least vruntime (the first of the
// tree), other than 'skip' if there is another.
static struct thread *fair_leftmost(const struct runqueue *rq, const struct thread *skip)
{
	struct rb_node *n = rq->fair.first, *next;

	if (!n)
		return 0;
	if (fair_thread(n) == skip && (next = rb_next(n)))
		n = next;
	return fair_thread(n);
}

// min_vruntime follows the least vruntime of the CPU's fair threads
// (running or waiting) and never goes back.  v is the running fair
// thread's, just charged: the least is v or the tree's first.
static void update_min_vruntime(struct runqueue *rq, uint64_t v)
{
	struct rb_node *first = rq->fair.first;

	if (first && vruntime_before(fair_thread(first)->vruntime, v))
		v = fair_thread(first)->vruntime;
	if (vruntime_before(rq->min_vruntime, v))
		rq->min_vruntime = v;
}

// The scheduler's clock: the cycle counter in ns, without the monotonic
// clock's sequence lock and fences (Linux's sched_clock).  The CPUs'
// counters run in step (arch/cycles.h); a correction of the rate may
// move it once, which update_curr's check of the delta absorbs.  A
// switch reads the counter once for this and for the CPU-time accounts.
static uint64_t sched_clock_at(uint64_t cycles)
{
	return arch_cycles_to_ns(cycles);
}

static uint64_t sched_clock(void)
{
	return sched_clock_at(arch_cycles());
}

// Charges the running thread for the time since it was last charged; the
// run queue lock is held (or interrupts are off on its own CPU).
static void update_curr_at(struct runqueue *rq, struct thread *curr, uint64_t now)
{
	uint64_t delta = now - curr->exec_start;

	if (curr->is_idle || (int64_t)delta <= 0)
		return;
	if (!curr->exec_start) {	// the boot thread's first look
		curr->exec_start = now;
		return;
	}
	curr->exec_start = now;
	curr->sum_exec_ns += delta;
	if (rt_prio_of(curr))
		rq->rt_time += delta;
	else {
		curr->vruntime += scaled(delta, curr->weight);
		update_min_vruntime(rq, curr->vruntime);
	}
}

static void update_curr(struct runqueue *rq, struct thread *curr)
{
	update_curr_at(rq, curr, sched_clock());
}

// Where a fair thread that was away comes back: not far behind the
// others, so a long sleeper cannot take the CPU for long.
static void place_woken(struct runqueue *rq, struct thread *t)
{
	uint64_t credit = SLEEPER_CREDIT_NS;

	if ((int64_t)(rq->min_vruntime - credit - t->vruntime) > 0)
		t->vruntime = rq->min_vruntime - credit;
}

// Should t, just queued on cpu, take that CPU from what runs there?
// What runs there was charged up to now (update_curr) by the caller, as
// it had to be before t was placed against min_vruntime: its vruntime is
// today's without another read of the clock.
static bool should_preempt(int cpu, const struct thread *t)
{
	const struct thread *cur = cpus[cpu].current;
	int tr = rank_of(t), cr = rank_of(cur);

	if (cur == t)
		return false;
	if (tr != cr || tr > 0)
		return tr > cr;		// real time: only a higher priority preempts
	// Both fair.  SCHED_IDLE gives way to any other fair thread; a woken
	// SCHED_BATCH or SCHED_IDLE thread preempts nothing (as Linux).
	if (cur->policy == SCHED_IDLE && t->policy != SCHED_IDLE)
		return true;
	if (t->policy == SCHED_BATCH || t->policy == SCHED_IDLE)
		return false;
	return (int64_t)(cur->vruntime - t->vruntime) > (int64_t)scaled(WAKEUP_GRAN_NS, t->weight);
}

// After t was queued on cpu (its lock held): make that CPU reschedule if
// t should run there now, else see that the slice of what runs there
// ends on time.  The IPI itself is sent by the caller after the unlock.
// Returns whether an IPI is due.
static bool kick_locked(int cpu, const struct thread *t)
{
	struct cpu *c = &cpus[cpu];
	bool was_idle = c->current->is_idle;

	if (!should_preempt(cpu, t)) {
		slice_queued(rq_of(cpu), cpu);
		return false;
	}
	c->need_resched = true;
	if (cpu == this_cpu()->id)
		return false;
	if (!was_idle)
		this_cpu()->stats.preempt_ipi++;
	return true;
}

// Linux scales its latency and minimum granularity by 1 + log2 of the
// CPUs, at most 8 of them (SCHED_TUNABLESCALING_LOG): more CPUs, longer
// slices, since a thread waiting on one may be taken by another.
static void init_granularity(void)
{
	int n = ncpus < 8 ? ncpus : 8;
	uint64_t factor = 1;

	while (n >>= 1)
		factor++;
	latency_ns = SCHED_LATENCY_NS * factor;
	min_gran_ns = SCHED_MIN_GRAN_NS * factor;
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
	rb_init(&rq->fair);
	ktimer_init(&rq->slice_timer, slice_timer_fn);
	rq->slice_timer.deferrable = true;	// an idle CPU has no slice to end
	init_granularity();
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

// A thread was queued on 'cpu' (kick_locked decided whether it runs
// there now): that CPU is told with an IPI, or it now has a thread
// waiting and its tick must run for the time slices (schedule() starts
// it where a preemption leaves a thread waiting).
static void poke(int cpu, bool ipi)
{
	if (!ipi)
		tick_needed_on(cpu);
	else if (!sched_idle_polling(cpu))	// a polling idle CPU sees it itself
		arch_send_ipi(cpu, IPI_RESCHED);
}

// A real-time thread that cannot preempt what runs on 'cpu' goes where
// the lowest class runs (an idle CPU first), if that is lower than it.
static int select_cpu(struct thread *t, int cpu)
{
	int rank = rank_of(t), best = cpu, best_rank;

	if (!may_run_on(t, cpu) || !cpus[cpu].online)
		best = cpu = first_allowed_cpu(t);
	if (!rank)
		return cpu;
	best_rank = rank_of(cpus[cpu].current);
	if (best_rank < rank)
		return cpu;
	for (int i = 0; i < ncpus; i++) {
		int r;
		if (!cpus[i].online || !may_run_on(t, i))
			continue;
		r = rank_of(__atomic_load_n(&cpus[i].current, __ATOMIC_RELAXED));
		if (r < best_rank) {
			best = i;
			best_rank = r;
		}
	}
	return best;
}

// Enqueues t (runnable, not running) on 'cpu' and pokes that CPU if t
// should run there now.  'woken': it was asleep (its vruntime is placed).
static void enqueue_on(struct thread *t, int cpu, bool woken)
{
	struct runqueue *rq = rq_of(cpu);
	uint64_t flags = spin_lock_irqsave(&rq->lock);

	if (t->on_cpu)
		panic("enqueue_on: thread %s (tid %d) still runs on cpu %d", t->name, t->tid, t->cpu);
	// What runs there may have run long without a tick to charge it
	// (kernel/time/tick.c): min_vruntime must be today's before t is
	// placed against it.
	update_curr(rq, cpus[cpu].current);
	if (t->cpu != cpu) {
		// vruntime is relative to each CPU's min_vruntime.
		if (t->cpu >= 0 && t->cpu < ncpus)
			t->vruntime += rq->min_vruntime - rq_of(t->cpu)->min_vruntime;
		t->cpu = cpu;
		t->last_migration = jiffies;
		cpus[cpu].stats.migrations++;
	}
	if (woken)
		place_woken(rq, t);
	rq_push(rq, t, false);
	bool ipi = kick_locked(cpu, t);
	spin_unlock_irqrestore(&rq->lock, flags);
	poke(cpu, ipi);
}

// A new thread: after the others of its CPU (Linux's START_DEBIT), so a
// forking loop cannot crowd them out.
void sched_start(struct thread *t)
{
	int cpu = t->cpu;

	if (cpu < 0 || cpu >= ncpus || !cpus[cpu].online || !may_run_on(t, cpu))
		cpu = first_allowed_cpu(t);
	t->state = THREAD_RUNNABLE;
	t->weight = weight_of(t);
	t->cpu = cpu;
	struct runqueue *rq = rq_of(cpu);
	uint64_t flags = spin_lock_irqsave(&rq->lock);
	update_curr(rq, cpus[cpu].current);	// min_vruntime of now (enqueue_on)
	t->vruntime = rq->min_vruntime + scaled(slice_on(cpu, t), t->weight);
	spin_unlock_irqrestore(&rq->lock, flags);
	enqueue_on(t, select_cpu(t, cpu), false);
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
		int want = select_cpu(t, cpu);
		if (want != cpu) {
			spin_unlock_irqrestore(&rq->lock, flags);
			enqueue_on(t, want, true);
			return true;
		}
		update_curr(rq, cpus[cpu].current);	// as in enqueue_on
		place_woken(rq, t);
		rq_push(rq, t, false);
		bool ipi = kick_locked(cpu, t);
		spin_unlock_irqrestore(&rq->lock, flags);
		poke(cpu, ipi);
		return true;
	}
}

// Picks the next thread for this CPU; the run queue lock is held.  A
// thread that yielded ('skip') is passed over if another fair one waits.
static struct thread *pick_next(struct cpu *c, struct runqueue *rq, struct thread *skip)
{
	int prio = rq->nr_rt_waiting ? rt_top(rq) : 0;
	struct thread *t = 0;

	if (prio && rq->rt_throttled)
		t = fair_leftmost(rq, skip);	// real time used up its share
	if (!t)
		t = prio ? rq->rt_head[prio] : fair_leftmost(rq, skip);

	if (!t)
		return c->idle;
	rq_remove(rq, t);
	return t;
}

// The shortcut of rq_push(prev) then pick_next for a fair prev that
// stays runnable here, when no real-time thread and at most one fair
// thread wait: the same pick without touching the tree.  Nobody
// waiting, prev runs on; one waiting, prev runs on if it would be
// picked again (before it: prev would go after an equal one; never if
// it yielded, 'skip'), else the one waiting runs and prev takes its
// place in the tree, links and all (rb_replace).  So a yield or a
// preemption between two threads costs no insert and no erase.  More
// waiting: NULL, the long way (cheaply: one comparison).
static struct thread *requeue_pick(struct runqueue *rq, struct thread *prev,
				   const struct thread *skip)
{
	struct rb_node *first = rq->fair.first;
	struct thread *left;

	if (first != rq->fair.last || rq->nr_rt_waiting || rt_prio_of(prev) || prev->on_rq)
		return 0;
	if (!first)
		return prev;
	left = fair_thread(first);
	if (skip != prev && vruntime_before(prev->vruntime, left->vruntime))
		return prev;
	rb_replace(&rq->fair, first, &prev->rq_node);
	rq->fair_weight -= left->rq_weight;
	rq->fair_weight += prev->weight;
	prev->rq_list = 0;
	prev->rq_weight = prev->weight;
	prev->on_rq = true;
	left->on_rq = false;
	return left;
}

// A fair thread that yields goes behind every fair thread waiting (its
// vruntime raised to the last one's, as Linux's old compat_yield): the
// others run first, as POSIX has it for a priority's list, and its place
// is after the tree's cached last, found without a descent.  It gives up
// at most one slice of its own time: behind a light thread whose
// vruntime is far ahead (a SCHED_IDLE one after its slice) it goes only
// that far, or one yield could cost it seconds.
static void yield_to_back(struct runqueue *rq, struct thread *t)
{
	uint64_t v, cap, diff;

	if (rt_prio_of(t) || !rq->fair.last)
		return;
	v = fair_thread(rq->fair.last)->vruntime;
	if (!vruntime_before(t->vruntime, v))
		return;
	// The cap is a slice at t's weight: within the shortest slice there
	// is, no need to work out t's (two divisions a yield).
	diff = v - t->vruntime;
	if (diff >= 1ULL << 40 || diff * t->weight > min_gran_ns * NICE_0_WEIGHT) {
		cap = t->vruntime + scaled(running_slice(rq, t), t->weight);
		if (vruntime_before(cap, v))
			v = cap;
	}
	t->vruntime = v;
}

// prev, runnable and staying here, goes back to the queue: a preempted
// real-time thread at the head of its priority (it has the CPU next),
// one that yielded behind the fair threads waiting.  Returns the thread
// to run next where requeue_pick found it without the queue, else NULL:
// pick_next then picks, passing over 'skip' (prev, if it gave up the CPU
// itself) if another waits.
static struct thread *requeue(struct runqueue *rq, struct thread *prev, const struct thread *skip)
{
	struct thread *next;

	if (prev->yielding)
		yield_to_back(rq, prev);
	next = requeue_pick(rq, prev, skip);
	if (!next)
		rq_push(rq, prev, prev->preempted && rt_prio_of(prev) && !prev->rr_expired);
	return next;
}

// ---- the end of a fair slice ----
//
// Each CPU has a slice timer (rq->slice_timer) that ends the running
// fair thread's slice on time while fair threads wait, however short the
// slice (a tick is 10 ms at hz=100, a slice down to 0.75 ms).  The rule:
// while it is queued, the timer is due no later than the running
// thread's slice ends.  To keep it without working out each slice at
// each switch, the timer is never set further than min_gran_ns ahead:
// then a thread that starts running finds it due within the shortest
// slice there is, so within its own, and a switch costs one look at
// whether the timer is queued.  When the timer fires (or the tick
// comes), the running thread's slice is worked out: over, the thread
// gives way to a waiting fair thread that is behind it or starts a new
// slice; not over, the timer comes back at its end or within
// min_gran_ns, whichever is sooner.  Nothing waiting, it is not set
// again.  So it costs at most an interrupt every min_gran_ns, and only
// while fair threads wait on the CPU.  It is armed where a thread starts
// running with fair threads waiting (slice_begin), where a thread is
// queued on this CPU behind a fair one (slice_queued) and by the tick,
// which covers threads queued from another CPU; it is deferrable: an
// idle CPU does not wake for it.  rq->lock is held throughout.

// t (fair, running here, charged up to now) has fair threads waiting:
// the timer fires when its slice ends or within min_gran_ns.  (Timers
// run on the monotonic clock, not the scheduler's: read it here, which
// happens at most once a min_gran_ns.)
static void slice_arm(struct runqueue *rq, struct thread *t)
{
	uint64_t slice = running_slice(rq, t), ran = t->sum_exec_ns - t->slice_start;
	uint64_t left = ran < slice ? slice - ran : 0;

	ktimer_arm(&rq->slice_timer, clock_monotonic_ns() + (left < min_gran_ns ? left : min_gran_ns),
		   0);
}

// The slice of t (fair, running here, charged by update_curr) is looked
// at: once it is over, t gives way to a waiting fair thread that is
// behind it, or else starts a new slice; the timer comes back as
// slice_arm says.  Nothing waiting: nothing to do (the next thread
// queued here arms the timer, or the tick does).
static void fair_slice_check(struct cpu *c, struct runqueue *rq, struct thread *t)
{
	struct thread *left = fair_leftmost(rq, 0);

	if (!left)
		return;
	if (t->sum_exec_ns - t->slice_start >= running_slice(rq, t)) {
		if (vruntime_before(left->vruntime, t->vruntime)) {
			c->need_resched = true;
			return;
		}
		t->slice_start = t->sum_exec_ns;
	}
	slice_arm(rq, t);
}

static void slice_timer_fn(struct ktimer *kt)
{
	struct cpu *c = this_cpu();
	struct runqueue *rq = rq_of(c->id);
	uint64_t flags = spin_lock_irqsave(&rq->lock);
	struct thread *t = c->current;

	(void)kt;
	if (!t->is_idle && !rt_prio_of(t)) {
		update_curr(rq, t);
		fair_slice_check(c, rq, t);
	}
	spin_unlock_irqrestore(&rq->lock, flags);
}

// next gets this CPU (rq->lock held, interrupts off): a SCHED_RR thread
// goes on with what is left of its quantum (a new one if it used it up),
// any other starts a slice, timed in its own run time from here, and a
// fair one with fair threads waiting needs the slice timer queued (if
// it is, it is due in time: see above).
static void slice_begin(struct runqueue *rq, struct thread *next)
{
	if (next->policy == SCHED_RR) {
		if (next->slice <= 0)
			next->slice = rr_ticks();
		return;
	}
	next->slice_start = next->sum_exec_ns;
	if (fair_waiting(rq) && !ktimer_queued(&rq->slice_timer) && !next->is_idle &&
	    !rt_prio_of(next))
		slice_arm(rq, next);
}

// t was queued on this CPU: if a fair thread runs here, its slice must
// now end on time (rq->lock held, interrupts off).  A thread queued from
// another CPU leaves that to this CPU's tick, which the queuing starts
// if it had stopped.
static void slice_queued(struct runqueue *rq, int cpu)
{
	struct thread *cur = cpus[cpu].current;

	if (ktimer_queued(&rq->slice_timer) || cur->is_idle || rt_prio_of(cur) ||
	    cpu != this_cpu()->id)
		return;
	slice_arm(rq, cur);
}

// Also ends prev's system (or the CPU's idle) time, and counts the
// switch for getrusage as Linux does: voluntary if prev blocked.
static void account_switch(struct cpu *c, struct thread *prev, uint64_t cycles)
{
	acct_kernel_lap_at(&c->acct, &prev->acct, prev->is_idle, cycles);
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
static inline void finish_switch(void)
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
		enqueue_on(migrating, first_allowed_cpu(migrating), false);
	if (prev_dead)
		thread_free(prev);
}

// A new thread's first steps (thread_start); schedule() has its own
// copy inline.
void sched_finish_switch(void)
{
	finish_switch();
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
	uint64_t cycles = arch_cycles(), now = sched_clock_at(cycles);
	update_curr_at(rq, prev, now);
	struct thread *next = 0, *skip = 0;
	if (prev->state == THREAD_RUNNABLE && !prev->is_idle) {
		if (may_run_on(prev, c->id)) {
			if (!prev->preempted)
				skip = prev;	// yielded (or woken before it slept)
			next = requeue(rq, prev, skip);
		} else {
			// Affinity changed: once off this CPU, it goes to an
			// allowed one.  It stays RUNNABLE, so wake-ups ignore it.
			c->migrate_pending = prev;
		}
	}
	if (!next)
		next = pick_next(c, rq, skip);
	prev->rr_expired = false;
	prev->yielding = false;
	if (next->state != THREAD_RUNNABLE)
		panic("schedule: picked thread %s (tid %d) in state %d", next->name, next->tid, next->state);
	next->exec_start = now;
	slice_begin(rq, next);
	if (__atomic_load_n(&c->tick_stopped, __ATOMIC_RELAXED))	// else nothing to do
		tick_switch_in(next, rq->nr_waiting);
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
	account_switch(c, prev, cycles);
	next->on_cpu = true;
	next->nr_switches++;
	c->current = next;
	// Publish the address space now running here, with the barriers
	// membarrier(2) relies on (docs/membarrier.md).
	if (c->mb_mm != next->mm)	// else nothing to publish
		membarrier_switch_mm(next->mm);
	c->switch_prev = prev;
	fac_switch_out(prev);
	if (rseq_registered(&prev->rseq))
		rseq_switched_out(prev);
	// The registers' owners may have changed since next last ran: its
	// way back to user mode decides its facilities again, unless they
	// all stay off with nothing to do.  (An rseq thread's switch-out
	// set WORK_STATE already: that return decides them anyway.)
	if (next->mm && !(__atomic_load_n(&next->work, __ATOMIC_RELAXED) & WORK_STATE) &&
	    fac_switch_in(next, c))
		thread_work_set(next, WORK_STATE);
	arch_context_switch(prev, next);
	// Back in prev, possibly on another CPU, with that CPU's lock held.
	finish_switch();
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
	current_thread()->yielding = true;
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

// The weighted load of a CPU: its fair threads' weights, running or
// waiting (a lock-free snapshot; real-time threads are balanced apart).
static uint64_t cpu_load(int cpu)
{
	struct thread *cur = __atomic_load_n(&cpus[cpu].current, __ATOMIC_RELAXED);
	uint64_t load = __atomic_load_n(&rq_of(cpu)->fair_weight, __ATOMIC_RELAXED);

	if (cur && !cur->is_idle && !rt_prio_of(cur))
		load += cur->weight;
	return load;
}

// May t be taken from its queue to 'cpu' now?
static bool may_pull(struct thread *t, int cpu)
{
	return may_run_on(t, cpu) && !t->on_cpu &&
	       jiffies - t->last_migration >= MIGRATION_COOLDOWN_TICKS;
}

// Takes from 'from' a waiting thread that may come to c: the highest
// real-time one above 'min_rank', else (if max_weight) the heaviest fair
// one of at most max_weight.  Moves it; returns whether it did.
static bool pull_from(struct cpu *c, int from, int min_rank, uint64_t max_weight)
{
	struct runqueue *rq = rq_of(from);
	uint64_t flags = spin_lock_irqsave(&rq->lock);
	struct thread *pick = 0;

	for (int p = RT_PRIO_LEVELS - 1; p > min_rank && !pick; p--)
		for (struct thread *t = rq->rt_head[p]; t && !pick; t = t->rq_next)
			if (may_pull(t, c->id))
				pick = t;
	if (!pick && max_weight) {
		for (struct rb_node *n = rq->fair.first; n; n = rb_next(n)) {
			struct thread *t = fair_thread(n);
			if (may_pull(t, c->id) && t->weight <= max_weight &&
			    (!pick || t->weight > pick->weight))
				pick = t;
		}
	}
	if (pick)
		rq_remove(rq, pick);
	spin_unlock_irqrestore(&rq->lock, flags);
	if (pick)
		enqueue_on(pick, c->id, false);
	return pick != 0;
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
	if (busiest >= 0)
		pull_from(c, busiest, 0, ~0ULL);
}

// Real time: a thread waiting on a CPU while this one runs a lower class
// comes here (a simple form of Linux's RT pull).
static bool pull_rt(struct cpu *c)
{
	int mine = rank_of(c->current);

	if (rt_top(rq_of(c->id)) > mine)
		return false;
	for (int i = 0; i < ncpus; i++)
		if (i != c->id && cpus[i].online && rq_of(i)->nr_rt_waiting &&
		    rt_top(rq_of(i)) > mine && pull_from(c, i, mine > 0 ? mine : 0, 0)) {
			c->stats.rt_pulls++;
			return true;
		}
	return false;
}

// Fair threads: take a thread from the CPU with the most weighted load if
// that does not make this one the heavier by more than it is lighter now.
// Equal imbalances move too: with three equal threads on two CPUs the
// lone thread's place rotates, so each gets two thirds of a CPU.
static void balance_fair(struct cpu *c)
{
	uint64_t mine = cpu_load(c->id), most = 0;
	int busiest = -1;

	for (int i = 0; i < ncpus; i++) {
		uint64_t l;
		if (i == c->id || !cpus[i].online || !rq_of(i)->nr_waiting)
			continue;
		l = cpu_load(i);
		if (l > most) {
			most = l;
			busiest = i;
		}
	}
	if (busiest < 0 || most <= mine)
		return;
	if (pull_from(c, busiest, RT_PRIO_LEVELS, most - mine))
		c->stats.lb_moves++;
}

// Starts a new throttling period when one is over; throttles real time
// once it ran RT_RUNTIME_NS of the period.
static void rt_throttle(struct runqueue *rq)
{
	uint64_t now = clock_monotonic_ns();

	if (now - rq->rt_period_start >= RT_PERIOD_NS) {
		rq->rt_period_start = now;
		rq->rt_time = 0;
		rq->rt_throttled = false;
	}
	if (rq->rt_time > RT_RUNTIME_NS)
		rq->rt_throttled = true;
}

void sched_tick(void)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->current;
	struct runqueue *rq = rq_of(c->id);

	if (ncpus_online > 1) {
		if (t->is_idle)
			pull_one(c);
		else if (!pull_rt(c) && (c->stats.ticks + c->id) % BALANCE_TICKS == 0)
			balance_fair(c);
		// Threads wait here: CPUs whose tick stopped start it, to pull
		// or balance (at most once a tick: Linux's nohz balancer kick).
		if (rq->nr_waiting)
			tick_kick_stopped(c->id);
	}
	if (t->is_idle) {
		if (rq->nr_waiting)
			c->need_resched = true;
		return;
	}
	uint64_t flags = spin_lock_irqsave(&rq->lock);
	update_curr(rq, t);
	int rank = rt_prio_of(t);
	rt_throttle(rq);
	if (rq->rt_throttled && rank && !rb_empty(&rq->fair)) {
		c->need_resched = true;		// real time used up its share
	} else if (rt_top(rq) > rank && !(rq->rt_throttled && !rank)) {
		c->need_resched = true;		// a higher class waits
	} else if (t->policy == SCHED_RR && rank) {
		if (--t->slice <= 0) {
			t->slice = rr_ticks();
			if (rq->rt_head[rank]) {
				t->rr_expired = true;
				c->need_resched = true;
			}
		}
	} else if (!rank) {
		fair_slice_check(c, rq, t);
	}
	spin_unlock_irqrestore(&rq->lock, flags);
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
		enqueue_on(t, first_allowed_cpu(t), false);
	else if (running_there && !may_run_on(t, cpu))
		arch_send_ipi(cpu, IPI_RESCHED);
	return 0;
}

// Locks the run queue t belongs to and takes t off it if it waits there;
// *queued says whether it did.  With change_end, the way to change what
// decides t's place.
static struct runqueue *change_begin(struct thread *t, uint64_t *flags, bool *queued)
{
	for (;;) {
		int cpu = t->cpu < 0 ? 0 : t->cpu;
		struct runqueue *rq = rq_of(cpu);
		*flags = spin_lock_irqsave(&rq->lock);
		if (t->cpu == cpu || t->cpu < 0) {
			*queued = t->on_rq;
			if (*queued)
				rq_remove(rq, t);
			else if (cpus[cpu].current == t)
				update_curr(rq, t);
			return rq;
		}
		spin_unlock_irqrestore(&rq->lock, *flags);
	}
}

// Queues t again where its new class puts it, and makes its CPU look
// again: a thread that rose may preempt, one running that fell may have
// to give way.
static void change_end(struct thread *t, struct runqueue *rq, uint64_t flags, bool queued,
		       bool was_rt)
{
	int cpu = (int)(rq - runqueues);
	bool ipi = false;

	t->weight = weight_of(t);
	if (was_rt && !rt_prio_of(t))
		place_woken(rq, t);	// back to fair: no credit for the time away
	if (queued) {
		update_curr(rq, cpus[cpu].current);	// for should_preempt
		rq_push(rq, t, false);
		ipi = kick_locked(cpu, t);
	} else if (cpus[cpu].current == t) {
		cpus[cpu].need_resched = true;
		ipi = cpu != this_cpu()->id;
	}
	spin_unlock_irqrestore(&rq->lock, flags);
	poke(cpu, ipi);
}

void sched_set_params(struct thread *t, int policy, int rt_prio, int nice, bool reset_on_fork)
{
	uint64_t flags;
	bool queued;
	struct runqueue *rq = change_begin(t, &flags, &queued);
	bool was_rt = rt_prio_of(t) != 0;

	if (policy == SCHED_RR && t->policy != SCHED_RR)
		t->slice = rr_ticks();		// a whole first quantum
	t->policy = (uint8_t)policy;
	t->rt_prio = (uint8_t)rt_prio;
	set_run_prio(t);
	t->nice = (int8_t)nice;
	t->reset_on_fork = reset_on_fork;
	change_end(t, rq, flags, queued, was_rt);
	// A waiter's new priority moves its owner's boost (Linux's
	// rt_mutex_adjust_pi).
	flags = spin_lock_irqsave(&pi_lock);
	if (t->pi_owner)
		pi_propagate_locked(t->pi_owner);
	spin_unlock_irqrestore(&pi_lock, flags);
}

// Linux's sched_fork: the class is inherited; with reset-on-fork a
// real-time parent's child is SCHED_OTHER at nice 0, another's negative
// nice becomes 0, and the child does not keep the flag.
void sched_fork(struct thread *child, struct thread *parent)
{
	child->policy = parent->policy;
	child->rt_prio = parent->rt_prio;
	child->nice = parent->nice;
	child->reset_on_fork = false;
	if (parent->reset_on_fork) {
		if (parent->policy == SCHED_FIFO || parent->policy == SCHED_RR) {
			child->policy = SCHED_OTHER;
			child->rt_prio = 0;
			child->nice = 0;
		} else if (child->nice < 0) {
			child->nice = 0;
		}
	}
	child->pi_boost = 0;
	set_run_prio(child);
	child->pi_owner = child->pi_waiters = child->pi_next = child->pi_prev = 0;
	child->weight = weight_of(child);
}

// ---- priority inheritance ----
//
// A thread's boost is the highest real-time priority among the threads
// waiting for it (what they run at, boosts included).  A change at one
// link is carried along the chain of owners, PI_CHAIN_MAX links at most
// (a longer chain, or a cycle, stops there as Linux's walk gives up).

static void set_boost_locked(struct thread *t, int boost)
{
	uint64_t flags;
	bool queued;

	if (t->pi_boost == boost)
		return;
	struct runqueue *rq = change_begin(t, &flags, &queued);
	bool was_rt = rt_prio_of(t) != 0;
	if (boost > t->pi_boost)
		this_cpu()->stats.pi_boosts++;
	t->pi_boost = (uint8_t)boost;
	set_run_prio(t);
	change_end(t, rq, flags, queued, was_rt);
}

// Recomputes the boosts from t along its chain of owners; pi_lock held.
static void pi_propagate_locked(struct thread *t)
{
	for (int depth = 0; t && depth < PI_CHAIN_MAX; depth++) {
		int boost = 0;
		for (struct thread *w = t->pi_waiters; w; w = w->pi_next) {
			int r = rt_prio_of(w);
			if (r > boost)
				boost = r;
		}
		if (boost == t->pi_boost)
			return;
		set_boost_locked(t, boost);
		t = t->pi_owner;
	}
}

// The owner's boost is the most of its waiters' priorities, so a waiter
// that leaves or comes changes it only if it had or brings that most:
// a fair waiter (the common case: a thousand threads queued on one
// mutex) costs O(1), not a walk of the others.
static void pi_unlink_locked(struct thread *waiter)
{
	struct thread *owner = waiter->pi_owner;

	if (!owner)
		return;
	if (waiter->pi_prev)
		waiter->pi_prev->pi_next = waiter->pi_next;
	else
		owner->pi_waiters = waiter->pi_next;
	if (waiter->pi_next)
		waiter->pi_next->pi_prev = waiter->pi_prev;
	waiter->pi_owner = waiter->pi_next = waiter->pi_prev = 0;
	if (owner->pi_boost && rt_prio_of(waiter) >= owner->pi_boost)
		pi_propagate_locked(owner);
}

void sched_pi_block(struct thread *waiter, struct thread *owner)
{
	uint64_t flags = spin_lock_irqsave(&pi_lock);

	if (waiter->pi_owner != owner && owner != waiter) {
		pi_unlink_locked(waiter);
		waiter->pi_owner = owner;
		waiter->pi_prev = 0;
		waiter->pi_next = owner->pi_waiters;
		if (owner->pi_waiters)
			owner->pi_waiters->pi_prev = waiter;
		owner->pi_waiters = waiter;
		if (rt_prio_of(waiter) > owner->pi_boost)
			pi_propagate_locked(owner);
	}
	spin_unlock_irqrestore(&pi_lock, flags);
}

bool sched_pi_has_waiters(struct thread *t)
{
	uint64_t flags = spin_lock_irqsave(&pi_lock);
	bool any = t->pi_waiters != 0;

	spin_unlock_irqrestore(&pi_lock, flags);
	return any;
}

void sched_pi_unblock(struct thread *waiter)
{
	uint64_t flags = spin_lock_irqsave(&pi_lock);

	pi_unlink_locked(waiter);
	spin_unlock_irqrestore(&pi_lock, flags);
}

void sched_pi_thread_exit(struct thread *t)
{
	uint64_t flags = spin_lock_irqsave(&pi_lock);

	pi_unlink_locked(t);
	while (t->pi_waiters) {
		struct thread *w = t->pi_waiters;
		t->pi_waiters = w->pi_next;
		w->pi_owner = w->pi_next = w->pi_prev = 0;
	}
	t->pi_boost = 0;
	set_run_prio(t);
	spin_unlock_irqrestore(&pi_lock, flags);
}

void sched_exit_current(void)
{
	irq_disable();
	struct thread *t = current_thread();
	t->state = THREAD_DEAD;
	schedule();
	panic("dead thread %s was scheduled again", t->name);
}
