// Processes: a group of threads sharing an address space, open files and
// signal handlers, with a place in the parent/child tree.
#ifndef KERNEL_PROCESS_H
#define KERNEL_PROCESS_H

#include <stdint.h>
#include <stdbool.h>
#include <kernel/spinlock.h>
#include <kernel/wait.h>
#include <kernel/thread.h>
#include <fs/poll.h>
#include <uapi/signal.h>
#include <arch/process_arch.h>

struct mm;
struct fdtable;
struct vnode;
struct sigqueue;
struct cred;
struct tty;

#define EXE_PATH_MAX 256

// Signal dispositions, shared by threads created with CLONE_SIGHAND.
struct sighand {
	int refcount;
	struct spinlock lock;
	struct k_sigaction action[NSIG + 1];	// indexed by signal number
	struct poll_events poll_events;	// signals sent: signalfds' wake-ups (fs/poll.h)
};

// Locks p's sighand, interrupts off; returns the flags for
// spin_unlock_irqrestore(&p->sighand->lock, flags).  The way to reach
// another process's signal state: its exec may swap p->sighand
// (kernel/proc/sighand.c says who may read the pointer otherwise).
struct process;
uint64_t sighand_lock(struct process *p);

struct rlimit_pair {
	uint64_t cur, max;
};

#define RLIMIT_COUNT 16
#define RLIMIT_SIGPENDING_INDEX 11

struct process {
	int pid;
	int pgid, sid;
	struct spinlock lock;		// children, threads, exit state

	struct process *parent;
	struct process *children;	// first child
	struct process *sibling;	// next child of the same parent
	struct wait_queue child_wait;	// wait4() sleeps here

	struct thread *threads;		// linked through thread->proc_next
	int nthreads;

	struct mm *mm;
	struct fdtable *fdt;
	struct fs_view *fs;		// root, cwd, umask (fs/fs_view.h), shared with CLONE_FS
	struct sighand *sighand;
	uint64_t sig_pending;		// process-directed pending signals
	struct ksiginfo sig_info[NSIG + 1];
	struct sigqueue *sig_queue;	// queued real-time signals
	char exe_path[EXE_PATH_MAX];	// /proc/self/exe
	struct cred *cred;		// credentials others see (kill, /proc); NULL: root (kernel/proc/cred.c)

	bool exiting;			// exit_group in progress
	bool zombie;			// all threads gone, waiting to be reaped
	int exit_status;		// wait status (Linux encoding)
	int exit_signal;		// signal sent to the parent at exit (SIGCHLD)

	// ITIMER_REAL (kernel/proc/itimer.c).
	bool itimer_armed;
	uint64_t itimer_deadline, itimer_interval;	// ns
	struct ktimer itimer_timer;
	// POSIX timers (kernel/proc/posix_timers.c), under its lock.
	struct ptimer *posix_timers;
	int posix_timer_next_id;

	struct rlimit_pair rlimits[RLIMIT_COUNT];
	struct proc_acct acct;		// CPU time, CPU timers (kernel/proc/cputime.c)
	uint64_t start_ns;

	// Job control (kernel/proc/jobctl.c), under sighand->lock.
	bool group_stop;		// a stop signal took effect: threads park
	bool stopped;			// every thread parked: the group stop is complete
	int stop_sig;			// the signal that stopped it
	int nparked;			// threads parked so far
	struct wait_queue stop_wq;	// where parked threads sleep until SIGCONT
	int wait_report;		// CLD_STOPPED or CLD_CONTINUED for wait(), 0: none
	int notify_parent;		// CLD_STOPPED or CLD_CONTINUED SIGCHLD still to send
	bool did_exec;			// exec'd since fork: setpgid by the parent is EACCES
	uint64_t exec_id;		// execs so far (Linux's self_exec_id: mq_notify)
	struct tty *ctty;		// controlling terminal (kernel/fs/tty.c), under proc_tree_lock
	struct process_arch arch;	// x86: AMX permission
	// prctl (kernel/proc/prctl.c).  parent_tid: the thread that created
	// this process, whose exit sends pdeath_signal (0: the parent's last
	// thread, after a reparenting or CLONE_PARENT).
	int pdeath_signal, parent_tid;
	bool child_subreaper;		// PR_SET_CHILD_SUBREAPER
	bool not_dumpable;		// PR_SET_DUMPABLE 0
	bool used_super;		// a capability check passed (acct's ASU)
	bool thp_disable;		// PR_SET_THP_DISABLE
	struct sem_undo_list *sem_undo;	// SEM_UNDO adjustments (kernel/ipc/sem.c), shared by CLONE_SYSVSEM
};

static inline struct process *current_process(void)
{
	return current_thread()->proc;
}

struct process *process_find(int pid);	// NULL if none; no reference taken
// The process of the thread or process 'id' names: Linux's kill() and
// rt_sigqueueinfo() accept the TID of any thread.  proc_tree_lock held.
struct process *process_find_any_id(int id);

// Signals (kernel/proc/signal.c).
// 0, or -EAGAIN when a real-time signal could not be queued.
int signal_send_process(struct process *p, int sig, const struct ksiginfo *info);
int signal_send_thread(struct thread *t, int sig, const struct ksiginfo *info);
// Makes t look at its signals (its work) soon: woken if it sleeps
// interruptibly, sent an IPI if it runs on another CPU (Linux's
// signal_wake_up and kick_process).
void signal_kick(struct thread *t);
void signal_send_pgrp(int pgid, int sig);
// A synchronous fault: deliver now to the current thread (kills it if the
// signal is blocked or ignored, as Linux does).
void signal_force_fault(int sig, int code, uint64_t addr);
void signal_force_info(const struct ksiginfo *info);
__attribute__((noreturn)) void signal_die_now(int sig);

// Job control (kernel/proc/jobctl.c).  Is p stopped by a signal (all
// its threads parked)?  For /proc's state letter 'T'.
bool process_is_stopped(struct process *p);
// Is the process group orphaned (no member has a parent in another group
// of the same session)?  proc_tree_lock held.
bool pgrp_orphaned_locked(int pgid, struct process *ignore);

// Exit of the whole process with a wait status; never returns.
__attribute__((noreturn)) void process_exit_group(int wait_status);

#endif
