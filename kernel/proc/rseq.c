// Restartable sequences: rseq(2) with Linux's checks and errnos, the ids
// kept current in each registered thread's area, and critical sections
// restarted at their abort handler.
//
// What happens when (Linux's model; kernel/rseq.c of Linux 6.1 is the
// reference for the semantics, 6.3 for node_id, mm_cid and the longer
// areas):
// - A registered thread that leaves its CPU (rseq_switched_out, from
//   schedule) or is hit by membarrier's RSEQ IPI gets a "preempt" event
//   and resume work; so does a new registration (without an event).
// - On its way to user space (exit_to_user) the resume work looks at the
//   area's rseq_cs: a descriptor is checked as Linux checks it (bounds,
//   version, abort handler outside the section, the signature word before
//   it) and, if the user instruction pointer is inside the section and an
//   event happened, the thread resumes at abort_ip.  A descriptor the
//   thread has left behind is cleared.  Then cpu_id_start, cpu_id,
//   node_id and mm_cid are written if they changed.
// - Signal delivery does the same before building the handler's frame,
//   so the handler returns to the abort handler.
// - Any fault or invalid descriptor kills the process with SIGSEGV, as
//   it does on Linux (there the forced SIGSEGV is fatal by the time it is
//   delivered).
//
// mm_cid: a thread holds a concurrency id from its return to user space
// until it next leaves its CPU, taken as the lowest free bit of its
// address space's rseq_cids.  Holders are running threads, so ids stay
// below the number of CPUs and the number of threads, unique among the
// threads running at one time.  Only registered threads take one.

#include <kernel/rseq.h>
#include <kernel/thread.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/cpu.h>
#include <kernel/mm.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <kernel/console.h>
#include <uapi/errno.h>
#include <uapi/signal.h>
#include <uapi/rseq.h>
#include <uapi/sched.h>
#include <kernel/panic.h>

_Static_assert(MAX_CPUS <= 64, "mm->rseq_cids has one bit per CPU");

// ---- Concurrency ids ----

static void cid_take(struct thread *t)
{
	uint64_t *set = &t->mm->rseq_cids;
	uint64_t old = __atomic_load_n(set, __ATOMIC_RELAXED);

	for (;;) {
		// At most ncpus - 1 others hold one: a free bit exists.
		if (~old == 0)
			panic("rseq: no free concurrency id in mm %lu", (unsigned long)t->mm->id);
		uint32_t id = (uint32_t)__builtin_ctzll(~old);
		if (__atomic_compare_exchange_n(set, &old, old | (1ull << id), false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			t->rseq.cid = id;
			t->rseq.has_cid = true;
			return;
		}
	}
}

static void cid_drop(struct thread *t)
{
	if (!t->rseq.has_cid)
		return;
	__atomic_fetch_and(&t->mm->rseq_cids, ~(1ull << t->rseq.cid), __ATOMIC_RELEASE);
	t->rseq.has_cid = false;
}

// ---- Events ----

static void note_event(struct thread *t, uint32_t ev)
{
	// An interrupt on this CPU (membarrier's IPI) may add an event while
	// the thread itself takes them: atomic with respect to it.
	__atomic_fetch_or(&t->rseq.events, ev, __ATOMIC_RELAXED);
	t->rseq.resume = true;
	thread_work_set(t, WORK_STATE);		// the fast return must not skip it
}

// Interrupts off, from schedule(): the thread stops running here, so a
// critical section it is in must restart, and its id is free for others.
void rseq_switched_out(struct thread *t)
{
	note_event(t, RSEQ_EV_PREEMPT);
	if (t->mm)
		cid_drop(t);
}

void rseq_membarrier_restart(void)
{
	struct thread *t = current_thread();

	if (t && t->proc && rseq_registered(&t->rseq))
		note_event(t, RSEQ_EV_PREEMPT);
}

// ---- The way out to user space ----

// Reads and checks the critical-section descriptor the area names, as
// Linux does whether or not the thread is inside it.  0 with *cs zeroed
// when there is none; -EFAULT or -EINVAL for one that must kill.
static int read_cs(struct thread *t, struct rseq_cs_desc *cs, uint64_t *ptr)
{
	uint32_t sig;

	if (get_user_u64(ptr, t->rseq.area + RSEQ_OFF_RSEQ_CS) < 0)
		return -EFAULT;
	*cs = (struct rseq_cs_desc){ 0 };
	if (!*ptr)
		return 0;
	if (!user_range_ok(*ptr, 1))
		return -EINVAL;
	if (copy_from_user(cs, *ptr, sizeof(*cs)) < 0)
		return -EFAULT;
	if (!user_range_ok(cs->start_ip, 1) || !user_range_ok(cs->abort_ip, 1) ||
	    cs->version > 0)
		return -EINVAL;
	// The section's end must be a user address and must not wrap.
	if (cs->start_ip + cs->post_commit_offset < cs->start_ip ||
	    !user_range_ok(cs->start_ip + cs->post_commit_offset, 1))
		return -EINVAL;
	// The abort handler must lie outside the section.
	if (cs->abort_ip - cs->start_ip < cs->post_commit_offset)
		return -EINVAL;
	if (get_user_u32(&sig, cs->abort_ip - 4) < 0)
		return -EFAULT;
	if (sig != t->rseq.sig) {
		kprintf("%s[%d]: rseq: signature %#x before abort handler %#lx, expected %#x\n",
			t->name, t->proc->pid, sig, (unsigned long)cs->abort_ip, t->rseq.sig);
		return -EINVAL;
	}
	return 0;
}

// Is the section to restart?  Linux 6.1 no longer honours the
// NO_RESTART flags: any flag in the descriptor or the area is an error.
// The events are taken only here, inside a section.
static int must_restart(struct thread *t, const struct rseq_cs_desc *cs)
{
	uint32_t flags;

	if (cs->flags)
		return -EINVAL;
	if (get_user_u32(&flags, t->rseq.area + RSEQ_OFF_FLAGS) < 0)
		return -EFAULT;
	if (flags)
		return -EINVAL;
	return __atomic_exchange_n(&t->rseq.events, 0, __ATOMIC_RELAXED) != 0;
}

static int fixup_ip(struct thread *t, struct trap_frame *f)
{
	struct rseq_cs_desc cs;
	uint64_t ptr;
	int r = read_cs(t, &cs, &ptr);

	if (r < 0 || !ptr)
		return r;
	// Outside the section: the descriptor is stale, drop it.
	if (arch_frame_ip(f) - cs.start_ip >= cs.post_commit_offset)
		return put_user_u64(t->rseq.area + RSEQ_OFF_RSEQ_CS, 0);
	r = must_restart(t, &cs);
	if (r <= 0)
		return r;
	if (put_user_u64(t->rseq.area + RSEQ_OFF_RSEQ_CS, 0) < 0)
		return -EFAULT;
	arch_frame_set_ip(f, cs.abort_ip);
	this_cpu()->stats.rseq_aborts++;
	return 0;
}

// cpu_id_start and cpu_id, node_id (one node) and mm_cid, written only
// when they changed since the last write.
static int update_ids(struct thread *t)
{
	if (!t->rseq.has_cid)
		cid_take(t);
	uint32_t cpu = (uint32_t)this_cpu()->id, cid = t->rseq.cid;

	if (t->rseq.ids_written && t->rseq.cpu_written == cpu && t->rseq.cid_written == cid)
		return 0;
	uint32_t ids[2] = { cpu, cpu }, node_cid[2] = { 0, cid };
	if (copy_to_user(t->rseq.area + RSEQ_OFF_CPU_ID_START, ids, sizeof(ids)) < 0 ||
	    copy_to_user(t->rseq.area + RSEQ_OFF_NODE_ID, node_cid, sizeof(node_cid)) < 0)
		return -EFAULT;
	t->rseq.cpu_written = cpu;
	t->rseq.cid_written = cid;
	t->rseq.ids_written = true;
	this_cpu()->stats.rseq_id_writes++;
	return 0;
}

static __attribute__((noreturn)) void rseq_fatal(struct trap_frame *f, int err)
{
	struct thread *t = current_thread();

	kprintf("%s[%d]: rseq: %s area %#lx ip %#lx: SIGSEGV\n", t->name, t->proc->pid,
		err == -EFAULT ? "fault at" : "invalid critical section in",
		(unsigned long)t->rseq.area, (unsigned long)arch_frame_ip(f));
	thread_exit_user(SIGSEGV, true);
}

// Interrupts on.  The resume flag is cleared first: an event that comes
// while this runs (it may sleep on a fault) sets it again, and
// exit_to_user comes back.
void rseq_resume(struct trap_frame *f)
{
	struct thread *t = current_thread();
	int r;

	t->rseq.resume = false;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!rseq_registered(&t->rseq))
		return;
	r = fixup_ip(t, f);
	if (r >= 0)
		r = update_ids(t);
	if (r < 0)
		rseq_fatal(f, r);
}

void rseq_signal_deliver(struct trap_frame *f)
{
	struct thread *t = current_thread();

	if (!rseq_registered(&t->rseq))
		return;
	note_event(t, RSEQ_EV_SIGNAL);
	rseq_resume(f);
}

// ---- Threads and processes ----

// A thread of the same address space (CLONE_VM without CLONE_VFORK)
// starts unregistered; a forked child (or vfork child, which runs in its
// parent's place) keeps the registration, with its ids rewritten.
void rseq_fork(struct thread *child, const struct thread *parent, uint64_t clone_flags)
{
	child->rseq = (struct rseq_thread){ 0 };
	if ((clone_flags & (CLONE_VM | CLONE_VFORK)) == CLONE_VM)
		return;
	child->rseq.area = parent->rseq.area;
	child->rseq.len = parent->rseq.len;
	child->rseq.sig = parent->rseq.sig;
	child->rseq.events = parent->rseq.events;
	child->rseq.resume = child->rseq.area != 0;
}

// Before exec replaces the address space, and before an exiting thread
// lets go of it.
void rseq_exec(struct thread *t)
{
	if (t->mm)
		cid_drop(t);
	t->rseq = (struct rseq_thread){ 0 };
}

void rseq_thread_exit(struct thread *t)
{
	rseq_exec(t);
}

// ---- The system call ----

static long rseq_unregister(struct thread *t, uint64_t area, uint32_t len, uint32_t sig)
{
	uint32_t ids[2] = { 0, RSEQ_CPU_ID_UNINITIALIZED }, node_cid[2] = { 0, 0 };

	if (!rseq_registered(&t->rseq) || t->rseq.area != area || len != t->rseq.len)
		return -EINVAL;
	if (sig != t->rseq.sig)
		return -EPERM;
	// The ids go back to "not registered", so that code that reads them
	// afterwards knows.
	if (copy_to_user(area + RSEQ_OFF_CPU_ID_START, ids, sizeof(ids)) < 0 ||
	    copy_to_user(area + RSEQ_OFF_NODE_ID, node_cid, sizeof(node_cid)) < 0)
		return -EFAULT;
	cid_drop(t);
	t->rseq = (struct rseq_thread){ 0 };
	return 0;
}

// rseq(area, len, flags, sig).
SYSCALL_DEFINE(SYS_rseq, rseq)
{
	struct thread *t = current_thread();
	uint64_t area = args->a[0], cs;
	uint32_t len = (uint32_t)args->a[1], sig = (uint32_t)args->a[3];
	int flags = (int)args->a[2];

	if (flags & RSEQ_FLAG_UNREGISTER) {
		if (flags & ~RSEQ_FLAG_UNREGISTER)
			return -EINVAL;
		return rseq_unregister(t, area, len, sig);
	}
	if (flags)
		return -EINVAL;
	if (rseq_registered(&t->rseq)) {
		if (t->rseq.area != area || len != t->rseq.len)
			return -EINVAL;
		if (sig != t->rseq.sig)
			return -EPERM;
		return -EBUSY;
	}
	// The original 32-byte area, or one long enough for every field
	// (AT_RSEQ_FEATURE_SIZE); 32-byte aligned either way (AT_RSEQ_ALIGN).
	if (len < RSEQ_ORIG_SIZE || (area & (RSEQ_ALIGN - 1)) != 0)
		return -EINVAL;
	if (!user_range_ok(area, len))
		return -EFAULT;
	// A descriptor left in the area (a libc reusing it for a new
	// thread) is dropped rather than acted on.
	if (get_user_u64(&cs, area + RSEQ_OFF_RSEQ_CS) < 0)
		return -EFAULT;
	if (cs && put_user_u64(area + RSEQ_OFF_RSEQ_CS, 0) < 0)
		return -EFAULT;
	t->rseq.area = area;
	t->rseq.len = len;
	t->rseq.sig = sig;
	t->rseq.ids_written = false;
	t->rseq.resume = true;
	thread_work_set(t, WORK_STATE);
	return 0;
}
