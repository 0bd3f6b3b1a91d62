// Ending threads and processes, and waiting for children.

#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/thread.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <kernel/futex.h>
#include <kernel/facility.h>
#include <kernel/membarrier.h>
#include <arch/irq.h>
#include <kernel/vm.h>
#include <kernel/console.h>
#include <kernel/power.h>
#include <kernel/panic.h>
#include <mm/kmalloc.h>
#include <fs/file.h>
#include <fs/poll.h>
#include <kernel/pidfd.h>
#include <kernel/ipc.h>
#include <fs/vfs.h>
#include <uapi/errno.h>
#include <uapi/sched.h>

static bool wstatus_signaled(int st)	{ return (st & 0x7f) != 0; }

// SIGCHLD's and waitid's si_code and si_status for a wait status.
static int wstatus_code(int st)
{
	if (!wstatus_signaled(st))
		return CLD_EXITED;
	return (st & 0x80) ? CLD_DUMPED : CLD_KILLED;
}

static int wstatus_si_status(int st)
{
	return wstatus_signaled(st) ? (st & 0x7f) : (st >> 8) & 0xff;
}

// The parent does not want p as a zombie: SIGCHLD ignored or SA_NOCLDWAIT.
// As on Linux this applies only to children that report with SIGCHLD.
static bool parent_autoreaps(struct process *parent, struct process *p)
{
	struct k_sigaction *a = &parent->sighand->action[SIGCHLD];
	return p->exit_signal == SIGCHLD && (a->handler == SIG_IGN || (a->flags & SA_NOCLDWAIT));
}

// Gives every child of p to init, or to the nearest child subreaper
// above p (PR_SET_CHILD_SUBREAPER).  proc_tree_lock held.
static void reparent_children_locked(struct process *p)
{
	struct process *init = process_child_reaper_locked(p);

	while (p->children) {
		struct process *c = p->children;
		p->children = c->sibling;
		c->sibling = 0;
		if (!init || init == p) {
			c->parent = 0;
			continue;
		}
		// The new parent hears of it by SIGCHLD and waits for it as a
		// plain child, whatever the exit signal was (Linux's
		// reparent_leader: "we don't want people slaying init").
		c->exit_signal = SIGCHLD;
		process_link_child_locked(init, c);
		if (c->zombie)
			wq_wake_all(&init->child_wait);
	}
}

// The vfork child t exec'd or is exiting: its parent may go on.
void vfork_release(struct thread *t)
{
	// Only t sets its pointer and only t or its waiter clears it: if t
	// sees none, none can appear.
	if (!__atomic_load_n(&t->vfork_done, __ATOMIC_ACQUIRE))
		return;
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	struct vfork_done *vd = t->vfork_done;

	t->vfork_done = 0;
	if (vd) {
		vd->done = true;
		wq_wake_all(&vd->wq);
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
}

// Waits until the vfork child (a new process, or a thread with
// CLONE_THREAD) execs or exits.  Killable, as on Linux: the child borrows
// our memory, but holds its own reference to it, so a killed parent may
// go; it must then no longer tell 'vd', which lives on our stack.
void vfork_wait(struct thread *child, struct vfork_done *vd)
{
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);

	while (!vd->done) {
		if (wq_wait_killable(&vd->wq, &proc_tree_lock, WAIT_FOREVER) < 0)
			break;
	}
	// Not done: the child has not passed vfork_release, so it still exists.
	if (!vd->done)
		child->vfork_done = 0;
	spin_unlock_irqrestore(&proc_tree_lock, flags);
}

// Frees a process that never ran (clone failed half-way); any of its
// resources may be missing.  The signal handlers go with the process
// itself (process_free_locked).
void process_discard(struct process *p)
{
	if (p->mm)
		mm_put(p->mm);
	if (p->fdt)
		fdtable_put(p->fdt);
	fs_view_put(p->fs);
	sem_exit(p);
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	process_free_locked(p);
	spin_unlock_irqrestore(&proc_tree_lock, flags);
}

static __attribute__((noreturn)) void init_died(int status)
{
	if (wstatus_signaled(status)) {
		kprintf("switchyard: init killed by signal %d\n", status & 0x7f);
		arch_machine_exit(128 + (status & 0x7f));
	}
	kprintf("switchyard: init exited with status %d\n", (status >> 8) & 0xff);
	arch_machine_exit((status >> 8) & 0xff);
}

// The last thread of p is gone: release its resources, become a zombie
// and tell the parent.
static void process_finish(struct process *p)
{
	struct mm *mm = p->mm;
	struct fdtable *fdt = p->fdt;

	itimer_cancel(p);
	posix_timers_exit(p);
	acct_process_exit(p, mm, p->exit_status);
	// The table and the address space leave p under p->lock, where /proc
	// takes its references to them.  Closing files may sleep: done
	// before this thread leaves its address space.
	uint64_t pl = spin_lock_irqsave(&p->lock);
	p->fdt = 0;
	spin_unlock_irqrestore(&p->lock, pl);
	fdtable_put(fdt);
	fs_view_drop(p);
	sem_exit(p);		// SEM_UNDO: the adjustments are applied
	// The signal handlers stay until the zombie is reaped: the parent may
	// look at them (autoreap) and late signals may still name p.

	// Off this address space before dropping it.
	arch_mm_deactivate_current();
	acct_mm_peak(p, mm->rss_peak);
	pl = spin_lock_irqsave(&p->lock);
	p->mm = 0;
	spin_unlock_irqrestore(&p->lock, pl);
	mm_put(mm);

	if (p->pid == 1)
		init_died(p->exit_status);

	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	session_leader_exit(p);
	jobctl_exit_orphans(p);
	reparent_children_locked(p);
	struct process *parent = p->parent;
	if (!parent) {
		p->zombie = true;
		spin_unlock_irqrestore(&proc_tree_lock, flags);
		poll_notify();		// pidfds of p are readable now
		return;
	}
	// The exit signal goes even to a parent that reaps automatically
	// (a handler with SA_NOCLDWAIT runs; SIG_IGN drops it).
	if (p->exit_signal) {
		struct ksiginfo info = {
			.signo = p->exit_signal, .pid = p->pid,
			.code = wstatus_code(p->exit_status),
			.status = wstatus_si_status(p->exit_status),
		};
		signal_send_process(parent, p->exit_signal, &info);
	}
	if (parent_autoreaps(parent, p)) {
		process_unlink_child_locked(p);
		process_free_locked(p);
	} else {
		p->zombie = true;
	}
	// Either way a wait() in the parent must look again: for this zombie,
	// or (autoreaped) to find it has no children left and fail with ECHILD.
	wq_wake_all(&parent->child_wait);
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	poll_notify();		// pidfds of p are readable now
}

// Ends the current thread; the process ends with it if it was the last.
void thread_exit_user(int wait_status, bool group)
{
	struct thread *t = current_thread();
	struct process *p = t->proc;

	if (group)
		process_kill_others(p, wait_status);
	// No CPU may keep this thread's registers to save later.
	fac_thread_exit(t);
	// Its concurrency id goes back before its address space can.
	rseq_thread_exit(t);
	// Locks this thread still holds die with it (robust futexes).
	futex_release_robust_list(t);
	// CLONE_CHILD_CLEARTID: tell a joiner we are gone.
	if (t->clear_child_tid && p->nthreads > 1) {
		put_user_u32(t->clear_child_tid, 0);
		futex_wake_current(t->clear_child_tid, 1);
	}
	vfork_release(t);

	uint64_t flags = spin_lock_irqsave(&p->lock);
	for (struct thread **pp = &p->threads; *pp; pp = &(*pp)->proc_next) {
		if (*pp == t) {
			*pp = t->proc_next;
			break;
		}
	}
	acct_thread_exit(p, t);
	bool last = --p->nthreads == 0;
	if (!p->exiting && last)
		p->exit_status = wait_status;
	spin_unlock_irqrestore(&p->lock, flags);
	// Off the list, so nobody looks at them any more (closing may sleep).
	thread_tables_release(t);
	prctl_thread_exit(p, t, last);
	tid_free(t->tid);
	futex_owner_exited(t);
	flags = sighand_lock(p);
	sigqueue_free_all(&t->sig_queue);
	spin_unlock_irqrestore(&p->sighand->lock, flags);
	// No more user accesses from this thread: membarrier callers may skip
	// this CPU from now on (and must, once the address space is freed).
	flags = irq_save();
	membarrier_switch_mm(0);
	irq_restore(flags);
	if (last)
		process_finish(p);
	else
		jobctl_thread_gone(p);	// the others may all be stopped now
	t->proc = 0;
	t->mm = 0;
	sched_exit_current();
}

// exit_group: every other thread must die too.  They notice p->exiting on
// their way back to user space; sleeping ones are woken.
void process_kill_others(struct process *p, int wait_status)
{
	uint64_t flags = spin_lock_irqsave(&p->lock);

	if (!p->exiting) {
		p->exiting = true;
		p->exit_status = wait_status;
	}
	for (struct thread *o = p->threads; o; o = o->proc_next) {
		thread_work_set(o, WORK_SIGNAL);	// the exit, at its next return
		if (o == current_thread())
			continue;
		o->exiting = true;
		// A thread running user code elsewhere sees its exit only on
		// its next way into the kernel: an IPI makes that now (a
		// spinning thread on a CPU without a tick never would).
		signal_kick(o);
	}
	spin_unlock_irqrestore(&p->lock, flags);
}

void process_exit_group(int wait_status)
{
	thread_exit_user(wait_status, true);
}

SYSCALL_DEFINE(SYS_exit, exit)
{
	thread_exit_user(((int)args->a[0] & 0xff) << 8, false);
}

SYSCALL_DEFINE(SYS_exit_group, exit_group)
{
	thread_exit_user(((int)args->a[0] & 0xff) << 8, true);
}

// Which children a wait is for: waitid's idtype and id (wait4's pid
// turned into them; P_PGID 0 is the caller's group).
struct wait_who {
	int idtype, id;
};

// Linux's eligible_child: with __WNOTHREAD only the children the
// calling thread made; unless __WALL, only the "clone" children (another
// exit signal than SIGCHLD, or none) with __WCLONE, only the others
// without it.
static bool wait_eligible(const struct process *c, int options)
{
	if ((options & __WNOTHREAD) && c->parent_tid != current_thread()->tid)
		return false;
	if (options & __WALL)
		return true;
	return (c->exit_signal != SIGCHLD) == ((options & __WCLONE) != 0);
}

static bool wait_matches(struct process *p, struct process *c, struct wait_who who)
{
	if (who.idtype == P_PID)
		return c->pid == who.id;
	if (who.idtype == P_PGID)
		return c->pgid == (who.id ? who.id : p->pgid);
	return true;
}

struct wait_result {
	int pid;
	int status;
	int code;	// CLD_*
	struct acct_totals usage;	// the child's times and its children's
};

// Finds a child matching 'pid' with something to report that 'options'
// ask for: an exit (a zombie, reaped unless WNOWAIT), a stop or a
// continue.  Returns its pid, 0 if matching children exist but none has a
// report, -ECHILD.
static int reap_locked(struct process *p, struct wait_who who, int options, struct wait_result *r)
{
	bool any = false, keep = options & WNOWAIT;

	for (struct process *c = p->children; c; c = c->sibling) {
		if (!wait_matches(p, c, who) || !wait_eligible(c, options))
			continue;
		any = true;
		if (!c->zombie) {
			r->code = jobctl_wait_report(c, options & WUNTRACED, options & WCONTINUED,
						     keep, &r->status);
			if (r->code) {
				r->pid = c->pid;
				return r->pid;
			}
			continue;
		}
		if (!(options & WEXITED))
			continue;
		r->pid = c->pid;
		r->status = c->exit_status;
		r->code = wstatus_code(c->exit_status);
		acct_zombie_totals(c, &r->usage);
		if (!keep) {
			acct_reap(p, c);
			process_unlink_child_locked(c);
			process_free_locked(c);
		}
		return r->pid;
	}
	return any ? 0 : -ECHILD;
}

static int do_wait(struct wait_who who, int options, struct wait_result *r)
{
	struct process *p = current_process();
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	int ret;

	for (;;) {
		ret = reap_locked(p, who, options, r);
		if (ret != 0 || (options & WNOHANG))
			break;
		int err = wq_wait(&p->child_wait, &proc_tree_lock, WAIT_FOREVER, true);
		if (err) {
			ret = -ERESTARTSYS;
			break;
		}
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return ret;
}

SYSCALL_DEFINE(SYS_wait4, wait4)
{
	int pid = (int)args->a[0];
	uint64_t ustatus = args->a[1];
	int options = (int)args->a[2];
	struct wait_result r = { 0 };	// a stop or continue report leaves usage zero

	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL))
		return -EINVAL;
	if (pid == -2147483647 - 1)
		return -ESRCH;
	struct wait_who who = { P_ALL, 0 };
	if (pid > 0)
		who = (struct wait_who){ P_PID, pid };
	else if (pid == 0 || pid < -1)
		who = (struct wait_who){ P_PGID, -pid };
	int ret = do_wait(who, options | WEXITED, &r);
	if (ret > 0 && ustatus && put_user_u32(ustatus, (uint32_t)r.status) < 0)
		return -EFAULT;
	if (ret > 0 && args->a[3] && acct_put_rusage(args->a[3], &r.usage) < 0)
		return -EFAULT;
	return ret;
}

SYSCALL_DEFINE(SYS_waitid, waitid)
{
	int idtype = (int)args->a[0];
	int id = (int)args->a[1];
	uint64_t uinfo = args->a[2];
	int options = (int)args->a[3];
	struct wait_result r = { 0 };	// a stop or continue report leaves usage zero
	bool nonblocking_pidfd = false;

	if (!(options & (WEXITED | WUNTRACED | WCONTINUED)) ||
	    (options & ~(WNOHANG | WEXITED | WUNTRACED | WCONTINUED | WNOWAIT | __WNOTHREAD | __WCLONE |
			 __WALL)))
		return -EINVAL;
	switch (idtype) {
	case P_ALL: break;
	case P_PID: if (id <= 0) return -EINVAL; break;
	case P_PGID: if (id < 0) return -EINVAL; break;
	case P_PIDFD:
		// The child the pidfd names, waited for as P_PID.
		if (id < 0)
			return -EINVAL;
		int rc = pidfd_wait_target(id, &id, &nonblocking_pidfd);
		if (rc < 0)
			return rc;
		idtype = P_PID;
		break;
	default: return -EINVAL;
	}
	// As Linux: a non-blocking pidfd makes the wait WNOHANG, and nothing
	// to report is then EAGAIN unless the caller asked for WNOHANG.
	int ret = do_wait((struct wait_who){ idtype, id }, options | (nonblocking_pidfd ? WNOHANG : 0),
			  &r);
	if (ret == 0 && nonblocking_pidfd && !(options & WNOHANG))
		ret = -EAGAIN;
	if (ret < 0)
		return ret;
	// The fifth argument, a struct rusage, as Linux: only for a child found.
	if (ret > 0 && args->a[4] && acct_put_rusage(args->a[4], &r.usage) < 0)
		return -EFAULT;
	if (uinfo) {
		struct user_siginfo si = { 0 };
		if (ret > 0) {
			si.si_signo = SIGCHLD;
			si.si_code = r.code;
			si.u.kill.pid = r.pid;
			si.u.kill.uid = 0;
			if (r.code == CLD_STOPPED)
				si.u.kill.status = (r.status >> 8) & 0xff;
			else if (r.code == CLD_CONTINUED)
				si.u.kill.status = SIGCONT;
			else
				si.u.kill.status = wstatus_si_status(r.status);
		}
		if (copy_to_user(uinfo, &si, sizeof(si)) < 0)
			return -EFAULT;
	}
	return 0;
}
