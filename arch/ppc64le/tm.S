// Reclaiming and recheckpointing a user thread's transaction (tm.c).
//
// treclaim. ends the transaction (its failure cause recorded in TEXASR)
// and puts the checkpointed registers, the state the transaction would
// roll back to, in the architected ones: every GPR, CR, LR, CTR, XER, the
// FP and vector registers.  trechkpt. does the reverse: it copies the
// architected registers into a new checkpoint and leaves the CPU in the
// suspended state.  Both clobber every GPR, r1, r2 and r13 included, so
// the kernel's own are kept in the stack frame, and the frame itself is
// found again through SPRG2.
//
//   void tm_reclaim_regs(struct tm_ckpt_regs *ck, uint64_t cause);
//   void tm_recheckpoint_regs(const struct tm_ckpt_regs *ck);
//
// struct tm_ckpt_regs: gpr[32], cr, lr, ctr, xer.  The caller has MSR[TM]
// (and FP, VEC, VSX) on and interrupts off, and handles the FP and vector
// registers around the call.

#include <arch/asm_gprs.h>
#include <arch/spr.h>

#define MIN_FRAME	32
#define KSAVE		MIN_FRAME		// by register number: r2, r3 (the argument), r13-r31
#define KCR		(KSAVE + 32 * 8)
#define TM_FRAME	(KCR + 16)		// a multiple of 16

#define CK_CR		(32 * 8)
#define CK_LR		(33 * 8)
#define CK_CTR		(34 * 8)
#define CK_XER		(35 * 8)

	.text

// Saves the kernel's non-volatile registers, the argument and CR in a new
// frame, whose address SPRG2 keeps.
.macro SAVE_KERNEL_REGS
	mflr	0
	std	0, 16(1)
	stdu	1, -TM_FRAME(1)
	SAVE_GPRS 2, 3, KSAVE, 1
	SAVE_GPRS 13, 31, KSAVE, 1
	mfcr	0
	std	0, KCR(1)
	mtspr	SPRN_SPRG2, 1
.endm

// The kernel's registers back from the frame at r1, and return.
.macro RESTORE_KERNEL_REGS
	ld	2, KSAVE + 2*8(1)
	REST_GPRS 13, 31, KSAVE, 1
	ld	0, KCR(1)
	mtcr	0
	addi	1, 1, TM_FRAME
	ld	0, 16(1)
	mtlr	0
	blr
.endm

	.globl	tm_reclaim_regs
tm_reclaim_regs:
	SAVE_KERNEL_REGS
	treclaim. 4
	// Every GPR is the checkpoint's now.  r13 goes to SPRG1 to free a
	// base register, which finds *ck again through the frame in SPRG2.
	mtspr	SPRN_SPRG1, 13
	mfspr	13, SPRN_SPRG2
	ld	13, KSAVE + 3*8(13)
	SAVE_GPRS 0, 12, 0, 13
	mfspr	0, SPRN_SPRG1
	std	0, 13*8(13)
	SAVE_GPRS 14, 31, 0, 13
	mfcr	0
	std	0, CK_CR(13)
	mflr	0
	std	0, CK_LR(13)
	mfctr	0
	std	0, CK_CTR(13)
	mfxer	0
	std	0, CK_XER(13)
	mfspr	1, SPRN_SPRG2
	RESTORE_KERNEL_REGS

	.globl	tm_recheckpoint_regs
tm_recheckpoint_regs:
	SAVE_KERNEL_REGS
	ld	4, CK_CR(3)
	mtcr	4
	ld	4, CK_LR(3)
	mtlr	4
	ld	4, CK_CTR(3)
	mtctr	4
	ld	4, CK_XER(3)
	mtxer	4
	REST_GPRS 0, 2, 0, 3
	REST_GPRS 4, 31, 0, 3
	ld	3, 3*8(3)
	trechkpt.
	// The CPU is suspended, the checkpoint holds the thread's state; the
	// architected registers are still the checkpoint's values.
	mfspr	1, SPRN_SPRG2
	RESTORE_KERNEL_REGS
