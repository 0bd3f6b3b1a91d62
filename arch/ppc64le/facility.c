// The facility mechanisms of ppc64 (include/kernel/facility.h) for FP and
// VMX/VSX; kernel/sched/facility.c's policy drives them, as on x86-64.
//
// The gate for user mode is the MSR a thread returns with: MSR[FP],
// MSR[VEC], and MSR[VSX] only when both are on (a VSX instruction reaches
// both register files).  arch_fac_switch records the gate per CPU and
// arch_user_msr applies it to the frame just before the return.  The
// kernel itself is built without FP, VMX and VSX: it turns a facility on
// only around the instructions that save or load a thread's registers.
//
// Save areas, allocated at a thread's first use: FAC_FP holds VSR 0-31
// whole (the FPRs are their left halves) and the FPSCR; FAC_VEC holds
// VR 0-31 (VSR 32-63), VSCR and VRSAVE.
//
// Transactional memory (FAC_TM) is not switched yet: MSR[TM] stays off
// and a TM instruction from user mode gets SIGILL, as on a CPU without it.

#include <stdint.h>
#include <arch/spr.h>
#include <arch/irq.h>
#include <arch/trapframe.h>
#include <arch/thread_arch.h>
#include <arch/fpu_state.h>
#include <kernel/facility.h>
#include <kernel/thread.h>
#include <kernel/cpu.h>
#include <kernel/signal.h>
#include <mm/kmalloc.h>
#include <lib/string.h>
#include <uapi/signal.h>
#include <uapi/errno.h>

void fp_save_regs(struct fp_state *s);		// fpu.S, facility on
void fp_load_regs(const struct fp_state *s);
void vec_save_regs(struct vec_state *s);
void vec_load_regs(const struct vec_state *s);

static const struct fp_state fp_initial;	// all zero: Linux's initial FP state
static const struct vec_state vec_initial = { .vscr = { 0, 0, 0, 0x10000 } };	// VSCR[NJ]

// The kernel's MSR with 'bits' added, for one save or load; returns the
// MSR to put back.
static uint64_t kernel_facility_on(uint64_t bits)
{
	uint64_t msr;

	__asm__ volatile("mfmsr %0" : "=r"(msr));
	__asm__ volatile("mtmsrd %0\n\tisync" : : "r"(msr | bits) : "memory");
	return msr;
}

static void kernel_facility_off(uint64_t msr)
{
	__asm__ volatile("mtmsrd %0\n\tisync" : : "r"(msr) : "memory");
}

const char *arch_fac_name(int f)
{
	return f == FAC_FP ? "FP" : f == FAC_VEC ? "VMX/VSX" : "TM";
}

bool arch_fac_present(int f)
{
	return f == FAC_FP || f == FAC_VEC;
}

bool arch_fac_usable(int f, struct thread *t)
{
	if (f == FAC_FP)
		return t->arch.fp != 0;
	if (f == FAC_VEC)
		return t->arch.vec != 0;
	return false;
}

int arch_fac_prepare(int f, struct thread *t)
{
	if (f == FAC_FP && !t->arch.fp) {
		t->arch.fp = kmalloc(sizeof(struct fp_state));
		if (!t->arch.fp)
			return SIGSEGV;
		*t->arch.fp = fp_initial;
	} else if (f == FAC_VEC && !t->arch.vec) {
		t->arch.vec = kmalloc(sizeof(struct vec_state));
		if (!t->arch.vec)
			return SIGSEGV;
		*t->arch.vec = vec_initial;
	} else if (f == FAC_TM) {
		return SIGILL;
	}
	return 0;
}

void arch_fac_save(int f, struct thread *t)
{
	if (f == FAC_FP) {
		uint64_t msr = kernel_facility_on(MSR_FP | MSR_VSX);
		fp_save_regs(t->arch.fp);
		kernel_facility_off(msr);
	} else if (f == FAC_VEC) {
		uint64_t msr = kernel_facility_on(MSR_VEC);
		vec_save_regs(t->arch.vec);
		kernel_facility_off(msr);
	}
}

void arch_fac_restore(int f, struct thread *t)
{
	if (f == FAC_FP) {
		uint64_t msr = kernel_facility_on(MSR_FP | MSR_VSX);
		fp_load_regs(t->arch.fp);
		kernel_facility_off(msr);
	} else if (f == FAC_VEC) {
		uint64_t msr = kernel_facility_on(MSR_VEC);
		vec_load_regs(t->arch.vec);
		kernel_facility_off(msr);
	}
}

void arch_fac_load_init(int f)
{
	if (f == FAC_FP) {
		uint64_t msr = kernel_facility_on(MSR_FP | MSR_VSX);
		fp_load_regs(&fp_initial);
		kernel_facility_off(msr);
	} else if (f == FAC_VEC) {
		uint64_t msr = kernel_facility_on(MSR_VEC);
		vec_load_regs(&vec_initial);
		kernel_facility_off(msr);
	}
}

void arch_fac_reset_area(int f, struct thread *t)
{
	if (f == FAC_FP && t->arch.fp)
		*t->arch.fp = fp_initial;
	else if (f == FAC_VEC && t->arch.vec)
		*t->arch.vec = vec_initial;
}

void arch_fac_switch(int f, bool on)
{
	struct cpu *c = this_cpu();

	if (f == FAC_FP)
		c->arch.fp_off = !on;
	else if (f == FAC_VEC)
		c->arch.vec_off = !on;
	else
		c->arch.tm_off = !on;
}

// The user MSR this CPU's gates allow, applied to a frame about to
// return to user mode (interrupts off, after exit_to_user).
void arch_user_msr(struct trap_frame *f)
{
	struct cpu *c = this_cpu();
	uint64_t msr = f->msr & ~(MSR_FP | MSR_VEC | MSR_VSX | MSR_TM | MSR_FE0 | MSR_FE1);

	if (!c->arch.fp_off)
		msr |= MSR_FP;
	if (!c->arch.vec_off)
		msr |= MSR_VEC;
	if (!c->arch.fp_off && !c->arch.vec_off)
		msr |= MSR_VSX;
	f->msr = msr;
}

// FP unavailable (0x800), VMX unavailable (0xf20), VSX unavailable
// (0xf40: one or both of the register files is off), and facility
// unavailable (0xf60: TM and the FSCR-controlled others).
void facility_trap(struct trap_frame *f)
{
	bool user = trap_from_user(f);
	struct cpu *c = this_cpu();

	switch (f->trap) {
	case 0x800:
		fac_trap(FAC_FP, user, f->nip, f);
		break;
	case 0xf20:
		fac_trap(FAC_VEC, user, f->nip, f);
		break;
	case 0xf40:
		if (!user || c->arch.fp_off)
			fac_trap(FAC_FP, user, f->nip, f);
		if (c->arch.vec_off)
			fac_trap(FAC_VEC, user, f->nip, f);
		break;
	default:
		fac_trap(FAC_TM, user, f->nip, f);
		break;
	}
}

// clone: the child gets areas like its parent's, with the same contents.
int facility_copy_areas(struct thread *child, struct thread *parent)
{
	if (parent->arch.fp) {
		if (arch_fac_prepare(FAC_FP, child))
			return -ENOMEM;
		*child->arch.fp = *parent->arch.fp;
	}
	if (parent->arch.vec) {
		if (arch_fac_prepare(FAC_VEC, child))
			return -ENOMEM;
		*child->arch.vec = *parent->arch.vec;
	}
	return 0;
}

void arch_thread_free(struct thread *t)
{
	kfree(t->arch.fp);
	kfree(t->arch.vec);
	t->arch.fp = 0;
	t->arch.vec = 0;
}
