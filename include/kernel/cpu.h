// Per-CPU state.  Each CPU reaches its own struct cpu through the arch's
// per-CPU pointer (GS base on x86-64): this_cpu().
#ifndef KERNEL_CPU_H
#define KERNEL_CPU_H

#include <stdint.h>
#include <stdbool.h>
#include <kernel/spinlock_types.h>
#include <arch/cpu_arch.h>
#include <kernel/facility.h>
#include <kernel/cputime.h>

#define MAX_CPUS 64

// Counters, one set per CPU, exported through /proc/switchyard/cpustat.
// Each is only written by its own CPU, so no atomics are needed; readers
// on other CPUs may see a value a few events old.
struct cpu_stats {
	uint64_t ctxsw;			// context switches (all)
	uint64_t ctxsw_vol;		// ... because the thread blocked or yielded
	uint64_t ctxsw_invol;		// ... because it was preempted
	uint64_t migrations;		// threads moved to this CPU
	uint64_t ipi_sent;
	uint64_t ipi_recv;
	uint64_t ipi_resched;		// received, by kind
	uint64_t ipi_call;
	uint64_t ipi_tlb;
	uint64_t syscalls;
	uint64_t pgfaults;
	uint64_t ticks;			// ticks run (time slices, CPU timers)
	uint64_t idle_ns;
	// Extended state, all facilities together: filled in from struct
	// fac_stats when cpustat is read (kernel/sched/facility.c counts).
	uint64_t xsave;			// state saved
	uint64_t xsave_skip;		// ... switch-out with nothing saved
	uint64_t xrstor;		// state loaded (saved or initial)
	uint64_t xrstor_skip;		// ... not needed (still live here)
	uint64_t fpu_traps;		// facility-unavailable traps taken
	// membarrier(2) (kernel/sched/membarrier.c).
	uint64_t mb_ipi_sent;		// membarrier IPIs sent from here
	uint64_t mb_ipi_recv;		// ... handled here
	uint64_t mb_sync_core;		// core serializations for SYNC_CORE
	uint64_t rseq_aborts;		// rseq critical sections sent to their abort handler
	uint64_t rseq_id_writes;	// rseq areas given a new cpu_id/mm_cid
	uint64_t timer_irqs;		// timer interrupts taken (ticks and timers)
	uint64_t idle_poll_hits;	// idle periods ended by work found while polling
	// Scheduler (kernel/sched/sched.c).
	uint64_t preempt_ipi;		// IPIs sent to make a busy CPU run a woken thread
	uint64_t lb_moves;		// fair threads pulled here by the busy balancer
	uint64_t rt_pulls;		// real-time threads pulled here from a CPU busy with one
	uint64_t pi_boosts;		// priority-inheritance boosts made from here
};

// The kernel's own share of a membarrier IPI, in cycles of arch_cycles()
// (the TSC on x86-64, the timebase on ppc64), for /proc/switchyard/mbstat:
// on the caller's CPU, each call's round trip from just before the
// requests are queued to the last handler done; on a target, the delay
// from that moment to its handler's start.
struct mb_rt_stats {
	uint64_t rt_count, rt_cycles, rt_max;	// round trips made from here
	uint64_t ipi_count, ipi_cycles, ipi_max;	// handlers run here: delay to start
};

struct thread;
struct cross_call;

struct cpu {
	struct cpu *self;		// must stay first: the arch may read it as its CPU pointer
	int id;				// logical CPU number, 0 = boot CPU
	volatile bool online;
	struct thread *current;
	struct thread *idle;
	bool tick_stopped;		// no tick runs here (kernel/time/tick.c)
	bool idle_polling;		// idle and polling for work (kernel/sched/idle.c)
	int preempt_count;		// >0: no preemption (interrupt or lock held)
	volatile bool need_resched;
	struct mm *active_mm;		// address space loaded (x86-64: in CR3; may be lazy)
	struct thread *switch_prev;	// thread switched away from, until it is off the CPU
	struct thread *migrate_pending;	// ... and must move to another CPU

	// membarrier (kernel/sched/membarrier.c): what other CPUs read to
	// decide whether this one needs an IPI.  The address space of the
	// user thread running here (NULL: idle or a kernel thread), its
	// registrations as this CPU last saw them, and a count of the full
	// barriers MEMBARRIER_CMD_GLOBAL accepts as quiescent states.
	struct mm *volatile mb_mm;
	volatile int mb_state;
	volatile uint64_t mb_passes;

	// Cross-CPU calls queued for this CPU, a lock-free stack
	// (kernel/smp/cross_call.c).
	struct cross_call *call_head;

	struct cpu_stats stats;
	struct mb_rt_stats mb_rt;	// membarrier IPI timings (kernel/sched/membarrier.c)
	struct cpu_acct acct;		// CPU time by kind (include/kernel/cputime.h)
	struct fac_cpu fac[NR_FACILITIES];	// facilities (kernel/sched/facility.c)
	struct cpu_arch arch;
};

extern struct cpu cpus[MAX_CPUS];
extern int ncpus;		// CPUs found in the firmware tables
extern volatile int ncpus_online;

static inline struct cpu *this_cpu(void)
{
	return arch_this_cpu();
}

#endif
