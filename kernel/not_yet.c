// Entry points whose subsystems are not written yet.  Each ends the
// machine with a clear message instead of doing something wrong.

#include <kernel/trap.h>
#include <kernel/panic.h>
#include <kernel/wait.h>
#include <kernel/thread.h>
#include <kernel/mm.h>
#include <arch/trapframe.h>

void user_page_fault(struct trap_frame *f, uint64_t addr, bool w, bool x, bool p)
{
	(void)w; (void)x; (void)p;
	panic_frame(f, "user page fault at %#lx: no user space yet", addr);
}

void user_exception(struct trap_frame *f)
{
	panic_frame(f, "user exception: no user space yet");
}

void facility_trap(struct trap_frame *f)
{
	panic_frame(f, "Unrecoverable FPU Unavailable Exception in kernel mode");
}

bool uaccess_fixup(struct trap_frame *f)
{
	(void)f;
	return false;
}

void tlb_shootdown_interrupt(void) {}
void device_interrupt(uint64_t vector) { (void)vector; }
void exit_to_user(struct trap_frame *f) { (void)f; }
bool thread_signal_pending(struct thread *t) { (void)t; return false; }
void mm_activate(struct mm *mm) { (void)mm; }

void syscall_dispatch(struct trap_frame *f)
{
	f->rax = (uint64_t)-38;	// ENOSYS
	__asm__ volatile("cli");
}
