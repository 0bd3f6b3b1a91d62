// Extended CPU state (x87, SSE, AVX, AVX-512, AMX) on x86-64: the XSAVE
// save areas and what the rest of arch/x86_64 needs of them.  The policy
// that switches this state lives in kernel/sched/facility.c; the
// mechanisms it drives are in arch/facility_arch.h.
#ifndef ARCH_XSTATE_H
#define ARCH_XSTATE_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

struct thread;
struct trap_frame;

// XSAVE components.
#define XFEATURE_X87		(1UL << 0)
#define XFEATURE_SSE		(1UL << 1)
#define XFEATURE_AVX		(1UL << 2)
#define XFEATURE_OPMASK		(1UL << 5)
#define XFEATURE_ZMM_HI256	(1UL << 6)
#define XFEATURE_HI16_ZMM	(1UL << 7)
#define XFEATURE_TILECFG	(1UL << 17)
#define XFEATURE_TILEDATA	(1UL << 18)
#define XFEATURE_AVX512		(XFEATURE_OPMASK | XFEATURE_ZMM_HI256 | XFEATURE_HI16_ZMM)
#define XFEATURE_AMX		(XFEATURE_TILECFG | XFEATURE_TILEDATA)

// Offsets in the standard-format area.
#define XSTATE_MXCSR_OFFSET	24
#define XSTATE_BV_OFFSET	512
#define XCOMP_BV_OFFSET		520
#define XSTATE_AREA_MAX		16384	// room for every component known today

// The saved state: a standard-format (non-compacted) XSAVE area, the
// same layout Linux puts in signal frames.
struct xstate {
	uint8_t area[0] __attribute__((aligned(64)));
};

extern uint64_t xstate_features;	// XCR0
extern size_t xstate_size;		// area without AMX tile data
extern size_t xstate_size_max;		// area with it
extern uint32_t xstate_mxcsr_mask;

void xstate_init(void);			// boot CPU: choose XCR0, size the areas
void xstate_init_cpu(void);		// every CPU: XCR0, gates open

void xstate_nm_trap(struct trap_frame *f);	// #NM
long xstate_prctl(int code, uint64_t arg);	// arch_prctl ARCH_*_XCOMP_*

// Signal frames: which components a thread's frames carry, how large
// they are, and room for tile data coming back through sigreturn.
uint64_t xstate_user_features(struct thread *t);
size_t xstate_user_size(struct thread *t);
int xstate_make_room(struct thread *t, size_t size);

// exec: initial state, and no AMX permission.
void xstate_exec_reset(struct thread *t);

#endif
