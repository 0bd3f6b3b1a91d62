// CPU-time accounting (kernel/proc/cputime.c, docs/accounting.md).
//
// Time is measured, not sampled: every transition of a CPU between user
// mode, the kernel, interrupt handlers and the idle thread reads the
// cycle counter once and adds the time since the previous transition
// (this_cpu()->acct.stamp) to whoever owned it: the thread's user or
// system time, and the CPU's user, system, idle or irq time.  The
// counters are in cycles (arch_cycles); readers convert to ns.
#ifndef KERNEL_CPUTIME_H
#define KERNEL_CPUTIME_H

#include <stdint.h>
#include <stdbool.h>
#include <arch/cycles.h>

// Per thread; written only by the CPU running the thread.
struct thread_acct {
	uint64_t user, sys;		// cycles
	uint64_t minflt, majflt;	// page faults resolved (none needs I/O here)
	uint64_t nvcsw, nivcsw;		// switches away: blocked, or still runnable
	bool gone;			// left its process (acct_thread_exit)
};

// Per CPU; written only by that CPU.
struct cpu_acct {
	uint64_t stamp;			// cycle count at the last transition
	uint64_t user, sys, idle, irq;	// cycles
	uint64_t irqs;			// interrupts handled
};

// A set of totals, in ns and counts (what getrusage and wait4 report).
struct acct_totals {
	uint64_t user_ns, sys_ns;
	uint64_t minflt, majflt, nvcsw, nivcsw;
	uint64_t maxrss_kb;
};

// Per process.  Times of exited threads are folded into dead_* (under
// the process lock); reaped children into child (under proc_tree_lock).
// The CPU timers count process time in ns (user for ITIMER_VIRTUAL,
// user + system for ITIMER_PROF): 'expires' is an absolute process time,
// 0 when disarmed.
struct proc_acct {
	struct acct_totals dead;	// threads that have exited (maxrss_kb unused)
	struct acct_totals child;	// reaped children and their reaped descendants
	uint64_t maxrss_kb;		// peak of address spaces left behind by exec/exit
	uint64_t virt_expires, virt_interval;
	uint64_t prof_expires, prof_interval;
};

struct cpu;
struct thread;
struct process;

// ---- the transitions (hot paths: one cycle-counter read each) ----

static inline uint64_t acct_lap_at(struct cpu_acct *a, uint64_t now)
{
	uint64_t d = now - a->stamp;

	a->stamp = now;
	return d;
}

static inline uint64_t acct_lap(struct cpu_acct *a)
{
	return acct_lap_at(a, arch_cycles());
}

// Entry from user mode: the time since the last transition was user time.
static inline void acct_user_to_kernel(struct cpu_acct *a, struct thread_acct *t)
{
	uint64_t d = acct_lap(a);

	t->user += d;
	a->user += d;
}

// Return to user mode, a context switch or an interrupt taken in the
// kernel: the time since the last transition was the thread's system
// time, or idle time if the thread is the CPU's idle thread.
static inline void acct_kernel_lap_at(struct cpu_acct *a, struct thread_acct *t, bool idle,
				      uint64_t now)
{
	uint64_t d = acct_lap_at(a, now);

	if (idle) {
		a->idle += d;
	} else {
		t->sys += d;
		a->sys += d;
	}
}

static inline void acct_kernel_lap(struct cpu_acct *a, struct thread_acct *t, bool idle)
{
	acct_kernel_lap_at(a, t, idle, arch_cycles());
}

// End of an interrupt handler: its time was the CPU's irq time.
static inline void acct_irq_done(struct cpu_acct *a)
{
	a->irq += acct_lap(a);
	a->irqs++;
}

// ---- what the rest of the kernel calls ----

void acct_cpu_init(struct cpu *c);			// before the CPU's first transition
void acct_tick(struct cpu *c);
bool acct_needs_tick(const struct thread *t);			// ... has work for it				// every tick: CPU timers, RLIMIT_CPU
void acct_thread_exit(struct process *p, struct thread *t);	// p->lock held
void acct_reap(struct process *parent, struct process *child);	// proc_tree_lock held
void acct_page_fault(void);				// a fault was resolved for the current thread
void acct_mm_peak(struct process *p, uint64_t rss_pages);	// an address space is left

// wait4's and waitid's struct rusage of a zombie being reaped (its
// times and its reaped children's), and writing one out (0 or -EFAULT).
void acct_zombie_totals(struct process *c, struct acct_totals *tot);
int acct_put_rusage(uint64_t uaddr, const struct acct_totals *tot);
uint64_t acct_forks(void);				// threads and processes created since boot
void acct_count_fork(void);

// Times of a thread, a process (its threads, living and dead) and its
// reaped children, in ns.  For /proc/PID/stat fields 14-17 (divide by
// 10^7 for USER_HZ clock ticks).
void acct_thread_times(struct thread *t, uint64_t *user_ns, uint64_t *sys_ns);
void acct_process_times(struct process *p, uint64_t *user_ns, uint64_t *sys_ns);
void acct_children_times(struct process *p, uint64_t *user_ns, uint64_t *sys_ns);
// Page faults (/proc/PID/stat fields 10-13): of a thread, of a process,
// of its reaped children.
void acct_thread_faults(struct thread *t, uint64_t *minflt, uint64_t *majflt);
void acct_process_faults(struct process *p, uint64_t *minflt, uint64_t *majflt);
void acct_children_faults(struct process *p, uint64_t *minflt, uint64_t *majflt);
// /proc/PID: the totals of thread t (or of the whole process p when t is
// NULL) and of p's reaped children, in ns and counts (maxrss_kb not
// filled).  proc_tree_lock and p->lock held.
struct acct_totals;
void acct_task_totals_locked(struct process *p, struct thread *t, struct acct_totals *self,
			     struct acct_totals *children);
// Process start (/proc/PID/stat field 22): ns of the monotonic clock
// (boot time) when it was created; divide by 10^7 for clock ticks.
uint64_t acct_start_ns(struct process *p);

// CPU clocks (kernel/proc/cpu_clocks.c): ids 2, 3 and the negative ones
// of clock_getcpuclockid/pthread_getcpuclockid; -EINVAL for a bad one.
bool cpu_clock_id(int id);
int cpu_clock_read(int id, uint64_t *ns);
int cpu_clock_res(int id, uint64_t *ns);
long cpu_clock_nanosleep(int id, int flags, uint64_t ureq, uint64_t urem);
// A CPU clock named explicitly, for a POSIX timer on it (read from any
// CPU's tick, where 'current' is someone else): the process (pid, with
// its start time, so a reused pid is not it) or one thread of 'owner'.
struct cpu_clock_target {
	int id;			// pid or tid
	bool thread, virt;	// a thread's clock; user time only (CPUCLOCK_VIRT)
	uint64_t start_ns;	// the process's acct_start_ns
	struct process *owner;	// the timer's process (a thread clock's)
};
// Resolves clock 'id' for the caller as Linux's pid_for_clock(id, false):
// 0, or -EINVAL for a clock that does not exist.
int cpu_clock_target(int id, struct cpu_clock_target *tgt);
// Its time in ns; false once its process or thread is gone.
bool cpu_clock_target_read(const struct cpu_clock_target *tgt, uint64_t *ns);
// ITIMER_VIRTUAL (1) and ITIMER_PROF (2) of p, in ns.
void cpu_itimer_swap(struct process *p, int which, uint64_t value, uint64_t interval,
		     uint64_t *old_value, uint64_t *old_interval);
void cpu_itimer_get(struct process *p, int which, uint64_t *value, uint64_t *interval);

// Per-CPU times in ns (/proc/stat).
void acct_cpu_times(int cpu, uint64_t *user, uint64_t *sys, uint64_t *idle, uint64_t *irq);
uint64_t acct_cpu_irqs(int cpu);

#endif
