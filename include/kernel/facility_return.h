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

// t is being switched in here (interrupts off, after the switch-out
// steps of the thread before it).  Returns whether its way back to user
// mode must decide its facilities (WORK_STATE), which it need not when
// fac_return_to_user would change nothing: for every facility the gate
// is shut, the registers hold nothing of another process, the facility
// is off for t and the policy keeps it off (not eager; lazy when the
// registers are not t's, or t's counter has run out).  Registers still t's count as a restore
// skipped, here instead of there.  Whatever changes one of these before t
// reaches user mode sets WORK_STATE itself (kernel/proc/return_to_user.c);
// a policy change takes effect at the next switch.
static inline bool fac_switch_in(struct thread *t, struct cpu *cpu)
{
	uint32_t present = __atomic_load_n(&fac_present, __ATOMIC_RELAXED);
	enum fac_policy_kind kind = __atomic_load_n(&fac_policy.kind, __ATOMIC_RELAXED);
	uint64_t space = t->mm->id;
	uint32_t live = 0;

	if (kind == FAC_EAGER)
		return true;
	if (!present)
		present = fac_present_facilities();
	for (uint32_t left = present; left; left &= left - 1) {
		int f = __builtin_ctz(left);
		const struct fac_cpu *c = &cpu->fac[f];

		// Lazy turns the facility on for a thread whose registers
		// are still here.
		if (c->owner == t && (kind == FAC_LAZY || t->fac[f].live_cpu != cpu->id))
			return true;
		if (!c->closed || (c->space != 0 && c->space != space) || t->fac[f].on ||
		    (kind != FAC_LAZY && t->fac[f].load_count))
			return true;
		if (c->owner == t)
			live |= 1u << f;
	}
	for (; live; live &= live - 1)
		cpu->fac[__builtin_ctz(live)].stats.restore_skips++;
	return false;
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
