// vmlimits: the edges of the address space.  Lengths that wrap or run
// past user space, ranges in the kernel half and in the non-canonical
// hole, the last page below the hole (never mappable: Linux's
// TASK_SIZE_MAX is 0x7ffffffff000), and what each call answers, as a
// table of raw system calls with Linux's errno for each row.
// Linux is the reference: every case passes there.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"

enum { PAGE = 4096 };

#define TASK_SIZE_MAX	0x7ffffffff000UL	// end of what user space may map
#define NONCANONICAL	0x800000000000UL	// first address past the user half
#define KERNEL_ADDR	0xffff800000000000UL
#define HUGE_LEN	(1UL << 47)

#ifndef MADV_POPULATE_READ		// newer than musl's headers
#define MADV_POPULATE_READ	22
#define MADV_POPULATE_WRITE	23
#endif

// One raw system call and the answer Linux gives.
struct row {
	const char *what;
	long nr;
	unsigned long a[6];
	int err;		// expected errno, or 0 for success
};

// Addresses filled in at run time: a mapped page and an unmapped one.
#define MAPPED		1UL
#define UNMAPPED	2UL

static unsigned long mapped_page, unmapped_page;

static unsigned long resolve(unsigned long v)
{
	// Small markers plus an offset stand for the run-time addresses.
	if (v >= MAPPED << 56 && v < (MAPPED << 56) + (1UL << 40))
		return mapped_page + (v - (MAPPED << 56));
	if (v >= UNMAPPED << 56 && v < (UNMAPPED << 56) + (1UL << 40))
		return unmapped_page + (v - (UNMAPPED << 56));
	return v;
}

#define M(off)	((MAPPED << 56) + (off))
#define U(off)	((UNMAPPED << 56) + (off))

static const struct row rows[] = {
	// munmap: EINVAL for anything not a page-aligned range inside user space.
	{ "munmap len 0", SYS_munmap, { M(0), 0 }, EINVAL },
	{ "munmap unaligned", SYS_munmap, { M(1), PAGE }, EINVAL },
	{ "munmap len wraps", SYS_munmap, { M(0), -(unsigned long)PAGE }, EINVAL },
	{ "munmap len ~0", SYS_munmap, { M(0), ~0UL }, EINVAL },
	{ "munmap len past user space", SYS_munmap, { M(0), HUGE_LEN }, EINVAL },
	{ "munmap last page", SYS_munmap, { TASK_SIZE_MAX, PAGE }, EINVAL },
	{ "munmap non-canonical", SYS_munmap, { NONCANONICAL, PAGE }, EINVAL },
	{ "munmap kernel half", SYS_munmap, { KERNEL_ADDR, PAGE }, EINVAL },
	{ "munmap unmapped range", SYS_munmap, { U(0), PAGE }, 0 },
	// mprotect: EINVAL for a bad start, ENOMEM for what is not mapped.
	{ "mprotect len 0", SYS_mprotect, { M(0), 0, PROT_READ }, 0 },
	{ "mprotect unaligned", SYS_mprotect, { M(1), PAGE, PROT_READ }, EINVAL },
	{ "mprotect len wraps", SYS_mprotect, { M(0), -(unsigned long)PAGE, PROT_READ }, ENOMEM },
	{ "mprotect len ~0", SYS_mprotect, { M(0), ~0UL, PROT_READ }, ENOMEM },
	{ "mprotect len past user space", SYS_mprotect, { M(0), HUGE_LEN, PROT_READ }, ENOMEM },
	{ "mprotect last page", SYS_mprotect, { TASK_SIZE_MAX, PAGE, PROT_READ }, ENOMEM },
	{ "mprotect non-canonical", SYS_mprotect, { NONCANONICAL, PAGE, PROT_READ }, ENOMEM },
	{ "mprotect kernel half", SYS_mprotect, { KERNEL_ADDR, PAGE, PROT_READ }, ENOMEM },
	{ "mprotect unmapped", SYS_mprotect, { U(0), PAGE, PROT_READ }, ENOMEM },
	{ "mprotect bad prot", SYS_mprotect, { M(0), PAGE, 0x10 }, EINVAL },
	// madvise: EINVAL for a bad range, ENOMEM where nothing is mapped.
	{ "madvise len 0", SYS_madvise, { M(0), 0, MADV_DONTNEED }, 0 },
	{ "madvise unaligned", SYS_madvise, { M(1), PAGE, MADV_DONTNEED }, EINVAL },
	{ "madvise len wraps", SYS_madvise, { M(0), -(unsigned long)PAGE, MADV_DONTNEED }, EINVAL },
	{ "madvise len ~0", SYS_madvise, { M(0), ~0UL, MADV_DONTNEED }, EINVAL },
	{ "madvise len past user space", SYS_madvise, { M(0), HUGE_LEN, MADV_NORMAL }, ENOMEM },
	{ "madvise len wraps to the kernel", SYS_madvise, { KERNEL_ADDR, HUGE_LEN, MADV_DONTNEED }, EINVAL },
	{ "madvise last page", SYS_madvise, { TASK_SIZE_MAX, PAGE, MADV_DONTNEED }, ENOMEM },
	{ "madvise non-canonical", SYS_madvise, { NONCANONICAL, PAGE, MADV_DONTNEED }, ENOMEM },
	{ "madvise kernel half", SYS_madvise, { KERNEL_ADDR, PAGE, MADV_DONTNEED }, ENOMEM },
	{ "madvise unmapped", SYS_madvise, { U(0), PAGE, MADV_DONTNEED }, ENOMEM },
	{ "madvise hint on unmapped", SYS_madvise, { U(0), PAGE, MADV_NORMAL }, ENOMEM },
	{ "madvise bad advice", SYS_madvise, { M(0), PAGE, 12345 }, EINVAL },
	// mremap.
	{ "mremap new len 0", SYS_mremap, { M(0), PAGE, 0, MREMAP_MAYMOVE }, EINVAL },
	{ "mremap new len ~0", SYS_mremap, { M(0), PAGE, ~0UL, MREMAP_MAYMOVE }, EINVAL },
	{ "mremap new len past user space", SYS_mremap, { M(0), PAGE, HUGE_LEN, MREMAP_MAYMOVE }, EINVAL },
	{ "mremap grow past user space in place", SYS_mremap, { M(0), PAGE, HUGE_LEN, 0 }, EINVAL },
	{ "mremap new len too big to fit", SYS_mremap, { M(0), PAGE, 1UL << 46, MREMAP_MAYMOVE }, ENOMEM },
	{ "mremap new len = user space", SYS_mremap, { M(0), PAGE, TASK_SIZE_MAX, MREMAP_MAYMOVE }, ENOMEM },
	{ "mremap unaligned", SYS_mremap, { M(1), PAGE, 2 * PAGE, MREMAP_MAYMOVE }, EINVAL },
	{ "mremap bad flags", SYS_mremap, { M(0), PAGE, 2 * PAGE, 0x80 }, EINVAL },
	{ "mremap FIXED without MAYMOVE", SYS_mremap, { M(0), PAGE, 2 * PAGE, MREMAP_FIXED, U(0) }, EINVAL },
	{ "mremap unmapped", SYS_mremap, { U(0), PAGE, 2 * PAGE, MREMAP_MAYMOVE }, EFAULT },
	{ "mremap kernel half", SYS_mremap, { KERNEL_ADDR, PAGE, 2 * PAGE, MREMAP_MAYMOVE }, EFAULT },
	{ "mremap old len past mapping", SYS_mremap, { M(0), 4 * PAGE, 8 * PAGE, MREMAP_MAYMOVE }, EFAULT },
	{ "mremap old len 0 of private", SYS_mremap, { M(0), 0, PAGE, MREMAP_MAYMOVE }, EINVAL },
	{ "mremap to the last page", SYS_mremap,
	  { M(0), PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, TASK_SIZE_MAX }, EINVAL },
	{ "mremap to the kernel half", SYS_mremap,
	  { M(0), PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, KERNEL_ADDR }, EINVAL },
	{ "mremap to unaligned", SYS_mremap,
	  { M(0), PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, U(1) }, EINVAL },
	{ "mremap onto itself", SYS_mremap,
	  { M(0), PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, M(0) }, EINVAL },
	// mmap at the top of user space.
	{ "mmap fixed last page", SYS_mmap,
	  { TASK_SIZE_MAX, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1UL, 0 }, ENOMEM },
	{ "mmap fixed across the last page", SYS_mmap,
	  { TASK_SIZE_MAX - PAGE, 2 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1UL, 0 },
	  ENOMEM },
	{ "mmap fixed non-canonical", SYS_mmap,
	  { NONCANONICAL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1UL, 0 }, ENOMEM },
	{ "mmap fixed kernel half", SYS_mmap,
	  { KERNEL_ADDR, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1UL, 0 }, ENOMEM },
	{ "mmap len ~0", SYS_mmap,
	  { 0, ~0UL, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1UL, 0 }, ENOMEM },
	{ "mmap len of all user space", SYS_mmap,
	  { 0, TASK_SIZE_MAX, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1UL, 0 }, ENOMEM },
};

static void setup_pages(void)
{
	char *p = mmap(0, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fail("mmap: errno=%d", errno);
		return;
	}
	// One mapped page with unmapped pages on both sides.
	munmap(p, PAGE);
	munmap(p + 2 * PAGE, PAGE);
	mapped_page = (unsigned long)p + PAGE;
	unmapped_page = (unsigned long)p + 2 * PAGE;
}

static void t_range_checks(void)
{
	int bad = 0;

	setup_pages();
	if (!mapped_page)
		return;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		long rc;

		errno = 0;
		rc = syscall(r->nr, resolve(r->a[0]), resolve(r->a[1]), resolve(r->a[2]),
			     resolve(r->a[3]), resolve(r->a[4]), resolve(r->a[5]));
		int got = rc == -1 ? errno : 0;
		if (got != r->err) {
			printf("# %s: rc=%#lx errno=%d, want %s%d\n", r->what, (unsigned long)rc,
			       got, r->err ? "errno=" : "", r->err);
			bad++;
		}
		// A call that wrongly succeeded may have changed the page.
		if (rc != -1 && r->nr == SYS_mremap && (unsigned long)rc != mapped_page)
			munmap((void *)rc, PAGE);
		mmap((void *)mapped_page, PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		munmap((void *)unmapped_page, PAGE);
	}
	if (bad)
		fail("%d of %zu calls answered differently from Linux", bad,
		     sizeof(rows) / sizeof(rows[0]));
	munmap((void *)mapped_page, PAGE);
}

// madvise over a range with a hole: ENOMEM, but the mapped pages are
// dropped all the same.
static void t_madvise_hole(void)
{
	char *p = mmap(0, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fail("mmap: errno=%d", errno);
		return;
	}
	p[0] = 1;
	p[2 * PAGE] = 1;
	munmap(p + PAGE, PAGE);
	check_errno(madvise(p, 3 * PAGE, MADV_DONTNEED), ENOMEM, "madvise over a hole");
	check(p[0] == 0 && p[2 * PAGE] == 0, "mapped pages around the hole were dropped");
	munmap(p, 3 * PAGE);
}

// A hint at the last page is not taken: the mapping lands below it.
static void t_hint_last_page(void)
{
	char *p = mmap((void *)TASK_SIZE_MAX, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (!check(p != MAP_FAILED, "mmap with a hint at the last page"))
		return;
	check((unsigned long)p + PAGE <= TASK_SIZE_MAX, "placed below TASK_SIZE_MAX");
	munmap(p, PAGE);
	p = mmap((void *)(TASK_SIZE_MAX - PAGE), 2 * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!check(p != MAP_FAILED, "mmap with a hint across the last page"))
		return;
	check((unsigned long)p + 2 * PAGE <= TASK_SIZE_MAX, "placed below TASK_SIZE_MAX");
	munmap(p, 2 * PAGE);
}

// A user buffer that runs into the last page is refused whole, as Linux's
// access_ok does: nothing is written.
static void t_buffer_into_last_page(void)
{
	int fds[2];
	char c;

	if (!check_ok(pipe2(fds, O_NONBLOCK), "pipe2"))
		return;
	check_errno(write(fds[1], (void *)(TASK_SIZE_MAX - 8), 16), EFAULT,
		    "write from a buffer that runs into the last page");
	check_errno(read(fds[0], &c, 1), EAGAIN, "nothing was written");
	close(fds[0]);
	close(fds[1]);
}

// mremap growing a mapping that cannot move: in place when the room after
// it is free, ENOMEM when it is not.
static void t_mremap_grow_in_place(void)
{
	char *p = mmap(0, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *q;

	if (p == MAP_FAILED) {
		fail("mmap: errno=%d", errno);
		return;
	}
	p[0] = 'a';
	munmap(p + PAGE, 3 * PAGE);
	q = mremap(p, PAGE, 3 * PAGE, 0);
	if (check(q == p, "grows in place into free room")) {
		check(p[0] == 'a', "contents kept");
		check(p[2 * PAGE] == 0, "new pages read zero");
	}
	check(mremap(p, 3 * PAGE, 4 * PAGE, 0) == p, "grows again");
	mmap(p + 4 * PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	errno = 0;
	check(mremap(p, 4 * PAGE, 5 * PAGE, 0) == MAP_FAILED && errno == ENOMEM,
	      "no room and may not move: ENOMEM");
	munmap(p, 5 * PAGE);
}

// MREMAP_FIXED moves the pages to the given address, replacing what was
// there, and leaves the old range unmapped.
static void t_mremap_fixed(void)
{
	char *p = mmap(0, 6 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *q;

	if (p == MAP_FAILED) {
		fail("mmap: errno=%d", errno);
		return;
	}
	strcpy(p, "moved");
	p[4 * PAGE] = 'x';
	q = mremap(p, 2 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, p + 4 * PAGE);
	if (check(q == p + 4 * PAGE, "lands at the new address")) {
		check(strcmp(q, "moved") == 0, "contents moved");
		check(q[PAGE] == 0, "the second page came along");
	}
	check_errno(mprotect(p, 2 * PAGE, PROT_READ), ENOMEM, "old range unmapped");
	munmap(p, 6 * PAGE);
}

// MADV_DONTFORK: the child does not get the range; MADV_WIPEONFORK: it
// gets it empty; the parent keeps its bytes either way.
static void t_madvise_fork_advice(void)
{
	char *p = mmap(0, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pid_t pid;

	if (p == MAP_FAILED) {
		fail("mmap: errno=%d", errno);
		return;
	}
	p[0] = 'a';
	p[PAGE] = 'b';
	p[2 * PAGE] = 'c';
	check_ok(madvise(p, PAGE, MADV_DONTFORK), "MADV_DONTFORK");
	check_ok(madvise(p + PAGE, PAGE, MADV_WIPEONFORK), "MADV_WIPEONFORK");
	pid = fork_child();
	if (pid == 0) {
		// The first page must be gone: mprotect of it says ENOMEM.
		if (mprotect(p, PAGE, PROT_READ) == 0 || errno != ENOMEM)
			_exit(1);
		if (p[PAGE] != 0)
			_exit(2);
		if (p[2 * PAGE] != 'c')
			_exit(3);
		_exit(0);
	}
	check_child_ok(pid, "child: no first page, empty second, intact third");
	check(p[0] == 'a' && p[PAGE] == 'b' && p[2 * PAGE] == 'c', "parent keeps its bytes");
	check_ok(madvise(p, PAGE, MADV_DOFORK), "MADV_DOFORK");
	check_ok(madvise(p + PAGE, PAGE, MADV_KEEPONFORK), "MADV_KEEPONFORK");
	pid = fork_child();
	if (pid == 0)
		_exit(p[0] == 'a' && p[PAGE] == 'b' ? 0 : 1);
	check_child_ok(pid, "child gets both pages back after DOFORK and KEEPONFORK");
	char *s = mmap(0, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s != MAP_FAILED) {
		check_errno(madvise(s, PAGE, MADV_WIPEONFORK), EINVAL, "WIPEONFORK on shared memory");
		check_errno(madvise(s, PAGE, MADV_FREE), EINVAL, "MADV_FREE on shared memory");
		munmap(s, PAGE);
	}
	check_errno(madvise(p, PAGE, MADV_REMOVE), EINVAL, "MADV_REMOVE on private memory");
	munmap(p, 3 * PAGE);
}

// MADV_POPULATE_READ/WRITE fault pages in; they need the access allowed.
static void t_madvise_populate(void)
{
	char *p = mmap(0, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *ro = mmap(0, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || ro == MAP_FAILED) {
		fail("mmap: errno=%d", errno);
		return;
	}
	check_ok(madvise(p, 4 * PAGE, MADV_POPULATE_WRITE), "MADV_POPULATE_WRITE");
	check(p[3 * PAGE] == 0, "populated pages read zero");
	check_ok(madvise(ro, PAGE, MADV_POPULATE_READ), "MADV_POPULATE_READ of read-only");
	check_errno(madvise(ro, PAGE, MADV_POPULATE_WRITE), EINVAL,
		    "MADV_POPULATE_WRITE of read-only");
	munmap(p, 4 * PAGE);
	munmap(ro, PAGE);
}

// ---- the stack guard gap -----------------------------------------------------

#define GUARD_GAP	(256 * PAGE)	// Linux's stack_guard_gap
#define MIB		(1UL << 20)

static volatile uintptr_t segv_addr;
static sigjmp_buf segv_jump;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	segv_addr = (uintptr_t)si->si_addr;
	siglongjmp(segv_jump, 1);
}

// Catch SIGSEGV on an alternate stack (the normal one is what faulted).
static int catch_segv(void)
{
	static char alt[64 * 1024];
	stack_t ss = { .ss_sp = alt, .ss_size = sizeof(alt) };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	return sigaltstack(&ss, 0) == 0 && sigaction(SIGSEGV, &sa, 0) == 0;
}

// Grows the stack a page at a time (each frame touches both its ends)
// until the frame is below 'floor'.
static int __attribute__((noinline)) dig(uintptr_t floor)
{
	volatile char frame[PAGE];

	frame[PAGE - 1] = 1;
	frame[0] = 1;
	if ((uintptr_t)frame <= floor)
		return frame[0];
	return dig(floor) + frame[PAGE - 1];
}

// In a child: a mapping placed where the stack would grow stops it with
// SIGSEGV a guard gap above the mapping, which is never written.  Exit 0,
// or the number of the check that failed.
static int guard_gap_child(void)
{
	char here;
	uintptr_t sp = (uintptr_t)&here;
	uintptr_t x = (sp - 2 * MIB) & ~(uintptr_t)(PAGE - 1);
	unsigned char *m;

	if (!catch_segv())
		return 2;
	m = mmap((void *)x, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (m == MAP_FAILED)
		return 3;
	memset(m, 0x5a, PAGE);
	if (sigsetjmp(segv_jump, 1) == 0) {
		dig(x - 4 * PAGE);
		return 4;		// the stack grew through the mapping
	}
	for (int i = 0; i < PAGE; i++)
		if (m[i] != 0x5a)
			return 5;	// the stack overwrote the mapping
	if (segv_addr < x + PAGE)
		return 6;		// the fault was in or below the mapping
	if (segv_addr < x + GUARD_GAP)
		return 7;		// the stack grew into the guard gap
	return 0;
}

static void t_stack_guard_gap(void)
{
	pid_t pid = fork_child();

	if (pid == 0)
		_exit(guard_gap_child());
	check_child_ok(pid, "stack stops a guard gap above a mapping "
			    "(4: grew through, 5: overwrote it, 6: fault below, 7: into the gap)");
}

// In a child: mmap never puts a mapping of its choosing within the guard
// gap below the stack, even when asked to with a hint.
static int hint_gap_child(void)
{
	char here;
	uintptr_t sp = (uintptr_t)&here;
	uintptr_t low = (sp - 64 * 1024) & ~(uintptr_t)(PAGE - 1);

	dig(low);		// the stack now reaches at least down to low
	for (uintptr_t below = PAGE; below < GUARD_GAP; below *= 2) {
		char *h = mmap((void *)(low - below), PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (h == MAP_FAILED)
			return 2;
		if ((uintptr_t)h + PAGE > low - GUARD_GAP && (uintptr_t)h < sp)
			return 3;
		munmap(h, PAGE);
	}
	return 0;
}

static void t_hint_in_guard_gap(void)
{
	pid_t pid = fork_child();

	if (pid == 0)
		_exit(hint_gap_child());
	check_child_ok(pid, "no mapping placed in the guard gap (3: one was)");
}

// In a child: the stack stops growing at RLIMIT_STACK (SIGSEGV).
static int rlimit_child(void)
{
	struct rlimit rl = { 256 * 1024, 256 * 1024 };
	char here;
	uintptr_t sp = (uintptr_t)&here;

	if (!catch_segv())
		return 2;
	if (setrlimit(RLIMIT_STACK, &rl) < 0)
		return 3;
	if (sigsetjmp(segv_jump, 1) == 0) {
		dig(sp - MIB);
		return 4;		// grew past the limit
	}
	if (segv_addr > sp || segv_addr < sp - MIB)
		return 5;
	return 0;
}

static void t_stack_rlimit(void)
{
	pid_t pid = fork_child();

	if (pid == 0)
		_exit(rlimit_child());
	check_child_ok(pid, "stack growth stops at RLIMIT_STACK (4: it did not)");
}

// ---- many mappings ---------------------------------------------------------

#define MAX_MAP_COUNT	65530	// Linux's default vm.max_map_count

static long max_map_count(void)
{
	FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
	long v = MAX_MAP_COUNT;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = MAX_MAP_COUNT;
		fclose(f);
	}
	return v;
}

// Tens of thousands of one-page mappings: every call must complete (a
// kernel that walks a list of mappings on each call takes minutes).
// Adjacent ones with the same protection merge, as on Linux, so 70000 of
// them fit under the map count limit; 30000 with alternating protection
// stay separate.
static void t_many_mappings(void)
{
	enum { MERGING = 70000, SEPARATE = 30000 };
	static char *p[MERGING];
	int failed = 0, nonzero = 0;

	for (int i = 0; i < MERGING; i++) {
		p[i] = mmap(0, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p[i] == MAP_FAILED) {
			failed++;
			p[i] = 0;
		} else if (i % 997 == 0) {
			nonzero += p[i][0] != 0;
			p[i][0] = 1;
		}
	}
	for (int i = 0; i < MERGING; i++)
		if (p[i] && munmap(p[i], PAGE) < 0)
			failed++;
	check(failed == 0, "70000 one-page mappings and their munmaps succeed");
	for (int i = 0; i < SEPARATE; i++) {
		int prot = i % 2 ? PROT_READ : PROT_READ | PROT_WRITE;
		p[i] = mmap(0, PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p[i] == MAP_FAILED) {
			failed++;
			p[i] = 0;
		} else if (i % 101 == 0) {
			nonzero += p[i][0] != 0;
		}
	}
	for (int i = 0; i < SEPARATE; i++)
		if (p[i] && munmap(p[i], PAGE) < 0)
			failed++;
	check(failed == 0, "30000 separate mappings and their munmaps succeed");
	check(nonzero == 0, "new pages read zero");
}

// Splitting a mapping into more pieces than max_map_count allows fails
// with ENOMEM: mprotect and a munmap in the middle of a mapping (which
// would split it), and a new mapping that merges with nothing.
static void t_map_count_limit(void)
{
	long limit = max_map_count();
	size_t pages = 2 * (size_t)limit + 64;
	char *big = mmap(0, pages * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	long splits = 0;
	int err = 0;

	if (big == MAP_FAILED) {
		fail("mmap: errno=%d", errno);
		return;
	}
	// Every other page read-only: each call adds two mappings.
	for (size_t i = 1; i + 1 < pages; i += 2) {
		if (mprotect(big + i * PAGE, PAGE, PROT_READ) < 0) {
			err = errno;
			break;
		}
		splits++;
	}
	check(err == ENOMEM, "mprotect fails with ENOMEM at the limit");
	check(splits > limit / 2 - 100 && splits <= limit / 2,
	      "the limit is max_map_count mappings");
	// The rest of the region is still one mapping: cutting a hole in it
	// would make two.
	char *tail = big + (pages - 8) * PAGE;
	check_errno(munmap(tail + 2 * PAGE, PAGE), ENOMEM, "munmap that splits at the limit");
	check_ok(mprotect(tail + 2 * PAGE, PAGE, PROT_READ | PROT_WRITE),
		 "mprotect to the protection it has needs no split");
	// A mapping on its own is one too many; trimming an end is fine.
	void *q = mmap(0, PAGE, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	void *r = mmap(0, PAGE, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	check(q == MAP_FAILED || r == MAP_FAILED, "a new mapping past the limit fails");
	check(q != MAP_FAILED || errno == ENOMEM, "with ENOMEM");
	if (q != MAP_FAILED)
		munmap(q, PAGE);
	if (r != MAP_FAILED)
		munmap(r, PAGE);
	check_ok(munmap(tail + 7 * PAGE, PAGE), "munmap of the last page");
	check_ok(munmap(big, pages * PAGE), "munmap of the whole region");
	q = mmap(0, PAGE, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	check(q != MAP_FAILED, "mappings work again");
	if (q != MAP_FAILED)
		munmap(q, PAGE);
}

static const struct test_case cases[] = {
	{ "range_checks", t_range_checks },
	{ "madvise_over_hole", t_madvise_hole },
	{ "hint_at_last_page", t_hint_last_page },
	{ "buffer_into_last_page", t_buffer_into_last_page },
	{ "mremap_grow_in_place", t_mremap_grow_in_place },
	{ "mremap_fixed", t_mremap_fixed },
	{ "madvise_fork_advice", t_madvise_fork_advice },
	{ "madvise_populate", t_madvise_populate },
	{ "stack_guard_gap", t_stack_guard_gap },
	{ "hint_in_guard_gap", t_hint_in_guard_gap },
	{ "stack_rlimit", t_stack_rlimit },
	{ "tens_of_thousands_of_mappings", t_many_mappings },
	{ "max_map_count", t_map_count_limit },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
