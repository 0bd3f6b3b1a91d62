// rseq_glibc: glibc's own rseq registration (glibc 2.35 and later register
// every thread at start-up) and sched_getcpu(), which reads cpu_id from
// that area instead of making a system call.  Built with glibc only
// (gcc -static); the same binary passes on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testcase.h"
#include "sysutil.h"

static int cpu_list[CPU_SETSIZE];
static int nr_cpus;
static cpu_set_t initial_mask;

// This thread's area: glibc keeps it at __rseq_offset from the thread
// pointer (the TCB, whose first word points to itself).
static struct rseq *my_area(void)
{
	char *tp;

#if defined(__x86_64__)
	__asm__("movq %%fs:0, %0" : "=r"(tp));
#elif defined(__powerpc64__)
	__asm__("mr %0, 13" : "=r"(tp));	// the thread pointer is r13
#endif
	return (struct rseq *)(tp + __rseq_offset);
}

// A second registration of glibc's area is EBUSY: glibc registered it.
// (glibc registers 32 bytes, the original ABI; __rseq_size tells
// programs how much of it they may use, 20 bytes in Debian's 2.36.)
static int glibc_registered(void)
{
	long r = syscall(SYS_rseq, my_area(), 32, 0, RSEQ_SIG);

	return r == -1 && errno == EBUSY;
}

static void test_registered(void)
{
	check(__rseq_size >= 20, "glibc's __rseq_size says it registered");
	check(glibc_registered(), "registering glibc's area again gives EBUSY");
	check((int)my_area()->cpu_id == sched_getcpu(), "cpu_id is sched_getcpu()");
}

// sched_getcpu() follows forced migrations.
static void test_sched_getcpu_migrations(void)
{
	for (int round = 0; round < 20; round++) {
		int cpu = cpu_list[round % nr_cpus];
		unsigned sys_cpu = ~0u;

		if (!check_ok(pin_self(cpu), "pin"))
			break;
		syscall(SYS_getcpu, &sys_cpu, NULL, NULL);
		int got = sched_getcpu();
		if (got != cpu || sys_cpu != (unsigned)cpu) {
			fail("pinned to %d: sched_getcpu %d, getcpu %u", cpu, got, sys_cpu);
			break;
		}
	}
	sched_setaffinity(0, sizeof(initial_mask), &initial_mask);
}

// sched_getcpu() answers from the area: a value planted there comes back
// (unless the kernel rewrote it meanwhile, which a retry gets past).  The
// thread stays on one CPU meanwhile, so the value put back stays true
// (the kernel owns the field; Switchyard rewrites it only when it
// changes).
static void test_sched_getcpu_reads_area(void)
{
	struct rseq *a = my_area();
	int ok = 0;

	if (!check_ok(pin_self(sched_getcpu()), "pin"))
		return;
	for (int i = 0; i < 10 && !ok; i++) {
		uint32_t saved = a->cpu_id;
		__atomic_store_n(&a->cpu_id, 1234u, __ATOMIC_RELAXED);
		int got = sched_getcpu();
		__atomic_store_n(&a->cpu_id, saved, __ATOMIC_RELAXED);
		ok = got == 1234;
	}
	sched_setaffinity(0, sizeof(initial_mask), &initial_mask);
	check(ok, "sched_getcpu() returns the area's cpu_id");
}

static long thread_status;

static void *thread_fn(void *arg)
{
	(void)arg;
	if (!glibc_registered())
		thread_status = 1;
	else if ((int)my_area()->cpu_id != sched_getcpu() || sched_getcpu() < 0)
		thread_status = 2;
	return NULL;
}

static void test_threads_registered(void)
{
	pthread_t th[4];

	for (int i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, thread_fn, NULL) != 0)
			fail("pthread_create");
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	if (thread_status)
		fail("a new thread: not registered (1), cpu_id wrong (2): %ld", thread_status);
}

static const struct test_case cases[] = {
	{ "glibc_registers_rseq", test_registered },
	{ "sched_getcpu_after_forced_migrations", test_sched_getcpu_migrations },
	{ "sched_getcpu_reads_rseq_area", test_sched_getcpu_reads_area },
	{ "glibc_threads_register_rseq", test_threads_registered },
};

int main(void)
{
	sched_getaffinity(0, sizeof(initial_mask), &initial_mask);
	nr_cpus = usable_cpus(cpu_list);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
