// Signal delivery, between the process layer and the arch's frames.
#ifndef KERNEL_SIGNAL_H
#define KERNEL_SIGNAL_H

#include <stdint.h>
#include <stdbool.h>
#include <uapi/signal.h>
#include <uapi/errno.h>

struct process;
struct thread;

struct trap_frame;

// On the way to user space with a signal pending: run a handler (by
// building its frame), ignore, or die.
void signal_deliver(struct trap_frame *f);
// A syscall interrupted with -ERESTART*: restart it or make it -EINTR.
bool arch_syscall_restart_if_needed(struct trap_frame *f, bool handler, uint64_t sa_flags);
// Linux's rule for it, from the call's result (a negative errno): make
// the call again, fail it with EINTR, or leave the result as it is.
enum syscall_restart { RESTART_NONE, RESTART_CALL, RESTART_EINTR };
// Is a call's result one of the restart codes (-ERESTARTNOHAND (-514) ..
// -ERESTARTSYS (-512)), which never reach user space?
static inline bool syscall_result_restarts(long result)
{
	return (unsigned long)(result + ERESTARTNOHAND) <= ERESTARTNOHAND - ERESTARTSYS;
}
enum syscall_restart syscall_restart_action(long result, bool handler, uint64_t sa_flags);
// "NAME[PID]: segfault at ADDR ip IP sp SP" for a fault that kills.
void arch_log_fatal_fault(struct trap_frame *f, int sig, const struct ksiginfo *info);
void signal_set_temporary_mask(uint64_t mask);
void signal_restore_temporary_mask(void);
void signal_exec_reset(struct process *p);
bool signal_has_handler(int sig);
// The siginfo_t layout the program sees, from what the kernel recorded.
void siginfo_to_user(struct user_siginfo *si, const struct ksiginfo *info);
// The next signal of 'these' pending for t (its own first, then its
// process's; synchronous ones first, then the lowest number, as Linux's
// dequeue_signal), taken off with its data in *info; 0 if none.  The
// caller holds t->proc->sighand->lock.  rt_sigtimedwait and signalfd.
int signal_take_one_of(struct thread *t, uint64_t these, struct ksiginfo *info);
// RLIMIT_SIGPENDING: the real-time signals queued for a user's processes
// (/proc/PID/status "SigQ"), and init's limit, Linux's for this much RAM.
uint64_t sigpending_of_user(uint32_t uid);
uint64_t sigpending_default_limit(void);

// A queued signal (kernel/proc/signal.c).  A POSIX timer keeps one for
// its signal ('prealloc', Linux's SIGQUEUE_PREALLOC): taken off a queue
// it is not freed; 'queued' while it is on one.  Both under the sighand
// lock.
struct sigqueue {
	struct ksiginfo info;
	uint32_t charged_uid;		// whose RLIMIT_SIGPENDING count it is in
	bool prealloc, queued;
	struct sigqueue *next;
};

struct sigqueue *sigqueue_alloc_timer(struct process *p);
void sigqueue_free_timer(struct process *p, struct sigqueue *e);
int signal_send_timer(struct process *p, struct thread *t, struct sigqueue *e, int sys_private);
// After a timer's signal was taken off (info->code SI_TIMER), with no
// sighand lock held: a periodic timer runs again and info->overrun gets
// the overruns (kernel/proc/posix_timers.c).
void posix_timer_rearm(struct ksiginfo *info);

// Arch: the handler's frame on the user stack, and rt_sigreturn.
int arch_signal_frame_setup(struct trap_frame *f, int sig, const struct k_sigaction *ka,
			    const struct ksiginfo *info, uint64_t old_mask);
long arch_signal_frame_return(struct trap_frame *f);
uint64_t arch_frame_sp(const struct trap_frame *f);

#endif
