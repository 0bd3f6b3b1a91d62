// Running out of memory: the reserve kept from user memory, and the OOM
// policy (see mm/oom.h).
//
// The victim is the process whose address space has the most resident
// pages (mm->rss), never init nor a process sharing init's address space;
// every process using the victim's address space gets SIGKILL.  While a
// victim is dying no other is chosen: threads that need memory sleep 10
// ms at a time and try again until its memory is back.  A victim that
// takes longer than OOM_VICTIM_GRACE_NS to go no longer holds the choice
// of the next one back (unless its address space is already being torn
// down: that always finishes), and a fault that has waited OOM_MAX_TRIES times
// gives up and kills its own process.

#include <mm/oom.h>
#include <mm/frame.h>
#include <kernel/mm.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/thread.h>
#include <kernel/wait.h>
#include <kernel/time.h>
#include <kernel/console.h>
#include <uapi/signal.h>

#define OOM_WAIT_NS		(10 * 1000000ULL)
#define OOM_MAX_TRIES		1000			// 10 s for one fault
#define OOM_VICTIM_GRACE_NS	(3 * 1000000000ULL)
#define RESERVE_MIN_PAGES	256			// 1 MiB

// Guards the choice of a victim, and keeps any address space it looks at
// alive meanwhile (mm_free waits for it in oom_forget_mm).
static struct spinlock oom_lock = SPINLOCK_INIT("oom");
static struct oom_victim victim;

// 1/64 of memory (8 MiB of 512 MiB), at least 1 MiB.
static uint64_t reserve_pages(void)
{
	static uint64_t reserve;

	if (!reserve) {
		uint64_t total, free;
		frame_stats(&total, &free);
		reserve = total / 64 > RESERVE_MIN_PAGES ? total / 64 : RESERVE_MIN_PAGES;
	}
	return reserve;
}

bool oom_user_may_allocate(void)
{
	return frame_free_estimate() > reserve_pages();
}

struct pick {
	struct mm *init_mm;
	struct mm *best;
	uint64_t best_rss;
};

// A process that has threads running can be a victim.  (One without
// threads is being built or torn down; its mm may be on its way out.)
static void consider(struct process *p, void *arg)
{
	struct pick *k = arg;

	if (p->pid == 1 || p->zombie || p->exiting || p->nthreads == 0)
		return;
	struct mm *mm = p->mm;
	if (!mm || mm == k->init_mm)
		return;
	uint64_t rss = __atomic_load_n(&mm->rss, __ATOMIC_RELAXED);
	if (!k->best || rss > k->best_rss) {
		k->best = mm;
		k->best_rss = rss;
	}
}

static void kill_users(struct process *p, void *arg)
{
	struct mm *mm = arg;
	struct ksiginfo info = { .signo = SIGKILL, .code = SI_KERNEL };

	if (p->mm != mm || p->zombie || p->pid == 1)
		return;
	kprintf("oom: out of memory: killed %s[%d] (%lu KiB resident)\n",
		p->threads ? p->threads->name : "?", p->pid,
		(unsigned long)(__atomic_load_n(&mm->rss, __ATOMIC_RELAXED) * 4));
	signal_send_process(p, SIGKILL, &info);
}

// Does the last victim still hold back the choice of the next one?  Its
// memory is on its way back while its threads end, and for as long as its
// address space is being torn down, however long that takes on a loaded
// machine: killing someone else then would only take an innocent process
// (the victim's parent, say) for memory that is coming back anyway.  Only
// a victim whose threads have not ended after OOM_VICTIM_GRACE_NS (stuck
// somewhere that SIGKILL does not reach) lets another be chosen.
bool oom_victim_holds(const struct oom_victim *v, uint64_t now)
{
	if (!v->mm)
		return false;
	// 'now' may come from before the choice (read by a CPU that then
	// waited for the lock): a fresh victim, not one 2^64 ns old.
	return v->tearing_down || now < v->since || now - v->since < OOM_VICTIM_GRACE_NS;
}

// Chooses and kills a victim, unless one is already on its way out.
static void kill_victim(void)
{
	uint64_t flags = spin_lock_irqsave(&oom_lock);
	uint64_t now = clock_monotonic_ns();	// read under the lock: after any earlier choice

	if (!oom_victim_holds(&victim, now)) {
		uint64_t tf = spin_lock_irqsave(&proc_tree_lock);
		struct process *init = process_find(1);
		struct pick k = { init ? init->mm : 0, 0, 0 };
		process_for_each_locked(consider, &k);
		if (k.best) {
			process_for_each_locked(kill_users, k.best);
			victim.mm = k.best;
			victim.since = now;
			victim.tearing_down = false;
		}
		spin_unlock_irqrestore(&proc_tree_lock, tf);
	}
	spin_unlock_irqrestore(&oom_lock, flags);
}

// Waited too long: the faulting process goes (init cannot be killed by
// SIGKILL; its fault becomes a SIGSEGV, and the machine stops with it).
static void give_up(struct process *p)
{
	struct ksiginfo info = { .signo = SIGKILL, .code = SI_KERNEL };

	kprintf("oom: %s[%d] waited too long for memory\n", current_thread()->name, p->pid);
	if (p->pid == 1)
		signal_force_fault(SIGSEGV, SEGV_MAPERR, 0);
	else
		signal_send_process(p, SIGKILL, &info);
}

static bool dying(struct thread *t)
{
	return t->exiting || t->proc->exiting;
}

bool oom_retry(int tries, bool can_sleep)
{
	struct thread *t = current_thread();

	if (!t || !t->proc || dying(t))
		return false;
	if (!oom_user_may_allocate())
		kill_victim();
	if (dying(t) || !can_sleep)
		return false;
	if (tries >= OOM_MAX_TRIES) {
		give_up(t->proc);
		return false;
	}
	// Memory comes back when the victim's exit frees it.
	wq_wait(0, 0, clock_monotonic_ns() + OOM_WAIT_NS, false);
	return !dying(t);
}

void oom_teardown_begins(struct mm *mm)
{
	uint64_t flags = spin_lock_irqsave(&oom_lock);

	if (victim.mm == mm)
		victim.tearing_down = true;
	spin_unlock_irqrestore(&oom_lock, flags);
}

void oom_forget_mm(struct mm *mm)
{
	uint64_t flags = spin_lock_irqsave(&oom_lock);

	if (victim.mm == mm)
		victim.mm = 0;
	spin_unlock_irqrestore(&oom_lock, flags);
}
