// The x86-64 system call ABI: number in rax, arguments in rdi, rsi, rdx,
// r10, r8, r9, result in rax.  entry.S saves the number in the frame's
// error slot and the arguments first in it, as struct syscall_args.

#include <stdint.h>
#include <stdbool.h>
#include <arch/trapframe.h>
#include <arch/irq.h>
#include <kernel/syscall_invoke.h>
#include <kernel/trap.h>
#include <kernel/cpu.h>
#include <kernel/thread.h>

_Static_assert(__builtin_offsetof(struct trap_frame, rdi) == 0 &&
	       __builtin_offsetof(struct trap_frame, r9) == 5 * sizeof(uint64_t),
	       "the frame starts with the six arguments, in order");

bool syscall_dispatch(struct trap_frame *f);

// Called from entry.S with interrupts off; returns with them off, true
// when the return may be the fast SYSRET (syscall_exit_to_user).
bool syscall_dispatch(struct trap_frame *f)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->current;

	acct_user_to_kernel(&c->acct, &t->acct);
	c->stats.syscalls++;
	irq_enable();
	long result = syscall_invoke(t, f->error, (const struct syscall_args *)f);
	f->rax = (uint64_t)result;
	return syscall_exit_to_user(t, f, result);
}
