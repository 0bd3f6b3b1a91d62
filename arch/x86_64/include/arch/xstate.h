// Extended CPU state (x87, SSE, AVX, AVX-512, AMX): the XSAVE area of each
// user thread and the policy hooks the context switch calls.
#ifndef ARCH_XSTATE_H
#define ARCH_XSTATE_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

struct thread;

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

// The saved state: a standard-format (non-compacted) XSAVE area, the
// same layout Linux puts in signal frames.
struct xstate {
	uint8_t area[0] __attribute__((aligned(64)));
};

extern uint64_t xstate_features;	// XCR0
extern size_t xstate_size;		// bytes of the XSAVE area for XCR0
extern uint32_t xstate_mxcsr_mask;

void xstate_init(void);			// boot CPU: choose XCR0, size the area
void xstate_init_cpu(void);		// every CPU: program XCR0

// Per-thread area in the initial state; freed with the thread.
int xstate_thread_init(struct thread *t);
void xstate_thread_copy(struct thread *dst, struct thread *src);

// Policy hooks.
void xstate_switch_out(struct thread *prev);	// context switch, leaving thread
void xstate_before_user(struct thread *t);	// last step before user mode
void xstate_save_live(struct thread *t);	// make t's saved area current
void xstate_invalidate(struct thread *t);	// saved area was changed: reload
void xstate_reset_to_init(struct thread *t);

#endif
