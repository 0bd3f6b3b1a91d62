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

// The common case of the decision for facility f of t on this CPU (c):
// it stays off with nothing to do, because the gate is shut, the
// registers hold nothing of another process and the policy keeps it off
// (lazy: the registers are not t's; the counting policies: t's counter
// has run out; eager never).  'live': the registers are t's.
static inline bool fac_keeps_off(const struct fac_cpu *c, const struct fac_thread *tf,
				 enum fac_policy_kind kind, uint64_t space, bool live)
{
	return c->closed && (c->space == 0 || c->space == space) &&
	       (kind == FAC_LAZY ? !live : kind != FAC_EAGER && !tf->load_count);
}

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
		if (fac_keeps_off(c, &t->fac[f], kind, space, live))
			t->fac[f].on = false;
		else
			fac_decide(t, f, live);
	}
}

// t is being switched in here (interrupts off, after the switch-out
// steps of the thread before it).  Returns whether its way back to user
// mode must decide its facilities (WORK_STATE): not when, for every
// facility, fac_return_to_user would find the common case with the
// facility already off for t, so that it would change nothing.  Registers
// still t's count as a restore skipped, here instead of there.  Whatever
// changes this before t reaches user mode sets WORK_STATE itself
// (kernel/proc/return_to_user.c); a policy change takes effect at the
// next switch.
static inline bool fac_switch_in(struct thread *t, struct cpu *cpu)
{
	uint32_t present = __atomic_load_n(&fac_present, __ATOMIC_RELAXED);
	enum fac_policy_kind kind = __atomic_load_n(&fac_policy.kind, __ATOMIC_RELAXED);
	uint64_t space = t->mm->id;
	uint32_t live_set = 0;

	if (!present)
		present = fac_present_facilities();
	for (uint32_t left = present; left; left &= left - 1) {
		int f = __builtin_ctz(left);
		const struct fac_cpu *c = &cpu->fac[f];
		bool live = c->owner == t && t->fac[f].live_cpu == cpu->id;

		if (t->fac[f].on || !fac_keeps_off(c, &t->fac[f], kind, space, live))
			return true;
		live_set |= (uint32_t)live << f;
	}
	for (; live_set; live_set &= live_set - 1)
		cpu->fac[__builtin_ctz(live_set)].stats.restore_skips++;
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
