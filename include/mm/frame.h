// Physical frames: one struct page per 4 KiB frame of physical memory,
// handed out in power-of-two blocks by the buddy allocator (mm/buddy.h)
// under one global lock.  Frames are named by physical address; the
// direct map (mm/phys.h) turns them into pointers.
#ifndef MM_FRAME_H
#define MM_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Largest block order: 2^10 pages = 4 MiB.
#define MAX_ORDER	10

// page.next / page.prev value meaning "no page".
#define PAGE_NIL	UINT32_MAX

// page.flags.  The buddy allocator owns FREE, ALLOCATED and RESERVED and
// keeps exactly one of them on the head page of every block (the other
// pages of a block carry no buddy flag).  SLAB and KMALLOC_LARGE are set
// by kmalloc on the head of a block it owns; freeing the block clears them.
#define PAGE_FREE		0x0001	// head of a free block of 2^order pages
#define PAGE_ALLOCATED		0x0002	// head of an allocated block of 2^order
#define PAGE_RESERVED		0x0004	// never handed out (not RAM, kernel, ...)
#define PAGE_SLAB		0x0010	// page holds kmalloc objects of one size
#define PAGE_KMALLOC_LARGE	0x0020	// head of a multi-page kmalloc block

// Kept at 32 bytes so the array costs under 1% of RAM.
struct page {
	// Links in a doubly linked list, as page frame numbers (pa >> 12):
	// the buddy free list while free, kmalloc's partial-slab list while
	// a slab.
	uint32_t next;
	uint32_t prev;
	uint16_t flags;
	uint8_t order;		// block order, valid on the head page
	uint8_t use;		// enum frame_use, valid on an allocated head
	uint32_t refcount;	// users of an allocated block (1 after alloc)
	union {
		struct {
			void *freelist;		// first free object, or NULL
			uint16_t free_objects;	// objects on the freelist
			uint8_t size_class;	// index into kmalloc's classes
		} slab;
		uint64_t raw[2];
	} u;
};

_Static_assert(sizeof(struct page) <= 32, "struct page must stay small");

// A range of usable RAM, [start, end) in physical addresses.
struct mem_range {
	uint64_t start;
	uint64_t end;
};

// Takes over all usable RAM at and above reserve_end (which covers the
// kernel image and early boot allocations); page 0 is never handed out.
// The caller must already map all of RAM through the direct map.
void frame_init(const struct mem_range *ranges, size_t n, uint64_t reserve_end);

// Allocates 2^order contiguous frames aligned to their size; returns the
// physical address, or 0 when no such block is free.  Contents are
// garbage unless zeroed is asked for.  The block starts with refcount 1.
uint64_t frame_alloc(unsigned order);
uint64_t frame_alloc_zeroed(unsigned order);

// Returns a block from frame_alloc.  Freeing a block that is not
// allocated, or with the wrong order, is a kernel bug and panics.
void frame_free(uint64_t pa, unsigned order);

// The descriptor of the frame holding physical address pa.
struct page *frame_page(uint64_t pa);

// Reference counting for frames shared between address spaces (copy on
// write): frame_unref frees the block when the last user lets go.
void frame_ref(uint64_t pa);
void frame_unref(uint64_t pa);

// The same allocator seen through the direct map.
void *page_alloc(unsigned order);
void page_free(void *va, unsigned order);

// Frames managed (usable RAM) and frames free right now.
void frame_stats(uint64_t *total_pages, uint64_t *free_pages);
// Frames free right now, read without the lock (for policy checks on hot
// paths, where a slightly stale count is fine).
uint64_t frame_free_estimate(void);

// What an allocated block is used for, counted for /proc/meminfo and
// the leak checks (see docs/testing.md).  frame_alloc counts a block as
// FRAME_OTHER; its user names the use right after allocating it.
enum frame_use {
	FRAME_OTHER,		// boot-time allocations, anything not named
	FRAME_KMALLOC,		// kmalloc slabs and large blocks
	FRAME_KSTACK,		// kernel stacks (in use or cached for reuse)
	FRAME_PAGETABLE,	// page tables of user address spaces
	FRAME_KPAGETABLE,	// kernel page tables (never freed)
	FRAME_FILE,		// file data of the in-memory file tree
	FRAME_PIPE,		// pipe buffers
	FRAME_USER,		// pages of user memory
	FRAME_USE_COUNT
};

void frame_set_use(uint64_t pa, enum frame_use use);

// Pages allocated for each use right now (FRAME_USE_COUNT entries).
void frame_use_stats(uint64_t *pages);

// Reports memory-allocator corruption (double free, bad pointer).  The
// kernel panics; host tests record the report and carry on, so callers
// must return safely after calling it.
void mm_fatal(const char *what, uint64_t addr);

#endif
