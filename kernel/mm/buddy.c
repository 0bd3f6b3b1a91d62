// Buddy allocator.  A free block of 2^k frames starting at frame i is
// described by its head page i (PAGE_FREE, order k) and sits on free list
// k.  Its buddy starts at frame i ^ 2^k; when both are free they merge into
// one block of order k + 1.  Since physical frame numbers double as page
// indices, blocks are aligned in physical memory to their own size.

#include <mm/buddy.h>
#include <mm/phys.h>

static void list_push(struct buddy *b, uint32_t idx, unsigned order)
{
	struct page *p = &b->pages[idx];
	uint32_t head = b->free_head[order];

	p->flags = PAGE_FREE;
	p->order = order;
	p->prev = PAGE_NIL;
	p->next = head;
	if (head != PAGE_NIL)
		b->pages[head].prev = idx;
	b->free_head[order] = idx;
}

static void list_remove(struct buddy *b, uint32_t idx, unsigned order)
{
	struct page *p = &b->pages[idx];

	if (p->prev != PAGE_NIL)
		b->pages[p->prev].next = p->next;
	else
		b->free_head[order] = p->next;
	if (p->next != PAGE_NIL)
		b->pages[p->next].prev = p->prev;
	p->flags = 0;
	p->next = p->prev = PAGE_NIL;
}

void buddy_init(struct buddy *b, struct page *pages, uint64_t npages)
{
	b->pages = pages;
	b->npages = npages;
	b->free_pages = 0;
	b->usable_pages = 0;
	for (unsigned k = 0; k <= MAX_ORDER; k++)
		b->free_head[k] = PAGE_NIL;
	for (uint64_t i = 0; i < npages; i++) {
		struct page *p = &pages[i];
		p->next = p->prev = PAGE_NIL;
		p->flags = PAGE_RESERVED;
		p->order = 0;
		p->use = 0;
		p->refcount = 0;
		p->u.raw[0] = p->u.raw[1] = 0;
	}
}

// Puts a block (its pages carrying no buddy flag) on the free lists,
// merging it with its buddy for as long as the buddy is free and whole.
static void free_block(struct buddy *b, uint64_t idx, unsigned order)
{
	b->free_pages += 1ULL << order;
	while (order < MAX_ORDER) {
		uint64_t buddy = idx ^ (1ULL << order);
		if (buddy + (1ULL << order) > b->npages)
			break;
		struct page *bp = &b->pages[buddy];
		if (!(bp->flags & PAGE_FREE) || bp->order != order)
			break;
		list_remove(b, buddy, order);
		if (buddy < idx)
			idx = buddy;
		order++;
	}
	list_push(b, idx, order);
}

static bool all_reserved(const struct buddy *b, uint64_t idx, uint64_t count)
{
	for (uint64_t i = idx; i < idx + count; i++)
		if (!(b->pages[i].flags & PAGE_RESERVED))
			return false;
	return true;
}

void buddy_add_free_range(struct buddy *b, uint64_t phys_start, uint64_t phys_end)
{
	uint64_t idx = (phys_start + PAGE_SIZE - 1) / PAGE_SIZE;
	uint64_t end = phys_end / PAGE_SIZE;

	if (end > b->npages)
		end = b->npages;
	// Free the range as the largest aligned blocks that fit rather than
	// page by page: the same result, without a merge cascade per frame.
	while (idx < end) {
		if (!(b->pages[idx].flags & PAGE_RESERVED)) {
			idx++;
			continue;
		}
		unsigned order = 0;
		while (order < MAX_ORDER &&
		    (idx & ((2ULL << order) - 1)) == 0 &&
		    idx + (2ULL << order) <= end)
			order++;
		while (order > 0 && !all_reserved(b, idx, 1ULL << order))
			order--;
		for (uint64_t i = idx; i < idx + (1ULL << order); i++)
			b->pages[i].flags = 0;
		b->usable_pages += 1ULL << order;
		free_block(b, idx, order);
		idx += 1ULL << order;
	}
}

bool buddy_alloc(struct buddy *b, unsigned order, uint64_t *phys)
{
	unsigned k = order;

	if (order > MAX_ORDER)
		return false;
	while (k <= MAX_ORDER && b->free_head[k] == PAGE_NIL)
		k++;
	if (k > MAX_ORDER)
		return false;

	uint32_t idx = b->free_head[k];
	list_remove(b, idx, k);
	// Split off upper halves until the block is the size asked for.
	while (k > order) {
		k--;
		list_push(b, idx + (1U << k), k);
	}
	struct page *p = &b->pages[idx];
	p->flags = PAGE_ALLOCATED;
	p->order = order;
	b->free_pages -= 1ULL << order;
	*phys = (uint64_t)idx * PAGE_SIZE;
	return true;
}

bool buddy_free(struct buddy *b, uint64_t phys, unsigned order)
{
	if (order > MAX_ORDER || phys % (PAGE_SIZE << order) != 0)
		return false;
	uint64_t idx = phys / PAGE_SIZE;
	if (idx + (1ULL << order) > b->npages)
		return false;
	struct page *p = &b->pages[idx];
	if (!(p->flags & PAGE_ALLOCATED) || p->order != order)
		return false;

	p->flags = 0;
	p->refcount = 0;
	p->u.raw[0] = p->u.raw[1] = 0;
	free_block(b, idx, order);
	return true;
}

uint64_t buddy_free_pages(const struct buddy *b)
{
	return b->free_pages;
}

uint64_t buddy_count_free_blocks(const struct buddy *b, unsigned order)
{
	uint64_t n = 0;

	if (order > MAX_ORDER)
		return 0;
	for (uint32_t i = b->free_head[order]; i != PAGE_NIL; i = b->pages[i].next)
		n++;
	return n;
}
