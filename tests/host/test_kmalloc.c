// Host tests of kmalloc (kernel/mm/kmalloc.c).  kmalloc depends only on
// the mm/frame.h API, so this file provides that API itself: a buddy
// allocator (kernel/mm/buddy.c) over a malloc'd arena that plays the
// part of physical memory, seen through host_direct_map_base.

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <kernel/spinlock.h>
#include <mm/buddy.h>
#include <mm/fail_inject.h>
#include <mm/frame.h>
#include <mm/kmalloc.h>
#include <mm/kmalloc_trace.h>
#include <mm/phys.h>

#include "ktap.h"

// 8 MiB of "RAM"; physical address 0 is the arena's first byte.
#define ARENA_PAGES	2048
#define ARENA_BYTES	((uint64_t)ARENA_PAGES * PAGE_SIZE)
#define NOPS		200000
#define MAX_LIVE	4096

uintptr_t host_direct_map_base;

static struct page pages[ARENA_PAGES];
static struct buddy frames;

// Single-threaded tests: the locks only have to exist.
void spin_init(struct spinlock *lock, const char *name)
{
	lock->locked = 0;
	lock->owner_cpu = -1;
	lock->name = name;
}
void spin_lock(struct spinlock *lock) { lock->locked = 1; }
void spin_unlock(struct spinlock *lock) { lock->locked = 0; }
int spin_trylock(struct spinlock *lock) { lock->locked = 1; return 1; }
uint64_t spin_lock_irqsave(struct spinlock *lock) { lock->locked = 1; return 0; }
void spin_unlock_irqrestore(struct spinlock *lock, uint64_t flags)
{
	(void)flags;
	lock->locked = 0;
}
int spin_held(struct spinlock *lock) { return lock->locked != 0; }

// The frame.h API, as frame.c provides it in the kernel.  kmalloc_tagged
// counts the frames of blocks tagged FRAME_KMALLOC.
static int64_t kmalloc_tagged;
static int fatal_reports;
static const char *last_fatal;

void mm_fatal(const char *what, uint64_t addr)
{
	(void)addr;
	fatal_reports++;
	last_fatal = what;
}

uint64_t frame_alloc(unsigned order)
{
	uint64_t pa;

	if (!buddy_alloc(&frames, order, &pa))
		return 0;
	frames.pages[pa / PAGE_SIZE].refcount = 1;
	frames.pages[pa / PAGE_SIZE].use = FRAME_OTHER;
	return pa;
}

uint64_t frame_alloc_zeroed(unsigned order)
{
	uint64_t pa = frame_alloc(order);

	if (pa != 0)
		memset(phys_to_virt(pa), 0, PAGE_SIZE << order);
	return pa;
}

void frame_free(uint64_t pa, unsigned order)
{
	if (pa / PAGE_SIZE < frames.npages && frames.pages[pa / PAGE_SIZE].use == FRAME_KMALLOC) {
		kmalloc_tagged -= 1LL << order;
		frames.pages[pa / PAGE_SIZE].use = FRAME_OTHER;
	}
	if (!buddy_free(&frames, pa, order))
		mm_fatal("frame_free: not an allocated block", pa);
}

// Allocation-failure injection as mm/fail_inject.h provides it in the
// kernel: here the test says which call fails.
static bool inject_next;

bool fail_inject_alloc(void)
{
	bool fail = inject_next;

	inject_next = false;
	return fail;
}

void frame_set_use(uint64_t pa, enum frame_use use)
{
	struct page *p = &frames.pages[pa / PAGE_SIZE];

	if (use == FRAME_KMALLOC)
		kmalloc_tagged += 1LL << p->order;
	p->use = use;
}

struct page *frame_page(uint64_t pa)
{
	if (pa / PAGE_SIZE >= frames.npages)
		return NULL;
	return &frames.pages[pa / PAGE_SIZE];
}

static void arena_init(void)
{
	void *arena = aligned_alloc(PAGE_SIZE, ARENA_BYTES);
	if (arena == NULL)
		abort();
	memset(arena, 0xa5, ARENA_BYTES);
	host_direct_map_base = (uintptr_t)arena;
	buddy_init(&frames, pages, ARENA_PAGES);
	// Frame 0 stays reserved: frame_alloc returns 0 for failure.
	buddy_add_free_range(&frames, PAGE_SIZE, ARENA_BYTES);
}

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static bool no_objects_in_use(void)
{
	struct kmalloc_stats st;

	kmalloc_stats(&st);
	for (int c = 0; c < KMALLOC_NCLASSES; c++)
		if (st.objects[c] != 0)
			return false;
	return st.large_blocks == 0 && st.large_pages == 0;
}

// After freeing everything and trimming, every frame is back.
static bool all_frames_back(uint64_t start_free)
{
	kmalloc_trim();
	return buddy_free_pages(&frames) == start_free && no_objects_in_use();
}

static size_t class_size(size_t size)
{
	size_t s = KMALLOC_MIN_SIZE;

	while (s < size)
		s *= 2;
	return s;
}

static bool test_alignment(void)
{
	uint64_t start = buddy_free_pages(&frames);
	void *p[64];
	size_t sizes[] = { 0, 1, 7, 8, 9, 16, 24, 33, 64, 100, 128, 200, 256,
	    300, 512, 513, 1024, 1500, 2048, 2049, 4096, 4097, 8192, 65536,
	    PAGE_SIZE << MAX_ORDER };
	size_t n = sizeof(sizes) / sizeof(sizes[0]);

	for (size_t i = 0; i < n; i++) {
		p[i] = kmalloc(sizes[i]);
		if (p[i] == NULL)
			return false;
		size_t align = class_size(sizes[i]);
		if (align > PAGE_SIZE)
			align = PAGE_SIZE;
		if ((uintptr_t)p[i] % align != 0)
			return false;
		uint64_t pa = virt_to_phys(p[i]);
		if (pa == 0 || pa >= ARENA_BYTES)
			return false;
		memset(p[i], 0x11, sizes[i]);	// ASan would object if outside
	}
	for (size_t i = 0; i < n; i++)
		kfree(p[i]);
	// Too large to ever succeed.
	if (kmalloc((PAGE_SIZE << MAX_ORDER) + 1) != NULL)
		return false;
	if (kmalloc(SIZE_MAX) != NULL)
		return false;
	kfree(NULL);
	return fatal_reports == 0 && all_frames_back(start);
}

static bool test_kzalloc(void)
{
	uint64_t start = buddy_free_pages(&frames);
	size_t sizes[] = { 8, 40, 2048, 3000, 20000 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		// Dirty a block, free it, and ask again: likely the same memory.
		unsigned char *d = kmalloc(sizes[i]);
		if (d == NULL)
			return false;
		memset(d, 0xff, sizes[i]);
		kfree(d);
		unsigned char *z = kzalloc(sizes[i]);
		if (z == NULL)
			return false;
		for (size_t j = 0; j < sizes[i]; j++)
			if (z[j] != 0)
				return false;
		kfree(z);
	}
	return all_frames_back(start);
}

// Bitmap of 8-byte words of the arena handed out, to catch overlap.
static uint8_t word_owned[ARENA_BYTES / 8 / 8];

static bool claim(void *p, size_t size, bool take)
{
	uint64_t w = virt_to_phys(p) / 8;
	uint64_t end = (virt_to_phys(p) + size + 7) / 8;

	if (size == 0)
		end = w + 1;
	for (; w < end; w++) {
		bool set = word_owned[w / 8] & (1u << (w % 8));
		if (set == take)
			return false;
		word_owned[w / 8] ^= 1u << (w % 8);
	}
	return true;
}

struct live {
	unsigned char *p;
	size_t size;
	unsigned char tag;
};

static size_t random_size(void)
{
	uint64_t r = rng() % 100;
	if (r < 70)
		return 1 + rng() % 256;
	if (r < 90)
		return 257 + rng() % (KMALLOC_MAX_SLAB_SIZE - 256);
	return 1 + rng() % 65536;
}

static bool fill_ok(const struct live *l)
{
	for (size_t i = 0; i < l->size; i++)
		if (l->p[i] != (unsigned char)(l->tag + i))
			return false;
	return true;
}

static bool test_random_ops(void)
{
	static struct live live[MAX_LIVE];
	size_t nlive = 0;
	uint64_t start = buddy_free_pages(&frames);
	uint64_t failures = 0;

	for (int op = 0; op < NOPS; op++) {
		bool do_alloc = nlive == 0 || (nlive < MAX_LIVE && rng() % 100 < 52);
		if (do_alloc) {
			struct live l = { NULL, random_size(), (unsigned char)rng() };
			l.p = kmalloc(l.size);
			if (l.p == NULL) {
				failures++;
				continue;
			}
			size_t align = class_size(l.size);
			if ((uintptr_t)l.p % (align < PAGE_SIZE ? align : PAGE_SIZE))
				return false;
			if (!claim(l.p, l.size, true))
				return false;
			for (size_t i = 0; i < l.size; i++)
				l.p[i] = (unsigned char)(l.tag + i);
			live[nlive++] = l;
		} else {
			size_t i = rng() % nlive;
			if (!fill_ok(&live[i]) || !claim(live[i].p, live[i].size, false))
				return false;
			kfree(live[i].p);
			live[i] = live[--nlive];
		}
	}
	for (size_t i = 0; i < nlive; i++) {
		if (!fill_ok(&live[i]) || !claim(live[i].p, live[i].size, false))
			return false;
		kfree(live[i].p);
	}
	(void)failures;
	return fatal_reports == 0 && all_frames_back(start);
}

static bool test_double_free(void)
{
	uint64_t start = buddy_free_pages(&frames);
	bool ok = true;

	fatal_reports = 0;
	// Keep a neighbour alive so the slab is not released on the free.
	void *keep = kmalloc(32);
	void *p = kmalloc(32);
	kfree(p);
	kfree(p);
	ok &= fatal_reports == 1;

	char *q = kmalloc(64);
	kfree(q + 8);			// not the start of an object
	ok &= fatal_reports == 2;
	kfree(q);
	ok &= fatal_reports == 2;

	void *big = kmalloc(3 * PAGE_SIZE);
	kfree(big);
	kfree(big);			// large block double free
	ok &= fatal_reports == 3;

	void *big2 = kmalloc(2 * PAGE_SIZE);
	kfree((char *)big2 + PAGE_SIZE);	// tail page of a block
	ok &= fatal_reports == 4;
	kfree(big2);
	kfree(keep);

	ok &= fatal_reports == 4 && all_frames_back(start);
	fatal_reports = 0;
	return ok;
}

static bool test_exhaustion(void)
{
	static void *held[ARENA_PAGES * 2];
	size_t n = 0;
	uint64_t start = buddy_free_pages(&frames);

	// Large blocks until the arena is gone, then small ones.
	while (n < ARENA_PAGES && (held[n] = kmalloc(64 * 1024)) != NULL)
		n++;
	if (n == 0 || n == ARENA_PAGES)
		return false;
	while (n < ARENA_PAGES * 2 && (held[n] = kmalloc(2048)) != NULL)
		n++;
	if (n == ARENA_PAGES * 2 || buddy_free_pages(&frames) != 0)
		return false;
	if (kmalloc(8) != NULL || kzalloc(100) != NULL || kmalloc(5000) != NULL)
		return false;
	while (n > 0)
		kfree(held[--n]);
	// And the heap works again.
	void *p = kmalloc(100);
	if (p == NULL)
		return false;
	kfree(p);
	return fatal_reports == 0 && all_frames_back(start);
}

// Objects of one class fill a whole slab, and a full class grows.
static bool test_slab_accounting(void)
{
	static void *p[1024];
	uint64_t start = buddy_free_pages(&frames);
	struct kmalloc_stats st;

	for (int i = 0; i < 1024; i++)
		if ((p[i] = kmalloc(8)) == NULL)
			return false;
	kmalloc_stats(&st);
	if (st.objects[0] != 1024 || st.slab_pages[0] != 2 ||
	    buddy_free_pages(&frames) != start - 2)
		return false;
	for (int i = 0; i < 1024; i++)
		kfree(p[i]);
	kmalloc_stats(&st);
	// One empty slab stays cached until kmalloc_trim.
	if (st.objects[0] != 0 || st.slab_pages[0] != 1)
		return false;
	return all_frames_back(start);
}

// An injected failure makes kmalloc return NULL and change nothing: no
// object counted, no frame taken, and the next call works.
static bool test_injected_failure(void)
{
	uint64_t start = buddy_free_pages(&frames);
	size_t sizes[] = { 8, 100, 2048, 4096, 20000 };
	struct kmalloc_stats before, after;

	kmalloc_trim();
	kmalloc_stats(&before);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		inject_next = true;
		if (kmalloc(sizes[i]) != NULL)
			return false;
		inject_next = true;
		if (kzalloc(sizes[i]) != NULL)
			return false;
	}
	kmalloc_stats(&after);
	if (memcmp(&before, &after, sizeof(before)) != 0 || buddy_free_pages(&frames) != start)
		return false;
	void *p = kmalloc(100);
	if (p == NULL)
		return false;
	kfree(p);
	return all_frames_back(start) && kmalloc_tagged == 0;
}

// Every frame kmalloc holds is tagged as its own, and the empty slabs
// it keeps are counted as such.
static bool test_frame_use(void)
{
	static void *p[600];
	struct kmalloc_stats st;
	uint64_t start = buddy_free_pages(&frames);
	int64_t held;

	for (int i = 0; i < 600; i++)
		if ((p[i] = kmalloc(i % 3 == 0 ? 16 : i % 3 == 1 ? 1000 : 9000)) == NULL)
			return false;
	kmalloc_stats(&st);
	held = (int64_t)st.large_pages;
	for (int c = 0; c < KMALLOC_NCLASSES; c++)
		held += (int64_t)st.slab_pages[c];
	if (held != kmalloc_tagged || (uint64_t)held != start - buddy_free_pages(&frames))
		return false;
	for (int i = 0; i < 600; i++)
		kfree(p[i]);
	kmalloc_stats(&st);
	for (int c = 0; c < KMALLOC_NCLASSES; c++)
		if (st.empty_slabs[c] != st.slab_pages[c] || st.objects[c] != 0)
			return false;
	return all_frames_back(start) && kmalloc_tagged == 0;
}

// kmalloc_trace's hooks, as kernel/mm/kmalloc_trace.c provides them:
// here they keep the last record so the test can see what kmalloc passed.
bool kmalloc_tracing;
static int traced_live;
static void *traced_obj;
static size_t traced_size;
static uintptr_t traced_caller;

void kmalloc_trace_alloc(void *p, size_t size, uintptr_t caller)
{
	traced_live++;
	traced_obj = p;
	traced_size = size;
	traced_caller = caller;
}

void kmalloc_trace_free(void *p)
{
	(void)p;
	traced_live--;
}

// The caller recorded is the code that called kmalloc or kzalloc (here,
// this function), never kmalloc itself; kfree forgets the object; a
// failed allocation records nothing.
static __attribute__((noinline)) bool test_trace_hooks(void)
{
	uintptr_t here = (uintptr_t)&test_trace_hooks;
	bool ok = true;

	kmalloc_tracing = true;
	void *a = kmalloc(40);
	ok &= traced_live == 1 && traced_obj == a && traced_size == 40 &&
	      traced_caller > here && traced_caller < here + 512;
	void *b = kzalloc(3000);
	ok &= traced_live == 2 && traced_obj == b && traced_size == 3000 &&
	      traced_caller > here && traced_caller < here + 512;
	kfree(a);
	kfree(b);
	ok &= traced_live == 0;
	void *c = kmalloc((size_t)1 << 40);
	ok &= c == NULL && traced_live == 0;
	kmalloc_tracing = false;
	return ok;
}

int main(void)
{
	arena_init();
	ktap_plan(9);
	ktap_ok(test_alignment(), "kmalloc_alignment_and_sizes");
	ktap_ok(test_kzalloc(), "kzalloc_zeroes");
	ktap_ok(test_slab_accounting(), "kmalloc_slab_accounting");
	ktap_ok(test_random_ops(), "kmalloc_random_ops");
	ktap_ok(test_double_free(), "kmalloc_bad_free_detected");
	ktap_ok(test_exhaustion(), "kmalloc_exhaustion");
	ktap_ok(test_injected_failure(), "kmalloc_injected_failure_changes_nothing");
	ktap_ok(test_frame_use(), "kmalloc_frames_tagged_and_empty_slabs_counted");
	ktap_ok(test_trace_hooks(), "kmalloc_trace_sees_the_caller");
	free((void *)host_direct_map_base);
	return ktap_exit();
}
