// Identity syscalls: process and thread IDs, users (everyone is root),
// process groups and sessions.

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

SYSCALL_DEFINE(SYS_getuid, getuid) { (void)args; return 0; }
SYSCALL_DEFINE(SYS_geteuid, geteuid) { (void)args; return 0; }
SYSCALL_DEFINE(SYS_getgid, getgid) { (void)args; return 0; }
SYSCALL_DEFINE(SYS_getegid, getegid) { (void)args; return 0; }

// Only root exists, as in a user namespace that maps ID 0 alone: setting
// an ID to 0 (or leaving it, -1, where the call allows) succeeds, and any
// other ID is EINVAL, Linux's answer for an ID without a mapping.  A
// program that drops privileges thus learns that it did not.
static long ids_root(struct syscall_args *args, int n, bool keep_ok)
{
	for (int i = 0; i < n; i++) {
		uint32_t id = (uint32_t)args->a[i];

		if (id != 0 && !(keep_ok && id == (uint32_t)-1))
			return -EINVAL;
	}
	return 0;
}

SYSCALL_DEFINE(SYS_setuid, setuid) { return ids_root(args, 1, false); }
SYSCALL_DEFINE(SYS_setgid, setgid) { return ids_root(args, 1, false); }
SYSCALL_DEFINE(SYS_setreuid, setreuid) { return ids_root(args, 2, true); }
SYSCALL_DEFINE(SYS_setregid, setregid) { return ids_root(args, 2, true); }
SYSCALL_DEFINE(SYS_setresuid, setresuid) { return ids_root(args, 3, true); }
SYSCALL_DEFINE(SYS_setresgid, setresgid) { return ids_root(args, 3, true); }

#define NGROUPS_MAX 65536

// The supplementary group list is always empty: emptying it is exact,
// filling it is refused as in a user namespace that denies setgroups.
SYSCALL_DEFINE(SYS_setgroups, setgroups)
{
	if ((uint32_t)args->a[0] > NGROUPS_MAX)
		return -EINVAL;
	return (int)args->a[0] == 0 ? 0 : -EPERM;
}

// These return the old ID and never fail; Linux leaves the ID unchanged
// for one without a mapping, so the answer is always 0.
SYSCALL_DEFINE(SYS_setfsuid, setfsuid) { (void)args; return 0; }
SYSCALL_DEFINE(SYS_setfsgid, setfsgid) { (void)args; return 0; }

static long get_three_zeros(struct syscall_args *args)
{
	for (int i = 0; i < 3; i++)
		if (put_user_u32(args->a[i], 0) < 0)
			return -EFAULT;
	return 0;
}

SYSCALL_DEFINE(SYS_getresuid, getresuid) { return get_three_zeros(args); }
SYSCALL_DEFINE(SYS_getresgid, getresgid) { return get_three_zeros(args); }

SYSCALL_DEFINE(SYS_getgroups, getgroups)
{
	if ((int)args->a[0] < 0)
		return -EINVAL;
	return 0;
}

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
