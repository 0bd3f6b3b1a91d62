// Process-layer internals shared by kernel/proc/*.c.
#ifndef KERNEL_PROC_INTERNAL_H
#define KERNEL_PROC_INTERNAL_H

#include <stdint.h>
#include <stdbool.h>
#include <kernel/spinlock.h>
#include <kernel/wait.h>

// Process and thread IDs share one space, 1 .. pid_max - 1.  PID_LIMIT
// sizes the tables and is the largest pid_max (Linux's default, and its
// ceiling on small configurations); /proc/sys/kernel/pid_max may lower
// it down to PID_MAX_MIN, as on Linux.  Allocation wraps around to
// PID_RESERVED + 1, leaving the low IDs to the processes of boot.
#define PID_LIMIT	32768
#define PID_MAX_MIN	301
#define PID_RESERVED	300
int pid_max_get(void);
int pid_max_set(uint64_t v);		// 0 or -EINVAL

struct process;
struct thread;
struct trap_frame;

extern struct spinlock proc_tree_lock;

struct process *process_alloc(void);
void process_free_locked(struct process *p);
void process_link_child_locked(struct process *parent, struct process *child);
// prctl's part in exit (kernel/proc/prctl.c): where orphans go
// (proc_tree_lock held), and parent-death signals when a thread exits.
struct process *process_child_reaper_locked(struct process *p);
void prctl_thread_exit(struct process *p, struct thread *t, bool last);
// The thread's timer slack in ns (PR_SET_TIMERSLACK), for the timers.
uint64_t thread_timer_slack(const struct thread *t);
void process_unlink_child_locked(struct process *child);
void process_for_each_locked(void (*fn)(struct process *, void *), void *arg);
int process_next_pid_locked(int from);
struct thread *thread_find(int tid);
int tid_alloc_for(struct thread *t, struct process *p);
int tid_alloc_exact(struct thread *t, struct process *p, int want);
void tid_free(int tid);
bool tid_in_use_locked(int tid);
int pid_last(void);		// the process or thread ID allocated last
// /proc/sys/kernel/ns_last_pid: the next ID is tried after v (0 to
// pid_max, else -EINVAL).
int pid_last_set(uint64_t v);

// Creating user threads (clone.c) and ending them (exit.c).
struct thread *user_thread_alloc(struct process *p, const char *name);
void user_thread_start(struct thread *t);
__attribute__((noreturn)) void thread_exit_user(int wait_status, bool group);

long do_clone(uint64_t flags, uint64_t newsp, uint64_t ptid, uint64_t ctid, uint64_t tls,
	      struct trap_frame *f);
// The same with the new thread's ID chosen (clone3's set_tid; 0: any)
// and, with CLONE_PIDFD, where the pidfd's number goes.
long do_clone_tid(uint64_t flags, uint64_t newsp, uint64_t ptid, uint64_t ctid, uint64_t tls,
		  int want_tid, uint64_t upidfd, struct trap_frame *f);
void process_discard(struct process *p);	// undo new_process before it ran
// vfork: the parent sleeps on a vfork_done of its own (on its stack),
// which the child (thread->vfork_done) marks when it execs or exits.
struct vfork_done {
	struct wait_queue wq;
	bool done;
};
void vfork_wait(struct thread *child, struct vfork_done *vd);
void vfork_release(struct thread *t);		// t exec'd or is exiting
// Gives p a private copy of its descriptor table if another process
// shares it (unshare, exec); 0 or -ENOMEM.
int process_unshare_files(struct process *p);
// A thread's own table and view go (its exit, a failed clone).
void thread_tables_release(struct thread *t);
// exec, before its point of no return: the table the program will have is
// shared with no one (Linux's unshare_files); 0 or -ENOMEM.  After it,
// once the other threads are gone: the thread's own table and view
// become its process's.
int exec_unshare_files(struct thread *t);
void thread_tables_adopt(struct thread *t);
// Signal dispositions (sighand.c): copied or shared at clone, given up
// at exit, made p's own at exec (sighand_lock: kernel/process.h).
// RLIMIT_NPROC (nproc.c): a set*id call changed the calling thread's
// credentials to nc (cred_commit); execve's first check (-EAGAIN).
struct cred;
void nproc_cred_changed(struct thread *t, const struct cred *nc);
int nproc_exec_check(void);
struct sighand;
struct sighand *sighand_copy(struct sighand *src, bool clear);
struct sighand *sighand_share(struct sighand *sh);
void sighand_put(struct sighand *sh);
bool sighand_shared(const struct sighand *sh);
// exec, past its point of no return, p alone in it and sharing its
// dispositions: 'own' (from sighand_copy) becomes p's, with the same
// actions.
void sighand_exec_own(struct process *p, struct sighand *own);
void itimer_init(struct process *p);
// BSD accounting (acct.c): p's record, if a file is set; p's last
// thread, before the address space goes.
struct mm;
void acct_process_exit(struct process *p, struct mm *mm, int wait_status);
void itimer_cancel(struct process *p);
// POSIX timers (posix_timers.c): CPU 0's tick; all of p's deleted (exec,
// exit); /proc/PID/timers.
void posix_timers_exit(struct process *p);
long posix_timers_show(int pid, uint64_t start_ns, char *buf, size_t size);
// The signals of 'mask' off p's pending sets and its threads' (signal.c;
// sighand lock held).
void signal_discard_locked(struct process *p, uint64_t mask);
struct sigqueue;
void sigqueue_free_all(struct sigqueue **queue);
void process_kill_others(struct process *p, int wait_status);
void arch_mm_deactivate_current(void);
// Job control (jobctl.c).
bool sig_is_stop(int sig);
void jobctl_on_send(struct process *p, int sig);	// sighand lock held
void jobctl_stop(int sig);
void jobctl_park(void);
void jobctl_thread_gone(struct process *p);
int jobctl_wait_report(struct process *c, bool stopped, bool continued, bool keep, int *status);
bool jobctl_current_orphaned(void);
void jobctl_exit_orphans(struct process *p);		// proc_tree_lock held
void signal_send_pgrp_locked(int pgid, int sig);	// proc_tree_lock held
void session_leader_exit(struct process *p);		// proc_tree_lock held		// arch: leave the user address space

// Arch: the user register frame of a thread, and returning to user mode.
struct trap_frame *arch_thread_user_frame(struct thread *t);
void arch_thread_init_user(struct thread *t);
void arch_frame_init_user(struct trap_frame *f, uint64_t ip, uint64_t sp);
void arch_frame_set_return(struct trap_frame *f, long value);
void arch_frame_set_stack(struct trap_frame *f, uint64_t sp);	// clone's new stack

#endif
