// User address spaces.
//
// An mm is a set of mappings (VMAs) in a balanced tree keyed by address
// (mm/vma_tree.h: lookups and free-range searches are O(log n)), plus the
// arch page tables.  Pages appear on first touch (vm_fault): zero pages
// for anonymous memory, the file's own frames for file mappings (below;
// a private one copies a frame at its first write).  fork shares every
// private page read-only and marks it copy-on-write; the first write
// copies it (or just takes it back if no one else holds it, and it is no
// file's).  MAP_SHARED anonymous memory is populated at mmap
// time and shared as-is across fork.  Adjacent anonymous private mappings
// with the same protection and flags merge, as on Linux, and an address
// space holds at most MAX_MAP_COUNT mappings.
//
// mm->lock (a spinlock) guards the VMAs, the page tables and rss.  It is
// taken with interrupts enabled and never from an interrupt: a holder may
// wait for other CPUs to acknowledge a TLB shootdown, and a CPU spinning
// on the lock must still be able to take that IPI.
//
// File mappings and the page cache.  A file's pages (vn->pages[]) are its
// only copy of the data: a MAP_SHARED mapping maps those very frames, so
// a store through it is what read() sees and write() is what it sees.
// Each vnode knows its mappings (vn->maps, shared and private, linked
// through vma->map_next), so that truncation and hole punching can take
// the pages they remove out of every address space (vm_unmap_file).
// Lock order: vn->map_mutex (truncation, sleeping), then mm->lock, then
// vn->lock (irqsave; the list and the page array).  vn->lock is never
// held across a TLB shootdown (it keeps interrupts off), and vm_unmap_file
// holds one mm->lock at a time, each mm pinned by a reference taken
// under vn->lock.
//
// The TLB rule: a frame is not freed, nor its reference dropped, until
// every CPU that may cache a translation to it has flushed that
// translation.  Otherwise a thread on another CPU keeps reading and
// writing a frame that already belongs to someone else.  Every path that
// takes a frame out of the page tables (munmap, MAP_FIXED, madvise,
// mremap, brk, copy-on-write, exit, exec) hands it to a gather, which
// shoots the range down and only then lets the frames go, before
// mm->lock is released, so that no one sees the old translation once the
// call returns.

#include <kernel/vm.h>
#include <kernel/mempolicy.h>
#include <kernel/cpu.h>
#include <kernel/smp.h>
#include <kernel/panic.h>
#include <kernel/thread.h>
#include <kernel/process.h>
#include <kernel/cred.h>
#include <kernel/cputime.h>
#include <kernel/arch.h>
#include <mm/frame.h>
#include <mm/kmalloc.h>
#include <mm/phys.h>
#include <mm/oom.h>
#include <fs/vfs.h>
#include <fs/aio.h>
#include <fs/vnode.h>
#include <lib/string.h>
#include <uapi/errno.h>
#include <arch/pte.h>
#include <arch/memlayout.h>

#define PAGE_MASK (~(PAGE_SIZE - 1))

// The stack grows down into room that mmap leaves to it (at least 128
// MiB, as Linux), never closer than a guard gap to the mapping below it;
// mmap places nothing of its own choosing in that gap either.
#define STACK_ROOM	(128UL << 20)
#define STACK_GUARD_GAP	(256UL * PAGE_SIZE)
#define RLIMIT_DATA	2
#define RLIMIT_STACK	3
#define RLIMIT_MEMLOCK	8
#define RLIMIT_AS	9
#define CAP_IPC_LOCK	14

// Where mmap looks for room when given no usable hint: upward from
// mm->mmap_base, below the stack's room.
#define MMAP_TOP	(USER_STACK_TOP - STACK_ROOM)
// MAP_32BIT: somewhere in the second GiB, as Linux does on x86-64.
#define MAP_32BIT_LO	0x40000000UL
#define MAP_32BIT_HI	0x80000000UL

#define VMA_SHARED	0x01	// MAP_SHARED: pages are shared across fork, never COW
#define VMA_NORESERVE	0x02	// MAP_NORESERVE: not held against RAM
#define VMA_DONTFORK	0x04	// MADV_DONTFORK: a child does not get it
#define VMA_WIPEONFORK	0x08	// MADV_WIPEONFORK: a child gets it empty
#define VMA_GROWSDOWN	0x10	// a stack: a fault below it grows it
// Shared file mappings: mprotect may add PROT_WRITE (Linux's VM_MAYWRITE:
// the file was opened for writing, and is not write-sealed or was mapped
// writable).  Counted in vn->maps_writable, which F_SEAL_WRITE waits for.
#define VMA_MAYWRITE	0x20
// MAP_LOCKED, mlock, mlockall (Linux's VM_LOCKED): nothing swaps, so it
// changes what Linux shows and checks ("mlock" below).  fork drops it.
#define VMA_LOCKED	0x80
#define VMA_AIO_RING	0x40	// an aio ring (vm_map_frames): never grows, its context follows a move

struct vma {
	struct vt_node node;		// [node.start, node.end) and its place in mm->vmas
	int prot;			// PROT_*
	int flags;			// VMA_*
	struct vnode *file;		// file mapping, or NULL (anonymous)
	uint64_t file_off;		// file offset of node.start
	// The file bytes mmap saw end at this address: the page they end in
	// is a private copy with zeros after them (an ELF segment's last
	// page); whole pages past it are the file's, or SIGBUS past its end.
	uint64_t file_end;
	// File mappings: the file's list of its mappings (under file->lock;
	// map_gen written with this mm->lock held too), the address space
	// this one is in, and the last vm_unmap_file pass through it.
	struct vma *map_prev, *map_next;
	struct mm *mm;
	uint64_t map_gen;
	struct mempolicy policy;	// mbind's; all zero: MPOL_DEFAULT
};

_Static_assert(__builtin_offsetof(struct vma, node) == 0, "a vma starts with its tree node");

// Rounds up to a page; 0 if that wraps.
static uint64_t page_up(uint64_t v)
{
	return (v + PAGE_SIZE - 1) & PAGE_MASK;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

// ---- mappings ----

static struct vma *vma_of(struct vt_node *n)
{
	return (struct vma *)n;
}

// The mapping containing addr, or NULL.
static struct vma *vma_find(struct mm *mm, uint64_t addr)
{
	return vma_of(vt_find(&mm->vmas, addr));
}

// The first mapping that ends above addr (contains it or lies above).
static struct vma *vma_from(struct mm *mm, uint64_t addr)
{
	return vma_of(vt_first_ending_after(&mm->vmas, addr));
}

static struct vma *vma_next(struct vma *v)
{
	return vma_of(vt_next(&v->node));
}

static struct vma *vma_prev(struct vma *v)
{
	return vma_of(vt_prev(&v->node));
}

// ---- the file's reverse map ----

static bool vma_shared_file(const struct vma *v)
{
	return v->file && (v->flags & VMA_SHARED);
}

// Puts v (a file mapping in mm; mm->lock held) on its file's list.  A
// copy (split, fork, mremap) keeps the pass mark of what it was copied
// from: it holds the same pages.
static void file_link(struct mm *mm, struct vma *v)
{
	struct vnode *vn = v->file;
	uint64_t flags = spin_lock_irqsave(&vn->lock);

	v->mm = mm;
	v->map_prev = 0;
	v->map_next = vn->maps;
	if (vn->maps)
		vn->maps->map_prev = v;
	vn->maps = v;
	if (v->flags & VMA_MAYWRITE)
		vn->maps_writable++;
	spin_unlock_irqrestore(&vn->lock, flags);
	if (vn->map_count)
		vn->map_count(vn, 1);	// a System V segment's shm_nattch
}

static void file_unlink(struct vma *v)
{
	struct vnode *vn = v->file;
	uint64_t flags = spin_lock_irqsave(&vn->lock);

	if (v->map_prev)
		v->map_prev->map_next = v->map_next;
	else
		vn->maps = v->map_next;
	if (v->map_next)
		v->map_next->map_prev = v->map_prev;
	if (v->flags & VMA_MAYWRITE)
		vn->maps_writable--;
	spin_unlock_irqrestore(&vn->lock, flags);
	if (vn->map_count)
		vn->map_count(vn, -1);
}

// A new mapping of v->file: the memfd write seals decide first (Linux's
// seal_check_write: no writable shared mapping; a read-only one may never
// become writable), then it joins the list with the current pass mark (it
// cannot hold pages a pass in progress removes: faults see the new size).
static int file_link_new(struct mm *mm, struct vma *v)
{
	struct vnode *vn = v->file;
	uint64_t flags = spin_lock_irqsave(&vn->lock);
	int r = 0;

	if ((vn->seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) && (v->flags & VMA_SHARED)) {
		if (v->prot & PROT_WRITE)
			r = -EPERM;
		v->flags &= ~VMA_MAYWRITE;
	}
	v->map_gen = vn->map_gen;
	spin_unlock_irqrestore(&vn->lock, flags);
	if (r == 0)
		file_link(mm, v);
	return r;
}

static void vma_free(struct vma *v)
{
	if (v->file) {
		file_unlink(v);
		vnode_put(v->file);
	}
	kfree(v);
}

// Splits v at 'at' (strictly inside): v keeps [start, at), a new mapping
// takes [at, end).  The caller has checked the map count.
static int vma_split(struct mm *mm, struct vma *v, uint64_t at)
{
	struct vma *hi = kmalloc(sizeof(*hi));

	if (!hi)
		return -ENOMEM;
	*hi = *v;
	hi->node.start = at;
	if (hi->file) {
		hi->file_off += at - v->node.start;
		vnode_get(hi->file);
		file_link(mm, hi);
	}
	v->node.end = at;
	vt_update(&v->node);
	vt_insert(&mm->vmas, &hi->node);
	return 0;
}

static bool policy_equal(const struct mempolicy *a, const struct mempolicy *b)
{
	return a->mode == b->mode && a->flags == b->flags && a->home == b->home &&
	       a->nodes == b->nodes && a->user_nodes == b->user_nodes;
}

// Would a and b (a right below b) be one mapping on Linux?  Anonymous
// private memory with the same protection, flags and memory policy merges.
static bool can_merge(const struct vma *a, const struct vma *b)
{
	return a->node.end == b->node.start && !a->file && !b->file &&
	       a->prot == b->prot && a->flags == b->flags && !(a->flags & VMA_SHARED) &&
	       policy_equal(&a->policy, &b->policy);
}

// Merges v into the mapping below it if they are compatible; returns
// what now holds v's range.
static struct vma *merge_prev(struct mm *mm, struct vma *v)
{
	struct vma *prev = vma_prev(v);

	if (!prev || !can_merge(prev, v))
		return v;
	vt_remove(&mm->vmas, &v->node);
	prev->node.end = v->node.end;
	vt_update(&prev->node);
	vma_free(v);
	return prev;
}

static struct vma *merge_next(struct mm *mm, struct vma *v)
{
	struct vma *next = vma_next(v);

	return next ? merge_prev(mm, next) : v;
}

static struct vma *merge_around(struct mm *mm, struct vma *v)
{
	v = merge_prev(mm, v);
	merge_next(mm, v);
	return vma_find(mm, v->node.start);
}

// Makes a mapping boundary at addr (inside a mapping or not).  A new
// boundary is one more mapping: ENOMEM past the limit.
static int boundary_at(struct mm *mm, uint64_t addr)
{
	struct vma *v = vma_find(mm, addr);

	if (!v || v->node.start == addr)
		return 0;
	if (mm->vmas.count >= MAX_MAP_COUNT)
		return -ENOMEM;
	return vma_split(mm, v, addr);
}

// ---- TLB shootdown before frames go (the TLB rule above) ----

// Frames out of the page tables, waiting for the TLB shootdown of the
// range their entries were in.
#define GATHER_MAX 32

struct gather {
	struct mm *mm;
	uint64_t start, end;		// entries changed in here; empty if start == end
	int n;
	uint64_t frames[GATHER_MAX];	// references to drop after the shootdown
};

static void gather_init(struct gather *g, struct mm *mm)
{
	g->mm = mm;
	g->start = g->end = 0;
	g->n = 0;
}

// Notes that entries in [start, end) changed: the range is flushed.
static void gather_range(struct gather *g, uint64_t start, uint64_t end)
{
	if (g->start == g->end) {
		g->start = start;
		g->end = end;
		return;
	}
	g->start = min_u64(g->start, start);
	g->end = max_u64(g->end, end);
}

// Flushes the range everywhere, then drops the frames.  mm->lock held
// (with interrupts on, as always), so no CPU sees the old entries once the
// lock is released.
static void gather_flush(struct gather *g)
{
	if (g->start != g->end)
		arch_tlb_shootdown(g->mm, g->start, g->end);
	for (int i = 0; i < g->n; i++)
		frame_unref(g->frames[i]);
	g->start = g->end = 0;
	g->n = 0;
}

// The entry for the page at va no longer maps frame pa (it was cleared or
// replaced): pa's reference goes once every CPU has flushed va.
static void gather_frame(struct gather *g, uint64_t va, uint64_t pa)
{
	if (g->n == GATHER_MAX)
		gather_flush(g);
	gather_range(g, va, va + PAGE_SIZE);
	g->frames[g->n++] = pa;
}

// Clears the entries of [start, end) that map frames.
// One more frame mapped (mm->lock held); the peak is ru_maxrss.  A
// file's own frame counts in rss_file too (Linux's file and shmem pages).
static void rss_add(struct mm *mm, uint64_t pa)
{
	if (++mm->rss > mm->rss_peak)
		mm->rss_peak = mm->rss;
	if (frame_page(pa)->use == FRAME_FILE)
		mm->rss_file++;
}

// One frame fewer mapped (mm->lock held).
static void rss_sub(struct mm *mm, uint64_t pa)
{
	mm->rss--;
	if (frame_page(pa)->use == FRAME_FILE)
		mm->rss_file--;
}

static void unmap_pages(struct mm *mm, uint64_t start, uint64_t end, struct gather *g)
{
	uint64_t va = start;
	pte_t *e;

	while ((e = arch_pte_next_with_frame(mm->root_pa, &va, end)) != 0) {
		uint64_t pa = pte_frame(arch_pte_get(e));
		arch_pte_set(e, 0);
		rss_sub(mm, pa);
		gather_frame(g, va, pa);
		va += PAGE_SIZE;
	}
}

// Removes every mapping in [start, end) (page aligned), splitting those
// at the edges.  A hole in the middle of a mapping makes one more
// mapping: ENOMEM past the limit, before anything changes.
static int unmap_locked(struct mm *mm, uint64_t start, uint64_t end, struct gather *g)
{
	struct vma *v = vma_from(mm, start);

	if (v && v->node.start < start && v->node.end > end && mm->vmas.count >= MAX_MAP_COUNT)
		return -ENOMEM;
	while (v && v->node.start < end) {
		if (v->node.start < start) {
			if (vma_split(mm, v, start) < 0)
				return -ENOMEM;
			v = vma_next(v);
			continue;
		}
		if (v->node.end > end && vma_split(mm, v, end) < 0)
			return -ENOMEM;
		struct vma *next = vma_next(v);
		vt_remove(&mm->vmas, &v->node);
		unmap_pages(mm, v->node.start, v->node.end, g);
		vma_free(v);
		v = next;
	}
	return 0;
}

// ---- address spaces ----

// Address-space ids start at 1 (0 means "none") and never repeat.
static uint64_t mm_next_id;

struct mm *mm_create(void)
{
	struct mm *mm = kzalloc(sizeof(*mm));

	if (!mm)
		return 0;
	mm->root_pa = arch_pt_root_new();
	if (!mm->root_pa) {
		kfree(mm);
		return 0;
	}
	mm->refcount = 1;
	mm->id = __atomic_add_fetch(&mm_next_id, 1, __ATOMIC_RELAXED);
	spin_init(&mm->lock, "mm");
	mm->mmap_base = USER_MMAP_BASE;
	mm->coredump_filter = COREDUMP_FILTER_DEFAULT;
	arch_mm_init(mm);
	return mm;
}

void mm_get(struct mm *mm)
{
	__atomic_add_fetch(&mm->refcount, 1, __ATOMIC_SEQ_CST);
}

static void mm_free(struct mm *mm)
{
	struct gather g;

	// No thread runs it any more, but CPUs may still hold it in CR3
	// lazily: move them off before the tables go.
	arch_mm_drop_everywhere(mm);
	// Its aio contexts go with it, as Linux's exit_aio.
	aio_mm_exit(mm);
	oom_teardown_begins(mm);
	gather_init(&g, mm);
	spin_lock(&mm->lock);
	unmap_locked(mm, 0, USER_END, &g);
	gather_flush(&g);
	spin_unlock(&mm->lock);
	arch_pt_root_free(mm->root_pa);
	arch_mm_fini(mm);
	oom_forget_mm(mm);
	if (mm->exe) {
		vnode_allow_write_access(mm->exe);
		vnode_put(mm->exe);
	}
	kfree(mm);
}

void mm_put(struct mm *mm)
{
	if (__atomic_sub_fetch(&mm->refcount, 1, __ATOMIC_SEQ_CST) == 0)
		mm_free(mm);
}

// ---- faults ----

// A frame for user memory, only while free frames stay above the
// kernel's reserve (mm/oom.h): 0 means out of memory.
static uint64_t user_frame(bool zeroed)
{
	if (!oom_user_may_allocate())
		return 0;
	return zeroed ? frame_alloc_zeroed(0) : frame_alloc(0);
}

// A new frame for the page at 'page' in v: zeros, or the file's bytes.

static uint64_t fill_page(struct vma *v, uint64_t page)
{
	uint64_t pa = user_frame(true);

	if (pa)
		frame_set_use(pa, FRAME_USER);
	if (!pa || !v->file || page >= v->file_end)
		return pa;
	uint64_t n = min_u64(v->file_end - page, PAGE_SIZE);
	long got = vnode_read(v->file, v->file_off + (page - v->node.start), phys_to_virt(pa), n);
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

// The index of the file page behind 'page' of v.
static uint64_t file_index(const struct vma *v, uint64_t page)
{
	return (v->file_off + (page - v->node.start)) / PAGE_SIZE;
}

// Maps the file's own page, made if it is a hole (taking the tree's
// space): writable in a shared mapping, copy on write ('cow') in a
// private one.  A page wholly past the end of the file, or one the full
// tree cannot give, is SIGBUS (-EIO), as on tmpfs.
static int map_file_page(struct mm *mm, struct vma *v, uint64_t page, pte_t *e, bool cow)
{
	uint64_t pa;
	int r = vnode_get_page(v->file, file_index(v, page), &pa);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return -EIO;
	arch_pte_set(e, pte_make(pa, v->prot, cow, !cow));
	rss_add(mm, pa);
	return 0;
}

// A private copy of the file's page for 'page' of a private mapping: for
// a write, and for the page where the mapped bytes end (zeros after them:
// an ELF segment's last page).  SIGBUS (-EIO) as map_file_page.
static int copy_file_page(struct mm *mm, struct vma *v, uint64_t page, pte_t *e)
{
	uint64_t fpa, pa;
	int r = vnode_get_page(v->file, file_index(v, page), &fpa);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return -EIO;
	pa = user_frame(true);
	if (!pa) {
		frame_unref(fpa);	// never mapped: no shootdown owed
		return -ENOMEM;
	}
	frame_set_use(pa, FRAME_USER);
	uint64_t n = page < v->file_end ? min_u64(v->file_end - page, PAGE_SIZE) : PAGE_SIZE;
	memcpy(phys_to_virt(pa), phys_to_virt(fpa), n);
	frame_unref(fpa);
	arch_pte_set(e, pte_make(pa, v->prot, false, false));
	rss_add(mm, pa);
	return 0;
}

// A private mapping of a file of the tree: a page not written yet is the
// file's own frame, read-only, so the file's later writes show through it
// until the first write copies it (as Linux's page cache).  Past the
// bytes mmap saw the file may have grown: its current end decides.
static int private_file_page(struct mm *mm, struct vma *v, uint64_t page, bool write,
			     pte_t *e)
{
	bool tail = page < v->file_end && page + PAGE_SIZE > v->file_end;

	if (write || tail)
		return copy_file_page(mm, v, page, e);
	return map_file_page(mm, v, page, e, true);
}

// Gives the page at 'page' of v a frame if it has none, whatever the
// protection (shared anonymous memory is populated up front), for a
// 'write' or not.  0, -ENOMEM, or -EIO (SIGBUS: past the end of a file).
// Synthetic files (/proc: vn->ops) have no pages: a private mapping of
// one gets a copy of what reading it gives.
static int populate_page(struct mm *mm, struct vma *v, uint64_t page, bool write)
{
	pte_t *e = arch_pte_walk(mm->root_pa, page, true, true);

	if (!e)
		return -ENOMEM;
	if (pte_has_frame(arch_pte_get(e)))
		return 0;
	if (vma_shared_file(v))
		return map_file_page(mm, v, page, e, false);
	if (v->file && !v->file->ops)
		return private_file_page(mm, v, page, write, e);
	uint64_t pa = fill_page(v, page);
	if (!pa)
		return -ENOMEM;
	arch_pte_set(e, pte_make(pa, v->prot, false, v->flags & VMA_SHARED));
	rss_add(mm, pa);
	return 0;
}

static int populate_range(struct mm *mm, struct vma *v, uint64_t start, uint64_t end)
{
	for (uint64_t p = start; p < end; p += PAGE_SIZE)
		if (populate_page(mm, v, p, false) < 0)
			return -ENOMEM;
	return 0;
}

// The calling process's RLIMIT_STACK (as Linux, read at fault time).
static uint64_t stack_limit(void)
{
	struct thread *t = current_thread();

	if (!t || !t->proc)
		return USER_STACK_SIZE;
	return t->proc->rlimits[RLIMIT_STACK].cur;
}

// ---- RLIMIT_AS and RLIMIT_DATA ----
//
// Linux's may_expand_vm: an address space may not grow past the caller's
// RLIMIT_AS, nor its data mappings (private, writable, not a stack) past
// RLIMIT_DATA.  The sizes are summed only when a limit is set, so a
// process without one (the default) pays nothing for them.

static const struct rlimit_pair *caller_limits(void)
{
	struct thread *t = current_thread();

	return t && t->proc ? t->proc->rlimits : NULL;
}

static bool is_data_mapping(int prot, int vflags)
{
	return (prot & PROT_WRITE) && !(vflags & (VMA_SHARED | VMA_GROWSDOWN));
}

// Bytes of [start, end) mapped, or only in data mappings; mm->lock held.
static uint64_t mapped_in(struct mm *mm, uint64_t start, uint64_t end, bool data_only)
{
	uint64_t n = 0;

	for (struct vma *v = vma_from(mm, start); v && v->node.start < end; v = vma_next(v))
		if (!data_only || is_data_mapping(v->prot, v->flags))
			n += min_u64(v->node.end, end) - max_u64(v->node.start, start);
	return n;
}

// May mm take 'size' more bytes of mapping, of a data mapping if 'data',
// where [gone, gone + size) goes (MAP_FIXED: what it replaces is not
// counted twice; gone 0: nothing)?  mm->lock held.
static bool may_expand(struct mm *mm, uint64_t size, bool data, uint64_t gone)
{
	const struct rlimit_pair *rl = caller_limits();

	if (!rl)
		return true;
	if (rl[RLIMIT_AS].cur != UINT64_MAX) {
		uint64_t total = mapped_in(mm, 0, USER_TOP, false) + size;
		if (gone)
			total -= mapped_in(mm, gone, gone + size, false);
		if (total > rl[RLIMIT_AS].cur)
			return false;
	}
	if (data && rl[RLIMIT_DATA].cur != UINT64_MAX) {
		uint64_t d = mapped_in(mm, 0, USER_TOP, true) + size;
		if (gone)
			d -= mapped_in(mm, gone, gone + size, true);
		// A limit of 0 under a higher hard one lets it through (Linux).
		if (d > rl[RLIMIT_DATA].cur && !(rl[RLIMIT_DATA].cur == 0 && d <= rl[RLIMIT_DATA].max))
			return false;
	}
	return true;
}

// A fault below a grows-down mapping: extends it down to the page, unless
// that makes it larger than RLIMIT_STACK or brings it within the guard
// gap of an accessible mapping below (Linux's rule).  The mapping, or
// NULL: SIGSEGV.
static struct vma *grow_stack(struct mm *mm, uint64_t addr)
{
	struct vma *v = vma_from(mm, addr);
	uint64_t page = addr & PAGE_MASK;

	if (!v || !(v->flags & VMA_GROWSDOWN) || page < USER_MIN_ADDR)
		return 0;
	if (v->node.end - page > stack_limit() || !may_expand(mm, v->node.start - page, false, 0))
		return 0;
	struct vma *prev = vma_prev(v);
	if (prev && !(prev->flags & VMA_GROWSDOWN) &&
	    (prev->prot & (PROT_READ | PROT_WRITE | PROT_EXEC)) &&
	    page - prev->node.end < STACK_GUARD_GAP)
		return 0;
	v->node.start = page;
	vt_update(&v->node);
	return v;
}

static int fault_locked(struct mm *mm, uint64_t addr, bool write, bool exec, struct gather *g)
{
	struct vma *v = vma_find(mm, addr);
	uint64_t page = addr & PAGE_MASK;

	if (!v)
		v = grow_stack(mm, addr);
	if (!v)
		return -EFAULT;
	if (!vma_allows(v, write, exec))
		return -EACCES;
	pte_t *e = arch_pte_walk(mm->root_pa, page, true, true);
	if (!e)
		return -ENOMEM;
	bool shared = v->flags & VMA_SHARED;
	if (!pte_has_frame(arch_pte_get(e)))
		return populate_page(mm, v, page, write);
	if (write && pte_is_cow(arch_pte_get(e))) {
		uint64_t old = pte_frame(arch_pte_get(e));
		// A file's frame is never taken over, even when no one else
		// maps it: it is the file's.
		if (frame_page(old)->refcount == 1 && frame_page(old)->use != FRAME_FILE) {
			// Only ours: keep it.  A CPU still caching the read-only
			// entry faults once more and flushes it (below).
			arch_pte_set(e, pte_make(old, v->prot, false, shared));
		} else {
			uint64_t pa = user_frame(false);
			if (!pa)
				return -ENOMEM;
			frame_set_use(pa, FRAME_USER);
			memcpy(phys_to_virt(pa), phys_to_virt(old), PAGE_SIZE);
			arch_pte_set(e, pte_make(pa, v->prot, false, shared));
			// The file's frame gives way to a private copy.
			if (frame_page(old)->use == FRAME_FILE)
				mm->rss_file--;
			// Our reference to the shared frame goes only when no CPU
			// can read it through this mm any more.
			gather_frame(g, page, old);
		}
		return 0;
	}
	// Present and allowed: a stale TLB entry (another CPU changed it).
	arch_tlb_flush_page(page);
	return 0;
}

int vm_fault(struct mm *mm, uint64_t addr, bool write, bool exec)
{
	struct gather g;

	gather_init(&g, mm);
	spin_lock(&mm->lock);
	int r = fault_locked(mm, addr, write, exec, &g);
	gather_flush(&g);
	spin_unlock(&mm->lock);
	if (r == 0)
		acct_page_fault();	// ru_minflt: none needs I/O here
	return r;
}

// ---- finding room ----

// Is [start, start + len) free, and clear of the guard gap of the mapping
// above it?  (Where mmap may put something of its own choosing.)
static bool range_free(struct mm *mm, uint64_t start, uint64_t len)
{
	struct vma *next = vma_from(mm, start);

	return !next || start + len <= vt_reach(&next->node);
}

// Does nothing overlap [start, end)?  (MAP_FIXED_NOREPLACE.)
static bool range_empty(struct mm *mm, uint64_t start, uint64_t end)
{
	struct vma *next = vma_from(mm, start);

	return !next || next->node.start >= end;
}

// Linux's default overcommit heuristic: a single request for more memory
// than the machine has is refused at once.
static bool fits_in_ram(uint64_t bytes)
{
	uint64_t total, free;

	frame_stats(&total, &free);
	return bytes / PAGE_SIZE <= total;
}

// Is memory of this mapping held against RAM (and so checked by
// fits_in_ram)?  Writable private memory and shared memory, unless
// MAP_NORESERVE.
static bool accounted(int prot, int vflags)
{
	if (vflags & VMA_NORESERVE)
		return false;
	return (vflags & VMA_SHARED) || (prot & PROT_WRITE);
}

// A free range of len bytes for a mapping without MAP_FIXED: at the hint
// if that range is free, else the lowest free range above mmap_base, else
// anywhere.  0 if there is no room.
static uint64_t find_room(struct mm *mm, uint64_t hint, uint64_t len, int flags)
{
	uint64_t lo = mm->mmap_base, hi = MMAP_TOP, top = USER_TOP, at;

	if (flags & MAP_32BIT) {
		lo = MAP_32BIT_LO;
		hi = top = MAP_32BIT_HI;
	}
	hint = page_up(hint);
	if (hint >= USER_MIN_ADDR && len <= top && hint <= top - len && range_free(mm, hint, len))
		return hint;
	if (vt_find_gap(&mm->vmas, len, lo, hi, &at))
		return at;
	if (!(flags & MAP_32BIT) && vt_find_gap(&mm->vmas, len, USER_MIN_ADDR, hi, &at))
		return at;
	return 0;
}

// ---- mmap ----

static int vma_flags_for(int map_flags)
{
	int f = 0;

	if ((map_flags & MAP_TYPE) != MAP_PRIVATE)
		f |= VMA_SHARED;
	if (map_flags & MAP_NORESERVE)
		f |= VMA_NORESERVE;
	if (map_flags & MAP_GROWSDOWN)
		f |= VMA_GROWSDOWN;
	if (map_flags & MAP_LOCKED)
		f |= VMA_LOCKED;
	return f;
}

// Chooses where a new mapping goes (unmapping what MAP_FIXED replaces).
static long place_locked(struct mm *mm, uint64_t addr, uint64_t size, int flags, struct gather *g)
{
	// Linux lets the count reach one past the limit here.
	if (mm->vmas.count > MAX_MAP_COUNT)
		return -ENOMEM;
	if (!(flags & (MAP_FIXED | MAP_FIXED_NOREPLACE))) {
		uint64_t at = find_room(mm, addr, size, flags);
		return at ? (long)at : -ENOMEM;
	}
	if (addr < USER_MIN_ADDR)
		return -EPERM;		// the NULL pages stay unmapped
	if (addr > USER_TOP || size > USER_TOP - addr)
		return -ENOMEM;
	if (flags & MAP_FIXED_NOREPLACE)
		return range_empty(mm, addr, addr + size) ? (long)addr : -EEXIST;
	int r = unmap_locked(mm, addr, addr + size, g);
	return r < 0 ? r : (long)addr;
}

static uint64_t memlock_limit(void);
static uint64_t locked_in(struct mm *mm, uint64_t start, uint64_t end);

long vm_map(struct mm *mm, uint64_t addr, size_t len, int prot, int flags,
	    struct vnode *file, uint64_t off, uint64_t file_bytes, bool file_writable)
{
	if (len == 0)
		return -EINVAL;
	uint64_t size = page_up(len);
	if (size == 0 || size > USER_TOP)
		return -ENOMEM;
	if ((flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) && (addr & ~PAGE_MASK))
		return -EINVAL;
	int vflags = vma_flags_for(flags);
	if (mm->lock_future)
		vflags |= VMA_LOCKED;	// mlockall(MCL_FUTURE)
	// Linux's can_do_mlock for MAP_LOCKED, then its mlock_future_check
	// for any locked mapping (a rough one: what the mapping replaces is
	// not subtracted).
	uint64_t lock_limit = memlock_limit();
	if ((flags & MAP_LOCKED) && lock_limit == 0)
		return -EPERM;
	if ((vflags & VMA_LOCKED) && lock_limit != UINT64_MAX &&
	    vm_locked_bytes(mm) + size > lock_limit)
		return -EAGAIN;
	if (accounted(prot, vflags) && !fits_in_ram(size))
		return -ENOMEM;
	struct vma *v = kzalloc(sizeof(*v));
	if (!v)
		return -ENOMEM;
	struct gather g;
	gather_init(&g, mm);
	spin_lock(&mm->lock);
	if (!may_expand(mm, size, is_data_mapping(prot, vflags),
			(flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) ? addr : 0)) {
		spin_unlock(&mm->lock);
		kfree(v);
		return -ENOMEM;
	}
	long start = place_locked(mm, addr, size, flags, &g);
	gather_flush(&g);
	if (start < 0) {
		spin_unlock(&mm->lock);
		kfree(v);
		return start;
	}
	v->node.start = (uint64_t)start;
	v->node.end = (uint64_t)start + size;
	v->prot = prot;
	v->flags = vflags;
	if (vflags & VMA_GROWSDOWN)
		v->node.guard = STACK_GUARD_GAP;
	if (file) {
		vnode_get(file);
		v->file = file;
		v->file_off = off;
		v->file_end = (uint64_t)start + file_bytes;
	}
	if (file && file_writable && (vflags & VMA_SHARED))
		v->flags |= VMA_MAYWRITE;
	if (file) {
		int r = file_link_new(mm, v);
		if (r < 0) {
			vnode_put(file);
			spin_unlock(&mm->lock);
			kfree(v);
			return r;
		}
	}
	vt_insert(&mm->vmas, &v->node);
	// File pages are the file's, found at each fault; MAP_POPULATE
	// faults them in up to the end of the file, failing nothing (Linux).
	if (file) {
		if (flags & MAP_POPULATE)
			for (uint64_t p = v->node.start; p < v->file_end; p += PAGE_SIZE)
				if (populate_page(mm, v, p, false) < 0)
					break;
	} else if ((vflags & VMA_SHARED) || (flags & MAP_POPULATE)) {
		// Shared anonymous pages must exist before a fork can share them.
		if (populate_range(mm, v, v->node.start, v->node.end) < 0) {
			unmap_locked(mm, v->node.start, v->node.end, &g);
			gather_flush(&g);
			spin_unlock(&mm->lock);
			return -ENOMEM;
		}
	}
	merge_around(mm, v);
	spin_unlock(&mm->lock);
	return start;
}

// ---- munmap ----

// Linux's checks for a range to unmap: page-aligned start, inside user
// space, not empty.
static int unmap_range_ok(uint64_t addr, uint64_t len)
{
	if ((addr & ~PAGE_MASK) || addr > USER_TOP || len > USER_TOP - addr)
		return -EINVAL;
	if (page_up(len) == 0)
		return -EINVAL;
	return 0;
}

int vm_unmap(struct mm *mm, uint64_t addr, size_t len)
{
	int r = unmap_range_ok(addr, len);

	if (r < 0)
		return r;
	struct gather g;
	gather_init(&g, mm);
	spin_lock(&mm->lock);
	r = unmap_locked(mm, addr, addr + page_up(len), &g);
	gather_flush(&g);
	spin_unlock(&mm->lock);
	return r;
}

// ---- mprotect ----

// New protection for v and every frame it maps.
static void set_prot(struct mm *mm, struct vma *v, int prot)
{
	bool shared = v->flags & VMA_SHARED;
	uint64_t va = v->node.start;
	pte_t *e;

	v->prot = prot;
	while ((e = arch_pte_next_with_frame(mm->root_pa, &va, v->node.end)) != 0) {
		uint64_t pa = pte_frame(arch_pte_get(e));
		bool cow = pte_is_cow(arch_pte_get(e)) || (!shared && frame_page(pa)->refcount > 1);
		arch_pte_set(e, pte_make(pa, prot, cow, shared));
		va += PAGE_SIZE;
	}
}

// [start, end) is page aligned, not empty, and does not wrap.  As Linux,
// the mappings up to the first hole change; the hole gives ENOMEM.
int vm_protect(struct mm *mm, uint64_t start, size_t len, int prot, bool growsdown)
{
	uint64_t end = start + len, cur;
	struct vma *v, *last = 0;
	int err = 0;

	spin_lock(&mm->lock);
	v = vma_from(mm, start);
	if (!v || v->node.start >= end) {
		err = -ENOMEM;
		goto out;
	}
	if (growsdown) {
		// PROT_GROWSDOWN: down to the start of the stack mapping.
		if (!(v->flags & VMA_GROWSDOWN)) {
			err = -EINVAL;
			goto out;
		}
		start = v->node.start;
	} else if (v->node.start > start) {
		err = -ENOMEM;
		goto out;
	}
	cur = start;
	while (v && v->node.start < end) {
		if (v->node.start > cur) {
			err = -ENOMEM;		// a hole
			break;
		}
		// A shared mapping of a file not open for writing (or sealed
		// against future writes) never becomes writable: Linux's
		// VM_MAYWRITE.
		if ((prot & PROT_WRITE) && vma_shared_file(v) && !(v->flags & VMA_MAYWRITE)) {
			err = -EACCES;
			break;
		}
		if (v->prot == prot) {
			// Nothing to change: no split (which could fail at the
			// map count limit), as Linux.
			cur = v->node.end;
			last = v;
			v = vma_next(v);
			continue;
		}
		if ((err = boundary_at(mm, start)) < 0 || (err = boundary_at(mm, end)) < 0)
			break;
		v = vma_find(mm, cur);
		set_prot(mm, v, prot);
		cur = v->node.end;
		last = merge_prev(mm, v);
		v = vma_next(last);
	}
	if (!err && cur < end)
		err = -ENOMEM;
	if (last)
		merge_next(mm, last);
	// Before anyone can rely on the new protection.
	arch_tlb_shootdown(mm, start, end);
out:
	spin_unlock(&mm->lock);
	return err;
}

// ---- madvise ----

// Sets and clears VMA flags on [start, end) of v, splitting it as
// needed.  *vp becomes the mapping holding [start, end).
static int change_flags(struct mm *mm, struct vma **vp, uint64_t start, uint64_t end,
			int set, int clear)
{
	struct vma *v = *vp;
	int flags = (v->flags | set) & ~clear;

	if (flags == v->flags)
		return 0;
	// madvise says EAGAIN when the kernel is short of resources.
	if (boundary_at(mm, start) < 0 || boundary_at(mm, end) < 0)
		return -EAGAIN;
	v = vma_find(mm, start);
	v->flags = flags;
	*vp = merge_prev(mm, v);
	return 0;
}

// Applies advice to [start, end), a part of v.
static int advise_one(struct mm *mm, struct vma **vp, uint64_t start, uint64_t end,
		      int advice, struct gather *g)
{
	struct vma *v = *vp;
	bool shared = v->flags & VMA_SHARED, locked = v->flags & VMA_LOCKED;

	switch (advice) {
	case MADV_FREE:
		if (locked || v->file || shared)
			return -EINVAL;
		unmap_pages(mm, start, end, g);
		return 0;
	case MADV_COLD:
	case MADV_PAGEOUT:
		// Hints, but not for locked memory (Linux's can_madv_lru_vma).
		return locked ? -EINVAL : 0;
	case MADV_DONTNEED:
		// Locked pages stay (Linux's madvise_dontneed_free_valid_vma);
		// MADV_DONTNEED_LOCKED is the advice that drops them.
		if (locked)
			return -EINVAL;
		// fall through
	case MADV_DONTNEED_LOCKED:
		// Shared anonymous pages have no other home: keep them (they
		// would come back with the same bytes).  A shared file page
		// stays in the file and comes back from it.
		if (!shared || v->file)
			unmap_pages(mm, start, end, g);
		return 0;
	case MADV_DONTFORK:
		return change_flags(mm, vp, start, end, VMA_DONTFORK, 0);
	case MADV_DOFORK:
		return change_flags(mm, vp, start, end, 0, VMA_DONTFORK);
	case MADV_WIPEONFORK:
		if (v->file || shared)
			return -EINVAL;
		return change_flags(mm, vp, start, end, VMA_WIPEONFORK, 0);
	case MADV_KEEPONFORK:
		return change_flags(mm, vp, start, end, 0, VMA_WIPEONFORK);
	case MADV_POPULATE_READ:
	case MADV_POPULATE_WRITE: {
		bool write = advice == MADV_POPULATE_WRITE;
		if (!vma_allows(v, write, false))
			return -EINVAL;
		for (uint64_t p = start; p < end; p += PAGE_SIZE)
			if (fault_locked(mm, p, write, false, g) < 0)
				return -ENOMEM;
		return 0;
	}
	default:
		return 0;	// a hint: nothing to do
	}
}

// [start, end) is page aligned, not empty, and does not wrap; advice is
// one the caller accepts.  As Linux, every mapped part is advised and a
// hole anywhere gives ENOMEM at the end.
int vm_shared_file_span(struct mm *mm, uint64_t start, uint64_t size, struct vm_span *out)
{
	int rc = -EINVAL;

	spin_lock(&mm->lock);
	struct vma *v = vma_find(mm, start);
	if (v && (v->flags & VMA_SHARED) && v->file) {
		struct vma *w = v;
		rc = 0;
		// The range may run over more mappings, if they go on without a
		// hole, of the same file with the same protection and flags.
		while (rc == 0 && w->node.end < start + size) {
			struct vma *n = vma_next(w);
			if (!n || n->node.start != w->node.end || n->file != v->file ||
			    n->prot != v->prot || n->flags != v->flags)
				rc = -EINVAL;
			w = n;
		}
	}
	if (rc == 0) {
		out->file = v->file;
		vnode_get(out->file);
		out->prot = v->prot;
		out->writable = v->flags & VMA_MAYWRITE;
		out->locked = v->flags & VMA_LOCKED;
	}
	spin_unlock(&mm->lock);
	return rc;
}

int vm_mincore(struct mm *mm, uint64_t start, size_t npages, uint8_t *vec)
{
	uint64_t addr = start;
	int err = 0;

	spin_lock(&mm->lock);
	for (size_t i = 0; i < npages; i++, addr += PAGE_SIZE) {
		struct vma *v = vma_find(mm, addr);
		pte_t *e;

		if (!v) {
			err = -ENOMEM;		// a hole in the range, as Linux
			break;
		}
		e = arch_pte_walk(mm->root_pa, addr, false, false);
		vec[i] = e && pte_has_frame(arch_pte_get(e));
		// A file page not faulted in yet is still in memory: every file
		// is (Linux reports the page cache).
		if (!vec[i] && v->file && addr < v->file_end)
			vec[i] = vnode_page_resident(v->file,
						     (v->file_off + (addr - v->node.start)) / PAGE_SIZE);
	}
	spin_unlock(&mm->lock);
	return err;
}

// Why MADV_REMOVE refuses v, or 0: it punches a hole in the file behind
// a shared file mapping that may be writable (Linux's
// vma_is_shared_maywrite).  Freeing shared anonymous memory for
// every sharer is not supported; the rest is Linux's EINVAL or EACCES.
static int remove_refused(const struct vma *v)
{
	if (v->flags & VMA_LOCKED)
		return -EINVAL;
	if (!v->file)
		return (v->flags & VMA_SHARED) ? -EOPNOTSUPP : -EINVAL;
	if (!(v->flags & VMA_SHARED) || !(v->flags & VMA_MAYWRITE))
		return -EACCES;
	return 0;
}

// MADV_REMOVE: one mapping at a time, with mm->lock dropped while the
// hole is punched (that takes the pages out of every address space, this
// one included).  As Linux, the first mapping that refuses ends it, and a
// hole in the range gives ENOMEM at the end.
static int vm_remove(struct mm *mm, uint64_t start, uint64_t end)
{
	uint64_t cur = start;
	bool hole = false;

	while (cur < end) {
		spin_lock(&mm->lock);
		struct vma *v = vma_from(mm, cur);
		if (!v || v->node.start >= end) {
			spin_unlock(&mm->lock);
			hole = true;
			break;
		}
		if (v->node.start > cur)
			hole = true;
		uint64_t s = max_u64(v->node.start, cur), e = min_u64(v->node.end, end);
		int r = remove_refused(v);
		struct vnode *vn = v->file;
		uint64_t off = v->file_off + (s - v->node.start);
		if (r == 0)
			vnode_get(vn);
		spin_unlock(&mm->lock);
		if (r < 0)
			return r;
		r = vnode_punch(vn, off, e - s);
		vnode_put(vn);
		if (r < 0)
			return r;
		cur = e;
	}
	return hole ? -ENOMEM : 0;
}

int vm_advise(struct mm *mm, uint64_t start, size_t len, int advice)
{
	uint64_t end = start + len, cur = start;
	struct vma *v, *last = 0;
	bool hole = false;
	int err = 0;
	struct gather g;

	if (advice == MADV_REMOVE)
		return vm_remove(mm, start, end);
	gather_init(&g, mm);
	spin_lock(&mm->lock);
	for (v = vma_from(mm, start); v && v->node.start < end; v = vma_next(v)) {
		if (v->node.start > cur)
			hole = true;
		uint64_t s = max_u64(v->node.start, start), e = min_u64(v->node.end, end);
		err = advise_one(mm, &v, s, e, advice, &g);
		if (err)
			break;
		last = v;
		cur = e;
	}
	if (last)
		merge_next(mm, last);
	if (!err && (hole || cur < end))
		err = -ENOMEM;
	gather_flush(&g);
	spin_unlock(&mm->lock);
	return err;
}

// ---- mremap ----

// Moves the pages of [old, old + old_len) (inside v) to a new mapping at
// [dst, dst + new_len), which must be free, and unmaps the old range.
// The frames move with their entries: nothing is copied.
// MREMAP_DONTUNMAP: the page tables [dst, dst + len) will need, made
// before anything moves, so that nothing can fail half-way.
static bool tables_ready(struct mm *mm, uint64_t dst, uint64_t len)
{
	for (uint64_t va = dst; va < dst + len; va = (va | ((1UL << PTE_LEAF_SHIFT) - 1)) + 1)
		if (!arch_pte_walk(mm->root_pa, va, true, true))
			return false;
	return true;
}

// Moves [old, old + old_len) of v to [dst, dst + new_len): its entries go
// along, the old range is unmapped.  With 'keep_old' (MREMAP_DONTUNMAP,
// old_len == new_len) the old range stays mapped, empty, as Linux's
// move_vma leaves it: private pages are gone from it (zero, or the
// file's, at the next touch), a shared file mapping finds the file's
// pages again, and shared anonymous memory, which has no other home here,
// is mapped at both places; the old one is no longer locked.
static long move_locked(struct mm *mm, struct vma *v, uint64_t old, uint64_t old_len,
			uint64_t dst, uint64_t new_len, struct gather *g, bool keep_old)
{
	// Linux's margin: the old mapping may split in three, plus the new one.
	if (mm->vmas.count + 3 > MAX_MAP_COUNT)
		return -ENOMEM;
	// Boundaries first: once entries move nothing may fail.
	if (boundary_at(mm, old) < 0 || boundary_at(mm, old + old_len) < 0)
		return -ENOMEM;
	if (keep_old && !tables_ready(mm, dst, new_len))
		return -ENOMEM;
	v = vma_find(mm, old);
	struct vma *w = kmalloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = *v;
	w->node.start = dst;
	w->node.end = dst + new_len;
	w->file_end = dst + (v->file_end > old ? v->file_end - old : 0);
	bool both = keep_old && (v->flags & VMA_SHARED) && !v->file;
	uint64_t va = old;
	pte_t *e;
	while ((e = arch_pte_next_with_frame(mm->root_pa, &va, old + old_len)) != 0) {
		if (both) {
			uint64_t pa = pte_frame(arch_pte_get(e));
			arch_pte_set(arch_pte_walk(mm->root_pa, dst + (va - old), true, true),
				     arch_pte_get(e));
			frame_ref(pa);
			rss_add(mm, pa);
			va += PAGE_SIZE;
			continue;
		}
		pte_t *d = arch_pte_walk(mm->root_pa, dst + (va - old), true, true);
		if (!d) {
			// Out of page tables: put back what moved.
			for (uint64_t back = dst; back < dst + (va - old); back += PAGE_SIZE) {
				pte_t *b = arch_pte_walk(mm->root_pa, back, false, true);
				if (b && pte_has_frame(arch_pte_get(b))) {
					arch_pte_set(arch_pte_walk(mm->root_pa, old + (back - dst), false, true), arch_pte_get(b));
					arch_pte_set(b, 0);
				}
			}
			gather_range(g, dst, dst + new_len);
			kfree(w);
			return -ENOMEM;
		}
		arch_pte_set(d, arch_pte_get(e));
		arch_pte_set(e, 0);
		va += PAGE_SIZE;
	}
	gather_range(g, old, old + old_len);
	if (w->file) {
		vnode_get(w->file);
		file_link(mm, w);
	}
	if (keep_old) {
		v->flags &= ~VMA_LOCKED;
		merge_around(mm, v);
	} else {
		vt_remove(&mm->vmas, &v->node);
		vma_free(v);
	}
	vt_insert(&mm->vmas, &w->node);
	if ((w->flags & VMA_SHARED) && !w->file &&
	    populate_range(mm, w, dst + old_len, dst + new_len) < 0) {
		unmap_locked(mm, dst, dst + new_len, g);
		return -ENOMEM;
	}
	merge_around(mm, w);
	return (long)dst;
}

// The checks Linux makes before growing or moving [old, old + old_len).
static int resize_ok(struct mm *mm, struct vma *v, uint64_t old, uint64_t old_len,
		     uint64_t new_len)
{
	if (old_len > v->node.end - old)
		return -EFAULT;
	// old_len 0 duplicates a shared mapping on Linux (EINVAL for a
	// private one); shared anonymous memory has no file to map again
	// here: not supported.
	if (old_len == 0 && !vma_shared_file(v))
		return -EINVAL;
	// An aio ring is VM_DONTEXPAND on Linux.
	if (new_len > old_len && (v->flags & VMA_AIO_RING))
		return -EFAULT;
	if (new_len <= old_len)
		return 0;
	uint64_t lock_limit = memlock_limit();
	if ((v->flags & VMA_LOCKED) && lock_limit != UINT64_MAX &&
	    locked_in(mm, 0, USER_TOP) + (new_len - old_len) > lock_limit)
		return -EAGAIN;
	if (!may_expand(mm, new_len - old_len, is_data_mapping(v->prot, v->flags), 0))
		return -ENOMEM;
	return 0;
}

// mremap with old_len 0: a second mapping of the same file pages at
// [dst, dst + new_len), which must be free; the old one stays as it is.
static long dup_locked(struct mm *mm, struct vma *v, uint64_t old, uint64_t dst,
		       uint64_t new_len)
{
	if (mm->vmas.count >= MAX_MAP_COUNT)
		return -ENOMEM;
	struct vma *w = kmalloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = *v;
	w->node.start = dst;
	w->node.end = dst + new_len;
	w->file_off = v->file_off + (old - v->node.start);
	w->file_end = dst + (v->file_end > old ? v->file_end - old : 0);
	vnode_get(w->file);
	file_link(mm, w);
	vt_insert(&mm->vmas, &w->node);
	return (long)dst;
}

// Linux's checks for MREMAP_DONTUNMAP of len bytes of v: not an aio
// ring (VM_DONTEXPAND), and room under RLIMIT_AS and RLIMIT_DATA for
// the copy, since the old range stays.
static int keep_ok(struct mm *mm, struct vma *v, uint64_t len)
{
	if (v->flags & VMA_AIO_RING)
		return -EINVAL;
	if (!may_expand(mm, len, is_data_mapping(v->prot, v->flags), 0))
		return -ENOMEM;
	return 0;
}

// MREMAP_FIXED: to exactly new_addr, replacing what is there.
static long remap_to(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len,
		     uint64_t new_addr, struct gather *g, bool keep_old)
{
	if (new_addr & ~PAGE_MASK)
		return -EINVAL;
	if (new_len > USER_TOP || new_addr > USER_TOP - new_len)
		return -EINVAL;
	if (!(new_addr + new_len <= old || old + old_len <= new_addr))
		return -EINVAL;		// overlapping ranges
	if (new_addr < USER_MIN_ADDR)
		return -EPERM;
	if (mm->vmas.count + 2 + 3 > MAX_MAP_COUNT)
		return -ENOMEM;
	int r = unmap_locked(mm, new_addr, new_addr + new_len, g);
	if (r == 0 && old_len > new_len) {
		r = unmap_range_ok(old + new_len, old_len - new_len);
		if (r == 0)
			r = unmap_locked(mm, old + new_len, old + old_len, g);
		old_len = new_len;
	}
	if (r < 0)
		return r;
	struct vma *v = vma_find(mm, old);
	if (!v)
		return -EFAULT;
	r = resize_ok(mm, v, old, old_len, new_len);
	if (r == 0 && keep_old)
		r = keep_ok(mm, v, old_len);
	if (r < 0)
		return r;
	if (new_len > old_len && accounted(v->prot, v->flags) && !fits_in_ram(new_len - old_len))
		return -ENOMEM;
	if (old_len == 0)
		return dup_locked(mm, v, old, new_addr, new_len);
	return move_locked(mm, v, old, old_len, new_addr, new_len, g, keep_old);
}

// MREMAP_DONTUNMAP without MREMAP_FIXED: a move of the same length to
// where there is room, the old range left mapped.
static long move_keeping(struct mm *mm, struct vma *v, uint64_t old, uint64_t len,
			 struct gather *g)
{
	int r = resize_ok(mm, v, old, len, len);

	if (r == 0)
		r = keep_ok(mm, v, len);
	if (r < 0)
		return r;
	uint64_t dst = find_room(mm, 0, len, 0);
	if (!dst)
		return -ENOMEM;
	return move_locked(mm, v, old, len, dst, len, g, true);
}

// Grows [old, old + old_len) to new_len: in place if the mapping ends
// there and the room after it is free, else moved if allowed.
static long grow_locked(struct mm *mm, struct vma *v, uint64_t old, uint64_t old_len,
			uint64_t new_len, int flags, struct gather *g)
{
	int r = resize_ok(mm, v, old, old_len, new_len);

	if (r < 0)
		return r;
	uint64_t extra = new_len - old_len;
	if (accounted(v->prot, v->flags) && !fits_in_ram(extra))
		return -ENOMEM;
	if (old + old_len == v->node.end && v->node.end <= USER_TOP - extra &&
	    range_free(mm, v->node.end, extra)) {
		uint64_t from = v->node.end;
		v->node.end += extra;
		vt_update(&v->node);
		if (v->file)
			v->file_end = v->node.start + min_u64(v->file->size > v->file_off ?
							       v->file->size - v->file_off : 0,
							       v->node.end - v->node.start);
		if ((v->flags & VMA_SHARED) && !v->file &&
		    populate_range(mm, v, from, v->node.end) < 0) {
			unmap_locked(mm, from, v->node.end, g);
			return -ENOMEM;
		}
		merge_next(mm, v);
		return (long)old;
	}
	if (!(flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	uint64_t dst = find_room(mm, 0, new_len, 0);
	if (!dst)
		return -ENOMEM;
	if (old_len == 0)
		return dup_locked(mm, v, old, dst, new_len);
	return move_locked(mm, v, old, old_len, dst, new_len, g, false);
}

// mremap after the caller's checks: flags valid, old page aligned, both
// lengths page aligned, 0 < new_len <= USER_TOP.
long vm_remap(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len, int flags,
	      uint64_t new_addr)
{
	struct gather g;
	long r;

	gather_init(&g, mm);
	spin_lock(&mm->lock);
	struct vma *v = vma_find(mm, old);
	if (!v) {
		r = -EFAULT;
	} else if ((flags & MREMAP_DONTUNMAP) && !(flags & MREMAP_FIXED)) {
		r = move_keeping(mm, v, old, old_len, &g);
	} else if ((flags & MREMAP_DONTUNMAP) && (v->flags & VMA_AIO_RING)) {
		r = -EINVAL;
	} else if (flags & MREMAP_FIXED) {
		// A ring moves with its context (Linux's aio_ring_mremap),
		// which must be a live one of this address space.
		pte_t *e = (v->flags & VMA_AIO_RING) ? arch_pte_walk(mm->root_pa, old, false, true) : 0;
		uint64_t ring_pa = e && pte_has_frame(arch_pte_get(e)) ? pte_frame(arch_pte_get(e)) : 0;
		if ((v->flags & VMA_AIO_RING) && (!ring_pa || aio_ring_moved(mm, ring_pa, 0) < 0))
			r = -EINVAL;
		else
			r = remap_to(mm, old, old_len, new_len, new_addr, &g, flags & MREMAP_DONTUNMAP);
		if (r >= 0 && ring_pa)
			aio_ring_moved(mm, ring_pa, (uint64_t)r);
	} else if (old_len >= new_len) {
		r = (long)old;
		if (old_len > new_len) {
			int u = unmap_range_ok(old + new_len, old_len - new_len);
			if (u == 0)
				u = unmap_locked(mm, old + new_len, old + old_len, &g);
			if (u < 0)
				r = u;
		}
	} else {
		r = grow_locked(mm, v, old, old_len, new_len, flags, &g);
	}
	gather_flush(&g);
	spin_unlock(&mm->lock);
	return r;
}

// ---- brk ----

// Linux's check_data_rlimit: the heap and the program's data together
// within RLIMIT_DATA.
static bool brk_data_ok(struct mm *mm, uint64_t new_brk)
{
	const struct rlimit_pair *rl = caller_limits();

	return !rl || rl[RLIMIT_DATA].cur == UINT64_MAX ||
	       (new_brk - mm->brk_start) + (mm->end_data - mm->start_data) <= rl[RLIMIT_DATA].cur;
}

long vm_brk(struct mm *mm, uint64_t new_brk)
{
	struct gather g;

	gather_init(&g, mm);
	spin_lock(&mm->lock);
	uint64_t old_end = page_up(mm->brk), new_end = page_up(new_brk);
	if (new_brk < mm->brk_start || new_brk > USER_TOP)
		goto out;
	if (new_end > old_end) {
		// As Linux: a page of room must stay free above the break.
		uint64_t grow = new_end - old_end;
		if (new_end > USER_TOP - PAGE_SIZE || !range_free(mm, old_end, grow + PAGE_SIZE) ||
		    mm->vmas.count > MAX_MAP_COUNT || !fits_in_ram(grow) ||
		    !brk_data_ok(mm, new_brk) || !may_expand(mm, grow, true, 0))
			goto out;
		// The heap's own mapping usually ends at the old break: it
		// just grows (no mapping made to be merged and freed again).
		struct vma *below = old_end ? vma_find(mm, old_end - 1) : NULL;
		struct vma probe = { .node = { .start = old_end, .end = new_end },
				     .prot = PROT_READ | PROT_WRITE };
		if (below && can_merge(below, &probe)) {
			below->node.end = new_end;
			vt_update(&below->node);
			goto done;
		}
		struct vma *v = kzalloc(sizeof(*v));
		if (!v)
			goto out;
		*v = probe;
		vt_insert(&mm->vmas, &v->node);
		merge_around(mm, v);
	} else if (new_end < old_end) {
		if (unmap_locked(mm, new_end, old_end, &g) < 0)
			goto out;
	}
done:
	mm->brk = new_brk;
out:
	gather_flush(&g);
	spin_unlock(&mm->lock);
	return (long)mm->brk;
}

// ---- fork ----

// fork's copy of v's page table entries.  A page that is still a file's
// own frame (a file mapping of the tree, shared, or private and not yet
// written) is left out: the child's first touch maps the same frame
// again from the file, exactly as it is now (read-only copy-on-write in
// a private mapping), so the copy would only cost time, and a child that
// execs at once never touches it (Linux likewise copies no entries of a
// file mapping without private pages).  Private copies and anonymous
// memory are shared copy-on-write (shared memory stays shared).  The
// child's leaf table is walked to once per 2 MiB, not once per page.
// 0 or -ENOMEM.
static int copy_pages(struct mm *src, struct mm *mm, struct vma *v)
{
	bool shared = v->flags & VMA_SHARED;
	bool refaults = v->file && !v->file->ops;
	uint64_t va = v->node.start, region = UINT64_MAX;
	pte_t *e, *leaf = NULL;

	while ((e = arch_pte_next_with_frame(src->root_pa, &va, v->node.end)) != 0) {
		uint64_t pa = pte_frame(arch_pte_get(e));
		if (refaults && frame_page(pa)->use == FRAME_FILE) {
			va += PAGE_SIZE;
			continue;
		}
		if (va >> PTE_LEAF_SHIFT != region) {
			pte_t *ce = arch_pte_walk(mm->root_pa, va, true, true);
			if (!ce)
				return -ENOMEM;
			leaf = ce - pte_leaf_index(va);
			region = va >> PTE_LEAF_SHIFT;
		}
		if (!shared)
			arch_pte_set(e, pte_make(pa, v->prot, true, false));
		arch_pte_set(&leaf[pte_leaf_index(va)], arch_pte_get(e));
		frame_ref(pa);
		rss_add(mm, pa);
		va += PAGE_SIZE;
	}
	return 0;
}

struct mm *mm_copy(struct mm *src)
{
	struct mm *mm = mm_create();

	if (!mm)
		return 0;
	// The child runs the same program: it denies writes to it too (this
	// cannot fail while src denies them).  exe is set before an address
	// space is used and never changes after, so no lock is needed.
	if (src->exe && vnode_deny_write_access(src->exe) == 0) {
		vnode_get(src->exe);
		mm->exe = src->exe;
	}
	spin_lock(&src->lock);
	mm->brk_start = src->brk_start;
	mm->arg_start = src->arg_start;
	mm->arg_end = src->arg_end;
	mm->env_start = src->env_start;
	mm->env_end = src->env_end;
	mm->brk = src->brk;
	mm->mmap_base = src->mmap_base;
	mm->coredump_filter = src->coredump_filter;
	mm->start_code = src->start_code;
	mm->end_code = src->end_code;
	mm->start_data = src->start_data;
	mm->end_data = src->end_data;
	mm->start_stack = src->start_stack;
	mm->auxv_start = src->auxv_start;
	mm->auxv_end = src->auxv_end;
	// membarrier registrations survive fork, as on Linux.
	mm->membarrier_state = __atomic_load_n(&src->membarrier_state, __ATOMIC_SEQ_CST);
	// The child's file mappings are on their files' lists from here on,
	// where vm_unmap_file may find them: it must wait for the copy.  (No
	// one else knows the child yet; vm_unmap_file holds one mm->lock at
	// a time, so taking two here cannot deadlock.)
	spin_lock(&mm->lock);
	bool ok = true;
	for (struct vma *v = vma_from(src, 0); v && ok; v = vma_next(v)) {
		if (v->flags & VMA_DONTFORK)
			continue;
		struct vma *c = kmalloc(sizeof(*c));
		if (!c) {
			ok = false;
			break;
		}
		*c = *v;
		c->flags &= ~VMA_LOCKED;	// locks are not inherited, as Linux
		if (c->file) {
			vnode_get(c->file);
			file_link(mm, c);
		}
		vt_insert(&mm->vmas, &c->node);
		if (!(v->flags & VMA_WIPEONFORK))
			ok = copy_pages(src, mm, v) == 0;
	}
	// The parent's writable pages just became read-only: before any
	// thread of it writes again, and before the child can run.
	arch_tlb_shootdown(src, 0, USER_END);
	spin_unlock(&mm->lock);
	spin_unlock(&src->lock);
	if (!ok) {
		mm_put(mm);
		return 0;
	}
	return mm;
}

// ---- the kernel's own accesses ----

int vm_write(struct mm *mm, uint64_t va, const void *src, size_t n)
{
	const uint8_t *s = src;

	while (n > 0) {
		struct gather g;
		gather_init(&g, mm);
		spin_lock(&mm->lock);
		int r = fault_locked(mm, va, true, false, &g);
		gather_flush(&g);
		pte_t *e = r == 0 ? arch_pte_walk(mm->root_pa, va & PAGE_MASK, false, true) : 0;
		if (!e) {
			spin_unlock(&mm->lock);
			return r ? r : -EFAULT;
		}
		size_t chunk = min_u64(PAGE_SIZE - (va & ~PAGE_MASK), n);
		memcpy((uint8_t *)phys_to_virt(pte_frame(arch_pte_get(e))) + (va & ~PAGE_MASK), s, chunk);
		spin_unlock(&mm->lock);
		va += chunk;
		s += chunk;
		n -= chunk;
	}
	return 0;
}

// vm_read and vm_write_as_owner: only what the owner could read or write
// itself, faulted in (copied on write) as its own access would be.
static int copy_as_owner(struct mm *mm, uint64_t va, uint8_t *buf, size_t n, bool write)
{
	size_t done = 0;

	while (done < n) {
		struct gather g;
		gather_init(&g, mm);
		spin_lock(&mm->lock);
		struct vma *v = vma_find(mm, va);
		int r = v && vma_allows(v, write, false) ? fault_locked(mm, va, write, false, &g)
							 : -EFAULT;
		gather_flush(&g);
		pte_t *e = r == 0 ? arch_pte_walk(mm->root_pa, va & PAGE_MASK, false, true) : 0;
		if (!e || !pte_has_frame(arch_pte_get(e))) {
			spin_unlock(&mm->lock);
			return done ? (int)done : -EFAULT;
		}
		size_t chunk = min_u64(PAGE_SIZE - (va & ~PAGE_MASK), n - done);
		uint8_t *page = (uint8_t *)phys_to_virt(pte_frame(arch_pte_get(e))) + (va & ~PAGE_MASK);
		if (write)
			memcpy(page, buf + done, chunk);
		else
			memcpy(buf + done, page, chunk);
		spin_unlock(&mm->lock);
		va += chunk;
		done += chunk;
	}
	return (int)done;
}

int vm_read(struct mm *mm, uint64_t va, void *dst, size_t n)
{
	return copy_as_owner(mm, va, dst, n, false);
}

int vm_write_as_owner(struct mm *mm, uint64_t va, const void *src, size_t n)
{
	return copy_as_owner(mm, va, (uint8_t *)src, n, true);
}

void vm_regions(struct mm *mm, void (*fn)(void *arg, const struct vm_region *r), void *arg)
{
	spin_lock(&mm->lock);
	for (struct vma *v = vma_from(mm, 0); v; v = vma_next(v)) {
		struct vm_region r = {
			.start = v->node.start, .end = v->node.end, .prot = v->prot,
			.shared = v->flags & VMA_SHARED, .stack = v->flags & VMA_GROWSDOWN,
			.file = v->file, .file_off = v->file_off,
		};
		fn(arg, &r);
	}
	spin_unlock(&mm->lock);
}

int vm_user_phys(struct mm *mm, uint64_t uaddr, uint64_t *pa)
{
	struct gather g;

	gather_init(&g, mm);
	spin_lock(&mm->lock);
	int r = fault_locked(mm, uaddr, false, false, &g);
	gather_flush(&g);
	pte_t *e = r == 0 ? arch_pte_walk(mm->root_pa, uaddr & PAGE_MASK, false, true) : 0;
	if (e && pte_has_frame(arch_pte_get(e)))
		*pa = pte_frame(arch_pte_get(e)) + (uaddr & ~PAGE_MASK);
	spin_unlock(&mm->lock);
	return e ? 0 : -EFAULT;
}

// Futex keys: 1 and the physical address of uaddr when it lies in
// MAP_SHARED memory (whose frames stay put for the mapping's life: they
// are populated at mmap time, or are the file's own pages, and never
// copied on write), 0 when it lies
// in private memory, -EFAULT when nothing readable is mapped there.
int vm_shared_phys(struct mm *mm, uint64_t uaddr, uint64_t *pa)
{
	spin_lock(&mm->lock);
	struct vma *v = vma_find(mm, uaddr);
	int r = v && vma_allows(v, false, false) ? 0 : -EFAULT;
	if (r == 0 && (v->flags & VMA_SHARED)) {
		struct gather g;
		gather_init(&g, mm);
		// A shared file page appears at its first touch.
		if (v->file && fault_locked(mm, uaddr, false, false, &g) < 0)
			r = -EFAULT;
		gather_flush(&g);
		pte_t *e = arch_pte_walk(mm->root_pa, uaddr & PAGE_MASK, false, true);
		if (r == 0 && e && pte_has_frame(arch_pte_get(e))) {
			*pa = pte_frame(arch_pte_get(e)) + (uaddr & ~PAGE_MASK);
			r = 1;
		} else {
			r = -EFAULT;
		}
	}
	spin_unlock(&mm->lock);
	return r;
}

// ---- truncation and holes: the file's pages leave every mapping ----

// A reference to mm unless it is already being freed (then no thread can
// use it any more, and its teardown drops the pages anyway).
static bool mm_tryget(struct mm *mm)
{
	int n = __atomic_load_n(&mm->refcount, __ATOMIC_SEQ_CST);

	do {
		if (n == 0)
			return false;
	} while (!__atomic_compare_exchange_n(&mm->refcount, &n, n + 1, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
	return true;
}

// An address space with a mapping of vn that this pass (gen) has not
// been through yet, referenced; NULL when there is none left.
static struct mm *next_mm_to_clear(struct vnode *vn, uint64_t gen)
{
	uint64_t flags = spin_lock_irqsave(&vn->lock);
	struct mm *mm = 0;

	for (struct vma *v = vn->maps; v && !mm; v = v->map_next) {
		if (v->map_gen == gen)
			continue;
		if (mm_tryget(v->mm))
			mm = v->mm;
		else
			v->map_gen = gen;	// dying: its teardown drops the pages
	}
	spin_unlock_irqrestore(&vn->lock, flags);
	return mm;
}

// Clears the entries of v that map file pages [first, end): every entry
// with 'even_cows' (truncation takes private copies too, as Linux), else
// only those mapping the file's own frames.  mm->lock held.
static void clear_file_range(struct mm *mm, struct vma *v, uint64_t first, uint64_t end,
			     bool even_cows, struct gather *g)
{
	uint64_t lo = v->file_off / PAGE_SIZE, hi = lo + (v->node.end - v->node.start) / PAGE_SIZE;

	first = max_u64(first, lo);
	end = min_u64(end, hi);
	if (first >= end)
		return;
	uint64_t va = v->node.start + (first - lo) * PAGE_SIZE;
	uint64_t va_end = v->node.start + (end - lo) * PAGE_SIZE;
	pte_t *e;
	while ((e = arch_pte_next_with_frame(mm->root_pa, &va, va_end)) != 0) {
		uint64_t pa = pte_frame(arch_pte_get(e));
		if (even_cows || frame_page(pa)->use == FRAME_FILE) {
			arch_pte_set(e, 0);
			rss_sub(mm, pa);
			gather_frame(g, va, pa);
		}
		va += PAGE_SIZE;
	}
}

void vm_unmap_file(struct vnode *vn, uint64_t first, uint64_t end, bool even_cows)
{
	uint64_t flags = spin_lock_irqsave(&vn->lock);
	uint64_t gen = ++vn->map_gen;
	struct mm *mm;

	spin_unlock_irqrestore(&vn->lock, flags);
	while ((mm = next_mm_to_clear(vn, gen)) != 0) {
		struct gather g;
		gather_init(&g, mm);
		spin_lock(&mm->lock);
		for (struct vma *v = vma_from(mm, 0); v; v = vma_next(v)) {
			if (v->file != vn)
				continue;
			clear_file_range(mm, v, first, end, even_cows, &g);
			flags = spin_lock_irqsave(&vn->lock);
			v->map_gen = gen;
			spin_unlock_irqrestore(&vn->lock, flags);
		}
		gather_flush(&g);
		spin_unlock(&mm->lock);
		mm_put(mm);
	}
}

// ---- msync ----

// Linux's msync walk: the data of every file mapping is always the
// file's (there is nothing to write back or to invalidate), so what is
// left are its errors.  A hole gives ENOMEM (at once for a plain
// MS_ASYNC, else at the end); MS_INVALIDATE of locked memory is EBUSY.
int vm_msync(struct mm *mm, uint64_t start, uint64_t end, int flags)
{
	int unmapped = 0, err = 0;

	spin_lock(&mm->lock);
	struct vma *v = vma_from(mm, start);
	for (;;) {
		if (!v) {
			err = -ENOMEM;
			break;
		}
		if (start < v->node.start) {
			if (flags == MS_ASYNC) {
				err = -ENOMEM;
				break;
			}
			start = v->node.start;
			if (start >= end) {
				err = -ENOMEM;
				break;
			}
			unmapped = -ENOMEM;
		}
		if ((flags & MS_INVALIDATE) && (v->flags & VMA_LOCKED)) {
			err = -EBUSY;
			break;
		}
		start = v->node.end;
		if (start >= end)
			break;
		v = vma_next(v);
	}
	spin_unlock(&mm->lock);
	return err ? err : unmapped;
}

// ---- shmdt ----

// Is v a piece of a System V segment attached at addr: a mapping of the
// segment's file that lies at the file offset its distance from addr
// says (what mprotect and munmap leave of an attachment)?
static bool shm_piece(const struct vma *v, uint64_t addr)
{
	return v->file && v->file->map_count && v->node.start >= addr &&
	       v->node.start - addr == v->file_off;
}

int vm_shmdt(struct mm *mm, uint64_t addr)
{
	struct vnode *seg = 0;
	uint64_t size = 0;
	struct gather g;
	struct vma *v;

	gather_init(&g, mm);
	spin_lock(&mm->lock);
	for (v = vma_from(mm, addr); v; v = vma_next(v))
		if (shm_piece(v, addr))
			break;
	if (v) {
		// The first piece tells the segment and its size; the other
		// pieces of the same segment within that size go with it.
		struct vma *next = vma_next(v);
		seg = v->file;
		vnode_get(seg);		// its pointer is compared below
		size = page_up(seg->size);
		unmap_locked(mm, v->node.start, v->node.end, &g);
		v = next;
		while (v && v->node.end - addr <= size) {
			struct vma *next = vma_next(v);
			if (shm_piece(v, addr) && v->file == seg)
				unmap_locked(mm, v->node.start, v->node.end, &g);
			v = next;
		}
	}
	gather_flush(&g);
	spin_unlock(&mm->lock);
	if (seg)
		vnode_put(seg);
	return seg ? 0 : -EINVAL;
}

// ---- mlock ----
//
// Nothing swaps, so a locked page stays where any page stays; what a
// lock changes is what Linux shows and checks: VM_LOCKED on the mapping
// (msync's EBUSY, madvise's EINVAL), the pages faulted in when it is
// taken (unless MLOCK_ONFAULT or MCL_ONFAULT), VmLck in /proc/PID/status
// (the locked mappings' size, Linux's locked_vm) and RLIMIT_MEMLOCK
// counted against that size unless the caller has CAP_IPC_LOCK.

// The calling process's RLIMIT_MEMLOCK in bytes, UINT64_MAX with
// CAP_IPC_LOCK (no limit).
static uint64_t memlock_limit(void)
{
	struct thread *t = current_thread();

	if (!t || !t->proc || cred_capable(current_cred(), CAP_IPC_LOCK))
		return UINT64_MAX;
	return t->proc->rlimits[RLIMIT_MEMLOCK].cur;
}

// Bytes of [start, end) in locked mappings; mm->lock held.
static uint64_t locked_in(struct mm *mm, uint64_t start, uint64_t end)
{
	uint64_t n = 0;

	for (struct vma *v = vma_from(mm, start); v && v->node.start < end; v = vma_next(v))
		if (v->flags & VMA_LOCKED)
			n += min_u64(v->node.end, end) - max_u64(v->node.start, start);
	return n;
}

uint64_t vm_locked_bytes(struct mm *mm)
{
	spin_lock(&mm->lock);
	uint64_t n = locked_in(mm, 0, USER_TOP);
	spin_unlock(&mm->lock);
	return n;
}

// Sets VMA_LOCKED on v's part [start, end) to 'lock', splitting v as
// needed; the mapping now holding that part, or NULL when a split would
// pass the map count limit.
static struct vma *set_locked(struct mm *mm, struct vma *v, uint64_t start, uint64_t end,
			      bool lock)
{
	int flags = lock ? v->flags | VMA_LOCKED : v->flags & ~VMA_LOCKED;

	if (flags == v->flags)
		return v;
	if (boundary_at(mm, start) < 0 || boundary_at(mm, end) < 0)
		return NULL;
	v = vma_find(mm, start);
	v->flags = flags;
	return merge_prev(mm, v);
}

// Faults in the pages of [start, end) in accessible mappings, as
// Linux's __mm_populate after mlock: a writable private page with a
// write fault (its own copy now, not at the first store).  Holes and
// PROT_NONE mappings are passed over; a page past the end of its file
// stops that mapping.  -ENOMEM if memory ran out.
static int populate_locked(struct mm *mm, uint64_t start, uint64_t end)
{
	for (struct vma *v = vma_from(mm, start); v && v->node.start < end; v = vma_next(v)) {
		bool write = (v->prot & PROT_WRITE) && !(v->flags & VMA_SHARED);
		uint64_t e = min_u64(v->node.end, end);

		if (v->prot == PROT_NONE)
			continue;
		for (uint64_t p = max_u64(v->node.start, start); p < e; p += PAGE_SIZE) {
			int r = populate_page(mm, v, p, write);
			if (r == -ENOMEM)
				return r;
			if (r < 0)
				break;
		}
	}
	return 0;
}

int vm_lock(struct mm *mm, uint64_t start, uint64_t end, bool lock, bool populate)
{
	uint64_t cur = start, limit = lock ? memlock_limit() : UINT64_MAX;
	struct vma *v, *last = 0;
	int err = 0;

	spin_lock(&mm->lock);
	// Linux's count: what would be locked after, the range counted once.
	if (limit != UINT64_MAX &&
	    locked_in(mm, 0, USER_TOP) - locked_in(mm, start, end) + (end - start) > limit) {
		spin_unlock(&mm->lock);
		return -ENOMEM;
	}
	v = vma_find(mm, start);
	if (!v)
		err = -ENOMEM;
	while (v && cur < end) {
		if (v->node.start > cur) {
			err = -ENOMEM;		// a hole
			break;
		}
		uint64_t e = min_u64(v->node.end, end);
		last = set_locked(mm, v, cur, e, lock);
		if (!last) {
			err = -ENOMEM;
			break;
		}
		cur = e;
		v = vma_next(last);
	}
	if (!err && cur < end)
		err = -ENOMEM;
	if (last)
		merge_next(mm, last);
	// Pages that cannot be had: EAGAIN, as Linux's mlock says for ENOMEM.
	if (!err && lock && populate && populate_locked(mm, start, end) < 0)
		err = -EAGAIN;
	spin_unlock(&mm->lock);
	return err;
}

int vm_lock_all(struct mm *mm, bool future, bool change, bool lock, bool populate)
{
	uint64_t limit = lock && change ? memlock_limit() : UINT64_MAX;

	spin_lock(&mm->lock);
	// MCL_CURRENT: Linux compares the whole address space with the limit.
	if (limit != UINT64_MAX) {
		uint64_t total = 0;
		for (struct vma *v = vma_from(mm, 0); v; v = vma_next(v))
			total += v->node.end - v->node.start;
		if (total > limit) {
			spin_unlock(&mm->lock);
			return -ENOMEM;
		}
	}
	mm->lock_future = future;
	// Whole mappings: no split, so nothing can fail.
	for (struct vma *v = vma_from(mm, 0); v && change; v = vma_next(v))
		v = set_locked(mm, v, v->node.start, v->node.end, lock);
	for (struct vma *v = vma_from(mm, 0); v && change; v = vma_next(v))
		v = merge_prev(mm, v);
	// Faulting in what can be, failing nothing (Linux's mm_populate).
	if (lock && change && populate)
		populate_locked(mm, 0, USER_TOP);
	spin_unlock(&mm->lock);
	return 0;
}

// ---- NUMA memory policies (kernel/mm/mempolicy.c) ----

// Does [start, end) of mm hold a page with a frame?
static bool range_has_pages(struct mm *mm, uint64_t start, uint64_t end)
{
	uint64_t va = start;

	return arch_pte_next_with_frame(mm->root_pa, &va, end) != 0;
}

// mbind's walk over the mappings of [start, end) before anything changes,
// in Linux's order (queue_pages_range): mapping by mapping, a hole before
// it or after it is EFAULT unless 'holes_ok' (MPOL_DEFAULT), then, when
// 'strict_pages' (MPOL_MF_STRICT alone with a policy excluding node 0),
// a page already there is misplaced: EIO.  No mapping at all: EFAULT.
static int mbind_check_locked(struct mm *mm, uint64_t start, uint64_t end, bool holes_ok,
			      bool strict_pages)
{
	struct vma *v = vma_from(mm, start);

	if (!v || v->node.start >= end)
		return -EFAULT;
	if (!holes_ok && v->node.start > start)
		return -EFAULT;
	for (; v && v->node.start < end; v = vma_next(v)) {
		struct vma *next = vma_next(v);
		if (!holes_ok && v->node.end < end && (!next || v->node.end < next->node.start))
			return -EFAULT;
		if (strict_pages && range_has_pages(mm, max_u64(start, v->node.start),
						    min_u64(end, v->node.end)))
			return -EIO;
	}
	return 0;
}

// Gives [start, end) of every mapping in it the policy, splitting at the
// edges and merging with equal neighbours, as Linux's mbind_range.
static int set_policy_locked(struct mm *mm, uint64_t start, uint64_t end,
			     const struct mempolicy *pol)
{
	for (struct vma *v = vma_from(mm, start); v && v->node.start < end; v = vma_next(v)) {
		uint64_t lo = max_u64(start, v->node.start), hi = min_u64(end, v->node.end);
		if (policy_equal(&v->policy, pol)) {
			v = merge_prev(mm, v);
			continue;
		}
		if (boundary_at(mm, lo) < 0 || boundary_at(mm, hi) < 0)
			return -ENOMEM;
		v = vma_find(mm, lo);
		v->policy = *pol;
		v = merge_prev(mm, v);
		v = vma_find(mm, hi - 1);
	}
	// The mapping after the range may now match the last one.
	struct vma *last = vma_find(mm, end - 1);
	if (last)
		merge_next(mm, last);
	return 0;
}

int vm_mbind(struct mm *mm, uint64_t start, uint64_t end, const struct mempolicy *pol,
	     bool holes_ok, bool strict_pages)
{
	spin_lock(&mm->lock);
	int r = mbind_check_locked(mm, start, end, holes_ok, strict_pages);
	if (r == 0)
		r = set_policy_locked(mm, start, end, pol);
	spin_unlock(&mm->lock);
	return r;
}

int vm_set_home_node(struct mm *mm, uint64_t start, uint64_t end, int node)
{
	int r = -ENOENT;

	spin_lock(&mm->lock);
	for (struct vma *v = vma_from(mm, start); v && v->node.start < end; v = vma_next(v)) {
		uint64_t hi = min_u64(end, v->node.end);
		if (v->policy.mode == MPOL_DEFAULT)
			continue;
		if (v->policy.mode != MPOL_BIND && v->policy.mode != MPOL_PREFERRED_MANY) {
			r = -EOPNOTSUPP;
			break;
		}
		struct mempolicy pol = v->policy;
		pol.home = (uint16_t)(node + 1);
		r = set_policy_locked(mm, max_u64(start, v->node.start), hi, &pol);
		if (r < 0)
			break;
		v = vma_find(mm, hi - 1);
	}
	spin_unlock(&mm->lock);
	return r;
}

int vm_get_policy(struct mm *mm, uint64_t addr, struct mempolicy *pol)
{
	spin_lock(&mm->lock);
	struct vma *v = vma_find(mm, addr);
	if (v)
		*pol = v->policy;
	spin_unlock(&mm->lock);
	return v ? 0 : -EFAULT;
}

int vm_page_status(struct mm *mm, uint64_t addr)
{
	spin_lock(&mm->lock);
	struct vma *v = vma_find(mm, addr);
	int r = !v ? -EFAULT : range_has_pages(mm, addr & PAGE_MASK, (addr & PAGE_MASK) + PAGE_SIZE)
			       ? 0 : -ENOENT;
	spin_unlock(&mm->lock);
	return r;
}

// ---- /proc/PID/pagemap ----

#define PM_PRESENT		(1ULL << 63)
#define PM_FILE			(1ULL << 61)	// a file's page, or shared memory
#define PM_MMAP_EXCLUSIVE	(1ULL << 56)	// mapped once
#define PM_PFN_MASK		((1ULL << 55) - 1)

void vm_pagemap(struct mm *mm, uint64_t va, size_t n, uint64_t *out, bool show_pfn)
{
	spin_lock(&mm->lock);
	struct vma *v = vma_from(mm, va);
	for (size_t i = 0; i < n; i++, va += PAGE_SIZE) {
		out[i] = 0;
		while (v && v->node.end <= va)
			v = vma_next(v);
		if (!v || v->node.start > va || va >= USER_TOP)
			continue;
		pte_t *e = arch_pte_walk(mm->root_pa, va, false, true);
		if (!e || !pte_has_frame(arch_pte_get(e)))
			continue;
		uint64_t pa = pte_frame(arch_pte_get(e));
		struct page *f = frame_page(pa);
		out[i] = PM_PRESENT | (show_pfn ? (pa >> PAGE_SHIFT) & PM_PFN_MASK : 0);
		if (f->use == FRAME_FILE || (v->flags & VMA_SHARED))
			out[i] |= PM_FILE;
		if (f->refcount == 1)
			out[i] |= PM_MMAP_EXCLUSIVE;
	}
	spin_unlock(&mm->lock);
}

// ---- kernel frames shown to user space (the aio ring, kernel/fs/aio.c) ----

long vm_map_frames(struct mm *mm, const uint64_t *pa, size_t n)
{
	uint64_t size = n * PAGE_SIZE;
	struct vma *v = kzalloc(sizeof(*v));
	struct gather g;

	if (!v)
		return -ENOMEM;
	gather_init(&g, mm);
	spin_lock(&mm->lock);
	long start = place_locked(mm, 0, size, 0, &g);
	if (start < 0) {
		gather_flush(&g);
		spin_unlock(&mm->lock);
		kfree(v);
		return start;
	}
	v->node.start = (uint64_t)start;
	v->node.end = (uint64_t)start + size;
	v->prot = PROT_READ | PROT_WRITE;
	v->flags = VMA_SHARED | VMA_AIO_RING;
	vt_insert(&mm->vmas, &v->node);
	for (size_t i = 0; i < n; i++) {
		pte_t *e = arch_pte_walk(mm->root_pa, v->node.start + i * PAGE_SIZE, true, true);
		if (!e) {
			unmap_locked(mm, v->node.start, v->node.end, &g);
			gather_flush(&g);
			spin_unlock(&mm->lock);
			return -ENOMEM;
		}
		frame_ref(pa[i]);
		arch_pte_set(e, pte_make(pa[i], v->prot, false, true));
		rss_add(mm, pa[i]);
	}
	gather_flush(&g);
	spin_unlock(&mm->lock);
	return start;
}
