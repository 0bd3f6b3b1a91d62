// Host tests of the buddy allocator (kernel/mm/buddy.c): it is pure
// bookkeeping over a struct page array, so no memory stands behind the
// "physical" addresses here.

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mm/buddy.h>
#include <mm/phys.h>

#include "ktap.h"

uintptr_t host_direct_map_base;

// 5000 frames: not a multiple of the largest block, to exercise the edge.
#define NPAGES	5000
#define NOPS	200000

static struct page pages[NPAGES];
static struct buddy b;
static uint8_t owned[NPAGES];	// frame handed out by the test's view
static uint8_t usable[NPAGES];	// frame was given to add_free_range

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

// RAM with holes: frame 0 and [3000, 3100) are not usable.
static void setup(void)
{
	buddy_init(&b, pages, NPAGES);
	memset(owned, 0, sizeof(owned));
	memset(usable, 0, sizeof(usable));
	buddy_add_free_range(&b, 1 * PAGE_SIZE, 3000 * PAGE_SIZE);
	buddy_add_free_range(&b, 3100 * PAGE_SIZE, NPAGES * PAGE_SIZE);
	for (int i = 1; i < NPAGES; i++)
		usable[i] = i < 3000 || i >= 3100;
}

static bool test_init_counts(void)
{
	setup();
	uint64_t blocks = 0;
	for (unsigned k = 0; k <= MAX_ORDER; k++)
		blocks += buddy_count_free_blocks(&b, k) << k;
	return buddy_free_pages(&b) == 2999 + 1900 && blocks == 2999 + 1900 &&
	    b.usable_pages == 2999 + 1900;
}

// Ranges that are not page-aligned lose their partial frames, and adding
// a range twice changes nothing.
static bool test_unaligned_range(void)
{
	buddy_init(&b, pages, NPAGES);
	buddy_add_free_range(&b, 10 * PAGE_SIZE + 1, 20 * PAGE_SIZE - 1);
	if (buddy_free_pages(&b) != 8)	// frames 11..18
		return false;
	buddy_add_free_range(&b, 10 * PAGE_SIZE, 20 * PAGE_SIZE);
	if (buddy_free_pages(&b) != 10)
		return false;
	buddy_add_free_range(&b, 0, 20 * PAGE_SIZE);
	return buddy_free_pages(&b) == 20 && buddy_count_free_blocks(&b, 4) == 1 &&
	    buddy_count_free_blocks(&b, 2) == 1;
}

// Freeing frames one at a time, in random order, must still build the
// largest blocks.
static bool test_coalesce_to_max(void)
{
	static uint32_t order_of_add[4096];

	buddy_init(&b, pages, 4096);
	for (uint32_t i = 0; i < 4096; i++)
		order_of_add[i] = i;
	for (uint32_t i = 4095; i > 0; i--) {
		uint32_t j = rng() % (i + 1);
		uint32_t t = order_of_add[i];
		order_of_add[i] = order_of_add[j];
		order_of_add[j] = t;
	}
	for (uint32_t i = 0; i < 4096; i++)
		buddy_add_free_range(&b, (uint64_t)order_of_add[i] * PAGE_SIZE,
		    ((uint64_t)order_of_add[i] + 1) * PAGE_SIZE);
	if (buddy_count_free_blocks(&b, MAX_ORDER) != 4)
		return false;
	for (unsigned k = 0; k < MAX_ORDER; k++)
		if (buddy_count_free_blocks(&b, k) != 0)
			return false;

	// Split everything into single frames and give them back.
	uint64_t pa[4096];
	for (int i = 0; i < 4096; i++)
		if (!buddy_alloc(&b, 0, &pa[i]))
			return false;
	for (int i = 4095; i > 0; i--) {
		int j = rng() % (i + 1);
		uint64_t t = pa[i];
		pa[i] = pa[j];
		pa[j] = t;
	}
	for (int i = 0; i < 4096; i++)
		if (!buddy_free(&b, pa[i], 0))
			return false;
	return buddy_count_free_blocks(&b, MAX_ORDER) == 4 &&
	    buddy_free_pages(&b) == 4096;
}

struct block {
	uint64_t pa;
	unsigned order;
};

// Marks or clears a block in the test's own map; false on overlap or if
// the block covers a frame that was never usable.
static bool track(uint64_t pa, unsigned order, bool take)
{
	uint64_t idx = pa / PAGE_SIZE;

	for (uint64_t i = idx; i < idx + (1ULL << order); i++) {
		if (i >= NPAGES || !usable[i] || owned[i] == take)
			return false;
		owned[i] = take;
	}
	return true;
}

static unsigned random_order(void)
{
	// Mostly small blocks, like a kernel's real load.
	uint64_t r = rng() % 100;
	if (r < 60)
		return 0;
	if (r < 80)
		return 1 + rng() % 2;
	if (r < 97)
		return 3 + rng() % 4;
	return 7 + rng() % (MAX_ORDER - 6);
}

static bool test_random_ops(void)
{
	static struct block live[NPAGES];
	size_t nlive = 0;
	uint64_t failures = 0;

	setup();
	uint64_t start_free = buddy_free_pages(&b);
	uint64_t start_max = buddy_count_free_blocks(&b, MAX_ORDER);
	for (int op = 0; op < NOPS; op++) {
		bool do_alloc = nlive == 0 || rng() % 100 < 55;
		if (do_alloc && nlive < NPAGES) {
			struct block blk = { 0, random_order() };
			if (!buddy_alloc(&b, blk.order, &blk.pa)) {
				failures++;
				continue;
			}
			if (blk.pa % (PAGE_SIZE << blk.order) != 0)
				return false;
			if (!track(blk.pa, blk.order, true))
				return false;
			live[nlive++] = blk;
		} else {
			size_t i = rng() % nlive;
			if (!track(live[i].pa, live[i].order, false))
				return false;
			if (!buddy_free(&b, live[i].pa, live[i].order))
				return false;
			live[i] = live[--nlive];
		}
		// The counter must match what the test thinks is out.
		if (op % 1000 == 0) {
			uint64_t out = 0;
			for (size_t j = 0; j < nlive; j++)
				out += 1ULL << live[j].order;
			if (out + buddy_free_pages(&b) != start_free)
				return false;
		}
	}
	while (nlive > 0) {
		nlive--;
		if (!buddy_free(&b, live[nlive].pa, live[nlive].order))
			return false;
	}
	// Some allocations must have failed (the load overcommits), and
	// everything must be back and merged as it was at the start.
	return failures > 0 && buddy_free_pages(&b) == start_free &&
	    buddy_count_free_blocks(&b, MAX_ORDER) == start_max;
}

static bool test_double_free(void)
{
	uint64_t pa, pa2;

	setup();
	uint64_t start = buddy_free_pages(&b);
	if (!buddy_alloc(&b, 2, &pa) || !buddy_alloc(&b, 0, &pa2))
		return false;
	uint64_t before = buddy_free_pages(&b);
	bool detected =
	    !buddy_free(&b, pa, 1) &&			// wrong order
	    !buddy_free(&b, pa + PAGE_SIZE, 0) &&	// middle of a block
	    !buddy_free(&b, pa + 1, 2) &&		// misaligned
	    !buddy_free(&b, 0, 0) &&			// reserved frame 0
	    !buddy_free(&b, 3050 * PAGE_SIZE, 0) &&	// hole
	    !buddy_free(&b, (uint64_t)NPAGES * PAGE_SIZE, 0) &&	// beyond RAM
	    !buddy_free(&b, 0, MAX_ORDER + 1);		// no such order
	if (!detected || buddy_free_pages(&b) != before)
		return false;
	if (!buddy_free(&b, pa, 2) || buddy_free(&b, pa, 2))
		return false;
	// A frame inside a free block is not allocated either.
	if (buddy_free(&b, pa + PAGE_SIZE, 0))
		return false;
	if (!buddy_free(&b, pa2, 0) || buddy_free(&b, pa2, 0))
		return false;
	return buddy_free_pages(&b) == start;
}

static bool test_exhaustion(void)
{
	static uint64_t pa[NPAGES];
	uint64_t n = 0, x;

	setup();
	uint64_t start = buddy_free_pages(&b);
	if (buddy_alloc(&b, MAX_ORDER + 1, &x))
		return false;
	while (buddy_alloc(&b, 0, &pa[n]))
		n++;
	if (n != start || buddy_free_pages(&b) != 0 || buddy_alloc(&b, 0, &x))
		return false;
	for (uint64_t i = 0; i < n; i++)
		if (!track(pa[i], 0, true))
			return false;

	// Free every other frame: lots of free memory, but no pair to merge.
	for (uint64_t i = 0; i < n; i++) {
		if ((pa[i] / PAGE_SIZE) % 2 == 0) {
			track(pa[i], 0, false);
			if (!buddy_free(&b, pa[i], 0))
				return false;
		}
	}
	if (buddy_alloc(&b, 1, &x) || !buddy_alloc(&b, 0, &x) ||
	    !buddy_free(&b, x, 0))
		return false;
	for (uint64_t i = 0; i < n; i++)
		if ((pa[i] / PAGE_SIZE) % 2 == 1 && !buddy_free(&b, pa[i], 0))
			return false;
	return buddy_free_pages(&b) == start && buddy_alloc(&b, MAX_ORDER, &x);
}

int main(void)
{
	ktap_plan(7);
	ktap_ok(test_init_counts(), "buddy_init_counts");
	ktap_ok(test_unaligned_range(), "buddy_unaligned_range");
	ktap_ok(test_coalesce_to_max(), "buddy_coalesce_to_max");
	ktap_ok(test_random_ops(), "buddy_random_ops");
	ktap_ok(test_double_free(), "buddy_double_free_detected");
	ktap_ok(test_exhaustion(), "buddy_exhaustion");
	ktap_ok(sizeof(struct page) <= 32, "struct_page_size");
	return ktap_exit();
}
