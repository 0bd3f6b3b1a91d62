// Checked user-memory access.  Ranges are validated against the user
// half first (so kernel and non-canonical addresses never reach the copy);
// faults inside the copy go through demand paging, and if that fails the
// exception table turns them into -EFAULT.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/memlayout.h>
#include <arch/trapframe.h>
#include <kernel/uaccess.h>
#include <kernel/trap.h>
#include <kernel/thread.h>
#include <kernel/vm.h>
#include <uapi/errno.h>

size_t uaccess_copy(void *dst, const void *src, size_t n);
size_t uaccess_clear(void *dst, size_t n);
long uaccess_strncpy(char *dst, const char *src, size_t max);
int uaccess_cmpxchg32(uint32_t *uaddr, uint32_t expected, uint32_t desired, uint32_t *old);

struct ex_entry {
	uint64_t insn;
	uint64_t fixup;
};

extern const struct ex_entry ex_table_start[], ex_table_end[];

bool user_range_ok(uint64_t addr, size_t n)
{
	return addr < USER_END && n <= USER_END - addr;
}

// Kernel page fault: if it happened in one of the accessors above on a
// user address, resolve it like a user fault would be, else resume at
// the fixup.
bool uaccess_fixup(struct trap_frame *f)
{
	for (const struct ex_entry *e = ex_table_start; e < ex_table_end; e++) {
		if (e->insn != f->rip)
			continue;
		uint64_t addr = read_cr2();
		struct thread *t = current_thread();
		if (f->vector == 14 && addr < USER_END && t && t->mm &&
		    vm_fault(t->mm, addr, page_fault_write(f), false) == 0)
			return true;		// retry the access
		f->rip = e->fixup;
		return true;
	}
	return false;
}

int copy_from_user(void *dst, uint64_t usrc, size_t n)
{
	if (!user_range_ok(usrc, n))
		return -EFAULT;
	user_access_begin();
	size_t left = uaccess_copy(dst, (const void *)usrc, n);
	user_access_end();
	return left ? -EFAULT : 0;
}

int copy_to_user(uint64_t udst, const void *src, size_t n)
{
	if (!user_range_ok(udst, n))
		return -EFAULT;
	user_access_begin();
	size_t left = uaccess_copy((void *)udst, src, n);
	user_access_end();
	return left ? -EFAULT : 0;
}

int clear_user(uint64_t udst, size_t n)
{
	if (!user_range_ok(udst, n))
		return -EFAULT;
	user_access_begin();
	size_t left = uaccess_clear((void *)udst, n);
	user_access_end();
	return left ? -EFAULT : 0;
}

long strncpy_from_user(char *dst, uint64_t usrc, size_t max)
{
	if (usrc >= USER_END)
		return -EFAULT;
	// Never read past the end of the user half.
	size_t limit = max;
	if (limit > USER_END - usrc)
		limit = USER_END - usrc;
	user_access_begin();
	long r = uaccess_strncpy(dst, (const char *)usrc, limit);
	user_access_end();
	if (r == -2)
		return -EFAULT;
	if (r == -1)
		return limit < max ? -EFAULT : -ENAMETOOLONG;
	return r;
}

int get_user_u32(uint32_t *v, uint64_t uaddr)
{
	return copy_from_user(v, uaddr, sizeof(*v));
}

int get_user_u64(uint64_t *v, uint64_t uaddr)
{
	return copy_from_user(v, uaddr, sizeof(*v));
}

int put_user_u32(uint64_t uaddr, uint32_t v)
{
	return copy_to_user(uaddr, &v, sizeof(v));
}

int put_user_u64(uint64_t uaddr, uint64_t v)
{
	return copy_to_user(uaddr, &v, sizeof(v));
}

int user_cmpxchg_u32(uint64_t uaddr, uint32_t expected, uint32_t desired, uint32_t *old)
{
	if ((uaddr & 3) || !user_range_ok(uaddr, 4))
		return -EFAULT;
	user_access_begin();
	int r = uaccess_cmpxchg32((uint32_t *)uaddr, expected, desired, old);
	user_access_end();
	return r ? -EFAULT : 0;
}
