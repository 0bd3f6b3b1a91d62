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

#define MAP_SHARED		0x01
#define MAP_PRIVATE		0x02
#define MAP_SHARED_VALIDATE	0x03
#define MAP_TYPE		0x0f
#define MAP_FIXED		0x10
#define MAP_ANONYMOUS		0x20
#define MAP_GROWSDOWN		0x0100
#define MAP_DENYWRITE		0x0800
#define MAP_EXECUTABLE		0x1000
#define MAP_LOCKED		0x2000
#define MAP_NORESERVE		0x4000
#define MAP_POPULATE		0x8000
#define MAP_NONBLOCK		0x10000
#define MAP_STACK		0x20000
#define MAP_HUGETLB		0x40000
#define MAP_FIXED_NOREPLACE	0x100000

#define USER_STACK_TOP		0x7ffffffff000UL
#define USER_STACK_SIZE		(8UL << 20)
#define USER_MMAP_BASE		0x10000000000UL		// 1 TiB: mmap searches upward from here
#define USER_MIN_ADDR		0x10000UL		// nothing mapped below (NULL pages)

struct vnode;

#define VMA_SHARED	0x1	// MAP_SHARED: pages are shared across fork, never COW
#define VMA_STACK	0x2
#define VMA_HEAP	0x4

struct vma {
	uint64_t start, end;		// page aligned, [start, end)
	int prot;			// PROT_*
	int flags;			// VMA_*
	struct vnode *file;		// private file mapping, or NULL (anonymous)
	uint64_t file_off;		// file offset of 'start'
	uint64_t file_end;		// file bytes end at this address; beyond: zeros
	struct vma *next;
};

struct mm *mm_create(void);
struct mm *mm_copy(struct mm *src);	// fork: copy on write
void mm_get(struct mm *mm);
void mm_put(struct mm *mm);

// Resolves a fault at addr: 0 if the access may now proceed, -EFAULT if
// nothing is mapped there (SEGV_MAPERR), -EACCES if the mapping forbids
// the access (SEGV_ACCERR), -ENOMEM if memory ran out.
int vm_fault(struct mm *mm, uint64_t addr, bool write, bool exec);

// Maps [addr, addr+len); with MAP_FIXED exactly there (replacing what was
// mapped), else anywhere free.  Returns the address or -errno.
long vm_map(struct mm *mm, uint64_t addr, size_t len, int prot, int flags,
	    struct vnode *file, uint64_t off, uint64_t file_bytes);
int vm_unmap(struct mm *mm, uint64_t addr, size_t len);
int vm_protect(struct mm *mm, uint64_t addr, size_t len, int prot);
// Drops the pages of a private mapping (MADV_DONTNEED): they read back
// as zeros (anonymous) or file contents.
int vm_discard(struct mm *mm, uint64_t addr, size_t len);
// Writes into an address space that need not be the current one (exec's
// initial stack), faulting pages in as needed.
int vm_write(struct mm *mm, uint64_t va, const void *src, size_t n);
long vm_brk(struct mm *mm, uint64_t new_brk);
// mremap with MAYMOVE: a new, larger mapping with the old contents.
long vm_move(struct mm *mm, uint64_t old, uint64_t old_len, uint64_t new_len);

// The physical address behind a user address, faulting it in (shared
// futexes).  0 or -EFAULT.
int vm_user_phys(struct mm *mm, uint64_t uaddr, uint64_t *pa);
// Futex keys: 1 with the physical address when uaddr is in MAP_SHARED
// memory (fixed frames), 0 when private memory, -EFAULT if unmapped.
int vm_shared_phys(struct mm *mm, uint64_t uaddr, uint64_t *pa);

// Flushes [start, end) of mm from the TLBs of every CPU that may cache it.
void tlb_shootdown(struct mm *mm, uint64_t start, uint64_t end);

#endif
