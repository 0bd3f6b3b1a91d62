// x86-64 per-thread state kept outside the kernel stack.
#ifndef ARCH_THREAD_ARCH_H
#define ARCH_THREAD_ARCH_H

#include <stdint.h>
#include <stdbool.h>

struct xstate;

struct thread_arch {
	uint64_t fs_base;		// user TLS base (arch_prctl ARCH_SET_FS)
	uint64_t gs_base;		// user GS base
	struct xstate *xstate;		// saved extended state (user threads)
	int xstate_cpu;			// CPU whose registers hold it, -1 if none
	bool xstate_dirty;		// registers may differ from the saved area
};

struct thread;

// Prepares a new thread's kernel stack so the first switch to it runs
// fn(arg) (through the scheduler's thread_start).
void arch_thread_init(struct thread *t, void (*fn)(void *), void *arg);

// Everything but the scheduler's bookkeeping: address space, FS/GS, the
// kernel stack for traps, extended state, then the stack switch itself.
void arch_context_switch(struct thread *prev, struct thread *next);

// Makes the CPU's user FS/GS bases those of t (after they changed).
void arch_load_user_bases(struct thread *t);

#endif
