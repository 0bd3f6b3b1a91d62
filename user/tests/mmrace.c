// mmrace: address-space changes racing with other CPUs, where a kernel
// that frees or flushes in the wrong order breaks isolation or hangs.
//
// frame_private_*: a writer thread on one CPU stores a pattern into a
// page in a loop while a dropper thread on another CPU takes that page
// away again and again (madvise(MADV_DONTNEED), munmap, a MAP_FIXED
// replacement, an mremap shrink).  Meanwhile other processes map fresh
// memory and check that it reads zero.  If the kernel freed the page's
// frame before every CPU had flushed its translation, the writer keeps
// storing into a frame that now belongs to someone else, and a checker
// finds the pattern.
//
// uaccess_fault_vs_*: one thread reads a file into (and writes it from)
// a buffer with read()/write(), so the kernel's copy takes page faults on
// the buffer, while another thread replaces the buffer with MAP_FIXED,
// breaks copy-on-write in it after fork, or moves it with mremap.  A
// kernel that resolves those faults with interrupts off, spinning on a
// lock whose holder waits for that CPU to acknowledge a TLB shootdown,
// stops the whole machine (the runner's boot timeout reports it).
//
// Every case needs two CPUs and is skipped on one.  Linux passes them all.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "sysutil.h"

enum { PAGE = 4096 };

// Seconds each race runs.  Long enough for many thousands of rounds
// under emulation, short enough for the whole suite.
#define RACE_SECONDS 3

#define PATTERN 0x5a5a0000u

static int cpus[CPU_SETSIZE];
static int ncpus;

static long long deadline_after(int seconds)
{
	return now_ns(CLOCK_MONOTONIC) + seconds * 1000000000LL;
}

static int past(long long deadline)
{
	return now_ns(CLOCK_MONOTONIC) >= deadline;
}

static int need_two_cpus(void)
{
	if (ncpus >= 2)
		return 1;
	skip("needs 2 CPUs");
	return 0;
}

// ---- freed frames stay private ------------------------------------------------

enum drop_kind { DROP_MADVISE, DROP_MUNMAP, DROP_MAP_FIXED, DROP_MREMAP };

static char *region;			// two pages; the writer uses the second
static volatile uint32_t *target;
static volatile int stop_writer;
static enum drop_kind drop_kind;

// The writer faults while the page is briefly unmapped (munmap, mremap):
// returning retries the store once the dropper has put a page back.
static void retry_on_segv(int sig)
{
	(void)sig;
}

static void *writer(void *arg)
{
	uint32_t n = 0;

	pin_self((int)(intptr_t)arg);
	while (!stop_writer) {
		for (int i = 0; i < PAGE / 4; i++)
			target[i] = PATTERN | (n & 0xffff);
		n++;
	}
	return 0;
}

static int map_fixed(void *at, size_t len)
{
	return mmap(at, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == at ? 0 : -1;
}

// One round of taking the writer's page away (and giving it a new one).
static int drop_once(void)
{
	char *page = region + PAGE;

	switch (drop_kind) {
	case DROP_MADVISE:
		return madvise(page, PAGE, MADV_DONTNEED);
	case DROP_MUNMAP:
		if (munmap(page, PAGE) < 0)
			return -1;
		return map_fixed(page, PAGE);
	case DROP_MAP_FIXED:
		return map_fixed(page, PAGE);
	case DROP_MREMAP:
		// Shrinking in place unmaps the second page.
		if (mremap(region, 2 * PAGE, PAGE, 0) != region)
			return -1;
		return map_fixed(page, PAGE);
	}
	return -1;
}

// The process that owns the page: a writer thread and the dropper (this
// thread), each on its own CPU.  Exit 0, or 10 + step that failed.
static int run_victim(int seconds)
{
	pthread_t t;
	long long end = deadline_after(seconds);
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = retry_on_segv;
	sigaction(SIGSEGV, &sa, 0);
	region = mmap(0, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return 10;
	target = (volatile uint32_t *)(region + PAGE);
	target[0] = 1;
	pin_self(cpus[0]);
	if (pthread_create(&t, 0, writer, (void *)(intptr_t)cpus[1]) != 0)
		return 11;
	int rc = 0;
	while (!past(end) && rc == 0)
		if (drop_once() < 0)
			rc = 12;
	stop_writer = 1;
	pthread_join(t, 0);
	return rc;
}

// Maps fresh memory over and over until the deadline; every byte must
// read zero, also a while after it was first touched.  Exit 0, 1 if the
// writer's pattern (or anything else) showed up, 2 if mmap failed.
static int run_checker(int seconds)
{
	enum { PAGES = 32 };
	long long end = deadline_after(seconds);

	while (!past(end)) {
		volatile uint32_t *p = mmap(0, PAGES * PAGE, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 2;
		for (int pass = 0; pass < 3; pass++) {
			for (int i = 0; i < PAGES * PAGE / 4; i++) {
				if (p[i] != 0) {
					printf("# checker %d: word %#x of a fresh page is %#x\n",
					       (int)getpid(), i * 4, (unsigned)p[i]);
					fflush(stdout);
					return 1;
				}
			}
		}
		munmap((void *)p, PAGES * PAGE);
	}
	return 0;
}

static void frame_race(enum drop_kind kind)
{
	pid_t victim, checkers[8];
	int nchk = ncpus < 8 ? ncpus : 8;

	if (!need_two_cpus())
		return;
	drop_kind = kind;
	stop_writer = 0;
	victim = fork_child();
	if (victim == 0)
		_exit(run_victim(RACE_SECONDS));
	for (int i = 0; i < nchk; i++) {
		checkers[i] = fork_child();
		if (checkers[i] == 0)
			_exit(run_checker(RACE_SECONDS));
	}
	check_child_ok(victim, "writer and dropper");
	for (int i = 0; i < nchk; i++)
		check_child_ok(checkers[i], "fresh pages read zero");
}

static void t_frame_private_madvise(void)	{ frame_race(DROP_MADVISE); }
static void t_frame_private_munmap(void)	{ frame_race(DROP_MUNMAP); }
static void t_frame_private_map_fixed(void)	{ frame_race(DROP_MAP_FIXED); }
static void t_frame_private_mremap(void)	{ frame_race(DROP_MREMAP); }

// ---- faults inside the kernel's copies -----------------------------------------

enum { BUF_PAGES = 64 };

enum change_kind { CHANGE_MAP_FIXED, CHANGE_COW, CHANGE_MREMAP };

static char *buf;
static volatile int stop_copier;
static int data_fd;

// Copies between the file and the buffer until told to stop.  Errors
// (EFAULT while the buffer is briefly unmapped) are expected.
static void *copier(void *arg)
{
	pin_self((int)(intptr_t)arg);
	for (int n = 0; !stop_copier; n++) {
		if (n & 1) {
			if (pwrite(data_fd, buf, BUF_PAGES * PAGE, 0) < 0 && errno != EFAULT)
				return (void *)1;
		} else {
			if (pread(data_fd, buf, BUF_PAGES * PAGE, 0) < 0 && errno != EFAULT)
				return (void *)1;
		}
	}
	return 0;
}

// One round of changing the buffer's mapping under the copier.
static int change_once(enum change_kind kind)
{
	size_t len = BUF_PAGES * PAGE;

	switch (kind) {
	case CHANGE_MAP_FIXED:
		return map_fixed(buf, len);
	case CHANGE_COW: {
		// After fork every page is copy-on-write; writing breaks it.
		pid_t pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0)
			_exit(0);
		for (size_t off = 0; off < len; off += PAGE)
			((volatile char *)buf)[off] = 1;
		return waitpid(pid, 0, 0) == pid ? 0 : -1;
	}
	case CHANGE_MREMAP: {
		char *moved = mremap(buf, len, 2 * len, MREMAP_MAYMOVE);
		if (moved == MAP_FAILED)
			return -1;
		if (moved != buf)
			munmap(moved, 2 * len);
		else
			munmap(buf + len, len);
		return map_fixed(buf, len);
	}
	}
	return -1;
}

// Exit 0, or 10 + step that failed.
static int run_uaccess_race(enum change_kind kind, const char *path, int seconds)
{
	int nthreads = ncpus - 1 < 3 ? ncpus - 1 : 3;
	pthread_t t[3];
	long long end = deadline_after(seconds);
	int rc = 0;

	data_fd = open(path, O_RDWR);
	if (data_fd < 0)
		return 10;
	buf = mmap(0, BUF_PAGES * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 11;
	pin_self(cpus[0]);
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], 0, copier, (void *)(intptr_t)cpus[i + 1]) != 0)
			return 12;
	while (!past(end) && rc == 0)
		if (change_once(kind) < 0)
			rc = 13;
	stop_copier = 1;
	for (int i = 0; i < nthreads; i++) {
		void *res;
		pthread_join(t[i], &res);
		if (res && rc == 0)
			rc = 14;
	}
	return rc;
}

static void uaccess_race(enum change_kind kind)
{
	char *data;
	int fd;
	pid_t pid;

	if (!need_two_cpus())
		return;
	fd = open(scratch("data"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (!check_ok(fd, "create data file"))
		return;
	data = calloc(BUF_PAGES, PAGE);
	if (data && write(fd, data, BUF_PAGES * PAGE) != BUF_PAGES * PAGE)
		fail("fill data file: errno=%d", errno);
	free(data);
	close(fd);
	pid = fork_child();
	if (pid == 0)
		_exit(run_uaccess_race(kind, scratch("data"), RACE_SECONDS));
	check_child_ok(pid, "copier and mapper");
	unlink(scratch("data"));
}

static void t_uaccess_fault_vs_map_fixed(void)	{ uaccess_race(CHANGE_MAP_FIXED); }
static void t_uaccess_fault_vs_cow(void)	{ uaccess_race(CHANGE_COW); }
static void t_uaccess_fault_vs_mremap(void)	{ uaccess_race(CHANGE_MREMAP); }

static const struct test_case cases[] = {
	{ "frame_private_madvise", t_frame_private_madvise },
	{ "frame_private_munmap", t_frame_private_munmap },
	{ "frame_private_map_fixed", t_frame_private_map_fixed },
	{ "frame_private_mremap", t_frame_private_mremap },
	{ "uaccess_fault_vs_map_fixed", t_uaccess_fault_vs_map_fixed },
	{ "uaccess_fault_vs_cow", t_uaccess_fault_vs_cow },
	{ "uaccess_fault_vs_mremap", t_uaccess_fault_vs_mremap },
};

int main(void)
{
	ncpus = usable_cpus(cpus);
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/mmrace-%d", (int)getpid());
	mkdir(scratch_dir, 0700);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
