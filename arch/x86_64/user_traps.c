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
#include <kernel/ktest.h>
#include <arch/xstate.h>
#include <kernel/facility.h>
#include <lib/string.h>
#include <uapi/errno.h>

// Exception flags (bits 0-5: invalid, denormal, divide by zero,
// overflow, underflow, precision) in the x87 status word and MXCSR.
#define FP_INVALID	0x01
#define FP_DENORMAL	0x02
#define FP_ZERODIV	0x04
#define FP_OVERFLOW	0x08
#define FP_UNDERFLOW	0x10
#define FP_PRECISION	0x20
#define MXCSR_MASKS_SHIFT 7	// MXCSR bits 7-12 mask the same six

// The si_code for the exception flags 'raised' and not masked: the first
// in Linux's order; 0 if there is none (a spurious trap).
static int fp_si_code(unsigned raised)
{
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

// What an x87 (#MF) or SIMD (#XM) exception reports, from the x87
// control and status words or MXCSR.
static int fp_exception_code(uint64_t vector, uint16_t control, uint16_t status,
			     uint32_t mxcsr)
{
	if (vector == VEC_X87)
		return fp_si_code(status & ~control);
	return fp_si_code(mxcsr & ~(mxcsr >> MXCSR_MASKS_SHIFT));
}

// The words come from the thread's saved state: the kernel never touches
// these registers, so saving them now is exact.
static int fpu_exception_code(uint64_t vector)
{
	struct thread *t = current_thread();
	uint16_t control, status;
	uint32_t mxcsr;

	fac_sync(t);			// the area is always a valid image
	memcpy(&control, t->arch.xstate->area + 0, 2);	// FXSAVE layout
	memcpy(&status, t->arch.xstate->area + 2, 2);
	memcpy(&mxcsr, t->arch.xstate->area + 24, 4);
	return fp_exception_code(vector, control, status, mxcsr);
}

// The decoding alone: QEMU's TCG never raises #XM, so the SSE half is
// only seen here and on real CPUs.
KTEST(fpu, exception_codes)
{
	// x87: default control word 0x37f masks all; clear one mask bit.
	KEXPECT(fp_exception_code(VEC_X87, 0x37f & ~FP_ZERODIV, FP_ZERODIV | 0x80, 0) == FPE_FLTDIV);
	KEXPECT(fp_exception_code(VEC_X87, 0x37f & ~FP_INVALID, FP_INVALID, 0) == FPE_FLTINV);
	KEXPECT(fp_exception_code(VEC_X87, 0x37f & ~FP_OVERFLOW, FP_OVERFLOW | FP_PRECISION, 0) ==
		FPE_FLTOVF);
	KEXPECT(fp_exception_code(VEC_X87, 0x37f, FP_ZERODIV, 0) == 0);	// masked: spurious
	// SSE: MXCSR 0x1f80 masks all; flags in bits 0-5.
	KEXPECT(fp_exception_code(VEC_SIMD, 0, 0, (0x1f80 & ~(FP_ZERODIV << 7)) | FP_ZERODIV) ==
		FPE_FLTDIV);
	KEXPECT(fp_exception_code(VEC_SIMD, 0, 0, (0x1f80 & ~(FP_INVALID << 7)) | FP_INVALID |
				  FP_ZERODIV) == FPE_FLTINV);
	KEXPECT(fp_exception_code(VEC_SIMD, 0, 0, (0x1f80 & ~(FP_UNDERFLOW << 7)) | FP_UNDERFLOW |
				  FP_PRECISION) == FPE_FLTUND);
	KEXPECT(fp_exception_code(VEC_SIMD, 0, 0, (0x1f80 & ~(FP_PRECISION << 7)) | FP_PRECISION) ==
		FPE_FLTRES);
	KEXPECT(fp_exception_code(VEC_SIMD, 0, 0, 0x1f80 | FP_OVERFLOW) == 0);
	return true;
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
