// Signal dispositions (struct sighand): their life and their lock.
//
// A process has one sighand; clone(CLONE_SIGHAND) without CLONE_THREAD
// makes two processes share one (as Linux: a sigaction in either is
// seen by both), counted by its refcount.  Its lock also guards the
// signal state of every process that uses it (kernel/proc/signal.c).
//
// p->sighand changes only at p's exec, when p shares it: the new program
// gets a copy of its own (sighand_exec_own), swapped in with both
// proc_tree_lock and the lock of the one p leaves held.  So p->sighand
// may be read by
//   - p's own threads (exec runs alone in p: the others are gone);
//   - a holder of proc_tree_lock;
//   - anyone through sighand_lock(p), which checks the pointer again
//     once it holds the lock.
// The one p leaves is freed only after every CPU has taken an
// interrupt since the swap: a sighand_lock that read the old pointer
// holds interrupts off until it has found out and let go.

#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <arch/irq.h>
#include <mm/kmalloc.h>
#include <lib/string.h>
#include <uapi/signal.h>

// A copy of src's dispositions (src NULL: all default).  'clear'
// (CLONE_CLEAR_SIGHAND): caught signals go back to their default action;
// ignored ones stay ignored, as across exec.
struct sighand *sighand_copy(struct sighand *src, bool clear)
{
	struct sighand *sh = kzalloc(sizeof(*sh));

	if (!sh)
		return 0;
	spin_init(&sh->lock, "sighand");
	sh->refcount = 1;
	if (src)
		memcpy(sh->action, src->action, sizeof(sh->action));
	for (int i = 1; clear && i <= NSIG; i++) {
		if (sh->action[i].handler != SIG_IGN)
			sh->action[i].handler = SIG_DFL;
		sh->action[i].flags = 0;
		sh->action[i].mask = 0;
		sh->action[i].restorer = 0;
	}
	return sh;
}

// Another process uses sh (clone with CLONE_SIGHAND).
struct sighand *sighand_share(struct sighand *sh)
{
	__atomic_add_fetch(&sh->refcount, 1, __ATOMIC_SEQ_CST);
	return sh;
}

void sighand_put(struct sighand *sh)
{
	if (sh && __atomic_sub_fetch(&sh->refcount, 1, __ATOMIC_SEQ_CST) == 0)
		kfree(sh);
}

bool sighand_shared(const struct sighand *sh)
{
	return __atomic_load_n(&sh->refcount, __ATOMIC_ACQUIRE) > 1;
}

uint64_t sighand_lock(struct process *p)
{
	for (;;) {
		uint64_t flags = irq_save();
		struct sighand *sh = __atomic_load_n(&p->sighand, __ATOMIC_ACQUIRE);

		spin_lock(&sh->lock);
		if (sh == __atomic_load_n(&p->sighand, __ATOMIC_RELAXED))
			return flags;
		spin_unlock(&sh->lock);	// swapped meanwhile: the new one
		irq_restore(flags);
	}
}

static void nothing(void *arg)
{
	(void)arg;
}

void sighand_exec_own(struct process *p, struct sighand *own)
{
	struct sighand *old = p->sighand;
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);

	spin_lock(&old->lock);
	memcpy(own->action, old->action, sizeof(own->action));
	__atomic_store_n(&p->sighand, own, __ATOMIC_RELEASE);
	spin_unlock(&old->lock);
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	// Every CPU through an interrupt: no sighand_lock(p) still holds
	// the old pointer (see the top of this file).
	cross_call_mask(cpumask_online(), nothing, 0, true);
	sighand_put(old);
}
