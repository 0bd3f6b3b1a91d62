// The scheduler: per-CPU run queues, round-robin time slices, wake-ups
// across CPUs, and a pull load balancer for idle CPUs.
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include <stdint.h>
#include <stdbool.h>
#include <kernel/spinlock.h>
#include <kernel/smp.h>
#include <kernel/ktimer.h>
#include <lib/rbtree.h>

struct thread;

// The fair slice (Linux 6.1's sched_slice and defaults): SCHED_LATENCY_NS
// shared among the fair threads of a CPU by weight, or SCHED_MIN_GRAN_NS
// each when there are more than SCHED_NR_LATENCY of them, and never less
// than SCHED_MIN_GRAN_NS; both times 1 + log2 of the CPUs (at most 8).
#define SCHED_LATENCY_NS	6000000ULL
#define SCHED_MIN_GRAN_NS	750000ULL
#define SCHED_NR_LATENCY	8
#define SCHED_RR_NS		100000000ULL	// SCHED_RR quantum: Linux's RR_TIMESLICE
#define RT_PRIO_LEVELS		100	// real-time priorities 1..99 (0 unused)
#define RT_PERIOD_NS		1000000000ULL	// Linux's sched_rt_period_us
#define RT_RUNTIME_NS		950000000ULL	// ... and sched_rt_runtime_us

struct runqueue {
	struct spinlock lock;
	// Fair threads waiting (SCHED_OTHER, _BATCH, _IDLE): a red-black
	// tree keyed by vruntime, equal ones in order of arrival; the pick
	// takes its cached first.
	struct rb_tree fair;
	// While fair threads wait: due no later than the running fair
	// thread's slice ends, and never more than the shortest slice ahead
	// (kernel/sched/sched.c, "the end of a fair slice").
	struct ktimer slice_timer;
	// Real-time threads waiting, one FIFO list per priority, and a bitmap
	// of the non-empty ones.
	struct thread *rt_head[RT_PRIO_LEVELS], *rt_tail[RT_PRIO_LEVELS];
	uint64_t rt_bitmap[2];
	int nr_waiting;			// all waiting threads
	int nr_rt_waiting;
	uint64_t fair_weight;		// weights of the waiting fair threads
	uint64_t min_vruntime;		// never decreases
	// Real-time throttling (Linux's sched_rt_runtime_us): real-time
	// threads get at most RT_RUNTIME_NS of each RT_PERIOD_NS while a fair
	// thread waits.
	uint64_t rt_period_start, rt_time;
	bool rt_throttled;
} __attribute__((aligned(2048)));	// a power of two: &runqueues[cpu] is a
					// shift, and a switch works it out more
					// than once

void sched_init_cpu(struct cpu *c);	// run queue and idle thread
void sched_tick(void);			// from the timer interrupt
void schedule(void);			// give up the CPU; the current thread's state says why
void sched_yield(void);			// voluntary switch, stay runnable
void sched_preempt(void);		// the slice ran out or a better thread woke

// Makes a blocked thread runnable; returns true if it was blocked.
bool sched_wake(struct thread *t);
// Puts a new thread on a run queue for the first time.
void sched_start(struct thread *t);
// Changes where a thread may run; moves it if needed.
int sched_set_affinity(struct thread *t, cpumask_t mask);

// Scheduling parameters of a thread (the syscalls check permissions).
// Moves it between classes and queues as needed.
void sched_set_params(struct thread *t, int policy, int rt_prio, int nice, bool reset_on_fork);
// A clone starts with its parent's class, or the reset one.
void sched_fork(struct thread *child, struct thread *parent);
// What sched_rr_get_interval reports for t, in ns.
uint64_t sched_rr_interval_ns(const struct thread *t);
// The priority /proc/PID/stat shows (Linux's p->prio - 100: -2..-100 for
// real time, nice + 20 for the fair classes).
int sched_stat_prio(const struct thread *t);

// Priority inheritance (PI futexes, kernel/proc/futex.c).  'waiter'
// blocks on a lock 'owner' holds: the owner (and the thread it waits
// for, and so on, a bounded chain as Linux's rt_mutex walk) runs at
// least at the waiter's real-time priority.  sched_pi_unblock ends the
// wait (taken, timed out, interrupted) and lowers the owner again.
void sched_pi_block(struct thread *waiter, struct thread *owner);
void sched_pi_unblock(struct thread *waiter);
// A thread going away: its waiters wait for nobody, it for nobody.
void sched_pi_thread_exit(struct thread *t);
// Has some thread lent t its priority (does it own a PI lock with waiters)?
bool sched_pi_has_waiters(struct thread *t);

// Threads running or waiting on a run queue, all CPUs together (a
// snapshot without locks: /proc/loadavg, the load average, /proc/stat).
int sched_nr_running(void);
// Threads waiting in cpu's queue; has any CPU but 'cpu' some (snapshots)?
int sched_nr_waiting(int cpu);
bool sched_others_waiting(int cpu);
// Is t SCHED_FIFO or SCHED_RR (its sleeps get no timer slack, as Linux)?
bool sched_thread_rt(const struct thread *t);

// Called by a new thread on its first run (the switch left a lock held).
void sched_finish_switch(void);

// Marks the current thread dead and switches away for good.
__attribute__((noreturn)) void sched_exit_current(void);

// The idle loop of a CPU (kernel/sched/idle.c); never returns.
__attribute__((noreturn)) void sched_idle_loop(void);
// Is that CPU idle and polling for work (no IPI needed to wake it)?
bool sched_idle_polling(int cpu);
const char *sched_idle_mode(void);	// the idle= boot option

// The load average (kernel/sched/loadavg.c).  loadavg_start arms its
// sampling timer on the boot CPU; loadavg_get gives the 1, 5 and 15
// minute averages in Linux's fixed point (LOAD_FSHIFT fractional bits).
#define LOAD_FSHIFT 11
void loadavg_start(void);
void loadavg_get(unsigned long avg[3]);

#endif
