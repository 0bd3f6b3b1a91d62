// What the arch's trap code calls in the arch-neutral kernel.
#ifndef KERNEL_TRAP_H
#define KERNEL_TRAP_H

#include <stdint.h>
#include <stdbool.h>

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
// extended-state restore).  Returns with interrupts disabled.
void exit_to_user(struct trap_frame *f);
// An interrupt is returning to kernel code: preempt it if asked to.
void preempt_from_interrupt(struct trap_frame *f);

bool page_fault_write(const struct trap_frame *f);
bool page_fault_exec(const struct trap_frame *f);
bool page_fault_present(const struct trap_frame *f);
const char *exception_name(uint64_t vector);

#endif
