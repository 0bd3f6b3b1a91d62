// Scheduling syscalls: yield, affinity, policy queries, getcpu, and the
// per-thread registrations libc makes at start-up.

#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/sched.h>
#include <kernel/thread.h>
#include <kernel/uaccess.h>
#include <kernel/cpu.h>
#include <lib/string.h>
#include <uapi/errno.h>

#include <uapi/sched.h>

SYSCALL_DEFINE(SYS_sched_yield, sched_yield)
{
	(void)args;
	sched_yield();
	return 0;
}

// A thread of the caller's choosing: 0 means the caller.
static struct thread *target_thread(int tid)
{
	if (tid == 0)
		return current_thread();
	struct thread *t = thread_find(tid);
	return t && t->proc ? t : 0;
}

SYSCALL_DEFINE(SYS_sched_setaffinity, sched_setaffinity)
{
	uint64_t len = args->a[1];
	uint8_t bytes[sizeof(cpumask_t)] = { 0 };

	if (len == 0)
		return -EINVAL;
	if (copy_from_user(bytes, args->a[2], len < sizeof(bytes) ? len : sizeof(bytes)) < 0)
		return -EFAULT;
	cpumask_t mask;
	memcpy(&mask, bytes, sizeof(mask));
	struct thread *t = target_thread((int)args->a[0]);
	if (!t)
		return -ESRCH;
	if (!(mask & cpumask_online()))
		return -EINVAL;
	return sched_set_affinity(t, mask) < 0 ? -EINVAL : 0;
}

SYSCALL_DEFINE(SYS_sched_getaffinity, sched_getaffinity)
{
	uint64_t len = args->a[1];
	struct thread *t = target_thread((int)args->a[0]);

	if (!t)
		return -ESRCH;
	// Linux wants room for its whole mask (a multiple of 8 bytes).
	if (len < sizeof(cpumask_t) || (len & 7))
		return -EINVAL;
	cpumask_t mask = t->affinity & cpumask_online();
	if (copy_to_user(args->a[2], &mask, sizeof(mask)) < 0)
		return -EFAULT;
	return sizeof(mask);
}

SYSCALL_DEFINE(SYS_getcpu, getcpu)
{
	uint32_t cpu = (uint32_t)this_cpu()->id;

	if (args->a[0] && put_user_u32(args->a[0], cpu) < 0)
		return -EFAULT;
	if (args->a[1] && put_user_u32(args->a[1], 0) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE(SYS_sched_getscheduler, sched_getscheduler)
{
	if ((int)args->a[0] < 0)
		return -EINVAL;
	return target_thread((int)args->a[0]) ? SCHED_OTHER : -ESRCH;
}

// The sched_param of a set call, with Linux's checks before the lookup:
// no pointer or a negative pid is -EINVAL, a bad pointer -EFAULT.
static int get_sched_param(int pid, uint64_t uparam, int32_t *prio)
{
	uint32_t v;

	if (!uparam || pid < 0)
		return -EINVAL;
	if (get_user_u32(&v, uparam) < 0)
		return -EFAULT;
	*prio = (int32_t)v;
	return target_thread(pid) ? 0 : -ESRCH;
}

// Every thread runs SCHED_OTHER with priority 0, and only that can be set.
SYSCALL_DEFINE(SYS_sched_setscheduler, sched_setscheduler)
{
	int policy = (int)args->a[1];
	int32_t prio;
	int rc = get_sched_param((int)args->a[0], args->a[2], &prio);

	if (rc < 0)
		return rc;
	switch (policy) {
	case SCHED_OTHER:
		return prio == 0 ? 0 : -EINVAL;
	case SCHED_FIFO:
	case SCHED_RR:
		if (prio < 1 || prio > 99)
			return -EINVAL;
		// Not implemented: EPERM, which Linux also gives root when
		// real-time group scheduling leaves no runtime for it.
		return -EPERM;
	default:
		// SCHED_BATCH and SCHED_IDLE (not honoured: one policy for
		// all), SCHED_DEADLINE (sched_setattr only on Linux),
		// SCHED_RESET_ON_FORK (not kept) and unknown policies.
		return -EINVAL;
	}
}

SYSCALL_DEFINE(SYS_sched_getparam, sched_getparam)
{
	if (!args->a[1] || (int)args->a[0] < 0)
		return -EINVAL;
	if (!target_thread((int)args->a[0]))
		return -ESRCH;
	return put_user_u32(args->a[1], 0) < 0 ? -EFAULT : 0;
}

SYSCALL_DEFINE(SYS_sched_setparam, sched_setparam)
{
	int32_t prio;
	int rc = get_sched_param((int)args->a[0], args->a[1], &prio);

	if (rc < 0)
		return rc;
	return prio == 0 ? 0 : -EINVAL;		// SCHED_OTHER takes only 0
}

SYSCALL_DEFINE(SYS_sched_get_priority_max, sched_get_priority_max)
{
	int p = (int)args->a[0];
	if (p == SCHED_FIFO || p == SCHED_RR)
		return 99;
	return p == SCHED_OTHER || p == SCHED_BATCH || p == SCHED_IDLE || p == SCHED_DEADLINE ?
	       0 : -EINVAL;
}

SYSCALL_DEFINE(SYS_sched_get_priority_min, sched_get_priority_min)
{
	int p = (int)args->a[0];
	if (p == SCHED_FIFO || p == SCHED_RR)
		return 1;
	return p == SCHED_OTHER || p == SCHED_BATCH || p == SCHED_IDLE || p == SCHED_DEADLINE ?
	       0 : -EINVAL;
}

SYSCALL_DEFINE(SYS_sched_rr_get_interval, sched_rr_get_interval)
{
	int64_t ts[2] = { 0, SCHED_SLICE_TICKS * 10000000LL };

	if ((int)args->a[0] < 0)
		return -EINVAL;
	if (!target_thread((int)args->a[0]))
		return -ESRCH;
	return copy_to_user(args->a[1], ts, sizeof(ts)) < 0 ? -EFAULT : 0;
}

SYSCALL_DEFINE(SYS_set_tid_address, set_tid_address)
{
	current_thread()->clear_child_tid = args->a[0];
	return current_thread()->tid;
}

