// Robust futex lists (set_robust_list): a thread registers the head of a
// list of the locks it holds, kept by its libc in user memory.  When the
// thread dies or execs, the kernel walks that list and, for every lock
// still owned by the thread, sets FUTEX_OWNER_DIED and wakes one waiter,
// so the next locker learns the owner died (EOWNERDEAD) instead of
// waiting forever.  Only the owner's own memory is read, through the
// checked accessors: a broken list just ends the walk.

#include <kernel/futex.h>
#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/thread.h>
#include <kernel/uaccess.h>
#include <uapi/errno.h>

#define FUTEX_WAITERS		0x80000000u
#define FUTEX_OWNER_DIED	0x40000000u
#define FUTEX_TID_MASK		0x3fffffffu

// The list may be corrupt or circular: stop after this many entries, as
// Linux does.
#define ROBUST_LIST_LIMIT	2048

struct robust_list_head {
	uint64_t next;		// first entry; the list ends where it points back here
	int64_t futex_offset;	// from an entry to its lock word
	uint64_t pending;	// entry being locked or unlocked, or 0
};

// One lock left behind by thread 'tid'.  A lock the thread no longer owns
// is left alone, except the pending one with no owner at all: the thread
// died between releasing it and waking a waiter, so wake one now.
static void release_dead_owner(uint64_t uaddr, int tid, bool pi, bool pending)
{
	uint32_t val, seen;

	if (uaddr & 3)
		return;
	for (;;) {
		if (get_user_u32(&val, uaddr) < 0)
			return;
		if ((val & FUTEX_TID_MASK) != (uint32_t)tid) {
			if (pending && !pi && val == 0)
				futex_wake_current(uaddr, 1);
			return;
		}
		uint32_t dead = (val & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
		if (user_cmpxchg_u32(uaddr, val, dead, &seen) < 0)
			return;
		if (seen == val)
			break;
	}
	// A PI lock's waiter takes it over itself (futex.c), as Linux's
	// exit_pi_state_list hands it on: tell the oldest to look now.
	if (!(val & FUTEX_WAITERS))
		return;
	if (pi)
		futex_pi_owner_died(uaddr);
	else
		futex_wake_current(uaddr, 1);
}

// An entry pointer carries the PI flag in bit 0.
static void release_entry(uint64_t entry, int64_t offset, int tid, bool pending)
{
	release_dead_owner((entry & ~1UL) + (uint64_t)offset, tid, entry & 1, pending);
}

void futex_release_robust_list(struct thread *t)
{
	uint64_t head = t->robust_list;
	struct robust_list_head h;

	t->robust_list = 0;
	if (!head || copy_from_user(&h, head, sizeof(h)) < 0)
		return;
	uint64_t entry = h.next;
	for (int n = 0; entry != head && n < ROBUST_LIST_LIMIT; n++) {
		uint64_t next;
		// Read the link before releasing the lock: a waiter woken
		// below may free the entry at once.
		if (get_user_u64(&next, entry & ~1UL) < 0)
			return;
		if (entry != h.pending)
			release_entry(entry, h.futex_offset, t->tid, false);
		entry = next;
	}
	if (h.pending)
		release_entry(h.pending, h.futex_offset, t->tid, true);
}

SYSCALL_DEFINE(SYS_set_robust_list, set_robust_list)
{
	if (args->a[1] != sizeof(struct robust_list_head))
		return -EINVAL;
	current_thread()->robust_list = args->a[0];
	return 0;
}

SYSCALL_DEFINE(SYS_get_robust_list, get_robust_list)
{
	int tid = (int)args->a[0];
	struct thread *t = tid == 0 ? current_thread() : thread_find(tid);

	if (!t || !t->proc)
		return -ESRCH;
	if (put_user_u64(args->a[1], t->robust_list) < 0 ||
	    put_user_u64(args->a[2], sizeof(struct robust_list_head)) < 0)
		return -EFAULT;
	return 0;
}
