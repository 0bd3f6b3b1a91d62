// The ppc64 half of a context switch and of a thread's life: kernel
// stacks laid out for switch_stack, the user frame at the top of each
// kernel stack, the address space and the kernel stack the next
// interrupt from user mode uses.

#include <arch/tm.h>
#include <stdint.h>
#include <stdbool.h>
#include <arch/spr.h>
#include <arch/irq.h>
#include <arch/memlayout.h>
#include <arch/platform.h>
#include <arch/trapframe.h>
#include <kernel/thread.h>
#include <kernel/cpu.h>
#include <kernel/mm.h>
#include <kernel/trap.h>
#include <kernel/arch.h>
#include <kernel/exec.h>
#include <kernel/facility.h>
#include <kernel/proc_internal.h>
#include <mm/kmalloc.h>
#include <lib/string.h>
#include <mm/phys.h>
#include <uapi/errno.h>

void switch_stack(uint64_t *from_sp, uint64_t to_sp);
void thread_trampoline(void);
void arch_user_msr(struct trap_frame *f);		// facility.c
__attribute__((noreturn)) void arch_enter_user(struct trap_frame *f);

#define MIN_FRAME	32
#define SW_FRAME	(MIN_FRAME + 20 * 8)		// entry.S's switch_stack

uint64_t thread_kstack_top(struct thread *t)
{
	return (uint64_t)t->kstack + KSTACK_SIZE;
}

struct trap_frame *arch_thread_user_frame(struct thread *t)
{
	return (struct trap_frame *)(thread_kstack_top(t) - sizeof(struct trap_frame));
}

// Lays out the stack so that switch_stack's return lands in
// thread_trampoline with fn in r14 and arg in r15, below the slot of the
// user frame at the top of the stack.
void arch_thread_init(struct thread *t, void (*fn)(void *), void *arg)
{
	uint64_t top = (uint64_t)arch_thread_user_frame(t) & ~15UL;
	uint64_t *caller = (uint64_t *)(top - 48);	// thread_trampoline's frame
	uint64_t *sp = (uint64_t *)((uint64_t)caller - SW_FRAME);
	uint64_t toc;

	__asm__ volatile("mr %0, 2" : "=r"(toc));
	memset(sp, 0, SW_FRAME + 48);
	caller[2] = (uint64_t)thread_trampoline;	// the LR switch_stack reloads
	sp[0] = (uint64_t)caller;			// back chain
	sp[MIN_FRAME / 8 + 0] = (uint64_t)fn;		// r14
	sp[MIN_FRAME / 8 + 1] = (uint64_t)arg;		// r15
	sp[MIN_FRAME / 8 + 19] = toc;			// r2
	t->arch.ksp = (uint64_t)sp;
}

void arch_context_switch(struct thread *prev, struct thread *next)
{
	if (prev->mm && prev->arch.tm)
		tm_reclaim_thread(prev);
	if (next->mm) {
		this_cpu()->arch.kstack_top = thread_kstack_top(next);
		if (next->mm != prev->mm)
			arch_mm_activate(next->mm);
	}
	switch_stack(&prev->arch.ksp, next->arch.ksp);
}

static void user_thread_entry(void *arg)
{
	struct trap_frame *f = arch_thread_user_frame(current_thread());

	(void)arg;
	exit_to_user(f);
	arch_user_msr(f);
	arch_enter_user(f);
}

void arch_thread_init_user(struct thread *t)
{
	arch_thread_init(t, user_thread_entry, 0);
}

// A user thread starts little-endian, 64-bit, with interrupts and
// machine checks on and every facility off until its first use.
void arch_frame_init_user(struct trap_frame *f, uint64_t ip, uint64_t sp)
{
	memset(f, 0, sizeof(*f));
	f->nip = ip;
	f->gpr[1] = sp;
	f->gpr[12] = ip;		// ELFv2: r12 = the entry point at a global entry
	f->msr = MSR_SF | MSR_EE | MSR_PR | MSR_ME | MSR_IR | MSR_DR | MSR_RI | MSR_LE;
}

void arch_frame_set_return(struct trap_frame *f, long value)
{
	f->gpr[3] = (uint64_t)value;
	f->ccr &= ~0x10000000UL;	// CR0[SO] clear: success
}

void arch_frame_set_stack(struct trap_frame *f, uint64_t sp)
{
	f->gpr[1] = sp;
}

uint64_t arch_frame_sp(const struct trap_frame *f)
{
	return f->gpr[1];
}

uint64_t arch_frame_ip(const struct trap_frame *f)
{
	return f->nip;
}

void arch_frame_set_ip(struct trap_frame *f, uint64_t ip)
{
	f->nip = ip;
}

// The TLS pointer is r13: any value will do, as on Linux.
bool arch_user_base_ok(uint64_t base)
{
	(void)base;
	return true;
}

// clone: the child's r13 is the caller's, or 'tls' with CLONE_SETTLS.
void arch_clone_user_bases(struct thread *child, bool settls, uint64_t tls)
{
	if (settls)
		arch_thread_user_frame(child)->gpr[13] = tls;
	tm_clear_child(arch_thread_user_frame(child));
}

int arch_user_thread_init(struct thread *t)
{
	t->arch.fp = 0;
	t->arch.vec = 0;
	t->arch.tm = 0;
	fac_thread_init(t);
	return 0;
}

int facility_copy_areas(struct thread *child, struct thread *parent);	// facility.c

// The parent's state was saved to its areas by the policy (fac_sync).
int arch_user_thread_copy(struct thread *child, struct thread *parent)
{
	fac_thread_copy(child, parent);
	return facility_copy_areas(child, parent);
}

void arch_exec_reset_thread(struct thread *t)
{
	fac_reset(t);
	for (int f = FAC_FP; f <= FAC_VEC; f++)
		arch_fac_reset_area(f, t);
}

