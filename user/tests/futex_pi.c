// futex_pi: requeueing onto priority-inheritance futexes
// (FUTEX_WAIT_REQUEUE_PI, FUTEX_CMP_REQUEUE_PI) with their errnos, PI
// locks whose owner dies (robust list or not), and glibc's PI mutexes
// under pthread_cond_wait and robust PI mutexes.  Built with glibc only
// (its PTHREAD_PRIO_INHERIT mutexes are what a program uses).
//
// No case depends on timing: a waiter is known to be asleep in the kernel
// when a harmless call says so.  A FUTEX_WAIT_REQUEUE_PI waiter makes
// FUTEX_REQUEUE (wake 0, move 1) fail with EINVAL; a PI waiter makes
// FUTEX_WAKE on its word fail with EINVAL; a plain waiter is moved to a
// staging word by FUTEX_REQUEUE, which counts it.
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procstatus.h"
#include "testcase.h"

#define FUTEX_WAIT		0
#define FUTEX_WAKE		1
#define FUTEX_REQUEUE		3
#define FUTEX_CMP_REQUEUE	4
#define FUTEX_WAKE_OP		5
#define FUTEX_LOCK_PI		6
#define FUTEX_UNLOCK_PI		7
#define FUTEX_WAIT_REQUEUE_PI	11
#define FUTEX_CMP_REQUEUE_PI	12
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX_CLOCK_REALTIME	256

#define FUTEX_WAITERS		0x80000000u
#define FUTEX_OWNER_DIED	0x40000000u
#define FUTEX_TID_MASK		0x3fffffffu

#define P FUTEX_PRIVATE_FLAG

static long futex(volatile uint32_t *uaddr, int op, uint32_t val, const void *timeout_or_val2,
		  volatile uint32_t *uaddr2, uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, timeout_or_val2, uaddr2, val3);
}

static long cmp_requeue_pi(volatile uint32_t *f1, volatile uint32_t *f2, int nwake, long nmove,
			   int flags)
{
	return futex(f1, FUTEX_CMP_REQUEUE_PI | flags, (uint32_t)nwake, (void *)nmove, f2, *f1);
}

static int gettid_(void)
{
	return (int)syscall(SYS_gettid);
}

// An absolute time 'ms' from now on 'clock'.
static struct timespec abs_in(clockid_t clock, long ms)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	ts.tv_nsec += (ms % 1000) * 1000000L;
	ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return ts;
}

// Is a FUTEX_WAIT_REQUEUE_PI waiter asleep on f1?  Moves nothing.
static int rq_waiter_queued(volatile uint32_t *f1, int flags)
{
	static uint32_t nowhere;

	return futex(f1, FUTEX_REQUEUE | flags, 0, (void *)1L, &nowhere, 0) < 0 && errno == EINVAL;
}

// Is a PI waiter asleep on f?  Wakes nothing.
static int pi_waiter_queued(volatile uint32_t *f, int flags)
{
	return futex(f, FUTEX_WAKE | flags, 1, NULL, NULL, 0) < 0 && errno == EINVAL;
}

static void wait_until(int (*queued)(volatile uint32_t *, int), volatile uint32_t *f, int flags)
{
	while (!queued(f, flags))
		usleep(1000);
}

// ---- a FUTEX_WAIT_REQUEUE_PI waiter thread ----

struct rq_waiter {
	volatile uint32_t *f1, *f2;
	const struct timespec *timeout;
	int flags;
	pthread_t th;
	int tid;
	long ret;
	int err;
	uint32_t word;		// *f2 right after the call
	long unlock_ret;	// its UNLOCK_PI of f2 when it got the lock
};

static void *rq_waiter_fn(void *arg)
{
	struct rq_waiter *w = arg;

	w->tid = gettid_();
	w->ret = futex(w->f1, FUTEX_WAIT_REQUEUE_PI | w->flags, *w->f1, w->timeout, w->f2, 0);
	w->err = errno;
	w->word = *w->f2;
	if (w->ret == 0)
		w->unlock_ret = futex(w->f2, FUTEX_UNLOCK_PI | w->flags, 0, NULL, NULL, 0);
	return NULL;
}

static void rq_start(struct rq_waiter *w, volatile uint32_t *f1, volatile uint32_t *f2)
{
	w->f1 = f1;
	w->f2 = f2;
	w->flags = P;
	w->unlock_ret = -2;
	pthread_create(&w->th, NULL, rq_waiter_fn, w);
}

static int lock_pi(volatile uint32_t *f)
{
	return (int)futex(f, FUTEX_LOCK_PI | P, 0, NULL, NULL, 0);
}

static int unlock_pi(volatile uint32_t *f)
{
	return (int)futex(f, FUTEX_UNLOCK_PI | P, 0, NULL, NULL, 0);
}

// ---- errnos of the calls themselves ----

static void t_rq_same_word(void)
{
	uint32_t f1 = 0;

	check_errno(futex(&f1, FUTEX_WAIT_REQUEUE_PI | P, 0, NULL, &f1, 0), EINVAL,
		    "WAIT_REQUEUE_PI onto its own word");
	check_errno(cmp_requeue_pi(&f1, &f1, 1, 0, P), EINVAL, "CMP_REQUEUE_PI onto its own word");
	check_errno(cmp_requeue_pi(&f1, &f1, 1, 0, 0), EINVAL, "the same, shared");
}

static void t_rq_nr_wake(void)
{
	uint32_t f1 = 0, f2 = 0;

	check_errno(cmp_requeue_pi(&f1, &f2, 0, 0, P), EINVAL, "nr_wake 0");
	check_errno(cmp_requeue_pi(&f1, &f2, 2, 0, P), EINVAL, "nr_wake 2");
	check_errno(cmp_requeue_pi(&f1, &f2, -1, 0, P), EINVAL, "nr_wake -1");
	check_errno(cmp_requeue_pi(&f1, &f2, 1, -1, P), EINVAL, "nr_requeue -1");
	check_errno(futex(&f1, FUTEX_CMP_REQUEUE_PI | P | FUTEX_CLOCK_REALTIME, 1, NULL, &f2, 0),
		    ENOSYS, "CMP_REQUEUE_PI with FUTEX_CLOCK_REALTIME");
}

static void t_rq_value(void)
{
	uint32_t f1 = 5, f2 = 0;

	check_errno(futex(&f1, FUTEX_WAIT_REQUEUE_PI | P, 4, NULL, &f2, 0), EAGAIN,
		    "WAIT_REQUEUE_PI with a stale value");
	check_errno(futex(&f1, FUTEX_CMP_REQUEUE_PI | P, 1, NULL, &f2, 4), EAGAIN,
		    "CMP_REQUEUE_PI with a stale value");
	check(cmp_requeue_pi(&f1, &f2, 1, 0, P) == 0, "CMP_REQUEUE_PI with nobody waiting gives 0");
	check(f2 == 0, "and leaves the PI word alone");
	check_errno(futex(NULL, FUTEX_WAIT_REQUEUE_PI | P, 0, NULL, &f2, 0), EFAULT, "NULL uaddr");
	check_errno(futex(&f1, FUTEX_WAIT_REQUEUE_PI | P, 5, NULL,
			  (uint32_t *)((char *)&f2 + 2), 0), EINVAL, "misaligned uaddr2");
	check_errno(futex((uint32_t *)((char *)&f1 + 1), FUTEX_WAIT_REQUEUE_PI | P, 5, NULL, &f2, 0),
		    EINVAL, "misaligned uaddr");
}

static void t_rq_timeout(void)
{
	uint32_t f1 = 0, f2 = 0;
	struct timespec mono = abs_in(CLOCK_MONOTONIC, 20), rt = abs_in(CLOCK_REALTIME, 20);
	struct timespec bad = { 0, 1000000000L };

	check_errno(futex(&f1, FUTEX_WAIT_REQUEUE_PI | P, 0, &mono, &f2, 0), ETIMEDOUT,
		    "monotonic absolute timeout");
	check_errno(futex(&f1, FUTEX_WAIT_REQUEUE_PI | P | FUTEX_CLOCK_REALTIME, 0, &rt, &f2, 0),
		    ETIMEDOUT, "realtime absolute timeout");
	check_errno(futex(&f1, FUTEX_WAIT_REQUEUE_PI | P, 0, &bad, &f2, 0), EINVAL,
		    "tv_nsec of a second");
	check(f2 == 0, "the PI word is untouched");
}

// ---- requeueing ----

// The PI word is free: the oldest waiter is given it at once.
static void rq_take_free(long nmove, uint32_t bits)
{
	uint32_t f1 = 0, f2 = 0;
	struct rq_waiter w = { 0 };

	rq_start(&w, &f1, &f2);
	wait_until(rq_waiter_queued, &f1, P);
	long r = cmp_requeue_pi(&f1, &f2, 1, nmove, P);
	pthread_join(w.th, NULL);
	check(r == 1, "CMP_REQUEUE_PI counts the waiter it gave the lock");
	check(w.ret == 0, "the waiter returns 0");
	if (w.word != ((uint32_t)w.tid | bits))
		fail("word %#x after the proxy lock, want %#x", w.word, (uint32_t)w.tid | bits);
	check(w.unlock_ret == 0, "the waiter owns it (UNLOCK_PI works)");
	check(f2 == 0, "and the word is free after");
}

static void t_rq_take_free(void) { rq_take_free(0, 0); }
// Asking to move more sets FUTEX_WAITERS even with nobody to move.
static void t_rq_take_free_waiters(void) { rq_take_free(1, FUTEX_WAITERS); }

static void t_rq_to_owned(void)
{
	uint32_t f1 = 0, f2 = 0;
	struct rq_waiter w = { 0 };
	uint32_t me = (uint32_t)gettid_();

	check_ok(lock_pi(&f2), "LOCK_PI");
	rq_start(&w, &f1, &f2);
	wait_until(rq_waiter_queued, &f1, P);
	long r = cmp_requeue_pi(&f1, &f2, 1, 0, P);
	check(r == 1, "a waiter requeued onto a held lock counts");
	check(f2 == (me | FUTEX_WAITERS), "the owner's word gets FUTEX_WAITERS");
	check(pi_waiter_queued(&f2, P), "the waiter is a PI waiter of f2 now");
	check(!rq_waiter_queued(&f1, P), "and no more on f1");
	check_ok(unlock_pi(&f2), "UNLOCK_PI hands over");
	pthread_join(w.th, NULL);
	check(w.ret == 0, "the waiter returns 0");
	if (w.word != ((uint32_t)w.tid | FUTEX_WAITERS))
		fail("word %#x after the handoff, want %#x", w.word, (uint32_t)w.tid | FUTEX_WAITERS);
	check(w.unlock_ret == 0 && f2 == 0, "the new owner unlocks");
}

// pthread_cond_broadcast's way: every waiter, the first given the lock
// (a waiter not yet asleep at one call is taken by the next).
static void t_rq_broadcast(void)
{
	uint32_t f1 = 0, f2 = 0;
	struct rq_waiter w[3] = { 0 };
	long r = 0, total = 0;

	for (int i = 0; i < 3; i++)
		rq_start(&w[i], &f1, &f2);
	while (total < 3 && r >= 0) {
		r = cmp_requeue_pi(&f1, &f2, 1, INT_MAX, P);
		if (r > 0)
			total += r;
		else
			usleep(1000);
	}
	for (int i = 0; i < 3; i++)
		pthread_join(w[i].th, NULL);
	check(r >= 0, "CMP_REQUEUE_PI succeeds");
	check(total == 3, "all three given the lock or requeued");
	for (int i = 0; i < 3; i++)
		if (w[i].ret != 0 || w[i].unlock_ret != 0)
			fail("waiter %d: ret %ld errno %d unlock %ld", i, w[i].ret, w[i].err,
			     w[i].unlock_ret);
	check(f2 == 0, "the lock is free in the end");
}

// ---- mismatched operations ----

static uint32_t plain_f1;
static void *plain_waiter(void *arg)
{
	(void)arg;
	return (void *)futex(&plain_f1, FUTEX_WAIT | P, 0, NULL, NULL, 0);
}

// A plain FUTEX_WAIT waiter is no target of CMP_REQUEUE_PI.
static void t_rq_plain_waiter(void)
{
	uint32_t stage = 0, f2 = 0;
	pthread_t th;
	void *ret;

	plain_f1 = 0;
	pthread_create(&th, NULL, plain_waiter, NULL);
	while (futex(&plain_f1, FUTEX_REQUEUE | P, 0, (void *)1L, &stage, 0) != 1)
		usleep(1000);
	check_errno(cmp_requeue_pi(&stage, &f2, 1, 0, P), EINVAL,
		    "CMP_REQUEUE_PI of a FUTEX_WAIT waiter");
	check(f2 == 0, "the PI word is untouched");
	check(futex(&stage, FUTEX_WAKE | P, 1, NULL, NULL, 0) == 1, "it is still there to wake");
	pthread_join(th, &ret);
	check(ret == 0, "and its FUTEX_WAIT returns 0");
}

// A FUTEX_WAIT_REQUEUE_PI waiter is only for CMP_REQUEUE_PI onto its word.
static void t_rq_plain_ops(void)
{
	uint32_t f1 = 0, f2 = 0, f3 = 0;
	struct rq_waiter w = { 0 };

	rq_start(&w, &f1, &f2);
	wait_until(rq_waiter_queued, &f1, P);
	check_errno(futex(&f1, FUTEX_WAKE | P, 1, NULL, NULL, 0), EINVAL, "FUTEX_WAKE");
	check_errno(futex(&f1, FUTEX_CMP_REQUEUE | P, 1, (void *)0L, &f3, 0), EINVAL,
		    "FUTEX_CMP_REQUEUE");
	check_errno(futex(&f1, FUTEX_WAKE_OP | P, 1, (void *)0L, &f3, 0), EINVAL, "FUTEX_WAKE_OP");
	check_errno(cmp_requeue_pi(&f1, &f3, 1, 0, P), EINVAL, "CMP_REQUEUE_PI onto another word");
	check(f2 == 0 && f3 == 0, "no PI word touched");
	check(cmp_requeue_pi(&f1, &f2, 1, 0, P) == 1, "the right call still works");
	pthread_join(w.th, NULL);
	check(w.ret == 0 && w.unlock_ret == 0, "and the waiter got the lock");
}

// A word plain waiters sleep on is no PI lock: LOCK_PI, TRYLOCK_PI,
// UNLOCK_PI and CMP_REQUEUE_PI onto it fail with EINVAL.
static uint32_t plain_word;
static void *plain_word_waiter(void *arg)
{
	(void)arg;
	return (void *)futex(&plain_word, FUTEX_WAIT | P, plain_word, NULL, NULL, 0);
}

static void t_pi_on_plain_word(void)
{
	uint32_t stage = 0, f1 = 0;
	struct rq_waiter w = { 0 };
	pthread_t th;
	void *ret;

	plain_word = 0;
	pthread_create(&th, NULL, plain_word_waiter, NULL);
	// Known asleep once moved away and back by FUTEX_REQUEUE.
	while (futex(&plain_word, FUTEX_REQUEUE | P, 0, (void *)1L, &stage, 0) != 1)
		usleep(1000);
	check(futex(&stage, FUTEX_REQUEUE | P, 0, (void *)1L, &plain_word, 0) == 1, "moved back");
	check_errno(lock_pi(&plain_word), EINVAL, "LOCK_PI");
	check_errno(futex(&plain_word, 8 | P, 0, NULL, NULL, 0), EINVAL, "TRYLOCK_PI");
	check(plain_word == 0, "the word is untouched");
	rq_start(&w, &f1, &plain_word);
	wait_until(rq_waiter_queued, &f1, P);
	check_errno(cmp_requeue_pi(&f1, &plain_word, 1, 0, P), EINVAL, "CMP_REQUEUE_PI onto it");
	check(rq_waiter_queued(&f1, P), "the requeue-PI waiter stays");
	// UNLOCK_PI: only an owner gets that far (EPERM first).
	check_errno(unlock_pi(&plain_word), EPERM, "UNLOCK_PI by a non-owner");
	check(futex(&plain_word, FUTEX_WAKE | P, 1, NULL, NULL, 0) == 1, "wake the plain waiter");
	pthread_join(th, &ret);
	check(ret == 0, "its FUTEX_WAIT returns 0");
	check(cmp_requeue_pi(&f1, &plain_word, 1, 0, P) == 1, "the PI word is free now");
	pthread_join(w.th, NULL);
	check(w.ret == 0 && w.unlock_ret == 0, "and the requeue-PI waiter got it");
}

// UNLOCK_PI by the owner of a word a plain waiter sleeps on.
static uint32_t owned_word;
static void *owned_word_waiter(void *arg)
{
	(void)arg;
	return (void *)futex(&owned_word, FUTEX_WAIT | P, owned_word, NULL, NULL, 0);
}

static void t_unlock_pi_plain_waiter(void)
{
	uint32_t stage = 0;
	pthread_t th;
	void *ret;

	owned_word = (uint32_t)gettid_();
	pthread_create(&th, NULL, owned_word_waiter, NULL);
	while (futex(&owned_word, FUTEX_REQUEUE | P, 0, (void *)1L, &stage, 0) != 1)
		usleep(1000);
	check(futex(&stage, FUTEX_REQUEUE | P, 0, (void *)1L, &owned_word, 0) == 1, "moved back");
	check_errno(unlock_pi(&owned_word), EINVAL, "UNLOCK_PI");
	check(owned_word == (uint32_t)gettid_(), "the word is untouched");
	check(futex(&owned_word, FUTEX_WAKE | P, 1, NULL, NULL, 0) == 1, "wake the plain waiter");
	pthread_join(th, &ret);
	check(ret == 0, "its FUTEX_WAIT returns 0");
}

// A LOCK_PI waiter is no target of the plain calls either.
static void *lock_pi_fn(void *arg)
{
	volatile uint32_t *f = arg;
	long r = lock_pi(f);

	if (r == 0)
		r = unlock_pi(f);
	return (void *)r;
}

static void t_pi_plain_ops(void)
{
	uint32_t f2 = 0, f3 = 0;
	pthread_t th;
	void *ret;

	check_ok(lock_pi(&f2), "LOCK_PI");
	pthread_create(&th, NULL, lock_pi_fn, &f2);
	wait_until(pi_waiter_queued, &f2, P);
	check_errno(futex(&f2, FUTEX_CMP_REQUEUE | P, 1, (void *)1L, &f3, f2), EINVAL,
		    "FUTEX_CMP_REQUEUE of a LOCK_PI waiter");
	check_errno(cmp_requeue_pi(&f2, &f3, 1, 0, P), EINVAL, "CMP_REQUEUE_PI of a LOCK_PI waiter");
	check(f3 == 0, "the target is untouched");
	check_ok(unlock_pi(&f2), "UNLOCK_PI");
	pthread_join(th, &ret);
	check(ret == 0, "the waiter took the lock (not woken by the plain calls)");
	check(f2 == 0, "and gave it back");
}

// The waiter owns the PI word itself: requeueing it would deadlock.  It
// lives in a child process (shared memory, shared keys), killed after.
static void t_rq_edeadlk(void)
{
	uint32_t *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	volatile uint32_t *f1 = m, *f2 = m + 1;

	if (m == MAP_FAILED) {
		fail("mmap");
		return;
	}
	*f1 = *f2 = 0;
	pid_t pid = fork_child();
	if (pid == 0) {
		if (futex(f2, FUTEX_LOCK_PI, 0, NULL, NULL, 0) != 0)
			_exit(1);
		futex(f1, FUTEX_WAIT_REQUEUE_PI, 0, NULL, f2, 0);
		_exit(2);
	}
	wait_until(rq_waiter_queued, f1, 0);
	check((*f2 & FUTEX_TID_MASK) == (uint32_t)pid, "the child owns f2");
	check_errno(cmp_requeue_pi(f1, f2, 1, 0, 0), EDEADLK, "CMP_REQUEUE_PI to its own lock");
	check_errno(cmp_requeue_pi(f1, f2, 1, 1, 0), EDEADLK, "moving more: the same");
	check(rq_waiter_queued(f1, 0), "the waiter stays on f1");
	kill(pid, SIGKILL);
	int st = reap(pid);
	check(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the child dies of SIGKILL");
	munmap(m, 4096);
}

// ---- signals and timeouts ----

static atomic_int usr1_count;
static void on_usr1(int sig)
{
	(void)sig;
	atomic_fetch_add(&usr1_count, 1);
}

// Linux's futex_requeue_pi_signal_restart: a signal before the requeue
// restarts the wait; after it the call gives EWOULDBLOCK.
static void t_rq_signal(void)
{
	uint32_t f1 = 0, f2 = 0;
	struct rq_waiter w = { 0 };
	struct sigaction sa = { .sa_handler = on_usr1 };

	sigaction(SIGUSR1, &sa, NULL);
	atomic_store(&usr1_count, 0);
	check_ok(lock_pi(&f2), "LOCK_PI");
	rq_start(&w, &f1, &f2);
	wait_until(rq_waiter_queued, &f1, P);
	pthread_kill(w.th, SIGUSR1);
	while (atomic_load(&usr1_count) == 0)
		usleep(1000);
	wait_until(rq_waiter_queued, &f1, P);	// restarted: waiting again
	check(cmp_requeue_pi(&f1, &f2, 1, 0, P) == 1, "requeued after the restart");
	pthread_kill(w.th, SIGUSR1);
	pthread_join(w.th, NULL);
	check(w.ret == -1 && w.err == EAGAIN, "a signal after the requeue: EWOULDBLOCK");
	if (w.ret != -1)
		fail("ret %ld errno %d", w.ret, w.err);
	check((f2 & FUTEX_TID_MASK) == (uint32_t)gettid_(), "the lock is still the owner's");
	check_ok(unlock_pi(&f2), "UNLOCK_PI");
	check(f2 == 0, "with nobody to hand it to");
	signal(SIGUSR1, SIG_DFL);
}

// The deadline passes while requeued onto a held lock (or, on a slow
// machine, before the requeue): ETIMEDOUT either way, the lock stays.
static void t_rq_timeout_requeued(void)
{
	uint32_t f1 = 0, f2 = 0;
	struct rq_waiter w = { 0 };
	struct timespec ts;

	check_ok(lock_pi(&f2), "LOCK_PI");
	ts = abs_in(CLOCK_MONOTONIC, 300);
	w.timeout = &ts;
	rq_start(&w, &f1, &f2);
	long r = 0;
	while (r == 0 && w.err == 0) {
		r = rq_waiter_queued(&f1, P) ? cmp_requeue_pi(&f1, &f2, 1, 0, P) : 0;
		usleep(1000);
	}
	pthread_join(w.th, NULL);
	check(w.ret == -1 && w.err == ETIMEDOUT, "ETIMEDOUT");
	check((f2 & FUTEX_TID_MASK) == (uint32_t)gettid_(), "the lock is still the owner's");
	check(!pi_waiter_queued(&f2, P), "no waiter left on it");
	check_ok(unlock_pi(&f2), "UNLOCK_PI");
	check(f2 == 0, "free after");
}

// ---- the owner of a PI lock dies ----

struct robust_head {
	void *next;
	long futex_offset;
	void *pending;
};

struct robust_lock {
	void *next;		// robust list link
	uint32_t word;
};

static struct robust_lock rlock;
static struct robust_head rhead;
static atomic_int owner_locked;

static void *dying_owner(void *arg)
{
	int robust = (int)(long)arg;
	uint32_t tid = (uint32_t)gettid_(), seen = 0;

	if (robust) {
		rhead.next = (char *)&rlock + 1;	// bit 0: a PI lock
		rhead.futex_offset = (long)offsetof(struct robust_lock, word);
		rhead.pending = NULL;
		rlock.next = &rhead;
		syscall(SYS_set_robust_list, &rhead, sizeof(rhead));
	}
	if (!__atomic_compare_exchange_n(&rlock.word, &seen, tid, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		syscall(SYS_exit, 1);
	atomic_store(&owner_locked, 1);
	wait_until(pi_waiter_queued, &rlock.word, P);
	syscall(SYS_exit, 0);	// the thread alone, still holding the lock
	return NULL;
}

// Linux gives the lock to the waiter, marked FUTEX_OWNER_DIED: by the
// robust list (handle_futex_death) or without one (exit_pi_state_list).
static void owner_dies(int robust)
{
	pthread_t th;
	uint32_t me = (uint32_t)gettid_();

	rlock.word = 0;
	atomic_store(&owner_locked, 0);
	pthread_create(&th, NULL, dying_owner, (void *)(long)robust);
	while (!atomic_load(&owner_locked))
		usleep(1000);
	check_ok(lock_pi(&rlock.word), "LOCK_PI while the owner dies");
	if (rlock.word != (me | FUTEX_WAITERS | FUTEX_OWNER_DIED))
		fail("word %#x, want %#x", rlock.word, me | FUTEX_WAITERS | FUTEX_OWNER_DIED);
	check_ok(unlock_pi(&rlock.word), "UNLOCK_PI");
	check(rlock.word == 0, "free after");
	pthread_join(th, NULL);
}

static void t_robust_pi_exit(void) { owner_dies(1); }
static void t_pi_owner_exit(void) { owner_dies(0); }

// A robust PI lock whose owner died with nobody waiting: the next
// LOCK_PI takes it, keeping FUTEX_OWNER_DIED (no FUTEX_WAITERS).
static void *dying_owner_alone(void *arg)
{
	(void)arg;
	uint32_t seen = 0;

	rhead.next = (char *)&rlock + 1;
	rhead.futex_offset = (long)offsetof(struct robust_lock, word);
	rhead.pending = NULL;
	rlock.next = &rhead;
	syscall(SYS_set_robust_list, &rhead, sizeof(rhead));
	__atomic_compare_exchange_n(&rlock.word, &seen, (uint32_t)gettid_(), 0, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	syscall(SYS_exit, 0);
	return NULL;
}

static void t_robust_pi_exit_alone(void)
{
	pthread_t th;
	uint32_t me = (uint32_t)gettid_();

	rlock.word = 0;
	pthread_create(&th, NULL, dying_owner_alone, NULL);
	pthread_join(th, NULL);
	check(rlock.word == FUTEX_OWNER_DIED, "the robust list leaves FUTEX_OWNER_DIED alone");
	check_ok(lock_pi(&rlock.word), "LOCK_PI");
	check(rlock.word == (me | FUTEX_OWNER_DIED), "taken, FUTEX_OWNER_DIED kept");
	check_ok(unlock_pi(&rlock.word), "UNLOCK_PI");
}

// ---- many waiters on one PI lock ----
//
// PI waiters sleep until UNLOCK_PI hands them the lock or their owner
// exits: none wakes on a timer to look at the owner (64 waiters that did
// every 10 ms would cost the machine 6 400 wake-ups a second).  Each
// waiter's voluntary switches over a quiet 200 ms show it.

#define PI_CROWD 64

static uint32_t crowd_word;
static atomic_int crowd_tids[PI_CROWD], crowd_done;

static void *crowd_waiter(void *arg)
{
	int i = (int)(long)arg;

	atomic_store(&crowd_tids[i], gettid_());
	if (lock_pi(&crowd_word) == 0) {
		atomic_fetch_add(&crowd_done, 1);
		unlock_pi(&crowd_word);
	}
	return NULL;
}

// The thread's state letter and voluntary switches, from /proc.
static int task_status(int tid, char *state, long *nvcsw)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	return proc_status_read(path, state, nvcsw);
}

static void t_pi_crowd(void)
{
	pthread_t th[PI_CROWD];
	long before[PI_CROWD];
	char state;

	crowd_word = (uint32_t)gettid_();
	atomic_store(&crowd_done, 0);
	for (int i = 0; i < PI_CROWD; i++) {
		atomic_store(&crowd_tids[i], 0);
		pthread_create(&th[i], NULL, crowd_waiter, (void *)(long)i);
	}
	// Every waiter asleep in LOCK_PI (its word has FUTEX_WAITERS by then).
	for (int i = 0; i < PI_CROWD; i++) {
		while (!atomic_load(&crowd_tids[i]))
			usleep(1000);
		while (task_status(crowd_tids[i], &state, &before[i]) == 0 && state != 'S')
			usleep(1000);
	}
	if (crowd_word != ((uint32_t)gettid_() | FUTEX_WAITERS))
		fail("word %#x: not the owner with waiters", crowd_word);
	usleep(200000);
	int woke = 0;
	long after;
	for (int i = 0; i < PI_CROWD; i++)
		if (task_status(crowd_tids[i], &state, &after) == 0 && after != before[i])
			woke++;
	if (woke)
		fail("%d of %d PI waiters woke while the owner held the lock", woke, PI_CROWD);
	check_ok(unlock_pi(&crowd_word), "UNLOCK_PI hands over");
	for (int i = 0; i < PI_CROWD; i++)
		pthread_join(th[i], NULL);
	if (atomic_load(&crowd_done) != PI_CROWD)
		fail("%d of %d waiters got the lock", atomic_load(&crowd_done), PI_CROWD);
	if (crowd_word != 0)
		fail("word %#x after all unlocked", crowd_word);
}

// ---- glibc's PI mutexes ----

static pthread_mutex_t pim;
static pthread_cond_t picond = PTHREAD_COND_INITIALIZER;
static int items, consumed;

static void pi_mutex_init(int robust)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	if (robust)
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&pim, &a);
	pthread_mutexattr_destroy(&a);
}

static void *consumer(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&pim);
		while (items == 0 && consumed < 400)
			pthread_cond_wait(&picond, &pim);
		if (consumed >= 400) {
			pthread_mutex_unlock(&pim);
			return NULL;
		}
		items--;
		consumed++;
		if (consumed == 400)
			pthread_cond_broadcast(&picond);
		pthread_mutex_unlock(&pim);
	}
}

// pthread_cond_wait with a PTHREAD_PRIO_INHERIT mutex: 400 items through
// four consumers, signal and broadcast.
static void t_glibc_cond_pi(void)
{
	pthread_t th[4];

	pi_mutex_init(0);
	items = consumed = 0;
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, consumer, NULL);
	for (int i = 0; i < 400; i++) {
		pthread_mutex_lock(&pim);
		items++;
		if (i % 7 == 0)
			pthread_cond_broadcast(&picond);
		else
			pthread_cond_signal(&picond);
		pthread_mutex_unlock(&pim);
		if (i % 50 == 0)
			usleep(100);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	check(consumed == 400 && items == 0, "every item consumed once");
	struct timespec ts = abs_in(CLOCK_REALTIME, 20);
	check(pthread_mutex_lock(&pim) == 0, "lock");
	check(pthread_cond_timedwait(&picond, &pim, &ts) == ETIMEDOUT, "timedwait: ETIMEDOUT");
	check(pthread_mutex_trylock(&pim) == EBUSY, "still holding the mutex after it");
	check(pthread_mutex_unlock(&pim) == 0, "unlock");
	pthread_mutex_destroy(&pim);
}

static atomic_int robust_locked;
static void *robust_owner(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pim);
	atomic_store(&robust_locked, 1);
	// Gone once the main thread sleeps on the mutex in the kernel
	// (glibc's robust mutexes use the shared futex calls).
	wait_until(pi_waiter_queued, (volatile uint32_t *)&pim.__data.__lock, 0);
	return NULL;		// still holding it
}

// A robust PI mutex whose owner thread ends holding it: the waiter gets
// EOWNERDEAD, makes it consistent, and it works on.
static void t_glibc_robust_pi(void)
{
	pthread_t th;

	pi_mutex_init(1);
	atomic_store(&robust_locked, 0);
	pthread_create(&th, NULL, robust_owner, NULL);
	while (!atomic_load(&robust_locked))
		usleep(1000);
	int r = pthread_mutex_lock(&pim);
	check(r == EOWNERDEAD, "pthread_mutex_lock: EOWNERDEAD");
	if (r != EOWNERDEAD)
		fail("pthread_mutex_lock gave %d", r);
	check(pthread_mutex_consistent(&pim) == 0, "pthread_mutex_consistent");
	check(pthread_mutex_unlock(&pim) == 0, "unlock");
	check(pthread_mutex_lock(&pim) == 0, "lock again");
	check(pthread_mutex_unlock(&pim) == 0, "unlock again");
	pthread_join(th, NULL);
	pthread_mutex_destroy(&pim);
}

static const struct test_case cases[] = {
	{ "requeue_pi_same_word", t_rq_same_word },
	{ "requeue_pi_nr_wake", t_rq_nr_wake },
	{ "requeue_pi_value", t_rq_value },
	{ "requeue_pi_timeout", t_rq_timeout },
	{ "requeue_pi_take_free", t_rq_take_free },
	{ "requeue_pi_take_free_waiters", t_rq_take_free_waiters },
	{ "requeue_pi_to_owned", t_rq_to_owned },
	{ "requeue_pi_broadcast", t_rq_broadcast },
	{ "requeue_pi_plain_waiter", t_rq_plain_waiter },
	{ "requeue_pi_plain_ops", t_rq_plain_ops },
	{ "lock_pi_plain_ops", t_pi_plain_ops },
	{ "pi_calls_on_plain_word", t_pi_on_plain_word },
	{ "unlock_pi_plain_waiter", t_unlock_pi_plain_waiter },
	{ "requeue_pi_edeadlk", t_rq_edeadlk },
	{ "requeue_pi_signal", t_rq_signal },
	{ "requeue_pi_timeout_requeued", t_rq_timeout_requeued },
	{ "robust_pi_owner_exit", t_robust_pi_exit },
	{ "pi_owner_exit", t_pi_owner_exit },
	{ "robust_pi_owner_exit_alone", t_robust_pi_exit_alone },
	{ "pi_waiters_sleep", t_pi_crowd },
	{ "glibc_cond_wait_pi_mutex", t_glibc_cond_pi },
	{ "glibc_robust_pi_mutex", t_glibc_robust_pi },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
