// The scheduler: per-CPU run queues, round-robin time slices, wake-ups
// across CPUs, and a pull load balancer for idle CPUs.
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include <stdint.h>
#include <stdbool.h>
#include <kernel/spinlock.h>
#include <kernel/smp.h>

struct thread;

#define SCHED_SLICE_TICKS	2	// time slice, in ticks

struct runqueue {
	struct spinlock lock;
	struct thread *head, *tail;	// runnable threads waiting for the CPU
	int nr_waiting;
};

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

// Threads running or waiting on a run queue, all CPUs together (a
// snapshot without locks: /proc/loadavg, the load average, /proc/stat).
int sched_nr_running(void);
// Threads waiting in cpu's queue; has any CPU but 'cpu' some (snapshots)?
int sched_nr_waiting(int cpu);
bool sched_others_waiting(int cpu);

// Called by a new thread on its first run (the switch left a lock held).
void sched_finish_switch(void);

// Marks the current thread dead and switches away for good.
__attribute__((noreturn)) void sched_exit_current(void);

// The idle loop of a CPU; never returns.
__attribute__((noreturn)) void sched_idle_loop(void);

// The load average (kernel/sched/loadavg.c).  loadavg_start arms its
// sampling timer on the boot CPU; loadavg_get gives the 1, 5 and 15
// minute averages in Linux's fixed point (LOAD_FSHIFT fractional bits).
#define LOAD_FSHIFT 11
void loadavg_start(void);
void loadavg_get(unsigned long avg[3]);

#endif
