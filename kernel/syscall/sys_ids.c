// Identity syscalls: process and thread IDs, process groups and sessions.

#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/uaccess.h>
#include <uapi/errno.h>

SYSCALL_DEFINE(SYS_getpid, getpid)
{
	(void)args;
	return current_process()->pid;
}

SYSCALL_DEFINE(SYS_getppid, getppid)
{
	(void)args;
	struct process *parent = current_process()->parent;
	return parent ? parent->pid : 0;
}

SYSCALL_DEFINE(SYS_gettid, gettid)
{
	(void)args;
	return current_thread()->tid;
}

// User and group IDs live in kernel/proc/cred.c.

static struct process *process_or_self(int pid)
{
	return pid == 0 ? current_process() : process_find(pid);
}

SYSCALL_DEFINE(SYS_getpgid, getpgid)
{
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = process_or_self((int)args->a[0]);
	long r = p ? p->pgid : -ESRCH;
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return r;
}

SYSCALL_DEFINE(SYS_getpgrp, getpgrp)
{
	(void)args;
	return current_process()->pgid;
}

SYSCALL_DEFINE(SYS_getsid, getsid)
{
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = process_or_self((int)args->a[0]);
	long r = p ? p->sid : -ESRCH;
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return r;
}

struct group_search {
	int pgid, sid;
	bool found;
};

static void group_search_fn(struct process *p, void *arg)
{
	struct group_search *g = arg;

	if (p->pgid == g->pgid && p->sid == g->sid)	// zombies count, as on Linux
		g->found = true;
}

SYSCALL_DEFINE(SYS_setpgid, setpgid)
{
	int pid = (int)args->a[0], pgid = (int)args->a[1];
	struct process *me = current_process();

	if (pgid < 0)
		return -EINVAL;
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = process_or_self(pid);
	long r = 0;
	if (!p || (p != me && p->parent != me))
		r = -ESRCH;
	else if (p->sid != me->sid || p->pid == p->sid)
		r = -EPERM;
	if (r == 0 && pgid && pgid != p->pid) {
		// Joining a group: it must exist in the caller's session.
		struct group_search g = { pgid, me->sid, false };

		process_for_each_locked(group_search_fn, &g);
		if (!g.found)
			r = -EPERM;
	}
	if (r == 0)
		p->pgid = pgid ? pgid : p->pid;
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return r;
}

SYSCALL_DEFINE(SYS_setsid, setsid)
{
	(void)args;
	struct process *me = current_process();

	if (me->pgid == me->pid)
		return -EPERM;		// already a group leader
	me->sid = me->pgid = me->pid;
	return me->sid;
}
