// Runs of GPR stores and loads for the assembly (entry.S, tm.S), as one
// line each: register n goes to, or comes from, offset + 8 * n from the
// base register, so a save area laid out by register number takes one
// SAVE_GPRS per unbroken run of registers.
#ifndef ARCH_ASM_GPRS_H
#define ARCH_ASM_GPRS_H

#ifdef __ASSEMBLER__
// Stores r<first> ... r<last> at offset + 8 * n(base).
.macro SAVE_GPRS first, last, offset, base
	.Lgpr = \first
	.rept \last - \first + 1
	std	.Lgpr, \offset + 8 * .Lgpr(\base)
	.Lgpr = .Lgpr + 1
	.endr
.endm

// Loads r<first> ... r<last> from offset + 8 * n(base).
.macro REST_GPRS first, last, offset, base
	.Lgpr = \first
	.rept \last - \first + 1
	ld	.Lgpr, \offset + 8 * .Lgpr(\base)
	.Lgpr = .Lgpr + 1
	.endr
.endm
#endif

#endif
