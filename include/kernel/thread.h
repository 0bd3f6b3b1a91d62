// Threads: the unit the scheduler runs.  A thread always has a kernel
// stack; a user thread also belongs to a process and an address space.
#ifndef KERNEL_THREAD_H
#define KERNEL_THREAD_H

#include <stdint.h>
#include <stdbool.h>
#include <kernel/smp.h>
#include <arch/thread_arch.h>
#include <kernel/facility.h>
#include <uapi/signal.h>
#include <kernel/rseq.h>
#include <kernel/cputime.h>
#include <kernel/seccomp.h>
#include <kernel/mempolicy.h>
#include <kernel/ktimer.h>
#include <lib/rbtree.h>

enum thread_state {
	THREAD_RUNNABLE,	// on a run queue, or running (cpu->current)
	THREAD_BLOCKED,		// waiting; only a wake-up makes it runnable
	THREAD_DEAD,		// exited; freed once it is off its CPU
};

struct process;
struct mm;
struct wait_queue;
struct sigqueue;
struct vfork_done;
struct cred;
struct io_context;

// Work a thread must do before it returns to user mode.  The return
// from a system call looks at it with one test and, when it is 0 (and
// the CPU need not reschedule), leaves at once; otherwise
// exit_to_user() does what the bits say (kernel/proc/return_to_user.c).
// Any CPU sets bits (thread_work_set); only the thread clears them.
#define WORK_SIGNAL	(1u << 0)	// a signal, a stop or an exit may be pending
#define WORK_STATE	(1u << 1)	// switched in, or its facility state changed:
					// facilities and rseq to decide again
#define WORK_FRAME	(1u << 2)	// a system call rewrote its user frame (exec,
					// sigreturn): return by the checked path

struct thread {
	uint64_t kernel_rsp;		// saved by switch_stack
	void *kstack;			// base of the kernel stack (KSTACK_SIZE)
	uint32_t work;			// WORK_* (atomic: set from other CPUs)
	int tid;
	char name[16];
	volatile enum thread_state state;
	volatile int cpu;		// run queue it belongs to
	volatile bool on_cpu;		// still executing (maybe switching out)
	bool on_rq;			// in a run queue (under that queue's lock)
	bool is_idle;
	cpumask_t affinity;
	uint64_t last_migration;	// jiffies, to avoid ping-pong
	int slice;			// SCHED_RR: ticks left in its quantum
	bool preempted;			// last switch-out was involuntary
	bool yielding;			// in sched_yield: goes behind the others

	// Scheduling class (kernel/sched/sched.c, docs/scheduler.md).
	uint8_t policy;			// SCHED_OTHER, _FIFO, _RR, _BATCH, _IDLE
	uint8_t rt_prio;		// 1..99 for SCHED_FIFO and SCHED_RR, else 0
	int8_t nice;			// -20..19 (kept for every policy, as Linux)
	bool reset_on_fork;		// SCHED_RESET_ON_FORK
	bool rr_expired;		// SCHED_RR quantum ran out: to the back
	uint32_t weight;		// fair share weight, from nice
	uint64_t vruntime;		// fair classes: weighted ns run (per-CPU scale)
	uint64_t exec_start;		// ns, start of the stretch not yet accounted
	uint64_t sum_exec_ns;		// ns run, all together
	uint64_t slice_start;		// sum_exec_ns when its fair slice began
	uint64_t nr_switches;		// times it got a CPU
	// Priority inheritance (PI futexes): the real-time priority it runs
	// at because of waiters (0: none), the thread it waits for, and the
	// threads waiting for it (linked by pi_next and pi_prev).  Under sched's
	// pi_lock.
	uint8_t pi_boost;
	// The real-time priority it runs at, own or lent (0: a fair class);
	// sched.c keeps it, where policy, rt_prio or pi_boost change.
	uint8_t run_prio;
	struct thread *pi_owner;
	struct thread *pi_waiters, *pi_next, *pi_prev;

	struct thread *rq_next;		// real-time run queue links
	struct thread *rq_prev;
	struct rb_node rq_node;		// in the fair run queue's tree
	// Where it was queued: the real-time priority list (0: the fair
	// tree) and the weight counted there, so taking it off is exact even
	// if its class changed meanwhile (a change racing with a migration).
	uint8_t rq_list;
	uint32_t rq_weight;

	struct wait_queue *waiting_on;	// set while blocked on a wait queue
	struct thread *wq_next;
	struct ktimer sleep_timer;	// the deadline of a sleep (kernel/sched/wait.c)
	bool timed_out;
	volatile bool interruptible;	// a signal may end its sleep
	volatile bool killable;		// a fatal signal may end its sleep

	struct process *proc;		// NULL for kernel threads
	struct mm *mm;			// address space, NULL for kernel threads
	struct thread_arch arch;	// FS/GS base, extended-state area, ...
	struct fac_thread fac[NR_FACILITIES];	// facilities: where the state is

	// Process layer (kernel/proc/).
	struct thread *proc_next;	// next thread of the same process
	uint64_t sig_blocked;		// blocked signals (bit sig-1)
	uint64_t sig_pending;		// thread-directed pending signals
	struct ksiginfo sig_info[NSIG + 1];	// what each pending signal carries
	struct sigqueue *sig_queue;	// queued real-time signals
	uint64_t sig_saved_mask;	// restored after a handler (sigsuspend, ppoll)
	// In rt_sigtimedwait: the mask before the call (the waited-for
	// signals are unblocked meanwhile but must not kill at once); else 0.
	uint64_t sig_real_blocked;
	bool sig_restore_mask;
	struct user_stack_t altstack;	// sigaltstack
	uint64_t clear_child_tid;	// CLONE_CHILD_CLEARTID / set_tid_address
	uint64_t robust_list;
	bool exiting;
	struct vfork_done *vfork_done;	// vfork child: where its parent waits
	struct rseq_thread rseq;	// rseq(2) registration (kernel/proc/rseq.c)
	struct cred *cred;		// IDs and capabilities, referenced (kernel/proc/cred.c)
	// A descriptor table and a view of the tree of its own (a thread
	// made without CLONE_FILES or CLONE_FS, or one that unshared them
	// while others share its process's), referenced; NULL: its
	// process's.  Written by the thread itself under p->lock.
	struct fdtable *own_fdt;
	struct fs_view *own_fs;
	// prctl (kernel/proc/prctl.c): timer slack in ns (0: the default),
	// the value PR_SET_TIMERSLACK 0 goes back to, no_new_privs.
	uint64_t timer_slack_ns, default_timer_slack_ns;
	bool no_new_privs;
	uint32_t personality;		// personality(2) (kernel/proc/personality.c)
	struct mempolicy mempolicy;	// set_mempolicy (kernel/mm/mempolicy.c)
	struct thread_acct acct;	// CPU time and faults (kernel/proc/cputime.c)
	// The I/O context of ioprio_set (kernel/proc/ioprio.c), shared by
	// CLONE_IO; NULL until the first set.
	struct io_context *io;
	struct seccomp_thread seccomp;	// kernel/security/seccomp.c
	// RLIMIT_NPROC (kernel/proc/nproc.c): the real uid this user thread
	// is counted for, and whether an ID change took it over the limit
	// (Linux's PF_NPROC_EXCEEDED: its next exec fails).
	uint32_t nproc_uid;
	bool nproc_counted, nproc_exceeded;
	// RLIMIT_RTTIME (kernel/proc/cputime.c): ticks run as a real-time
	// thread since it last slept (Linux's rt.timeout), and its count of
	// sleeps (acct.nvcsw) when they were last counted from 0.
	uint64_t rt_ticks, rt_sleeps_seen;
};

// Creates a kernel thread that runs fn(arg) bound to 'cpu' (-1: starts on
// this CPU, may run anywhere).
struct thread *kthread_create(const char *name, void (*fn)(void *), void *arg, int cpu);

// Allocates a thread with a kernel stack, not yet runnable.
struct thread *thread_alloc(const char *name);
void thread_free(struct thread *t);
// ioprio_set's context: shared or copied by clone, left when freed.
int ioprio_fork(struct thread *child, struct thread *parent, uint64_t clone_flags);
void ioprio_thread_free(struct thread *t);
// RLIMIT_NPROC (kernel/proc/nproc.c): a new user thread is counted for
// its real uid (-EAGAIN past the creator's limit), a freed one no longer.
int nproc_thread_new(struct thread *t);
void nproc_thread_free(struct thread *t);

static inline struct thread *current_thread(void);

// Does the calling thread's personality have any of these flags
// (uapi/personality.h)?  Is its execution domain PER_LINUX32?
bool personality_has(uint32_t flags);
bool personality_is_linux32(void);

#include <kernel/cpu.h>

static inline struct thread *current_thread(void)
{
	return this_cpu()->current;
}

static inline void thread_work_set(struct thread *t, uint32_t bits)
{
	__atomic_or_fetch(&t->work, bits, __ATOMIC_SEQ_CST);
}

// Takes 'bits' off the calling thread's work, returning which were set.
// A full barrier: a bit set after it is seen at the next return.
static inline uint32_t thread_work_take(struct thread *t, uint32_t bits)
{
	return __atomic_fetch_and(&t->work, ~bits, __ATOMIC_SEQ_CST) & bits;
}

// Entry of every new thread: finishes the switch, runs fn(arg), exits.
void thread_start(void (*fn)(void *), void *arg);
void arch_thread_free(struct thread *t);	// arch: extended state etc.

#endif
