// The last steps on every return to user space: reschedule if asked,
// deliver signals, restart interrupted syscalls, restart rseq critical
// sections and refresh rseq ids, and let the extended-state policy
// (kernel/sched/facility.c) set up the thread's registers.
//
// A system call's return takes the fast way (syscall_exit_to_user in
// include/kernel/trap.h) when the thread's work word is 0, its CPU need
// not reschedule and the result is no restart code: then none of the
// steps below has anything to do.  That holds because whatever gives
// them something to do sets a bit first:
//
//	WORK_SIGNAL	every change that can make thread_signal_pending()
//			true: a signal made pending for the thread or its
//			process, a group stop, an exit, the thread's own
//			mask losing bits (kernel/proc/signal.c, jobctl.c,
//			exit.c, exec.c)
//	WORK_STATE	a switch into the thread after which its facilities
//			need deciding (schedule, fac_switch_in), an rseq event
//			or registration (kernel/proc/rseq.c: a switch-out,
//			membarrier's RSEQ IPI), and the facility calls that
//			change where its state is (fac_reset, fac_take_area,
//			fac_make_live)
//	WORK_FRAME	a system call that rewrote its own user frame (exec,
//			sigreturn: arch_frame_init_user, the arch's signal
//			frame return), so the arch's return checks the frame
//
// Returns from interrupts and exceptions always take the whole path.
// Its signal step, like the fast return, trusts WORK_SIGNAL.

#include <kernel/trap.h>
#include <kernel/thread.h>
#include <kernel/sched.h>
#include <kernel/signal.h>
#include <kernel/wait.h>
#include <kernel/cpu.h>
#include <arch/irq.h>
#include <kernel/facility_return.h>
#include <kernel/rseq.h>

// Signals, preemption and rseq, until none is left to do; returns with
// interrupts off, and whether it changed the frame.
static bool exit_work_loop(struct thread *t, struct trap_frame *f)
{
	bool changed = false;

	for (;;) {
		irq_disable();
		if (this_cpu()->need_resched) {
			irq_enable();
			sched_preempt();
			continue;
		}
		// Taken before the look: a signal sent after it sets the bit
		// again, and is seen at the next return.
		if ((t->work & WORK_SIGNAL) && thread_work_take(t, WORK_SIGNAL) &&
		    thread_signal_pending(t)) {
			irq_enable();
			signal_deliver(f);
			changed = true;
			// One signal per return: any other waits for the next.
			thread_work_set(t, WORK_SIGNAL);
			irq_disable();
			if (!this_cpu()->need_resched && !rseq_resume_pending(&t->rseq))
				return changed;
			continue;
		}
		// rseq: restart an interrupted critical section, refresh the
		// ids.  Interrupts on (user memory); whatever comes meanwhile
		// (a switch, membarrier's IPI) is seen on the next pass.
		if (rseq_resume_pending(&t->rseq)) {
			uint64_t ip = arch_frame_ip(f);
			irq_enable();
			rseq_resume(f);
			changed |= arch_frame_ip(f) != ip;
			continue;
		}
		return changed;
	}
}

bool exit_to_user(struct trap_frame *f)
{
	return exit_to_user_after(f, true);
}

bool exit_to_user_after(struct trap_frame *f, bool may_restart)
{
	struct thread *t = current_thread();
	bool changed = exit_work_loop(t, f);

	// Interrupted by a signal that needed no handler: run it again.
	if (may_restart)
		changed |= arch_syscall_restart_if_needed(f, false, 0);
	if (t->work & (WORK_STATE | WORK_FRAME)) {
		uint32_t work = thread_work_take(t, WORK_STATE | WORK_FRAME);
		if (work & WORK_STATE)
			fac_return_to_user(t);
		changed |= (work & WORK_FRAME) != 0;
	}
	// Interrupts stay off from here to user mode: the rest is user time.
	acct_kernel_lap(&this_cpu()->acct, &t->acct, false);
	return !changed;
}
