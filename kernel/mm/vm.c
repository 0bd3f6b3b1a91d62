// User address spaces.
//
// An mm is a sorted list of VMAs plus the arch page tables.  Pages appear
// on first touch (vm_fault): zero pages for anonymous memory, a private
// copy of the file's bytes for file mappings.  fork shares every private
// page read-only and marks it copy-on-write; the first write copies it
// (or just takes it back if no one else holds it).  MAP_SHARED anonymous
// memory is populated at mmap time and shared as-is across fork.
// mm->lock (a spinlock) guards the VMA list and the page tables.  It is
// taken with interrupts enabled and never from an interrupt: a holder may
// wait for other CPUs to acknowledge a TLB shootdown, and a CPU spinning
// on the lock must still be able to take that IPI.

#include <kernel/vm.h>
#include <kernel/cpu.h>
#include <kernel/smp.h>
#include <kernel/panic.h>
#include <kernel/thread.h>
#include <kernel/arch.h>
#include <mm/frame.h>
#include <mm/kmalloc.h>
#include <mm/phys.h>
#include <fs/vfs.h>
#include <lib/string.h>
#include <uapi/errno.h>
#include <arch/pte.h>
#include <arch/memlayout.h>

#define PAGE_MASK (~(PAGE_SIZE - 1))

static uint64_t page_up(uint64_t v)
{
	return (v + PAGE_SIZE - 1) & PAGE_MASK;
}

struct mm *mm_create(void)
{
	struct mm *mm = kzalloc(sizeof(*mm));

	if (!mm)
		return 0;
	mm->root_pa = pt_root_new();
	if (!mm->root_pa) {
		kfree(mm);
		return 0;
	}
	mm->refcount = 1;
	spin_init(&mm->lock, "mm");
	mm->mmap_hint = USER_MMAP_BASE;
	arch_mm_init(mm);
	return mm;
}

void mm_get(struct mm *mm)
{
	__atomic_add_fetch(&mm->refcount, 1, __ATOMIC_SEQ_CST);
}

static struct vma *vma_find(struct mm *mm, uint64_t addr)
{
	for (struct vma *v = mm->vmas; v; v = v->next)
		if (addr < v->end)
			return addr >= v->start ? v : 0;
	return 0;
}

static void vma_insert(struct mm *mm, struct vma *n)
{
	struct vma **p = &mm->vmas;

	while (*p && (*p)->start < n->start)
		p = &(*p)->next;
	n->next = *p;
	*p = n;
}

static void vma_free(struct vma *v)
{
	if (v->file)
		vnode_put(v->file);
	kfree(v);
}

// Splits v at 'at' (strictly inside); the upper part follows v in the list.
static int vma_split(struct vma *v, uint64_t at)
{
	struct vma *hi = kmalloc(sizeof(*hi));

	if (!hi)
		return -ENOMEM;
	*hi = *v;
	hi->start = at;
	if (hi->file) {
		hi->file_off += at - v->start;
		vnode_get(hi->file);
	}
	v->end = at;
	v->next = hi;
	return 0;
}

// Releases the frames mapped in [start, end) and clears their entries.
static void unmap_pages(struct mm *mm, uint64_t start, uint64_t end)
{
	uint64_t va = start;
	uint64_t *e;

	while ((e = pte_next_with_frame(mm->root_pa, &va, end)) != 0) {
		uint64_t pa = pte_frame(*e);
		*e = 0;
		frame_unref(pa);
		va += PAGE_SIZE;
	}
}

// Removes every mapping in [start, end), splitting VMAs at the edges.
static int unmap_locked(struct mm *mm, uint64_t start, uint64_t end)
{
	struct vma **p = &mm->vmas;

	while (*p) {
		struct vma *v = *p;
		if (v->end <= start) {
			p = &v->next;
			continue;
		}
		if (v->start >= end)
			break;
		if (v->start < start) {
			if (vma_split(v, start) < 0)
				return -ENOMEM;
			p = &v->next;
			continue;
		}
		if (v->end > end && vma_split(v, end) < 0)
			return -ENOMEM;
		*p = v->next;
		unmap_pages(mm, v->start, v->end);
		vma_free(v);
	}
	return 0;
}

static void mm_free(struct mm *mm)
{
	// No thread runs it any more, but CPUs may still hold it in CR3
	// lazily: move them off before the tables go.
	arch_mm_drop_everywhere(mm);
	unmap_locked(mm, 0, USER_END);
	pt_root_free(mm->root_pa);
	arch_mm_fini(mm);
	kfree(mm);
}

void mm_put(struct mm *mm)
{
	if (__atomic_sub_fetch(&mm->refcount, 1, __ATOMIC_SEQ_CST) == 0)
		mm_free(mm);
}

// Fills a new page for a fault at 'page' in v.
static uint64_t fill_page(struct vma *v, uint64_t page)
{
	uint64_t pa = frame_alloc_zeroed(0);

	if (pa)
		frame_set_use(pa, FRAME_USER);
	if (!pa || !v->file || page >= v->file_end)
		return pa;
	uint64_t n = v->file_end - page;
	if (n > PAGE_SIZE)
		n = PAGE_SIZE;
	long got = vnode_read(v->file, v->file_off + (page - v->start), phys_to_virt(pa), n);
	(void)got;	// short reads leave zeros, as past the end of a file
	return pa;
}

static int vma_allows(struct vma *v, bool write, bool exec)
{
	if (write && !(v->prot & PROT_WRITE))
		return 0;
	if (exec && !(v->prot & PROT_EXEC))
		return 0;
	if (!write && !exec && !(v->prot & (PROT_READ | PROT_WRITE | PROT_EXEC)))
		return 0;
	return 1;
}

static int fault_locked(struct mm *mm, uint64_t addr, bool write, bool exec)
{
	struct vma *v = vma_find(mm, addr);
	uint64_t page = addr & PAGE_MASK;

	if (!v)
		return -EFAULT;
	if (!vma_allows(v, write, exec))
		return -EACCES;
	uint64_t *e = pte_walk(mm->root_pa, page, true, true);
	if (!e)
		return -ENOMEM;
	bool shared = v->flags & VMA_SHARED;
	if (!pte_has_frame(*e)) {
		uint64_t pa = fill_page(v, page);
		if (!pa)
			return -ENOMEM;
		*e = pte_make(pa, v->prot, false, shared);
		return 0;
	}
	if (write && pte_is_cow(*e)) {
		uint64_t old = pte_frame(*e);
		if (frame_page(old)->refcount == 1) {
			*e = pte_make(old, v->prot, false, shared);
		} else {
			uint64_t pa = frame_alloc(0);
			if (!pa)
				return -ENOMEM;
			frame_set_use(pa, FRAME_USER);
			memcpy(phys_to_virt(pa), phys_to_virt(old), PAGE_SIZE);
			*e = pte_make(pa, v->prot, false, shared);
			frame_unref(old);
		}
		// Other CPUs running this mm may cache the old translation.
		tlb_shootdown(mm, page, page + PAGE_SIZE);
		return 0;
	}
	// Present and allowed: a stale TLB entry (another CPU changed it).
	tlb_flush_page(page);
	return 0;
}

int vm_fault(struct mm *mm, uint64_t addr, bool write, bool exec)
{
	spin_lock(&mm->lock);
	int r = fault_locked(mm, addr, write, exec);
	spin_unlock(&mm->lock);
	return r;
}

// Finds 'len' free bytes at or above the hint.
static uint64_t find_free(struct mm *mm, uint64_t len)
{
	uint64_t cand = mm->mmap_hint;

	for (struct vma *v = mm->vmas; v; v = v->next) {
		if (v->end <= cand)
			continue;
		if (cand + len <= v->start)
			break;
		cand = v->end;
	}
	if (cand + len > USER_STACK_TOP - USER_STACK_SIZE || cand + len < cand)
		return 0;
	return cand;
}

static bool range_free(struct mm *mm, uint64_t start, uint64_t end)
{
	for (struct vma *v = mm->vmas; v; v = v->next)
		if (v->start < end && start < v->end)
			return false;
	return true;
}

long vm_map(struct mm *mm, uint64_t addr, size_t len, int prot, int flags,
	    struct vnode *file, uint64_t off, uint64_t file_bytes)
{
	if (len == 0 || (addr & ~PAGE_MASK))
		return -EINVAL;
	uint64_t size = page_up(len);
	if (size < len || size > USER_END)
		return -ENOMEM;
	struct vma *v = kzalloc(sizeof(*v));
	if (!v)
		return -ENOMEM;
	spin_lock(&mm->lock);
	uint64_t start = addr;
	bool fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
	long err = 0;

	if (fixed) {
		if (addr < USER_MIN_ADDR || addr + size > USER_END || addr + size < addr)
			err = -ENOMEM;
		else if ((flags & MAP_FIXED_NOREPLACE) && !range_free(mm, addr, addr + size))
			err = -EEXIST;
		else if (unmap_locked(mm, addr, addr + size) < 0)
			err = -ENOMEM;
	} else {
		// A hint is honoured when that range is free.
		if (!(addr >= USER_MIN_ADDR && addr + size <= USER_STACK_TOP - USER_STACK_SIZE &&
		      addr + size > addr && range_free(mm, addr, addr + size)))
			start = find_free(mm, size);
		if (!start)
			err = -ENOMEM;
	}
	if (err) {
		spin_unlock(&mm->lock);
		kfree(v);
		return err;
	}
	// MAP_FIXED may have replaced pages: no CPU may keep the old ones.
	if (fixed)
		tlb_shootdown(mm, start, start + size);
	v->start = start;
	v->end = start + size;
	v->prot = prot;
	v->flags = (flags & MAP_TYPE) == MAP_SHARED ? VMA_SHARED : 0;
	if (file) {
		vnode_get(file);
		v->file = file;
		v->file_off = off;
		v->file_end = start + file_bytes;
	}
	vma_insert(mm, v);
	// Shared anonymous pages must exist before a fork can share them.
	if ((v->flags & VMA_SHARED) || (flags & MAP_POPULATE)) {
		for (uint64_t p = v->start; p < v->end; p += PAGE_SIZE) {
			if (fault_locked(mm, p, false, false) == -ENOMEM) {
				unmap_locked(mm, v->start, v->end);
				spin_unlock(&mm->lock);
				return -ENOMEM;
			}
		}
	}
	spin_unlock(&mm->lock);
	return (long)start;
}

int vm_unmap(struct mm *mm, uint64_t addr, size_t len)
{
	if ((addr & ~PAGE_MASK) || len == 0)
		return -EINVAL;
	uint64_t end = addr + page_up(len);
	if (end < addr || end > USER_END)
		return -EINVAL;
	spin_lock(&mm->lock);
	int r = unmap_locked(mm, addr, end);
	spin_unlock(&mm->lock);
	tlb_shootdown(mm, addr, end);
	return r;
}

int vm_protect(struct mm *mm, uint64_t addr, size_t len, int prot)
{
	if (addr & ~PAGE_MASK)
		return -EINVAL;
	uint64_t end = addr + page_up(len);
	if (end < addr || end > USER_END)
		return -ENOMEM;
	if (len == 0)
		return 0;
	spin_lock(&mm->lock);
	// Linux fails with ENOMEM if part of the range is unmapped.
	uint64_t cur = addr;
	for (struct vma *v = mm->vmas; v && cur < end; v = v->next) {
		if (v->end <= cur)
			continue;
		if (v->start > cur)
			break;
		cur = v->end;
	}
	if (cur < end) {
		spin_unlock(&mm->lock);
		return -ENOMEM;
	}
	for (struct vma *v = mm->vmas; v && v->start < end; v = v->next) {
		if (v->end <= addr)
			continue;
		if (v->start < addr) {
			if (vma_split(v, addr) < 0)
				goto nomem;
			continue;	// the upper half comes next
		}
		if (v->end > end && vma_split(v, end) < 0)
			goto nomem;
		v->prot = prot;
		uint64_t va = v->start;
		uint64_t *e;
		while ((e = pte_next_with_frame(mm->root_pa, &va, v->end)) != 0) {
			uint64_t pa = pte_frame(*e);
			bool cow = pte_is_cow(*e) || (!(v->flags & VMA_SHARED) && frame_page(pa)->refcount > 1);
			*e = pte_make(pa, prot, cow, v->flags & VMA_SHARED);
			va += PAGE_SIZE;
		}
	}
	spin_unlock(&mm->lock);
	tlb_shootdown(mm, addr, end);
	return 0;
nomem:
	spin_unlock(&mm->lock);
	return -ENOMEM;
}

int vm_discard(struct mm *mm, uint64_t addr, size_t len)
{
	if (addr & ~PAGE_MASK)
		return -EINVAL;
	uint64_t end = addr + page_up(len);
	if (end < addr)
		return -EINVAL;
	spin_lock(&mm->lock);
	for (struct vma *v = mm->vmas; v && v->start < end; v = v->next) {
		if (v->end <= addr || (v->flags & VMA_SHARED))
			continue;
		uint64_t s = v->start > addr ? v->start : addr;
		uint64_t e = v->end < end ? v->end : end;
		unmap_pages(mm, s, e);
	}
	spin_unlock(&mm->lock);
	tlb_shootdown(mm, addr, end);
	return 0;
}

int vm_write(struct mm *mm, uint64_t va, const void *src, size_t n)
{
	const uint8_t *s = src;

	while (n > 0) {
		spin_lock(&mm->lock);
		int r = fault_locked(mm, va, true, false);
		uint64_t *e = r == 0 ? pte_walk(mm->root_pa, va & PAGE_MASK, false, true) : 0;
		if (!e) {
			spin_unlock(&mm->lock);
			return r ? r : -EFAULT;
		}
		size_t chunk = PAGE_SIZE - (va & ~PAGE_MASK);
		if (chunk > n)
			chunk = n;
		memcpy((uint8_t *)phys_to_virt(pte_frame(*e)) + (va & ~PAGE_MASK), s, chunk);
		spin_unlock(&mm->lock);
		va += chunk;
		s += chunk;
		n -= chunk;
	}
	return 0;
}

long vm_brk(struct mm *mm, uint64_t new_brk)
{
	uint64_t old_end = page_up(mm->brk), new_end = page_up(new_brk);

	if (new_brk < mm->brk_start || new_brk >= USER_STACK_TOP - USER_STACK_SIZE)
		return (long)mm->brk;
	if (new_end > old_end) {
		long r = vm_map(mm, old_end, new_end - old_end, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_FIXED_NOREPLACE | MAP_ANONYMOUS, 0, 0, 0);
		if (r < 0)
			return (long)mm->brk;
	} else if (new_end < old_end) {
		vm_unmap(mm, new_end, old_end - new_end);
	}
	mm->brk = new_brk;
	return (long)new_brk;
}

// fork: the child gets the same VMAs; private pages become copy-on-write
// in both, shared pages stay shared.
struct mm *mm_copy(struct mm *src)
{
	struct mm *mm = mm_create();

	if (!mm)
		return 0;
	spin_lock(&src->lock);
	mm->brk_start = src->brk_start;
	mm->brk = src->brk;
	mm->mmap_hint = src->mmap_hint;
	struct vma **tail = &mm->vmas;
	for (struct vma *v = src->vmas; v; v = v->next) {
		struct vma *c = kmalloc(sizeof(*c));
		if (!c)
			goto fail;
		*c = *v;
		c->next = 0;
		if (c->file)
			vnode_get(c->file);
		*tail = c;
		tail = &c->next;
		bool shared = v->flags & VMA_SHARED;
		uint64_t va = v->start;
		uint64_t *e;
		while ((e = pte_next_with_frame(src->root_pa, &va, v->end)) != 0) {
			uint64_t *ce = pte_walk(mm->root_pa, va, true, true);
			if (!ce)
				goto fail;
			uint64_t pa = pte_frame(*e);
			if (!shared)
				*e = pte_make(pa, v->prot, true, false);
			*ce = *e;
			frame_ref(pa);
			va += PAGE_SIZE;
		}
	}
	spin_unlock(&src->lock);
	// The parent's writable pages just became read-only.
	tlb_shootdown(src, 0, USER_END);
	return mm;
fail:
	spin_unlock(&src->lock);
	mm_put(mm);
	return 0;
}

// Grows a mapping by moving it: the frames move to the new range (no
// copy), the old range is unmapped.
long vm_move(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len)
{
	spin_lock(&mm->lock);
	struct vma *v = vma_find(mm, old);
	if (!v || v->start > old || v->end < old + old_len) {
		spin_unlock(&mm->lock);
		return -EFAULT;
	}
	int prot = v->prot;
	int flags = (v->flags & VMA_SHARED) ? MAP_SHARED : MAP_PRIVATE;
	bool is_file = v->file != 0;
	spin_unlock(&mm->lock);
	if (is_file || (flags & MAP_SHARED))
		return -ENOMEM;		// only anonymous private memory moves
	long dst = vm_map(mm, 0, new_len, prot, flags | MAP_ANONYMOUS, 0, 0, 0);
	if (dst < 0)
		return dst;
	spin_lock(&mm->lock);
	for (uint64_t off = 0; off < old_len; off += PAGE_SIZE) {
		uint64_t *src = pte_walk(mm->root_pa, old + off, false, true);
		if (!src || !pte_has_frame(*src))
			continue;
		uint64_t *d = pte_walk(mm->root_pa, (uint64_t)dst + off, true, true);
		if (!d)
			break;
		*d = *src;
		*src = 0;
	}
	spin_unlock(&mm->lock);
	vm_unmap(mm, old, old_len);
	return dst;
}

int vm_user_phys(struct mm *mm, uint64_t uaddr, uint64_t *pa)
{
	spin_lock(&mm->lock);
	int r = fault_locked(mm, uaddr, false, false);
	uint64_t *e = r == 0 ? pte_walk(mm->root_pa, uaddr & PAGE_MASK, false, true) : 0;
	if (e && pte_has_frame(*e))
		*pa = pte_frame(*e) + (uaddr & ~PAGE_MASK);
	spin_unlock(&mm->lock);
	return e ? 0 : -EFAULT;
}

// Futex keys: 1 and the physical address of uaddr when it lies in
// MAP_SHARED memory (whose frames stay put for the mapping's life: they
// are populated at mmap time and never copied on write), 0 when it lies
// in private memory, -EFAULT when nothing readable is mapped there.
int vm_shared_phys(struct mm *mm, uint64_t uaddr, uint64_t *pa)
{
	spin_lock(&mm->lock);
	struct vma *v = vma_find(mm, uaddr);
	int r = v && vma_allows(v, false, false) ? 0 : -EFAULT;
	if (r == 0 && (v->flags & VMA_SHARED)) {
		uint64_t *e = pte_walk(mm->root_pa, uaddr & PAGE_MASK, false, true);
		if (e && pte_has_frame(*e)) {
			*pa = pte_frame(*e) + (uaddr & ~PAGE_MASK);
			r = 1;
		} else {
			r = -EFAULT;
		}
	}
	spin_unlock(&mm->lock);
	return r;
}
