// Futexes.
//
// A waiter is keyed as Linux keys it.  Ops with FUTEX_PRIVATE_FLAG, and
// non-private ops on private memory, use (address space, address): a
// copy-on-write break after fork moves private memory to a new page, so
// the page cannot name the word.  Non-private ops on MAP_SHARED memory
// use the physical address of the word, whose frame is fixed for the
// mapping's life, so processes sharing it meet.  Waiters live in a small
// hash table under one lock: wake-ups and requeues move waiters between
// chains, and a single lock makes that obviously safe.  A chain is in
// Linux's wake-up order (real-time waiters by priority, then the others;
// the oldest first within a priority: queue_waiter), a waiter
// leaves it in O(1), and it counts its waiters of the plain calls, so the
// PI calls' "no plain waiter on this word" costs nothing on a chain of
// PI waiters only.  The lock is never
// taken from interrupts and is held with interrupts enabled, because
// reading the futex word may fault and fault handling may need other CPUs.

#include <kernel/futex.h>
#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/thread.h>
#include <kernel/uaccess.h>
#include <kernel/wait.h>
#include <kernel/time.h>
#include <kernel/vm.h>
#include <kernel/ktime.h>
#include <mm/kmalloc.h>
#include <kernel/sched.h>
#include <uapi/errno.h>
#include <uapi/sched.h>

#define FUTEX_WAIT		0
#define FUTEX_WAKE		1
#define FUTEX_FD		2
#define FUTEX_REQUEUE		3
#define FUTEX_CMP_REQUEUE	4
#define FUTEX_WAKE_OP		5
#define FUTEX_LOCK_PI		6
#define FUTEX_UNLOCK_PI		7
#define FUTEX_TRYLOCK_PI	8
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAKE_BITSET	10
#define FUTEX_WAIT_REQUEUE_PI	11
#define FUTEX_CMP_REQUEUE_PI	12
#define FUTEX_LOCK_PI2		13
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX_BITSET_MATCH_ANY	0xffffffffu

#define FUTEX_WAITERS		0x80000000u
#define FUTEX_OWNER_DIED	0x40000000u
#define FUTEX_TID_MASK		0x3fffffffu

#define NBUCKETS 64

struct futex_key {
	uint64_t space;		// mm pointer (private memory) or 0 (shared memory)
	uint64_t addr;		// user address (private memory) or physical address
};

struct futex_waiter {
	struct futex_key key;
	uint32_t bitset;
	struct thread *thread;
	struct wait_queue wq;	// just this thread
	// The queue its thread sleeps on: its own wq, or for futex_waitv the
	// one all its entries share.
	struct wait_queue *sleeps_on;
	bool woken;
	bool pi;		// FUTEX_LOCK_PI: woken only by the handoff of UNLOCK_PI
	// FUTEX_WAIT_REQUEUE_PI: only FUTEX_CMP_REQUEUE_PI onto pi_key may
	// move it (it is then a PI waiter there: 'pi' set) or wake it (it
	// was given that lock).
	bool requeue_pi;
	struct futex_key pi_key;
	uint32_t owner_tid;	// a PI waiter asleep: the owner it waits for
	bool queued;		// on its key's chain
	uint8_t prio;		// its thread's real-time priority when queued, 0: none
	struct futex_waiter *next, *prev;
};

struct futex_chain {
	struct futex_waiter *head, *tail;	// oldest first
	int plain;				// waiters that are not 'pi'
};

static struct spinlock futex_lock = SPINLOCK_INIT("futex");
static struct futex_chain buckets[NBUCKETS];

static unsigned bucket_of(const struct futex_key *k)
{
	uint64_t h = (k->addr >> 2) ^ (k->space >> 6);
	h ^= h >> 17;
	return (unsigned)(h % NBUCKETS);
}

static bool key_equal(const struct futex_key *a, const struct futex_key *b)
{
	return a->space == b->space && a->addr == b->addr;
}

static int make_key(uint64_t uaddr, bool private, struct futex_key *k)
{
	if (uaddr & 3)
		return -EINVAL;
	if (!user_range_ok(uaddr, 4))
		return -EFAULT;
	struct mm *mm = current_process()->mm;
	k->space = (uint64_t)mm;
	k->addr = uaddr;
	if (private)
		return 0;
	uint64_t pa;
	int r = vm_shared_phys(mm, uaddr, &pa);
	if (r < 0)
		return r;
	if (r > 0) {
		k->space = 0;
		k->addr = pa;
	}
	return 0;
}

static struct futex_chain *chain_of(const struct futex_key *k)
{
	return &buckets[bucket_of(k)];
}

// The order a wake-up takes, Linux's plist of futex_q: real-time
// waiters by their own priority (not a boost), the others after them,
// each priority first come, first served.
static uint8_t waiter_prio(const struct thread *t)
{
	if (t->policy != SCHED_FIFO && t->policy != SCHED_RR)
		return 0;
	return (uint8_t)t->rt_prio;
}

// Links w into c after 'after' (NULL: at the head).
static void link_after(struct futex_chain *c, struct futex_waiter *after, struct futex_waiter *w)
{
	w->prev = after;
	w->next = after ? after->next : c->head;
	if (w->next)
		w->next->prev = w;
	else
		c->tail = w;
	if (after)
		after->next = w;
	else
		c->head = w;
}

// Queues w (its key, thread and 'pi' set) in its chain: after every
// waiter of its priority or higher, so at the end unless a real-time
// thread of a higher priority than the last waits.  futex_lock held.
static void queue_waiter(struct futex_waiter *w)
{
	struct futex_chain *c = chain_of(&w->key);
	struct futex_waiter *after = c->tail;

	w->prio = waiter_prio(w->thread);
	if (after && after->prio < w->prio) {
		while (after && after->prio < w->prio)
			after = after->prev;
		link_after(c, after, w);
	} else {
		w->next = NULL;
		w->prev = after;
		if (after)
			after->next = w;
		else
			c->head = w;
		c->tail = w;
	}
	if (!w->pi)
		c->plain++;
	w->queued = true;
}

static void unlink_waiter(struct futex_waiter *w)
{
	struct futex_chain *c = chain_of(&w->key);

	if (!w->queued)
		return;
	if (w->prev)
		w->prev->next = w->next;
	else
		c->head = w->next;
	if (w->next)
		w->next->prev = w->prev;
	else
		c->tail = w->prev;
	if (!w->pi)
		c->plain--;
	w->next = w->prev = NULL;
	w->queued = false;
}

// A PI waiter, or one of FUTEX_WAIT_REQUEUE_PI: the plain wake and
// requeue operations refuse to touch it (EINVAL), as Linux.
static bool pi_kind(const struct futex_waiter *w)
{
	return w->pi || w->requeue_pi;
}

// Wakes up to n waiters on k whose bitset matches; futex_lock held.
// Meeting a PI-kind waiter on k ends it with -EINVAL (those woken stay
// woken, as on Linux).
static int wake_locked(const struct futex_key *k, int n, uint32_t bitset)
{
	int woken = 0;
	struct futex_waiter *w, *next;

	for (w = chain_of(k)->head; w && woken < n; w = next) {
		next = w->next;
		if (!key_equal(&w->key, k))
			continue;
		if (pi_kind(w))
			return -EINVAL;
		if (!(w->bitset & bitset))
			continue;
		unlink_waiter(w);
		w->woken = true;
		wq_wake_one(w->sleeps_on);
		woken++;
	}
	return woken;
}

static long futex_wait(uint64_t uaddr, bool private, uint32_t val, uint64_t deadline, uint32_t bitset)
{
	struct futex_waiter w = { .bitset = bitset, .thread = current_thread() };
	uint32_t cur;
	int r;

	if (!bitset)
		return -EINVAL;
	if ((r = make_key(uaddr, private, &w.key)) < 0)
		return r;
	w.sleeps_on = &w.wq;
	// The word is read under the lock, so that a waker that changed it
	// and then took the lock finds this waiter queued.  If that read
	// fails (say the page was never touched and memory is short: a
	// fault resolved under a lock may not wait), fault it in without
	// the lock and try again, as Linux's futex_wait_setup does.
	for (;;) {
		spin_lock(&futex_lock);
		if (get_user_u32(&cur, uaddr) == 0)
			break;
		spin_unlock(&futex_lock);
		if (get_user_u32(&cur, uaddr) < 0)
			return -EFAULT;
	}
	if (cur != val) {
		spin_unlock(&futex_lock);
		return -EAGAIN;
	}
	queue_waiter(&w);
	for (;;) {
		r = wq_wait(&w.wq, &futex_lock, deadline, true);
		if (w.woken || r)
			break;
	}
	if (!w.woken)
		unlink_waiter(&w);
	spin_unlock(&futex_lock);
	if (w.woken)
		return 0;
	if (r == -ETIMEDOUT)
		return -ETIMEDOUT;
	return deadline ? -EINTR : -ERESTARTSYS;
}

static long futex_wake(uint64_t uaddr, bool private, int n, uint32_t bitset)
{
	struct futex_key k;
	int r;

	if (!bitset)
		return -EINVAL;
	if ((r = make_key(uaddr, private, &k)) < 0)
		return r;
	spin_lock(&futex_lock);
	r = wake_locked(&k, n, bitset);
	spin_unlock(&futex_lock);
	return r;
}

// CLONE_CHILD_CLEARTID: Linux wakes with a non-private op, which finds
// joiners of either kind on private memory (one key).  A joiner that used
// the private flag on MAP_SHARED memory has a key of its own: wake it too.
int futex_wake_current(uint64_t uaddr, int n)
{
	struct futex_key priv, shared;
	int woken;

	if (make_key(uaddr, true, &priv) < 0 || make_key(uaddr, false, &shared) < 0)
		return 0;
	spin_lock(&futex_lock);
	woken = wake_locked(&shared, n, FUTEX_BITSET_MATCH_ANY);
	if (woken < 0)
		woken = 0;
	if (!key_equal(&priv, &shared)) {
		int more = wake_locked(&priv, n, FUTEX_BITSET_MATCH_ANY);
		woken += more > 0 ? more : 0;
	}
	spin_unlock(&futex_lock);
	return woken;
}

// Moves up to n waiters from k1 to k2 and counts them; futex_lock held.
// They are taken off k1's chain first and added to k2's afterwards, so
// that a move onto the same word (or the same chain) cannot meet the
// waiters it has just moved.  A PI-kind waiter stops it: *bad set, the
// ones before it moved all the same (Linux).
static int move_locked(const struct futex_key *k1, const struct futex_key *k2, int n, bool *bad)
{
	struct futex_waiter *taken = NULL, **end = &taken, *w, *next;
	int moved = 0;

	// Taken off first, then queued on k2 in their order: k2 may hash to
	// the chain being walked.
	for (w = chain_of(k1)->head; w && moved < n; w = next) {
		next = w->next;
		if (!key_equal(&w->key, k1))
			continue;
		if (pi_kind(w)) {
			*bad = true;
			break;
		}
		unlink_waiter(w);
		*end = w;
		end = &w->next;
		moved++;
	}
	for (w = taken; w; w = next) {
		next = w->next;
		w->key = *k2;
		queue_waiter(w);
	}
	return moved;
}

static long futex_requeue(uint64_t uaddr, uint64_t uaddr2, bool private, int nwake, int nmove,
			  bool cmp, uint32_t val3)
{
	struct futex_key k1, k2;
	int r;

	if (nwake < 0 || nmove < 0)
		return -EINVAL;
	if ((r = make_key(uaddr, private, &k1)) < 0 || (r = make_key(uaddr2, private, &k2)) < 0)
		return r;
	spin_lock(&futex_lock);
	if (cmp) {
		uint32_t cur;
		if (get_user_u32(&cur, uaddr) < 0) {
			spin_unlock(&futex_lock);
			return -EFAULT;
		}
		if (cur != val3) {
			spin_unlock(&futex_lock);
			return -EAGAIN;
		}
	}
	bool bad = false;
	int done = wake_locked(&k1, nwake, FUTEX_BITSET_MATCH_ANY);
	int moved = done < 0 ? 0 : move_locked(&k1, &k2, nmove, &bad);
	spin_unlock(&futex_lock);
	if (done < 0 || bad)
		return -EINVAL;
	return done + moved;
}

// FUTEX_WAKE_OP's operation on the second word.
static bool wake_op_apply(uint32_t encoded, uint32_t old, uint32_t *new_val)
{
	int op = (encoded >> 28) & 7;
	int shift_arg = (encoded >> 31) & 1;
	int32_t oparg = (int32_t)(encoded << 8) >> 20;

	if (shift_arg)
		oparg = (oparg < 0 || oparg > 31) ? 0 : 1 << oparg;
	switch (op & 7) {
	case 0: *new_val = (uint32_t)oparg; break;		// SET
	case 1: *new_val = old + (uint32_t)oparg; break;	// ADD
	case 2: *new_val = old | (uint32_t)oparg; break;	// OR
	case 3: *new_val = old & ~(uint32_t)oparg; break;	// ANDN
	case 4: *new_val = old ^ (uint32_t)oparg; break;	// XOR
	default: return false;
	}
	return true;
}

static bool wake_op_compare(uint32_t encoded, uint32_t old)
{
	int cmp = (encoded >> 24) & 15;
	int32_t cmparg = (int32_t)(encoded << 20) >> 20;
	int32_t o = (int32_t)old;

	switch (cmp) {
	case 0: return o == cmparg;
	case 1: return o != cmparg;
	case 2: return o < cmparg;
	case 3: return o <= cmparg;
	case 4: return o > cmparg;
	case 5: return o >= cmparg;
	default: return false;
	}
}

static long futex_wake_op(uint64_t uaddr, uint64_t uaddr2, bool private, int nwake, int nwake2,
			  uint32_t encoded)
{
	struct futex_key k1, k2;
	int r;

	if ((r = make_key(uaddr, private, &k1)) < 0 || (r = make_key(uaddr2, private, &k2)) < 0)
		return r;
	if ((encoded >> 24 & 15) > 5 || ((encoded >> 28) & 7) > 4)
		return -ENOSYS;
	spin_lock(&futex_lock);
	uint32_t old, desired, seen;
	for (;;) {
		if (get_user_u32(&old, uaddr2) < 0) {
			spin_unlock(&futex_lock);
			return -EFAULT;
		}
		wake_op_apply(encoded, old, &desired);
		if (user_cmpxchg_u32(uaddr2, old, desired, &seen) < 0) {
			spin_unlock(&futex_lock);
			return -EFAULT;
		}
		if (seen == old)
			break;
	}
	int woken = wake_locked(&k1, nwake, FUTEX_BITSET_MATCH_ANY);
	if (woken >= 0 && wake_op_compare(encoded, old)) {
		int more = wake_locked(&k2, nwake2, FUTEX_BITSET_MATCH_ANY);
		woken = more < 0 ? more : woken + more;
	}
	spin_unlock(&futex_lock);
	return woken;
}

// ---- priority-inheritance futexes ----
//
// Linux's PI protocol on the user word: the owner's TID, FUTEX_WAITERS
// once someone waits in the kernel, FUTEX_OWNER_DIED left by a robust
// owner's death.  A locker takes a free word itself (cmpxchg); a waiter
// sleeps until UNLOCK_PI hands it the lock (the word gets its TID and
// FUTEX_WAITERS, as Linux's wake_futex_pi), the waiter of the best
// priority first, as Linux's rt_mutex orders them.  While it waits, the owner
// runs at least at its real-time priority (sched_pi_block: Linux's
// rt_mutex boosting, along the chain of owners).  A waiter sleeps until
// the handoff, its deadline, a signal, or its owner's end: a robust
// owner's exit marks the word and wakes the top waiter, any owner's exit
// wakes the waiters that named it (futex_owner_exited), and one that
// exited without unlocking (Linux's exit_pi_state_list) leaves the lock
// to them, with FUTEX_OWNER_DIED.  Nothing polls: a thousand waiters on
// one lock cost nothing while they wait.

static bool pi_waiters_locked(const struct futex_key *k, const struct futex_waiter *except)
{
	for (struct futex_waiter *w = chain_of(k)->head; w; w = w->next)
		if (w != except && w->pi && key_equal(&w->key, k))
			return true;
	return false;
}

// Does a waiter of the plain calls (or a WAIT_REQUEUE_PI one not yet
// moved) sleep on k?  Then k is no PI lock: Linux's PI calls on it find
// a top waiter without PI state and fail with EINVAL.
static bool plain_waiters_locked(const struct futex_key *k)
{
	if (!chain_of(k)->plain)
		return false;
	for (struct futex_waiter *w = chain_of(k)->head; w; w = w->next)
		if (!w->pi && key_equal(&w->key, k))
			return true;
	return false;
}

// The PI waiter on k that gets the lock next, or NULL: the best
// priority, and of those the one that has waited longest (the first on
// the chain), as Linux's rt_mutex orders them.
static struct futex_waiter *pi_top_waiter_locked(const struct futex_key *k)
{
	struct futex_waiter *next = NULL;
	int best = 0;

	for (struct futex_waiter *w = chain_of(k)->head; w; w = w->next) {
		if (!w->pi || !key_equal(&w->key, k))
			continue;
		int prio = sched_stat_prio(w->thread);
		if (!next || prio < best) {
			next = w;
			best = prio;
		}
	}
	return next;
}

// Is the thread 'tid' alive (a thread of some process, not exiting)?
static bool pi_owner_alive(uint32_t tid)
{
	struct thread *t = thread_find((int)tid);

	return t && !t->exiting;
}

// An owner TID no thread has is ESRCH for a new waiter (Linux); one on
// its way out is waited for, as Linux waits for its exit to finish: its
// robust list, or the waiter's takeover, settles the lock.
static bool pi_owner_gone(uint32_t tid)
{
	return !thread_find((int)tid);
}

// One attempt under futex_lock: 1 taken, 0 owned by another (*seen the
// word), or -EDEADLK, -EINVAL (plain waiters on it), -EFAULT.  A free word (no TID) is taken keeping its
// FUTEX_OWNER_DIED.  A waiter that slept ('waited') also takes one whose
// owner is gone, marking it FUTEX_OWNER_DIED, and leaves FUTEX_WAITERS
// set, as Linux's fixup of a lock taken after blocking on it does.
static int pi_try_locked(uint64_t uaddr, const struct futex_key *k, struct futex_waiter *me,
			 bool waited, uint32_t *seen)
{
	uint32_t tid = (uint32_t)me->thread->tid, val;

	for (;;) {
		if (get_user_u32(&val, uaddr) < 0)
			return -EFAULT;
		uint32_t owner = val & FUTEX_TID_MASK;
		if (owner == tid)
			return -EDEADLK;
		if (plain_waiters_locked(k))
			return -EINVAL;
		if (owner && !(waited && !pi_owner_alive(owner))) {
			*seen = val;
			return 0;
		}
		bool waiters = waited || pi_waiters_locked(k, me);
		uint32_t want = tid | (val & FUTEX_OWNER_DIED) | (owner ? FUTEX_OWNER_DIED : 0) |
				(waiters ? FUTEX_WAITERS : 0), got;
		if (user_cmpxchg_u32(uaddr, val, want, &got) < 0)
			return -EFAULT;
		if (got == val)
			return 1;
	}
}

// Priority inheritance (kernel/sched/sched.c): a waiter lends its
// priority to the owner named in the word; at a handoff the new owner
// stops waiting and the other waiters lend theirs to it.
static void pi_lend_priority(uint32_t val)
{
	struct thread *owner = thread_find((int)(val & FUTEX_TID_MASK));

	if (owner)
		sched_pi_block(current_thread(), owner);
}

static void pi_hand_over(struct futex_waiter *next, const struct futex_key *k)
{
	sched_pi_unblock(next->thread);
	for (struct futex_waiter *w = chain_of(k)->head; w; w = w->next)
		if (w->pi && key_equal(&w->key, k)) {
			w->owner_tid = (uint32_t)next->thread->tid;
			sched_pi_block(w->thread, next->thread);
		}
}


// Takes the PI lock at uaddr for w's thread, sleeping as a PI waiter on
// w->key until UNLOCK_PI hands it over or its owner is gone: 1, or
// -ETIMEDOUT, -EINTR (a signal), -EAGAIN (trylock), -ESRCH, -EDEADLK,
// -EFAULT.  'queued': w is on the chain already (CMP_REQUEUE_PI moved it
// there and set FUTEX_WAITERS).  w is off the chain on return.
// futex_lock held.
static int pi_lock_locked(uint64_t uaddr, struct futex_waiter *w, uint64_t deadline, bool trylock,
			  bool queued)
{
	bool waited = queued;
	uint32_t val;
	int r;

	for (;;) {
		if (w->woken)
			return 1;	// handed over by UNLOCK_PI, off the chain
		r = pi_try_locked(uaddr, &w->key, w, waited, &val);
		if (r != 0)
			break;
		if (!waited && pi_owner_gone(val & FUTEX_TID_MASK)) {
			r = -ESRCH;		// Linux: an owner TID no task has
			break;
		}
		if (trylock) {
			r = -EAGAIN;
			break;
		}
		if (!(val & FUTEX_WAITERS)) {
			uint32_t got;
			if (user_cmpxchg_u32(uaddr, val, val | FUTEX_WAITERS, &got) < 0) {
				r = -EFAULT;
				break;
			}
			if (got != val)
				continue;	// the word moved: look again
		}
		// Queued once, keeping its place in the handoff order.
		if (!queued) {
			queue_waiter(w);
			queued = true;
		}
		w->owner_tid = val & FUTEX_TID_MASK;
		pi_lend_priority(val);
		int wr = wq_wait(w->sleeps_on, &futex_lock, deadline, true);
		if (w->woken)
			return 1;
		if (deadline && deadline_passed(deadline)) {
			r = -ETIMEDOUT;
			break;
		}
		if (wr == -EINTR) {
			r = -EINTR;
			break;
		}
		waited = true;
	}
	if (queued)
		unlink_waiter(w);
	sched_pi_unblock(w->thread);
	return r;
}

static long futex_lock_pi(uint64_t uaddr, bool private, uint64_t deadline, bool trylock)
{
	struct futex_waiter w = { .thread = current_thread(), .pi = true };
	uint32_t val;
	int r;

	if ((r = make_key(uaddr, private, &w.key)) < 0)
		return r;
	w.sleeps_on = &w.wq;
	if (get_user_u32(&val, uaddr) < 0)
		return -EFAULT;
	spin_lock(&futex_lock);
	r = pi_lock_locked(uaddr, &w, deadline, trylock, false);
	spin_unlock(&futex_lock);
	if (r == -EINTR)
		return -ERESTARTNOINTR;	// Linux restarts a PI lock after a handler
	return r == 1 ? 0 : r;
}

static long futex_unlock_pi(uint64_t uaddr, bool private)
{
	uint32_t tid = (uint32_t)current_thread()->tid, val, got;
	struct futex_key k;
	int r;

	if ((r = make_key(uaddr, private, &k)) < 0)
		return r;
	if (get_user_u32(&val, uaddr) < 0)
		return -EFAULT;
	spin_lock(&futex_lock);
	for (;;) {
		if (get_user_u32(&val, uaddr) < 0) {
			r = -EFAULT;
			break;
		}
		if ((val & FUTEX_TID_MASK) != tid) {
			r = -EPERM;
			break;
		}
		if (plain_waiters_locked(&k)) {
			r = -EINVAL;
			break;
		}
		struct futex_waiter *next = pi_top_waiter_locked(&k);
		uint32_t want = next ? ((uint32_t)next->thread->tid | FUTEX_WAITERS) : 0;
		if (user_cmpxchg_u32(uaddr, val, want, &got) < 0) {
			r = -EFAULT;
			break;
		}
		if (got != val)
			continue;
		if (next) {
			unlink_waiter(next);
			pi_hand_over(next, &k);
			next->woken = true;
			wq_wake_one(next->sleeps_on);
		}
		r = 0;
		break;
	}
	spin_unlock(&futex_lock);
	return r;
}

// A robust PI lock's owner died (futex_robust.c marked the word): its
// top waiter looks at the word now rather than at its next recheck.
void futex_pi_owner_died(uint64_t uaddr)
{
	struct futex_key keys[2];

	if (make_key(uaddr, false, &keys[0]) < 0 || make_key(uaddr, true, &keys[1]) < 0)
		return;
	spin_lock(&futex_lock);
	for (int i = 0; i < 2; i++) {
		struct futex_waiter *w = pi_top_waiter_locked(&keys[i]);
		if (w)
			wq_wake_one(w->sleeps_on);
	}
	spin_unlock(&futex_lock);
}

// Thread t has ended (its TID is free): the PI waiters asleep on a lock
// it owned look at the word again and take the lock over.  Only an owner
// with waiters (sched_pi_block lent it their priority) pays for the look.
// The check is made under futex_lock: a waiter finds the owner alive,
// lends it its priority and sleeps all under that lock, so either it is
// asleep and lent by now, or it will find the TID gone.
void futex_owner_exited(struct thread *t)
{
	spin_lock(&futex_lock);
	if (sched_pi_has_waiters(t))
		for (unsigned b = 0; b < NBUCKETS; b++)
			for (struct futex_waiter *w = buckets[b].head; w; w = w->next)
				if (w->pi && w->owner_tid == (uint32_t)t->tid)
					wq_wake_one(w->sleeps_on);
	spin_unlock(&futex_lock);
}

// ---- requeue to a PI futex (what a PI condition variable is built on) ----
//
// FUTEX_WAIT_REQUEUE_PI sleeps on a plain word, naming the PI word it
// expects to be moved to; FUTEX_CMP_REQUEUE_PI takes that PI lock for the
// oldest waiter if it is free (the waiter wakes owning it) and moves the
// rest (or all of them, if it was not free) onto the PI word as its
// waiters, with FUTEX_WAITERS set, to be handed the lock by UNLOCK_PI.

// The waiter on k that has waited longest, or NULL.  futex_lock held.
static struct futex_waiter *rq_oldest_locked(const struct futex_key *k)
{
	for (struct futex_waiter *w = chain_of(k)->head; w; w = w->next)
		if (key_equal(&w->key, k))
			return w;
	return NULL;
}

// Is w a FUTEX_WAIT_REQUEUE_PI waiter still on its plain word, expecting
// k2?  Anything else makes CMP_REQUEUE_PI fail with EINVAL.
static bool rq_waiter_ok(const struct futex_waiter *w, const struct futex_key *k2)
{
	return w->requeue_pi && !w->pi && key_equal(&w->pi_key, k2);
}

// Linux's futex_proxy_trylock_atomic: the PI lock at uaddr2 for 'top'.
// 1 taken (top woken owning it), 0 owned by another (FUTEX_WAITERS set
// there, *owner its TID), or -EDEADLK (top owns it), -EINVAL (plain
// waiters on it), -ESRCH, -EFAULT.
static int rq_proxy_lock_locked(uint64_t uaddr2, struct futex_waiter *top, bool set_waiters,
				uint32_t *owner)
{
	uint32_t tid = (uint32_t)top->thread->tid, val, got;

	for (;;) {
		if (get_user_u32(&val, uaddr2) < 0)
			return -EFAULT;
		*owner = val & FUTEX_TID_MASK;
		if (*owner == tid)
			return -EDEADLK;
		if (plain_waiters_locked(&top->pi_key))
			return -EINVAL;
		uint32_t want;
		if (!*owner)
			want = tid | (val & FUTEX_OWNER_DIED) |
			       (set_waiters || pi_waiters_locked(&top->pi_key, NULL) ?
				FUTEX_WAITERS : 0);
		else
			want = val | FUTEX_WAITERS;
		if (user_cmpxchg_u32(uaddr2, val, want, &got) < 0)
			return -EFAULT;
		if (got != val)
			continue;
		if (*owner)
			return pi_owner_gone(*owner) ? -ESRCH : 0;
		unlink_waiter(top);
		top->woken = true;
		wq_wake_one(top->sleeps_on);
		*owner = tid;
		return 1;
	}
}

// Moves w from its plain word onto the PI word as a waiter there; its
// thread wakes to sleep the PI way (see futex_wait_requeue_pi).
static void rq_move_locked(struct futex_waiter *w)
{
	unlink_waiter(w);
	w->key = w->pi_key;
	w->pi = true;
	queue_waiter(w);
	wq_wake_one(w->sleeps_on);
}

// Linux's futex_requeue with requeue_pi, under futex_lock: the number of
// waiters given the lock or moved, or an errno.  As Linux, it processes
// up to nmove + 1 waiters, the one given the lock counting in.
static int rq_pi_locked(uint64_t uaddr2, const struct futex_key *k1, const struct futex_key *k2,
			int nmove)
{
	struct futex_waiter *top = rq_oldest_locked(k1);
	uint32_t owner;

	if (!top)
		return 0;
	if (!rq_waiter_ok(top, k2))
		return -EINVAL;
	int r = rq_proxy_lock_locked(uaddr2, top, nmove > 0, &owner);
	if (r < 0)
		return r;
	int count = r;
	while (count - 1 < nmove) {
		struct futex_waiter *w = rq_oldest_locked(k1);
		if (!w)
			break;
		if (!rq_waiter_ok(w, k2))
			return -EINVAL;
		if ((uint32_t)w->thread->tid == owner)
			return -EDEADLK;	// it would wait for itself
		rq_move_locked(w);
		count++;
	}
	return count;
}

static long futex_cmp_requeue_pi(uint64_t uaddr, uint64_t uaddr2, bool private, int nwake,
				 int nmove, uint32_t val3)
{
	struct futex_key k1, k2;
	uint32_t cur;
	int r;

	if (nwake < 0 || nmove < 0)
		return -EINVAL;
	if (uaddr == uaddr2)
		return -EINVAL;
	// Linux wakes only the one it can give the PI lock to.
	if (nwake != 1)
		return -EINVAL;
	if ((r = make_key(uaddr, private, &k1)) < 0 || (r = make_key(uaddr2, private, &k2)) < 0)
		return r;
	if (key_equal(&k1, &k2))
		return -EINVAL;		// the same shared word through two mappings
	if (get_user_u32(&cur, uaddr2) < 0)
		return -EFAULT;
	spin_lock(&futex_lock);
	if (get_user_u32(&cur, uaddr) < 0)
		r = -EFAULT;
	else if (cur != val3)
		r = -EAGAIN;
	else
		r = rq_pi_locked(uaddr2, &k1, &k2, nmove);
	spin_unlock(&futex_lock);
	return r;
}

// Linux's futex_wait_requeue_pi.  Before it is moved, a signal restarts
// the call (ERESTARTNOINTR) and the deadline gives ETIMEDOUT; once moved
// it is a PI waiter: given the lock 0, the deadline ETIMEDOUT, a signal
// EWOULDBLOCK (a restart would find the plain word changed anyway).
static long futex_wait_requeue_pi(uint64_t uaddr, uint64_t uaddr2, bool private, uint32_t val,
				  uint64_t deadline)
{
	struct futex_waiter w = { .bitset = FUTEX_BITSET_MATCH_ANY, .thread = current_thread(),
				  .requeue_pi = true };
	uint32_t cur;
	int r;

	if (uaddr == uaddr2)
		return -EINVAL;
	if ((r = make_key(uaddr2, private, &w.pi_key)) < 0 ||
	    (r = make_key(uaddr, private, &w.key)) < 0)
		return r;
	w.sleeps_on = &w.wq;
	if (get_user_u32(&cur, uaddr) < 0)
		return -EFAULT;
	spin_lock(&futex_lock);
	if (get_user_u32(&cur, uaddr) < 0)
		r = -EFAULT;
	else if (cur != val)
		r = -EAGAIN;
	else if (key_equal(&w.key, &w.pi_key))
		r = -EINVAL;
	if (r < 0) {
		spin_unlock(&futex_lock);
		return r;
	}
	queue_waiter(&w);
	int wr = 0;
	while (!w.woken && !w.pi && !wr)
		wr = wq_wait(&w.wq, &futex_lock, deadline, true);
	if (w.woken) {
		r = 0;			// CMP_REQUEUE_PI took the lock for us
	} else if (w.pi) {
		r = pi_lock_locked(uaddr2, &w, deadline, false, true);
		r = r == 1 ? 0 : r == -EINTR ? -EAGAIN : r;
	} else {
		unlink_waiter(&w);
		r = wr == -ETIMEDOUT ? -ETIMEDOUT : -ERESTARTNOINTR;
	}
	spin_unlock(&futex_lock);
	return r;
}

// The deadline of a wait: relative for FUTEX_WAIT, absolute (monotonic or
// realtime) for FUTEX_WAIT_BITSET.  0 = none.
static int timeout_deadline(uint64_t utime, bool absolute, bool realtime, uint64_t *deadline)
{
	uint64_t ns;

	*deadline = 0;
	if (!utime)
		return 0;
	int r = get_timespec_ns(utime, &ns);
	if (r < 0)
		return r;
	uint64_t now = clock_monotonic_ns();
	if (!absolute) {
		*deadline = now + ns + 1;
	} else if (realtime) {
		*deadline = ns | DEADLINE_REALTIME;	// follows clock_settime
	} else {
		*deadline = ns;
	}
	if (*deadline == 0)
		*deadline = 1;		// already passed, but not "forever"
	return 0;
}

// The commands other than FUTEX_WAIT and FUTEX_WAKE, out of line so that
// those two, which every mutex and condition variable makes, pay for
// none of the others' locals.
static __attribute__((noinline)) long futex_other(const struct syscall_args *args, int cmd,
						  bool private, bool realtime)
{
	uint64_t uaddr = args->a[0], utime = args->a[3], uaddr2 = args->a[4];
	uint32_t val = (uint32_t)args->a[2], val3 = (uint32_t)args->a[5];
	uint64_t deadline;
	int r;

	switch (cmd) {
	case FUTEX_WAIT_BITSET:
		if ((r = timeout_deadline(utime, true, realtime, &deadline)) < 0)
			return r;
		return futex_wait(uaddr, private, val, deadline, val3);
	case FUTEX_WAKE_BITSET:
		return futex_wake(uaddr, private, (int)val, val3);
	case FUTEX_REQUEUE:
		return futex_requeue(uaddr, uaddr2, private, (int)val, (int)utime, false, 0);
	case FUTEX_CMP_REQUEUE:
		return futex_requeue(uaddr, uaddr2, private, (int)val, (int)utime, true, val3);
	case FUTEX_WAKE_OP:
		return futex_wake_op(uaddr, uaddr2, private, (int)val, (int)utime, val3);
	case FUTEX_LOCK_PI:		// an absolute CLOCK_REALTIME timeout
	case FUTEX_LOCK_PI2:		// CLOCK_MONOTONIC unless FUTEX_CLOCK_REALTIME
		if ((r = timeout_deadline(utime, true, cmd == FUTEX_LOCK_PI || realtime,
					  &deadline)) < 0)
			return r;
		return futex_lock_pi(uaddr, private, deadline, false);
	case FUTEX_TRYLOCK_PI:
		return futex_lock_pi(uaddr, private, 0, true);
	case FUTEX_UNLOCK_PI:
		return futex_unlock_pi(uaddr, private);
	case FUTEX_WAIT_REQUEUE_PI:	// absolute, CLOCK_MONOTONIC unless FUTEX_CLOCK_REALTIME
		if ((r = timeout_deadline(utime, true, realtime, &deadline)) < 0)
			return r;
		return futex_wait_requeue_pi(uaddr, uaddr2, private, val, deadline);
	case FUTEX_CMP_REQUEUE_PI:
		return futex_cmp_requeue_pi(uaddr, uaddr2, private, (int)val, (int)utime, val3);
	default:
		return -ENOSYS;
	}
}

SYSCALL_DEFINE(SYS_futex, futex)
{
	int op = (int)args->a[1];
	bool private = op & FUTEX_PRIVATE_FLAG;
	bool realtime = op & FUTEX_CLOCK_REALTIME;
	int cmd = op & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
	uint64_t deadline;
	int r;

	// As on Linux, only the calls with an absolute timeout take a realtime
	// clock; FUTEX_WAIT's relative one would ignore it.
	if (realtime && cmd != FUTEX_WAIT_BITSET && cmd != FUTEX_LOCK_PI2 &&
	    cmd != FUTEX_WAIT_REQUEUE_PI)
		return -ENOSYS;
	if (cmd == FUTEX_WAKE)
		return futex_wake(args->a[0], private, (int)args->a[2], FUTEX_BITSET_MATCH_ANY);
	if (cmd != FUTEX_WAIT)
		return futex_other(args, cmd, private, realtime);
	if ((r = timeout_deadline(args->a[3], false, false, &deadline)) < 0)
		return r;
	return futex_wait(args->a[0], private, (uint32_t)args->a[2], deadline, FUTEX_BITSET_MATCH_ANY);
}

// ---- futex_waitv ----

#define FUTEX_32		2	// FUTEX2_SIZE_U32: the only size
#define FUTEX_WAITV_MAX		128

struct futex_waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

// Linux's futex_parse_waitv and the keys of futex_wait_multiple_setup:
// every entry is checked (EFAULT, EINVAL) before any is queued.
static long waitv_parse(uint64_t uwaiters, unsigned n, struct futex_waiter *ws, uint64_t *uaddrs,
			uint32_t *vals)
{
	for (unsigned i = 0; i < n; i++) {
		struct futex_waitv aux;

		if (copy_from_user(&aux, uwaiters + i * sizeof(aux), sizeof(aux)) < 0)
			return -EFAULT;
		if ((aux.flags & ~(FUTEX_32 | FUTEX_PRIVATE_FLAG)) || aux.reserved)
			return -EINVAL;
		if (!(aux.flags & FUTEX_32))
			return -EINVAL;
		vals[i] = (uint32_t)aux.val;	// compared as a u32, as Linux
		uaddrs[i] = aux.uaddr;
		ws[i].bitset = FUTEX_BITSET_MATCH_ANY;
		ws[i].thread = current_thread();
		ws[i].key.space = aux.flags & FUTEX_PRIVATE_FLAG;	// until its key is made
	}
	for (unsigned i = 0; i < n; i++) {
		long r = make_key(uaddrs[i], ws[i].key.space != 0, &ws[i].key);

		if (r < 0)
			return r;
	}
	return 0;
}

// The highest index a wake-up took off its chain, or -1; the others are
// unlinked.  futex_lock held.
static int waitv_unqueue_locked(struct futex_waiter *ws, unsigned n)
{
	int woken = -1;

	for (unsigned i = 0; i < n; i++) {
		if (ws[i].woken)
			woken = (int)i;
		else if (ws[i].sleeps_on)
			unlink_waiter(&ws[i]);
	}
	return woken;
}

// Linux's futex_wait_multiple: queued on every word whose value is as
// given (EAGAIN at the first that is not, unless one was already woken),
// then asleep until a FUTEX_WAKE on any of them (its index), the
// deadline (ETIMEDOUT) or a signal (ERESTARTSYS, even with a timeout:
// it is absolute).
static long waitv_wait(struct futex_waiter *ws, const uint64_t *uaddrs, const uint32_t *vals,
		       unsigned n, uint64_t deadline)
{
	struct wait_queue wq = { 0 };
	int woken = -1, r = 0;
	uint32_t cur;

	// Fault the words in before taking the lock.
	for (unsigned i = 0; i < n; i++)
		if (get_user_u32(&cur, uaddrs[i]) < 0)
			return -EFAULT;
	spin_lock(&futex_lock);
	for (unsigned i = 0; i < n; i++) {
		if (get_user_u32(&cur, uaddrs[i]) < 0 || cur != vals[i]) {
			woken = waitv_unqueue_locked(ws, i);
			spin_unlock(&futex_lock);
			if (woken >= 0)
				return woken;
			return get_user_u32(&cur, uaddrs[i]) < 0 ? -EFAULT : -EAGAIN;
		}
		ws[i].sleeps_on = &wq;
		queue_waiter(&ws[i]);
	}
	for (;;) {
		for (unsigned i = 0; i < n && woken < 0; i++)
			if (ws[i].woken)
				woken = (int)i;
		if (woken >= 0 || r)
			break;
		r = wq_wait(&wq, &futex_lock, deadline, true);
	}
	woken = waitv_unqueue_locked(ws, n);
	spin_unlock(&futex_lock);
	if (woken >= 0)
		return woken;
	return r == -ETIMEDOUT ? -ETIMEDOUT : -ERESTARTSYS;
}

SYSCALL_DEFINE(SYS_futex_waitv, futex_waitv)
{
	uint64_t uwaiters = args->a[0], utimeout = args->a[3];
	unsigned n = (unsigned)args->a[1], flags = (unsigned)args->a[2];
	int clockid = (int)args->a[4];
	struct futex_waiter *ws;
	uint64_t deadline = 0, *uaddrs;
	uint32_t *vals;
	long r;

	if (flags)
		return -EINVAL;
	if (!n || n > FUTEX_WAITV_MAX || !uwaiters)
		return -EINVAL;
	if (utimeout) {
		if (clockid != KT_CLOCK_REALTIME && clockid != KT_CLOCK_MONOTONIC)
			return -EINVAL;
		if ((r = timeout_deadline(utimeout, true, clockid == KT_CLOCK_REALTIME,
					  &deadline)) < 0)
			return r;
	}
	ws = kzalloc(n * (sizeof(*ws) + sizeof(*uaddrs) + sizeof(*vals)));
	if (!ws)
		return -ENOMEM;
	uaddrs = (uint64_t *)(ws + n);
	vals = (uint32_t *)(uaddrs + n);
	r = waitv_parse(uwaiters, n, ws, uaddrs, vals);
	if (r == 0)
		r = waitv_wait(ws, uaddrs, vals, n, deadline);
	kfree(ws);
	return r;
}
