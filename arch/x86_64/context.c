// The x86-64 half of a context switch.  The scheduler decides; this file
// moves the CPU from one thread to the next: the kernel stack used for
// traps, the address space, the user FS/GS bases, the extended-state hook,
// and finally the stack switch.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/memlayout.h>
#include <arch/xstate.h>
#include <kernel/thread.h>
#include <kernel/cpu.h>
#include <kernel/mm.h>

void switch_stack(uint64_t *from_rsp, uint64_t to_rsp);
void thread_trampoline(void);
void cpu_set_kernel_stack(uint64_t top);

// Lays out the stack so that switch_stack's final 'ret' lands in
// thread_trampoline with fn in r12 and arg in r13, which calls
// thread_start(fn, arg).
void arch_thread_init(struct thread *t, void (*fn)(void *), void *arg)
{
	uint64_t *sp = (uint64_t *)((char *)t->kstack + KSTACK_SIZE);

	// After the final 'ret', rsp is 16-byte aligned, as a call needs.
	*--sp = (uint64_t)thread_trampoline;	// return address
	*--sp = 0;				// rbp
	*--sp = 0;				// rbx
	*--sp = (uint64_t)fn;			// r12
	*--sp = (uint64_t)arg;			// r13
	*--sp = 0;				// r14
	*--sp = 0;				// r15
	t->kernel_rsp = (uint64_t)sp;
}

uint64_t thread_kstack_top(struct thread *t)
{
	return (uint64_t)t->kstack + KSTACK_SIZE;
}

void arch_context_switch(struct thread *prev, struct thread *next)
{
	if (prev->mm)
		xstate_switch_out(prev);
	if (next->mm) {
		cpu_set_kernel_stack(thread_kstack_top(next));
		if (next->mm != prev->mm)
			mm_activate(next->mm);
		if (prev->arch.fs_base != next->arch.fs_base || !prev->mm)
			wrmsr(MSR_FS_BASE, next->arch.fs_base);
		// While in the kernel the user's GS base waits in KERNEL_GS_BASE.
		if (prev->arch.gs_base != next->arch.gs_base || !prev->mm)
			wrmsr(MSR_KERNEL_GS_BASE, next->arch.gs_base);
	}
	switch_stack(&prev->kernel_rsp, next->kernel_rsp);
}
