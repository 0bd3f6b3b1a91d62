// oom: a process that touches memory until none is left (itself, or by
// having read() fill it from /dev/zero).  It must be the
// one that dies (SIGKILL, as Linux's OOM killer does), while a bystander
// that keeps allocating and checking its own memory at the same time, the
// test program itself and init live on; afterwards the free memory comes
// back to where it was.
//
// On a large machine the hog would take a long time and press on
// everything else, so the cases are skipped when RAM is above 2 GiB.  To
// run them on a Linux host, confine the program to a memory cgroup
// (cgroup v1: memory.limit_in_bytes = 256M) and set OOM_TEST_FORCE=1.
// There the free-memory check is only as good as the host is quiet, and
// the cgroup's OOM killer now and then takes the bystander too.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "sysutil.h"

enum { PAGE = 4096 };

#define MIB		(1UL << 20)
#define BIG_MACHINE	(2048 * MIB)

// Touching all of memory takes a while under emulation on one CPU: the
// cases get more than the runner's usual 30 s, the children a bit less.
#define CASE_SECONDS	120
#define CHILD_SECONDS	110

static uint64_t total_ram(void)
{
	struct sysinfo si;

	if (sysinfo(&si) < 0)
		return 0;
	return (uint64_t)si.totalram * si.mem_unit;
}

static uint64_t free_ram(void)
{
	struct sysinfo si;

	if (sysinfo(&si) < 0)
		return 0;
	return (uint64_t)si.freeram * si.mem_unit;
}

static int may_run(void)
{
	const char *force = getenv("OOM_TEST_FORCE");

	if (total_ram() <= BIG_MACHINE || (force && *force == '1'))
		return 1;
	skip("more than 2 GiB of RAM (OOM_TEST_FORCE=1 runs it anyway)");
	return 0;
}

// ---- the hog ----

static char *hog_area;
static size_t hog_len;
static int hog_threads;

static void *touch_all(void *arg)
{
	size_t first = (size_t)(uintptr_t)arg;

	// Threads interleave pages so that all of them keep faulting.
	for (size_t off = first * PAGE; off < hog_len; off += (size_t)hog_threads * PAGE)
		hog_area[off] = 1;
	return 0;
}

// Has the kernel fill the memory instead: read() from /dev/zero, so the
// faults happen inside the kernel's copy to user memory.
static int fill_by_read(void)
{
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 5;
	for (size_t off = 0; off < hog_len; off += MIB)
		if (read(fd, hog_area + off, MIB) < 0)
			return 6;
	return 4;
}

// Touches twice the machine's memory (MAP_NORESERVE: the mapping itself
// is allowed, the pages are not there).  Returns only if it survived.
static int run_hog(int threads, bool by_read)
{
	pthread_t t[4];

	alarm(CHILD_SECONDS);
	hog_threads = threads;
	hog_len = 2 * total_ram();
	hog_area = mmap(0, hog_len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (hog_area == MAP_FAILED)
		return 2;
	if (by_read)
		return fill_by_read();
	for (int i = 1; i < threads; i++)
		if (pthread_create(&t[i], 0, touch_all, (void *)(uintptr_t)i) != 0)
			return 3;
	touch_all((void *)0);
	for (int i = 1; i < threads; i++)
		pthread_join(t[i], 0);
	return 4;		// touched it all and lived: nobody ran out
}

// ---- the bystander ----

// Allocates, fills and checks memory of its own until its pipe closes
// (then a few more rounds).  Exit 0 when every check held, 1 if its
// memory changed under it, 2 if it could not map memory at all.
static int run_bystander(int stop_fd)
{
	enum { LEN = 256 * 1024 };
	int after_stop = 0;
	char c;

	alarm(CHILD_SECONDS);
	for (unsigned round = 0; after_stop < 20; round++) {
		unsigned char *p = mmap(0, LEN, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 2;
		memset(p, (int)(round & 0xff), LEN);
		for (int i = 0; i < LEN; i += 61)
			if (p[i] != (round & 0xff))
				return 1;
		munmap(p, LEN);
		if (after_stop || read(stop_fd, &c, 1) == 0)
			after_stop++;
		sleep_ms(2);	// leave the hog some CPU on a one-CPU machine
	}
	return 0;
}

// ---- cases ----

static void hog_and_bystander(int threads, bool by_read)
{
	uint64_t before;
	int stop[2];
	pid_t bystander, hog;

	if (!may_run())
		return;
	alarm(CASE_SECONDS);
	if (!check_ok(pipe(stop), "pipe"))
		return;
	before = free_ram();
	long long t0 = now_ns(CLOCK_MONOTONIC);
	bystander = fork_child();
	if (bystander == 0) {
		close(stop[1]);
		fcntl(stop[0], F_SETFL, O_NONBLOCK);
		_exit(run_bystander(stop[0]));
	}
	close(stop[0]);
	hog = fork_child();
	if (hog == 0)
		_exit(run_hog(threads, by_read));
	check_killed_by(hog, SIGKILL, "the hog");
	printf("# the hog ended after %lld ms\n", (now_ns(CLOCK_MONOTONIC) - t0) / 1000000);
	close(stop[1]);
	check_child_ok(bystander, "the bystander (1: its memory changed, 2: no memory)");
	// Everything the hog held is back, once its exit has finished: within
	// a little for the kernel's own caches (4 MiB, or 1/256 of RAM on a
	// large machine, whose per-CPU page lists hold more).
	uint64_t slack = total_ram() / 256 > 4 * MIB ? total_ram() / 256 : 4 * MIB, after = 0;
	for (int i = 0; i < 50; i++) {
		after = free_ram();
		if (after + slack >= before)
			break;
		sleep_ms(100);
	}
	if (after + slack < before)
		fail("free memory %llu MiB after, %llu MiB before",
		     (unsigned long long)(after / MIB), (unsigned long long)(before / MIB));
}

static void t_hog_killed(void)		{ hog_and_bystander(1, false); }
static void t_threaded_hog_killed(void)	{ hog_and_bystander(4, false); }
static void t_read_hog_killed(void)	{ hog_and_bystander(1, true); }

// After all that, an ordinary allocation of a good part of memory works.
static void t_memory_usable_after(void)
{
	size_t len = total_ram() / 4 < 128 * MIB ? total_ram() / 4 : 128 * MIB;
	char *p;

	len &= ~(size_t)(PAGE - 1);
	if (!may_run())
		return;
	p = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fail("mmap of %zu MiB: errno=%d", len / MIB, errno);
		return;
	}
	for (size_t off = 0; off < len; off += PAGE)
		p[off] = 1;
	check(p[len - PAGE] == 1, "all of it touched");
	munmap(p, len);
}

static const struct test_case cases[] = {
	{ "hog_killed_bystander_lives", t_hog_killed },
	{ "threaded_hog_killed_bystander_lives", t_threaded_hog_killed },
	{ "read_hog_killed_bystander_lives", t_read_hog_killed },
	{ "memory_usable_after", t_memory_usable_after },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
