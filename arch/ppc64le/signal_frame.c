// Signal frames on ppc64 are not built yet: Linux's rt_sigframe layout
// (ucontext with mcontext's FP/VMX/VSX regions) comes with the rest of
// the port.  Until then delivering a signal to a handler fails, and the
// core kills the process as it does when a frame cannot be written.

#include <stdint.h>
#include <arch/trapframe.h>
#include <kernel/signal.h>
#include <kernel/thread.h>
#include <kernel/process.h>
#include <kernel/console.h>
#include <uapi/errno.h>

int arch_signal_frame_setup(struct trap_frame *f, int sig, const struct k_sigaction *ka,
			    const struct ksiginfo *info, uint64_t old_mask)
{
	(void)f; (void)ka; (void)info; (void)old_mask;
	kprintf("%s[%d]: signal %d has a handler, but ppc64 signal frames are not built yet\n",
		current_thread()->name, current_thread()->proc->pid, sig);
	return -ENOSYS;
}

long arch_signal_frame_return(struct trap_frame *f)
{
	(void)f;
	return -ENOSYS;
}

uint64_t arch_min_sigstack(void)
{
	return 4096;
}

void arch_log_fatal_fault(struct trap_frame *f, int sig, const struct ksiginfo *info)
{
	struct thread *t = current_thread();
	const char *what = sig == SIGSEGV ? "segfault" : sig == SIGBUS ? "bus error" :
			   sig == SIGILL ? "illegal instruction" : "trap/FP error";

	kprintf("%s[%d]: %s at %#lx nip %#lx lr %#lx sp %#lx trap %#lx\n", t->name, t->proc->pid,
		what, info->addr, f->nip, f->link, f->gpr[1], f->trap);
}
