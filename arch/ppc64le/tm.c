// A user thread's transaction across a context switch, as Linux keeps it
// (tm_reclaim_task, tm_recheckpoint): the CPU holds one checkpoint, the
// state a transaction rolls back to, so a thread that leaves the CPU
// transactional or suspended (MSR[TS] in its user frame) must give it
// back first.  treclaim. dooms the transaction (TEXASR: TM_CAUSE_RESCHED)
// and hands over the checkpointed registers, which the thread keeps with
// its TM state; on its way back to user mode trechkpt. makes them the
// CPU's checkpoint again, the thread resumes in its state, and the doomed
// transaction fails to its handler with the checkpointed registers.
//
// Under QEMU's TCG every tbegin. fails, so MSR[TS] is never set by a user
// thread and none of this runs there (docs/ppc64.md).

#include <stdint.h>
#include <arch/spr.h>
#include <arch/trapframe.h>
#include <arch/thread_arch.h>
#include <arch/tm.h>
#include <kernel/facility.h>
#include <kernel/thread.h>
#include <kernel/proc_internal.h>

// TEXASR failure causes (Linux's TM_CAUSE_*, in its top byte as
// treclaim. and tabort. put it).
#define TM_CAUSE_PERSISTENT	0x01
#define TM_CAUSE_SYSCALL	0xd8
#define TM_CAUSE_SIGNAL		0xdc
#define TM_CAUSE_RESCHED	0xde

#define ALL_FACILITIES	(MSR_TM | MSR_FP | MSR_VEC | MSR_VSX)

static uint64_t user_ts(const struct trap_frame *f)
{
	return (f->msr >> MSR_TS_SHIFT) & 3;
}

// Ends t's transaction with 'cause' (interrupts off): its transactional
// FP and vector state goes to its areas first, then the checkpoint comes
// out of the CPU, its FP and vector part into fp and vec.
static void reclaim(struct thread *t, uint64_t cause, struct fp_state *fp, struct vec_state *vec)
{
	struct tm_state *tm = t->arch.tm;

	fac_sync(t);
	fac_take_area(t);	// the registers are no longer anyone's live state
	uint64_t msr = kernel_facility_on(ALL_FACILITIES);
	tm_reclaim_regs(&tm->ck, cause);
	fp_save_regs(fp);
	vec_save_regs(vec);
	tm->tfhar = mfspr(SPRN_TFHAR);
	tm->tfiar = mfspr(SPRN_TFIAR);
	tm->texasr = mfspr(SPRN_TEXASR);
	kernel_facility_off(msr);	// MSR[TS] is 0 again: MSR[TM] may go off
}

// At switch-out, interrupts off: t was transactional or suspended when
// it entered the kernel.  The checkpoint is kept to be put back on its
// way to user mode.
void tm_reclaim_thread(struct thread *t)
{
	struct tm_state *tm = t->arch.tm;
	uint64_t ts = user_ts(arch_thread_user_frame(t));

	if (!ts || !tm || tm->ts)
		return;
	reclaim(t, TM_CAUSE_RESCHED, &tm->ckfp, &tm->ckvec);
	tm->ts = ts;
}

// On the way back to user mode, interrupts off, after the facility
// policy: the thread's registers are made live (its transactional FP and
// vector state), the checkpoint goes back into the CPU, and the frame
// returns in the state the thread left in.  The kernel stays with
// MSR[TM] on until the rfid: the CPU is suspended now.
void tm_recheckpoint_current(struct trap_frame *f)
{
	struct thread *t = current_thread();
	struct tm_state *tm = t->arch.tm;

	if (!tm || !tm->ts)
		return;
	for (int fac = FAC_FP; fac <= FAC_TM; fac++) {
		if (arch_fac_prepare(fac, t))
			return;		// no memory: the thread resumes out of its transaction
		fac_make_live(fac);
	}
	kernel_facility_on(ALL_FACILITIES);
	fp_save_regs(t->arch.fp);	// what the thread will see: kept aside
	vec_save_regs(t->arch.vec);
	fp_load_regs(&tm->ckfp);	// what the checkpoint holds
	vec_load_regs(&tm->ckvec);
	mtspr(SPRN_TFHAR, tm->tfhar);
	mtspr(SPRN_TFIAR, tm->tfiar);
	mtspr(SPRN_TEXASR, tm->texasr);
	tm_recheckpoint_regs(&tm->ck);
	fp_load_regs(t->arch.fp);
	vec_load_regs(t->arch.vec);
	f->msr |= ALL_FACILITIES;	// its TS bits are still the ones it left with
	tm->ts = 0;
}

// fork and clone from a suspended transaction: the child has no
// checkpoint of its own, so it starts outside any transaction, as on
// Linux.
void tm_clear_child(struct trap_frame *child)
{
	child->msr &= ~(3UL << MSR_TS_SHIFT);
}

#define CR0_FAILED		(0xaUL << 28)	// what a failed transaction leaves in CR0

// A signal delivered to a thread inside a transaction: the transaction
// fails now, before the handler runs.  The thread's state becomes the
// checkpoint's, at its failure handler (TFHAR) with CR0 saying the
// transaction failed and TEXASR why (TM_CAUSE_SIGNAL), as if the failure
// had come just before the signal.  Linux instead hands the handler both
// contexts (the TM ucontext); for a transactional thread what the
// program sees after the handler is the same, for a suspended one the
// code up to its tresume. is skipped.
void tm_fail_for_signal(struct thread *t, struct trap_frame *f)
{
	struct tm_state *tm = t->arch.tm;

	if (!user_ts(f) || !tm)
		return;
	for (int fac = FAC_FP; fac <= FAC_VEC; fac++)
		if (arch_fac_prepare(fac, t))
			return;
	// The checkpoint's FP and vector registers are the thread's now.
	reclaim(t, TM_CAUSE_SIGNAL, t->arch.fp, t->arch.vec);
	for (int i = 0; i < 32; i++)
		f->gpr[i] = tm->ck.gpr[i];
	f->ccr = (tm->ck.cr & 0x0fffffffUL) | CR0_FAILED;
	f->link = tm->ck.lr;
	f->ctr = tm->ck.ctr;
	f->xer = tm->ck.xer;
	f->nip = tm->tfhar & ~3UL;
	f->msr &= ~(3UL << MSR_TS_SHIFT);
	tm->ts = 0;
}

// A system call inside a transaction (MSR[TS] transactional at sc)
// aborts the transaction instead of running: TEXASR says
// TM_CAUSE_SYSCALL, and the thread resumes at its failure handler with
// the checkpointed registers, as Linux's system_call_common does.
// True if so.
bool tm_abort_syscall(struct trap_frame *f)
{
	if (((f->msr >> MSR_TS_SHIFT) & 3) != MSR_TS_TRANSACTIONAL)
		return false;
	uint64_t msr = kernel_facility_on(MSR_TM);
	uint64_t cause = TM_CAUSE_SYSCALL | TM_CAUSE_PERSISTENT;
	__asm__ volatile("tabort. %0" : : "r"(cause) : "cr0", "memory");
	kernel_facility_off(msr);
	return true;
}
