// Job control: stopping and continuing a whole process, the reports its
// parent gets (SIGCHLD with CLD_STOPPED / CLD_CONTINUED, and wait()'s
// WUNTRACED / WCONTINUED), and orphaned process groups.
//
// A stop signal whose action is the default starts a "group stop": every
// thread of the process parks on its way back to user space (it is woken
// from interruptible sleeps to get there; its system call restarts after
// the continue).  The last thread to park completes the stop and reports
// it.  SIGCONT, when it is sent rather than when it is handled, ends the
// stop, wakes the parked threads and discards pending stop signals; a stop
// signal sent discards a pending SIGCONT (as Linux's prepare_signal).
//
// Locking: the stop state of a process is under its sighand lock.  The
// parent is told under proc_tree_lock, which comes before any sighand
// lock, so the reports are made with no sighand lock held: the state says
// what is still to tell (notify_parent) and whoever passes next tells it.

#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/thread.h>
#include <kernel/sched.h>
#include <kernel/wait.h>
#include <kernel/arch.h>
#include <uapi/signal.h>
#include <arch/irq.h>

#define STOP_SIGNALS (sigmask_of(SIGSTOP) | sigmask_of(SIGTSTP) | sigmask_of(SIGTTIN) | \
		      sigmask_of(SIGTTOU))

bool sig_is_stop(int sig)
{
	return sig >= 1 && sig < SIGRTMIN && (STOP_SIGNALS & sigmask_of(sig));
}

bool process_is_stopped(struct process *p)
{
	return __atomic_load_n(&p->stopped, __ATOMIC_RELAXED);
}

// Drops 'mask' from the pending sets of p and of its threads (a POSIX
// timer's queued entry with them).  sighand lock held.
static void discard_pending(struct process *p, uint64_t mask)
{
	signal_discard_locked(p, mask);
}

// What sending 'sig' does at once, before it is queued (or found
// ignored).  sighand lock held.
void jobctl_on_send(struct process *p, int sig)
{
	if (sig_is_stop(sig)) {
		discard_pending(p, sigmask_of(SIGCONT));
		return;
	}
	if (sig != SIGCONT)
		return;
	discard_pending(p, STOP_SIGNALS);
	if (!p->group_stop)
		return;
	if (p->stopped) {
		p->wait_report = CLD_CONTINUED;
		p->notify_parent = CLD_CONTINUED;
	}
	p->group_stop = false;
	p->stopped = false;
	wq_wake_all(&p->stop_wq);
}

// The last thread parked (or the last running one left): the stop is
// complete.  sighand lock held.
static void check_complete(struct process *p)
{
	int n;

	if (!p->group_stop || p->stopped || p->exiting)
		return;
	spin_lock(&p->lock);
	n = p->nthreads;
	spin_unlock(&p->lock);
	if (n == 0 || p->nparked < n)
		return;
	p->stopped = true;
	p->wait_report = CLD_STOPPED;
	p->notify_parent = CLD_STOPPED;
}

// Sends the parent the report p has pending, if any.  No locks held.
static void notify_parent(struct process *p)
{
	struct ksiginfo info = { .signo = SIGCHLD, .pid = p->pid };
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);

	spin_lock(&p->sighand->lock);
	info.code = p->notify_parent;
	info.status = info.code == CLD_STOPPED ? p->stop_sig : SIGCONT;
	p->notify_parent = 0;
	spin_unlock(&p->sighand->lock);
	struct process *parent = p->parent;
	if (info.code && parent && !parent->zombie) {
		// SA_NOCLDSTOP silences both reports; wait() still sees them.
		if (!(parent->sighand->action[SIGCHLD].flags & SA_NOCLDSTOP))
			signal_send_process(parent, SIGCHLD, &info);
		wq_wake_all(&parent->child_wait);
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
}

// Makes every other thread of p look at its signals: sleepers wake,
// threads running elsewhere get an IPI.  sighand lock held.
static void kick_threads(struct process *p)
{
	struct thread *me = current_thread();

	spin_lock(&p->lock);
	for (struct thread *t = p->threads; t; t = t->proc_next) {
		thread_work_set(t, WORK_SIGNAL);	// the stop, at its next return
		if (t != me)
			signal_kick(t);
	}
	spin_unlock(&p->lock);
}

// The current thread parks until the group stop ends (SIGCONT) or the
// process is killed.  Called on the way to user space, no locks held.
void jobctl_park(void)
{
	struct thread *t = current_thread();
	struct process *p = t->proc;
	uint64_t flags = sighand_lock(p);

	if (!p->group_stop || p->exiting || t->exiting) {
		spin_unlock_irqrestore(&p->sighand->lock, flags);
		return;
	}
	p->nparked++;
	check_complete(p);
	spin_unlock_irqrestore(&p->sighand->lock, flags);
	notify_parent(p);

	flags = sighand_lock(p);
	while (p->group_stop && !thread_fatal_pending(t))
		wq_wait_killable(&p->stop_wq, &p->sighand->lock, WAIT_FOREVER);
	p->nparked--;
	spin_unlock_irqrestore(&p->sighand->lock, flags);
	// The first thread out tells the parent it was continued.
	notify_parent(p);
}

// A stop signal at its default action was dequeued by the current
// thread: start the group stop (unless one is on already) and park.
void jobctl_stop(int sig)
{
	struct process *p = current_process();
	uint64_t flags = sighand_lock(p);

	if (!p->group_stop && !p->exiting) {
		p->group_stop = true;
		p->stop_sig = sig;
		kick_threads(p);
	}
	spin_unlock_irqrestore(&p->sighand->lock, flags);
	jobctl_park();
}

// A thread of p left it during a group stop: the others may all be parked
// now.  No locks held.
void jobctl_thread_gone(struct process *p)
{
	if (!__atomic_load_n(&p->group_stop, __ATOMIC_RELAXED))
		return;
	uint64_t flags = sighand_lock(p);
	check_complete(p);
	spin_unlock_irqrestore(&p->sighand->lock, flags);
	notify_parent(p);
}

// wait(): the stop or continue report of child c, if one is pending and
// asked for; taken unless 'keep'.  Returns the CLD_* code and the wait
// status in *status, or 0.  proc_tree_lock held.
int jobctl_wait_report(struct process *c, bool stopped, bool continued, bool keep, int *status)
{
	int code;

	spin_lock(&c->sighand->lock);
	code = c->wait_report;
	if ((code == CLD_STOPPED && !stopped) || (code == CLD_CONTINUED && !continued))
		code = 0;
	if (code == CLD_STOPPED)
		*status = (c->stop_sig << 8) | 0x7f;
	else if (code == CLD_CONTINUED)
		*status = 0xffff;
	if (code && !keep)
		c->wait_report = 0;
	spin_unlock(&c->sighand->lock);
	return code;
}

// ---- Orphaned process groups ----

struct orphan_search {
	int pgid;
	struct process *ignore;
	bool orphaned, stopped;
};

static void orphan_fn(struct process *p, void *arg)
{
	struct orphan_search *o = arg;
	struct process *parent = p->parent;

	if (p->pgid != o->pgid || p == o->ignore || p->zombie)
		return;
	if (process_is_stopped(p))
		o->stopped = true;
	// A parent in another group of the same session keeps the group
	// under job control; init does not count (as on Linux), nor a parent
	// that is exiting.
	if (parent && parent != o->ignore && parent->pid != 1 && parent->pgid != o->pgid &&
	    parent->sid == p->sid)
		o->orphaned = false;
}

bool pgrp_orphaned_locked(int pgid, struct process *ignore)
{
	struct orphan_search o = { pgid, ignore, true, false };

	process_for_each_locked(orphan_fn, &o);
	return o.orphaned;
}

// Is the current process's group orphaned?  No locks held.
bool jobctl_current_orphaned(void)
{
	struct process *p = current_process();
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	bool r = pgrp_orphaned_locked(p->pgid, 0);

	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return r;
}

// Group pgid just became orphaned because 'gone' left it or stopped being
// a parent: if it has a stopped member, nobody can continue it, so it gets
// SIGHUP and SIGCONT (POSIX).  proc_tree_lock held.
static void hangup_if_orphaned(int pgid, struct process *gone)
{
	struct orphan_search o = { pgid, gone, true, false };

	process_for_each_locked(orphan_fn, &o);
	if (o.orphaned && o.stopped) {
		signal_send_pgrp_locked(pgid, SIGHUP);
		signal_send_pgrp_locked(pgid, SIGCONT);
	}
}

// p is exiting (its children not yet given away): its own group and its
// children's groups may become orphaned.  proc_tree_lock held.
void jobctl_exit_orphans(struct process *p)
{
	struct process *parent = p->parent;

	if (parent && parent->pgid != p->pgid && parent->sid == p->sid)
		hangup_if_orphaned(p->pgid, p);
	for (struct process *c = p->children; c; c = c->sibling)
		if (c->pgid != p->pgid && c->sid == p->sid)
			hangup_if_orphaned(c->pgid, p);
}
