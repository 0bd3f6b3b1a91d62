// Special-purpose registers and MSR bits of ppc64 (Power ISA 3.0B) that
// Switchyard uses, for C and assembly alike.
#ifndef ARCH_SPR_H
#define ARCH_SPR_H

#define SPRN_DSISR	18
#define SPRN_DAR	19
#define SPRN_DEC	22
#define SPRN_SRR0	26
#define SPRN_SRR1	27
#define SPRN_PIDR	48
#define SPRN_FSCR	153
#define SPRN_TFHAR	128
#define SPRN_TFIAR	129
#define SPRN_TEXASR	130
#define SPRN_TB		268
#define SPRN_SPRG0	272	// this CPU's struct cpu (the kernel's r13)
#define SPRN_SPRG1	273	// scratch for the exception entry
#define SPRN_SPRG2	274
#define SPRN_SPRG3	275
#define SPRN_PVR	287
#define SPRN_PIR	1023

#define MSR_SF_BIT	63
#define MSR_EE		0x8000
#define MSR_PR		0x4000	// problem state: user mode
#define MSR_RI		0x2
#define MSR_VEC		0x2000000
#define MSR_VSX		0x800000
#define MSR_TM		0x100000000
#define MSR_FP		0x2000
#define MSR_ME		0x1000
#define MSR_FE0		0x800
#define MSR_FE1		0x100
#define MSR_IR		0x20
#define MSR_DR		0x10
#define MSR_LE		0x1
#define MSR_SF		0x8000000000000000
#define MSR_TS_SHIFT	33		// transaction state: 0 none, 1 suspended, 2 transactional
#define MSR_TS_TRANSACTIONAL 2

// FSCR: the interrupt cause of a facility-unavailable interrupt is its top
// byte; bit 5 (TM) enables transactional memory for problem state.
#define FSCR_IC_SHIFT	56
#define FSCR_IC_TM	5
#define FSCR_TM		0x20

#ifndef __ASSEMBLY__
#include <stdint.h>

#define mfspr(n) ({ uint64_t v__; __asm__ volatile("mfspr %0, %1" : "=r"(v__) : "i"(n)); v__; })
#define mtspr(n, v) __asm__ volatile("mtspr %0, %1" : : "i"(n), "r"((uint64_t)(v)) : "memory")
#endif

#endif
