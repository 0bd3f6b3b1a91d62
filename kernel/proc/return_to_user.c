// The last steps on every return to user space: reschedule if asked,
// deliver signals, restart interrupted syscalls, restart rseq critical
// sections and refresh rseq ids, and let the extended-state policy
// (kernel/sched/facility.c) set up the thread's registers.

#include <kernel/trap.h>
#include <kernel/thread.h>
#include <kernel/sched.h>
#include <kernel/signal.h>
#include <kernel/wait.h>
#include <kernel/cpu.h>
#include <arch/irq.h>
#include <kernel/facility.h>
#include <kernel/rseq.h>

void exit_to_user(struct trap_frame *f)
{
	struct thread *t = current_thread();

	for (;;) {
		irq_disable();
		if (this_cpu()->need_resched) {
			irq_enable();
			sched_preempt();
			continue;
		}
		if (t->proc && thread_signal_pending(t)) {
			irq_enable();
			signal_deliver(f);
			irq_disable();
			if (!this_cpu()->need_resched && !rseq_resume_pending(&t->rseq))
				break;
			continue;
		}
		// rseq: restart an interrupted critical section, refresh the
		// ids.  Interrupts on (user memory); whatever comes meanwhile
		// (a switch, membarrier's IPI) is seen on the next pass.
		if (rseq_resume_pending(&t->rseq)) {
			irq_enable();
			rseq_resume(f);
			continue;
		}
		break;
	}
	// Interrupted by a signal that needed no handler: run it again.
	arch_syscall_restart_if_needed(f, false, 0);
	fac_return_to_user(t);
	// Interrupts stay off from here to user mode: the rest is user time.
	acct_kernel_lap(&this_cpu()->acct, &t->acct, false);
}
