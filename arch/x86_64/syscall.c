// The x86-64 system call ABI: number in rax, arguments in rdi, rsi, rdx,
// r10, r8, r9, result in rax.

#include <stdint.h>
#include <arch/trapframe.h>
#include <arch/irq.h>
#include <kernel/syscall.h>
#include <kernel/trap.h>
#include <kernel/cpu.h>
#include <kernel/thread.h>

long syscall_invoke(uint64_t nr, struct syscall_args *args);

// Called from entry.S with interrupts off; returns with them off.
void syscall_dispatch(struct trap_frame *f)
{
	struct cpu *c = this_cpu();

	acct_user_to_kernel(&c->acct, &c->current->acct);
	c->stats.syscalls++;
	irq_enable();
	uint64_t nr = f->rax;
	f->error = nr;		// kept for restarting an interrupted call
	struct syscall_args args = { { f->rdi, f->rsi, f->rdx, f->r10, f->r8, f->r9 }, f };
	f->rax = (uint64_t)syscall_invoke(nr, &args);
	exit_to_user(f);
}

struct trap_frame *arch_thread_user_frame(struct thread *t);
