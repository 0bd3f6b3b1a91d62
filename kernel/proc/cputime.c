// CPU-time accounting: what the transitions (include/kernel/cputime.h)
// add up, summed per process, folded into the parent when a child is
// reaped, and reported by getrusage(2) and times(2); the tick's checks
// of the CPU-time interval timers and RLIMIT_CPU.  docs/accounting.md.

#include <kernel/cputime.h>
#include <kernel/process.h>
#include <kernel/sched.h>
#include <kernel/proc_internal.h>
#include <kernel/thread.h>
#include <kernel/cpu.h>
#include <kernel/mm.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <kernel/time.h>
#include <arch/irq.h>
#include <uapi/errno.h>

#define RLIMIT_CPU	0
#define RLIMIT_RTTIME	15	// in microseconds
#define RLIM_INFINITY	(~0ULL)
#define NSEC		1000000000ULL
#define USER_HZ_NS	10000000ULL	// clock_t ticks are 1/100 s (USER_HZ)
#define PAGE_KB		4

void acct_cpu_init(struct cpu *c)
{
	c->acct.stamp = arch_cycles();
}

// ---- one thread ----

// The current thread's time since its CPU's last transition is system
// time (we are in the kernel); another thread's counters are as of its
// last transition, at most a tick old while it runs.
static void thread_cycles(struct thread *t, uint64_t *user, uint64_t *sys)
{
	uint64_t flags = irq_save();
	struct cpu *c = this_cpu();

	*user = t->acct.user;
	*sys = t->acct.sys;
	if (t == c->current)
		*sys += arch_cycles() - c->acct.stamp;
	irq_restore(flags);
}

void acct_thread_times(struct thread *t, uint64_t *user_ns, uint64_t *sys_ns)
{
	uint64_t u, s;

	thread_cycles(t, &u, &s);
	*user_ns = arch_cycles_to_ns(u);
	*sys_ns = arch_cycles_to_ns(s);
}

void acct_thread_faults(struct thread *t, uint64_t *minflt, uint64_t *majflt)
{
	*minflt = t->acct.minflt;
	*majflt = t->acct.majflt;
}

void acct_page_fault(void)
{
	current_thread()->acct.minflt++;
}

// ---- one process ----

// p's address spaces' peak, in KB: those it left behind and the current.
// Only for p's own threads (p->mm stays put while one of them runs this).
static uint64_t maxrss_kb(struct process *p)
{
	uint64_t kb = p->acct.maxrss_kb;
	struct mm *mm = p->mm;

	if (mm && mm->rss_peak * PAGE_KB > kb)
		kb = mm->rss_peak * PAGE_KB;
	return kb;
}

// The totals of p's threads, living and exited, without maxrss_kb
// (p->mm may change under exec: only p's own threads read it).  Cycles are summed
// before the conversion so that the sum only grows.
static void process_totals_locked(struct process *p, struct acct_totals *tot)
{
	uint64_t user = 0, sys = 0;

	*tot = p->acct.dead;
	for (struct thread *t = p->threads; t; t = t->proc_next) {
		uint64_t u, s;
		thread_cycles(t, &u, &s);
		user += u;
		sys += s;
		tot->minflt += t->acct.minflt;
		tot->majflt += t->acct.majflt;
		tot->nvcsw += t->acct.nvcsw;
		tot->nivcsw += t->acct.nivcsw;
	}
	// dead.user_ns/sys_ns hold cycles too until here (see acct_thread_exit).
	tot->user_ns = arch_cycles_to_ns(tot->user_ns + user);
	tot->sys_ns = arch_cycles_to_ns(tot->sys_ns + sys);
}

static void process_totals(struct process *p, struct acct_totals *tot)
{
	uint64_t flags = spin_lock_irqsave(&p->lock);

	process_totals_locked(p, tot);
	spin_unlock_irqrestore(&p->lock, flags);
}

// One thread's totals, in ns.
static void thread_totals(struct thread *t, struct acct_totals *tot)
{
	uint64_t u, s;

	thread_cycles(t, &u, &s);
	tot->user_ns = arch_cycles_to_ns(u);
	tot->sys_ns = arch_cycles_to_ns(s);
	tot->minflt = t->acct.minflt;
	tot->majflt = t->acct.majflt;
	tot->nvcsw = t->acct.nvcsw;
	tot->nivcsw = t->acct.nivcsw;
	tot->maxrss_kb = 0;
}

void acct_process_times(struct process *p, uint64_t *user_ns, uint64_t *sys_ns)
{
	struct acct_totals tot;

	process_totals(p, &tot);
	*user_ns = tot.user_ns;
	*sys_ns = tot.sys_ns;
}

void acct_process_faults(struct process *p, uint64_t *minflt, uint64_t *majflt)
{
	struct acct_totals tot;

	process_totals(p, &tot);
	*minflt = tot.minflt;
	*majflt = tot.majflt;
}

// Reaped children's totals.  Reaping adds to them under proc_tree_lock.
static void children_totals_locked(struct process *p, struct acct_totals *tot)
{
	*tot = p->acct.child;
	tot->user_ns = arch_cycles_to_ns(tot->user_ns);
	tot->sys_ns = arch_cycles_to_ns(tot->sys_ns);
}

static void children_totals(struct process *p, struct acct_totals *tot)
{
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);

	children_totals_locked(p, tot);
	spin_unlock_irqrestore(&proc_tree_lock, flags);
}

void acct_task_totals_locked(struct process *p, struct thread *t, struct acct_totals *self,
			     struct acct_totals *children)
{
	if (t)
		thread_totals(t, self);
	else
		process_totals_locked(p, self);
	children_totals_locked(p, children);
}

void acct_children_times(struct process *p, uint64_t *user_ns, uint64_t *sys_ns)
{
	struct acct_totals tot;

	children_totals(p, &tot);
	*user_ns = tot.user_ns;
	*sys_ns = tot.sys_ns;
}

void acct_children_faults(struct process *p, uint64_t *minflt, uint64_t *majflt)
{
	struct acct_totals tot;

	children_totals(p, &tot);
	*minflt = tot.minflt;
	*majflt = tot.majflt;
}

static uint64_t forks;

// Every user thread or process started (Linux's total_forks).
void acct_count_fork(void)
{
	__atomic_add_fetch(&forks, 1, __ATOMIC_RELAXED);
}

uint64_t acct_forks(void)
{
	return __atomic_load_n(&forks, __ATOMIC_RELAXED);
}

uint64_t acct_start_ns(struct process *p)
{
	return p->start_ns;
}

// A thread leaves p (p->lock held): its counters join p's dead totals,
// in cycles (dead.user_ns and dead.sys_ns hold cycles, as child's do).
// From here on the tick leaves its process alone: p may be reaped and
// freed while the thread finishes exiting.
void acct_thread_exit(struct process *p, struct thread *t)
{
	uint64_t u, s;

	thread_cycles(t, &u, &s);
	p->acct.dead.user_ns += u;
	p->acct.dead.sys_ns += s;
	p->acct.dead.minflt += t->acct.minflt;
	p->acct.dead.majflt += t->acct.majflt;
	p->acct.dead.nvcsw += t->acct.nvcsw;
	p->acct.dead.nivcsw += t->acct.nivcsw;
	t->acct.gone = true;
}

// An address space of p is left behind (exec, exit): keep its peak.
void acct_mm_peak(struct process *p, uint64_t rss_pages)
{
	if (rss_pages * PAGE_KB > p->acct.maxrss_kb)
		p->acct.maxrss_kb = rss_pages * PAGE_KB;
}

// The parent reaps a zombie (proc_tree_lock held): the child's own times
// and those of the children it reaped become the parent's children's
// times, as Linux's wait does.  A zombie has no threads left, so its
// dead totals are complete.
void acct_reap(struct process *parent, struct process *child)
{
	struct acct_totals *pc = &parent->acct.child;
	const struct acct_totals *d = &child->acct.dead, *cc = &child->acct.child;

	pc->user_ns += d->user_ns + cc->user_ns;
	pc->sys_ns += d->sys_ns + cc->sys_ns;
	pc->minflt += d->minflt + cc->minflt;
	pc->majflt += d->majflt + cc->majflt;
	pc->nvcsw += d->nvcsw + cc->nvcsw;
	pc->nivcsw += d->nivcsw + cc->nivcsw;
	uint64_t rss = child->acct.maxrss_kb > cc->maxrss_kb ? child->acct.maxrss_kb : cc->maxrss_kb;
	if (rss > pc->maxrss_kb)
		pc->maxrss_kb = rss;
}

// What wait4 reports of a zombie it reaps: its times and its children's,
// as getrusage(RUSAGE_BOTH) would.
void acct_zombie_totals(struct process *c, struct acct_totals *tot)
{
	const struct acct_totals *d = &c->acct.dead, *cc = &c->acct.child;

	tot->user_ns = arch_cycles_to_ns(d->user_ns + cc->user_ns);
	tot->sys_ns = arch_cycles_to_ns(d->sys_ns + cc->sys_ns);
	tot->minflt = d->minflt + cc->minflt;
	tot->majflt = d->majflt + cc->majflt;
	tot->nvcsw = d->nvcsw + cc->nvcsw;
	tot->nivcsw = d->nivcsw + cc->nivcsw;
	tot->maxrss_kb = c->acct.maxrss_kb > cc->maxrss_kb ? c->acct.maxrss_kb : cc->maxrss_kb;
}

// ---- per CPU ----

void acct_cpu_times(int cpu, uint64_t *user, uint64_t *sys, uint64_t *idle, uint64_t *irq)
{
	const struct cpu_acct *a = &cpus[cpu].acct;

	*user = arch_cycles_to_ns(a->user);
	*sys = arch_cycles_to_ns(a->sys);
	*idle = arch_cycles_to_ns(a->idle);
	*irq = arch_cycles_to_ns(a->irq);
}

uint64_t acct_cpu_irqs(int cpu)
{
	return cpus[cpu].acct.irqs;
}

// ---- the tick: CPU-time interval timers and RLIMIT_CPU ----

// One CPU timer of p at process time 'now': due? (p->lock held.)
// Reloads an interval timer; disarms a one-shot one.
static bool timer_due(uint64_t *expires, uint64_t interval, uint64_t now)
{
	if (!*expires || now < *expires)
		return false;
	*expires = interval ? *expires + interval : 0;
	// Far behind (a long interrupt-free stretch): do not fire in a burst.
	if (*expires && *expires <= now)
		*expires = now + interval;
	return true;
}

static void send(struct process *p, int sig)
{
	struct ksiginfo info = { .signo = sig, .code = SI_KERNEL };

	signal_send_process(p, sig, &info);
}

// RLIMIT_CPU: SIGKILL at the hard limit; at the soft limit SIGXCPU, and
// again every second of CPU time after it (Linux raises the soft limit
// by a second each time, which getrlimit shows).
static void check_rlimit_cpu(struct process *p, uint64_t prof)
{
	struct rlimit_pair *rl = &p->rlimits[RLIMIT_CPU];
	uint64_t soft = __atomic_load_n(&rl->cur, __ATOMIC_RELAXED);
	uint64_t hard = __atomic_load_n(&rl->max, __ATOMIC_RELAXED);

	if (hard != RLIM_INFINITY && prof >= hard * NSEC) {
		send(p, SIGKILL);
		return;
	}
	if (soft != RLIM_INFINITY && prof >= soft * NSEC) {
		send(p, SIGXCPU);
		if (soft < hard) {
			uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
			if (rl->cur == soft)
				rl->cur = soft + 1;
			spin_unlock_irqrestore(&proc_tree_lock, flags);
		}
	}
}

// RLIMIT_RTTIME, as Linux's watchdog: a real-time thread's ticks on the
// CPU since it last slept (t->rt_ticks, counted again from 0 when its
// voluntary switches, its sleeps, have moved: no cost on the wake-up
// path) against the limit in microseconds.  SIGKILL at
// the hard limit; at the soft one SIGXCPU, and the soft limit a second
// higher (getrlimit shows it).
static bool rttime_limited(const struct thread *t)
{
	return sched_thread_rt(t) &&
	       __atomic_load_n(&t->proc->rlimits[RLIMIT_RTTIME].cur, __ATOMIC_RELAXED) != RLIM_INFINITY;
}

static void check_rlimit_rttime(struct thread *t)
{
	struct process *p = t->proc;
	struct rlimit_pair *rl = &p->rlimits[RLIMIT_RTTIME];
	uint64_t soft = __atomic_load_n(&rl->cur, __ATOMIC_RELAXED);
	uint64_t hard = __atomic_load_n(&rl->max, __ATOMIC_RELAXED);
	if (t->acct.nvcsw != t->rt_sleeps_seen) {
		t->rt_sleeps_seen = t->acct.nvcsw;
		t->rt_ticks = 0;
	}
	uint64_t us = ++t->rt_ticks * (1000000 / timer_hz);

	if (hard != RLIM_INFINITY && us >= hard) {
		send(p, SIGKILL);
		return;
	}
	if (us >= soft) {
		send(p, SIGXCPU);
		uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
		if (rl->cur == soft)
			rl->cur = soft + 1000000;
		spin_unlock_irqrestore(&proc_tree_lock, flags);
	}
}

// Has the tick of a CPU running t work here: a CPU-time interval timer
// armed, a CPU limit set, or a real-time one for a real-time thread?
// (A CPU running only such threads keeps its tick: kernel/time/tick.c.)
bool acct_needs_tick(const struct thread *t)
{
	struct process *p = t->proc;

	return p && (__atomic_load_n(&p->acct.virt_expires, __ATOMIC_RELAXED) ||
		     __atomic_load_n(&p->acct.prof_expires, __ATOMIC_RELAXED) ||
		     __atomic_load_n(&p->rlimits[RLIMIT_CPU].cur, __ATOMIC_RELAXED) != RLIM_INFINITY ||
		     rttime_limited(t));
}

// Every tick on every CPU, in the timer interrupt.  Only a process with
// a CPU timer armed or a CPU limit pays for summing its threads.
void acct_tick(struct cpu *c)
{
	struct thread *t = c->current;
	struct process *p = t ? t->proc : 0;

	if (!p || t->acct.gone || !acct_needs_tick(t))
		return;
	if (rttime_limited(t))
		check_rlimit_rttime(t);
	bool limited = p->rlimits[RLIMIT_CPU].cur != RLIM_INFINITY;
	struct acct_totals tot;
	process_totals(p, &tot);
	uint64_t prof = tot.user_ns + tot.sys_ns;
	uint64_t flags = spin_lock_irqsave(&p->lock);
	bool virt_due = timer_due(&p->acct.virt_expires, p->acct.virt_interval, tot.user_ns);
	bool prof_due = timer_due(&p->acct.prof_expires, p->acct.prof_interval, prof);
	spin_unlock_irqrestore(&p->lock, flags);
	if (virt_due)
		send(p, SIGVTALRM);
	if (prof_due)
		send(p, SIGPROF);
	if (limited)
		check_rlimit_cpu(p, prof);
}

// ---- getrusage, times ----

#define RUSAGE_SELF	0
#define RUSAGE_CHILDREN	(-1)
#define RUSAGE_THREAD	1

// struct rusage of Linux x86-64: two timevals, then 14 longs.
struct user_rusage {
	int64_t utime_sec, utime_usec;
	int64_t stime_sec, stime_usec;
	int64_t maxrss, ixrss, idrss, isrss, minflt, majflt, nswap;
	int64_t inblock, oublock, msgsnd, msgrcv, nsignals, nvcsw, nivcsw;
};
_Static_assert(sizeof(struct user_rusage) == 144, "struct rusage is 144 bytes");

// Fills a struct rusage: the times, page faults, switches and peak RSS;
// the rest is 0, as on Linux (which leaves ixrss..isrss, nswap, msgsnd,
// msgrcv, nsignals unused) or true here (no block I/O: inblock, oublock).
int acct_put_rusage(uint64_t uaddr, const struct acct_totals *tot)
{
	struct user_rusage ru = {
		.utime_sec = (int64_t)(tot->user_ns / NSEC),
		.utime_usec = (int64_t)(tot->user_ns % NSEC / 1000),
		.stime_sec = (int64_t)(tot->sys_ns / NSEC),
		.stime_usec = (int64_t)(tot->sys_ns % NSEC / 1000),
		.maxrss = (int64_t)tot->maxrss_kb,
		.minflt = (int64_t)tot->minflt,
		.majflt = (int64_t)tot->majflt,
		.nvcsw = (int64_t)tot->nvcsw,
		.nivcsw = (int64_t)tot->nivcsw,
	};
	return copy_to_user(uaddr, &ru, sizeof(ru)) < 0 ? -EFAULT : 0;
}

SYSCALL_DEFINE(SYS_getrusage, getrusage)
{
	struct thread *t = current_thread();
	struct acct_totals tot = { 0 };

	switch ((int)args->a[0]) {
	case RUSAGE_SELF:
		process_totals(t->proc, &tot);
		tot.maxrss_kb = maxrss_kb(t->proc);
		break;
	case RUSAGE_CHILDREN:
		children_totals(t->proc, &tot);
		break;
	case RUSAGE_THREAD:
		acct_thread_times(t, &tot.user_ns, &tot.sys_ns);
		tot.minflt = t->acct.minflt;
		tot.majflt = t->acct.majflt;
		tot.nvcsw = t->acct.nvcsw;
		tot.nivcsw = t->acct.nivcsw;
		tot.maxrss_kb = maxrss_kb(t->proc);	// as Linux: the process's peak
		break;
	default:
		return -EINVAL;
	}
	return acct_put_rusage(args->a[1], &tot);
}

// times(2): clock ticks (USER_HZ) of the process and its reaped
// children.  Returns clock ticks from a fixed point in the past: Linux's,
// whose jiffies start 5 minutes short of 2^32 (so that 32-bit wrap bugs
// show early); with USER_HZ ticks that is 2^32 - 30000 at boot.
#define TIMES_AT_BOOT ((1ULL << 32) - 300 * 100)
SYSCALL_DEFINE(SYS_times, times)
{
	struct process *p = current_process();
	uint64_t u, s, cu, cs;

	if (args->a[0]) {
		acct_process_times(p, &u, &s);
		acct_children_times(p, &cu, &cs);
		uint64_t tms[4] = { u / USER_HZ_NS, s / USER_HZ_NS, cu / USER_HZ_NS, cs / USER_HZ_NS };
		if (copy_to_user(args->a[0], tms, sizeof(tms)) < 0)
			return -EFAULT;
	}
	return (long)(TIMES_AT_BOOT + clock_monotonic_ns() / USER_HZ_NS);
}
