// The Linux ppc64 system call ABI: "sc" with the number in r0, arguments
// in r3-r8, the result in r3; a failure returns the positive errno with
// CR0[SO] set (glibc and musl test SO, not the sign).

#include <arch/tm.h>
#include <stdint.h>
#include <arch/irq.h>
#include <arch/trapframe.h>
#include <kernel/syscall_invoke.h>
#include <kernel/trap.h>
#include <kernel/cpu.h>
#include <kernel/thread.h>
#include <kernel/signal.h>
#include <uapi/errno.h>
#include <uapi/syscall_nr.h>

#define CR0_SO	0x10000000UL

void arch_user_msr(struct trap_frame *f);		// facility.c
void syscall_dispatch(struct trap_frame *f);

// The kernel's convention (negative errno) to the ABI's, in the frame.
static void set_result(struct trap_frame *f, long r)
{
	if (r < 0 && r >= -4095) {
		f->gpr[3] = (uint64_t)-r;
		f->ccr |= CR0_SO;
	} else {
		f->gpr[3] = (uint64_t)r;
		f->ccr &= ~CR0_SO;
	}
	f->result = (uint64_t)r;
}

// From ppc_trap, interrupts off; returns with them off.  The arguments,
// r3-r8, are read in place (struct syscall_args).
void syscall_dispatch(struct trap_frame *f)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->current;

	acct_user_to_kernel(&c->acct, &t->acct);
	c->stats.syscalls++;
	if (tm_abort_syscall(f))
		return;		// straight back: the transaction failed
	irq_enable();
	uint64_t nr = f->gpr[0];
	f->orig_r3 = f->gpr[3];		// kept for restarting an interrupted call
	long r = syscall_invoke(t, nr, (const struct syscall_args *)&f->gpr[3]);
	// rt_sigreturn has put back the whole interrupted frame, r3 and CR
	// included.
	if (nr != SYS_rt_sigreturn)
		set_result(f, r);
	syscall_exit_to_user(t, f, r);
	arch_user_msr(f);
}

// A call interrupted by a signal: ERESTART* becomes EINTR, or the call
// is made again (nip back over the sc, r3 its first argument again).
bool arch_syscall_restart_if_needed(struct trap_frame *f, bool handler, uint64_t sa_flags)
{
	if (f->trap != VECTOR_SYSCALL || !(f->ccr & CR0_SO) ||
	    !syscall_result_restarts(-(long)f->gpr[3]))
		return false;
	switch (syscall_restart_action(-(long)f->gpr[3], handler, sa_flags)) {
	case RESTART_CALL:
		f->gpr[3] = f->orig_r3;		// r0 still holds the number
		f->nip -= 4;			// back onto the sc
		f->ccr &= ~CR0_SO;
		return true;
	case RESTART_EINTR:
		f->gpr[3] = EINTR;
		return false;
	case RESTART_NONE:
		break;
	}
	return false;
}
