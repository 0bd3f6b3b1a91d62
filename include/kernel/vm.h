// User address spaces: the list of mappings (VMAs), demand paging, copy
// on write, and the operations behind mmap, munmap, mprotect and brk.
#ifndef KERNEL_VM_H
#define KERNEL_VM_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <kernel/mm.h>

#define PROT_NONE	0
#define PROT_READ	1
#define PROT_WRITE	2
#define PROT_EXEC	4

#include <uapi/mman.h>		// MAP_*, MCL_*: their values differ between archs

#define MREMAP_MAYMOVE		1
#define MREMAP_FIXED		2
#define MREMAP_DONTUNMAP	4

#define MADV_NORMAL		0
#define MADV_RANDOM		1
#define MADV_SEQUENTIAL		2
#define MADV_WILLNEED		3
#define MADV_DONTNEED		4
#define MADV_FREE		8
#define MADV_REMOVE		9
#define MADV_DONTFORK		10
#define MADV_DOFORK		11
#define MADV_MERGEABLE		12
#define MADV_UNMERGEABLE	13
#define MADV_HUGEPAGE		14
#define MADV_NOHUGEPAGE		15
#define MADV_DONTDUMP		16
#define MADV_DODUMP		17
#define MADV_WIPEONFORK		18
#define MADV_KEEPONFORK		19
#define MADV_COLD		20
#define MADV_PAGEOUT		21
#define MADV_POPULATE_READ	22
#define MADV_POPULATE_WRITE	23
#define MADV_DONTNEED_LOCKED	24

#define MS_ASYNC		1
#define MS_INVALIDATE		2
#define MS_SYNC			4

#define USER_STACK_TOP		0x7ffffffff000UL
#define USER_STACK_SIZE		(8UL << 20)
#define USER_MMAP_BASE		0x10000000000UL		// 1 TiB: mmap searches upward from here
#define USER_MIN_ADDR		0x10000UL		// nothing mapped below (NULL pages)
#define MAX_MAP_COUNT		65530			// mappings per address space, as Linux

struct vnode;

struct mm *mm_create(void);
struct mm *mm_copy(struct mm *src);	// fork: copy on write
void mm_get(struct mm *mm);
void mm_put(struct mm *mm);

// Resolves a fault at addr: 0 if the access may now proceed, -EFAULT if
// nothing is mapped there (SEGV_MAPERR), -EACCES if the mapping forbids
// the access (SEGV_ACCERR), -EIO if a shared file mapping has no page
// there (past the end of the file, or the tree is full: SIGBUS,
// BUS_ADRERR), -ENOMEM if memory ran out.
int vm_fault(struct mm *mm, uint64_t addr, bool write, bool exec);

// Maps [addr, addr+len); with MAP_FIXED exactly there (replacing what was
// mapped), else at the hint if it is free, else anywhere free.  Returns
// the address or -errno, as Linux's mmap for the same arguments.  A file
// mapping reads file bytes up to file_bytes into it; a MAP_SHARED one maps
// the file's own pages (coherent with read and write; SIGBUS wholly past
// the end of the file) and may become writable only if 'file_writable'
// (the descriptor was opened for writing).
long vm_map(struct mm *mm, uint64_t addr, size_t len, int prot, int flags,
	    struct vnode *file, uint64_t off, uint64_t file_bytes, bool file_writable);
// munmap, mprotect (PROT_* plus 'growsdown' for PROT_GROWSDOWN), madvise
// and mremap, with Linux's checks and errno.
int vm_unmap(struct mm *mm, uint64_t addr, size_t len);
// remap_file_pages: the shared file mapping at start, running on without
// a hole over [start, start + size) in mappings of the same file,
// protection and flags; its file referenced.  0 or -EINVAL.
struct vm_span {
	struct vnode *file;
	int prot;
	bool writable, locked;
};
int vm_shared_file_span(struct mm *mm, uint64_t start, uint64_t size, struct vm_span *out);
int vm_protect(struct mm *mm, uint64_t addr, size_t len, int prot, bool growsdown);
int vm_advise(struct mm *mm, uint64_t addr, size_t len, int advice);
// mincore: 1 in vec[i] for each page of the range in memory (faulted in,
// or a file's page); -ENOMEM when the range holds unmapped pages.
int vm_mincore(struct mm *mm, uint64_t start, size_t npages, uint8_t *vec);
long vm_remap(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len, int flags,
	      uint64_t new_addr);
// msync of [start, end) (page aligned, not empty, not wrapping; flags
// checked): Linux's ENOMEM and EBUSY; the data needs no writing back.
int vm_msync(struct mm *mm, uint64_t start, uint64_t end, int flags);
// Takes file pages [first, end) of vn out of every mapping of it, in
// every address space (truncation, hole punching), after the file let
// them go: private copies too with 'even_cows'.  May sleep briefly; the
// caller holds vn->map_mutex and no spinlock.
void vm_unmap_file(struct vnode *vn, uint64_t first, uint64_t end, bool even_cows);
// mlock and munlock of [start, end) (page aligned, start < end): as
// Linux's apply_vma_lock_flags, up to the first hole, which is ENOMEM;
// a lock past the caller's RLIMIT_MEMLOCK (without CAP_IPC_LOCK) is
// ENOMEM; 'populate' (not MLOCK_ONFAULT) faults the pages in (EAGAIN if
// memory runs out).
int vm_lock(struct mm *mm, uint64_t start, uint64_t end, bool lock, bool populate);
// mlockall and munlockall: the mappings made later are locked if
// 'future'; with 'change', every mapping there is becomes locked or not
// (ENOMEM if the whole address space is over RLIMIT_MEMLOCK), and with
// 'populate' their pages are faulted in.
int vm_lock_all(struct mm *mm, bool future, bool change, bool lock, bool populate);
// The size of the locked mappings (VmLck, Linux's locked_vm).
uint64_t vm_locked_bytes(struct mm *mm);
// shmdt (addr page aligned): unmaps the System V segment attached at addr
// and the pieces of it mprotect or munmap left (Linux's ksys_shmdt);
// -EINVAL if none is attached there.
int vm_shmdt(struct mm *mm, uint64_t addr);
// Writes into an address space that need not be the current one (exec's
// initial stack), faulting pages in as needed.
int vm_write(struct mm *mm, uint64_t va, const void *src, size_t n);
long vm_brk(struct mm *mm, uint64_t new_brk);
// Reads another address space (/proc/PID/cmdline): only from mappings
// its owner may read, faulting pages in as its reads would.  The bytes
// read (fewer when a hole comes first), or -EFAULT if none.
int vm_read(struct mm *mm, uint64_t va, void *dst, size_t n);
// Writes another address space (process_vm_writev): only into mappings
// its owner may write, copying on write as its stores would.  The bytes
// written (fewer when a hole comes first), or -EFAULT if none.
int vm_write_as_owner(struct mm *mm, uint64_t va, const void *src, size_t n);

// One mapping as /proc/PID/maps shows it.
struct vm_region {
	uint64_t start, end;
	int prot;
	bool shared, stack;
	struct vnode *file;		// NULL: anonymous
	uint64_t file_off;
};
// Calls fn for every mapping in address order, with mm->lock held (fn
// must not sleep; it may take vfs_tree_lock).
void vm_regions(struct mm *mm, void (*fn)(void *arg, const struct vm_region *r), void *arg);

// The physical address behind a user address, faulting it in (shared
// futexes).  0 or -EFAULT.
int vm_user_phys(struct mm *mm, uint64_t uaddr, uint64_t *pa);
// Futex keys: 1 with the physical address when uaddr is in MAP_SHARED
// memory (fixed frames), 0 when private memory, -EFAULT if unmapped.
int vm_shared_phys(struct mm *mm, uint64_t uaddr, uint64_t *pa);

// NUMA memory policies (kernel/mm/mempolicy.c).  mbind's work on
// [start, end): the walk's EFAULT for holes (none when 'holes_ok') and EIO
// when 'strict_pages' and a page is there (misplaced), then the policy
// on each mapping of the range, split and merged as Linux does.
struct mempolicy;
int vm_mbind(struct mm *mm, uint64_t start, uint64_t end, const struct mempolicy *pol,
	     bool holes_ok, bool strict_pages);
// set_mempolicy_home_node's: -ENOENT when no mapping of the range has a
// policy, -EOPNOTSUPP for one that is not BIND or PREFERRED_MANY.
int vm_set_home_node(struct mm *mm, uint64_t start, uint64_t end, int node);
// The policy of the mapping at addr, or -EFAULT.
int vm_get_policy(struct mm *mm, uint64_t addr, struct mempolicy *pol);
// /proc/PID/pagemap: the n entries from page va on, as Linux's
// (present, file or shared, mapped once, the frame number if 'show_pfn';
// 0 for a page with no frame or no mapping).
void vm_pagemap(struct mm *mm, uint64_t va, size_t n, uint64_t *out, bool show_pfn);
// move_pages' status of the page at addr: 0 (node 0) when it has a
// frame, -ENOENT when not, -EFAULT when nothing is mapped there.
int vm_page_status(struct mm *mm, uint64_t addr);

// Maps the n frames at pa read-write and shared, wherever there is room
// (the aio ring: fork's child shares it, as Linux's shared file pages).
// Each frame gains a reference for the mapping.  The address or -ENOMEM.
long vm_map_frames(struct mm *mm, const uint64_t *pa, size_t n);

// Flushes [start, end) of mm from the TLBs of every CPU that may cache it.
void arch_tlb_shootdown(struct mm *mm, uint64_t start, uint64_t end);
void arch_tlb_flush_page(uint64_t va);		// this CPU only

#endif
