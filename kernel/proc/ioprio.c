// I/O priorities: ioprio_set and ioprio_get, as Linux 6.1's
// block/ioprio.c and blk-ioc.c.  Switchyard's files live in memory and
// pass through no I/O scheduler, which is what Linux does with a
// priority on a machine whose devices have none ("none" scheduler): the
// priority is kept, inherited and reported, and orders nothing.
//
// Linux keeps the priority in an I/O context that a thread gets at its
// first ioprio_set; a child made with CLONE_IO shares its parent's
// context if the parent has one (so a later set through either is seen
// by both; kcmp's KCMP_IO compares contexts), and a child without
// CLONE_IO gets a context of its own with a copy of a valid priority.
// ioprio_lock guards thread->io and the contexts' fields.

#include <kernel/syscall.h>
#include <kernel/thread.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/cred.h>
#include <kernel/spinlock.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>
#include <uapi/sched.h>

#define IOPRIO_CLASS_SHIFT	13
#define IOPRIO_CLASS_NONE	0
#define IOPRIO_CLASS_RT		1
#define IOPRIO_CLASS_BE		2
#define IOPRIO_CLASS_IDLE	3
#define IOPRIO_NR_LEVELS	8

#define IOPRIO_WHO_PROCESS	1
#define IOPRIO_WHO_PGRP		2
#define IOPRIO_WHO_USER		3

struct io_context {
	int refs;
	int ioprio;
};

static struct spinlock ioprio_lock = SPINLOCK_INIT("ioprio");

static struct io_context *context_new_locked(int ioprio)
{
	struct io_context *io = kmalloc(sizeof(*io));

	if (io) {
		io->refs = 1;
		io->ioprio = ioprio;
	}
	return io;
}

static int prio_class(int ioprio)
{
	return (ioprio >> IOPRIO_CLASS_SHIFT) & 7;
}

static int prio_value(int class, int level)
{
	return (class << IOPRIO_CLASS_SHIFT) | level;
}

// Linux's ioprio_check_cap: the class and level must make sense, and
// the real-time class needs CAP_SYS_ADMIN or CAP_SYS_NICE.  (The bits
// between the level and the class are Linux's I/O hints: not checked.)
static int check_prio(int ioprio)
{
	int level = ioprio & (IOPRIO_NR_LEVELS - 1);
	const struct cred *c = current_cred();

	switch (prio_class(ioprio)) {
	case IOPRIO_CLASS_RT:
		if (!cred_capable(c, CAP_SYS_ADMIN) && !cred_capable(c, CAP_SYS_NICE))
			return -EPERM;
		return 0;
	case IOPRIO_CLASS_BE:
	case IOPRIO_CLASS_IDLE:
		return 0;
	case IOPRIO_CLASS_NONE:
		return level ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

// The priority as stored: 0 (class none) for a thread without a context.
static int raw_prio_locked(const struct thread *t)
{
	return t->io ? t->io->ioprio : 0;
}

// What a group query reports: class none means "from the CPU priority"
// (Linux's task_nice_ioclass and task_nice_ioprio): idle for SCHED_IDLE,
// real time for the real-time policies, else best effort, at the level
// (nice + 20) / 5.
static int effective_prio_locked(const struct thread *t)
{
	int prio = raw_prio_locked(t);
	int class = IOPRIO_CLASS_BE;

	if (prio_class(prio) != IOPRIO_CLASS_NONE)
		return prio;
	if (t->policy == SCHED_IDLE)
		class = IOPRIO_CLASS_IDLE;
	else if (t->policy == SCHED_FIFO || t->policy == SCHED_RR)
		class = IOPRIO_CLASS_RT;
	return prio_value(class, (t->nice + 20) / 5);
}

// Linux's set_task_ioprio: the caller's real or effective uid must be
// t's real uid, or the caller has CAP_SYS_NICE.
static int set_thread_prio_locked(struct thread *t, int ioprio)
{
	const struct cred *me = current_cred();
	struct cred *tc = cred_of_thread(t);
	bool allowed = tc->uid == me->euid || tc->uid == me->uid || cred_capable(me, CAP_SYS_NICE);

	cred_put(tc);
	if (!allowed)
		return -EPERM;
	if (t->exiting)
		return 0;
	if (!t->io) {
		t->io = context_new_locked(ioprio);
		return t->io ? 0 : -ENOMEM;
	}
	t->io->ioprio = ioprio;
	return 0;
}

static uint32_t thread_uid(struct thread *t)
{
	struct cred *c = cred_of_thread(t);
	uint32_t uid = c->uid;

	cred_put(c);
	return uid;
}

// Which threads a 'which, who' pair names, one at a time.
struct io_target {
	int which, who, pgid;
	uint32_t uid;
	bool set;
	int ioprio;
	long ret;		// -ESRCH until a thread is found
};

static void visit_thread(struct io_target *tg, struct thread *t)
{
	if (tg->set) {
		if (tg->ret != -ESRCH && tg->ret < 0)
			return;		// Linux stops at the first refusal
		tg->ret = set_thread_prio_locked(t, tg->ioprio);
		return;
	}
	int prio = effective_prio_locked(t);
	// Linux's ioprio_best: the numerically smallest value.
	if (tg->ret == -ESRCH || (uint16_t)prio < (uint16_t)tg->ret)
		tg->ret = prio;
}

static void visit_process(struct process *p, void *arg)
{
	struct io_target *tg = arg;

	if (tg->which == IOPRIO_WHO_PGRP && p->pgid != tg->pgid)
		return;
	uint64_t flags = spin_lock_irqsave(&p->lock);
	for (struct thread *t = p->threads; t; t = t->proc_next)
		if (tg->which != IOPRIO_WHO_USER || thread_uid(t) == tg->uid)
			visit_thread(tg, t);
	spin_unlock_irqrestore(&p->lock, flags);
}

static long for_targets(struct io_target *tg)
{
	struct thread *me = current_thread();
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	uint64_t io_flags = spin_lock_irqsave(&ioprio_lock);

	tg->ret = -ESRCH;
	switch (tg->which) {
	case IOPRIO_WHO_PROCESS: {
		// 'who' is a thread ID (0: the caller); a query reports the
		// stored value itself.
		struct thread *t = tg->who ? thread_find(tg->who) : me;
		if (t && tg->set)
			tg->ret = set_thread_prio_locked(t, tg->ioprio);
		else if (t)
			tg->ret = raw_prio_locked(t);
		break;
	}
	case IOPRIO_WHO_PGRP:
		tg->pgid = tg->who ? tg->who : me->proc->pgid;
		process_for_each_locked(visit_process, tg);
		break;
	case IOPRIO_WHO_USER:
		tg->uid = tg->who ? (uint32_t)tg->who : current_cred()->uid;
		if (tg->uid != (uint32_t)-1)
			process_for_each_locked(visit_process, tg);
		break;
	default:
		tg->ret = -EINVAL;
	}
	spin_unlock_irqrestore(&ioprio_lock, io_flags);
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return tg->ret;
}

SYSCALL_DEFINE(SYS_ioprio_set, ioprio_set)
{
	struct io_target tg = { .which = (int)args->a[0], .who = (int)args->a[1],
				.set = true, .ioprio = (int)args->a[2] };
	int rc = check_prio(tg.ioprio);

	if (rc)
		return rc;
	return for_targets(&tg);
}

SYSCALL_DEFINE(SYS_ioprio_get, ioprio_get)
{
	struct io_target tg = { .which = (int)args->a[0], .who = (int)args->a[1] };

	return for_targets(&tg);
}

// clone: with CLONE_IO the child shares its parent's context, if there
// is one; without, it gets a copy of a priority of a real class.
// 0 or -ENOMEM.
int ioprio_fork(struct thread *child, struct thread *parent, uint64_t clone_flags)
{
	uint64_t flags = spin_lock_irqsave(&ioprio_lock);
	struct io_context *io = parent->io;
	int rc = 0;

	// The child's ID can be found from its allocation on, before it is
	// fully made (Linux makes it visible last): an ioprio_set that got
	// there first gave it a context, which a thread not yet made should
	// not have.  Dropped, so that none is overwritten and leaked (the
	// fuzzer found two).
	if (child->io && --child->io->refs == 0)
		kfree(child->io);
	child->io = NULL;
	if (io && (clone_flags & CLONE_IO)) {
		io->refs++;
		child->io = io;
	} else if (io && prio_class(io->ioprio) != IOPRIO_CLASS_NONE &&
		   prio_class(io->ioprio) <= IOPRIO_CLASS_IDLE) {
		child->io = context_new_locked(io->ioprio);
		rc = child->io ? 0 : -ENOMEM;
	}
	spin_unlock_irqrestore(&ioprio_lock, flags);
	return rc;
}

// The thread's struct goes, and its reference to its context.
void ioprio_thread_free(struct thread *t)
{
	uint64_t flags = spin_lock_irqsave(&ioprio_lock);
	struct io_context *io = t->io;

	t->io = NULL;
	if (io && --io->refs == 0)
		kfree(io);
	spin_unlock_irqrestore(&ioprio_lock, flags);
}
