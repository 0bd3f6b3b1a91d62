// The x86-64 half of a context switch.  The scheduler decides; this file
// moves the CPU from one thread to the next: the kernel stack used for
// traps, the address space, the user FS/GS bases, the extended-state hook,
// and finally the stack switch.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/memlayout.h>
#include <arch/xstate.h>
#include <arch/mmu.h>
#include <mm/phys.h>
#include <kernel/thread.h>
#include <kernel/cpu.h>
#include <kernel/mm.h>
#include <kernel/trap.h>
#include <arch/trapframe.h>
#include <lib/string.h>

void switch_stack(uint64_t *from_rsp, uint64_t to_rsp);
void thread_trampoline(void);
void cpu_set_kernel_stack(uint64_t top);

// Lays out the stack so that switch_stack's final 'ret' lands in
// thread_trampoline with fn in r12 and arg in r13, which calls
// thread_start(fn, arg).
void arch_thread_init(struct thread *t, void (*fn)(void *), void *arg)
{
	// Below the slot of the user register frame at the top of the stack
	// (thread_user_frame), which a new user thread already holds.
	uint64_t *sp = (uint64_t *)((char *)t->kstack + KSTACK_SIZE - sizeof(struct trap_frame));

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

// Loads a user thread's FS and GS bases unless this CPU already holds
// them: kernel threads (idle) leave the MSRs alone, so a thread coming
// back after idle usually finds its own values still there.  While in the
// kernel, the user's GS base waits in KERNEL_GS_BASE.
void arch_load_user_bases(struct thread *t)
{
	struct cpu *c = this_cpu();

	if (c->arch.user_fs_loaded != t->arch.fs_base) {
		wrmsr(MSR_FS_BASE, t->arch.fs_base);
		c->arch.user_fs_loaded = t->arch.fs_base;
	}
	if (c->arch.user_gs_loaded != t->arch.gs_base) {
		wrmsr(MSR_KERNEL_GS_BASE, t->arch.gs_base);
		c->arch.user_gs_loaded = t->arch.gs_base;
	}
}

void arch_context_switch(struct thread *prev, struct thread *next)
{
	if (prev->mm)
		xstate_switch_out(prev);
	if (next->mm) {
		cpu_set_kernel_stack(thread_kstack_top(next));
		if (next->mm != prev->mm)
			mm_activate(next->mm);
		arch_load_user_bases(next);
	}
	switch_stack(&prev->kernel_rsp, next->kernel_rsp);
}

// Every user thread's register frame sits at the top of its kernel stack:
// where SYSCALL entry and interrupts from user mode put it.
struct trap_frame *thread_user_frame(struct thread *t)
{
	return (struct trap_frame *)(thread_kstack_top(t) - sizeof(struct trap_frame));
}

__attribute__((noreturn)) void arch_enter_user(struct trap_frame *f);

static void user_thread_entry(void *arg)
{
	struct trap_frame *f = thread_user_frame(current_thread());

	(void)arg;
	exit_to_user(f);
	arch_enter_user(f);
}

void arch_thread_init_user(struct thread *t)
{
	arch_thread_init(t, user_thread_entry, 0);
}

void arch_frame_init_user(struct trap_frame *f, uint64_t ip, uint64_t sp)
{
	memset(f, 0, sizeof(*f));
	f->rip = ip;
	f->rsp = sp;
	f->cs = SEL_USER_CS;
	f->ss = SEL_USER_DS;
	f->rflags = RFLAGS_IF | 0x2;
}

void arch_frame_set_return(struct trap_frame *f, long value)
{
	f->rax = (uint64_t)value;
}

void *arch_kstack_alloc(void)
{
	return kstack_alloc();
}

void arch_kstack_free(void *stack)
{
	kstack_free(stack);
}

void arch_kstack_stats(uint64_t *in_use, uint64_t *cached, uint64_t *pages_each)
{
	kstack_stats(in_use, cached);
	*pages_each = KSTACK_SIZE / PAGE_SIZE;
}
