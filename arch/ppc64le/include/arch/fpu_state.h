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

// The transactional-memory SPRs a thread keeps: where its transactions
// fail to, the failing instruction, and the failure cause.
struct tm_state {
	uint64_t tfhar, tfiar, texasr;
};

#endif
