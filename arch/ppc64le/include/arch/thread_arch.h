// ppc64 per-thread state: the facilities' save areas (FP and VMX/VSX, the
// TM SPRs and checkpointed state, each allocated at first use), and the
// context switch.
#ifndef ARCH_THREAD_ARCH_H
#define ARCH_THREAD_ARCH_H

#include <stdint.h>
#include <stdbool.h>

struct fp_state;
struct vec_state;
struct tm_state;

struct thread_arch {
	uint64_t ksp;			// saved kernel stack pointer while switched out
	struct fp_state *fp;		// FPRs and FPSCR (VSR 0-31 halves)
	struct vec_state *vec;		// VRs, VSCR, VRSAVE (VSR 32-63)
	struct tm_state *tm;		// TFHAR, TFIAR, TEXASR and the checkpoint
	uint64_t fscr;			// its FSCR (facility enables for user mode)
};

struct thread;

void arch_thread_init(struct thread *t, void (*fn)(void *), void *arg);
int arch_user_thread_init(struct thread *t);
int arch_user_thread_copy(struct thread *child, struct thread *parent);
void arch_context_switch(struct thread *prev, struct thread *next);
// The TLS pointer is r13 in user space: anything a program puts there.
bool arch_user_base_ok(uint64_t base);
void arch_clone_user_bases(struct thread *child, bool settls, uint64_t tls);

#endif
