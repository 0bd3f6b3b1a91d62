// x86-64 per-thread state kept outside the kernel stack.
#ifndef ARCH_THREAD_ARCH_H
#define ARCH_THREAD_ARCH_H

#include <stdint.h>
#include <stdbool.h>

struct xstate;

struct thread_arch {
	uint64_t fs_base;		// user TLS base while off the CPU
	uint64_t gs_base;		// user GS base while off the CPU
	struct xstate *xstate;		// extended-state save area (user threads)
	uint32_t xstate_alloc;		// its size in bytes
	bool tsc_off;			// PR_SET_TSC PR_TSC_SIGSEGV: CR4.TSD while it runs
};

struct thread;

// Prepares a new thread's kernel stack so the first switch to it runs
// fn(arg) (through the scheduler's thread_start).
void arch_thread_init(struct thread *t, void (*fn)(void *), void *arg);

// A user thread's arch state (the extended-state save area, in its
// initial state), and a clone's copy of its parent's.  -ENOMEM or 0.
int arch_user_thread_init(struct thread *t);
int arch_user_thread_copy(struct thread *child, struct thread *parent);

// Everything but the scheduler's bookkeeping: address space, FS/GS, the
// kernel stack for traps, extended state, then the stack switch itself.
void arch_context_switch(struct thread *prev, struct thread *next);

// The calling thread's user FS and GS bases: what its code sees now
// (with FSGSBASE it may have set them itself), and setting them.
uint64_t arch_user_fs(void);
uint64_t arch_user_gs(void);
void arch_set_user_fs(uint64_t base);
void arch_set_user_gs(uint64_t base);

// Can a user FS/GS base (or CLONE_SETTLS value) be set to this?  Linux's
// limit: below USER_TOP, the last page under the non-canonical hole.
bool arch_user_base_ok(uint64_t base);

// clone: the child's bases are the caller's current ones, or 'tls' for FS
// with CLONE_SETTLS.
void arch_clone_user_bases(struct thread *child, bool settls, uint64_t tls);

#endif
