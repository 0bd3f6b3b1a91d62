// Identity syscalls: process and thread IDs.  User and group IDs:
// kernel/proc/cred.c; process groups and sessions: kernel/proc/session.c.

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
