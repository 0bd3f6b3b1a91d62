// Faults taken in user mode become signals for the faulting thread.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/trapframe.h>
#include <arch/irq_vectors.h>
#include <kernel/trap.h>
#include <kernel/thread.h>
#include <kernel/process.h>
#include <kernel/vm.h>
#include <mm/oom.h>
#include <kernel/panic.h>
#include <kernel/console.h>
#include <uapi/errno.h>

// Out of memory is not the faulting thread's fault: the OOM policy kills
// a victim and the fault is tried again (mm/oom.h).  If the thread is the
// one to die, it returns with SIGKILL pending.
void user_page_fault(struct trap_frame *f, uint64_t addr, bool write, bool exec, bool present)
{
	struct thread *t = current_thread();
	int r;

	(void)f;
	(void)present;
	for (int tries = 0; (r = vm_fault(t->mm, addr, write, exec)) == -ENOMEM; tries++)
		if (!oom_retry(tries, true))
			return;
	if (r == 0)
		return;
	signal_force_fault(SIGSEGV, r == -EACCES ? SEGV_ACCERR : SEGV_MAPERR, addr);
}

void user_exception(struct trap_frame *f)
{
	int sig, code = SI_KERNEL;
	uint64_t addr = 0;

	switch (f->vector) {
	case VEC_DIVIDE:
		sig = SIGFPE; code = FPE_INTDIV; addr = f->rip;
		break;
	case VEC_DEBUG:
	case VEC_BREAKPOINT:
		sig = SIGTRAP;
		break;
	case VEC_INVALID_OPCODE:
		sig = SIGILL; code = ILL_ILLOPN; addr = f->rip;
		break;
	case VEC_X87:
	case VEC_SIMD:
		sig = SIGFPE; code = FPE_FLTDIV; addr = f->rip;
		break;
	case 17:	// alignment check
		sig = SIGBUS; code = BUS_ADRERR;
		break;
	default:	// #GP, #SS, #NP, #TS, overflow, bound...
		sig = SIGSEGV;
		break;
	}
	signal_force_fault(sig, code, addr);
}
