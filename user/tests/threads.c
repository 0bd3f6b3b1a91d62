// threads: POSIX threads on Switchyard.
//
// Exercises what a libc's pthread implementation asks of the kernel:
// clone with CLONE_THREAD|CLONE_SETTLS|CLONE_CHILD_CLEARTID, private futexes
// under contended locks, condition variables and barriers, thread exit while
// siblings run, and exit_group from a thread other than the main one.
// Built with musl and with glibc (threads-glibc): both start-up paths matter.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "sysutil.h"
#include "watchdog.h"

#define WATCHDOG_SECONDS 120
#define NR_CASES 16

// CPUs this process may run on, as found at start.  The cases pin threads
// to them with pin_self() and ignore failure: they only want the work
// spread, they never depend on where it ran.
static int cpu_list[CPU_SETSIZE];
static int nr_cpus;

// ---- create / join / detach ----

static void *return_arg_plus_one(void *arg)
{
	return (void *)((uintptr_t)arg + 1);
}

static void test_create_join(void)
{
	pthread_t t;
	void *ret = NULL;
	int rc = pthread_create(&t, NULL, return_arg_plus_one, (void *)41);

	if (rc == 0)
		rc = pthread_join(t, &ret);
	ktap_result(rc == 0 && ret == (void *)42, "create_join");
}

static atomic_int detached_done;

static void *detached_body(void *arg)
{
	(void)arg;
	atomic_store(&detached_done, 1);
	return NULL;
}

static void test_detach(void)
{
	pthread_t t;
	pthread_attr_t attr;
	int ok = 1;

	// One thread detached after creation, one created detached.
	if (pthread_create(&t, NULL, detached_body, NULL) != 0 || pthread_detach(t) != 0)
		ok = 0;
	for (int i = 0; ok && i < 5000 && !atomic_load(&detached_done); i++)
		sleep_ms(1);
	ok = ok && atomic_load(&detached_done);
	atomic_store(&detached_done, 0);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (ok && pthread_create(&t, &attr, detached_body, NULL) != 0)
		ok = 0;
	pthread_attr_destroy(&attr);
	for (int i = 0; ok && i < 5000 && !atomic_load(&detached_done); i++)
		sleep_ms(1);
	ok = ok && atomic_load(&detached_done);
	ktap_result(ok, "detach");
}

// ---- many threads, in waves that overlap ----

#define MANY_THREADS 64
#define WAVE 16

static atomic_int many_running;
static atomic_int many_peak;

static void *many_body(void *arg)
{
	int now = atomic_fetch_add(&many_running, 1) + 1;
	int peak = atomic_load(&many_peak);

	while (now > peak && !atomic_compare_exchange_weak(&many_peak, &peak, now))
		;
	sched_yield();
	atomic_fetch_sub(&many_running, 1);
	return (void *)((uintptr_t)arg * 3);
}

static void test_many_threads(void)
{
	pthread_t t[MANY_THREADS];
	int ok = 1;

	// Each wave starts before the previous one is reaped, so up to two
	// waves of threads exist at once.
	for (int base = 0; base < MANY_THREADS; base += WAVE) {
		for (int i = base; i < base + WAVE; i++)
			if (pthread_create(&t[i], NULL, many_body, (void *)(uintptr_t)i) != 0) {
				ok = 0;
				t[i] = 0;
			}
		if (base >= WAVE)
			for (int i = base - WAVE; i < base; i++) {
				void *ret;

				if (t[i] && (pthread_join(t[i], &ret) != 0 || ret != (void *)(uintptr_t)(i * 3)))
					ok = 0;
			}
	}
	for (int i = MANY_THREADS - WAVE; i < MANY_THREADS; i++) {
		void *ret;

		if (t[i] && (pthread_join(t[i], &ret) != 0 || ret != (void *)(uintptr_t)(i * 3)))
			ok = 0;
	}
	ktap_diag("peak concurrently running threads: %d", atomic_load(&many_peak));
	ktap_result(ok && atomic_load(&many_running) == 0, "many_threads_%d", MANY_THREADS);
}

static void test_create_join_loop(void)
{
	int ok = 1;

	// A short-lived thread per iteration: each join depends on the kernel
	// clearing the child tid and waking the futex (CLONE_CHILD_CLEARTID).
	for (int i = 0; i < 200 && ok; i++) {
		pthread_t t;
		void *ret;

		if (pthread_create(&t, NULL, return_arg_plus_one, (void *)(uintptr_t)i) != 0 ||
		    pthread_join(t, &ret) != 0 || ret != (void *)(uintptr_t)(i + 1)) {
			ktap_diag("iteration %d failed", i);
			ok = 0;
		}
	}
	ktap_result(ok, "create_join_loop_200");
}

// ---- contended mutex ----

#define MUTEX_TOTAL 100000

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long shared_counter;

struct mutex_work {
	int cpu;
	int rounds;
	atomic_int *start;
};

static void *mutex_body(void *arg)
{
	struct mutex_work *w = arg;

	pin_self(w->cpu);
	while (!atomic_load(w->start))
		sched_yield();
	for (int i = 0; i < w->rounds; i++) {
		pthread_mutex_lock(&counter_lock);
		// A read-modify-write that a missing lock would tear.
		long v = shared_counter;
		if ((i & 63) == 0)
			sched_yield();
		shared_counter = v + 1;
		pthread_mutex_unlock(&counter_lock);
	}
	return NULL;
}

static void test_contended_mutex(void)
{
	int nthreads = nr_cpus * 2 < 4 ? 4 : nr_cpus * 2;
	pthread_t t[nthreads];
	struct mutex_work w[nthreads];
	atomic_int start = 0;
	int ok = 1, made = 0;

	shared_counter = 0;
	for (int i = 0; i < nthreads; i++) {
		w[i].cpu = cpu_list[i % nr_cpus];
		// Split the total exactly: the first threads take the remainder.
		w[i].rounds = MUTEX_TOTAL / nthreads + (i < MUTEX_TOTAL % nthreads);
		w[i].start = &start;
		if (pthread_create(&t[i], NULL, mutex_body, &w[i]) != 0) {
			ok = 0;
			break;
		}
		made++;
	}
	atomic_store(&start, 1);
	for (int i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	if (shared_counter != MUTEX_TOTAL)
		ktap_diag("counter %ld, expected %d", shared_counter, MUTEX_TOTAL);
	ktap_result(ok && shared_counter == MUTEX_TOTAL, "contended_mutex_%d_threads_%d_cpus",
		    nthreads, nr_cpus);
}

// ---- condition variables: bounded buffer ----

#define QUEUE_SLOTS 8
#define ITEMS_PER_PRODUCER 5000
#define PRODUCERS 2
#define CONSUMERS 2

static struct {
	pthread_mutex_t lock;
	pthread_cond_t not_full;
	pthread_cond_t not_empty;
	int slots[QUEUE_SLOTS];
	int head, count, producers_left;
	long consumed_sum;
	int consumed_items;
} queue = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.not_full = PTHREAD_COND_INITIALIZER,
	.not_empty = PTHREAD_COND_INITIALIZER,
};

static void *producer(void *arg)
{
	int id = (int)(uintptr_t)arg;

	pin_self(cpu_list[id % nr_cpus]);
	for (int i = 1; i <= ITEMS_PER_PRODUCER; i++) {
		pthread_mutex_lock(&queue.lock);
		while (queue.count == QUEUE_SLOTS)
			pthread_cond_wait(&queue.not_full, &queue.lock);
		queue.slots[(queue.head + queue.count) % QUEUE_SLOTS] = i;
		queue.count++;
		pthread_cond_signal(&queue.not_empty);
		pthread_mutex_unlock(&queue.lock);
	}
	pthread_mutex_lock(&queue.lock);
	queue.producers_left--;
	pthread_cond_broadcast(&queue.not_empty);
	pthread_mutex_unlock(&queue.lock);
	return NULL;
}

static void *consumer(void *arg)
{
	int id = (int)(uintptr_t)arg;

	pin_self(cpu_list[(id + 1) % nr_cpus]);
	pthread_mutex_lock(&queue.lock);
	for (;;) {
		while (queue.count == 0 && queue.producers_left > 0)
			pthread_cond_wait(&queue.not_empty, &queue.lock);
		if (queue.count == 0)
			break;
		queue.consumed_sum += queue.slots[queue.head];
		queue.consumed_items++;
		queue.head = (queue.head + 1) % QUEUE_SLOTS;
		queue.count--;
		pthread_cond_signal(&queue.not_full);
	}
	pthread_mutex_unlock(&queue.lock);
	return NULL;
}

static void test_condvar(void)
{
	pthread_t p[PRODUCERS], c[CONSUMERS];
	long expect = (long)PRODUCERS * ITEMS_PER_PRODUCER * (ITEMS_PER_PRODUCER + 1) / 2;

	queue.producers_left = PRODUCERS;
	for (int i = 0; i < CONSUMERS; i++)
		pthread_create(&c[i], NULL, consumer, (void *)(uintptr_t)i);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_create(&p[i], NULL, producer, (void *)(uintptr_t)i);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(p[i], NULL);
	for (int i = 0; i < CONSUMERS; i++)
		pthread_join(c[i], NULL);
	ktap_result(queue.consumed_sum == expect && queue.consumed_items == PRODUCERS * ITEMS_PER_PRODUCER,
		    "condvar_producer_consumer");
}

// ---- barriers ----

#define BARRIER_THREADS 4
#define BARRIER_ROUNDS 50

static pthread_barrier_t barrier;
static atomic_int barrier_arrived;
static atomic_int barrier_errors;
static atomic_int barrier_serial;

static void *barrier_body(void *arg)
{
	pin_self(cpu_list[(int)(uintptr_t)arg % nr_cpus]);
	for (int round = 0; round < BARRIER_ROUNDS; round++) {
		atomic_fetch_add(&barrier_arrived, 1);
		if (pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
			atomic_fetch_add(&barrier_serial, 1);
		// Past the barrier everybody of this round has arrived.
		if (atomic_load(&barrier_arrived) < (round + 1) * BARRIER_THREADS)
			atomic_fetch_add(&barrier_errors, 1);
		// Second barrier so no thread races into the next round's count.
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

static void test_barrier(void)
{
	pthread_t t[BARRIER_THREADS];

	pthread_barrier_init(&barrier, NULL, BARRIER_THREADS);
	for (int i = 0; i < BARRIER_THREADS; i++)
		pthread_create(&t[i], NULL, barrier_body, (void *)(uintptr_t)i);
	for (int i = 0; i < BARRIER_THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&barrier);
	ktap_result(atomic_load(&barrier_errors) == 0 && atomic_load(&barrier_serial) == BARRIER_ROUNDS,
		    "barrier");
}

// ---- rwlocks ----

static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static long rw_a, rw_b;
static atomic_int rw_torn;
static atomic_int rw_stop;

static void *rw_reader(void *arg)
{
	pin_self(cpu_list[(int)(uintptr_t)arg % nr_cpus]);
	while (!atomic_load(&rw_stop)) {
		pthread_rwlock_rdlock(&rwlock);
		if (rw_a != rw_b)
			atomic_fetch_add(&rw_torn, 1);
		pthread_rwlock_unlock(&rwlock);
		sched_yield();
	}
	return NULL;
}

static void *rw_writer(void *arg)
{
	pin_self(cpu_list[(int)(uintptr_t)arg % nr_cpus]);
	for (int i = 0; i < 2000; i++) {
		pthread_rwlock_wrlock(&rwlock);
		rw_a++;
		if ((i & 15) == 0)
			sched_yield();
		rw_b++;
		pthread_rwlock_unlock(&rwlock);
	}
	return NULL;
}

static void test_rwlock(void)
{
	pthread_t r[3], w[2];
	int shared_ok;

	// Two readers may hold the lock together; a writer may not join them.
	pthread_rwlock_rdlock(&rwlock);
	shared_ok = pthread_rwlock_tryrdlock(&rwlock) == 0;
	if (shared_ok)
		pthread_rwlock_unlock(&rwlock);
	shared_ok = shared_ok && pthread_rwlock_trywrlock(&rwlock) == EBUSY;
	pthread_rwlock_unlock(&rwlock);

	for (int i = 0; i < 3; i++)
		pthread_create(&r[i], NULL, rw_reader, (void *)(uintptr_t)i);
	for (int i = 0; i < 2; i++)
		pthread_create(&w[i], NULL, rw_writer, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	atomic_store(&rw_stop, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(r[i], NULL);
	ktap_result(shared_ok && rw_a == 4000 && rw_b == 4000 && atomic_load(&rw_torn) == 0, "rwlock");
}

// ---- thread-local storage ----

static __thread long tls_value = 1234;
static __thread char tls_buffer[64];

static void *tls_body(void *arg)
{
	long id = (long)(uintptr_t)arg;
	int ok = tls_value == 1234 && tls_buffer[0] == 0;

	tls_value = id * 1000;
	snprintf(tls_buffer, sizeof(tls_buffer), "thread %ld", id);
	for (int i = 0; i < 50; i++) {
		sched_yield();
		char want[64];

		snprintf(want, sizeof(want), "thread %ld", id);
		if (tls_value != id * 1000 || strcmp(tls_buffer, want) != 0)
			ok = 0;
	}
	return (void *)(uintptr_t)ok;
}

static void test_tls(void)
{
	pthread_t t[8];
	int ok = 1;
	long *addr_main = &tls_value;

	tls_value = -1;
	for (int i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, tls_body, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < 8; i++) {
		void *ret;

		pthread_join(t[i], &ret);
		if (ret != (void *)1)
			ok = 0;
	}
	ktap_result(ok && tls_value == -1 && addr_main == &tls_value, "thread_local_storage");
}

// ---- pthread_exit while siblings keep running ----

static atomic_int sibling_go;
static atomic_long sibling_progress;

static void *exiting_early(void *arg)
{
	(void)arg;
	// Leave from a nested call: pthread_exit must not return.
	pthread_exit((void *)77);
	return NULL;
}

static void *sibling_spinner(void *arg)
{
	(void)arg;
	while (atomic_load(&sibling_go) == 0) {
		atomic_fetch_add(&sibling_progress, 1);
		sched_yield();
	}
	return (void *)88;
}

static void test_thread_exit(void)
{
	pthread_t early, sibling;
	void *r1 = NULL, *r2 = NULL;
	long before;

	pthread_create(&sibling, NULL, sibling_spinner, NULL);
	pthread_create(&early, NULL, exiting_early, NULL);
	pthread_join(early, &r1);
	before = atomic_load(&sibling_progress);
	// The sibling must still be making progress after its peer left.
	for (int i = 0; i < 5000 && atomic_load(&sibling_progress) == before; i++)
		sleep_ms(1);
	int progressed = atomic_load(&sibling_progress) != before;
	atomic_store(&sibling_go, 1);
	pthread_join(sibling, &r2);
	ktap_result(r1 == (void *)77 && r2 == (void *)88 && progressed, "pthread_exit_sibling_runs");
}

// ---- the main thread leaves with pthread_exit, the process lives on ----

static void *last_thread(void *arg)
{
	(void)arg;
	sleep_ms(50);
	exit(5);
}

static void test_main_thread_exit(void)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		pthread_t t;

		alarm(30);
		if (pthread_create(&t, NULL, last_thread, NULL) != 0)
			_exit(1);
		pthread_exit(NULL);
	}
	waitpid(pid, &status, 0);
	ktap_result(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 5, "main_thread_pthread_exit");
}

// ---- exit_group from a non-main thread ----

static void *exit_group_body(void *arg)
{
	(void)arg;
	sleep_ms(20);
	// exit() ends every thread of the process, including the sleepers.
	exit(7);
}

static void *sleeper_body(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void test_exit_group_from_thread(void)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		pthread_t t, s;

		alarm(30);
		pthread_create(&s, NULL, sleeper_body, NULL);
		pthread_create(&t, NULL, exit_group_body, NULL);
		for (;;)
			pause();
	}
	waitpid(pid, &status, 0);
	ktap_result(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 7, "exit_group_from_thread");
}

// ---- thread ids ----

#define ID_THREADS 6

struct ids {
	pid_t tid;
	pid_t pid;
};

static void *id_body(void *arg)
{
	struct ids *out = arg;

	out->tid = my_tid();
	out->pid = getpid();
	return NULL;
}

static void test_thread_ids(void)
{
	pthread_t t[ID_THREADS];
	struct ids ids[ID_THREADS + 1];
	int ok = 1;

	ids[ID_THREADS].tid = my_tid();
	ids[ID_THREADS].pid = getpid();
	ok = ids[ID_THREADS].tid == getpid();
	// Keep them all alive together so no tid can be reused.
	for (int i = 0; i < ID_THREADS; i++)
		pthread_create(&t[i], NULL, id_body, &ids[i]);
	for (int i = 0; i < ID_THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i <= ID_THREADS; i++) {
		if (ids[i].pid != getpid())
			ok = 0;
		for (int j = 0; j < i; j++)
			if (ids[i].tid == ids[j].tid)
				ok = 0;
	}
	ktap_result(ok, "gettid_distinct_getpid_same");
}

// ---- explicit CLONE_CHILD_CLEARTID through set_tid_address ----

static void *cleartid_body(void *arg)
{
	(void)arg;
	sleep_ms(10);
	return NULL;
}

static void test_join_many_waiters(void)
{
	// pthread_join sleeps on the tid word; a thread that already exited
	// and one still running must both be joinable.
	pthread_t quick, slow;
	int ok = pthread_create(&quick, NULL, return_arg_plus_one, NULL) == 0 &&
		 pthread_create(&slow, NULL, cleartid_body, NULL) == 0;

	sleep_ms(5);
	ok = ok && pthread_join(quick, NULL) == 0 && pthread_join(slow, NULL) == 0;
	ktap_result(ok, "join_exited_and_running");
}

// ---- threads really run at once on several CPUs ----

static atomic_int rendezvous;

static void *rendezvous_body(void *arg)
{
	int cpu = (int)(uintptr_t)arg;

	pin_self(cpu);
	atomic_fetch_add(&rendezvous, 1);
	// Spin without yielding: only true parallelism (or preemption) lets
	// every thread see the full count.
	for (long i = 0; atomic_load(&rendezvous) < nr_cpus; i++)
		if ((i & 0xfffff) == 0xfffff)
			sched_yield();
	return NULL;
}

static void test_parallel_rendezvous(void)
{
	pthread_t t[nr_cpus];

	for (int i = 0; i < nr_cpus; i++)
		pthread_create(&t[i], NULL, rendezvous_body, (void *)(uintptr_t)cpu_list[i]);
	for (int i = 0; i < nr_cpus; i++)
		pthread_join(t[i], NULL);
	ktap_result(atomic_load(&rendezvous) == nr_cpus, "spinning_rendezvous_%d_cpus", nr_cpus);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	start_watchdog("threads", WATCHDOG_SECONDS);
	nr_cpus = usable_cpus(cpu_list);
	ktap_plan(NR_CASES);
	ktap_diag("%d CPUs online, %d usable", (int)sysconf(_SC_NPROCESSORS_ONLN), nr_cpus);

	test_create_join();
	test_detach();
	test_many_threads();
	test_create_join_loop();
	test_contended_mutex();
	test_condvar();
	test_barrier();
	test_rwlock();
	test_tls();
	test_thread_exit();
	test_main_thread_exit();
	test_exit_group_from_thread();
	test_thread_ids();
	test_join_many_waiters();
	test_parallel_rendezvous();
	// The watchdog would have fired by now if anything hung.
	finish_watchdog();
	return ktap_finish();
}
