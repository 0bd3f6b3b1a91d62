// getpriority and setpriority, as Linux 6.1's kernel/sys.c: nice values
// of one thread, a process group's threads or a user's threads.  The raw
// getpriority returns 20 - nice (1..40), so that no value looks like an
// error; libc turns it back.  (x86-64 has no nice(2): libc's nice() is
// setpriority.)

#include <kernel/syscall.h>
#include <kernel/thread.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/cred.h>
#include <kernel/sched.h>
#include <uapi/errno.h>

#define PRIO_PROCESS	0
#define PRIO_PGRP	1
#define PRIO_USER	2
#define RLIMIT_NICE	13

struct prio_target {
	int which, who, pgid;
	uint32_t uid;
	bool set;
	int nice;
	long ret;		// -ESRCH until a thread is found
};

// Linux's set_one_prio_perm: t's uid or euid is the caller's euid, or
// the caller has CAP_SYS_NICE.
static bool may_set(struct thread *t)
{
	const struct cred *me = current_cred();
	struct cred *tc = cred_of_thread(t);
	bool ok = tc->uid == me->euid || tc->euid == me->euid;

	cred_put(tc);
	return ok || cred_capable(me, CAP_SYS_NICE);
}

// Linux's can_nice: lowering nice below what RLIMIT_NICE allows needs
// CAP_SYS_NICE.
static bool may_lower(struct thread *t, int nice)
{
	uint64_t lim = t->proc ? t->proc->rlimits[RLIMIT_NICE].cur : ~0ULL;

	return (uint64_t)(20 - nice) <= lim || cred_capable(current_cred(), CAP_SYS_NICE);
}

// One thread: a query keeps the highest 20 - nice; a change gives its
// error, which later successes do not clear (as Linux's set_one_prio).
static void visit_thread(struct prio_target *tg, struct thread *t)
{
	if (!tg->set) {
		long v = 20 - t->nice;
		if (v > tg->ret)
			tg->ret = v;
		return;
	}
	if (!may_set(t)) {
		tg->ret = -EPERM;
		return;
	}
	if (tg->nice < t->nice && !may_lower(t, tg->nice)) {
		tg->ret = -EACCES;
		return;
	}
	if (tg->ret == -ESRCH)
		tg->ret = 0;
	if (tg->nice != t->nice)
		sched_set_params(t, t->policy, t->rt_prio, tg->nice, t->reset_on_fork);
}

static uint32_t thread_uid(struct thread *t)
{
	struct cred *c = cred_of_thread(t);
	uint32_t uid = c->uid;

	cred_put(c);
	return uid;
}

static void visit_process(struct process *p, void *arg)
{
	struct prio_target *tg = arg;

	if (tg->which == PRIO_PGRP && p->pgid != tg->pgid)
		return;
	uint64_t flags = spin_lock_irqsave(&p->lock);
	for (struct thread *t = p->threads; t; t = t->proc_next)
		if (tg->which != PRIO_USER || thread_uid(t) == tg->uid)
			visit_thread(tg, t);
	spin_unlock_irqrestore(&p->lock, flags);
}

static long for_targets(struct prio_target *tg)
{
	struct thread *me = current_thread();

	if (tg->which < PRIO_PROCESS || tg->which > PRIO_USER)
		return -EINVAL;
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	tg->ret = -ESRCH;
	switch (tg->which) {
	case PRIO_PROCESS: {
		struct thread *t = tg->who ? thread_find(tg->who) : me;
		if (t && t->proc)
			visit_thread(tg, t);
		break;
	}
	case PRIO_PGRP:
		tg->pgid = tg->who ? tg->who : me->proc->pgid;
		process_for_each_locked(visit_process, tg);
		break;
	case PRIO_USER:
		tg->uid = tg->who ? (uint32_t)tg->who : current_cred()->uid;
		process_for_each_locked(visit_process, tg);
		break;
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return tg->ret;
}

SYSCALL_DEFINE(SYS_getpriority, getpriority)
{
	struct prio_target tg = { .which = (int)args->a[0], .who = (int)args->a[1] };

	return for_targets(&tg);
}

SYSCALL_DEFINE(SYS_setpriority, setpriority)
{
	int nice = (int)args->a[2];
	struct prio_target tg = { .which = (int)args->a[0], .who = (int)args->a[1], .set = true,
				  .nice = nice < -20 ? -20 : nice > 19 ? 19 : nice };

	return for_targets(&tg);
}
