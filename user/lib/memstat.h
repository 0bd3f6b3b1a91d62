// Reading /proc/switchyard/memstat and deciding whether memory came back.
//
// The file has one "name value" line per figure (see docs/testing.md).
// A leak check compares a snapshot taken before some work with one taken
// after it, once everything the work started has ended:
//
//   pages_pinned	every frame in use except what caches keep (kmalloc's
//			slabs, kernel stacks kept for reuse, the kernel's own
//			page tables): must be equal
//   kmalloc_objects_N	objects in use in each kmalloc class: equal
//   kmalloc_large_blocks, kstacks_in_use, processes, threads: equal
//
// So one leaked object of any class, one leaked frame, one process or
// thread left behind, shows as a difference.  Frees can lag a little
// behind an exit (a dead thread is freed by the next switch on its CPU):
// memstat_settle() retries for a few seconds before it calls it a leak.
//
// Header-only, like the other files in user/lib; every function is
// static inline so a program that uses part of it compiles without warnings.
#ifndef USER_MEMSTAT_H
#define USER_MEMSTAT_H

#include <alloca.h>
#include <elf.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MEMSTAT_PATH	"/proc/switchyard/memstat"
#define MEMSTAT_MAX	48
#define MEMSTAT_NAME	32

struct memstat {
	int n;
	char name[MEMSTAT_MAX][MEMSTAT_NAME];
	long value[MEMSTAT_MAX];
};

// Is 'name' one of the figures that must come back exactly?
static inline int memstat_checked(const char *name)
{
	static const char *const exact[] = {
		"pages_pinned", "kmalloc_large_blocks", "kstacks_in_use", "processes", "threads",
	};

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strcmp(name, exact[i]) == 0)
			return 1;
	return strncmp(name, "kmalloc_objects_", 16) == 0;
}

// The figures printed beside a difference to say where it is.
static inline int memstat_detail(const char *name)
{
	return strcmp(name, "pages_user") == 0 || strcmp(name, "pages_file") == 0 ||
	       strcmp(name, "pages_pipe") == 0 || strcmp(name, "pages_pagetable") == 0 ||
	       strcmp(name, "pages_other") == 0 || strcmp(name, "pages_kmalloc_large") == 0 ||
	       strcmp(name, "pages_kstack") == 0;
}

static inline long memstat_get(const struct memstat *m, const char *name)
{
	for (int i = 0; i < m->n; i++)
		if (strcmp(m->name[i], name) == 0)
			return m->value[i];
	return -1;
}

// Parses "name value" lines (or "name=value,..." with sep ','), adding
// to m.  Returns the number of figures read.
static inline int memstat_parse(struct memstat *m, const char *text, char sep, char eq)
{
	const char *p = text;

	while (*p && m->n < MEMSTAT_MAX) {
		const char *end = strchr(p, sep);
		const char *mid = memchr(p, eq, end ? (size_t)(end - p) : strlen(p));
		size_t len = mid ? (size_t)(mid - p) : 0;
		if (mid && len > 0 && len < MEMSTAT_NAME) {
			memcpy(m->name[m->n], p, len);
			m->name[m->n][len] = 0;
			m->value[m->n] = strtol(mid + 1, NULL, 10);
			m->n++;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return m->n;
}

// Reads the file; 0 on success, -1 (errno set) if it cannot be read.  The
// buffer is static so that reading allocates nothing in the caller.
static inline int memstat_read(struct memstat *m)
{
	static char buf[4096];
	size_t len = 0;
	ssize_t r;
	int fd = open(MEMSTAT_PATH, O_RDONLY);

	m->n = 0;
	if (fd < 0)
		return -1;
	while (len < sizeof(buf) - 1 && (r = read(fd, buf + len, sizeof(buf) - 1 - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			return -1;
		}
		len += r;
	}
	close(fd);
	buf[len] = 0;
	memstat_parse(m, buf, '\n', ' ');
	return m->n > 0 ? 0 : (errno = EINVAL, -1);
}

// The checked and detail figures as "name=value,..." (to pass along in
// argv across an exec).
static inline void memstat_encode(const struct memstat *m, char *out, size_t size)
{
	size_t len = 0;

	out[0] = 0;
	for (int i = 0; i < m->n && len < size; i++) {
		if (!memstat_checked(m->name[i]) && !memstat_detail(m->name[i]))
			continue;
		len += snprintf(out + len, size - len, "%s%s=%ld", len ? "," : "", m->name[i],
				m->value[i]);
	}
}

// Compares the checked figures of 'now' with 'base'; writes the ones
// that differ (and, if any, the detail figures) into 'why'.  Returns how
// many checked figures differ.
static inline int memstat_compare(const struct memstat *base, const struct memstat *now, char *why,
			   size_t size)
{
	size_t len = 0;
	int differ = 0;

	why[0] = 0;
	for (int i = 0; i < base->n; i++) {
		long v = memstat_get(now, base->name[i]);
		if (!memstat_checked(base->name[i]) || v == base->value[i])
			continue;
		differ++;
		if (len < size)
			len += snprintf(why + len, size - len, "%s%s %ld -> %ld", len ? ", " : "",
					base->name[i], base->value[i], v);
	}
	for (int i = 0; differ && i < base->n; i++) {
		long v = memstat_get(now, base->name[i]);
		if (memstat_detail(base->name[i]) && v != base->value[i] && len < size)
			len += snprintf(why + len, size - len, " (%s %ld -> %ld)", base->name[i],
					base->value[i], v);
	}
	return differ;
}

// A snapshot taken when the figures hold still: what an earlier step
// freed late (a joined thread's kernel stack goes after pthread_join
// returns, as on Linux) is gone from it.  Reads until two snapshots 20 ms
// apart agree, for at most about two seconds; 0, or -1 if the file
// cannot be read.  'scratch' is any struct memstat.
static inline int memstat_read_quiet(struct memstat *base, struct memstat *scratch)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	char why[8];

	if (memstat_read(base) < 0)
		return -1;
	for (int tries = 0; tries < 100; tries++) {
		nanosleep(&pause, NULL);
		if (memstat_read(scratch) < 0)
			return -1;
		if (memstat_compare(base, scratch, why, sizeof(why)) == 0)
			return 0;
		*base = *scratch;
	}
	return 0;
}

// Takes snapshots into 'now' until it matches 'base' or 'seconds' pass.
// Returns the number of differing figures of the last snapshot (0: the
// memory came back), or -1 if the file cannot be read.
static inline int memstat_settle(const struct memstat *base, struct memstat *now, int seconds,
			  char *why, size_t size)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	int differ = -1;

	for (int tries = 0; tries <= seconds * 20; tries++) {
		if (tries)
			nanosleep(&pause, NULL);
		if (memstat_read(now) < 0)
			return -1;
		differ = memstat_compare(base, now, why, size);
		if (differ == 0)
			break;
	}
	return differ;
}

// Reads one byte of every page of the program's loaded segments (its
// program headers, through AT_PHDR): they need not be contiguous (a
// ppc64le binary aligns them to 64 KiB, leaving a hole between).
static inline void memstat_touch_segments(void)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)getauxval(AT_PHDR);
	unsigned long n = getauxval(AT_PHNUM);

	for (unsigned long i = 0; ph && i < n; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		uintptr_t a = ph[i].p_vaddr & ~(uintptr_t)4095;
		for (; a < ph[i].p_vaddr + ph[i].p_memsz; a += 4096)
			(void)*(volatile char *)a;
	}
}

// Touches 'stack_bytes' of the caller's stack and every page of the
// program's image (code is faulted in on first use too), so that no page
// fault of the program's own shows up between two snapshots.  Call it from
// main, before the first snapshot.
static inline void memstat_touch_image(size_t stack_bytes)
{
	volatile char *area = alloca(stack_bytes);

	for (size_t i = 0; i < stack_bytes; i += 4096)
		area[i] = 0;
	memstat_touch_segments();
}

// With the kmalloc_trace boot option, /proc/switchyard/kmalloc_live lists
// the heap objects allocated since a "mark" and still live, by caller.
#define KMALLOC_LIVE_PATH "/proc/switchyard/kmalloc_live"

// Marks the start of a run; 0, or -1 (no such file: not Switchyard).
static inline int kmalloc_live_mark(void)
{
	int fd = open(KMALLOC_LIVE_PATH, O_WRONLY);
	int rc = fd >= 0 && write(fd, "mark", 4) == 4 ? 0 : -1;

	if (fd >= 0)
		close(fd);
	return rc;
}

// The list, NUL-terminated, in buf; its length, 0 when the kernel keeps
// none (booted without kmalloc_trace: the file reads "off"), -1 without
// the file.
static inline long kmalloc_live_read(char *buf, size_t size)
{
	int fd = open(KMALLOC_LIVE_PATH, O_RDONLY);
	long n = fd >= 0 ? (long)read(fd, buf, size - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return strncmp(buf, "off", 3) == 0 ? 0 : n;
}

#endif
