// The register frame the ppc64 exception entry saves on the kernel stack
// (the layout of Linux's struct pt_regs, so the signal code can copy it
// into an mcontext field by field).
#ifndef ARCH_TRAPFRAME_H
#define ARCH_TRAPFRAME_H

#include <arch/spr.h>

#ifndef __ASSEMBLY__
#include <stdint.h>

struct trap_frame {
	uint64_t gpr[32];
	uint64_t nip;			// SRR0 (or HSRR0): where to return
	uint64_t msr;			// SRR1: the MSR to return with
	uint64_t orig_r3;		// r3 at a system call, for a restart
	uint64_t ctr, link, xer, ccr;
	uint64_t softe;
	uint64_t trap;			// the vector that brought us here
	uint64_t dar, dsisr;		// a storage interrupt's address and cause
	uint64_t result;
};

static inline int trap_from_user(const struct trap_frame *f)
{
	return (f->msr & MSR_PR) != 0;
}
#endif

// The vector recorded in the frame of a system call (sc).
#define VECTOR_SYSCALL	0xc00

// The ABI a system call came through, as Linux's audit names it
// (AUDIT_ARCH_PPC64LE: seccomp_data.arch, SIGSYS's si_arch).
#define ARCH_AUDIT_ARCH	0xc0000015U

#endif
