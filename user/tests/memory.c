// memory: the address-space calls of Switchyard's Linux ABI: brk, anonymous
// and file mmap, munmap, mprotect, madvise, copy-on-write across fork,
// shared anonymous memory, stack growth, and the faults that bad accesses
// must raise (checked in forked children through their wait status).
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"

// ---- helpers -------------------------------------------------------------------

enum { PAGE = 4096 };

static char scratch_file[64];

static void *map_anon(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fail("mmap(%zu): errno=%d", len, errno);
		return NULL;
	}
	return p;
}

// Run 'touch' on 'addr' in a child, which must die of SIGSEGV.
static void expect_segv(void (*touch)(volatile char *), volatile char *addr,
			const char *what)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		touch(addr);
		_exit(0);
	}
	check_killed_by(pid, SIGSEGV, what);
}

static void read_byte(volatile char *p)
{
	(void)*p;
}

static void write_byte(volatile char *p)
{
	*p = 1;
}

// The kernel's own answer to mmap: musl checks some arguments itself.
static long raw_mmap(void *addr, size_t len, int prot, int flags, int fd, long off)
{
	return syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

static uintptr_t raw_brk(uintptr_t want)
{
	return (uintptr_t)syscall(SYS_brk, want);
}

// ---- brk ----------------------------------------------------------------------------

static void t_brk_grow(void)
{
	uintptr_t start = raw_brk(0), grown;
	size_t len = 16 * PAGE;
	int ok = 1;

	if (!check(start != 0, "brk(0) reports the break"))
		return;
	grown = raw_brk(start + len);
	if (!check(grown == start + len, "brk grows by 64 KiB"))
		return;
	for (size_t off = 0; off < len; off += PAGE / 2) {
		volatile char *p = (char *)start + off;

		ok &= *p == 0;
		*p = (char)(off >> 11);
	}
	check(ok, "new heap reads zero");
	for (size_t off = 0; off < len; off += PAGE / 2)
		ok &= ((volatile char *)start)[off] == (char)(off >> 11);
	check(ok, "heap keeps what was written");
	check(raw_brk(start) == start, "brk shrinks back");
}

static void t_brk_regrow_is_zero(void)
{
	uintptr_t start = raw_brk(0);
	volatile char *p = (char *)start;

	if (raw_brk(start + 2 * PAGE) != start + 2 * PAGE) {
		fail("brk grow failed");
		return;
	}
	p[PAGE] = 0x55;
	raw_brk(start);
	if (raw_brk(start + 2 * PAGE) != start + 2 * PAGE) {
		fail("brk regrow failed");
		return;
	}
	check(p[PAGE] == 0, "memory given back and regrown reads zero");
	raw_brk(start);
}

static void t_brk_refuses_nonsense(void)
{
	uintptr_t start = raw_brk(0);

	check(raw_brk(1) == start, "brk below the heap start leaves it unchanged");
	check(raw_brk((uintptr_t)1 << 62) == start,
	      "brk to a non-canonical address leaves it unchanged");
	check(raw_brk(0) == start, "break unchanged");
}

// ---- anonymous mappings ----------------------------------------------------------------

static void t_mmap_demand_zero(void)
{
	size_t len = 64 << 20;
	char *p = map_anon(len, PROT_READ | PROT_WRITE);
	int zero = 1, kept = 1;

	if (!p)
		return;
	check(((uintptr_t)p & (PAGE - 1)) == 0, "page aligned");
	// Touch one page per MiB: a sparse walk over a big mapping.
	for (size_t off = 0; off < len; off += 1 << 20) {
		zero &= p[off] == 0 && p[off + PAGE - 1] == 0;
		p[off] = (char)(off >> 20) | 1;
	}
	check(zero, "untouched pages read zero");
	for (size_t off = 0; off < len; off += 1 << 20)
		kept &= p[off] == ((char)(off >> 20) | 1);
	check(kept, "written pages keep their bytes");
	check(p[len - 1] == 0, "last byte zero");
	check_ok(munmap(p, len), "munmap");
}

static void t_mmap_distinct(void)
{
	char *a = map_anon(3 * PAGE, PROT_READ | PROT_WRITE);
	char *b = map_anon(3 * PAGE, PROT_READ | PROT_WRITE);

	if (!a || !b)
		return;
	check(a + 3 * PAGE <= b || b + 3 * PAGE <= a, "mappings do not overlap");
	a[0] = 'a';
	b[0] = 'b';
	check(a[0] == 'a' && b[0] == 'b', "independent contents");
	munmap(a, 3 * PAGE);
	munmap(b, 3 * PAGE);
}

static void t_mmap_fixed(void)
{
	char *a = map_anon(4 * PAGE, PROT_READ | PROT_WRITE), *b;

	if (!a)
		return;
	a[PAGE] = 'x';
	b = mmap(a + PAGE, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	check(b == a + PAGE, "MAP_FIXED lands at the address");
	check(a[PAGE] == 0, "and replaces the old page with a zero page");
	munmap(a, 4 * PAGE);
	b = mmap(a, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	check(b == a, "MAP_FIXED_NOREPLACE on a free range");
	if (b != MAP_FAILED)
		munmap(b, PAGE);
}

static void t_munmap_segv(void)
{
	char *p = map_anon(PAGE, PROT_READ | PROT_WRITE);

	if (!p)
		return;
	p[0] = 1;
	if (!check_ok(munmap(p, PAGE), "munmap"))
		return;
	expect_segv(read_byte, p, "read after munmap");
	expect_segv(write_byte, p, "write after munmap");
}

static void t_munmap_partial(void)
{
	char *p = map_anon(3 * PAGE, PROT_READ | PROT_WRITE);

	if (!p)
		return;
	p[0] = 'a';
	p[2 * PAGE] = 'c';
	if (!check_ok(munmap(p + PAGE, PAGE), "munmap the middle page"))
		return;
	check(p[0] == 'a' && p[2 * PAGE] == 'c', "neighbours intact");
	expect_segv(read_byte, p + PAGE, "read the hole");
	munmap(p, 3 * PAGE);
	check_ok(munmap(p, 3 * PAGE), "munmap of an already free range is fine");
}

static void t_mprotect_readonly(void)
{
	char *p = map_anon(2 * PAGE, PROT_READ | PROT_WRITE);

	if (!p)
		return;
	p[0] = 'r';
	if (!check_ok(mprotect(p, PAGE, PROT_READ), "mprotect PROT_READ"))
		return;
	check(p[0] == 'r', "still readable");
	expect_segv(write_byte, p, "write to a read-only page");
	p[PAGE] = 'w';
	check(p[PAGE] == 'w', "the next page stays writable");
	check_ok(mprotect(p, PAGE, PROT_READ | PROT_WRITE), "mprotect back");
	p[0] = 's';
	check(p[0] == 's', "writable again");
	munmap(p, 2 * PAGE);
}

static void t_prot_none(void)
{
	char *p = map_anon(PAGE, PROT_NONE);

	if (!p)
		return;
	expect_segv(read_byte, p, "read PROT_NONE");
	check_ok(mprotect(p, PAGE, PROT_READ), "mprotect PROT_NONE -> PROT_READ");
	check(*(volatile char *)p == 0, "then readable, zero");
	munmap(p, PAGE);
}

static void t_exec_permission(void)
{
	unsigned char *p = map_anon(PAGE, PROT_READ | PROT_WRITE);
	pid_t pid;

	if (!p)
		return;
#if defined(__x86_64__)
	p[0] = 0xb8;	// mov eax, 42
	p[1] = 42;
	p[2] = p[3] = p[4] = 0;
	p[5] = 0xc3;	// ret
#elif defined(__powerpc64__)
	uint32_t code[2] = { 0x3860002a, 0x4e800020 };	// li r3, 42; blr
	memcpy(p, code, sizeof(code));
#endif
	__builtin___clear_cache((char *)p, (char *)p + 16);
	pid = fork_child();
	if (pid == 0) {
		int (*fn)(void) = (int (*)(void))(void *)p;

		fn();
		_exit(0);
	}
	check_killed_by(pid, SIGSEGV, "call into a page without PROT_EXEC");
	if (check_ok(mprotect(p, PAGE, PROT_READ | PROT_EXEC), "mprotect PROT_EXEC")) {
		int (*fn)(void) = (int (*)(void))(void *)p;

		check(fn() == 42, "code in a PROT_EXEC page runs");
	}
	munmap(p, PAGE);
}

// Both the pointer and its target are volatile: the handler reads the
// pointer, so its store must happen before the faulting access.
static volatile char *volatile segv_expected_addr;
static volatile int segv_expected_code;

static void segv_info_handler(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (sig != SIGSEGV)
		_exit(2);
	if (si->si_addr != (void *)segv_expected_addr)
		_exit(3);
	if (si->si_code != segv_expected_code)
		_exit(4);
	_exit(0);
}

static void t_segv_siginfo(void)
{
	char *p = map_anon(2 * PAGE, PROT_READ | PROT_WRITE);
	pid_t pid;

	if (!p)
		return;
	mprotect(p, PAGE, PROT_READ);
	munmap(p + PAGE, PAGE);
	for (int access_error = 0; access_error < 2; access_error++) {
		pid = fork_child();
		if (pid == 0) {
			struct sigaction sa;

			memset(&sa, 0, sizeof(sa));
			sa.sa_sigaction = segv_info_handler;
			sa.sa_flags = SA_SIGINFO;
			sigaction(SIGSEGV, &sa, NULL);
			segv_expected_addr = access_error ? p + 8 : p + PAGE + 8;
			segv_expected_code = access_error ? SEGV_ACCERR : SEGV_MAPERR;
			*segv_expected_addr = 1;
			_exit(1);
		}
		check_child_ok(pid, access_error ?
			       "SEGV_ACCERR (1 no fault, 3 si_addr, 4 si_code)" :
			       "SEGV_MAPERR (1 no fault, 3 si_addr, 4 si_code)");
	}
	munmap(p, PAGE);
}

static void t_madvise_dontneed(void)
{
	char *p = map_anon(4 * PAGE, PROT_READ | PROT_WRITE);

	if (!p)
		return;
	memset(p, 0x77, 4 * PAGE);
	check(madvise(p, 4 * PAGE, MADV_DONTNEED) == 0, "madvise DONTNEED returns 0");
	// Linux semantics that allocators rely on: private anonymous pages
	// read zero afterwards.
	check(p[0] == 0 && p[3 * PAGE + 5] == 0, "pages read zero afterwards");
	p[0] = 1;
	check(p[0] == 1, "and are usable");
	check(madvise(p, 4 * PAGE, MADV_WILLNEED) == 0, "MADV_WILLNEED returns 0");
	check_errno(madvise(p + 1, PAGE, MADV_DONTNEED), EINVAL, "unaligned address");
	munmap(p, 4 * PAGE);
}

// ---- file mappings ----------------------------------------------------------------------

// Write two and a half pages of a known pattern to the scratch file.
static int write_pattern_file(size_t len)
{
	char buf[PAGE];
	int fd = open(scratch_file, O_CREAT | O_TRUNC | O_RDWR, 0644);

	if (fd < 0)
		return fail("create: errno=%d", errno), -1;
	for (size_t off = 0; off < len; off += sizeof(buf)) {
		size_t n = len - off < sizeof(buf) ? len - off : sizeof(buf);

		for (size_t i = 0; i < n; i++)
			buf[i] = (char)('A' + (off + i) / PAGE + (i % 7));
		if (write(fd, buf, n) != (ssize_t)n) {
			close(fd);
			return fail("write: errno=%d", errno), -1;
		}
	}
	return fd;
}

static char pattern_at(size_t off)
{
	return (char)('A' + off / PAGE + (off % PAGE % 7));
}

static void t_mmap_private_file(void)
{
	size_t len = 2 * PAGE + PAGE / 2;
	int fd = write_pattern_file(len), same = 1;
	char *p, c = 0;

	if (fd < 0)
		return;
	p = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		fail("mmap file: errno=%d", errno);
		close(fd);
		return;
	}
	for (size_t i = 0; i < len; i++)
		same &= p[i] == pattern_at(i);
	check(same, "mapping shows the file's bytes");
	check(p[len] == 0 && p[3 * PAGE - 1] == 0, "tail of the last page is zero");
	p[10] = '!';
	check(p[10] == '!', "private write visible in the mapping");
	check(pread(fd, &c, 1, 10) == 1 && c == pattern_at(10),
	      "private write not carried to the file");
	munmap(p, 3 * PAGE);
	close(fd);
}

static void t_mmap_file_offset(void)
{
	int fd = write_pattern_file(3 * PAGE);
	char *p;

	if (fd < 0)
		return;
	p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 2 * PAGE);
	if (p == MAP_FAILED) {
		fail("mmap at offset: errno=%d", errno);
		close(fd);
		return;
	}
	check(p[0] == pattern_at(2 * PAGE) && p[100] == pattern_at(2 * PAGE + 100),
	      "offset 8192 maps the third page");
	munmap(p, PAGE);
	check_errno(raw_mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 100), EINVAL,
		    "unaligned offset");
	close(fd);
	// The mapping outlives the descriptor.
	fd = write_pattern_file(PAGE);
	p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p != MAP_FAILED) {
		check(p[5] == pattern_at(5), "mapping usable after close(fd)");
		munmap(p, PAGE);
	}
}

static void t_mmap_file_errors(void)
{
	int fd = open(scratch_file, O_CREAT | O_WRONLY, 0644);

	check_errno(raw_mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0), EACCES,
		    "mapping a write-only descriptor");
	close(fd);
	check_errno(raw_mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, 999, 0), EBADF,
		    "mapping a bad descriptor");
}

// ---- fork and sharing -----------------------------------------------------------------------

static void t_fork_copies_memory(void)
{
	char *anon = map_anon(PAGE, PROT_READ | PROT_WRITE);
	char *heap = malloc(100);
	volatile char stack_var = 's';
	int go[2], back[2];
	pid_t pid;
	char c = 0;

	if (!anon || !heap || !check_ok(pipe(go), "pipe") || !check_ok(pipe(back), "pipe"))
		return;
	anon[0] = 'p';
	heap[0] = 'p';
	pid = fork_child();
	if (pid == 0) {
		anon[0] = 'c';
		heap[0] = 'c';
		stack_var = 'c';
		write(back[1], "w", 1);
		// Wait for the parent's writes, which must not show here.
		read(go[0], &c, 1);
		_exit(anon[0] == 'c' && heap[0] == 'c' && stack_var == 'c' ? 0 : 1);
	}
	read(back[0], &c, 1);
	check(anon[0] == 'p', "child's write to an anonymous page not seen");
	check(heap[0] == 'p', "child's write to the heap not seen");
	check(stack_var == 's', "child's write to the stack not seen");
	anon[0] = 'q';
	heap[0] = 'q';
	stack_var = 'q';
	write(go[1], "g", 1);
	check_child_ok(pid, "parent's writes leaked into the child");
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
	munmap(anon, PAGE);
	free(heap);
}

static void t_shared_anon(void)
{
	volatile int *shared = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;

	if (shared == MAP_FAILED) {
		fail("mmap shared: errno=%d", errno);
		return;
	}
	check(shared[0] == 0, "starts zeroed");
	shared[0] = 1;
	pid = fork_child();
	if (pid == 0) {
		int saw = shared[0];

		shared[1] = 1234;
		shared[0] = 2;
		_exit(saw == 1 ? 0 : 1);
	}
	check_child_ok(pid, "child saw the parent's write");
	check(shared[0] == 2 && shared[1] == 1234, "parent sees the child's writes");
	munmap((void *)shared, PAGE);
}

// ---- argument errors ----------------------------------------------------------------------

static void t_mmap_einval(void)
{
	int rw = PROT_READ | PROT_WRITE;

	check_errno(raw_mmap(NULL, 0, rw, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
		    EINVAL, "zero length");
	check_errno(raw_mmap(NULL, PAGE, rw, MAP_ANONYMOUS, -1, 0), EINVAL,
		    "neither MAP_PRIVATE nor MAP_SHARED");
	// The descriptor is looked at first (LTP's mmap08).
	check_errno(raw_mmap(NULL, 0, rw, MAP_SHARED, -1, 0), EBADF,
		    "a bad descriptor before a zero length");
	check_errno(raw_mmap(NULL, PAGE, rw, 0, -1, 0), EBADF, "before the type");
	check_errno(raw_mmap((void *)0x10000123, PAGE, rw,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
		    EINVAL, "unaligned MAP_FIXED address");
	check_errno(munmap((void *)0x10000123, PAGE), EINVAL, "unaligned munmap");
	check_errno(munmap(NULL, 0), EINVAL, "munmap length 0");
	// musl rounds mprotect's address down, so ask the kernel directly.
	check_errno(syscall(SYS_mprotect, 0x10000123, PAGE, PROT_READ), EINVAL,
		    "unaligned mprotect");
}

static void t_mprotect_unmapped(void)
{
	char *p = map_anon(PAGE, PROT_READ);

	if (!p)
		return;
	munmap(p, PAGE);
	check_errno(mprotect(p, PAGE, PROT_READ), ENOMEM, "mprotect of an unmapped page");
}

static void t_mmap_absurd_sizes(void)
{
	void *p;

	// Larger than the whole user address space: must fail.
	check_errno(raw_mmap(NULL, (size_t)1 << 48, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
		    ENOMEM, "256 TiB mapping");
	// 64 TiB without MAP_NORESERVE: refusing or accepting are both
	// fine; what matters is a clean answer and a live process.
	p = mmap(NULL, (size_t)1 << 46, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		munmap(p, (size_t)1 << 46);
	else
		check(errno == ENOMEM || errno == EINVAL, "64 TiB: ENOMEM or EINVAL");
	p = map_anon(PAGE, PROT_READ | PROT_WRITE);
	check(p != NULL, "ordinary mappings still work");
	if (p)
		munmap(p, PAGE);
}

// ---- stack and allocator ----------------------------------------------------------------------

// Touch 'depth' bytes of stack below the caller, a page at a time.
static int __attribute__((noinline)) touch_stack(size_t depth)
{
	volatile char frame[PAGE];

	frame[0] = (char)depth;
	frame[PAGE - 1] = (char)depth;
	if (depth <= PAGE)
		return frame[0];
	return touch_stack(depth - PAGE) + frame[PAGE - 1] - (char)depth;
}

static void t_stack_grows(void)
{
	pid_t pid = fork_child();

	// In a child, so a kernel that does not grow stacks costs one case.
	if (pid == 0)
		_exit(touch_stack(1 << 20) == (char)PAGE ? 0 : 1);
	check_child_ok(pid, "1 MiB of stack");
}

static void t_malloc_cycles(void)
{
	void *small[64];
	char *big;
	int ok = 1;

	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 64; i++) {
			small[i] = malloc(16 + i * 40);
			if (small[i])
				memset(small[i], i, 16 + i * 40);
			ok &= small[i] != NULL;
		}
		big = malloc(3 << 20);
		ok &= big != NULL;
		if (big) {
			memset(big, 0x33, 3 << 20);
			big = realloc(big, 6 << 20);
			ok &= big && big[(3 << 20) - 1] == 0x33;
			free(big);
		}
		for (int i = 0; i < 64; i++) {
			ok &= !small[i] || ((char *)small[i])[15] == (char)i;
			free(small[i]);
		}
	}
	check(ok, "malloc/realloc/free keep data intact");
}

// Protection keys: pkey_mprotect with key -1 is mprotect; keys never
// allocated are EINVAL.  Switchyard, like Linux on an x86 CPU without
// PKU, has no keys: even the default key 0 is not allocated and
// pkey_alloc is EINVAL.  A Linux host with PKU gives a key, which is
// freed.
static void t_pkeys(void)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fail("mmap: errno=%d", errno);
		return;
	}
	p[0] = 1;
	check_ok(syscall(SYS_pkey_mprotect, p, 4096, PROT_READ, -1), "pkey_mprotect key -1");
	check_ok(syscall(SYS_pkey_mprotect, p, 4096, PROT_READ | PROT_WRITE, -1),
		 "pkey_mprotect key -1 again");
	p[0] = 2;	// writable again
	check_errno(syscall(SYS_pkey_mprotect, p, 4096, PROT_READ, 9), EINVAL,
		    "a key never allocated");
	check_errno(syscall(SYS_pkey_mprotect, p + 1, 4096, PROT_READ, -1), EINVAL,
		    "unaligned, as mprotect");
	check_errno(syscall(SYS_pkey_alloc, 1, 0), EINVAL, "pkey_alloc flags");
	check_errno(syscall(SYS_pkey_alloc, 0, 4), EINVAL, "pkey_alloc access rights");
	check_errno(syscall(SYS_pkey_free, 9), EINVAL, "pkey_free of a key never allocated");
	long key = syscall(SYS_pkey_alloc, 0, 0);
	if (key >= 0) {
		check_ok(syscall(SYS_pkey_free, key), "pkey_free of the key given");
	} else {
		check_errno(key, EINVAL, "no keys without PKU");
		check_errno(syscall(SYS_pkey_mprotect, p, 4096, PROT_READ, 0), EINVAL,
			    "not even key 0");
		check_errno(syscall(SYS_pkey_free, 0), EINVAL, "key 0 cannot be freed");
	}
	munmap(p, 4096);
}

// ---- mmap of /dev/zero ------------------------------------------------------------

// Anonymous memory, as Linux's mmap_zero: private, or shared across fork
// from a descriptor open for writing; read-only from one that is not
// (and then no PROT_WRITE: EACCES).
static void t_mmap_dev_zero(void)
{
	int ro = open("/dev/zero", O_RDONLY), rw = open("/dev/zero", O_RDWR);

	if (!check_ok(ro, "open O_RDONLY") || !check_ok(rw, "open O_RDWR"))
		return;
	char *r = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, ro, 0);
	char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0);
	char *s = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, rw, 0);
	check(r != MAP_FAILED && r[0] == 0, "read-only shared, zero");
	check(p != MAP_FAILED && p[PAGE - 1] == 0, "private, zero");
	errno = 0;
	check(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0) == MAP_FAILED && errno == EACCES,
	      "writable shared from O_RDONLY: EACCES");
	if (check(s != MAP_FAILED, "writable shared")) {
		pid_t pid = fork_child();
		if (pid == 0) {
			s[1] = 's';
			_exit(0);
		}
		check_child_ok(pid, "child");
		check(s[1] == 's', "shared across fork");
		munmap(s, PAGE);
	}
	if (p != MAP_FAILED) {
		p[0] = 'p';
		munmap(p, PAGE);
	}
	if (r != MAP_FAILED)
		munmap(r, PAGE);
	close(ro);
	close(rw);
}

// ---- mremap(MREMAP_DONTUNMAP) ----------------------------------------------------

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

// A move that leaves the old range mapped: private pages go with the
// move (the old range reads zero again), shared anonymous memory is then
// mapped at both places.
static void t_mremap_dontunmap(void)
{
	char *p = map_anon(4 * PAGE, PROT_READ | PROT_WRITE);
	char *sh = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (!p || sh == MAP_FAILED)
		return;
	memset(p, 'p', 4 * PAGE);
	char *q = mremap(p, 4 * PAGE, 4 * PAGE, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
	if (!check(q != MAP_FAILED && q != p, "mremap(DONTUNMAP) moves"))
		return;
	check(q[0] == 'p' && q[4 * PAGE - 1] == 'p', "the data moved");
	check(p[0] == 0 && p[4 * PAGE - 1] == 0, "the old range is still mapped, empty");
	p[0] = 'x';
	check(q[0] == 'p', "and apart from the new one");
	sh[0] = 's';
	char *t = mremap(sh, 2 * PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
	if (check(t != MAP_FAILED, "mremap(DONTUNMAP) of shared memory")) {
		t[1] = 't';
		check(t[0] == 's' && sh[1] == 't', "shared memory is seen at both places");
	}
	errno = 0;
	check(mremap(q, PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_DONTUNMAP) == MAP_FAILED && errno == EINVAL,
	      "another length: EINVAL");
	errno = 0;
	check(mremap(q, PAGE, PAGE, MREMAP_DONTUNMAP) == MAP_FAILED && errno == EINVAL,
	      "without MREMAP_MAYMOVE: EINVAL");
	munmap(p, 4 * PAGE);
	munmap(q, 4 * PAGE);
	munmap(sh, 2 * PAGE);
	if (t != MAP_FAILED)
		munmap(t, 2 * PAGE);
}

static const struct test_case cases[] = {
	{ "pkeys_without_keys", t_pkeys },
	{ "brk_grow", t_brk_grow },
	{ "brk_regrow_is_zero", t_brk_regrow_is_zero },
	{ "brk_refuses_nonsense", t_brk_refuses_nonsense },
	{ "mmap_anon_demand_zero", t_mmap_demand_zero },
	{ "mmap_anon_distinct", t_mmap_distinct },
	{ "mmap_fixed", t_mmap_fixed },
	{ "mremap_dontunmap", t_mremap_dontunmap },
	{ "mmap_dev_zero", t_mmap_dev_zero },
	{ "munmap_then_access_segv", t_munmap_segv },
	{ "munmap_partial", t_munmap_partial },
	{ "mprotect_readonly_write_segv", t_mprotect_readonly },
	{ "prot_none_read_segv", t_prot_none },
	{ "exec_permission", t_exec_permission },
	{ "segv_siginfo", t_segv_siginfo },
	{ "madvise_dontneed", t_madvise_dontneed },
	{ "mmap_private_file", t_mmap_private_file },
	{ "mmap_file_offset", t_mmap_file_offset },
	{ "mmap_file_errors", t_mmap_file_errors },
	{ "fork_copies_memory", t_fork_copies_memory },
	{ "shared_anon_across_fork", t_shared_anon },
	{ "mmap_einval", t_mmap_einval },
	{ "mprotect_unmapped_enomem", t_mprotect_unmapped },
	{ "mmap_absurd_sizes", t_mmap_absurd_sizes },
	{ "stack_grows_1mib", t_stack_grows },
	{ "malloc_cycles", t_malloc_cycles },
};

int main(void)
{
	snprintf(scratch_file, sizeof(scratch_file), "/tmp/memory-%d", (int)getpid());
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	unlink(scratch_file);
	return ktap_finish();
}
