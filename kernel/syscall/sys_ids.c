// Identity syscalls: process and thread IDs, users (everyone is root).
// Process groups and sessions: kernel/proc/session.c.

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
