// The x86-64 half of a context switch.  The scheduler decides; this file
// moves the CPU from one thread to the next: the kernel stack used for
// traps, the address space, the user FS/GS bases, the extended-state hook,
// and finally the stack switch.

#include <stdint.h>
#include <stdbool.h>
#include <arch/x86.h>
#include <arch/irq.h>
#include <arch/memlayout.h>
#include <arch/mmu.h>
#include <mm/phys.h>
#include <kernel/thread.h>
#include <kernel/cpu.h>
#include <kernel/mm.h>
#include <kernel/trap.h>
#include <kernel/arch.h>
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
	// (arch_thread_user_frame), which a new user thread already holds.
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

// ---- user FS and GS bases ----
//
// t->arch.fs_base and gs_base are a thread's bases while it is off the
// CPU.  With FSGSBASE, user code changes the registers itself (WRFSBASE,
// WRGSBASE), so the values are read back when a user thread leaves the
// CPU.  Each CPU remembers what its registers hold for user space
// (user_fs_loaded, user_gs_loaded) so that a thread coming back to the
// registers it left skips the writes; the memory is only right because
// every path that changes the registers updates it, and the read-back
// at switch-out catches what user code changed.  While in the kernel,
// the user's GS base waits in KERNEL_GS_BASE (entry did SWAPGS); the
// kernel never uses FS.

static uint64_t rdfsbase(void)
{
	uint64_t v;
	__asm__ volatile("rdfsbase %0" : "=r"(v));
	return v;
}

static void wrfsbase(uint64_t v)
{
	__asm__ volatile("wrfsbase %0" : : "r"(v) : "memory");
}

// The user GS base, through a SWAPGS pair: cheaper than RDMSR of
// KERNEL_GS_BASE.  Interrupts must be off between the two SWAPGS (the
// NMI handler touches no GS).
static uint64_t rd_user_gsbase(void)
{
	uint64_t v;
	__asm__ volatile("swapgs; rdgsbase %0; swapgs" : "=r"(v));
	return v;
}

static void wr_user_gsbase(uint64_t v)
{
	__asm__ volatile("swapgs; wrgsbase %0; swapgs" : : "r"(v) : "memory");
}

static void write_fs(struct cpu *c, uint64_t v)
{
	if (cpu_has.fsgsbase)
		wrfsbase(v);
	else
		wrmsr(MSR_FS_BASE, v);
	c->arch.user_fs_loaded = v;
}

static void write_gs(struct cpu *c, uint64_t v)
{
	if (cpu_has.fsgsbase)
		wr_user_gsbase(v);
	else
		wrmsr(MSR_KERNEL_GS_BASE, v);
	c->arch.user_gs_loaded = v;
}

// A user thread leaves the CPU (interrupts off): keep the bases its code
// may have set.  A dying thread counts too (it has no mm any more but
// still its extended-state area): whatever it left in the registers must
// be known before another thread trusts them.
static void save_user_bases(struct thread *t)
{
	struct cpu *c = this_cpu();

	if (!cpu_has.fsgsbase || !t->arch.xstate)
		return;		// without FSGSBASE only the kernel changes them
	t->arch.fs_base = c->arch.user_fs_loaded = rdfsbase();
	t->arch.gs_base = c->arch.user_gs_loaded = rd_user_gsbase();
}

// A user thread comes on the CPU: load its bases unless the registers
// hold them already.  Kernel threads (idle) leave them alone, so a thread
// coming back after idle usually finds its own values still there.
static void load_user_bases(struct thread *t)
{
	struct cpu *c = this_cpu();

	if (c->arch.user_fs_loaded != t->arch.fs_base)
		write_fs(c, t->arch.fs_base);
	if (c->arch.user_gs_loaded != t->arch.gs_base)
		write_gs(c, t->arch.gs_base);
}

// CR4.TSD follows the user thread on the CPU (PR_SET_TSC); the CPU
// remembers what it holds so that most switches write nothing.
static void load_tsc_mode(struct thread *t)
{
	struct cpu *c = this_cpu();

	if (c->arch.tsd_set == t->arch.tsc_off)
		return;
	uint64_t cr4 = read_cr4();
	write_cr4(t->arch.tsc_off ? cr4 | CR4_TSD : cr4 & ~CR4_TSD);
	c->arch.tsd_set = t->arch.tsc_off;
}

bool arch_tsc_allowed(void)
{
	return !current_thread()->arch.tsc_off;
}

void arch_set_tsc_allowed(bool allowed)
{
	uint64_t flags = irq_save();

	current_thread()->arch.tsc_off = !allowed;
	load_tsc_mode(current_thread());
	irq_restore(flags);
}

bool arch_user_base_ok(uint64_t base)
{
	return base < USER_TOP;
}

uint64_t arch_user_fs(void)
{
	struct thread *t = current_thread();
	uint64_t flags = irq_save();
	uint64_t v = cpu_has.fsgsbase ? rdfsbase() : t->arch.fs_base;

	irq_restore(flags);
	return v;
}

uint64_t arch_user_gs(void)
{
	struct thread *t = current_thread();
	uint64_t flags = irq_save();
	uint64_t v = cpu_has.fsgsbase ? rd_user_gsbase() : t->arch.gs_base;

	irq_restore(flags);
	return v;
}

// Written unconditionally: user code may have changed the register since
// the kernel last did.  Interrupts stay off so that a switch cannot come
// between the register and the saved copy.
void arch_set_user_fs(uint64_t v)
{
	uint64_t flags = irq_save();

	current_thread()->arch.fs_base = v;
	write_fs(this_cpu(), v);
	irq_restore(flags);
}

void arch_set_user_gs(uint64_t v)
{
	uint64_t flags = irq_save();

	current_thread()->arch.gs_base = v;
	write_gs(this_cpu(), v);
	irq_restore(flags);
}

// clone: the child starts with the bases the calling thread has now (not
// the kernel's last copy of them), FS replaced by the CLONE_SETTLS value
// (checked by the caller with arch_user_base_ok).
void arch_clone_user_bases(struct thread *child, bool settls, uint64_t tls)
{
	child->arch.fs_base = settls ? tls : arch_user_fs();
	child->arch.gs_base = arch_user_gs();
}

void arch_context_switch(struct thread *prev, struct thread *next)
{
	save_user_bases(prev);
	if (next->mm) {
		cpu_set_kernel_stack(thread_kstack_top(next));
		if (next->mm != prev->mm)
			arch_mm_activate(next->mm);
		load_user_bases(next);
		load_tsc_mode(next);
	}
	switch_stack(&prev->kernel_rsp, next->kernel_rsp);
}

// Every user thread's register frame sits at the top of its kernel stack:
// where SYSCALL entry and interrupts from user mode put it.
struct trap_frame *arch_thread_user_frame(struct thread *t)
{
	return (struct trap_frame *)(thread_kstack_top(t) - sizeof(struct trap_frame));
}

__attribute__((noreturn)) void arch_enter_user(struct trap_frame *f);

static void user_thread_entry(void *arg)
{
	struct trap_frame *f = arch_thread_user_frame(current_thread());

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

void arch_frame_set_stack(struct trap_frame *f, uint64_t sp)
{
	f->rsp = sp;
}

