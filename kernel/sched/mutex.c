// Sleeping locks (see kernel/mutex.h): an owner and a wait queue, both
// under a spinlock that is only held for a few instructions.

#include <kernel/mutex.h>
#include <kernel/thread.h>
#include <kernel/panic.h>
#include <kernel/sched.h>
#include <kernel/ktest.h>
#include <kernel/time.h>

void mutex_init(struct mutex *m, const char *name)
{
	spin_init(&m->lock, name);
	m->owner = 0;
	m->waiters.head = 0;
}

void mutex_lock(struct mutex *m)
{
	struct thread *me = current_thread();
	uint64_t flags = spin_lock_irqsave(&m->lock);

	if (m->owner == me)
		panic("mutex %s: taken twice by %s", m->lock.name, me->name);
	// A woken waiter may find the lock taken again by a thread that came
	// in meanwhile; it then waits again.  Every unlock wakes one waiter,
	// so none is forgotten.
	while (m->owner)
		wq_wait(&m->waiters, &m->lock, WAIT_FOREVER, false);
	m->owner = me;
	spin_unlock_irqrestore(&m->lock, flags);
}

void mutex_unlock(struct mutex *m)
{
	uint64_t flags = spin_lock_irqsave(&m->lock);

	if (m->owner != current_thread())
		panic("mutex %s: released by %s, which does not hold it", m->lock.name,
		      current_thread()->name);
	m->owner = 0;
	wq_wake_one(&m->waiters);
	spin_unlock_irqrestore(&m->lock, flags);
}

bool mutex_held(struct mutex *m)
{
	return __atomic_load_n(&m->owner, __ATOMIC_RELAXED) == current_thread();
}

// ---- tests ----

#define MUTEX_TEST_THREADS	3
#define MUTEX_TEST_ROUNDS	200

static struct mutex test_mutex = MUTEX_INIT("mutex test");
static volatile int test_inside, test_overlaps, test_count, test_done;

// Each round holds the lock across a yield, as a holder that sleeps
// would: nobody else may get in meanwhile.
static void mutex_test_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < MUTEX_TEST_ROUNDS; i++) {
		mutex_lock(&test_mutex);
		if (__atomic_add_fetch(&test_inside, 1, __ATOMIC_SEQ_CST) != 1)
			test_overlaps++;
		int seen = test_count;
		sched_yield();
		test_count = seen + 1;
		__atomic_sub_fetch(&test_inside, 1, __ATOMIC_SEQ_CST);
		mutex_unlock(&test_mutex);
	}
	__atomic_add_fetch(&test_done, 1, __ATOMIC_SEQ_CST);
}

KTEST(mutex, exclusive_across_sleep)
{
	test_inside = test_overlaps = test_count = test_done = 0;
	for (int i = 0; i < MUTEX_TEST_THREADS; i++)
		KEXPECT(kthread_create("mutex test", mutex_test_thread, 0, i % ncpus_online));
	uint64_t deadline = clock_monotonic_ns() + 60ULL * 1000000000ULL;
	while (__atomic_load_n(&test_done, __ATOMIC_SEQ_CST) < MUTEX_TEST_THREADS &&
	       clock_monotonic_ns() < deadline)
		sched_yield();
	KEXPECT(test_done == MUTEX_TEST_THREADS);
	KEXPECT(test_overlaps == 0);
	KEXPECT(test_count == MUTEX_TEST_THREADS * MUTEX_TEST_ROUNDS);
	KEXPECT(!mutex_held(&test_mutex) && test_mutex.owner == 0);
	return true;
}
