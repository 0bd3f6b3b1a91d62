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

#include <arch/spr.h>

#define MIN_FRAME	32
#define KSAVE		MIN_FRAME			// r2, r13, r14-r31, ck, cr: 22 words
#define CKPT		(KSAVE + 22 * 8)		// gpr[32], cr, lr, ctr, xer
#define TM_FRAME	(CKPT + 36 * 8)

#define CK_CR		(32 * 8)
#define CK_LR		(33 * 8)
#define CK_CTR		(34 * 8)
#define CK_XER		(35 * 8)

	.text

// Saves the kernel's non-volatile registers, the argument and CR in a new
// frame, whose address SPRG2 keeps.
#define SAVE_KERNEL_REGS			\
	mflr	0;				\
	std	0, 16(1);			\
	stdu	1, -TM_FRAME(1);		\
	std	2, KSAVE + 0*8(1);		\
	std	13, KSAVE + 1*8(1);		\
	std	14, KSAVE + 2*8(1);		\
	std	15, KSAVE + 3*8(1);		\
	std	16, KSAVE + 4*8(1);		\
	std	17, KSAVE + 5*8(1);		\
	std	18, KSAVE + 6*8(1);		\
	std	19, KSAVE + 7*8(1);		\
	std	20, KSAVE + 8*8(1);		\
	std	21, KSAVE + 9*8(1);		\
	std	22, KSAVE + 10*8(1);		\
	std	23, KSAVE + 11*8(1);		\
	std	24, KSAVE + 12*8(1);		\
	std	25, KSAVE + 13*8(1);		\
	std	26, KSAVE + 14*8(1);		\
	std	27, KSAVE + 15*8(1);		\
	std	28, KSAVE + 16*8(1);		\
	std	29, KSAVE + 17*8(1);		\
	std	30, KSAVE + 18*8(1);		\
	std	31, KSAVE + 19*8(1);		\
	std	3, KSAVE + 20*8(1);		\
	mfcr	0;				\
	std	0, KSAVE + 21*8(1);		\
	mtspr	SPRN_SPRG2, 1

// The kernel's registers back from the frame at r1, and return.
#define RESTORE_KERNEL_REGS			\
	ld	2, KSAVE + 0*8(1);		\
	ld	13, KSAVE + 1*8(1);		\
	ld	14, KSAVE + 2*8(1);		\
	ld	15, KSAVE + 3*8(1);		\
	ld	16, KSAVE + 4*8(1);		\
	ld	17, KSAVE + 5*8(1);		\
	ld	18, KSAVE + 6*8(1);		\
	ld	19, KSAVE + 7*8(1);		\
	ld	20, KSAVE + 8*8(1);		\
	ld	21, KSAVE + 9*8(1);		\
	ld	22, KSAVE + 10*8(1);		\
	ld	23, KSAVE + 11*8(1);		\
	ld	24, KSAVE + 12*8(1);		\
	ld	25, KSAVE + 13*8(1);		\
	ld	26, KSAVE + 14*8(1);		\
	ld	27, KSAVE + 15*8(1);		\
	ld	28, KSAVE + 16*8(1);		\
	ld	29, KSAVE + 17*8(1);		\
	ld	30, KSAVE + 18*8(1);		\
	ld	31, KSAVE + 19*8(1);		\
	ld	0, KSAVE + 21*8(1);		\
	mtcr	0;				\
	addi	1, 1, TM_FRAME;			\
	ld	0, 16(1);			\
	mtlr	0;				\
	blr

	.globl	tm_reclaim_regs
tm_reclaim_regs:
	SAVE_KERNEL_REGS
	treclaim. 4
	// Every GPR is the checkpoint's now.  r13 goes to SPRG1 to free a
	// base register; the frame comes back from SPRG2.
	mtspr	SPRN_SPRG1, 13
	mfspr	13, SPRN_SPRG2
	std	0, CKPT + 0*8(13)
	std	1, CKPT + 1*8(13)
	std	2, CKPT + 2*8(13)
	std	3, CKPT + 3*8(13)
	std	4, CKPT + 4*8(13)
	std	5, CKPT + 5*8(13)
	std	6, CKPT + 6*8(13)
	std	7, CKPT + 7*8(13)
	std	8, CKPT + 8*8(13)
	std	9, CKPT + 9*8(13)
	std	10, CKPT + 10*8(13)
	std	11, CKPT + 11*8(13)
	std	12, CKPT + 12*8(13)
	mfspr	0, SPRN_SPRG1
	std	0, CKPT + 13*8(13)
	std	14, CKPT + 14*8(13)
	std	15, CKPT + 15*8(13)
	std	16, CKPT + 16*8(13)
	std	17, CKPT + 17*8(13)
	std	18, CKPT + 18*8(13)
	std	19, CKPT + 19*8(13)
	std	20, CKPT + 20*8(13)
	std	21, CKPT + 21*8(13)
	std	22, CKPT + 22*8(13)
	std	23, CKPT + 23*8(13)
	std	24, CKPT + 24*8(13)
	std	25, CKPT + 25*8(13)
	std	26, CKPT + 26*8(13)
	std	27, CKPT + 27*8(13)
	std	28, CKPT + 28*8(13)
	std	29, CKPT + 29*8(13)
	std	30, CKPT + 30*8(13)
	std	31, CKPT + 31*8(13)
	mfcr	0
	std	0, CKPT + CK_CR(13)
	mflr	0
	std	0, CKPT + CK_LR(13)
	mfctr	0
	std	0, CKPT + CK_CTR(13)
	mfxer	0
	std	0, CKPT + CK_XER(13)
	mr	1, 13
	// Copy the frame's checkpoint words to *ck.
	ld	3, KSAVE + 20*8(1)
	addi	4, 1, CKPT - 8
	addi	3, 3, -8
	li	5, 36
	mtctr	5
1:	ldu	6, 8(4)
	stdu	6, 8(3)
	bdnz	1b
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
	ld	0, 0*8(3)
	ld	1, 1*8(3)
	ld	2, 2*8(3)
	ld	4, 4*8(3)
	ld	5, 5*8(3)
	ld	6, 6*8(3)
	ld	7, 7*8(3)
	ld	8, 8*8(3)
	ld	9, 9*8(3)
	ld	10, 10*8(3)
	ld	11, 11*8(3)
	ld	12, 12*8(3)
	ld	13, 13*8(3)
	ld	14, 14*8(3)
	ld	15, 15*8(3)
	ld	16, 16*8(3)
	ld	17, 17*8(3)
	ld	18, 18*8(3)
	ld	19, 19*8(3)
	ld	20, 20*8(3)
	ld	21, 21*8(3)
	ld	22, 22*8(3)
	ld	23, 23*8(3)
	ld	24, 24*8(3)
	ld	25, 25*8(3)
	ld	26, 26*8(3)
	ld	27, 27*8(3)
	ld	28, 28*8(3)
	ld	29, 29*8(3)
	ld	30, 30*8(3)
	ld	31, 31*8(3)
	ld	3, 3*8(3)
	trechkpt.
	// The CPU is suspended, the checkpoint holds the thread's state; the
	// architected registers are still the checkpoint's values.
	mfspr	1, SPRN_SPRG2
	RESTORE_KERNEL_REGS
