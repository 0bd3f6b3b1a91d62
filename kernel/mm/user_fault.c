// A page fault in user mode, on any arch: demand paging, or the signal
// Linux sends for it.

#include <stdint.h>
#include <stdbool.h>
#include <kernel/trap.h>
#include <kernel/thread.h>
#include <kernel/process.h>
#include <kernel/signal.h>
#include <kernel/vm.h>
#include <mm/oom.h>
#include <uapi/errno.h>

// Out of memory is not the faulting thread's fault: the OOM policy kills
// a victim and the fault is tried again (mm/oom.h).  If the thread is the
// one to die, it returns with SIGKILL pending.
void user_page_fault(struct trap_frame *f, uint64_t addr, bool write, bool exec, bool present)
{
	struct thread *t = current_thread();
	int r;

	(void)f;
	(void)present;
	for (int tries = 0; (r = vm_fault(t->mm, addr, write, exec)) == -ENOMEM; tries++)
		if (!oom_retry(tries, true))
			return;
	if (r == 0)
		return;
	// No page behind a shared file mapping (past the end of the file).
	if (r == -EIO) {
		signal_force_fault(SIGBUS, BUS_ADRERR, addr);
		return;
	}
	signal_force_fault(SIGSEGV, r == -EACCES ? SEGV_ACCERR : SEGV_MAPERR, addr);
}
