// Buddy allocator over an array of struct page.  Pure bookkeeping: it
// takes no locks and never touches the frames themselves, so frame.c
// wraps it in a lock and host tests drive it directly.
#ifndef MM_BUDDY_H
#define MM_BUDDY_H

#include <stdbool.h>
#include <stdint.h>

#include <mm/frame.h>

struct buddy {
	struct page *pages;	// one per frame of physical [0, npages * 4K)
	uint64_t npages;
	uint32_t free_head[MAX_ORDER + 1];	// first free block of each order
	uint64_t free_pages;	// frames in free blocks
	uint64_t usable_pages;	// frames ever made free by add_free_range
};

// Covers physical [0, npages * PAGE_SIZE) with every frame reserved.
// npages must stay below 2^32 (16 TiB), as links are 32-bit.
void buddy_init(struct buddy *b, struct page *pages, uint64_t npages);

// Makes the whole frames inside [phys_start, phys_end) free; frames that
// are already free or allocated are left alone.  Coalesces with neighbours.
void buddy_add_free_range(struct buddy *b, uint64_t phys_start, uint64_t phys_end);

// Takes a block of 2^order frames aligned to its size.  Returns false if
// order is too large or no block is free.
bool buddy_alloc(struct buddy *b, unsigned order, uint64_t *phys);

// Returns a block from buddy_alloc.  Returns false, changing nothing, if
// the address and order do not name an allocated block (double free,
// wrong order, middle of a block, reserved frame).
bool buddy_free(struct buddy *b, uint64_t phys, unsigned order);

uint64_t buddy_free_pages(const struct buddy *b);

// Number of free blocks of exactly this order (for tests and statistics).
uint64_t buddy_count_free_blocks(const struct buddy *b, unsigned order);

#endif
