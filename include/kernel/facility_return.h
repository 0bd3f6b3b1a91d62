// The facility policy's steps on the hot paths (kernel/sched/facility.c
// has the rest).
//
// The last step before user mode (interrupts off), after a switch into t
// or a change of its facility state (WORK_STATE): switch each facility
// on or off for t, loading or wiping registers as the policy says
// (kernel/sched/facility.c).  Inline, because the common case is a few
// tests: the facility stays off for t (its counter ran out, or lazy and
// not here), the registers hold nothing of another process, and the
// gate is known shut.
#ifndef KERNEL_FACILITY_RETURN_H
#define KERNEL_FACILITY_RETURN_H

#include <kernel/facility.h>
#include <kernel/thread.h>
#include <kernel/cpu.h>
#include <kernel/mm.h>

static inline void fac_return_to_user(struct thread *t)
{
	uint32_t present = __atomic_load_n(&fac_present, __ATOMIC_RELAXED);
	enum fac_policy_kind kind = __atomic_load_n(&fac_policy.kind, __ATOMIC_RELAXED);
	struct cpu *cpu = this_cpu();
	uint64_t space = t->mm->id;	// a user thread, on its way to user mode

	if (!present)
		present = fac_present_facilities();
	for (; present; present &= present - 1) {
		int f = __builtin_ctz(present);
		struct fac_cpu *c = &cpu->fac[f];
		bool live = c->owner == t && t->fac[f].live_cpu == cpu->id;

		if (live)
			c->stats.restore_skips++;
		if (c->closed && (c->space == 0 || c->space == space) &&
		    (kind == FAC_LAZY ? !live : kind != FAC_EAGER && !t->fac[f].load_count))
			t->fac[f].on = false;
		else
			fac_decide(t, f, live);
	}
}

// The switch path, with interrupts off: prev leaves this CPU.  The common
// case inline: the facility was off for prev and the registers are not
// its (nothing to count down, nothing to save); fac_switch_out_one does
// the rest.  (What the next thread may see is decided when it returns to
// user mode, above.)
static inline void fac_switch_out(struct thread *prev)
{
	uint32_t present = __atomic_load_n(&fac_present, __ATOMIC_RELAXED);
	struct cpu *cpu = this_cpu();

	if (!prev->mm)
		return;		// kernel threads never touch these registers
	if (!present)
		present = fac_present_facilities();
	for (; present; present &= present - 1) {
		int f = __builtin_ctz(present);
		struct fac_cpu *c = &cpu->fac[f];

		if (!prev->fac[f].on && c->owner != prev)
			c->stats.save_skips++;
		else
			fac_switch_out_one(prev, f);
	}
}

#endif
