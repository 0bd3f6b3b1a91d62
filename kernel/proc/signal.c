// Signals: sending, the pending sets, choosing what to deliver on the way
// back to user space, default actions, and the signal syscalls.  The
// arch builds and unwinds the handler frame (arch_signal_frame_*).
//
// Locking: a thread's pending/blocked sets and its process's pending set
// are guarded by the process's sighand lock, which also guards the
// handler table.

#include <kernel/user_counts.h>
#include <kernel/cred.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/thread.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <kernel/console.h>
#include <kernel/signal.h>
#include <kernel/time.h>
#include <kernel/trap.h>
#include <kernel/pidfd.h>
#include <fs/fs_syscall.h>
#include <fs/procfs.h>
#include <fs/poll.h>
#include <lib/string.h>
#include <mm/frame.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>
#include <kernel/arch.h>
#include <arch/irq.h>

#define UNBLOCKABLE (sigmask_of(SIGKILL) | sigmask_of(SIGSTOP))

// Real-time signals queue: each send is delivered once.  Standard
// signals are a bit each (a second send while pending is merged), with
// their data in info[sig]; a POSIX timer's entry (struct sigqueue,
// include/kernel/signal.h) may queue a standard signal too, as Linux's
// send_sigqueue: info[sig].signo is 0 while only such an entry makes the
// bit pending.

// ---- RLIMIT_SIGPENDING ----
//
// As Linux, the queued real-time signals are counted per user (the real
// uid of the receiving process) and a send that would take the count
// past the receiver's RLIMIT_SIGPENDING queues nothing.  (Standard
// signals need no queue entry here, so they are not counted.)

// Counts one more queued signal for p's user, unless that passes p's
// limit (or there is no memory for the count): the uid charged, or -1.
static int64_t sigpending_charge(struct process *p)
{
	struct cred *c = cred_of(p);
	uint32_t uid = c->uid;

	cred_put(c);
	if (!user_count_charge(uid, USER_SIGPENDING, p->rlimits[RLIMIT_SIGPENDING_INDEX].cur))
		return -1;
	return (int64_t)uid;
}

static void sigpending_uncharge(uint32_t uid)
{
	user_count_uncharge(uid, USER_SIGPENDING);
}

uint64_t sigpending_of_user(uint32_t uid)
{
	return user_count_of(uid, USER_SIGPENDING);
}

uint64_t sigpending_default_limit(void)
{
	uint64_t total, free;

	// Linux's: half its default threads-max, one thread per 32 pages.
	frame_stats(&total, &free);
	return total / 32 / 2 > 10 ? total / 32 / 2 : 10;
}

// Records a pending signal of p in (pending, info[], queue).  sighand
// lock held.  A real-time signal that cannot be queued (the user's
// RLIMIT_SIGPENDING reached, or no memory) is, as on Linux, -EAGAIN for
// sigqueue and tgkill; one from kill() or the kernel's own (no info)
// becomes pending without its data.
static int make_pending(struct process *p, uint64_t *pending, struct ksiginfo *infos,
			struct sigqueue **queue, int sig, const struct ksiginfo *info)
{
	struct ksiginfo si = info ? *info : (struct ksiginfo){ .signo = sig, .code = SI_KERNEL };

	si.signo = sig;
	if (sig >= SIGRTMIN) {
		int64_t uid = sigpending_charge(p);
		struct sigqueue *e = uid >= 0 ? kmalloc(sizeof(*e)) : NULL;

		if (!e) {
			if (uid >= 0)
				sigpending_uncharge((uint32_t)uid);
			if (info && si.code != SI_USER)
				return -EAGAIN;
			*pending |= sigmask_of(sig);	// delivered with empty data
			return 0;
		}
		e->info = si;
		e->charged_uid = (uint32_t)uid;
		e->prealloc = false;
		e->queued = true;
		e->next = 0;
		struct sigqueue **tail = queue;
		while (*tail)
			tail = &(*tail)->next;
		*tail = e;
		*pending |= sigmask_of(sig);
		return 0;
	}
	if (!(*pending & sigmask_of(sig))) {
		*pending |= sigmask_of(sig);
		infos[sig] = si;
	}
	return 0;
}

// An entry off its queue: freed, or, a timer's, kept by the timer for
// its next expiry (Linux's SIGQUEUE_PREALLOC).  sighand lock held.
static void sigqueue_drop(struct sigqueue *e)
{
	e->queued = false;
	if (e->prealloc)
		return;
	sigpending_uncharge(e->charged_uid);
	kfree(e);
}

static bool queue_has(struct sigqueue *q, int sig)
{
	for (; q; q = q->next)
		if (q->info.signo == sig)
			return true;
	return false;
}

// Takes one instance of sig off (pending, info[], queue).  sighand lock held.
static void take_pending(uint64_t *pending, struct ksiginfo *infos, struct sigqueue **queue,
			 int sig, struct ksiginfo *out)
{
	if (sig < SIGRTMIN && infos[sig].signo) {
		*out = infos[sig];
		infos[sig].signo = 0;
		if (!queue_has(*queue, sig))
			*pending &= ~sigmask_of(sig);
		return;
	}
	// Pending without a queue entry (kill() past the limit): Linux's
	// empty data.
	*out = (struct ksiginfo){ .signo = sig, .code = sig < SIGRTMIN ? SI_KERNEL : SI_USER };
	for (struct sigqueue **p = queue; *p; p = &(*p)->next) {
		if ((*p)->info.signo != sig)
			continue;
		struct sigqueue *e = *p;
		*out = e->info;
		*p = e->next;
		sigqueue_drop(e);
		break;
	}
	if (!queue_has(*queue, sig))
		*pending &= ~sigmask_of(sig);
}

void sigqueue_free_all(struct sigqueue **queue)
{
	while (*queue) {
		struct sigqueue *e = *queue;
		*queue = e->next;
		sigqueue_drop(e);
	}
}

// ---- POSIX timers' signals (kernel/proc/posix_timers.c) ----

// The entry a timer keeps for its signal, charged to p's user at once:
// NULL when RLIMIT_SIGPENDING (or memory) has no room, as Linux's
// sigqueue_alloc.
struct sigqueue *sigqueue_alloc_timer(struct process *p)
{
	int64_t uid = sigpending_charge(p);
	struct sigqueue *e = uid >= 0 ? kzalloc(sizeof(*e)) : NULL;

	if (!e) {
		if (uid >= 0)
			sigpending_uncharge((uint32_t)uid);
		return NULL;
	}
	e->charged_uid = (uint32_t)uid;
	e->prealloc = true;
	e->info.timer = true;
	return e;
}

// The timer is gone: a queued entry is freed when it is taken (its
// signal is still delivered, as Linux's sigqueue_free), another at once.
void sigqueue_free_timer(struct process *p, struct sigqueue *e)
{
	uint64_t flags = sighand_lock(p);

	e->prealloc = false;
	if (!e->queued) {
		sigpending_uncharge(e->charged_uid);
		kfree(e);
	}
	spin_unlock_irqrestore(&p->sighand->lock, flags);
}

static bool valid_signal(int sig)
{
	return sig >= 1 && sig <= NSIG;
}

// Default action of each signal: ignore, stop (sig_is_stop, see
// jobctl.c), dump core (default_dumps_core) or terminate.  SIGCONT's
// default is to ignore: continuing happens when it is sent.
static bool default_ignores(int sig)
{
	return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT;
}

static bool ignored(struct process *p, int sig)
{
	uint64_t h = p->sighand->action[sig].handler;
	return h == SIG_IGN || (h == SIG_DFL && default_ignores(sig));
}

// The thread a process-directed signal is checked against: the main one
// while it lives (Linux's thread-group leader), else the first.  sighand
// lock held.
static struct thread *main_thread(struct process *p)
{
	struct thread *t, *first;

	spin_lock(&p->lock);
	first = p->threads;
	for (t = first; t && t->tid != p->pid; t = t->proc_next)
		;
	spin_unlock(&p->lock);
	return t ? t : first;
}

// A signal its disposition ignores is dropped when sent, unless the
// receiver blocks it or waits for it in sigtimedwait: the handler may
// change before it is unblocked (Linux's sig_ignored).  t: the receiving
// thread, NULL for the process.  sighand lock held.
static bool dropped_at_send(struct process *p, struct thread *t, int sig)
{
	if (!t)
		t = main_thread(p);
	if (t && ((t->sig_blocked | t->sig_real_blocked) & sigmask_of(sig)))
		return false;
	return ignored(p, sig);
}

// Takes every pending instance of sig off (pending, queue).  sighand lock
// held.
static void discard_pending(uint64_t *pending, struct sigqueue **queue, int sig)
{
	*pending &= ~sigmask_of(sig);
	for (struct sigqueue **q = queue; *q;) {
		struct sigqueue *e = *q;

		if (e->info.signo != sig) {
			q = &e->next;
			continue;
		}
		*q = e->next;
		sigqueue_drop(e);
	}
}

// Every signal of 'mask' off p's and its threads' pending sets, queued
// entries with them (SIGCONT and the stop signals discarding each
// other).  sighand lock held.
void signal_discard_locked(struct process *p, uint64_t mask)
{
	for (int sig = 1; sig <= NSIG; sig++) {
		if (!(mask & sigmask_of(sig)))
			continue;
		discard_pending(&p->sig_pending, &p->sig_queue, sig);
		spin_lock(&p->lock);
		for (struct thread *t = p->threads; t; t = t->proc_next)
			discard_pending(&t->sig_pending, &t->sig_queue, sig);
		spin_unlock(&p->lock);
	}
}

// Signals whose default action on Linux dumps core (here: terminates).
static bool default_dumps_core(int sig)
{
	return sig == SIGQUIT || sig == SIGILL || sig == SIGTRAP || sig == SIGABRT ||
	       sig == SIGBUS || sig == SIGFPE || sig == SIGSEGV || sig == SIGXCPU ||
	       sig == SIGXFSZ || sig == SIGSYS;
}

// As on Linux, a signal that will kill the process anyway (default action
// "terminate", no core dump) kills every thread as soon as it is sent, as
// SIGKILL does, rather than when one of them dequeues it: threads asleep
// in killable waits (vfork) must not outlive it.  sighand lock held.
static bool kills_at_once(struct process *p, int sig)
{
	return p->sighand->action[sig].handler == SIG_DFL && !default_ignores(sig) &&
	       !sig_is_stop(sig) && !default_dumps_core(sig);
}

// Does t take sig as it comes, a fatal one killing at once?  Not while it
// blocks it, nor while it waits for it in sigtimedwait (Linux's
// real_blocked).  sighand lock held.
static bool thread_takes_at_once(const struct thread *t, int sig)
{
	return !((t->sig_blocked | t->sig_real_blocked) & sigmask_of(sig));
}

// Is there a thread in p that takes sig at once?  sighand lock held.
static bool some_thread_takes(struct process *p, int sig)
{
	bool any = false;

	spin_lock(&p->lock);
	for (struct thread *t = p->threads; t && !any; t = t->proc_next)
		any = thread_takes_at_once(t, sig);
	spin_unlock(&p->lock);
	return any;
}

// The fast return from a system call looks at signals only when told
// (WORK_SIGNAL, kernel/proc/return_to_user.c): every change that can make
// thread_signal_pending() true tells the threads it concerns, after the
// change is made.
static void notify_thread(struct thread *t)
{
	thread_work_set(t, WORK_SIGNAL);
}

// A process-directed signal: any thread may be the one to take it.
static void notify_process(struct process *p)
{
	spin_lock(&p->lock);
	for (struct thread *t = p->threads; t; t = t->proc_next)
		notify_thread(t);
	spin_unlock(&p->lock);
}

void signal_kick(struct thread *t)
{
	wake_interruptible(t);
	if (t != current_thread() && __atomic_load_n(&t->state, __ATOMIC_RELAXED) == THREAD_RUNNABLE &&
	    __atomic_load_n(&t->on_cpu, __ATOMIC_RELAXED))
		arch_send_ipi(t->cpu, IPI_RESCHED);
}

// Picks the thread that should take a process-directed signal and wakes it.
static void signal_wake_one(struct process *p, int sig)
{
	struct thread *pick = 0;

	// p->lock keeps exiting threads from leaving the list under us.
	spin_lock(&p->lock);
	for (struct thread *t = p->threads; t; t = t->proc_next) {
		if (t->sig_blocked & sigmask_of(sig))
			continue;
		pick = t;
		if (t->interruptible)
			break;			// a sleeper can take it at once
	}
	if (pick)
		signal_kick(pick);
	spin_unlock(&p->lock);
}

int signal_send_process(struct process *p, int sig, const struct ksiginfo *info)
{
	if (!p->sighand || p->zombie)
		return 0;
	uint64_t flags = sighand_lock(p);
	// Init only gets the signals it has handlers for (as on Linux): a
	// stray SIGINT or SIGKILL must not end the whole machine.
	if (p->pid == 1 && p->sighand->action[sig].handler == SIG_DFL) {
		spin_unlock_irqrestore(&p->sighand->lock, flags);
		return 0;
	}
	if (sig == SIGKILL) {
		spin_unlock_irqrestore(&p->sighand->lock, flags);
		process_kill_others(p, SIGKILL);
		// The threads die on their way out; none of them is us unless
		// we are in p, in which case exit_to_user sees p->exiting.
		return 0;
	}
	jobctl_on_send(p, sig);
	if (dropped_at_send(p, NULL, sig)) {
		spin_unlock_irqrestore(&p->sighand->lock, flags);
		return 0;
	}
	if (kills_at_once(p, sig) && some_thread_takes(p, sig)) {
		spin_unlock_irqrestore(&p->sighand->lock, flags);
		process_kill_others(p, sig);
		return 0;
	}
	int rc = make_pending(p, &p->sig_pending, p->sig_info, &p->sig_queue, sig, info);
	if (rc == 0) {
		notify_process(p);
		signal_wake_one(p, sig);
		poll_event(&p->sighand->poll_events, 0);
	}
	spin_unlock_irqrestore(&p->sighand->lock, flags);
	if (rc == 0)
		poll_notify();		// a signalfd may be ready now
	return rc;
}

int signal_send_thread(struct thread *t, int sig, const struct ksiginfo *info)
{
	struct process *p = t->proc;
	int rc = 0;

	if (!p || !p->sighand)
		return 0;
	if (sig == SIGKILL)
		return signal_send_process(p, sig, info);
	uint64_t flags = sighand_lock(p);
	jobctl_on_send(p, sig);		// a stop or continue is for the whole process
	if (!ignored(p, sig) && kills_at_once(p, sig) && thread_takes_at_once(t, sig)) {
		spin_unlock_irqrestore(&p->sighand->lock, flags);
		process_kill_others(p, sig);
		return 0;
	}
	bool queued = false;
	if (!dropped_at_send(p, t, sig)) {
		rc = make_pending(p, &t->sig_pending, t->sig_info, &t->sig_queue, sig, info);
		if (rc == 0) {
			queued = true;
			notify_thread(t);
			poll_event(&p->sighand->poll_events, 0);
			signal_kick(t);
		}
	}
	spin_unlock_irqrestore(&p->sighand->lock, flags);
	if (queued)
		poll_notify();		// a signalfd may be ready now
	return rc;
}

// Sends a POSIX timer's signal (e->info filled by the timer) to p, or to
// its thread t, as Linux's send_sigqueue: 1 if the disposition ignores
// it (the timer then runs on by itself), else 0.  An entry still queued
// is not queued again: it counts an overrun.
int signal_send_timer(struct process *p, struct thread *t, struct sigqueue *e, int sys_private)
{
	int sig = e->info.signo;

	if (!p->sighand || p->zombie)
		return 0;
	uint64_t flags = sighand_lock(p);
	if (p->pid == 1 && p->sighand->action[sig].handler == SIG_DFL) {
		spin_unlock_irqrestore(&p->sighand->lock, flags);
		return 1;
	}
	e->info.sys_private = sys_private;
	if (sig == SIGKILL) {
		spin_unlock_irqrestore(&p->sighand->lock, flags);
		process_kill_others(p, SIGKILL);
		return 0;
	}
	jobctl_on_send(p, sig);
	if (dropped_at_send(p, t, sig)) {
		spin_unlock_irqrestore(&p->sighand->lock, flags);
		return 1;
	}
	if (kills_at_once(p, sig) && (t ? thread_takes_at_once(t, sig) : some_thread_takes(p, sig))) {
		spin_unlock_irqrestore(&p->sighand->lock, flags);
		process_kill_others(p, sig);
		return 0;
	}
	if (e->queued) {
		if (e->info.overrun < INT32_MAX)
			e->info.overrun++;
		spin_unlock_irqrestore(&p->sighand->lock, flags);
		return 0;
	}
	uint64_t *pending = t ? &t->sig_pending : &p->sig_pending;
	struct ksiginfo *infos = t ? t->sig_info : p->sig_info;
	struct sigqueue **tail = t ? &t->sig_queue : &p->sig_queue;

	e->info.overrun = 0;
	if (sig < SIGRTMIN && !(*pending & sigmask_of(sig)))
		infos[sig].signo = 0;		// only the entry is pending
	while (*tail)
		tail = &(*tail)->next;
	e->next = 0;
	*tail = e;
	e->queued = true;
	*pending |= sigmask_of(sig);
	if (t)
		notify_thread(t);
	else
		notify_process(p);
	if (t) {
		wake_interruptible(t);
		if (t != current_thread() && t->on_cpu)
			arch_send_ipi(t->cpu, IPI_RESCHED);
	} else {
		signal_wake_one(p, sig);
	}
	spin_unlock_irqrestore(&p->sighand->lock, flags);
	poll_notify();			// a signalfd may be ready now
	return 0;
}

bool thread_signal_pending(struct thread *t)
{
	struct process *p = t->proc;

	if (!p)
		return false;
	if (t->exiting || p->exiting)
		return true;
	// A group stop: the thread must come out to park.
	if (__atomic_load_n(&p->group_stop, __ATOMIC_RELAXED))
		return true;
	return ((t->sig_pending | p->sig_pending) & ~t->sig_blocked) != 0;
}

bool thread_fatal_pending(struct thread *t)
{
	struct process *p = t->proc;

	return p && (t->exiting || p->exiting);
}

#define RLIMIT_CORE 4

// Kills the process for an unhandled fatal signal.  For a signal whose
// default action dumps core the wait status says "core dumped" (0x80)
// when RLIMIT_CORE allows a core, as Linux with a core_pattern that
// takes it; no file is written (/proc/sys/kernel/core_pattern says so).
static __attribute__((noreturn)) void die_of_signal(int sig)
{
	struct process *p = current_process();
	int status = sig;

	if (default_dumps_core(sig) && p->rlimits[RLIMIT_CORE].cur > 0)
		status |= 0x80;
	thread_exit_user(status, true);
}

// The caller dies of 'sig' at once, whatever its handlers (seccomp's
// kill actions).
__attribute__((noreturn)) void signal_die_now(int sig)
{
	die_of_signal(sig);
}

// A fault in user mode: delivered now, and fatal if it cannot be handled.
void signal_force_fault(int sig, int code, uint64_t addr)
{
	struct ksiginfo info = { .signo = sig, .code = code, .addr = addr };

	signal_force_info(&info);
}

// The same with the whole siginfo (seccomp's SIGSYS).
void signal_force_info(const struct ksiginfo *pinfo)
{
	struct thread *t = current_thread();
	struct process *p = t->proc;
	struct ksiginfo info = *pinfo;
	int sig = info.signo;
	uint64_t flags = sighand_lock(p);
	struct k_sigaction *a = &p->sighand->action[sig];

	// Blocked or ignored synchronous faults cannot be skipped: reset to
	// the default action, as Linux does.
	if ((t->sig_blocked & sigmask_of(sig)) || a->handler == SIG_IGN) {
		a->handler = SIG_DFL;
		t->sig_blocked &= ~sigmask_of(sig);
	}
	t->sig_pending |= sigmask_of(sig);
	t->sig_info[sig] = info;
	notify_thread(t);
	spin_unlock_irqrestore(&p->sighand->lock, flags);
}

// The siginfo_t a handler, sigtimedwait or signalfd hands to the program.
void siginfo_to_user(struct user_siginfo *si, const struct ksiginfo *info)
{
	memset(si, 0, sizeof(*si));
	si->si_signo = info->signo;
	si->si_code = info->code;
	si->si_errno = info->errno_;
	if (info->code == SI_TIMER && info->timer) {	// si_tid, si_overrun, si_value
		int32_t ids[2] = { info->timerid, info->overrun };

		memcpy(si->u.raw, ids, sizeof(ids));
		memcpy(si->u.raw + 8, &info->value, 8);
		return;
	}
	if (info->signo == SIGSYS && info->code == SYS_SECCOMP) {
		// _sigsys: the call's address, its number, its ABI.
		uint32_t nr_arch[2] = { (uint32_t)info->status, (uint32_t)info->value };

		memcpy(si->u.raw, &info->addr, 8);
		memcpy(si->u.raw + 8, nr_arch, 8);
		return;
	}
	if (info->poll) {		// si_band, si_fd
		memcpy(si->u.raw, &info->band, 8);
		memcpy(si->u.raw + 8, &info->fd, 4);
		return;
	}
	switch (info->signo) {
	case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGTRAP:
		if (info->code > 0 && info->code != SI_KERNEL) {
			si->u.addr = info->addr;
			break;
		}
		__attribute__((fallthrough));	// sent by kill(): pid and uid
	default:
		si->u.kill.pid = info->pid;
		si->u.kill.uid = info->uid;
		if (info->signo == SIGCHLD)
			si->u.kill.status = info->status;
		else if (info->code < 0)	// sigqueue: the sender's value
			memcpy(si->u.raw + 8, &info->value, 8);
		break;
	}
}

bool signal_has_handler(int sig)
{
	struct process *p = current_process();
	uint64_t h = p->sighand->action[sig].handler;
	return h != SIG_DFL && h != SIG_IGN;
}

// Which of a non-empty set goes first: the synchronous ones (faults and
// SIGSYS), then the lowest number, as Linux's next_signal.
static int next_signal(uint64_t set)
{
	uint64_t sync = set & (sigmask_of(SIGSEGV) | sigmask_of(SIGBUS) | sigmask_of(SIGILL) |
			       sigmask_of(SIGFPE) | sigmask_of(SIGTRAP) | sigmask_of(SIGSYS));

	return __builtin_ctzll(sync ? sync : set) + 1;
}

// Takes the next deliverable signal off the pending sets.  sighand lock held.
static int dequeue(struct thread *t, struct ksiginfo *info)
{
	struct process *p = t->proc;
	uint64_t ready = t->sig_pending & ~t->sig_blocked;
	bool from_thread = ready != 0;

	if (!ready)
		ready = p->sig_pending & ~t->sig_blocked;
	if (!ready)
		return 0;
	int sig = next_signal(ready);
	if (from_thread)
		take_pending(&t->sig_pending, t->sig_info, &t->sig_queue, sig, info);
	else
		take_pending(&p->sig_pending, p->sig_info, &p->sig_queue, sig, info);
	return sig;
}

// Called on every return to user space with a signal pending.
void signal_deliver(struct trap_frame *f)
{
	struct thread *t = current_thread();
	struct process *p = t->proc;

	if (t->exiting || p->exiting)
		thread_exit_user(p->exit_status, false);
	for (;;) {
		struct ksiginfo info;
		if (__atomic_load_n(&p->group_stop, __ATOMIC_RELAXED)) {
			jobctl_park();
			if (t->exiting || p->exiting)
				thread_exit_user(p->exit_status, false);
		}
		uint64_t flags = sighand_lock(p);
		int sig = dequeue(t, &info);
		if (sig && info.timer && info.sys_private) {
			// A periodic timer runs again once its signal is taken.
			spin_unlock_irqrestore(&p->sighand->lock, flags);
			posix_timer_rearm(&info);
			flags = sighand_lock(p);
		}
		if (!sig) {
			spin_unlock_irqrestore(&p->sighand->lock, flags);
			arch_syscall_restart_if_needed(f, false, 0);
			if (t->sig_restore_mask) {
				t->sig_blocked = t->sig_saved_mask;
				t->sig_restore_mask = false;
			}
			return;
		}
		struct k_sigaction ka = p->sighand->action[sig];
		if (ka.handler == SIG_DFL && sig_is_stop(sig)) {
			spin_unlock_irqrestore(&p->sighand->lock, flags);
			// A terminal's stop signals cannot stop an orphaned
			// group: nobody could continue it (POSIX).  Discarded.
			if (sig != SIGSTOP && jobctl_current_orphaned())
				continue;
			jobctl_stop(sig);
			continue;
		}
		if (ka.handler == SIG_IGN || (ka.handler == SIG_DFL && default_ignores(sig))) {
			spin_unlock_irqrestore(&p->sighand->lock, flags);
			continue;
		}
		if (ka.handler == SIG_DFL) {
			spin_unlock_irqrestore(&p->sighand->lock, flags);
			if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE)
				arch_log_fatal_fault(f, sig, &info);
			die_of_signal(sig);
		}
		if (ka.flags & SA_RESETHAND)
			p->sighand->action[sig].handler = SIG_DFL;
		uint64_t old_mask = t->sig_restore_mask ? t->sig_saved_mask : t->sig_blocked;
		uint64_t blocked_before = t->sig_blocked;
		bool restore_before = t->sig_restore_mask;
		t->sig_restore_mask = false;
		t->sig_blocked |= ka.mask & ~UNBLOCKABLE;
		if (!(ka.flags & SA_NODEFER))
			t->sig_blocked |= sigmask_of(sig);
		spin_unlock_irqrestore(&p->sighand->lock, flags);
		arch_syscall_restart_if_needed(f, true, ka.flags);
		// A critical section the signal interrupts restarts: the
		// frame returns to its abort handler.
		rseq_signal_deliver(f);
		if (arch_signal_frame_setup(f, sig, &ka, &info, old_mask) < 0) {
			// The frame could not be written (an unmapped or read-only
			// stack).  As Linux's force_sigsegv: the mask stays as it
			// was, and SIGSEGV follows, to its own handler if it has
			// one, fatal at once if it was SIGSEGV's frame that failed.
			flags = sighand_lock(p);
			t->sig_blocked = blocked_before;
			t->sig_restore_mask = restore_before;
			spin_unlock_irqrestore(&p->sighand->lock, flags);
			if (sig == SIGSEGV) {
				arch_log_fatal_fault(f, SIGSEGV, &info);
				die_of_signal(SIGSEGV);
			}
			signal_force_fault(SIGSEGV, SI_KERNEL, 0);
			continue;
		}
		return;
	}
}

SYSCALL_DEFINE(SYS_rt_sigaction, rt_sigaction)
{
	int sig = (int)args->a[0];
	struct k_sigaction act, old;
	struct process *p = current_process();

	if (!valid_signal(sig) || args->a[3] != 8)
		return -EINVAL;
	if (args->a[1]) {
		if (sig == SIGKILL || sig == SIGSTOP)
			return -EINVAL;
		if (copy_from_user(&act, args->a[1], sizeof(act)) < 0)
			return -EFAULT;
	}
	uint64_t flags = sighand_lock(p);
	old = p->sighand->action[sig];
	if (args->a[1]) {
		act.mask &= ~UNBLOCKABLE;
		// Unknown flags are dropped, as Linux does, so a program can
		// read back which ones the kernel knows.
		act.flags &= SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | SA_EXPOSE_TAGBITS |
			     SA_RESTORER | SA_ONSTACK | SA_RESTART | SA_NODEFER | SA_RESETHAND;
		p->sighand->action[sig] = act;
		// Setting SIG_IGN (or a default that ignores) discards pending ones.
		if (ignored(p, sig)) {
			discard_pending(&p->sig_pending, &p->sig_queue, sig);
			spin_lock(&p->lock);
			for (struct thread *t = p->threads; t; t = t->proc_next)
				discard_pending(&t->sig_pending, &t->sig_queue, sig);
			spin_unlock(&p->lock);
		}
	}
	spin_unlock_irqrestore(&p->sighand->lock, flags);
	if (args->a[2] && copy_to_user(args->a[2], &old, sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE(SYS_rt_sigprocmask, rt_sigprocmask)
{
	int how = (int)args->a[0];
	struct thread *t = current_thread();
	uint64_t set = 0, old = t->sig_blocked;

	if (args->a[3] != 8)
		return -EINVAL;
	if (args->a[1]) {
		if (copy_from_user(&set, args->a[1], 8) < 0)
			return -EFAULT;
		set &= ~UNBLOCKABLE;
		switch (how) {
		case SIG_BLOCK: t->sig_blocked |= set; break;
		case SIG_UNBLOCK: t->sig_blocked &= ~set; break;
		case SIG_SETMASK: t->sig_blocked = set; break;
		default: return -EINVAL;
		}
		notify_thread(t);	// a pending signal may be unblocked now
	}
	if (args->a[2] && copy_to_user(args->a[2], &old, 8) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE(SYS_rt_sigpending, rt_sigpending)
{
	struct thread *t = current_thread();
	uint64_t pending = (t->sig_pending | t->proc->sig_pending) & t->sig_blocked;

	if (args->a[1] > 8)
		return -EINVAL;
	return copy_to_user(args->a[0], &pending, args->a[1]) < 0 ? -EFAULT : 0;
}

// Temporarily replaces the mask; the old one comes back after the handler.
void signal_set_temporary_mask(uint64_t mask)
{
	struct thread *t = current_thread();

	t->sig_saved_mask = t->sig_blocked;
	t->sig_restore_mask = true;
	t->sig_blocked = mask & ~UNBLOCKABLE;
	notify_thread(t);	// the return to user restores it, or handles one
}

// The call that set a temporary mask ended without a signal to handle.
void signal_restore_temporary_mask(void)
{
	struct thread *t = current_thread();

	if (t->sig_restore_mask) {
		t->sig_blocked = t->sig_saved_mask;
		t->sig_restore_mask = false;
		notify_thread(t);
	}
}

SYSCALL_DEFINE(SYS_rt_sigsuspend, rt_sigsuspend)
{
	uint64_t mask;

	if (args->a[1] != 8)
		return -EINVAL;
	if (copy_from_user(&mask, args->a[0], 8) < 0)
		return -EFAULT;
	signal_set_temporary_mask(mask);
	while (!thread_signal_pending(current_thread()))
		wq_wait(0, 0, WAIT_FOREVER, true);
	// EINTR once a handler runs; woken for a stop with nothing to
	// handle, it starts again after the continue (as Linux).
	return -ERESTARTNOHAND;
}

int signal_take_one_of(struct thread *t, uint64_t these, struct ksiginfo *info)
{
	struct process *p = t->proc;
	uint64_t mine = t->sig_pending & these, shared = p->sig_pending & these;
	int sig;

	if (mine) {
		sig = next_signal(mine);
		take_pending(&t->sig_pending, t->sig_info, &t->sig_queue, sig, info);
	} else if (shared) {
		sig = next_signal(shared);
		take_pending(&p->sig_pending, p->sig_info, &p->sig_queue, sig, info);
	} else {
		sig = 0;
	}
	return sig;
}

// rt_sigtimedwait (sigwaitinfo, sigtimedwait): takes a pending signal of
// the set, waiting for one until the timeout (EAGAIN) or until a signal
// outside the set interrupts (EINTR).  As on Linux, the set's signals are
// unblocked while the thread sleeps, so that one sent to the process
// picks this thread; the mask is back before the call returns.
SYSCALL_DEFINE(SYS_rt_sigtimedwait, rt_sigtimedwait)
{
	uint64_t uset = args->a[0], uinfo = args->a[1], uts = args->a[2];
	struct thread *t = current_thread();
	struct process *p = t->proc;
	uint64_t these, ns = 0, deadline = WAIT_FOREVER, flags;
	struct ksiginfo info;
	int sig, rc = 0;

	if (args->a[3] != 8)
		return -EINVAL;
	if (copy_from_user(&these, uset, 8) < 0)
		return -EFAULT;
	these &= ~UNBLOCKABLE;
	if (uts && (rc = get_timespec_ns(uts, &ns)) < 0)
		return rc;
	if (uts)
		deadline = clock_monotonic_ns() + ns;
	flags = sighand_lock(p);
	sig = signal_take_one_of(t, these, &info);
	if (!sig && !(uts && ns == 0)) {
		uint64_t blocked = t->sig_blocked;

		t->sig_real_blocked = blocked;
		t->sig_blocked &= ~these;
		rc = wq_wait(0, &p->sighand->lock, deadline, true);
		t->sig_blocked = blocked;
		t->sig_real_blocked = 0;
		notify_thread(t);
		sig = signal_take_one_of(t, these, &info);
	}
	spin_unlock_irqrestore(&p->sighand->lock, flags);
	if (!sig)
		return rc == -EINTR ? -EINTR : -EAGAIN;
	posix_timer_rearm(&info);
	if (uinfo) {
		struct user_siginfo si;

		siginfo_to_user(&si, &info);
		if (copy_to_user(uinfo, &si, sizeof(si)) < 0)
			return -EFAULT;
	}
	return sig;
}

SYSCALL_DEFINE(SYS_pause, pause)
{
	(void)args;
	while (!thread_signal_pending(current_thread()))
		wq_wait(0, 0, WAIT_FOREVER, true);
	return -ERESTARTNOHAND;
}

SYSCALL_DEFINE(SYS_sigaltstack, sigaltstack)
{
	struct thread *t = current_thread();
	struct user_stack_t ss, old = t->altstack;
	uint64_t sp = arch_frame_sp(syscall_frame());
	bool on = old.ss_flags != SS_DISABLE && sp - old.ss_sp < old.ss_size;

	if (old.ss_size == 0)
		old.ss_flags = SS_DISABLE;
	else if (on)
		old.ss_flags = SS_ONSTACK;
	if (args->a[0]) {
		if (copy_from_user(&ss, args->a[0], sizeof(ss)) < 0)
			return -EFAULT;
		if (on)
			return -EPERM;
		if (ss.ss_flags != 0 && ss.ss_flags != SS_DISABLE && ss.ss_flags != SS_ONSTACK)
			return -EINVAL;
		if (ss.ss_flags == SS_DISABLE) {
			t->altstack = (struct user_stack_t){ 0, SS_DISABLE, 0, 0 };
		} else {
			if (ss.ss_size < MINSIGSTKSZ)
				return -ENOMEM;
			// Field by field: the caller's padding is not ours to
			// hand back (sigaltstack, signal frames), Linux gives 0.
			t->altstack = (struct user_stack_t){ .ss_sp = ss.ss_sp, .ss_size = ss.ss_size };
		}
	}
	if (args->a[1] && copy_to_user(args->a[1], &old, sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

// A zombie still exists for kill() (it answers, and ignores the signal).
static int kill_one(struct process *p, int sig, struct ksiginfo *info)
{
	if (!p)
		return -ESRCH;
	if (cred_may_signal(p, sig))
		return -EPERM;
	if (sig && !p->zombie)
		signal_send_process(p, sig, info);
	return 0;
}

struct kill_group {
	int sig, pgid, sent;
	bool all;
	struct process *self;
	struct ksiginfo *info;
	int denied;			// targets the caller may not signal
};

static void kill_group_fn(struct process *p, void *arg)
{
	struct kill_group *g = arg;

	if (p->zombie)
		return;
	if (g->all ? (p->pid == 1 || p == g->self) : p->pgid != g->pgid)
		return;
	if (cred_may_signal(p, g->sig)) {
		g->denied++;
		return;
	}
	g->sent++;
	if (g->sig)
		signal_send_process(p, g->sig, g->info);
}

SYSCALL_DEFINE(SYS_kill, kill)
{
	int pid = (int)args->a[0], sig = (int)args->a[1];
	struct process *me = current_process();
	struct ksiginfo info = { .signo = sig, .code = SI_USER, .pid = me->pid };

	if (sig < 0 || sig > NSIG)
		return -EINVAL;
	if (pid > 0) {
		uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
		int r = kill_one(process_find_any_id(pid), sig, &info);
		spin_unlock_irqrestore(&proc_tree_lock, flags);
		return r;
	}
	struct kill_group g = { sig, pid == 0 ? me->pgid : -pid, 0, pid == -1, me, &info, 0 };
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	process_for_each_locked(kill_group_fn, &g);
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	// As Linux: kill(-1) fails only when there is nobody else at all; a
	// group fails with EPERM when none of it could be signalled.
	if (g.all)
		return g.sent || g.denied ? 0 : -ESRCH;
	return g.sent ? 0 : g.denied ? -EPERM : -ESRCH;
}

static long kill_thread(int tgid, int tid, int sig)
{
	struct process *me = current_process();
	struct ksiginfo info = { .signo = sig, .code = SI_TKILL, .pid = me->pid };

	if (sig < 0 || sig > NSIG || tid <= 0)
		return -EINVAL;
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	struct thread *t = thread_find(tid);
	long r = 0;
	if (!t || !t->proc || (tgid > 0 && t->proc->pid != tgid) || t->exiting)
		r = -ESRCH;
	else if (cred_may_signal(t->proc, sig))
		r = -EPERM;
	else if (sig)
		r = signal_send_thread(t, sig, &info);	// -EAGAIN: not queued
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return r;
}

SYSCALL_DEFINE(SYS_tgkill, tgkill)
{
	if ((int)args->a[0] <= 0)
		return -EINVAL;
	return kill_thread((int)args->a[0], (int)args->a[1], (int)args->a[2]);
}

SYSCALL_DEFINE(SYS_tkill, tkill)
{
	return kill_thread(0, (int)args->a[0], (int)args->a[1]);
}

// restart_syscall(2): the kernel restarts interrupted calls by re-issuing
// them (-ERESTART*), never through a restart block, so a program calling
// it finds none: -EINTR, as Linux's do_no_restart_syscall.
SYSCALL_DEFINE(SYS_restart_syscall, restart_syscall)
{
	(void)args;
	return -EINTR;
}

SYSCALL_DEFINE(SYS_rt_sigreturn, rt_sigreturn)
{
	(void)args;
	// The whole frame comes back, and the mask: the return to user mode
	// checks the one and looks for signals the other unblocked.
	thread_work_set(current_thread(), WORK_FRAME | WORK_SIGNAL);
	return arch_signal_frame_return(syscall_frame());
}

// Resets handlers at exec: caught signals go back to the default action;
// ignored ones stay ignored.
void signal_exec_reset(struct process *p)
{
	for (int i = 1; i <= NSIG; i++) {
		struct k_sigaction *a = &p->sighand->action[i];
		if (a->handler != SIG_IGN)
			*a = (struct k_sigaction){ 0 };
		a->flags = 0;
		a->mask = 0;
		a->restorer = 0;
	}
	current_thread()->altstack = (struct user_stack_t){ 0, SS_DISABLE, 0, 0 };
}

// rt_sigqueueinfo / rt_tgsigqueueinfo: a signal with caller-provided data.
static long queue_info(int tgid, int tid, int sig, uint64_t uinfo)
{
	struct user_siginfo si;
	struct process *me = current_process();

	if (!valid_signal(sig))
		return -EINVAL;
	if (copy_from_user(&si, uinfo, sizeof(si)) < 0)
		return -EFAULT;
	// Only the kernel may claim to be the kernel (or kill()), except to
	// the caller itself, as on Linux.
	if ((si.si_code >= 0 || si.si_code == SI_TKILL) && tgid != me->pid)
		return -EPERM;
	struct ksiginfo info = { .signo = sig, .code = si.si_code, .pid = me->pid,
				 .value = *(uint64_t *)(si.u.raw + 8) };
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	long r = 0;
	if (tid > 0) {
		struct thread *t = thread_find(tid);
		if (!t || !t->proc || t->proc->pid != tgid)
			r = -ESRCH;
		else if (cred_may_signal(t->proc, sig))
			r = -EPERM;
		else
			r = signal_send_thread(t, sig, &info);	// -EAGAIN: not queued
	} else {
		struct process *p = process_find_any_id(tgid);
		if (!p || p->zombie)
			r = -ESRCH;
		else if (cred_may_signal(p, sig))
			r = -EPERM;
		else
			r = signal_send_process(p, sig, &info);
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return r;
}

static bool is_process_dir(const struct file *f)
{
	struct process *p;
	uint64_t irq = spin_lock_irqsave(&proc_tree_lock);
	bool yes = procfs_process_dir_locked(f, &p);

	spin_unlock_irqrestore(&proc_tree_lock, irq);
	return yes;
}

// pidfd_send_signal(2): kill() of the process a pidfd names (or an open
// /proc/PID directory, as Linux), or with the
// caller's siginfo under rt_sigqueueinfo's rules (only to itself may a
// caller claim to be the kernel or kill()).
SYSCALL_DEFINE(SYS_pidfd_send_signal, pidfd_send_signal)
{
	int sig = (int)args->a[1];
	uint64_t uinfo = args->a[2];
	struct process *me = current_process(), *p;
	struct ksiginfo info = { .signo = sig, .code = SI_USER, .pid = me->pid,
				 .uid = (int)current_cred()->uid };
	struct file *f;
	uint64_t irq;
	int rc;

	if (args->a[3])
		return -EINVAL;
	f = fget((int)args->a[0]);
	if (!f)
		return -EBADF;
	if (!file_is_pidfd(f) && !is_process_dir(f)) {
		file_put(f);
		return -EBADF;
	}
	if (uinfo) {
		struct user_siginfo si;

		if (copy_from_user(&si, uinfo, sizeof(si)) < 0) {
			file_put(f);
			return -EFAULT;
		}
		if (si.si_signo != sig) {
			file_put(f);
			return -EINVAL;
		}
		info.code = si.si_code;
		info.value = *(uint64_t *)(si.u.raw + 8);
	}
	irq = spin_lock_irqsave(&proc_tree_lock);
	if (!procfs_process_dir_locked(f, &p))
		p = pidfd_process_locked(f);
	if (uinfo && p != me && (info.code >= 0 || info.code == SI_TKILL))
		rc = -EPERM;		// Linux checks this before the process
	else if (!p)
		rc = -ESRCH;
	else if (sig < 0 || sig > NSIG)
		rc = -EINVAL;
	else
		rc = kill_one(p, sig, &info);
	spin_unlock_irqrestore(&proc_tree_lock, irq);
	file_put(f);
	return rc;
}

SYSCALL_DEFINE(SYS_rt_sigqueueinfo, rt_sigqueueinfo)
{
	return queue_info((int)args->a[0], 0, (int)args->a[1], args->a[2]);
}

SYSCALL_DEFINE(SYS_rt_tgsigqueueinfo, rt_tgsigqueueinfo)
{
	return queue_info((int)args->a[0], (int)args->a[1], (int)args->a[2], args->a[3]);
}

static void pgrp_send_fn(struct process *p, void *arg)
{
	int *a = arg;	// { pgid, sig }

	if (p->pgid == a[0] && !p->zombie) {
		struct ksiginfo info = { .signo = a[1], .code = SI_KERNEL };
		signal_send_process(p, a[1], &info);
	}
}

void signal_send_pgrp_locked(int pgid, int sig)
{
	int a[2] = { pgid, sig };

	process_for_each_locked(pgrp_send_fn, a);
}

// Signals every process of a group (the console's ^C); callable from
// interrupt context.
void signal_send_pgrp(int pgid, int sig)
{
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);

	signal_send_pgrp_locked(pgid, sig);
	spin_unlock_irqrestore(&proc_tree_lock, flags);
}

enum syscall_restart syscall_restart_action(long result, bool handler, uint64_t sa_flags)
{
	bool restart;

	switch (result) {
	case -ERESTARTNOINTR:
		restart = true;
		break;
	case -ERESTARTSYS:
		restart = !handler || (sa_flags & SA_RESTART);
		break;
	case -ERESTARTNOHAND:
		restart = !handler;
		break;
	default:
		return RESTART_NONE;
	}
	return restart ? RESTART_CALL : RESTART_EINTR;
}
