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
// Transactional memory (FAC_TM), the seed's facility: MSR[TM] off until
// a thread's first TM instruction or TM SPR access, which raises the
// facility-unavailable interrupt (0xF60, FSCR[IC] = 5).  Its state is
// TFHAR, TFIAR and TEXASR.  "tm=off" hides TM: the trap then gives
// SIGILL, as on a CPU without it.  A transaction's checkpointed
// registers are held by the CPU itself; tm.c keeps them across
// switches, signals and system calls (a system call inside a transaction
// aborts it, as Linux does and AT_HWCAP2's PPC_FEATURE2_HTM_NOSC says).

#include <stdint.h>
#include <arch/spr.h>
#include <arch/irq.h>
#include <arch/trapframe.h>
#include <arch/thread_arch.h>
#include <arch/fpu_state.h>
#include <arch/tm.h>
#include <kernel/facility.h>
#include <kernel/thread.h>
#include <kernel/cpu.h>
#include <kernel/signal.h>
#include <mm/kmalloc.h>
#include <lib/string.h>
#include <uapi/signal.h>
#include <uapi/errno.h>
#include <kernel/boot.h>
#include <kernel/panic.h>
#include <kernel/process.h>

#define FSCR_IC_TM	5

static bool tm_hidden;			// tm=off

static int set_tm(const char *value)
{
	if (!value || (strcmp(value, "on") && strcmp(value, "off")))
		return -1;
	tm_hidden = !strcmp(value, "off");
	return 0;
}
BOOT_OPTION(tm, "tm=off: hide transactional memory (its first use gets SIGILL)", set_tm);

static const struct fp_state fp_initial;	// all zero: Linux's initial FP state
static const struct vec_state vec_initial = { .vscr = { 0, 0, 0, 0x10000 } };	// VSCR[NJ]

// The kernel's MSR with 'bits' added, for one save or load; returns the
// MSR to put back.
uint64_t kernel_facility_on(uint64_t bits)
{
	uint64_t msr;

	__asm__ volatile("mfmsr %0" : "=r"(msr));
	__asm__ volatile("mtmsrd %0\n\tisync" : : "r"(msr | bits) : "memory");
	return msr;
}

void kernel_facility_off(uint64_t msr)
{
	__asm__ volatile("mtmsrd %0\n\tisync" : : "r"(msr) : "memory");
}

const char *arch_fac_name(int f)
{
	return f == FAC_FP ? "FP" : f == FAC_VEC ? "VEC" : "TM";
}

// POWER8 and later have TM (ISA 2.07); QEMU's TCG implements its
// instructions and SPRs, though every tbegin. fails.
bool arch_fac_present(int f)
{
	if (f == FAC_TM)
		return !tm_hidden;
	return true;
}

bool arch_fac_usable(int f, struct thread *t)
{
	if (f == FAC_FP)
		return t->arch.fp != 0;
	if (f == FAC_VEC)
		return t->arch.vec != 0;
	return t->arch.tm != 0 && !tm_hidden;
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
	} else if (f == FAC_TM && tm_hidden) {
		return SIGILL;
	} else if (f == FAC_TM && !t->arch.tm) {
		t->arch.tm = kmalloc(sizeof(struct tm_state));
		if (!t->arch.tm)
			return SIGSEGV;
		*t->arch.tm = (struct tm_state){ 0 };
	}
	return 0;
}

// The TM SPRs are reachable in the kernel only with MSR[TM] on.
static void tm_save(struct tm_state *s)
{
	uint64_t msr = kernel_facility_on(MSR_TM);

	s->tfhar = mfspr(SPRN_TFHAR);
	s->tfiar = mfspr(SPRN_TFIAR);
	s->texasr = mfspr(SPRN_TEXASR);
	kernel_facility_off(msr);
}

static void tm_load(const struct tm_state *s)
{
	uint64_t msr = kernel_facility_on(MSR_TM);

	mtspr(SPRN_TFHAR, s->tfhar);
	mtspr(SPRN_TFIAR, s->tfiar);
	mtspr(SPRN_TEXASR, s->texasr);
	kernel_facility_off(msr);
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
	} else {
		tm_save(t->arch.tm);
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
	} else {
		tm_load(t->arch.tm);
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
	} else {
		tm_load(&(struct tm_state){ 0 });
	}
}

void arch_fac_reset_area(int f, struct thread *t)
{
	if (f == FAC_FP && t->arch.fp)
		*t->arch.fp = fp_initial;
	else if (f == FAC_VEC && t->arch.vec)
		*t->arch.vec = vec_initial;
	else if (f == FAC_TM && t->arch.tm)
		*t->arch.tm = (struct tm_state){ 0 };
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
	// A thread inside a transaction may not return with MSR[TM] off
	// (rfid would be a "TM Bad Thing"): its TM state is still the one
	// in the CPU, since it did not leave it.
	if (!c->arch.tm_off || ((msr >> MSR_TS_SHIFT) & 3))
		msr |= MSR_TM;
	f->msr = msr;
	if (current_thread()->arch.tm)		// only threads that used TM
		tm_recheckpoint_current(f);
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
	default: {
		// FSCR[IC] names the facility; QEMU ORs it in without
		// clearing it, so it is cleared here for the next trap.
		uint64_t fscr = mfspr(SPRN_FSCR);
		unsigned cause = (unsigned)(fscr >> FSCR_IC_SHIFT);
		mtspr(SPRN_FSCR, fscr & ~(0xffUL << FSCR_IC_SHIFT));
		if (cause == FSCR_IC_TM)
			fac_trap(FAC_TM, user, f->nip, f);
		else if (user)
			signal_force_fault(SIGILL, ILL_ILLOPC, f->nip);
		else
			panic_frame(f, "facility unavailable (FSCR[IC] %u) in kernel mode at %#lx",
				    cause, f->nip);
		break;
	}
	}
}

// Each CPU lets problem state use TM as far as FSCR goes (MSR[TM] is
// the gate the policy works), and starts with every facility off.
void facility_init_this_cpu(void)
{
	mtspr(SPRN_FSCR, mfspr(SPRN_FSCR) | FSCR_TM);
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
	if (parent->arch.tm) {
		if (arch_fac_prepare(FAC_TM, child))
			return -ENOMEM;
		*child->arch.tm = *parent->arch.tm;
	}
	return 0;
}

void arch_thread_free(struct thread *t)
{
	kfree(t->arch.fp);
	kfree(t->arch.vec);
	kfree(t->arch.tm);
	t->arch.fp = 0;
	t->arch.vec = 0;
	t->arch.tm = 0;
}
