// Checked access to user memory.  Every user pointer the kernel touches
// goes through these: an address that is not mapped (after demand
// paging), in the kernel half, non-canonical, or lacking the needed
// permission gives -EFAULT, never a kernel fault.
#ifndef KERNEL_UACCESS_H
#define KERNEL_UACCESS_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <arch/memlayout.h>
#include <arch/uaccess_arch.h>
#include <uapi/errno.h>

#define PATH_MAX 4096

// Is [addr, addr+n) entirely in the user half (no wrap-around)?  As
// Linux's access_ok: the range must lie below USER_TOP (TASK_SIZE_MAX).
static inline bool user_range_ok(uint64_t addr, size_t n)
{
	return addr <= USER_TOP && n <= USER_TOP - addr;
}

// 0 on success, -EFAULT if any byte is inaccessible (a prefix may have
// been copied).  Inline: a range check around the arch's copy loop, whose
// faults kernel/mm/uaccess.c resolves.
static inline int copy_from_user(void *dst, uint64_t usrc, size_t n)
{
	if (!user_range_ok(usrc, n))
		return -EFAULT;
	user_access_begin();
	size_t left = uaccess_copy(dst, (const void *)usrc, n);
	user_access_end();
	return left ? -EFAULT : 0;
}

static inline int copy_to_user(uint64_t udst, const void *src, size_t n)
{
	if (!user_range_ok(udst, n))
		return -EFAULT;
	user_access_begin();
	size_t left = uaccess_copy((void *)udst, src, n);
	user_access_end();
	return left ? -EFAULT : 0;
}

int clear_user(uint64_t udst, size_t n);

// Copies a NUL-terminated string of at most max-1 characters plus NUL.
// Returns its length, -EFAULT, or -ENAMETOOLONG if no NUL within max.
long strncpy_from_user(char *dst, uint64_t usrc, size_t max);


// A user iovec array (readv, writev, process_vm_readv...).
#define IOV_MAX 1024
struct user_iovec {
	uint64_t base;
	uint64_t len;
};
// The array at uiov, checked as Linux's import_iovec does before any
// I/O: -EINVAL for a count outside 0..IOV_MAX or a segment longer than
// SSIZE_MAX, then -EFAULT for the array or any segment outside the user
// half.  Segments are cut so that the whole is at most MAX_RW_COUNT
// bytes.  *out is kmalloc'ed (kfree it); -ENOMEM.
long user_iovecs_get(uint64_t uiov, int64_t count, struct user_iovec **out);

// Small fixed-size helpers.
int get_user_u32(uint32_t *v, uint64_t uaddr);
int get_user_u64(uint64_t *v, uint64_t uaddr);
int put_user_u32(uint64_t uaddr, uint32_t v);
int put_user_u64(uint64_t uaddr, uint64_t v);

// Atomic compare-and-exchange / read on a user u32 (futexes): returns 0
// and sets *old, or -EFAULT.
int user_cmpxchg_u32(uint64_t uaddr, uint32_t expected, uint32_t desired, uint32_t *old);

#endif
