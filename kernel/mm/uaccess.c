// Checked user-memory access.  Ranges are validated against the user
// half first (so kernel and non-canonical addresses never reach the copy);
// faults inside the copy go through demand paging, and if that fails the
// exception table turns them into -EFAULT.  The copy loops themselves,
// and the frame details, are the arch's (arch/uaccess_arch.h).

#include <stdint.h>
#include <arch/memlayout.h>
#include <arch/trapframe.h>
#include <arch/uaccess_arch.h>
#include <kernel/uaccess.h>
#include <kernel/trap.h>
#include <kernel/thread.h>
#include <kernel/vm.h>
#include <kernel/cpu.h>
#include <mm/oom.h>
#include <kernel/console.h>
#include <kernel/rseq.h>
#include <arch/irq.h>
#include <uapi/errno.h>

struct ex_entry {
	uint64_t insn;
	uint64_t fixup;
};

extern const struct ex_entry ex_table_start[], ex_table_end[];


static const struct ex_entry *ex_find(uint64_t rip)
{
	for (const struct ex_entry *e = ex_table_start; e < ex_table_end; e++)
		if (e->insn == rip)
			return e;
	return 0;
}

// Resolves a fault on user memory taken inside an accessor, as a user
// fault would be.  Resolving may spin on the address space's lock, whose
// holder may be waiting for this CPU to acknowledge a TLB shootdown, so
// it runs with interrupts on, as the interrupted copy had them (the
// exception gate turned them off).  A copy made with interrupts off is a
// caller's bug: it fails with -EFAULT rather than risk that deadlock.
static bool resolve_user_fault(struct trap_frame *f, uint64_t addr)
{
	static bool warned;
	struct thread *t = current_thread();

	if (addr >= USER_TOP || !t || !t->mm)
		return false;
	if (!arch_frame_irqs_were_on(f)) {
		if (!warned) {
			warned = true;
			kprintf("uaccess: fault at %#lx with interrupts off (ip %#lx): -EFAULT\n",
				addr, arch_frame_ip(f));
		}
		return false;
	}
	irq_enable();
	// Out of memory: the OOM policy may make us wait, unless we hold a
	// lock (then the copy fails).
	bool can_sleep = this_cpu()->preempt_count == 0;
	int r;
	for (int tries = 0; (r = vm_fault(t->mm, addr, page_fault_write(f), false)) == -ENOMEM; tries++)
		if (!oom_retry(tries, can_sleep))
			break;
	irq_disable();
	return r == 0;
}

// Kernel page fault at addr: if it happened in one of the accessors above,
// resolve it like a user fault (and retry the access), else resume at the
// fixup, which reports failure.
bool uaccess_fixup(struct trap_frame *f, uint64_t addr)
{
	const struct ex_entry *e = ex_find(arch_frame_ip(f));

	if (!e)
		return false;
	if (arch_frame_is_page_fault(f) && resolve_user_fault(f, addr))
		return true;
	arch_frame_set_ip(f, e->fixup);
	return true;
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
	if (usrc >= USER_TOP)
		return -EFAULT;
	// Never read past the end of user space.
	size_t limit = max;
	if (limit > USER_TOP - usrc)
		limit = USER_TOP - usrc;
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
