// Kernel heap.  Requests up to 2048 bytes come from single-page slabs of
// one power-of-two size class (8 .. 2048), so every object is aligned to
// its class size; larger requests take a whole block of 2^k frames.
// Nothing here panics on exhaustion: kmalloc returns NULL.
#ifndef MM_KMALLOC_H
#define MM_KMALLOC_H

#include <stddef.h>
#include <stdint.h>

#define KMALLOC_MIN_SIZE	8
#define KMALLOC_MAX_SLAB_SIZE	2048
#define KMALLOC_NCLASSES	9	// 8, 16, 32, ..., 2048

void *kmalloc(size_t size);
void *kzalloc(size_t size);
void kfree(void *p);

// Gives every slab page that holds no objects back to the frame allocator.
// (kfree keeps one empty slab per class so that an alloc/free pair does
// not cost a frame allocation each time.)
void kmalloc_trim(void);

struct kmalloc_stats {
	uint64_t class_size[KMALLOC_NCLASSES];
	uint64_t objects[KMALLOC_NCLASSES];	// objects in use per class
	uint64_t slab_pages[KMALLOC_NCLASSES];	// pages held per class
	uint64_t empty_slabs[KMALLOC_NCLASSES];	// of which hold no object
	uint64_t large_blocks;			// multi-page blocks in use
	uint64_t large_pages;			// frames in those blocks
};

void kmalloc_stats(struct kmalloc_stats *out);

#endif
