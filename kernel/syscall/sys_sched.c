// Scheduling syscalls: yield, affinity, getcpu, and the per-thread
// registrations libc makes at start-up (policies and priorities:
// kernel/syscall/sys_sched_attr.c).

#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/sched.h>
#include <kernel/thread.h>
#include <kernel/uaccess.h>
#include <kernel/cpu.h>
#include <kernel/cred.h>
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

static bool same_owner(struct thread *t);

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
	// Linux: another user's thread takes CAP_SYS_NICE.
	if (!same_owner(t) && !cred_capable(current_cred(), CAP_SYS_NICE))
		return -EPERM;
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

// ---- policies and priorities ----
//
// sched_setscheduler, sched_setparam and sched_setattr share Linux 6.1's
// __sched_setscheduler: its checks in its order, then the change
// (kernel/sched/sched.c moves the thread).  SCHED_DEADLINE has no class
// here: a request Linux would accept is refused as Linux refuses one it
// cannot admit (EBUSY, no bandwidth left); util clamps answer as Debian's
// 6.1 built without CONFIG_UCLAMP_TASK (EOPNOTSUPP).

#define SETPARAM_POLICY			(-1)
#define SCHED_FLAG_RESET_ON_FORK	0x01
#define SCHED_FLAG_KEEP_POLICY		0x08
#define SCHED_FLAG_KEEP_PARAMS		0x10
#define SCHED_FLAG_UTIL_CLAMP		0x60
#define SCHED_FLAG_ALL			0x7f
#define SCHED_FLAG_SUGOV		0x10000000
#define SCHED_ATTR_SIZE_VER0		48
#define SCHED_ATTR_SIZE_VER1		56
#define SCHED_ATTR_SIZE_MAX		4096	// Linux: PAGE_SIZE
#define RLIMIT_NICE			13
#define RLIMIT_RTPRIO			14
#define DL_PERIOD_MIN_NS		100000ULL		// sched_dl_period_min_us
#define DL_PERIOD_MAX_NS		(4194304ULL * 1000)	// sched_dl_period_max_us

struct sched_attr {
	uint32_t size;
	uint32_t policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};

_Static_assert(sizeof(struct sched_attr) == SCHED_ATTR_SIZE_VER1, "sched_attr is Linux's");

static bool rt_policy(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static bool fair_policy(int policy)
{
	return policy == SCHED_OTHER || policy == SCHED_BATCH;
}

static uint64_t rlimit_cur(struct thread *t, int r)
{
	return t->proc ? t->proc->rlimits[r].cur : ~0ULL;
}

// Linux's is_nice_reduction: RLIMIT_NICE allows nice values down to
// 20 - limit.
static bool nice_allowed(struct thread *t, int nice)
{
	return (uint64_t)(20 - nice) <= rlimit_cur(t, RLIMIT_NICE);
}

// Linux's check_same_owner: the caller's euid is t's euid or uid.
static bool same_owner(struct thread *t)
{
	const struct cred *me = current_cred();
	struct cred *tc = cred_of_thread(t);
	bool same = me->euid == tc->euid || me->euid == tc->uid;

	cred_put(tc);
	return same;
}

// Linux's __checkparam_dl.
static bool dl_params_ok(const struct sched_attr *a)
{
	uint64_t period = a->period ? a->period : a->deadline;

	if (a->flags & SCHED_FLAG_SUGOV)
		return true;
	if (!a->deadline || a->runtime < 1024 || ((a->deadline | a->period) >> 63))
		return false;
	if (period < a->deadline || a->deadline < a->runtime)
		return false;
	return period >= DL_PERIOD_MIN_NS && period <= DL_PERIOD_MAX_NS;
}

// Linux's user_check_sched_setscheduler: what an unprivileged caller may
// do; anything else needs CAP_SYS_NICE.
static int user_check(struct thread *t, const struct sched_attr *a, int policy, bool reset)
{
	bool priv = false;

	if (fair_policy(policy) && a->nice < t->nice && !nice_allowed(t, a->nice))
		priv = true;
	if (rt_policy(policy)) {
		uint64_t lim = rlimit_cur(t, RLIMIT_RTPRIO);
		if (policy != t->policy && !lim)
			priv = true;
		if (a->priority > t->rt_prio && a->priority > lim)
			priv = true;
	}
	if (policy == SCHED_DEADLINE)
		priv = true;
	// SCHED_IDLE counts as nice 20: leaving it must be a nice RLIMIT_NICE allows.
	if (t->policy == SCHED_IDLE && policy != SCHED_IDLE && !nice_allowed(t, t->nice))
		priv = true;
	if (!same_owner(t) || (t->reset_on_fork && !reset))
		priv = true;
	return priv && !cred_capable(current_cred(), CAP_SYS_NICE) ? -EPERM : 0;
}

static long set_sched(struct thread *t, const struct sched_attr *a, int policy)
{
	bool reset;
	int rc;

	if (policy == SETPARAM_POLICY) {
		reset = t->reset_on_fork;
		policy = t->policy;
	} else {
		reset = a->flags & SCHED_FLAG_RESET_ON_FORK;
		if (!fair_policy(policy) && !rt_policy(policy) && policy != SCHED_IDLE &&
		    policy != SCHED_DEADLINE)
			return -EINVAL;
	}
	if (a->flags & ~(uint64_t)(SCHED_FLAG_ALL | SCHED_FLAG_SUGOV))
		return -EINVAL;
	if (a->priority > RT_PRIO_LEVELS - 1)
		return -EINVAL;
	if ((policy == SCHED_DEADLINE && !dl_params_ok(a)) ||
	    rt_policy(policy) != (a->priority != 0))
		return -EINVAL;
	if ((rc = user_check(t, a, policy, reset)) < 0)
		return rc;
	if (a->flags & SCHED_FLAG_SUGOV)
		return -EINVAL;
	if (a->flags & SCHED_FLAG_UTIL_CLAMP)
		return -EOPNOTSUPP;
	if (policy == SCHED_DEADLINE) {
		// Linux wants the affinity to span the root domain, then
		// bandwidth to admit the task.
		cpumask_t all = cpumask_online();
		return (t->affinity & all) != all ? -EPERM : -EBUSY;
	}
	// KEEP_PARAMS: Linux applies none of the parameters, the policy
	// included; only the reset-on-fork flag is stored.
	if (a->flags & SCHED_FLAG_KEEP_PARAMS)
		sched_set_params(t, t->policy, t->rt_prio, t->nice, reset);
	else
		sched_set_params(t, policy, (int)a->priority,
				 fair_policy(policy) ? a->nice : t->nice, reset);
	return 0;
}

// sched_setscheduler and sched_setparam: a struct sched_param, and the
// policy may carry SCHED_RESET_ON_FORK.
static long do_setscheduler(int pid, int policy, uint64_t uparam)
{
	uint32_t prio;
	struct thread *t;

	if (!uparam || pid < 0)
		return -EINVAL;
	if (get_user_u32(&prio, uparam) < 0)
		return -EFAULT;
	if (!(t = target_thread(pid)))
		return -ESRCH;
	struct sched_attr a = { .policy = (uint32_t)policy, .priority = prio, .nice = t->nice };
	if (policy != SETPARAM_POLICY && (policy & SCHED_RESET_ON_FORK)) {
		a.flags |= SCHED_FLAG_RESET_ON_FORK;
		policy &= ~SCHED_RESET_ON_FORK;
	}
	return set_sched(t, &a, policy);
}

SYSCALL_DEFINE(SYS_sched_setscheduler, sched_setscheduler)
{
	int policy = (int)args->a[1];

	return policy < 0 ? -EINVAL : do_setscheduler((int)args->a[0], policy, args->a[2]);
}

SYSCALL_DEFINE(SYS_sched_setparam, sched_setparam)
{
	return do_setscheduler((int)args->a[0], SETPARAM_POLICY, args->a[1]);
}

// Are the bytes of [uaddr, uaddr+n) all zero?  1 yes, 0 no, -EFAULT.
static int user_zeroed(uint64_t uaddr, size_t n)
{
	uint8_t buf[64];

	while (n) {
		size_t k = n < sizeof(buf) ? n : sizeof(buf);
		if (copy_from_user(buf, uaddr, k) < 0)
			return -EFAULT;
		for (size_t i = 0; i < k; i++)
			if (buf[i])
				return 0;
		uaddr += k;
		n -= k;
	}
	return 1;
}

// Linux's sched_copy_attr: size 0 means the first version; a size out of
// range, or a larger struct with non-zero bytes past ours, is E2BIG with
// our size written back.
static long copy_attr(uint64_t uattr, struct sched_attr *a)
{
	uint32_t size;
	int z = 1;

	memset(a, 0, sizeof(*a));
	if (get_user_u32(&size, uattr) < 0)
		return -EFAULT;
	if (!size)
		size = SCHED_ATTR_SIZE_VER0;
	if (size < SCHED_ATTR_SIZE_VER0 || size > SCHED_ATTR_SIZE_MAX)
		goto too_big;
	if (size > sizeof(*a) && (z = user_zeroed(uattr + sizeof(*a), size - sizeof(*a))) < 0)
		return z;
	if (!z)
		goto too_big;
	if (copy_from_user(a, uattr, size < sizeof(*a) ? size : sizeof(*a)) < 0)
		return -EFAULT;
	if ((a->flags & SCHED_FLAG_UTIL_CLAMP) && size < SCHED_ATTR_SIZE_VER1)
		return -EINVAL;
	a->nice = a->nice < -20 ? -20 : a->nice > 19 ? 19 : a->nice;
	return 0;
too_big:
	put_user_u32(uattr, sizeof(*a));
	return -E2BIG;
}

SYSCALL_DEFINE(SYS_sched_setattr, sched_setattr)
{
	int pid = (int)args->a[0];
	struct sched_attr a;
	struct thread *t;
	long rc;

	if (!args->a[1] || pid < 0 || (uint32_t)args->a[2])
		return -EINVAL;
	if ((rc = copy_attr(args->a[1], &a)) < 0)
		return rc;
	if ((int)a.policy < 0)
		return -EINVAL;
	int policy = a.flags & SCHED_FLAG_KEEP_POLICY ? SETPARAM_POLICY : (int)a.policy;
	if (!(t = target_thread(pid)))
		return -ESRCH;
	if (a.flags & SCHED_FLAG_KEEP_PARAMS) {
		if (rt_policy(t->policy))
			a.priority = t->rt_prio;
		else
			a.nice = t->nice;
	}
	return set_sched(t, &a, policy);
}

SYSCALL_DEFINE(SYS_sched_getattr, sched_getattr)
{
	int pid = (int)args->a[0];
	uint32_t usize = (uint32_t)args->a[2];
	struct sched_attr k = { 0 };
	struct thread *t;

	if (!args->a[1] || pid < 0 || usize > SCHED_ATTR_SIZE_MAX ||
	    usize < SCHED_ATTR_SIZE_VER0 || (uint32_t)args->a[3])
		return -EINVAL;
	if (!(t = target_thread(pid)))
		return -ESRCH;
	k.policy = t->policy;
	k.flags = t->reset_on_fork ? SCHED_FLAG_RESET_ON_FORK : 0;
	if (rt_policy(t->policy))
		k.priority = t->rt_prio;
	else
		k.nice = t->nice;
	// A larger struct is a newer ABI: size says how much is ours.
	k.size = usize < sizeof(k) ? usize : sizeof(k);
	if (!user_range_ok(args->a[1], usize))
		return -EFAULT;
	return copy_to_user(args->a[1], &k, k.size) < 0 ? -EFAULT : 0;
}

SYSCALL_DEFINE(SYS_sched_getscheduler, sched_getscheduler)
{
	struct thread *t;

	if ((int)args->a[0] < 0)
		return -EINVAL;
	if (!(t = target_thread((int)args->a[0])))
		return -ESRCH;
	return t->policy | (t->reset_on_fork ? SCHED_RESET_ON_FORK : 0);
}

SYSCALL_DEFINE(SYS_sched_getparam, sched_getparam)
{
	struct thread *t;

	if (!args->a[1] || (int)args->a[0] < 0)
		return -EINVAL;
	if (!(t = target_thread((int)args->a[0])))
		return -ESRCH;
	uint32_t prio = rt_policy(t->policy) ? t->rt_prio : 0;
	return put_user_u32(args->a[1], prio) < 0 ? -EFAULT : 0;
}

SYSCALL_DEFINE(SYS_sched_get_priority_max, sched_get_priority_max)
{
	int p = (int)args->a[0];
	if (rt_policy(p))
		return RT_PRIO_LEVELS - 1;
	return fair_policy(p) || p == SCHED_IDLE || p == SCHED_DEADLINE ? 0 : -EINVAL;
}

SYSCALL_DEFINE(SYS_sched_get_priority_min, sched_get_priority_min)
{
	int p = (int)args->a[0];
	if (rt_policy(p))
		return 1;
	return fair_policy(p) || p == SCHED_IDLE || p == SCHED_DEADLINE ? 0 : -EINVAL;
}

SYSCALL_DEFINE(SYS_sched_rr_get_interval, sched_rr_get_interval)
{
	struct thread *t;

	if ((int)args->a[0] < 0)
		return -EINVAL;
	if (!(t = target_thread((int)args->a[0])))
		return -ESRCH;
	uint64_t ns = sched_rr_interval_ns(t);
	int64_t ts[2] = { (int64_t)(ns / 1000000000ULL), (int64_t)(ns % 1000000000ULL) };
	return copy_to_user(args->a[1], ts, sizeof(ts)) < 0 ? -EFAULT : 0;
}

SYSCALL_DEFINE(SYS_set_tid_address, set_tid_address)
{
	current_thread()->clear_child_tid = args->a[0];
	return current_thread()->tid;
}
