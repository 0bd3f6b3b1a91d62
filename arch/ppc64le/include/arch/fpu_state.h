// The save areas of ppc64's facilities (facility.c): FP and VMX/VSX in
// the layout fpu.S stores them in, and TM's SPRs.
#ifndef ARCH_FPU_STATE_H
#define ARCH_FPU_STATE_H

#include <stdint.h>

// VSR 0-31 whole (stxvd2x): vsr[i][0] is FPR i, vsr[i][1] the right half.
struct fp_state {
	uint64_t vsr[32][2];
	uint64_t fpscr;
} __attribute__((aligned(16)));

// VR 0-31 (VSR 32-63), VSCR as stvx stores it, VRSAVE.
struct vec_state {
	uint64_t vr[32][2];
	uint32_t vscr[4];
	uint32_t vrsave;
} __attribute__((aligned(16)));

// The checkpointed GPRs, CR, LR, CTR and XER of a reclaimed transaction
// (tm.S's layout).
struct tm_ckpt_regs {
	uint64_t gpr[32];
	uint64_t cr, lr, ctr, xer;
};

// The transactional-memory state a thread keeps: where its transactions
// fail to, the failing instruction, and the failure cause; and, while a
// transaction of its is reclaimed (it left the CPU transactional or
// suspended), the checkpoint the CPU held for it and the state to go back
// to (ts: 1 suspended, 2 transactional; 0 none).
struct tm_state {
	uint64_t tfhar, tfiar, texasr;
	uint64_t ts;
	struct tm_ckpt_regs ck;
	struct fp_state ckfp;
	struct vec_state ckvec;
} __attribute__((aligned(16)));

// fpu.S: the registers to and from an area, the facility switched on.
void fp_save_regs(struct fp_state *s);
void fp_load_regs(const struct fp_state *s);
void vec_save_regs(struct vec_state *s);
void vec_load_regs(const struct vec_state *s);

// The kernel's MSR with 'bits' (MSR_FP, MSR_VEC, MSR_VSX, MSR_TM) added,
// for the instructions that move a thread's registers; returns the MSR
// to put back with kernel_facility_off (facility.c).
uint64_t kernel_facility_on(uint64_t bits);
void kernel_facility_off(uint64_t msr);

#endif
