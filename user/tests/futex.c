// futex: the futex(2) system call, driven raw through syscall(SYS_futex).
//
// Each case is built so that its outcome does not depend on timing: where a
// test needs a waiter known to be asleep in the kernel, it first parks the
// waiter on a staging word and moves it with FUTEX_CMP_REQUEUE, whose return
// value counts only tasks that really were queued.
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "sysutil.h"
#include "watchdog.h"

// The futex ABI, spelled out here because musl ships no kernel headers.
#define FUTEX_WAIT		0
#define FUTEX_WAKE		1
#define FUTEX_REQUEUE		3
#define FUTEX_CMP_REQUEUE	4
#define FUTEX_WAKE_OP		5
#define FUTEX_WAIT_BITSET	9
#define FUTEX_WAKE_BITSET	10
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX_BITSET_MATCH_ANY	(-1)

#define FUTEX_WAIT_PRIVATE		(FUTEX_WAIT | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAKE_PRIVATE		(FUTEX_WAKE | FUTEX_PRIVATE_FLAG)
#define FUTEX_REQUEUE_PRIVATE		(FUTEX_REQUEUE | FUTEX_PRIVATE_FLAG)
#define FUTEX_CMP_REQUEUE_PRIVATE	(FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAKE_OP_PRIVATE		(FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAIT_BITSET_PRIVATE	(FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAKE_BITSET_PRIVATE	(FUTEX_WAKE_BITSET | FUTEX_PRIVATE_FLAG)

// WAKE_OP's val3: op in bits 28-31, cmp in 24-27, oparg 12-23, cmparg 0-11.
#define FUTEX_OP_SET		0
#define FUTEX_OP_ADD		1
#define FUTEX_OP_CMP_EQ		0
#define FUTEX_OP_CMP_GT		4

static int futex_op(int op, int oparg, int cmp, int cmparg)
{
	return (int)(((unsigned)op & 0xf) << 28 | ((unsigned)cmp & 0xf) << 24 |
		     ((unsigned)oparg & 0xfff) << 12 | ((unsigned)cmparg & 0xfff));
}

#define WATCHDOG_SECONDS 120
#define NR_CASES 37
// How long a helper may take to go to sleep before the test gives up.
#define SETTLE_MS 5000

static long futex(atomic_int *uaddr, int op, int val, const struct timespec *timeout,
		  atomic_int *uaddr2, int val3)
{
	return syscall(SYS_futex, uaddr, op, val, timeout, uaddr2, val3);
}

// The val2 argument of REQUEUE and WAKE_OP travels in the timeout slot.
static long futex_val2(atomic_int *uaddr, int op, int val, int val2, atomic_int *uaddr2, int val3)
{
	return syscall(SYS_futex, uaddr, op, val, (unsigned long)val2, uaddr2, val3);
}

static struct timespec ns_to_timespec(long long ns)
{
	struct timespec ts = { ns / 1000000000LL, ns % 1000000000LL };

	return ts;
}

// ---- waiter threads ----

struct waiter {
	pthread_t thread;
	atomic_int *word;
	int op;			// FUTEX_WAIT or FUTEX_WAIT_BITSET, maybe | PRIVATE
	int expect;
	int bitset;
	atomic_int started;
	atomic_int done;
	long rc;
	int err;
};

static void *waiter_body(void *arg)
{
	struct waiter *w = arg;

	atomic_store(&w->started, 1);
	w->rc = futex(w->word, w->op, w->expect, NULL, NULL, w->bitset);
	w->err = errno;
	atomic_store(&w->done, 1);
	return NULL;
}

static void start_waiter(struct waiter *w, atomic_int *word, int op, int bitset)
{
	memset(w, 0, sizeof(*w));
	w->word = word;
	w->op = op;
	w->expect = atomic_load(word);
	w->bitset = bitset;
	pthread_create(&w->thread, NULL, waiter_body, w);
}

// Move 'n' waiters sleeping on 'staging' to 'target', returning how many
// were moved within the settle time.  Only tasks asleep on 'staging' count.
static int park_waiters(atomic_int *staging, atomic_int *target, int n, int private_flag)
{
	int moved = 0;

	for (int ms = 0; moved < n && ms < SETTLE_MS; ms++) {
		long rc = futex_val2(staging, FUTEX_CMP_REQUEUE | private_flag, 0, INT_MAX, target,
				     atomic_load(staging));
		if (rc > 0)
			moved += (int)rc;
		else
			sleep_ms(1);
	}
	return moved;
}

// Wait for every waiter's futex call to return, then reap the threads.
static int join_waiters(struct waiter *w, int n)
{
	int ok = 1;

	for (int i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		if (w[i].rc != 0)
			ok = 0;
	}
	return ok;
}

static int count_done(struct waiter *w, int n)
{
	int done = 0;

	for (int i = 0; i < n; i++)
		done += atomic_load(&w[i].done);
	return done;
}

// ---- the cases ----

static void test_wait_value_mismatch(void)
{
	atomic_int word = 1;
	long rc = futex(&word, FUTEX_WAIT, 2, NULL, NULL, 0);
	int err = errno;
	long rc2 = futex(&word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);

	ktap_result(rc == -1 && err == EAGAIN && rc2 == -1 && errno == EAGAIN, "wait_mismatch_eagain");
}

static void test_wait_relative_timeout(void)
{
	atomic_int word = 0;
	struct timespec ts = { 0, 50 * 1000000L };
	long long start = now_ns(CLOCK_MONOTONIC);
	long rc = futex(&word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	int err = errno;
	long long waited = now_ns(CLOCK_MONOTONIC) - start;

	ktap_diag("relative 50 ms timeout waited %lld us", waited / 1000);
	ktap_result(rc == -1 && err == ETIMEDOUT && waited >= 50 * 1000000LL, "wait_relative_timeout");
}

static void test_wait_bitset_absolute(const char *name, clockid_t clock, int clock_flag)
{
	atomic_int word = 0;
	long long deadline = now_ns(clock) + 40 * 1000000LL;
	struct timespec ts = ns_to_timespec(deadline);
	long rc = futex(&word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | clock_flag, 0, &ts, NULL,
			FUTEX_BITSET_MATCH_ANY);
	int err = errno;
	long long late = now_ns(clock) - deadline;

	ktap_diag("%s: woke %lld us after the deadline", name, late / 1000);
	ktap_result(rc == -1 && err == ETIMEDOUT && late >= 0, "%s", name);
}

static void test_wait_past_deadline(void)
{
	atomic_int word = 0;
	struct timespec ts = ns_to_timespec(now_ns(CLOCK_MONOTONIC) - 1000000LL);
	long rc = futex(&word, FUTEX_WAIT_BITSET, 0, &ts, NULL, FUTEX_BITSET_MATCH_ANY);

	ktap_result(rc == -1 && errno == ETIMEDOUT, "wait_bitset_deadline_in_past");
}

static void test_wake_nobody(void)
{
	atomic_int word = 0;

	ktap_result(futex(&word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0) == 0 &&
			    futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) == 0,
		    "wake_without_waiters_returns_0");
}

// Wake parked waiters one call at a time: each FUTEX_WAKE with nr=2 must
// report exactly how many it woke.
static void test_wake_count(int private_flag, const char *name)
{
	enum { N = 5 };
	atomic_int staging = 0, word = 0;
	struct waiter w[N];
	int parked, ok = 1, woken = 0;

	for (int i = 0; i < N; i++)
		start_waiter(&w[i], &staging, FUTEX_WAIT | private_flag, 0);
	parked = park_waiters(&staging, &word, N, private_flag);
	// N = 5 sleepers, nr = 2: expect 2, 2, 1, then 0.
	static const long expect[] = { 2, 2, 1, 0 };
	for (int i = 0; i < 4; i++) {
		long rc = futex(&word, FUTEX_WAKE | private_flag, 2, NULL, NULL, 0);

		if (rc != expect[i]) {
			ktap_diag("%s: wake %d returned %ld, expected %ld", name, i, rc, expect[i]);
			ok = 0;
		}
		woken += rc > 0 ? (int)rc : 0;
	}
	// Wake any leftovers so the test cannot hang.
	while (count_done(w, N) < N && woken < N)
		woken += (int)futex(&word, FUTEX_WAKE | private_flag, INT_MAX, NULL, NULL, 0);
	ok = join_waiters(w, N) && ok;
	ktap_result(ok && parked == N, "%s", name);
}

static void test_wake_all(void)
{
	enum { N = 8 };
	atomic_int staging = 0, word = 0;
	struct waiter w[N];
	int parked;
	long rc;

	for (int i = 0; i < N; i++)
		start_waiter(&w[i], &staging, FUTEX_WAIT_PRIVATE, 0);
	parked = park_waiters(&staging, &word, N, FUTEX_PRIVATE_FLAG);
	rc = futex(&word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	ktap_result(parked == N && rc == N && join_waiters(w, N), "wake_all_%d_waiters", N);
}

// Waiters of the same priority are woken oldest first, as Linux's plist
// keeps them: parked one by one on 'word', three FUTEX_WAKEs of one wake
// them in that order.
static void test_wake_oldest_first(void)
{
	enum { N = 3 };
	atomic_int staging = 0, word = 0;
	struct waiter w[N];
	int parked = 0, ok = 1;

	for (int i = 0; i < N; i++) {
		start_waiter(&w[i], &staging, FUTEX_WAIT_PRIVATE, 0);
		parked += park_waiters(&staging, &word, 1, FUTEX_PRIVATE_FLAG);
	}
	for (int i = 0; i < N && parked == N; i++) {
		if (futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) != 1)
			ok = 0;
		for (int ms = 0; count_done(w, N) < i + 1 && ms < SETTLE_MS; ms++)
			sleep_ms(1);
		if (!atomic_load(&w[i].done)) {
			ktap_diag("wake %d did not wake waiter %d, the oldest", i, i);
			ok = 0;
		}
	}
	while (count_done(w, N) < N)
		futex(&word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	ok = join_waiters(w, N) && ok;
	ktap_result(ok && parked == N, "wake_oldest_first");
}

// Linux's order of wake-ups (the futex_q plist): real-time waiters first,
// the higher priority first, then the others; the oldest first within a
// priority.  Queued (by a requeue, which sorts too) as: normal, FIFO 10,
// FIFO 20, FIFO 10; woken one by one as FIFO 20, the first FIFO 10, the
// second, the normal one.
struct prio_waiter {
	struct waiter w;
	int prio;		// SCHED_FIFO priority, 0: SCHED_OTHER
	atomic_int refused;	// sched_setscheduler failed (not root)
};

static void *prio_waiter_body(void *arg)
{
	struct prio_waiter *p = arg;
	struct sched_param sp = { .sched_priority = p->prio };

	if (p->prio && syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &sp) != 0) {
		atomic_store(&p->refused, 1);
		atomic_store(&p->w.done, 1);
		return NULL;
	}
	return waiter_body(&p->w);
}

// Wakes the first n until all are done (on either word), and joins them.
static void release_prio_waiters(struct prio_waiter *pw, int n, atomic_int *a, atomic_int *b)
{
	for (;;) {
		int done = 0;
		for (int i = 0; i < n; i++)
			done += atomic_load(&pw[i].w.done);
		if (done == n)
			break;
		futex(a, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
		futex(b, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
		sleep_ms(1);
	}
	for (int i = 0; i < n; i++)
		pthread_join(pw[i].w.thread, NULL);
}

static void test_wake_priority_order(void)
{
	enum { N = 4 };
	static const int prio[N] = { 0, 10, 20, 10 }, expect[N] = { 2, 1, 3, 0 };
	atomic_int staging = 0, word = 0;
	struct prio_waiter pw[N];
	struct waiter *w[N];
	int parked = 0, ok = 1;

	for (int i = 0; i < N; i++) {
		memset(&pw[i], 0, sizeof(pw[i]));
		pw[i].prio = prio[i];
		pw[i].w.word = &staging;
		pw[i].w.op = FUTEX_WAIT_PRIVATE;
		w[i] = &pw[i].w;
		pthread_create(&pw[i].w.thread, NULL, prio_waiter_body, &pw[i]);
		for (int ms = 0; !atomic_load(&pw[i].w.started) && !atomic_load(&pw[i].refused) &&
				 ms < SETTLE_MS; ms++)
			sleep_ms(1);
		if (atomic_load(&pw[i].refused)) {
			release_prio_waiters(pw, i + 1, &staging, &word);
			ktap_skip("wake_priority_order", "SCHED_FIFO refused (not root?)");
			return;
		}
		parked += park_waiters(&staging, &word, 1, FUTEX_PRIVATE_FLAG);
	}
	for (int i = 0; i < N && parked == N; i++) {
		if (futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) != 1)
			ok = 0;
		for (int ms = 0; !atomic_load(&w[expect[i]]->done) && ms < SETTLE_MS; ms++)
			sleep_ms(1);
		int done = 0;
		for (int j = 0; j < N; j++)
			done += atomic_load(&w[j]->done);
		if (!atomic_load(&w[expect[i]]->done) || done != i + 1) {
			ktap_diag("wake %d: want waiter %d (priority %d) alone, %d woken", i, expect[i],
				  prio[expect[i]], done);
			ok = 0;
		}
	}
	for (int i = 0; i < N; i++)
		ok = ok && (!atomic_load(&pw[i].w.done) || pw[i].w.rc == 0);
	release_prio_waiters(pw, N, &staging, &word);
	ktap_result(ok && parked == N, "wake_priority_order");
}

static void test_cmp_requeue(void)
{
	enum { N = 4 };
	atomic_int staging = 0, from = 0, to = 0;
	struct waiter w[N];
	int parked, ok;
	long bad, rc, left_on_from, on_to;

	for (int i = 0; i < N; i++)
		start_waiter(&w[i], &staging, FUTEX_WAIT, 0);
	parked = park_waiters(&staging, &from, N, 0);
	// val3 must equal *from, else nothing happens.
	bad = futex_val2(&from, FUTEX_CMP_REQUEUE, 1, INT_MAX, &to, 99);
	ok = bad == -1 && errno == EAGAIN;
	// Wake one, move the rest: the result counts both.
	rc = futex_val2(&from, FUTEX_CMP_REQUEUE, 1, INT_MAX, &to, 0);
	left_on_from = futex(&from, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	on_to = futex(&to, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	if (rc != N || left_on_from != 0 || on_to != N - 1)
		ktap_diag("cmp_requeue: rc %ld, left %ld, moved %ld", rc, left_on_from, on_to);
	ok = join_waiters(w, N) && ok;
	ktap_result(ok && parked == N && rc == N && left_on_from == 0 && on_to == N - 1, "cmp_requeue");
}

static void test_requeue(void)
{
	enum { N = 4 };
	atomic_int staging = 0, from = 0, to = 0;
	struct waiter w[N];
	int parked, ok;
	long rc, left_on_from, on_to;

	for (int i = 0; i < N; i++)
		start_waiter(&w[i], &staging, FUTEX_WAIT_PRIVATE, 0);
	parked = park_waiters(&staging, &from, N, FUTEX_PRIVATE_FLAG);
	// Plain REQUEUE: wake none, move at most two.
	rc = futex_val2(&from, FUTEX_REQUEUE_PRIVATE, 0, 2, &to, 0);
	on_to = futex(&to, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	left_on_from = futex(&from, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	if (rc != 2 || on_to != 2 || left_on_from != 2)
		ktap_diag("requeue: rc %ld, moved %ld, left %ld", rc, on_to, left_on_from);
	ok = join_waiters(w, N);
	ktap_result(ok && parked == N && rc == 2 && on_to == 2 && left_on_from == 2, "requeue_private");
}

// Requeue onto the word the waiters already sleep on: Linux counts each
// woken and each "moved" waiter once and returns at once.
static void test_requeue_same_word(int cmp, const char *name)
{
	enum { N = 3 };
	atomic_int staging = 0, word = 0;
	struct waiter w[N];
	int parked, ok;
	long rc, left;

	for (int i = 0; i < N; i++)
		start_waiter(&w[i], &staging, FUTEX_WAIT_PRIVATE, 0);
	parked = park_waiters(&staging, &word, N, FUTEX_PRIVATE_FLAG);
	// Wake one, move the others from 'word' to 'word'.
	if (cmp)
		rc = futex_val2(&word, FUTEX_CMP_REQUEUE_PRIVATE, 1, INT_MAX, &word, 0);
	else
		rc = futex_val2(&word, FUTEX_REQUEUE_PRIVATE, 1, INT_MAX, &word, 0);
	left = futex(&word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	if (rc != N || left != N - 1)
		ktap_diag("%s: rc %ld (want %d), left on the word %ld (want %d)", name, rc, N,
			  left, N - 1);
	ok = join_waiters(w, N);
	ktap_result(ok && parked == N && rc == N && left == N - 1, "%s", name);
}

// A waiter with a time limit, so that a lost wake-up fails the case
// instead of hanging the program.
struct timed_waiter {
	pthread_t thread;
	atomic_int *word;
	long rc;
	int err;
};

static void *timed_waiter_body(void *arg)
{
	struct timed_waiter *w = arg;
	struct timespec limit = { 10, 0 };

	w->rc = futex(w->word, FUTEX_WAIT, 0, &limit, NULL, 0);
	w->err = errno;
	return NULL;
}

// A process-shared (non-private) futex op on private memory is keyed by
// the address space and the address, as on Linux, not by the page behind
// it: after fork the page is copy-on-write, a write gives this process a
// new copy, and the waiter must still be found at the same address.
static void test_nonprivate_private_memory_cow(void)
{
	char *mem = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timed_waiter tw;
	int parked = 0, status = 0;
	long rc = -1;
	pid_t pid;

	if (mem == MAP_FAILED) {
		ktap_result(0, "nonprivate_futex_private_memory_cow # mmap failed");
		return;
	}
	atomic_int *staging = (atomic_int *)mem, *word = (atomic_int *)(mem + 4096);
	*staging = 0;
	*word = 0;
	// A child keeps both pages copy-on-write shared while we work.
	pid = fork();
	if (pid == 0) {
		alarm(30);
		for (;;)
			pause();
	}
	memset(&tw, 0, sizeof(tw));
	tw.word = staging;
	pthread_create(&tw.thread, NULL, timed_waiter_body, &tw);
	parked = park_waiters(staging, word, 1, 0);
	atomic_store(word, 1);		// copy-on-write break: a new page
	rc = futex(word, FUTEX_WAKE, 1, NULL, NULL, 0);
	pthread_join(tw.thread, NULL);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	munmap(mem, 2 * 4096);
	if (rc != 1 || tw.rc != 0)
		ktap_diag("nonprivate_futex_private_memory_cow: wake %ld, waiter rc %ld errno %d",
			  rc, tw.rc, tw.err);
	ktap_result(pid > 0 && parked == 1 && rc == 1 && tw.rc == 0,
		    "nonprivate_futex_private_memory_cow");
}

static void test_wake_op(void)
{
	atomic_int staging1 = 0, staging2 = 0, word1 = 0, word2 = 0;
	struct waiter w1, w2;
	int parked, ok = 1;
	long rc;

	start_waiter(&w1, &staging1, FUTEX_WAIT_PRIVATE, 0);
	start_waiter(&w2, &staging2, FUTEX_WAIT_PRIVATE, 0);
	parked = park_waiters(&staging1, &word1, 1, FUTEX_PRIVATE_FLAG) +
		 park_waiters(&staging2, &word2, 1, FUTEX_PRIVATE_FLAG);
	// *word2 += 5 (old 0); wake one on word1; old > 0 is false: word2 untouched.
	rc = futex_val2(&word1, FUTEX_WAKE_OP_PRIVATE, 1, 1, &word2,
			futex_op(FUTEX_OP_ADD, 5, FUTEX_OP_CMP_GT, 0));
	if (rc != 1 || atomic_load(&word2) != 5) {
		ktap_diag("wake_op 1: rc %ld word2 %d", rc, atomic_load(&word2));
		ok = 0;
	}
	pthread_join(w1.thread, NULL);
	// *word2 = 1 (old 5); nobody left on word1; old == 5: wake word2.
	rc = futex_val2(&word1, FUTEX_WAKE_OP_PRIVATE, 1, 1, &word2,
			futex_op(FUTEX_OP_SET, 1, FUTEX_OP_CMP_EQ, 5));
	if (rc != 1 || atomic_load(&word2) != 1) {
		ktap_diag("wake_op 2: rc %ld word2 %d", rc, atomic_load(&word2));
		ok = 0;
	}
	if (rc != 1)
		futex(&word2, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	pthread_join(w2.thread, NULL);
	ktap_result(ok && parked == 2 && w1.rc == 0 && w2.rc == 0, "wake_op");
}

static void test_bitset_selective(void)
{
	atomic_int word = 0;
	struct waiter low, high;
	int ok = 1, woke_high = 0;

	start_waiter(&low, &word, FUTEX_WAIT_BITSET_PRIVATE, 0x1);
	start_waiter(&high, &word, FUTEX_WAIT_BITSET_PRIVATE, 0x2);
	// A wake for bit 1 can only ever find the 'high' waiter.
	for (int ms = 0; ms < SETTLE_MS && !woke_high; ms++) {
		long rc = futex(&word, FUTEX_WAKE_BITSET_PRIVATE, INT_MAX, NULL, NULL, 0x2);

		if (rc > 1)
			ok = 0;
		woke_high = rc == 1;
		if (!woke_high)
			sleep_ms(1);
	}
	pthread_join(high.thread, NULL);
	// The low waiter must still be asleep.
	sleep_ms(20);
	ok = ok && woke_high && !atomic_load(&low.done);
	int woke_low = 0;
	for (int ms = 0; ms < SETTLE_MS && !woke_low; ms++) {
		woke_low = futex(&word, FUTEX_WAKE_BITSET_PRIVATE, INT_MAX, NULL, NULL, 0x1) == 1;
		if (!woke_low)
			sleep_ms(1);
	}
	pthread_join(low.thread, NULL);
	ktap_result(ok && woke_low && low.rc == 0 && high.rc == 0, "wait_wake_bitset_selective");
}

static void test_bitset_zero_einval(void)
{
	atomic_int word = 0;
	long rc = futex(&word, FUTEX_WAIT_BITSET, 0, NULL, NULL, 0);
	int err = errno;
	long rc2 = futex(&word, FUTEX_WAKE_BITSET, 1, NULL, NULL, 0);

	ktap_result(rc == -1 && err == EINVAL && rc2 == -1 && errno == EINVAL, "bitset_zero_einval");
}

static atomic_int handler_runs;

static void count_signal(int sig)
{
	(void)sig;
	atomic_fetch_add(&handler_runs, 1);
}

struct kicker {
	pid_t tid;
	int delay_ms;
};

static void *kick_with_signal(void *arg)
{
	struct kicker *k = arg;

	sleep_ms(k->delay_ms);
	syscall(SYS_tgkill, getpid(), k->tid, SIGUSR1);
	return NULL;
}

static void test_wait_eintr(void)
{
	struct sigaction sa;
	atomic_int word = 0;
	struct kicker k = { (pid_t)syscall(SYS_gettid), 50 };
	pthread_t t;
	struct timespec limit = { 20, 0 };
	long rc;
	int err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = count_signal;	// no SA_RESTART
	sigaction(SIGUSR1, &sa, NULL);
	atomic_store(&handler_runs, 0);
	pthread_create(&t, NULL, kick_with_signal, &k);
	rc = futex(&word, FUTEX_WAIT_PRIVATE, 0, &limit, NULL, 0);
	err = errno;
	pthread_join(t, NULL);
	ktap_result(rc == -1 && err == EINTR && atomic_load(&handler_runs) == 1, "wait_eintr_on_signal");
}

static void test_shared_across_fork(void)
{
	atomic_int *word = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;
	int status = 0, woke = 0;

	if (word == MAP_FAILED) {
		ktap_result(0, "shared_futex_across_fork # mmap failed");
		return;
	}
	*word = 0;
	pid = fork();
	if (pid == 0) {
		alarm(30);
		long rc = futex(word, FUTEX_WAIT, 0, NULL, NULL, 0);
		_exit(rc == 0 ? 0 : 1);
	}
	// A shared (non-private) wake from another process finds the child.
	for (int ms = 0; ms < SETTLE_MS && !woke; ms++) {
		long rc = futex(word, FUTEX_WAKE, 1, NULL, NULL, 0);

		woke = rc == 1;
		if (!woke)
			sleep_ms(1);
	}
	if (!woke)
		kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	munmap(word, 4096);
	ktap_result(woke && WIFEXITED(status) && WEXITSTATUS(status) == 0, "shared_futex_across_fork");
}

static void test_bad_op(void)
{
	atomic_int word = 0;
	long rc = futex(&word, 99, 0, NULL, NULL, 0);

	// Linux answers an unknown command with ENOSYS.
	ktap_result(rc == -1 && errno == ENOSYS, "unknown_op_enosys");
}

static void test_einval(void)
{
	_Alignas(8) atomic_int words[2] = { 0, 0 };
	atomic_int *misaligned = (atomic_int *)((char *)words + 1);
	struct timespec bad_ts = { 0, 1000000000L };
	int ok;

	ok = futex(misaligned, FUTEX_WAIT, 0, NULL, NULL, 0) == -1 && errno == EINVAL;
	ok = ok && futex(misaligned, FUTEX_WAKE, 1, NULL, NULL, 0) == -1 && errno == EINVAL;
	ok = ok && futex(&words[0], FUTEX_WAIT, 0, &bad_ts, NULL, 0) == -1 && errno == EINVAL;
	ktap_result(ok, "misaligned_or_bad_timeout_einval");
}

static void test_efault(void)
{
	// A page that certainly is not mapped: map one, then unmap it.
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long rc;
	int err;

	munmap(page, 4096);
	rc = futex((atomic_int *)page, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	err = errno;
	ktap_result(rc == -1 && err == EFAULT &&
			    futex((atomic_int *)8, FUTEX_WAIT, 0, NULL, NULL, 0) == -1 && errno == EFAULT,
		    "wait_bad_address_efault");
}

// ---- futex_waitv ----

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#define FUTEX_32 2

struct waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

static long waitv(struct waitv *w, unsigned n, unsigned flags, const struct timespec *ts, int clk)
{
	return syscall(SYS_futex_waitv, w, n, flags, ts, clk);
}

static void waitv_fill(struct waitv *w, atomic_int *words, int n, uint32_t flags)
{
	for (int i = 0; i < n; i++)
		w[i] = (struct waitv){ .val = (uint64_t)atomic_load(&words[i]),
				       .uaddr = (uint64_t)(uintptr_t)&words[i], .flags = flags };
}

#define ERR(call, e) ((call) == -1 && errno == (e))

static void test_waitv_einval(void)
{
	_Alignas(8) atomic_int words[2] = { 0, 0 };
	struct waitv w[2];
	struct timespec past = { 0, 0 }, bad = { 0, 1000000000L };
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int ok = 1, step = 0;

	munmap(page, 4096);
	waitv_fill(w, words, 2, FUTEX_32 | FUTEX_PRIVATE_FLAG);
#define STEP(cond) do { step++; if (ok && !(cond)) { ok = 0; ktap_diag("waitv check %d failed: errno %d", step, errno); } } while (0)
	STEP(ERR(waitv(w, 2, 1, NULL, 0), EINVAL));			// flags
	STEP(ERR(waitv(w, 0, 0, NULL, 0), EINVAL));			// none
	STEP(ERR(waitv(w, 129, 0, NULL, 0), EINVAL));			// too many
	STEP(ERR(waitv(NULL, 1, 0, NULL, 0), EINVAL));		// no array
	STEP(ERR(waitv(w, 2, 0, &past, CLOCK_BOOTTIME), EINVAL));	// clock
	STEP(ERR(waitv(w, 2, 0, (struct timespec *)8, CLOCK_MONOTONIC), EFAULT));
	STEP(ERR(waitv(w, 2, 0, &bad, CLOCK_MONOTONIC), EINVAL));	// timespec
	STEP(ERR(waitv((struct waitv *)page, 1, 0, NULL, 0), EFAULT));	// array unmapped
	w[1].flags = FUTEX_PRIVATE_FLAG;
	STEP(ERR(waitv(w, 2, 0, NULL, 0), EINVAL));			// no FUTEX_32
	w[1].flags = FUTEX_32 | 1;
	STEP(ERR(waitv(w, 2, 0, NULL, 0), EINVAL));			// unknown bit
	w[1].flags = FUTEX_32;
	w[1].reserved = 1;
	STEP(ERR(waitv(w, 2, 0, NULL, 0), EINVAL));			// reserved
	w[1].reserved = 0;
	w[1].uaddr += 1;
	STEP(ERR(waitv(w, 2, 0, NULL, 0), EINVAL));			// misaligned
	w[1].uaddr = (uint64_t)(uintptr_t)page;
	STEP(ERR(waitv(w, 2, 0, NULL, 0), EFAULT));			// unmapped word
	// The checks of every entry come before any value is compared.
	w[0].val = 5;
	STEP(ERR(waitv(w, 2, 0, NULL, 0), EFAULT));
	w[1].uaddr = (uint64_t)(uintptr_t)&words[1];
	STEP(ERR(waitv(w, 2, 0, NULL, 0), EAGAIN));			// value differs
	w[0].val = 0;
	// 6.1 compares a value above 32 bits as a u32; kernels since 6.7
	// refuse it (EINVAL).
	w[1].val = 1ULL << 32;
	STEP(ERR(waitv(w, 2, 0, &past, CLOCK_MONOTONIC), ETIMEDOUT) || errno == EINVAL);
#undef STEP
	ktap_result(ok, "waitv_errnos");
}

static void test_waitv_timeouts(void)
{
	atomic_int words[128] = { 0 };
	struct waitv w[128];
	long long dl_m = now_ns(CLOCK_MONOTONIC) + 30 * 1000000LL;
	long long dl_r = now_ns(CLOCK_REALTIME) + 30 * 1000000LL;
	struct timespec tm = ns_to_timespec(dl_m), tr = ns_to_timespec(dl_r);
	long rc1, rc2;
	int e1, e2;

	waitv_fill(w, words, 128, FUTEX_32 | FUTEX_PRIVATE_FLAG);
	rc1 = waitv(w, 128, 0, &tm, CLOCK_MONOTONIC);
	e1 = errno;
	long long late_m = now_ns(CLOCK_MONOTONIC) - dl_m;
	rc2 = waitv(w, 1, 0, &tr, CLOCK_REALTIME);
	e2 = errno;
	long long late_r = now_ns(CLOCK_REALTIME) - dl_r;
	ktap_result(rc1 == -1 && e1 == ETIMEDOUT && late_m >= 0 && rc2 == -1 && e2 == ETIMEDOUT &&
			    late_r >= 0,
		    "waitv_absolute_timeouts_128_entries");
}

struct waitv_arg {
	struct waitv *w;
	unsigned n;
	long rc;
	int err;
};

static void *waitv_body(void *arg)
{
	struct waitv_arg *a = arg;
	struct timespec limit = ns_to_timespec(now_ns(CLOCK_MONOTONIC) + 20 * 1000000000LL);

	a->rc = waitv(a->w, a->n, 0, &limit, CLOCK_MONOTONIC);
	a->err = errno;
	return NULL;
}

// FUTEX_WAKE on entry 'which' until it finds the waiter queued: the call
// returns the index of that entry.
static int waitv_woken_by(atomic_int *words, int n, uint32_t wflags, int wake_op, int which)
{
	struct waitv w[8];
	struct waitv_arg a = { w, (unsigned)n, 0, 0 };
	pthread_t t;
	long woke = 0;

	waitv_fill(w, words, n, wflags);
	pthread_create(&t, NULL, waitv_body, &a);
	for (int tries = 0; tries < 2000 && woke == 0; tries++) {
		woke = futex(&words[which], wake_op, 1, NULL, NULL, 0);
		if (woke == 0)
			sleep_ms(5);
	}
	pthread_join(t, NULL);
	return woke == 1 && a.rc == which;
}

static void test_waitv_wake(void)
{
	atomic_int words[8] = { 0 };
	int ok = waitv_woken_by(words, 3, FUTEX_32 | FUTEX_PRIVATE_FLAG, FUTEX_WAKE_PRIVATE, 2);

	ok = ok && waitv_woken_by(words, 3, FUTEX_32 | FUTEX_PRIVATE_FLAG, FUTEX_WAKE_PRIVATE, 0);
	ok = ok && waitv_woken_by(words, 8, FUTEX_32, FUTEX_WAKE, 5);
	ktap_result(ok, "waitv_returns_woken_index");
}

static void test_waitv_shared_fork(void)
{
	atomic_int *words = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct waitv w[2];
	pid_t pid;
	int status, ok;

	words[0] = words[1] = 0;
	waitv_fill(w, words, 2, FUTEX_32);
	pid = fork();
	if (pid == 0) {
		struct timespec limit = ns_to_timespec(now_ns(CLOCK_MONOTONIC) + 20 * 1000000000LL);

		_exit(waitv(w, 2, 0, &limit, CLOCK_MONOTONIC) == 1 ? 0 : 1);
	}
	long woke = 0;
	for (int tries = 0; tries < 2000 && woke == 0; tries++) {
		woke = futex(&words[1], FUTEX_WAKE, 1, NULL, NULL, 0);
		if (woke == 0)
			sleep_ms(5);
	}
	ok = waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	munmap(words, 4096);
	ktap_result(ok && woke == 1, "waitv_shared_memory_across_fork");
}

static void test_waitv_eintr(void)
{
	struct sigaction sa;
	atomic_int words[2] = { 0 };
	struct waitv w[2];
	struct kicker k = { (pid_t)syscall(SYS_gettid), 50 };
	struct timespec limit = ns_to_timespec(now_ns(CLOCK_MONOTONIC) + 20 * 1000000000LL);
	pthread_t t;
	long rc;
	int err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = count_signal;	// no SA_RESTART
	sigaction(SIGUSR1, &sa, NULL);
	atomic_store(&handler_runs, 0);
	waitv_fill(w, words, 2, FUTEX_32 | FUTEX_PRIVATE_FLAG);
	pthread_create(&t, NULL, kick_with_signal, &k);
	rc = waitv(w, 2, 0, &limit, CLOCK_MONOTONIC);
	err = errno;
	pthread_join(t, NULL);
	ktap_result(rc == -1 && err == EINTR && atomic_load(&handler_runs) == 1, "waitv_eintr_on_signal");
}

static atomic_int restart_word;

static void wake_in_handler(int sig)
{
	(void)sig;
	atomic_fetch_add(&handler_runs, 1);
}

static void *kick_then_wake(void *arg)
{
	struct kicker *k = arg;
	long woke = 0;

	sleep_ms(k->delay_ms);
	syscall(SYS_tgkill, getpid(), k->tid, SIGUSR1);
	while (woke == 0) {
		sleep_ms(20);
		woke = futex(&restart_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
	return NULL;
}

// With SA_RESTART the wait goes on after the handler (Linux's
// ERESTARTSYS, timeout or not: it is absolute).
static void test_waitv_restart(void)
{
	struct sigaction sa;
	struct waitv w;
	struct kicker k = { (pid_t)syscall(SYS_gettid), 50 };
	struct timespec limit = ns_to_timespec(now_ns(CLOCK_MONOTONIC) + 20 * 1000000000LL);
	pthread_t t;
	long rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = wake_in_handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	atomic_store(&handler_runs, 0);
	atomic_store(&restart_word, 0);
	waitv_fill(&w, &restart_word, 1, FUTEX_32 | FUTEX_PRIVATE_FLAG);
	pthread_create(&t, NULL, kick_then_wake, &k);
	rc = waitv(&w, 1, 0, &limit, CLOCK_MONOTONIC);
	pthread_join(t, NULL);
	ktap_result(rc == 0 && atomic_load(&handler_runs) == 1, "waitv_restarted_after_sa_restart");
}

// ---- robust lists ----

#define FUTEX_WAITERS		0x80000000u
#define FUTEX_OWNER_DIED	0x40000000u

// A robust list with one lock, laid out as the kernel reads it: the head
// (next, futex_offset, list_op_pending), then an entry whose lock word sits
// futex_offset bytes after it.
struct robust_area {
	void *next;
	long offset;
	void *pending;
	struct {
		void *next;
		atomic_int lock;
	} entry;
};

static void test_robust_list_calls(void)
{
	struct robust_area a = { 0 };
	void *head = NULL;
	size_t len = 0;
	int ok;

	a.next = &a;
	ok = syscall(SYS_set_robust_list, &a, sizeof(long) * 3) == 0;
	ok = ok && syscall(SYS_get_robust_list, 0L, &head, &len) == 0 && head == &a &&
	     len == sizeof(long) * 3;
	ok = ok && syscall(SYS_set_robust_list, &a, sizeof(long) * 3 - 1) == -1 && errno == EINVAL;
	ok = ok && syscall(SYS_get_robust_list, 0x3fffffffL, &head, &len) == -1 && errno == ESRCH;
	ok = ok && syscall(SYS_get_robust_list, 0L, (void *)8, &len) == -1 && errno == EFAULT;
	syscall(SYS_set_robust_list, NULL, sizeof(long) * 3);
	ktap_result(ok, "robust_list_set_get");
}

// A process holding a robust lock dies (SIGKILL): the kernel marks the lock
// FUTEX_OWNER_DIED and wakes the process waiting on it.
static void test_robust_owner_death(void)
{
	struct robust_area *a = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int ready[2], status = 0, wstatus = 0;
	pid_t owner, waiter;
	char c;

	if (a == MAP_FAILED || pipe(ready) < 0) {
		ktap_result(0, "robust_owner_death_wakes_waiter # setup failed");
		return;
	}
	owner = fork();
	if (owner == 0) {
		alarm(30);
		a->next = &a->entry;
		a->offset = (char *)&a->entry.lock - (char *)&a->entry;
		a->pending = NULL;
		a->entry.next = a;
		atomic_store(&a->entry.lock, (int)(syscall(SYS_gettid) | FUTEX_WAITERS));
		syscall(SYS_set_robust_list, a, sizeof(long) * 3);
		write(ready[1], "r", 1);
		pause();
		_exit(1);
	}
	read(ready[0], &c, 1);
	int held = atomic_load(&a->entry.lock);
	waiter = fork();
	if (waiter == 0) {
		alarm(30);
		long rc = futex(&a->entry.lock, FUTEX_WAIT, held, NULL, NULL, 0);
		// Woken (0), or the owner died before we slept (EAGAIN).
		_exit((rc == 0 || errno == EAGAIN) ? 0 : 2);
	}
	sleep_ms(100);		// let the waiter sleep (either order passes)
	kill(owner, SIGKILL);
	waitpid(owner, &status, 0);
	waitpid(waiter, &wstatus, 0);
	unsigned after = (unsigned)atomic_load(&a->entry.lock);
	ktap_result(WIFSIGNALED(status) && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 &&
			    after == (FUTEX_OWNER_DIED | FUTEX_WAITERS),
		    "robust_owner_death_wakes_waiter");
	close(ready[0]);
	close(ready[1]);
	munmap(a, 4096);
}

// The same through libc: a process-shared robust mutex whose owner is
// killed is handed to the next locker with EOWNERDEAD.
static void test_robust_pthread_mutex(void)
{
	pthread_mutex_t *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_mutexattr_t attr;
	int ready[2], status = 0, rc = -1;
	pid_t owner;
	char c;

	if (m == MAP_FAILED || pipe(ready) < 0) {
		ktap_result(0, "robust_pthread_mutex_eownerdead # setup failed");
		return;
	}
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(m, &attr);
	owner = fork();
	if (owner == 0) {
		alarm(30);
		pthread_mutex_lock(m);
		write(ready[1], "r", 1);
		pause();
		_exit(1);
	}
	read(ready[0], &c, 1);
	kill(owner, SIGKILL);
	waitpid(owner, &status, 0);
	rc = pthread_mutex_lock(m);
	int consistent = rc == EOWNERDEAD && pthread_mutex_consistent(m) == 0 &&
			 pthread_mutex_unlock(m) == 0;
	ktap_result(consistent, "robust_pthread_mutex_eownerdead");
	close(ready[0]);
	close(ready[1]);
	munmap(m, 4096);
}

// ---- priority-inheritance futexes ----

#define X_LOCK_PI	6
#define X_UNLOCK_PI	7
#define X_TRYLOCK_PI	8
#define X_LOCK_PI2	13
#define X_WAITERS	0x80000000u
#define X_TID_MASK	0x3fffffffu

static atomic_int pi_word;
static atomic_int pi_state;	// 1: the helper is about to block, 2: it owns the lock
static long pi_rc;

static void *pi_locker(void *arg)
{
	(void)arg;
	atomic_store(&pi_state, 1);
	pi_rc = futex(&pi_word, X_LOCK_PI, 0, NULL, NULL, 0);
	if (pi_rc == 0 && (unsigned)(atomic_load(&pi_word) & X_TID_MASK) == (unsigned)my_tid())
		atomic_store(&pi_state, 2);
	futex(&pi_word, X_UNLOCK_PI, 0, NULL, NULL, 0);
	return NULL;
}

static struct timespec pi_deadline;

static void *pi_timed(void *arg)
{
	(void)arg;
	pi_rc = futex(&pi_word, X_LOCK_PI2, 0, &pi_deadline, NULL, 0) == -1 ? errno : 0;
	return NULL;
}

static void *pi_trylocker(void *arg)
{
	(void)arg;
	pi_rc = futex(&pi_word, X_TRYLOCK_PI, 0, NULL, NULL, 0) == -1 ? errno : 0;
	return NULL;
}

// The word's protocol: a free word takes the locker's TID, a second lock
// by it is EDEADLK, another thread's trylock EAGAIN, an unlock by a
// non-owner EPERM, an owner TID no thread has ESRCH.
static void test_pi_protocol(void)
{
	pthread_t th;
	int ok;

	atomic_store(&pi_word, 0);
	ok = futex(&pi_word, X_LOCK_PI, 0, NULL, NULL, 0) == 0 &&
	     (unsigned)atomic_load(&pi_word) == (unsigned)my_tid();
	ok = ok && futex(&pi_word, X_LOCK_PI, 0, NULL, NULL, 0) == -1 && errno == EDEADLK;
	ok = ok && pthread_create(&th, NULL, pi_trylocker, NULL) == 0 &&
	     pthread_join(th, NULL) == 0 && pi_rc == EAGAIN;
	ok = ok && futex(&pi_word, X_UNLOCK_PI, 0, NULL, NULL, 0) == 0 && atomic_load(&pi_word) == 0;
	ok = ok && futex(&pi_word, X_UNLOCK_PI, 0, NULL, NULL, 0) == -1 && errno == EPERM;
	atomic_store(&pi_word, 0x3ffffff0);
	ok = ok && futex(&pi_word, X_LOCK_PI, 0, NULL, NULL, 0) == -1 && errno == ESRCH;
	atomic_store(&pi_word, 0);
	ok = ok && futex(&pi_word, X_TRYLOCK_PI, 0, NULL, NULL, 0) == 0;
	ok = ok && futex(&pi_word, X_UNLOCK_PI, 0, NULL, NULL, 0) == 0;
	ktap_result(ok, "pi_lock_unlock_trylock_errnos");
}

// A waiter: FUTEX_WAITERS on the word, and UNLOCK_PI hands the lock to it
// (its TID in the word when it returns); LOCK_PI2 times out.
static void test_pi_handoff(void)
{
	pthread_t th;
	struct timespec ts;
	int ok;

	atomic_store(&pi_word, 0);
	atomic_store(&pi_state, 0);
	ok = futex(&pi_word, X_LOCK_PI, 0, NULL, NULL, 0) == 0;
	ok = ok && pthread_create(&th, NULL, pi_locker, NULL) == 0;
	for (int i = 0; ok && i < SETTLE_MS && !(atomic_load(&pi_word) & X_WAITERS); i++)
		sleep_ms(1);
	ok = ok && (atomic_load(&pi_word) & X_WAITERS);
	ok = ok && futex(&pi_word, X_UNLOCK_PI, 0, NULL, NULL, 0) == 0;
	if (ok)
		pthread_join(th, NULL);
	ok = ok && pi_rc == 0 && atomic_load(&pi_state) == 2 && atomic_load(&pi_word) == 0;
	// A timeout while someone else holds it.
	atomic_store(&pi_word, 0);
	ok = ok && futex(&pi_word, X_LOCK_PI, 0, NULL, NULL, 0) == 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += 50000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pi_deadline = ts;
	pi_rc = -2;
	if (ok && pthread_create(&th, NULL, pi_timed, NULL) == 0)
		pthread_join(th, NULL);
	ok = ok && pi_rc == ETIMEDOUT;
	futex(&pi_word, X_UNLOCK_PI, 0, NULL, NULL, 0);
	ktap_result(ok, "pi_waiter_gets_the_handoff_and_times_out");
}

struct pi_counter {
	pthread_mutex_t m;
	long n;
};

static void *pi_count(void *arg)
{
	struct pi_counter *c = arg;

	for (int i = 0; i < 2000; i++) {
		pthread_mutex_lock(&c->m);
		c->n++;
		pthread_mutex_unlock(&c->m);
	}
	return NULL;
}

// The C library's PTHREAD_PRIO_INHERIT mutexes (stress-ng's pthread
// stressor makes them): four threads counting under one.
static void test_pi_pthread_mutex(void)
{
	struct pi_counter c = { .n = 0 };
	pthread_mutexattr_t a;
	pthread_t th[4];
	int ok = pthread_mutexattr_init(&a) == 0 &&
		 pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT) == 0 &&
		 pthread_mutex_init(&c.m, &a) == 0;

	for (int i = 0; ok && i < 4; i++)
		ok = pthread_create(&th[i], NULL, pi_count, &c) == 0;
	for (int i = 0; ok && i < 4; i++)
		pthread_join(th[i], NULL);
	ktap_result(ok && c.n == 8000, "pi_pthread_mutex");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	start_watchdog("futex", WATCHDOG_SECONDS);
	ktap_plan(NR_CASES);

	test_wait_value_mismatch();
	test_wait_relative_timeout();
	test_wait_bitset_absolute("wait_bitset_abs_monotonic", CLOCK_MONOTONIC, 0);
	test_wait_bitset_absolute("wait_bitset_abs_realtime", CLOCK_REALTIME, FUTEX_CLOCK_REALTIME);
	test_wait_past_deadline();
	test_wake_nobody();
	test_wake_count(0, "wake_returns_count_shared");
	test_wake_count(FUTEX_PRIVATE_FLAG, "wake_returns_count_private");
	test_wake_all();
	test_wake_oldest_first();
	test_wake_priority_order();
	test_cmp_requeue();
	test_requeue();
	test_requeue_same_word(0, "requeue_onto_same_word");
	test_requeue_same_word(1, "cmp_requeue_onto_same_word");
	test_wake_op();
	test_bitset_selective();
	test_bitset_zero_einval();
	test_wait_eintr();
	test_shared_across_fork();
	test_nonprivate_private_memory_cow();
	test_bad_op();
	test_einval();
	test_efault();
	test_waitv_einval();
	test_waitv_timeouts();
	test_waitv_wake();
	test_waitv_shared_fork();
	test_waitv_eintr();
	test_waitv_restart();
	test_robust_list_calls();
	test_robust_owner_death();
	test_robust_pthread_mutex();
	test_pi_protocol();
	test_pi_handoff();
	test_pi_pthread_mutex();
	finish_watchdog();
	return ktap_finish();
}
