// shared_files: MAP_SHARED file mappings as Linux: the mapping and
// read/write/pread/pwrite see each other's bytes at once, so do two
// mappings, another process's mapping and a forked child's; a page wholly
// past the end of the file is SIGBUS (BUS_ADRERR), also after ftruncate
// shrinks the file under a mapping (in this process and in another one,
// and under children storing all over it), and a write that grows the
// file makes it readable; PROT_WRITE needs a
// descriptor open for writing (mmap and a later mprotect: EACCES); msync's
// errnos (EINVAL, ENOMEM, EBUSY for MS_INVALIDATE of locked memory);
// MADV_DONTNEED keeps the data, MADV_REMOVE punches a hole (EACCES where
// it may not); mremap (growing, old_len 0) and mincore of a shared
// mapping; memfd write seals (EPERM for a writable shared mapping, EBUSY
// for F_SEAL_WRITE while one exists, EACCES for mprotect under
// F_SEAL_FUTURE_WRITE); and private file
// mappings: a page not yet written sees later writes to the file, a
// written one keeps its own bytes, a page past the end is SIGBUS.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <setjmp.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"

#define PAGE 4096

static int case_no;

// A new file of 'len' bytes, each 'A' + its page number, open O_RDWR.
static int make_file(size_t len)
{
	char name[32], buf[PAGE];
	int fd;

	snprintf(name, sizeof(name), "f%d", case_no++);
	fd = open(scratch(name), O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0) {
		fail("open: errno=%d", errno);
		return -1;
	}
	for (size_t off = 0; off < len; off += PAGE) {
		size_t n = len - off < PAGE ? len - off : PAGE;
		memset(buf, 'A' + (int)(off / PAGE), n);
		if (pwrite(fd, buf, n, (off_t)off) != (ssize_t)n) {
			fail("pwrite: errno=%d", errno);
			close(fd);
			return -1;
		}
	}
	return fd;
}

static char *map(size_t len, int prot, int flags, int fd, off_t off)
{
	char *p = mmap(NULL, len, prot, flags, fd, off);

	if (p == MAP_FAILED) {
		fail("mmap: errno=%d", errno);
		return NULL;
	}
	return p;
}

static char byte_at(int fd, off_t off)
{
	char c = 0;

	if (pread(fd, &c, 1, off) != 1)
		fail("pread at %ld: errno=%d", (long)off, errno);
	return c;
}

static int memfd(unsigned flags);

// ---- SIGBUS in a child ----

// Volatile itself: the store must happen before the faulting load.
static volatile char *volatile bus_expect;

static void bus_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	// 42: the right signal, code and address; 43: the wrong ones.
	if (si->si_code != BUS_ADRERR)
		_exit(43);
	_exit(si->si_addr == (void *)bus_expect ? 42 : 44);
}

// Reads *p in a child, which must die of SIGBUS at p (BUS_ADRERR).
static void check_sigbus(volatile char *p, const char *what)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = bus_handler;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGBUS, &sa, NULL);
		bus_expect = p;
		(void)*p;
		_exit(1);
	}
	int st = reap_child(pid);
	if (st < 0)
		return;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 42)
		fail("%s: no SIGBUS with BUS_ADRERR at the address (status %#x)", what, st);
}

// ---- coherence ----

static void t_mapping_and_pread(void)
{
	int fd = make_file(2 * PAGE);
	char *p;

	if (fd < 0 || !(p = map(2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)))
		goto out;
	check(p[0] == 'A' && p[PAGE] == 'B', "mapping shows the file");
	p[10] = 'x';
	p[PAGE + 5] = 'y';
	check(byte_at(fd, 10) == 'x' && byte_at(fd, PAGE + 5) == 'y',
	      "pread sees stores through the mapping");
	check(pwrite(fd, "zw", 2, 20) == 2, "pwrite");
	check(p[20] == 'z' && p[21] == 'w', "the mapping sees pwrite");
	check(lseek(fd, PAGE + 100, SEEK_SET) == PAGE + 100 && write(fd, "q", 1) == 1, "write");
	check(p[PAGE + 100] == 'q', "the mapping sees write");
	munmap(p, 2 * PAGE);
	check(byte_at(fd, 10) == 'x', "the stores stay in the file after munmap");
out:
	if (fd >= 0)
		close(fd);
}

static void t_two_mappings(void)
{
	int fd = make_file(3 * PAGE);
	char *a, *b;

	if (fd < 0 || !(a = map(3 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)))
		goto out;
	if (!(b = map(PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 2 * PAGE)))
		goto out_a;
	a[2 * PAGE + 7] = '1';
	check(b[7] == '1', "a store through one mapping is seen by the other");
	b[8] = '2';
	check(a[2 * PAGE + 8] == '2', "and the other way");
	munmap(b, PAGE);
out_a:
	munmap(a, 3 * PAGE);
out:
	if (fd >= 0)
		close(fd);
}

// A child that opens and maps the file itself, and a forked child using
// the parent's mapping, both store; the parent sees both.
static void t_other_processes(void)
{
	int fd = make_file(PAGE), go[2];
	char *p;

	if (fd < 0 || !(p = map(PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)))
		goto out;
	if (pipe(go) < 0) {
		fail("pipe");
		goto out_p;
	}
	pid_t pid = fork_child();
	if (pid == 0) {
		char c;
		p[1] = 'f';		// the inherited mapping
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(p[2] == 'P' ? 0 : 3);	// the parent's store, seen here
	}
	p[2] = 'P';
	check(write(go[1], "g", 1) == 1, "write go");
	check_child_ok(pid, "forked child");
	check(p[1] == 'f', "the parent sees the forked child's store");

	pid = fork_child();
	if (pid == 0) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		int fd2 = open(path, O_RDWR);
		if (fd2 < 0)
			_exit(4);
		char *q = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd2, 0);
		if (q == MAP_FAILED)
			_exit(5);
		if (q[1] != 'f' || q[2] != 'P')
			_exit(6);
		q[3] = 'o';
		_exit(0);
	}
	check_child_ok(pid, "child with its own mapping");
	check(p[3] == 'o', "the parent sees the other mapping's store");
	check(byte_at(fd, 3) == 'o', "and so does pread");
	close(go[0]);
	close(go[1]);
out_p:
	munmap(p, PAGE);
out:
	if (fd >= 0)
		close(fd);
}

// ---- the end of the file ----

static void t_past_eof_sigbus(void)
{
	int fd = make_file(PAGE + 100);
	char *p;

	if (fd < 0 || !(p = map(4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)))
		goto out;
	check(p[PAGE + 99] == 'B' && p[PAGE + 100] == 0 && p[2 * PAGE - 1] == 0,
	      "the last page is readable, zero past the end");
	check_sigbus(p + 2 * PAGE, "a page wholly past the end");
	check_sigbus(p + 3 * PAGE + 5, "the page after");
	// A write that grows the file makes the page readable.
	check(pwrite(fd, "g", 1, 2 * PAGE + 10) == 1, "pwrite growing the file");
	check(p[2 * PAGE + 10] == 'g' && p[2 * PAGE] == 0, "the new page is mapped");
	check_sigbus(p + 3 * PAGE, "still past the new end");
	munmap(p, 4 * PAGE);
out:
	if (fd >= 0)
		close(fd);
}

static void t_truncate_sigbus(void)
{
	int fd = make_file(3 * PAGE);
	char *p;

	if (fd < 0 || !(p = map(3 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)))
		goto out;
	check(p[0] == 'A' && p[PAGE] == 'B' && p[2 * PAGE] == 'C', "all pages touched");
	check_ok(ftruncate(fd, 100), "ftruncate to 100 bytes");
	check(p[99] == 'A' && p[100] == 0 && p[PAGE - 1] == 0,
	      "the bytes past the new end read zero in the mapping");
	check_sigbus(p + PAGE, "the second page after truncation");
	check_sigbus(p + 2 * PAGE, "the third page after truncation");
	check_ok(ftruncate(fd, 3 * PAGE), "ftruncate back up");
	check(p[PAGE] == 0 && p[2 * PAGE + 5] == 0, "the pages come back as zeros");
	p[PAGE] = 'n';
	check(byte_at(fd, PAGE) == 'n', "and are the file's again");
	munmap(p, 3 * PAGE);
out:
	if (fd >= 0)
		close(fd);
}

// Truncation takes the pages out of another process's mapping too.
static void t_truncate_other_process(void)
{
	int fd = make_file(2 * PAGE), go[2], ready[2];
	char *p;

	if (fd < 0 || !(p = map(2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)))
		goto out;
	if (pipe(go) < 0 || pipe(ready) < 0) {
		fail("pipe");
		goto out_p;
	}
	pid_t pid = fork_child();
	if (pid == 0) {
		char c;
		if (p[PAGE] != 'B')		// mapped in the child
			_exit(2);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		(void)*(volatile char *)(p + PAGE);	// must be SIGBUS now
		_exit(4);
	}
	char c;
	check(read(ready[0], &c, 1) == 1, "child ready");
	check_ok(ftruncate(fd, PAGE), "ftruncate");
	check(write(go[1], "g", 1) == 1, "write go");
	check_killed_by(pid, SIGBUS, "child touching the truncated page");
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
out_p:
	munmap(p, 2 * PAGE);
out:
	if (fd >= 0)
		close(fd);
}

// Children store and load all over a shared mapping while the parent
// shrinks, grows and punches the file under them (every CPU at once on
// Switchyard): a page is the file's or SIGBUS, never stale, and at the
// end the mapping and pread agree byte for byte.
static sigjmp_buf race_jmp;

static void race_bus(int sig)
{
	(void)sig;
	siglongjmp(race_jmp, 1);
}

// gcc (for ppc64le) fears siglongjmp clobbers i, but it jumps back to the
// sigsetjmp of the same round, after which i has not changed.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wclobbered"
static void race_child(volatile char *p, int pages, int seed)
{
	struct sigaction sa;
	struct timespec t0, t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = race_bus;
	sigaction(SIGBUS, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = (unsigned)seed;; i = i * 1103515245 + 12345) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec > 300000000L)
			break;
		volatile char *at = p + ((i >> 8) % (unsigned)pages) * PAGE + (i >> 20) % PAGE;
		if (sigsetjmp(race_jmp, 1) == 0) {
			if (i & 1)
				*at = (char)i;
			else
				(void)*at;
		}
	}
	_exit(0);
}
#pragma GCC diagnostic pop

static void t_truncate_race(void)
{
	enum { PAGES = 8 };
	int fd = memfd(0);
	char *p, buf[PAGE];
	pid_t kids[2];

	if (fd < 0)
		return;
	check_ok(ftruncate(fd, PAGES * PAGE), "ftruncate");
	if (!(p = map(PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)))
		goto out;
	for (int k = 0; k < 2; k++) {
		kids[k] = fork_child();
		if (kids[k] == 0)
			race_child(p, PAGES, k + 1);
	}
	for (int round = 0; round < 200; round++) {
		check_ok(ftruncate(fd, (round % PAGES) * PAGE + (round & 1) * 100), "ftruncate");
		if (round % 3 == 0)
			check_ok(ftruncate(fd, PAGES * PAGE), "ftruncate up");
		if (round % 5 == 0)
			madvise(p + (round % PAGES) * PAGE, PAGE, MADV_REMOVE);
		usleep(1000);
	}
	for (int k = 0; k < 2; k++)
		check_child_ok(kids[k], "a storing child");
	check_ok(ftruncate(fd, PAGES * PAGE), "ftruncate to the full size");
	int same = 1;
	for (int i = 0; i < PAGES; i++) {
		if (pread(fd, buf, PAGE, (off_t)i * PAGE) != PAGE)
			same = 0;
		same &= memcmp(buf, p + i * PAGE, PAGE) == 0;
	}
	check(same, "the mapping and the file agree afterwards");
	munmap(p, PAGES * PAGE);
out:
	close(fd);
}

// ---- permissions ----

static void t_write_needs_writable_fd(void)
{
	int fd = make_file(PAGE), ro = -1;
	char *p, path[PATH_MAX];

	if (fd < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY);
	if (ro < 0) {
		fail("reopen read-only: errno=%d", errno);
		goto out;
	}
	check_errno((long)mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0) ==
			    (long)MAP_FAILED ? -1 : 0,
		    EACCES, "PROT_WRITE shared mapping of a read-only descriptor");
	if ((p = map(PAGE, PROT_READ, MAP_SHARED, ro, 0)) != NULL) {
		check(p[0] == 'A', "a read-only shared mapping reads");
		check(pwrite(fd, "r", 1, 0) == 1 && p[0] == 'r', "and sees writes");
		check_errno(mprotect(p, PAGE, PROT_READ | PROT_WRITE), EACCES,
			    "mprotect adding PROT_WRITE");
		munmap(p, PAGE);
	}
	// A private mapping of the same descriptor may become writable.
	if ((p = map(PAGE, PROT_READ, MAP_PRIVATE, ro, 0)) != NULL) {
		check_ok(mprotect(p, PAGE, PROT_READ | PROT_WRITE), "mprotect of a private mapping");
		p[0] = 'p';
		check(byte_at(fd, 0) == 'r', "the private store stays private");
		munmap(p, PAGE);
	}
	// A shared writable mapping made read-only may become writable again.
	if ((p = map(PAGE, PROT_READ, MAP_SHARED, fd, 0)) != NULL) {
		check_ok(mprotect(p, PAGE, PROT_READ | PROT_WRITE), "mprotect with a writable fd");
		p[1] = 'w';
		check(byte_at(fd, 1) == 'w', "the store reaches the file");
		munmap(p, PAGE);
	}
out:
	if (ro >= 0)
		close(ro);
	close(fd);
}

// ---- msync, madvise, mremap, mincore ----

static void t_msync(void)
{
	int fd = make_file(2 * PAGE);
	char *p, *l;

	if (fd < 0 || !(p = map(2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)))
		goto out;
	p[0] = 's';
	check_ok(msync(p, 2 * PAGE, MS_SYNC), "MS_SYNC");
	check_ok(msync(p, PAGE, MS_ASYNC), "MS_ASYNC");
	check_ok(msync(p, 100, MS_INVALIDATE), "MS_INVALIDATE, unaligned length");
	check_ok(msync(p, 0, MS_SYNC), "length 0");
	check(byte_at(fd, 0) == 's', "the data is the file's");
	check_errno(msync(p + 1, PAGE, MS_SYNC), EINVAL, "unaligned address");
	check_errno(msync(p, PAGE, MS_SYNC | MS_ASYNC), EINVAL, "MS_SYNC with MS_ASYNC");
	check_errno(msync(p, PAGE, 8), EINVAL, "unknown flag");
	check_errno(msync(p + 1, PAGE, 8), EINVAL, "unknown flag before alignment");
	check_errno(msync((void *)-4096L, 8192, MS_SYNC), ENOMEM, "wrapping range");
	munmap(p + PAGE, PAGE);
	check_errno(msync(p, 2 * PAGE, MS_SYNC), ENOMEM, "a range running into a hole");
	check_errno(msync(p + PAGE, PAGE, MS_ASYNC), ENOMEM, "an unmapped range");
	// Anonymous memory too (nothing to write back there either).
	char *a = map(PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a) {
		check_ok(msync(a, PAGE, MS_SYNC), "anonymous memory");
		munmap(a, PAGE);
	}
	// MS_INVALIDATE of locked memory: EBUSY.
	l = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_LOCKED, fd, 0);
	if (l == MAP_FAILED) {
		skip("MAP_LOCKED refused (RLIMIT_MEMLOCK)");
	} else {
		check_errno(msync(l, PAGE, MS_INVALIDATE), EBUSY, "MS_INVALIDATE of locked memory");
		check_ok(msync(l, PAGE, MS_SYNC), "MS_SYNC of locked memory");
		check_ok(munlock(l, PAGE), "munlock");
		check_ok(msync(l, PAGE, MS_INVALIDATE), "MS_INVALIDATE once unlocked");
		check_ok(mlock(l + 100, 10), "mlock of a part of a page");
		check_errno(msync(l, PAGE, MS_INVALIDATE), EBUSY, "locks the page");
		check_ok(munlockall(), "munlockall");
		check_ok(msync(l, PAGE, MS_INVALIDATE), "unlocked by munlockall");
		munmap(l, PAGE);
		check_errno(mlock(l, PAGE), ENOMEM, "mlock of an unmapped page");
		check_errno(munlock(l, PAGE), ENOMEM, "munlock of an unmapped page");
	}
	munmap(p, PAGE);
out:
	if (fd >= 0)
		close(fd);
}

static int memfd(unsigned flags)
{
	int fd = (int)syscall(SYS_memfd_create, "shared", flags);

	if (fd < 0)
		fail("memfd_create: errno=%d", errno);
	return fd;
}

static void t_madvise(void)
{
	int fd = memfd(0);
	char *p, *r, buf[PAGE];
	struct stat st;

	if (fd < 0)
		return;
	memset(buf, 'm', sizeof(buf));
	for (int i = 0; i < 3; i++)
		check(write(fd, buf, PAGE) == PAGE, "write");
	if (!(p = map(3 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)))
		goto out;
	p[5] = 'd';
	check_ok(madvise(p, PAGE, MADV_DONTNEED), "MADV_DONTNEED");
	check(p[5] == 'd' && p[6] == 'm', "the data comes back from the file");
	check_ok(madvise(p + PAGE, PAGE, MADV_REMOVE), "MADV_REMOVE");
	check(p[PAGE] == 0 && p[2 * PAGE - 1] == 0 && byte_at(fd, PAGE) == 0,
	      "the hole reads zero in the mapping and the file");
	check(p[2 * PAGE] == 'm' && p[PAGE - 1] == 'm', "the pages around it stay");
	check(fstat(fd, &st) == 0 && st.st_size == 3 * PAGE, "the size stays");
	p[PAGE + 1] = 'n';
	check(byte_at(fd, PAGE + 1) == 'n', "a store refills the hole");
	// A read-only mapping of a writable descriptor may punch (it could
	// be made writable); one of a read-only descriptor may not.
	if ((r = map(PAGE, PROT_READ, MAP_SHARED, fd, 0)) != NULL) {
		p[0] = 'r';
		check_ok(madvise(r, PAGE, MADV_REMOVE), "MADV_REMOVE of a read-only mapping");
		check(p[0] == 0, "punched through it");
		munmap(r, PAGE);
	}
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int ro = open(path, O_RDONLY);
	if (ro >= 0 && (r = map(PAGE, PROT_READ, MAP_SHARED, ro, 0)) != NULL) {
		check_errno(madvise(r, PAGE, MADV_REMOVE), EACCES,
			    "MADV_REMOVE through a read-only descriptor");
		munmap(r, PAGE);
	}
	if (ro >= 0)
		close(ro);
	if ((r = map(PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0)) != NULL) {
		check_errno(madvise(r, PAGE, MADV_REMOVE), EACCES, "MADV_REMOVE of a private mapping");
		munmap(r, PAGE);
	}
	munmap(p + 2 * PAGE, PAGE);
	check_errno(madvise(p, 3 * PAGE, MADV_REMOVE), ENOMEM, "MADV_REMOVE over a hole");
	check(byte_at(fd, 0) == 0, "the mapped part was punched");
	munmap(p, 2 * PAGE);
out:
	close(fd);
}

static void t_mremap_mincore(void)
{
	int fd = make_file(4 * PAGE);
	char *p, *q;
	unsigned char vec[4];

	if (fd < 0 || !(p = map(2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)))
		goto out;
	p[0] = '0';
	q = mremap(p, 2 * PAGE, 4 * PAGE, MREMAP_MAYMOVE);
	if (q == MAP_FAILED) {
		fail("mremap: errno=%d", errno);
		munmap(p, 2 * PAGE);
		goto out;
	}
	check(q[0] == '0' && q[PAGE] == 'B' && q[3 * PAGE] == 'D', "the grown mapping shows the file");
	q[3 * PAGE + 1] = '3';
	check(byte_at(fd, 3 * PAGE + 1) == '3', "a store in the grown part reaches the file");
	check(pwrite(fd, "w", 1, 2) == 1 && q[2] == 'w', "the moved mapping sees writes");
	check_ok(mincore(q, 4 * PAGE, vec), "mincore");
	check(vec[0] & vec[3] & 1, "the file's pages are resident");
	// old_len 0: a second mapping of the same pages (the old one stays).
	char *d = mremap(q + PAGE, 0, 2 * PAGE, MREMAP_MAYMOVE);
	if (d == MAP_FAILED) {
		fail("mremap old_len 0: errno=%d", errno);
	} else {
		check(d != q + PAGE && d[0] == 'B' && d[2 * PAGE - 1] == 'C', "the duplicate shows the file");
		d[1] = 'd';
		check(q[PAGE + 1] == 'd' && byte_at(fd, PAGE + 1) == 'd', "and shares its pages");
		check(q[0] == '0', "the old mapping stays");
		munmap(d, 2 * PAGE);
	}
	check_errno((long)mremap(q, 0, PAGE, 0) == (long)MAP_FAILED ? -1 : 0, ENOMEM,
		    "old_len 0 without MREMAP_MAYMOVE");
	munmap(q, 4 * PAGE);
out:
	if (fd >= 0)
		close(fd);
}

// ---- memfd seals ----

static void t_seals(void)
{
	int fd = memfd(MFD_ALLOW_SEALING);
	char *p, *r;

	if (fd < 0)
		return;
	check_ok(ftruncate(fd, PAGE), "ftruncate");
	if (!(p = map(PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)))
		goto out;
	check_errno(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), EBUSY,
		    "F_SEAL_WRITE while a writable shared mapping exists");
	if ((r = map(PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0)) != NULL)
		munmap(r, PAGE);
	munmap(p, PAGE);
	check_ok(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), "F_SEAL_WRITE once it is gone");
	check_errno((long)mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
			    (long)MAP_FAILED ? -1 : 0,
		    EPERM, "a writable shared mapping under F_SEAL_WRITE");
	if ((r = map(PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0)) != NULL) {
		r[0] = 'p';	// private: copy on write
		check(byte_at(fd, 0) == 0, "a private mapping stays private");
		munmap(r, PAGE);
	}
	close(fd);

	fd = memfd(MFD_ALLOW_SEALING);
	if (fd < 0)
		return;
	check_ok(ftruncate(fd, PAGE), "ftruncate");
	check_ok(fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE), "F_SEAL_FUTURE_WRITE");
	check_errno((long)mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
			    (long)MAP_FAILED ? -1 : 0,
		    EPERM, "a writable shared mapping under F_SEAL_FUTURE_WRITE");
	if ((r = map(PAGE, PROT_READ, MAP_SHARED, fd, 0)) != NULL) {
		check_errno(mprotect(r, PAGE, PROT_READ | PROT_WRITE), EACCES,
			    "mprotect adding PROT_WRITE under F_SEAL_FUTURE_WRITE");
		munmap(r, PAGE);
	}
out:
	close(fd);
}

// ---- private file mappings ----

static void t_private_sees_later_writes(void)
{
	int fd = make_file(2 * PAGE);
	char *p;

	if (fd < 0 || !(p = map(2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0)))
		goto out;
	check(p[0] == 'A' && p[PAGE] == 'B', "the mapping shows the file");
	p[PAGE] = 'c';		// copied on this write
	check(pwrite(fd, "w", 1, 1) == 1 && pwrite(fd, "v", 1, PAGE + 1) == 1, "pwrite");
	check(p[1] == 'w', "a page not written yet sees the later write");
	check(p[PAGE] == 'c' && p[PAGE + 1] == 'B', "a written page keeps its own bytes");
	check(byte_at(fd, PAGE) == 'B', "the private store is not in the file");
	p[2] = 'x';
	check(pwrite(fd, "y", 1, 3) == 1 && p[3] == 'A', "once written, the page is a copy");
	check_ok(madvise(p, PAGE, MADV_DONTNEED), "MADV_DONTNEED drops the copy");
	check(p[2] == 'A' && p[3] == 'y', "the file's bytes again");
	// A forked child's page not yet written shows the file too.
	pid_t pid = fork_child();
	if (pid == 0)
		_exit(pwrite(fd, "k", 1, 4) == 1 && p[4] == 'k' ? 0 : 1);
	check_child_ok(pid, "the child sees a write through its inherited mapping");
	check(p[4] == 'k', "and so does the parent");
	munmap(p, 2 * PAGE);
	// Past the end of the file: SIGBUS, also after truncation, even where
	// the page had been copied.
	if (!(p = map(3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0)))
		goto out;
	check_sigbus(p + 2 * PAGE, "a private page wholly past the end");
	p[PAGE] = 'c';
	check_ok(ftruncate(fd, PAGE), "ftruncate");
	check_sigbus(p + PAGE, "a copied page past the new end");
	check(p[0] == 'A', "the page before it stays");
	munmap(p, 3 * PAGE);
out:
	if (fd >= 0)
		close(fd);
}

// remap_file_pages (as Linux emulates it): a page of a shared mapping
// shows another page of the file; private and anonymous mappings and a
// non-zero prot are EINVAL.
static void t_remap_file_pages(void)
{
	int fd = make_file(3 * PAGE);
	if (fd < 0)
		return;
	char *m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	char *a = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || p == MAP_FAILED || a == MAP_FAILED) {
		fail("mmap: errno=%d", errno);
		close(fd);
		return;
	}
	check(m[0] == 'A' && m[PAGE] == 'B', "pages 0 and 1");
	check_ok(syscall(SYS_remap_file_pages, m, PAGE, 0, 2, 0), "remap page 2 over page 0");
	check(m[0] == 'C' && m[PAGE] == 'B', "page 2, then page 1");
	m[0] = 'z';
	char c;
	check(pread(fd, &c, 1, 2 * PAGE) == 1 && c == 'z', "a store reaches page 2 of the file");
	check_errno(syscall(SYS_remap_file_pages, m, PAGE, PROT_READ, 1, 0), EINVAL, "prot not 0");
	check_errno(syscall(SYS_remap_file_pages, p, PAGE, 0, 1, 0), EINVAL, "a private mapping");
	check_errno(syscall(SYS_remap_file_pages, a, PAGE, 0, 1, 0), EINVAL, "anonymous memory");
	check_errno(syscall(SYS_remap_file_pages, m, 3 * PAGE, 0, 0, 0), EINVAL,
		    "past the mapping's end");
	munmap(m, 2 * PAGE);
	munmap(p, PAGE);
	munmap(a, PAGE);
	close(fd);
}

static const struct test_case cases[] = {
	{ "shared_mapping_and_pread_pwrite", t_mapping_and_pread },
	{ "two_shared_mappings", t_two_mappings },
	{ "fork_and_other_process", t_other_processes },
	{ "past_eof_sigbus", t_past_eof_sigbus },
	{ "ftruncate_sigbus", t_truncate_sigbus },
	{ "ftruncate_other_process", t_truncate_other_process },
	{ "truncate_and_punch_under_stores", t_truncate_race },
	{ "prot_write_needs_writable_fd", t_write_needs_writable_fd },
	{ "msync", t_msync },
	{ "madvise_dontneed_remove", t_madvise },
	{ "mremap_mincore", t_mremap_mincore },
	{ "memfd_seals", t_seals },
	{ "private_sees_later_writes", t_private_sees_later_writes },
	{ "remap_file_pages", t_remap_file_pages },
};

int main(void)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/shared_files-%d", (int)getpid());
	if (mkdir(scratch_dir, 0700) < 0) {
		perror("mkdir");
		return 1;
	}
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	for (int i = 0; i < case_no; i++) {
		char name[32];
		snprintf(name, sizeof(name), "f%d", i);
		unlink(scratch(name));
	}
	rmdir(scratch_dir);
	return ktap_finish();
}
