// Saving and loading the FP and VMX registers (arch/ppc64le/facility.c
// turns MSR[FP], MSR[VEC] and MSR[VSX] on around these calls).  The
// layouts are struct fp_state and struct vec_state there.
//   void fp_save_regs(struct fp_state *s);   void fp_load_regs(...);
//   void vec_save_regs(struct vec_state *s); void vec_load_regs(...);

#define FP_FPSCR	(32 * 16)
#define VEC_VSCR	(32 * 16)
#define VEC_VRSAVE	(32 * 16 + 16)
#define SPRN_VRSAVE	256

	.text

// VSR 0-31 whole (stxvd2x and lxvd2x: a pair that round-trips whatever
// the element order), then the FPSCR through FPR 0, which is reloaded.
	.globl	fp_save_regs
fp_save_regs:
	mr	4, 3
	stxvd2x	0, 0, 4
	addi	4, 4, 16
	stxvd2x	1, 0, 4
	addi	4, 4, 16
	stxvd2x	2, 0, 4
	addi	4, 4, 16
	stxvd2x	3, 0, 4
	addi	4, 4, 16
	stxvd2x	4, 0, 4
	addi	4, 4, 16
	stxvd2x	5, 0, 4
	addi	4, 4, 16
	stxvd2x	6, 0, 4
	addi	4, 4, 16
	stxvd2x	7, 0, 4
	addi	4, 4, 16
	stxvd2x	8, 0, 4
	addi	4, 4, 16
	stxvd2x	9, 0, 4
	addi	4, 4, 16
	stxvd2x	10, 0, 4
	addi	4, 4, 16
	stxvd2x	11, 0, 4
	addi	4, 4, 16
	stxvd2x	12, 0, 4
	addi	4, 4, 16
	stxvd2x	13, 0, 4
	addi	4, 4, 16
	stxvd2x	14, 0, 4
	addi	4, 4, 16
	stxvd2x	15, 0, 4
	addi	4, 4, 16
	stxvd2x	16, 0, 4
	addi	4, 4, 16
	stxvd2x	17, 0, 4
	addi	4, 4, 16
	stxvd2x	18, 0, 4
	addi	4, 4, 16
	stxvd2x	19, 0, 4
	addi	4, 4, 16
	stxvd2x	20, 0, 4
	addi	4, 4, 16
	stxvd2x	21, 0, 4
	addi	4, 4, 16
	stxvd2x	22, 0, 4
	addi	4, 4, 16
	stxvd2x	23, 0, 4
	addi	4, 4, 16
	stxvd2x	24, 0, 4
	addi	4, 4, 16
	stxvd2x	25, 0, 4
	addi	4, 4, 16
	stxvd2x	26, 0, 4
	addi	4, 4, 16
	stxvd2x	27, 0, 4
	addi	4, 4, 16
	stxvd2x	28, 0, 4
	addi	4, 4, 16
	stxvd2x	29, 0, 4
	addi	4, 4, 16
	stxvd2x	30, 0, 4
	addi	4, 4, 16
	stxvd2x	31, 0, 4
	addi	4, 4, 16
	mffs	0
	stfd	0, FP_FPSCR(3)
	lxvd2x	0, 0, 3
	blr

	.globl	fp_load_regs
fp_load_regs:
	lfd	0, FP_FPSCR(3)
	mtfsf	0xff, 0
	mr	4, 3
	lxvd2x	0, 0, 4
	addi	4, 4, 16
	lxvd2x	1, 0, 4
	addi	4, 4, 16
	lxvd2x	2, 0, 4
	addi	4, 4, 16
	lxvd2x	3, 0, 4
	addi	4, 4, 16
	lxvd2x	4, 0, 4
	addi	4, 4, 16
	lxvd2x	5, 0, 4
	addi	4, 4, 16
	lxvd2x	6, 0, 4
	addi	4, 4, 16
	lxvd2x	7, 0, 4
	addi	4, 4, 16
	lxvd2x	8, 0, 4
	addi	4, 4, 16
	lxvd2x	9, 0, 4
	addi	4, 4, 16
	lxvd2x	10, 0, 4
	addi	4, 4, 16
	lxvd2x	11, 0, 4
	addi	4, 4, 16
	lxvd2x	12, 0, 4
	addi	4, 4, 16
	lxvd2x	13, 0, 4
	addi	4, 4, 16
	lxvd2x	14, 0, 4
	addi	4, 4, 16
	lxvd2x	15, 0, 4
	addi	4, 4, 16
	lxvd2x	16, 0, 4
	addi	4, 4, 16
	lxvd2x	17, 0, 4
	addi	4, 4, 16
	lxvd2x	18, 0, 4
	addi	4, 4, 16
	lxvd2x	19, 0, 4
	addi	4, 4, 16
	lxvd2x	20, 0, 4
	addi	4, 4, 16
	lxvd2x	21, 0, 4
	addi	4, 4, 16
	lxvd2x	22, 0, 4
	addi	4, 4, 16
	lxvd2x	23, 0, 4
	addi	4, 4, 16
	lxvd2x	24, 0, 4
	addi	4, 4, 16
	lxvd2x	25, 0, 4
	addi	4, 4, 16
	lxvd2x	26, 0, 4
	addi	4, 4, 16
	lxvd2x	27, 0, 4
	addi	4, 4, 16
	lxvd2x	28, 0, 4
	addi	4, 4, 16
	lxvd2x	29, 0, 4
	addi	4, 4, 16
	lxvd2x	30, 0, 4
	addi	4, 4, 16
	lxvd2x	31, 0, 4
	addi	4, 4, 16
	blr

// VR 0-31, then VSCR (through VR 0, which is reloaded) and VRSAVE.
	.globl	vec_save_regs
vec_save_regs:
	li	4, 0
	stvx	0, 3, 4
	addi	4, 4, 16
	stvx	1, 3, 4
	addi	4, 4, 16
	stvx	2, 3, 4
	addi	4, 4, 16
	stvx	3, 3, 4
	addi	4, 4, 16
	stvx	4, 3, 4
	addi	4, 4, 16
	stvx	5, 3, 4
	addi	4, 4, 16
	stvx	6, 3, 4
	addi	4, 4, 16
	stvx	7, 3, 4
	addi	4, 4, 16
	stvx	8, 3, 4
	addi	4, 4, 16
	stvx	9, 3, 4
	addi	4, 4, 16
	stvx	10, 3, 4
	addi	4, 4, 16
	stvx	11, 3, 4
	addi	4, 4, 16
	stvx	12, 3, 4
	addi	4, 4, 16
	stvx	13, 3, 4
	addi	4, 4, 16
	stvx	14, 3, 4
	addi	4, 4, 16
	stvx	15, 3, 4
	addi	4, 4, 16
	stvx	16, 3, 4
	addi	4, 4, 16
	stvx	17, 3, 4
	addi	4, 4, 16
	stvx	18, 3, 4
	addi	4, 4, 16
	stvx	19, 3, 4
	addi	4, 4, 16
	stvx	20, 3, 4
	addi	4, 4, 16
	stvx	21, 3, 4
	addi	4, 4, 16
	stvx	22, 3, 4
	addi	4, 4, 16
	stvx	23, 3, 4
	addi	4, 4, 16
	stvx	24, 3, 4
	addi	4, 4, 16
	stvx	25, 3, 4
	addi	4, 4, 16
	stvx	26, 3, 4
	addi	4, 4, 16
	stvx	27, 3, 4
	addi	4, 4, 16
	stvx	28, 3, 4
	addi	4, 4, 16
	stvx	29, 3, 4
	addi	4, 4, 16
	stvx	30, 3, 4
	addi	4, 4, 16
	stvx	31, 3, 4
	addi	4, 4, 16
	mfvscr	0
	li	4, VEC_VSCR
	stvx	0, 3, 4
	li	4, 0
	lvx	0, 3, 4
	mfspr	5, SPRN_VRSAVE
	stw	5, VEC_VRSAVE(3)
	blr

	.globl	vec_load_regs
vec_load_regs:
	li	4, VEC_VSCR
	lvx	0, 3, 4
	mtvscr	0
	lwz	5, VEC_VRSAVE(3)
	mtspr	SPRN_VRSAVE, 5
	li	4, 0
	lvx	0, 3, 4
	addi	4, 4, 16
	lvx	1, 3, 4
	addi	4, 4, 16
	lvx	2, 3, 4
	addi	4, 4, 16
	lvx	3, 3, 4
	addi	4, 4, 16
	lvx	4, 3, 4
	addi	4, 4, 16
	lvx	5, 3, 4
	addi	4, 4, 16
	lvx	6, 3, 4
	addi	4, 4, 16
	lvx	7, 3, 4
	addi	4, 4, 16
	lvx	8, 3, 4
	addi	4, 4, 16
	lvx	9, 3, 4
	addi	4, 4, 16
	lvx	10, 3, 4
	addi	4, 4, 16
	lvx	11, 3, 4
	addi	4, 4, 16
	lvx	12, 3, 4
	addi	4, 4, 16
	lvx	13, 3, 4
	addi	4, 4, 16
	lvx	14, 3, 4
	addi	4, 4, 16
	lvx	15, 3, 4
	addi	4, 4, 16
	lvx	16, 3, 4
	addi	4, 4, 16
	lvx	17, 3, 4
	addi	4, 4, 16
	lvx	18, 3, 4
	addi	4, 4, 16
	lvx	19, 3, 4
	addi	4, 4, 16
	lvx	20, 3, 4
	addi	4, 4, 16
	lvx	21, 3, 4
	addi	4, 4, 16
	lvx	22, 3, 4
	addi	4, 4, 16
	lvx	23, 3, 4
	addi	4, 4, 16
	lvx	24, 3, 4
	addi	4, 4, 16
	lvx	25, 3, 4
	addi	4, 4, 16
	lvx	26, 3, 4
	addi	4, 4, 16
	lvx	27, 3, 4
	addi	4, 4, 16
	lvx	28, 3, 4
	addi	4, 4, 16
	lvx	29, 3, 4
	addi	4, 4, 16
	lvx	30, 3, 4
	addi	4, 4, 16
	lvx	31, 3, 4
	addi	4, 4, 16
	blr
