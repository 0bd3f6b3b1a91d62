// The kernel's physical frame allocator: one buddy allocator for all RAM
// behind one spinlock (taken with interrupts off, as frames may be freed
// from interrupt context), plus per-frame reference counts for frames
// shared between address spaces.

#include <stdbool.h>

#include <kernel/panic.h>
#include <kernel/spinlock.h>
#include <lib/string.h>
#include <mm/buddy.h>
#include <mm/fail_inject.h>
#include <mm/frame.h>
#include <mm/phys.h>

static struct spinlock frame_lock = SPINLOCK_INIT("frame");
static struct buddy frames;

// Pages allocated per enum frame_use; atomics, updated outside the lock.
static uint64_t use_pages[FRAME_USE_COUNT];

static void count_use(unsigned use, int64_t pages)
{
	if (use < FRAME_USE_COUNT)
		__atomic_add_fetch(&use_pages[use], (uint64_t)pages, __ATOMIC_RELAXED);
}

static uint64_t round_up(uint64_t x, uint64_t align)
{
	return (x + align - 1) / align * align;
}

static uint64_t round_down(uint64_t x, uint64_t align)
{
	return x / align * align;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

// Finds room for 'bytes' of page array in usable RAM at or above 'floor'.
// Returns 0 if no range is large enough.
static uint64_t place_page_array(const struct mem_range *ranges, size_t n,
    uint64_t floor, uint64_t bytes)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t start = round_up(max_u64(ranges[i].start, floor), PAGE_SIZE);
		uint64_t end = round_down(ranges[i].end, PAGE_SIZE);
		if (start < end && end - start >= bytes)
			return start;
	}
	return 0;
}

void frame_init(const struct mem_range *ranges, size_t n, uint64_t reserve_end)
{
	uint64_t top = 0;
	for (size_t i = 0; i < n; i++)
		top = max_u64(top, round_down(ranges[i].end, PAGE_SIZE));
	uint64_t npages = top / PAGE_SIZE;
	if (npages == 0 || npages >= PAGE_NIL)
		panic("frame_init: unusable memory map (top of RAM %#lx)",
		    (unsigned long)top);

	// The descriptors cover every frame up to the top of RAM, holes
	// included, so that frame_page is a plain index.
	uint64_t array_bytes = round_up(npages * sizeof(struct page), PAGE_SIZE);
	uint64_t floor = max_u64(round_up(reserve_end, PAGE_SIZE), PAGE_SIZE);
	uint64_t array_pa = place_page_array(ranges, n, floor, array_bytes);
	if (array_pa == 0)
		panic("frame_init: no room for %lu bytes of struct page",
		    (unsigned long)array_bytes);

	buddy_init(&frames, phys_to_virt(array_pa), npages);
	uint64_t array_end = array_pa + array_bytes;
	for (size_t i = 0; i < n; i++) {
		uint64_t start = max_u64(ranges[i].start, floor);
		uint64_t end = ranges[i].end;
		// Cut the page array out of the range.
		if (start < array_pa)
			buddy_add_free_range(&frames, start,
			    end < array_pa ? end : array_pa);
		if (end > array_end)
			buddy_add_free_range(&frames, max_u64(start, array_end), end);
	}
}

uint64_t frame_alloc(unsigned order)
{
	uint64_t pa;

	if (fail_inject_alloc())
		return 0;
	uint64_t irq = spin_lock_irqsave(&frame_lock);
	bool ok = buddy_alloc(&frames, order, &pa);
	spin_unlock_irqrestore(&frame_lock, irq);
	if (!ok)
		return 0;
	// The block is ours alone now; no lock needed for its descriptor.
	struct page *p = &frames.pages[pa / PAGE_SIZE];
	p->refcount = 1;
	p->u.raw[0] = p->u.raw[1] = 0;
	p->use = FRAME_OTHER;
	count_use(FRAME_OTHER, 1LL << order);
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
	struct page *p = frame_page(pa);

	if (p != NULL && __atomic_load_n(&p->refcount, __ATOMIC_RELAXED) > 1)
		mm_fatal("frame_free: frame is still shared", pa);
	// Read before the block is free: from then on it is someone else's.
	unsigned use = p != NULL ? p->use : FRAME_USE_COUNT;
	uint64_t irq = spin_lock_irqsave(&frame_lock);
	bool ok = buddy_free(&frames, pa, order);
	spin_unlock_irqrestore(&frame_lock, irq);
	if (!ok)
		mm_fatal("frame_free: not an allocated block of that order", pa);
	else
		count_use(use, -(1LL << order));
}

void frame_set_use(uint64_t pa, enum frame_use use)
{
	struct page *p = frame_page(pa);

	if (p == NULL || !(p->flags & PAGE_ALLOCATED) || use >= FRAME_USE_COUNT)
		return;
	count_use(p->use, -(1LL << p->order));
	p->use = use;
	count_use(use, 1LL << p->order);
}

void frame_use_stats(uint64_t *pages)
{
	for (int i = 0; i < FRAME_USE_COUNT; i++)
		pages[i] = __atomic_load_n(&use_pages[i], __ATOMIC_RELAXED);
}

struct page *frame_page(uint64_t pa)
{
	uint64_t idx = pa / PAGE_SIZE;

	if (idx >= frames.npages)
		return NULL;
	return &frames.pages[idx];
}

void frame_ref(uint64_t pa)
{
	struct page *p = frame_page(pa);

	if (p == NULL || !(p->flags & PAGE_ALLOCATED) ||
	    __atomic_fetch_add(&p->refcount, 1, __ATOMIC_RELAXED) == 0)
		mm_fatal("frame_ref: frame is not allocated", pa);
}

void frame_unref(uint64_t pa)
{
	struct page *p = frame_page(pa);

	if (p == NULL || !(p->flags & PAGE_ALLOCATED)) {
		mm_fatal("frame_unref: frame is not allocated", pa);
		return;
	}
	// Acquire-release so that every write made through another reference
	// happens before the frame is reused.
	uint32_t left = __atomic_sub_fetch(&p->refcount, 1, __ATOMIC_ACQ_REL);
	if (left == 0)
		frame_free(pa, p->order);
	else if (left == UINT32_MAX)
		mm_fatal("frame_unref: reference count underflow", pa);
}

void *page_alloc(unsigned order)
{
	uint64_t pa = frame_alloc(order);

	return pa == 0 ? NULL : phys_to_virt(pa);
}

void page_free(void *va, unsigned order)
{
	frame_free(virt_to_phys(va), order);
}

void frame_stats(uint64_t *total_pages, uint64_t *free_pages)
{
	uint64_t irq = spin_lock_irqsave(&frame_lock);
	*total_pages = frames.usable_pages;
	*free_pages = buddy_free_pages(&frames);
	spin_unlock_irqrestore(&frame_lock, irq);
}

uint64_t frame_free_estimate(void)
{
	return __atomic_load_n(&frames.free_pages, __ATOMIC_RELAXED);
}

void mm_fatal(const char *what, uint64_t addr)
{
	panic("%s (physical address %#lx)", what, (unsigned long)addr);
}
