// Faults taken in user mode become signals for the faulting thread.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/trapframe.h>
#include <arch/irq_vectors.h>
#include <kernel/trap.h>
#include <kernel/thread.h>
#include <kernel/process.h>
#include <kernel/vm.h>
#include <kernel/panic.h>
#include <kernel/console.h>
#include <arch/xstate.h>
#include <lib/string.h>
#include <uapi/errno.h>

void user_page_fault(struct trap_frame *f, uint64_t addr, bool write, bool exec, bool present)
{
	struct thread *t = current_thread();
	int r = vm_fault(t->mm, addr, write, exec);

	(void)present;
	if (r == 0)
		return;
	if (r == -ENOMEM)
		kprintf("%s[%d]: out of memory at %#lx\n", t->name, t->proc->pid, addr);
	signal_force_fault(SIGSEGV, r == -EACCES ? SEGV_ACCERR : SEGV_MAPERR, addr);
	(void)f;
}

// Exception flags (bits 0-5: invalid, denormal, divide by zero,
// overflow, underflow, precision) in the x87 status word and MXCSR.
#define FP_INVALID	0x01
#define FP_DENORMAL	0x02
#define FP_ZERODIV	0x04
#define FP_OVERFLOW	0x08
#define FP_UNDERFLOW	0x10
#define FP_PRECISION	0x20
#define MXCSR_MASKS_SHIFT 7	// MXCSR bits 7-12 mask the same six

// The si_code of an x87 (#MF) or SIMD (#XM) exception: the first raised
// and unmasked condition, in Linux's order; 0 if there is none.  The
// control and status words and MXCSR come from the thread's saved state
// (the kernel never touches these registers, so saving them is exact).
static int fpu_exception_code(uint64_t vector)
{
	struct thread *t = current_thread();
	uint16_t control, status;
	uint32_t mxcsr;
	unsigned raised;

	xstate_save_live(t);
	memcpy(&control, t->arch.xstate->area + 0, 2);	// FXSAVE layout
	memcpy(&status, t->arch.xstate->area + 2, 2);
	memcpy(&mxcsr, t->arch.xstate->area + 24, 4);
	if (vector == VEC_X87)
		raised = status & ~control;
	else
		raised = mxcsr & ~(mxcsr >> MXCSR_MASKS_SHIFT);
	if (raised & FP_INVALID)
		return FPE_FLTINV;
	if (raised & FP_ZERODIV)
		return FPE_FLTDIV;
	if (raised & FP_OVERFLOW)
		return FPE_FLTOVF;
	if (raised & (FP_UNDERFLOW | FP_DENORMAL))
		return FPE_FLTUND;
	if (raised & FP_PRECISION)
		return FPE_FLTRES;
	return 0;
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
		sig = SIGFPE; code = fpu_exception_code(f->vector); addr = f->rip;
		if (!code)
			return;		// nothing unmasked is pending: spurious
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
