// mlocked: what a memory lock changes, as Linux 6.1 shows it.  mlock and
// mlockall(MCL_CURRENT) fault the pages in (mincore), MLOCK_ONFAULT does
// not; /proc/self/status's VmLck is the size of the locked mappings;
// RLIMIT_MEMLOCK counts that size for a caller without CAP_IPC_LOCK
// (mlock ENOMEM, mmap(MAP_LOCKED) EAGAIN, mlockall(MCL_CURRENT) ENOMEM,
// 0: EPERM); madvise cannot drop or age locked pages (DONTNEED, FREE,
// COLD, PAGEOUT, REMOVE: EINVAL, the data kept) but
// MADV_DONTNEED_LOCKED can.  Each case runs in a forked child: the
// locks and limits die with it.
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "privdrop.h"
#include "testcase.h"

#define NPAGES 16

static long PAGE;	// the page size (4 KiB on x86-64; the port's on ppc64le)

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT 1
#endif
#ifndef MADV_COLD
#define MADV_COLD 20
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24
#endif

// VmLck of /proc/self/status in kB, or -1.
static long vmlck_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

// Pages of [p, p + n pages) in memory, by mincore; -1 on error.
static int resident(char *p, int n)
{
	unsigned char vec[NPAGES];
	int count = 0;

	if (n > NPAGES || mincore(p, (size_t)n * PAGE, vec) != 0)
		return -1;
	for (int i = 0; i < n; i++)
		count += vec[i] & 1;
	return count;
}

static char *fresh(void)
{
	char *p = mmap(NULL, NPAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

// ---- mlock faults in, MLOCK_ONFAULT does not, VmLck counts both ----

static int c_mlock_populates(void)
{
	char *p = fresh(), *q = fresh();
	long base = vmlck_kb();

	if (!p || !q)
		return cfail("mmap");
	if (c_eq(resident(p, NPAGES), 0, "resident before mlock") ||
	    c_ok(mlock(p, NPAGES * PAGE), "mlock") ||
	    c_eq(resident(p, NPAGES), NPAGES, "resident after mlock") ||
	    c_eq(vmlck_kb(), base + NPAGES * PAGE / 1024, "VmLck after mlock"))
		return 1;
	if (c_ok(syscall(SYS_mlock2, q, NPAGES * PAGE, MLOCK_ONFAULT), "mlock2(MLOCK_ONFAULT)") ||
	    c_eq(resident(q, NPAGES), 0, "resident after mlock2(MLOCK_ONFAULT)") ||
	    c_eq(vmlck_kb(), base + 2 * NPAGES * PAGE / 1024, "VmLck after mlock2"))
		return 1;
	// Locking again counts once; unlocking takes it off.
	if (c_ok(mlock(p, NPAGES * PAGE), "mlock again") ||
	    c_eq(vmlck_kb(), base + 2 * NPAGES * PAGE / 1024, "VmLck after locking twice") ||
	    c_ok(munlock(p, NPAGES * PAGE), "munlock") || c_ok(munlock(q, NPAGES * PAGE), "munlock") ||
	    c_eq(vmlck_kb(), base, "VmLck after munlock"))
		return 1;
	return 0;
}

static void t_mlock_populates(void)
{
	in_child(c_mlock_populates, "mlock");
}

static int c_mlockall_populates(void)
{
	char *p = fresh();

	if (!p)
		return cfail("mmap");
	if (c_ok(mlockall(MCL_CURRENT), "mlockall(MCL_CURRENT)") ||
	    c_eq(resident(p, NPAGES), NPAGES, "resident after mlockall") ||
	    c_ok(munlockall(), "munlockall") || c_eq(vmlck_kb(), 0, "VmLck after munlockall"))
		return 1;
	return 0;
}

static void t_mlockall_populates(void)
{
	in_child(c_mlockall_populates, "mlockall");
}

// ---- RLIMIT_MEMLOCK without CAP_IPC_LOCK ----

static int c_memlock_limit(void)
{
	struct rlimit lim = { (rlim_t)(NPAGES * PAGE), (rlim_t)(NPAGES * PAGE) }, zero = { 0, 0 };
	char *p = fresh(), *q = fresh();

	if (!p || !q)
		return cfail("mmap");
	if (c_ok(setrlimit(RLIMIT_MEMLOCK, &lim), "setrlimit") || drop_to(U1, G1, 0, NULL))
		return 1;
	if (c_ok(mlock(p, NPAGES * PAGE), "mlock up to the limit") ||
	    c_ok(mlock(p, PAGE), "mlock of a page already locked") ||
	    c_err(mlock(q, PAGE), ENOMEM, "mlock past the limit") ||
	    c_err((long)mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0),
		  EAGAIN, "mmap(MAP_LOCKED) past the limit") ||
	    c_err(mlockall(MCL_CURRENT), ENOMEM, "mlockall(MCL_CURRENT) of more than the limit"))
		return 1;
	if (c_ok(munlock(p, NPAGES * PAGE), "munlock") || c_ok(mlock(q, PAGE), "mlock after munlock"))
		return 1;
	// A limit of 0 refuses outright (can_do_mlock).  The raw call: musl's
	// mmap turns EPERM for anonymous memory into ENOMEM.
	if (c_ok(setrlimit(RLIMIT_MEMLOCK, &zero), "setrlimit 0") ||
	    c_err(mlock(p, PAGE), EPERM, "mlock with a limit of 0") ||
	    c_err(syscall(SYS_mmap, 0L, (long)PAGE, (long)PROT_READ,
			  (long)(MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED), -1L, 0L),
		  EPERM, "mmap(MAP_LOCKED) with a limit of 0"))
		return 1;
	return 0;
}

static void t_memlock_limit(void)
{
	in_child(c_memlock_limit, "RLIMIT_MEMLOCK");
}

// ---- madvise on locked memory ----

static int c_madvise_locked(void)
{
	static const struct {
		int advice;
		const char *name;
	} refused[] = {
		{ MADV_DONTNEED, "MADV_DONTNEED" }, { MADV_FREE, "MADV_FREE" },
		{ MADV_COLD, "MADV_COLD" }, { MADV_PAGEOUT, "MADV_PAGEOUT" },
		{ MADV_REMOVE, "MADV_REMOVE" },
	};
	char *p = fresh();

	if (!p)
		return cfail("mmap");
	memset(p, 0x5a, NPAGES * PAGE);
	if (c_ok(mlock(p, NPAGES * PAGE), "mlock"))
		return 1;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (c_err(madvise(p, NPAGES * PAGE, refused[i].advice), EINVAL, refused[i].name))
			return 1;
	if (c_eq(p[0], 0x5a, "the data after the refused advice") ||
	    c_eq(p[NPAGES * PAGE - 1], 0x5a, "the last byte after the refused advice"))
		return 1;
	// The hints that do not drop pages are still taken.
	if (c_ok(madvise(p, NPAGES * PAGE, MADV_WILLNEED), "MADV_WILLNEED"))
		return 1;
	if (c_ok(madvise(p, NPAGES * PAGE, MADV_DONTNEED_LOCKED), "MADV_DONTNEED_LOCKED") ||
	    c_eq(p[0], 0, "the data after MADV_DONTNEED_LOCKED"))
		return 1;
	return 0;
}

static void t_madvise_locked(void)
{
	in_child(c_madvise_locked, "madvise on locked memory");
}

static const struct test_case cases[] = {
	{ "mlock_faults_in_and_counts_VmLck", t_mlock_populates },
	{ "mlockall_current_faults_in", t_mlockall_populates },
	{ "rlimit_memlock_counts_without_cap_ipc_lock", t_memlock_limit },
	{ "madvise_cannot_drop_locked_pages", t_madvise_locked },
};

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	PAGE = sysconf(_SC_PAGESIZE);
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root\n");
		return 0;
	}
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
