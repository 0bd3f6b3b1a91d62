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

// Only root exists: setting any ID to 0 succeeds, anything else is EPERM
// would be Linux's answer for an unprivileged user; root may set anything,
// so accept and ignore.
SYSCALL_DEFINE(SYS_setuid, setuid) { (void)args; return 0; }
SYSCALL_DEFINE(SYS_setgid, setgid) { (void)args; return 0; }
SYSCALL_DEFINE(SYS_setreuid, setreuid) { (void)args; return 0; }
SYSCALL_DEFINE(SYS_setregid, setregid) { (void)args; return 0; }
SYSCALL_DEFINE(SYS_setresuid, setresuid) { (void)args; return 0; }
SYSCALL_DEFINE(SYS_setresgid, setresgid) { (void)args; return 0; }
SYSCALL_DEFINE(SYS_setgroups, setgroups) { (void)args; return 0; }
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
	else
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
