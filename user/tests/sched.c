// sched: yielding, affinity, CPU identification, policies, sleeping, and
// migration of busy threads.  Everything adapts to the CPUs this process may
// use; nothing asserts speed, only ordering and correctness.
#define _GNU_SOURCE
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "sysutil.h"
#include "watchdog.h"

#define WATCHDOG_SECONDS 120
#define NR_CASES 14
#define PIN_ITERATIONS 200

static int cpu_list[CPU_SETSIZE];
static int nr_cpus;
static cpu_set_t initial_mask;

static void unpin_self(void)
{
	sched_setaffinity(0, sizeof(initial_mask), &initial_mask);
}

// The raw system call, so the test does not depend on a vDSO.
static int getcpu_syscall(unsigned *cpu, unsigned *node)
{
	return (int)syscall(SYS_getcpu, cpu, node, NULL);
}

// ---- cases ----

static void test_yield(void)
{
	int ok = 1;

	for (int i = 0; i < 1000; i++)
		if (sched_yield() != 0)
			ok = 0;
	ktap_result(ok, "sched_yield");
}

static void test_getaffinity(void)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	int ok, count;
	// The kernel reports the size of its mask; a tiny buffer is EINVAL.
	unsigned char tiny[1];
	long rc_small;

	CPU_ZERO(&set);
	ok = sched_getaffinity(0, sizeof(set), &set) == 0;
	count = CPU_COUNT(&set);
	ok = ok && count >= 1 && count == nr_cpus && count <= online;
	rc_small = syscall(SYS_sched_getaffinity, 0, (size_t)0, tiny);
	ok = ok && rc_small == -1 && errno == EINVAL;
	// The raw syscall returns the number of bytes it wrote.
	long bytes = syscall(SYS_sched_getaffinity, 0, sizeof(set), &set);
	ok = ok && bytes > 0 && bytes <= (long)sizeof(set) && bytes % sizeof(long) == 0;
	ktap_diag("online %ld, affinity count %d, kernel mask %ld bytes", online, count, bytes);
	ktap_result(ok, "sched_getaffinity");
}

static void test_pin_each_cpu(void)
{
	int ok = 1;

	for (int i = 0; i < nr_cpus && ok; i++) {
		int cpu = cpu_list[i];
		cpu_set_t got;

		if (pin_self(cpu) != 0) {
			ktap_diag("cannot pin to CPU %d: errno %d", cpu, errno);
			ok = 0;
			break;
		}
		CPU_ZERO(&got);
		sched_getaffinity(0, sizeof(got), &got);
		ok = CPU_COUNT(&got) == 1 && CPU_ISSET(cpu, &got);
		for (int it = 0; it < PIN_ITERATIONS && ok; it++) {
			unsigned sys_cpu = 9999, node = 9999;

			if (sched_getcpu() != cpu || getcpu_syscall(&sys_cpu, &node) != 0 ||
			    (int)sys_cpu != cpu) {
				ktap_diag("pinned to %d, sched_getcpu %d, getcpu %u", cpu, sched_getcpu(),
					  sys_cpu);
				ok = 0;
			}
			if (it % 4 == 0)
				sched_yield();
			if (it % 50 == 0)
				sleep_ms(1);
		}
	}
	unpin_self();
	ktap_result(ok, "pin_to_each_of_%d_cpus_getcpu_matches", nr_cpus);
}

static void test_setaffinity_invalid(void)
{
	cpu_set_t set;
	int ok, spare = -1;

	CPU_ZERO(&set);
	ok = sched_setaffinity(0, sizeof(set), &set) == -1 && errno == EINVAL;
	// A mask holding only a CPU that does not exist.
	for (int cpu = CPU_SETSIZE - 1; cpu >= 0 && spare < 0; cpu--)
		if (!CPU_ISSET(cpu, &initial_mask))
			spare = cpu;
	if (spare >= 0 && spare >= sysconf(_SC_NPROCESSORS_CONF)) {
		CPU_ZERO(&set);
		CPU_SET(spare, &set);
		ok = ok && sched_setaffinity(0, sizeof(set), &set) == -1 && errno == EINVAL;
	}
	ok = ok && sched_setaffinity(999999, sizeof(initial_mask), &initial_mask) == -1 && errno == ESRCH;
	unpin_self();
	ktap_result(ok, "sched_setaffinity_invalid");
}

// Pin another thread by its tid; the thread must then run on that CPU.
struct pinned_thread {
	atomic_int tid;
	atomic_int go;
	int seen_cpu;
	int mismatches;
};

static void *report_cpu_body(void *arg)
{
	struct pinned_thread *p = arg;

	atomic_store(&p->tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&p->go))
		sched_yield();
	p->seen_cpu = sched_getcpu();
	for (int i = 0; i < 100; i++) {
		sched_yield();
		if (sched_getcpu() != p->seen_cpu)
			p->mismatches++;
	}
	return NULL;
}

static void test_setaffinity_other_thread(void)
{
	struct pinned_thread p = { 0 };
	pthread_t t;
	int target = cpu_list[nr_cpus - 1];
	cpu_set_t set;
	int rc;

	pthread_create(&t, NULL, report_cpu_body, &p);
	while (atomic_load(&p.tid) == 0)
		sched_yield();
	CPU_ZERO(&set);
	CPU_SET(target, &set);
	rc = sched_setaffinity(atomic_load(&p.tid), sizeof(set), &set);
	atomic_store(&p.go, 1);
	pthread_join(t, NULL);
	ktap_result(rc == 0 && p.seen_cpu == target && p.mismatches == 0, "sched_setaffinity_other_thread");
}

// ---- RDTSCP / RDPID: TSC_AUX holds the CPU number ----

#if defined(__x86_64__)

static sigjmp_buf insn_jump;

static void insn_fault(int sig)
{
	siglongjmp(insn_jump, sig);
}

static unsigned read_rdtscp_aux(void)
{
	unsigned lo, hi, aux;

	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	(void)lo;
	(void)hi;
	return aux;
}

static unsigned read_rdpid(void)
{
	uint64_t id;

	__asm__ volatile("rdpid %0" : "=r"(id));
	return (unsigned)id;
}

// Returns 1 when the instruction matched getcpu everywhere, 0 on mismatch,
// -1 when it faulted (not offered to user space).
static int check_tsc_aux(unsigned (*reader)(void), const char *name)
{
	struct sigaction sa, old_ill, old_segv;
	volatile int result = 1;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = insn_fault;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGILL, &sa, &old_ill);
	sigaction(SIGSEGV, &sa, &old_segv);
	sig = sigsetjmp(insn_jump, 1);
	if (sig != 0) {
		ktap_diag("%s raised signal %d", name, sig);
		result = -1;
	} else {
		for (int i = 0; i < nr_cpus && result == 1; i++) {
			pin_self(cpu_list[i]);
			for (int it = 0; it < 50 && result == 1; it++) {
				unsigned aux = reader();

				if ((int)(aux & 0xfff) != cpu_list[i]) {
					ktap_diag("%s: pinned to %d, TSC_AUX %#x", name, cpu_list[i], aux);
					result = 0;
				}
				sched_yield();
			}
		}
	}
	unpin_self();
	sigaction(SIGILL, &old_ill, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return result;
}

static void test_rdtscp(void)
{
	unsigned a, b, c, d;
	int r;

	if (!__get_cpuid(0x80000001, &a, &b, &c, &d) || !(d & (1u << 27))) {
		ktap_skip("rdtscp_tsc_aux_is_cpu", "CPU lacks RDTSCP");
		return;
	}
	r = check_tsc_aux(read_rdtscp_aux, "rdtscp");
	// CPUID offers it, so it must run in user mode (Linux leaves
	// CR4.TSD clear unless PR_SET_TSC asks): a fault is a failure.
	ktap_result(r > 0, "rdtscp_tsc_aux_is_cpu");
}

static void test_rdpid(void)
{
	unsigned a, b, c, d;
	int r;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(c & (1u << 22))) {
		ktap_skip("rdpid_is_cpu", "CPU lacks RDPID");
		return;
	}
	r = check_tsc_aux(read_rdpid, "rdpid");
	// CPUID offers it, so it must run in user mode (Linux leaves
	// CR4.TSD clear unless PR_SET_TSC asks): a fault is a failure.
	ktap_result(r > 0, "rdpid_is_cpu");
}
#else
static void test_rdtscp(void)
{
	ktap_skip("rdtscp_tsc_aux_is_cpu", "x86-64 only");
}

static void test_rdpid(void)
{
	ktap_skip("rdpid_is_cpu", "x86-64 only");
}
#endif

// ---- policies and priorities ----

static void test_scheduler_policy(void)
{
	struct sched_param param = { .sched_priority = 99 };
	// The system calls directly: musl's wrappers answer ENOSYS unasked.
	long policy = syscall(SYS_sched_getscheduler, 0);
	int ok = policy == SCHED_OTHER;

	ok = ok && syscall(SYS_sched_getparam, 0, &param) == 0 && param.sched_priority == 0;
	if (!ok)
		ktap_diag("policy %ld priority %d", policy, param.sched_priority);
	ok = ok && syscall(SYS_sched_getscheduler, -1) == -1 && errno == EINVAL;
	ktap_result(ok, "sched_getscheduler_other");
}

static void test_priority_range(void)
{
	int ok = sched_get_priority_min(SCHED_OTHER) == 0 && sched_get_priority_max(SCHED_OTHER) == 0 &&
		 sched_get_priority_min(SCHED_FIFO) == 1 && sched_get_priority_max(SCHED_FIFO) == 99 &&
		 sched_get_priority_min(SCHED_RR) == 1 && sched_get_priority_max(SCHED_RR) == 99;

	ok = ok && sched_get_priority_max(12345) == -1 && errno == EINVAL;
	ktap_result(ok, "sched_get_priority_min_max");
}

// ---- sleeping ----

static void test_nanosleep(void)
{
	static const long durations_us[] = { 1000, 10000, 30000 };
	int ok = 1;

	for (unsigned i = 0; i < sizeof(durations_us) / sizeof(durations_us[0]); i++) {
		long us = durations_us[i];
		struct timespec ts = { 0, us * 1000 };
		long long start = now_ns(CLOCK_MONOTONIC);
		int rc = nanosleep(&ts, NULL);
		long long slept = now_ns(CLOCK_MONOTONIC) - start;

		ktap_diag("nanosleep %ld us took %lld us", us, slept / 1000);
		if (rc != 0 || slept < us * 1000LL)
			ok = 0;
	}
	ktap_result(ok, "nanosleep_at_least_requested");
}

static void test_clock_nanosleep_abs(void)
{
	long long deadline = now_ns(CLOCK_MONOTONIC) + 20 * 1000000LL;
	struct timespec ts = { deadline / 1000000000LL, deadline % 1000000000LL };
	int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	long long late = now_ns(CLOCK_MONOTONIC) - deadline;
	struct timespec bad = { 0, 1000000000L };

	ktap_result(rc == 0 && late >= 0 && nanosleep(&bad, NULL) == -1 && errno == EINVAL,
		    "clock_nanosleep_absolute");
}

// ---- busy threads: everyone runs, and with several CPUs, things move ----

#define MAX_BUSY 65

struct busy {
	pthread_t thread;
	atomic_long spins;
	unsigned char seen[CPU_SETSIZE];
	int distinct;
};

static atomic_int busy_stop;

static void *busy_body(void *arg)
{
	struct busy *b = arg;

	while (!atomic_load(&busy_stop)) {
		// Plain work between samples; no yields: only preemption lets
		// N+1 of these share N CPUs.
		for (volatile int i = 0; i < 2000; i++)
			;
		int cpu = sched_getcpu();

		if (cpu >= 0 && cpu < CPU_SETSIZE && !b->seen[cpu]) {
			b->seen[cpu] = 1;
			b->distinct++;
		}
		atomic_fetch_add(&b->spins, 1);
	}
	return NULL;
}

static void test_busy_threads(void)
{
	int n = nr_cpus + 1 > MAX_BUSY ? MAX_BUSY : nr_cpus + 1;
	struct busy *b = calloc((size_t)n, sizeof(*b));
	int all_ran = 0, moved = 0;

	atomic_store(&busy_stop, 0);
	for (int i = 0; i < n; i++)
		pthread_create(&b[i].thread, NULL, busy_body, &b[i]);
	// Let them compete for a while, then wait (bounded) until each has run.
	sleep_ms(500);
	for (int ms = 0; ms < 30000 && !all_ran; ms += 10) {
		all_ran = 1;
		for (int i = 0; i < n; i++)
			if (atomic_load(&b[i].spins) == 0)
				all_ran = 0;
		if (!all_ran)
			sleep_ms(10);
	}
	atomic_store(&busy_stop, 1);
	for (int i = 0; i < n; i++) {
		pthread_join(b[i].thread, NULL);
		if (b[i].distinct > 1)
			moved++;
		ktap_diag("busy thread %d: %ld samples on %d CPUs", i, atomic_load(&b[i].spins), b[i].distinct);
	}
	ktap_result(all_ran, "%d_busy_threads_all_run", n);
	if (nr_cpus > 1)
		ktap_diag("%d of %d busy threads ran on more than one CPU", moved, n);
	else
		ktap_diag("one CPU: no migration possible");
	free(b);
}

static void test_getcpu_unpinned(void)
{
	unsigned cpu = 9999, node = 9999;
	int ok = getcpu_syscall(&cpu, &node) == 0 && CPU_ISSET((int)cpu, &initial_mask) && node == 0;

	// Both pointers may be NULL.
	ok = ok && getcpu_syscall(NULL, NULL) == 0;
	ktap_result(ok, "getcpu_in_affinity_mask");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	start_watchdog("sched", WATCHDOG_SECONDS);
	CPU_ZERO(&initial_mask);
	sched_getaffinity(0, sizeof(initial_mask), &initial_mask);
	// unpin_self() must never ask for an empty mask.
	if (CPU_COUNT(&initial_mask) == 0)
		CPU_SET(0, &initial_mask);
	nr_cpus = usable_cpus(cpu_list);
	ktap_plan(NR_CASES);

	test_yield();
	test_getaffinity();
	test_getcpu_unpinned();
	test_pin_each_cpu();
	test_setaffinity_invalid();
	test_setaffinity_other_thread();
	test_rdtscp();
	test_rdpid();
	test_scheduler_policy();
	test_priority_range();
	test_nanosleep();
	test_clock_nanosleep_abs();
	test_busy_threads();
	finish_watchdog();
	return ktap_finish();
}
