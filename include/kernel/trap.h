// What the arch's trap code calls in the arch-neutral kernel.
#ifndef KERNEL_TRAP_H
#define KERNEL_TRAP_H

#include <stdint.h>
#include <stdbool.h>
#include <arch/irq.h>
#include <kernel/thread.h>
#include <kernel/cpu.h>
#include <kernel/signal.h>

struct trap_frame;

// A page fault from user mode at 'addr'.
void user_page_fault(struct trap_frame *f, uint64_t addr, bool write, bool exec, bool present);
// Any other exception from user mode (arch maps it to a signal).
void user_exception(struct trap_frame *f);
// A kernel page fault at addr inside a checked user access: resolves it
// (demand paging) or resumes at the fixup.  False if not in an accessor.
bool uaccess_fixup(struct trap_frame *f, uint64_t addr);

void timer_interrupt(struct trap_frame *f);
void tlb_shootdown_interrupt(void);
void ipi_test_interrupt(void);
void device_interrupt(uint64_t vector);

// Last steps before returning to user mode (signals, rescheduling,
// extended-state restore).  Returns with interrupts disabled, and true
// when the frame's registers are still those the entry saved (a system
// call's result aside): no signal frame, restart, rseq abort or
// WORK_FRAME call changed them.
bool exit_to_user(struct trap_frame *f);
// The same, after a system call whose result may (or, may_restart false,
// cannot) be a restart code.
bool exit_to_user_after(struct trap_frame *f, bool may_restart);

// A system call's return (kernel/proc/return_to_user.c says why this is
// enough): with no work for t, no reschedule and a result that restarts
// nothing, only the CPU time is accounted.  Otherwise the whole
// exit_to_user.  Returns with interrupts disabled, and true when the
// frame is as the entry saved it, but for the result.
static inline bool syscall_exit_to_user(struct thread *t, struct trap_frame *f, long result)
{
	irq_disable();
	struct cpu *c = this_cpu();	// not the entry's: the call may have moved t
	bool restart = syscall_result_restarts(result);

	if (__builtin_expect((__atomic_load_n(&t->work, __ATOMIC_RELAXED) | c->need_resched |
			      restart) == 0, 1)) {
		acct_kernel_lap(&c->acct, &t->acct, false);
		return true;
	}
	return exit_to_user_after(f, restart);
}
// An interrupt is returning to kernel code: preempt it if asked to.
void preempt_from_interrupt(struct trap_frame *f);

bool page_fault_write(const struct trap_frame *f);
bool page_fault_exec(const struct trap_frame *f);
bool page_fault_present(const struct trap_frame *f);
const char *exception_name(uint64_t vector);

#endif
