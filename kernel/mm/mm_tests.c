// In-kernel stress tests of the frame allocator and kmalloc, on real RAM
// through the direct map.  Every block is stamped with a pattern that
// names it and checked before it is freed, so two blocks sharing memory
// show up as a corrupted stamp; every test ends by checking that the
// free frame count is back where it started, so leaks show up too.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <kernel/ktest.h>
#include <lib/string.h>
#include <mm/frame.h>
#include <mm/kmalloc.h>
#include <mm/oom.h>
#include <mm/phys.h>

static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
	rng_state = seed ? seed : 1;
}

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t free_frames(void)
{
	uint64_t total, free;

	frame_stats(&total, &free);
	return free;
}

// ---- frames ----

#define FRAME_LIVE	512
#define FRAME_OPS	20000

struct frame_block {
	uint64_t pa;
	unsigned order;
};

// The word stamped at the start of every page of a block.
static uint64_t frame_stamp(uint64_t pa, uint64_t page)
{
	return (pa + page * PAGE_SIZE) ^ 0x5717c4a1d0000000ULL;
}

static void stamp_block(const struct frame_block *blk)
{
	for (uint64_t i = 0; i < (1ULL << blk->order); i++) {
		uint64_t *w = phys_to_virt(blk->pa + i * PAGE_SIZE);
		*w = frame_stamp(blk->pa, i);
	}
}

static bool stamp_intact(const struct frame_block *blk)
{
	for (uint64_t i = 0; i < (1ULL << blk->order); i++) {
		uint64_t *w = phys_to_virt(blk->pa + i * PAGE_SIZE);
		if (*w != frame_stamp(blk->pa, i))
			return false;
	}
	return true;
}

static unsigned random_frame_order(void)
{
	uint64_t r = rng() % 100;
	if (r < 70)
		return 0;
	if (r < 95)
		return 1 + rng() % 4;
	return 5 + rng() % (MAX_ORDER - 4);
}

KTEST(mm, frame_stress)
{
	static struct frame_block live[FRAME_LIVE];
	size_t nlive = 0;
	uint64_t start = free_frames();

	rng_seed(0x243f6a8885a308d3ULL);
	for (int op = 0; op < FRAME_OPS; op++) {
		bool do_alloc = nlive == 0 ||
		    (nlive < FRAME_LIVE && rng() % 100 < 55);
		if (do_alloc) {
			struct frame_block blk = { 0, random_frame_order() };
			blk.pa = frame_alloc(blk.order);
			if (blk.pa == 0)
				continue;	// a big block may not be free
			KEXPECT(blk.pa % (PAGE_SIZE << blk.order) == 0);
			KEXPECT(frame_page(blk.pa)->refcount == 1);
			stamp_block(&blk);
			live[nlive++] = blk;
		} else {
			size_t i = rng() % nlive;
			KEXPECT(stamp_intact(&live[i]));
			frame_free(live[i].pa, live[i].order);
			live[i] = live[--nlive];
		}
	}
	while (nlive > 0) {
		nlive--;
		KEXPECT(stamp_intact(&live[nlive]));
		frame_free(live[nlive].pa, live[nlive].order);
	}
	KEXPECT(free_frames() == start);
	return true;
}

// Takes every free frame, chaining them through their first word, then
// gives them all back.  Exhaustion must be reported as 0, never a panic.
KTEST(mm, frame_exhaustion)
{
	uint64_t start = free_frames();
	uint64_t head = 0, count = 0, pa;

	while ((pa = frame_alloc(0)) != 0) {
		KEXPECT(pa % PAGE_SIZE == 0);
		*(uint64_t *)phys_to_virt(pa) = head;
		head = pa;
		count++;
	}
	KEXPECT(free_frames() == 0);
	KEXPECT(frame_alloc(0) == 0);
	KEXPECT(page_alloc(MAX_ORDER) == NULL);
	KEXPECT(count == start);
	while (head != 0) {
		uint64_t next = *(uint64_t *)phys_to_virt(head);
		frame_free(head, 0);
		head = next;
	}
	KEXPECT(free_frames() == start);
	// Single frames must have merged back into big blocks.
	void *big = page_alloc(MAX_ORDER);
	KEXPECT(big != NULL);
	page_free(big, MAX_ORDER);
	KEXPECT(free_frames() == start);
	return true;
}

KTEST(mm, frame_zeroed_and_refcount)
{
	uint64_t start = free_frames();

	uint64_t pa = frame_alloc(2);
	KEXPECT(pa != 0);
	memset(phys_to_virt(pa), 0xee, 4 * PAGE_SIZE);
	frame_free(pa, 2);
	pa = frame_alloc_zeroed(2);
	KEXPECT(pa != 0);
	const uint64_t *w = phys_to_virt(pa);
	for (size_t i = 0; i < 4 * PAGE_SIZE / 8; i++)
		KEXPECT(w[i] == 0);
	frame_free(pa, 2);

	// A shared frame is freed only when its last reference goes.
	pa = frame_alloc(0);
	KEXPECT(pa != 0);
	frame_ref(pa);
	KEXPECT(frame_page(pa)->refcount == 2);
	frame_unref(pa);
	KEXPECT(free_frames() == start - 1);
	frame_unref(pa);
	KEXPECT(free_frames() == start);
	return true;
}

// ---- kmalloc ----

#define KM_LIVE		256
#define KM_OPS		20000
#define KM_MAX_SIZE	(64 * 1024)

struct km_block {
	unsigned char *p;
	size_t size;
	unsigned char tag;
};

static size_t random_km_size(void)
{
	uint64_t r = rng() % 100;
	if (r < 70)
		return 8 + rng() % 249;			// 8 .. 256
	if (r < 90)
		return 257 + rng() % (KMALLOC_MAX_SLAB_SIZE - 256);
	return 8 + rng() % (KM_MAX_SIZE - 7);		// 8 .. 64 KiB
}

static void km_fill(const struct km_block *b)
{
	for (size_t i = 0; i < b->size; i++)
		b->p[i] = (unsigned char)(b->tag + i * 7);
}

static bool km_intact(const struct km_block *b)
{
	for (size_t i = 0; i < b->size; i++)
		if (b->p[i] != (unsigned char)(b->tag + i * 7))
			return false;
	return true;
}

static size_t natural_alignment(size_t size)
{
	size_t a = KMALLOC_MIN_SIZE;

	while (a < size && a < PAGE_SIZE)
		a *= 2;
	return a;
}

static uint64_t objects_in_use(void)
{
	struct kmalloc_stats st;
	uint64_t n = 0;

	kmalloc_stats(&st);
	for (int c = 0; c < KMALLOC_NCLASSES; c++)
		n += st.objects[c];
	return n + st.large_blocks;
}

KTEST(mm, kmalloc_stress)
{
	static struct km_block live[KM_LIVE];
	size_t nlive = 0;

	kmalloc_trim();
	uint64_t start = free_frames();
	uint64_t start_objects = objects_in_use();
	rng_seed(0x13198a2e03707344ULL);
	for (int op = 0; op < KM_OPS; op++) {
		bool do_alloc = nlive == 0 ||
		    (nlive < KM_LIVE && rng() % 100 < 55);
		if (do_alloc) {
			struct km_block b = { NULL, random_km_size(),
			    (unsigned char)rng() };
			b.p = kmalloc(b.size);
			KEXPECT(b.p != NULL);
			KEXPECT((uintptr_t)b.p % natural_alignment(b.size) == 0);
			km_fill(&b);
			live[nlive++] = b;
		} else {
			size_t i = rng() % nlive;
			KEXPECT(km_intact(&live[i]));
			kfree(live[i].p);
			live[i] = live[--nlive];
		}
	}
	while (nlive > 0) {
		nlive--;
		KEXPECT(km_intact(&live[nlive]));
		kfree(live[nlive].p);
	}
	KEXPECT(objects_in_use() == start_objects);
	kmalloc_trim();
	KEXPECT(free_frames() == start);
	return true;
}

KTEST(mm, kmalloc_sizes)
{
	kmalloc_trim();
	uint64_t start = free_frames();

	for (size_t size = KMALLOC_MIN_SIZE; size <= 8 * PAGE_SIZE; size *= 2) {
		unsigned char *a = kmalloc(size);
		unsigned char *z = kzalloc(size);
		KEXPECT(a != NULL && z != NULL && a != z);
		KEXPECT((uintptr_t)a % natural_alignment(size) == 0);
		KEXPECT((uintptr_t)z % natural_alignment(size) == 0);
		for (size_t i = 0; i < size; i++)
			KEXPECT(z[i] == 0);
		memset(a, 0x5a, size);
		kfree(a);
		kfree(z);
	}
	KEXPECT(kmalloc((PAGE_SIZE << MAX_ORDER) + 1) == NULL);
	kfree(NULL);
	kmalloc_trim();
	KEXPECT(free_frames() == start);
	return true;
}

// The last OOM victim holds back the choice of another while its threads
// end (for a grace period) and, however long it takes, while its address
// space is torn down: a slow teardown on a loaded machine once let the
// victim's parent be chosen and killed for memory that was coming back.
KTEST(oom, victim_holds_choice_while_torn_down)
{
	struct mm *fake = (struct mm *)0x1000;	// never dereferenced
	uint64_t now = 100ULL * 1000000000ULL;
	struct oom_victim none = { 0, 0, false };
	struct oom_victim fresh = { fake, now - 1000, false };
	struct oom_victim stuck = { fake, now - 60ULL * 1000000000ULL, false };
	struct oom_victim slow_teardown = { fake, now - 60ULL * 1000000000ULL, true };

	KEXPECT(!oom_victim_holds(&none, now));
	KEXPECT(oom_victim_holds(&fresh, now));
	KEXPECT(!oom_victim_holds(&stuck, now));
	KEXPECT(oom_victim_holds(&slow_teardown, now));
	return true;
}

// A CPU that read the clock before another chose the victim compares a
// time earlier than the choice: the victim is fresh, not ancient.  With
// four threads of a hog faulting at once on four CPUs, the wrap-around
// let a second victim be chosen at once: the test program itself.
KTEST(oom, victim_chosen_after_the_clock_read_holds)
{
	struct mm *fake = (struct mm *)0x1000;	// never dereferenced
	uint64_t now = 100ULL * 1000000000ULL;
	struct oom_victim later = { fake, now + 5000, false };

	KEXPECT(oom_victim_holds(&later, now));
	return true;
}
