// TLB shootdown, seen from user space: a thread on another CPU keeps
// reading a page while this thread changes the mapping.  After munmap,
// mprotect or a MAP_FIXED replacement returns, the reader must see the
// change (a fault, or the new contents) — never the old translation.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "ktap.h"

static volatile uint32_t *page;
static volatile int phase;		// 0 read, 1 stop
static volatile long reads;
static volatile uint32_t last_seen;
static volatile int faulted;
static sigjmp_buf reader_escape;

static void on_segv(int sig)
{
	(void)sig;
	faulted = 1;
	siglongjmp(reader_escape, 1);
}

static int ncpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	return CPU_COUNT(&set);
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *reader(void *arg)
{
	pin((int)(intptr_t)arg);
	if (sigsetjmp(reader_escape, 1))
		return 0;		// faulted: the change was seen
	while (!phase) {
		last_seen = *page;
		reads++;
	}
	return 0;
}

// Starts a reader on 'cpu' and waits until it has read the page a while,
// so its TLB holds the translation.
static pthread_t start_reader(int cpu)
{
	pthread_t t;
	phase = 0;
	reads = 0;
	faulted = 0;
	pthread_create(&t, 0, reader, (void *)(intptr_t)cpu);
	while (reads < 1000)
		sched_yield();
	return t;
}

static volatile uint32_t *new_page(uint32_t value)
{
	uint32_t *p = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	*p = value;
	return p;
}

// Waits (boundedly) for the reader to fault.
static int reader_faults(pthread_t t)
{
	for (int i = 0; i < 200000 && !faulted; i++)
		sched_yield();
	int ok = faulted;
	phase = 1;
	pthread_join(t, 0);
	return ok;
}

int main(void)
{
	int other = ncpus() > 1 ? 1 : 0;
	struct sigaction sa;

	alarm(120);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, 0);
	pin(0);
	ktap_plan(3);
	ktap_diag("reader on CPU %d, writer on CPU 0", other);

	page = new_page(1);
	pthread_t t = start_reader(other);
	munmap((void *)page, 4096);
	ktap_result(reader_faults(t), "munmap_seen_by_other_cpu");

	page = new_page(2);
	t = start_reader(other);
	mprotect((void *)page, 4096, PROT_NONE);
	ktap_result(reader_faults(t), "mprotect_none_seen_by_other_cpu");
	munmap((void *)page, 4096);

	// Replace the page under the reader: it must see the new value.
	page = new_page(3);
	t = start_reader(other);
	uint32_t *fresh = mmap((void *)page, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	*fresh = 4;
	long seen_at = reads;
	while (reads < seen_at + 1000 && !faulted)
		sched_yield();
	phase = 1;
	pthread_join(t, 0);
	ktap_result(!faulted && last_seen == 4, "map_fixed_replacement_seen_by_other_cpu");
	return ktap_finish();
}
