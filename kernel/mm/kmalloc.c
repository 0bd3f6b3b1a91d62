// Kernel heap on top of the frame allocator.
//
// A slab is one frame cut into objects of one size class.  Its free
// objects form a singly linked list threaded through the objects
// themselves; the head of that list and the count live in the frame's
// struct page, so a slab has no header and objects keep their natural
// alignment.  Each class keeps a list of slabs that have a free object.
// kfree finds everything it needs from the object's frame:
// frame_page(virt_to_phys(p)).
//
// Each class has its own lock; frame_alloc/frame_free are called with no
// class lock held, so the frame lock is never nested inside one.

#include <stdbool.h>

#include <kernel/spinlock.h>
#include <mm/fail_inject.h>
#include <mm/frame.h>
#include <mm/kmalloc.h>
#include <mm/kmalloc_trace.h>
#include <mm/phys.h>

// Written into the second word of every free object of 16 bytes or more,
// so that kfree can notice a double free cheaply.
#define FREE_MAGIC	0x5afe5afe5afe5afeULL

struct slab_class {
	struct spinlock lock;
	uint32_t size;
	uint32_t partial;	// first slab with a free object (pfn), or PAGE_NIL
	uint32_t empty_slabs;	// slabs on the list with every object free
	uint64_t objects;	// objects handed out
	uint64_t pages;		// slabs owned
};

static struct slab_class classes[KMALLOC_NCLASSES] = {
	{ SPINLOCK_INIT("kmalloc-8"), 8, PAGE_NIL, 0, 0, 0 },
	{ SPINLOCK_INIT("kmalloc-16"), 16, PAGE_NIL, 0, 0, 0 },
	{ SPINLOCK_INIT("kmalloc-32"), 32, PAGE_NIL, 0, 0, 0 },
	{ SPINLOCK_INIT("kmalloc-64"), 64, PAGE_NIL, 0, 0, 0 },
	{ SPINLOCK_INIT("kmalloc-128"), 128, PAGE_NIL, 0, 0, 0 },
	{ SPINLOCK_INIT("kmalloc-256"), 256, PAGE_NIL, 0, 0, 0 },
	{ SPINLOCK_INIT("kmalloc-512"), 512, PAGE_NIL, 0, 0, 0 },
	{ SPINLOCK_INIT("kmalloc-1024"), 1024, PAGE_NIL, 0, 0, 0 },
	{ SPINLOCK_INIT("kmalloc-2048"), 2048, PAGE_NIL, 0, 0, 0 },
};

// Multi-page blocks are counted with atomics: they take no lock here.
static uint64_t large_blocks;
static uint64_t large_pages;

static uint32_t page_pfn(uint64_t pa)
{
	return (uint32_t)(pa >> PAGE_SHIFT);
}

static struct page *pfn_page(uint32_t pfn)
{
	return frame_page((uint64_t)pfn << PAGE_SHIFT);
}

static void *pfn_virt(uint32_t pfn)
{
	return phys_to_virt((uint64_t)pfn << PAGE_SHIFT);
}

static unsigned size_to_class(size_t size)
{
	unsigned c = 0;

	while (((size_t)KMALLOC_MIN_SIZE << c) < size)
		c++;
	return c;
}

static unsigned objects_per_slab(const struct slab_class *sc)
{
	return PAGE_SIZE / sc->size;
}

static void partial_push(struct slab_class *sc, uint32_t pfn)
{
	struct page *p = pfn_page(pfn);

	p->prev = PAGE_NIL;
	p->next = sc->partial;
	if (sc->partial != PAGE_NIL)
		pfn_page(sc->partial)->prev = pfn;
	sc->partial = pfn;
}

static void partial_remove(struct slab_class *sc, uint32_t pfn)
{
	struct page *p = pfn_page(pfn);

	if (p->prev != PAGE_NIL)
		pfn_page(p->prev)->next = p->next;
	else
		sc->partial = p->next;
	if (p->next != PAGE_NIL)
		pfn_page(p->next)->prev = p->prev;
	p->next = p->prev = PAGE_NIL;
}

static void mark_free(const struct slab_class *sc, uint64_t *obj, void *next)
{
	obj[0] = (uint64_t)(uintptr_t)next;
	if (sc->size >= 16)
		obj[1] = FREE_MAGIC;
}

// Cuts a fresh frame into objects and puts it on the class's list.
// Called without the class lock; returns false when out of frames.
static bool grow_class(struct slab_class *sc, unsigned class_index)
{
	uint64_t pa = frame_alloc(0);
	if (pa == 0)
		return false;
	frame_set_use(pa, FRAME_KMALLOC);

	struct page *p = frame_page(pa);
	char *base = phys_to_virt(pa);
	unsigned n = objects_per_slab(sc);
	void *next = NULL;
	// Thread the list from the top so objects go out in address order.
	for (unsigned i = n; i-- > 0;) {
		mark_free(sc, (uint64_t *)(base + (size_t)i * sc->size), next);
		next = base + (size_t)i * sc->size;
	}
	p->flags |= PAGE_SLAB;
	p->u.slab.freelist = base;
	p->u.slab.free_objects = n;
	p->u.slab.size_class = class_index;

	uint64_t irq = spin_lock_irqsave(&sc->lock);
	partial_push(sc, page_pfn(pa));
	sc->empty_slabs++;
	sc->pages++;
	spin_unlock_irqrestore(&sc->lock, irq);
	return true;
}

// Pops an object from the first slab with one, or returns NULL if the
// class has none.  Called with the class lock held.
static void *take_object(struct slab_class *sc)
{
	if (sc->partial == PAGE_NIL)
		return NULL;

	uint32_t pfn = sc->partial;
	struct page *p = pfn_page(pfn);
	uint64_t *obj = p->u.slab.freelist;
	uintptr_t next = (uintptr_t)obj[0];
	uintptr_t base = (uintptr_t)pfn_virt(pfn);

	// A free object's link must point into its own slab: anything else
	// means someone wrote to an object after freeing it.
	if (next != 0 && (next - base >= PAGE_SIZE || (next - base) % sc->size)) {
		mm_fatal("kmalloc: slab freelist corrupted (use after free?)",
		    virt_to_phys(obj));
		return NULL;
	}
	if (p->u.slab.free_objects == objects_per_slab(sc))
		sc->empty_slabs--;
	p->u.slab.freelist = (void *)next;
	p->u.slab.free_objects--;
	if (p->u.slab.free_objects == 0)
		partial_remove(sc, pfn);
	if (sc->size >= 16)
		obj[1] = 0;
	sc->objects++;
	return obj;
}

static void *slab_alloc(unsigned c)
{
	struct slab_class *sc = &classes[c];

	for (;;) {
		uint64_t irq = spin_lock_irqsave(&sc->lock);
		void *obj = take_object(sc);
		spin_unlock_irqrestore(&sc->lock, irq);
		if (obj != NULL)
			return obj;
		if (!grow_class(sc, c))
			return NULL;
	}
}

static void *large_alloc(size_t size)
{
	unsigned order = 0;

	while ((PAGE_SIZE << order) < size) {
		order++;
		if (order > MAX_ORDER)
			return NULL;
	}
	uint64_t pa = frame_alloc(order);
	if (pa == 0)
		return NULL;
	frame_set_use(pa, FRAME_KMALLOC);
	frame_page(pa)->flags |= PAGE_KMALLOC_LARGE;
	__atomic_add_fetch(&large_blocks, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&large_pages, 1ULL << order, __ATOMIC_RELAXED);
	return phys_to_virt(pa);
}

// caller: where kmalloc or kzalloc was called from, for kmalloc_trace.
static void *kmalloc_from(size_t size, uintptr_t caller)
{
	void *p;

	if (fail_inject_alloc())
		return NULL;
	if (size <= KMALLOC_MAX_SLAB_SIZE)
		p = slab_alloc(size_to_class(size));
	else
		p = large_alloc(size);
	if (kmalloc_tracing && p != NULL)
		kmalloc_trace_alloc(p, size, caller);
	return p;
}

void *kmalloc(size_t size)
{
	return kmalloc_from(size, (uintptr_t)__builtin_return_address(0));
}

void *kzalloc(size_t size)
{
	uint64_t *p = kmalloc_from(size, (uintptr_t)__builtin_return_address(0));

	if (p == NULL)
		return NULL;
	// Every block is a whole number of 8-byte words and 8-byte aligned.
	size_t words = (size + 7) / 8;
	for (size_t i = 0; i < words; i++)
		p[i] = 0;
	return p;
}

// Is obj on its slab's freelist?  Only asked when obj looks free, so the
// walk (at most 256 objects) is rare.
static bool on_freelist(const struct page *p, const void *obj)
{
	for (const uint64_t *o = p->u.slab.freelist; o != NULL;
	    o = (const uint64_t *)(uintptr_t)o[0])
		if (o == obj)
			return true;
	return false;
}

static void slab_free(struct page *p, uint64_t *obj)
{
	unsigned c = p->u.slab.size_class;
	if (c >= KMALLOC_NCLASSES) {
		mm_fatal("kfree: slab page with a bad size class", virt_to_phys(obj));
		return;
	}
	struct slab_class *sc = &classes[c];
	if ((virt_to_phys(obj) % PAGE_SIZE) % sc->size != 0) {
		mm_fatal("kfree: pointer into the middle of an object",
		    virt_to_phys(obj));
		return;
	}

	uint64_t irq = spin_lock_irqsave(&sc->lock);
	if (sc->size >= 16 && obj[1] == FREE_MAGIC && on_freelist(p, obj)) {
		spin_unlock_irqrestore(&sc->lock, irq);
		mm_fatal("kfree: double free", virt_to_phys(obj));
		return;
	}
	uint32_t pfn = page_pfn(virt_to_phys(obj));
	mark_free(sc, obj, p->u.slab.freelist);
	p->u.slab.freelist = obj;
	p->u.slab.free_objects++;
	sc->objects--;
	if (p->u.slab.free_objects == 1)
		partial_push(sc, pfn);

	// Keep one empty slab per class as a cushion; release the others.
	bool release = false;
	if (p->u.slab.free_objects == objects_per_slab(sc)) {
		if (sc->empty_slabs > 0) {
			partial_remove(sc, pfn);
			sc->pages--;
			release = true;
		} else {
			sc->empty_slabs++;
		}
	}
	spin_unlock_irqrestore(&sc->lock, irq);

	if (release) {
		p->flags &= ~PAGE_SLAB;
		frame_free((uint64_t)pfn << PAGE_SHIFT, 0);
	}
}

void kfree(void *ptr)
{
	if (ptr == NULL)
		return;
	if (kmalloc_tracing)
		kmalloc_trace_free(ptr);

	uint64_t pa = virt_to_phys(ptr);
	struct page *p = frame_page(pa);
	if (p == NULL) {
		mm_fatal("kfree: pointer outside RAM", pa);
		return;
	}
	if (p->flags & PAGE_SLAB) {
		slab_free(p, ptr);
		return;
	}
	if ((p->flags & PAGE_KMALLOC_LARGE) && pa % PAGE_SIZE == 0) {
		unsigned order = p->order;
		p->flags &= ~PAGE_KMALLOC_LARGE;
		__atomic_sub_fetch(&large_blocks, 1, __ATOMIC_RELAXED);
		__atomic_sub_fetch(&large_pages, 1ULL << order, __ATOMIC_RELAXED);
		frame_free(pa, order);
		return;
	}
	mm_fatal("kfree: pointer kmalloc did not hand out (double free?)", pa);
}

// Unlinks every empty slab of one class and frees them, one at a time so
// that frame_free is never called under the class lock.
static void trim_class(struct slab_class *sc)
{
	for (;;) {
		uint32_t victim = PAGE_NIL;
		uint64_t irq = spin_lock_irqsave(&sc->lock);
		for (uint32_t pfn = sc->partial; pfn != PAGE_NIL;
		    pfn = pfn_page(pfn)->next) {
			if (pfn_page(pfn)->u.slab.free_objects == objects_per_slab(sc)) {
				victim = pfn;
				break;
			}
		}
		if (victim != PAGE_NIL) {
			partial_remove(sc, victim);
			sc->empty_slabs--;
			sc->pages--;
		}
		spin_unlock_irqrestore(&sc->lock, irq);
		if (victim == PAGE_NIL)
			return;
		pfn_page(victim)->flags &= ~PAGE_SLAB;
		frame_free((uint64_t)victim << PAGE_SHIFT, 0);
	}
}

void kmalloc_trim(void)
{
	for (unsigned c = 0; c < KMALLOC_NCLASSES; c++)
		trim_class(&classes[c]);
}

void kmalloc_stats(struct kmalloc_stats *out)
{
	for (unsigned c = 0; c < KMALLOC_NCLASSES; c++) {
		struct slab_class *sc = &classes[c];
		uint64_t irq = spin_lock_irqsave(&sc->lock);
		out->class_size[c] = sc->size;
		out->objects[c] = sc->objects;
		out->slab_pages[c] = sc->pages;
		out->empty_slabs[c] = sc->empty_slabs;
		spin_unlock_irqrestore(&sc->lock, irq);
	}
	out->large_blocks = __atomic_load_n(&large_blocks, __ATOMIC_RELAXED);
	out->large_pages = __atomic_load_n(&large_pages, __ATOMIC_RELAXED);
}
