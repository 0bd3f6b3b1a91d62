// Signal handler frames on x86-64, laid out exactly as Linux does so that
// libc's restorers, ucontext readers and debuggers work unchanged:
//
//   [ xsave area (fpstate), 64-byte aligned, then FP_XSTATE_MAGIC2 ]
//   [ struct rt_sigframe: return address (sa_restorer), ucontext, siginfo ]  <- rsp
//
// The handler gets rdi = signal, rsi = &siginfo, rdx = &ucontext.

#include <stdint.h>
#include <stddef.h>
#include <arch/x86.h>
#include <arch/trapframe.h>
#include <arch/xstate.h>
#include <arch/memlayout.h>
#include <kernel/signal.h>
#include <kernel/facility.h>
#include <kernel/process.h>
#include <kernel/thread.h>
#include <kernel/uaccess.h>
#include <kernel/console.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define FP_XSTATE_MAGIC1	0x46505853u
#define FP_XSTATE_MAGIC2	0x46505845u
#define UC_FP_XSTATE		0x1
#define UC_SIGCONTEXT_SS	0x2
#define UC_STRICT_RESTORE_SS	0x4

struct sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate;		// user pointer to the xsave area
	uint64_t reserved1[8];
};

struct ucontext {
	uint64_t uc_flags;
	uint64_t uc_link;
	struct user_stack_t uc_stack;
	struct sigcontext uc_mcontext;
	uint64_t uc_sigmask;
};

struct rt_sigframe {
	uint64_t pretcode;
	struct ucontext uc;
	struct user_siginfo info;
};

_Static_assert(sizeof(struct sigcontext) == 256, "sigcontext layout");
_Static_assert(offsetof(struct rt_sigframe, info) == 312, "rt_sigframe layout");

// The software bytes Linux keeps in the reserved tail of the FXSAVE area.
struct fpx_sw_bytes {
	uint32_t magic1;
	uint32_t extended_size;
	uint64_t xfeatures;
	uint32_t xstate_size;
	uint32_t padding[7];
};

#define FXSAVE_SW_OFFSET	464
#define MXCSR_OFFSET		XSTATE_MXCSR_OFFSET

// 48-bit virtual addresses: bits 63..47 all equal.
static bool canonical(uint64_t addr)
{
	return (uint64_t)((int64_t)(addr << 16) >> 16) == addr;
}

uint64_t arch_frame_sp(const struct trap_frame *f)
{
	return f->rsp;
}

// rseq's restart: the return goes through IRET when rip no longer
// matches rcx, so SYSRET's limits do not apply.
uint64_t arch_frame_ip(const struct trap_frame *f)
{
	return f->rip;
}

void arch_frame_set_ip(struct trap_frame *f, uint64_t ip)
{
	f->rip = ip;
}

static bool on_altstack(struct thread *t, uint64_t sp)
{
	return t->altstack.ss_flags != SS_DISABLE && t->altstack.ss_size &&
	       sp - t->altstack.ss_sp < t->altstack.ss_size;
}

int arch_signal_frame_setup(struct trap_frame *f, int sig, const struct k_sigaction *ka,
			    const struct ksiginfo *info, uint64_t old_mask)
{
	struct thread *t = current_thread();
	uint64_t sp = f->rsp;

	if ((ka->flags & SA_ONSTACK) && t->altstack.ss_flags != SS_DISABLE &&
	    t->altstack.ss_size && !on_altstack(t, sp))
		sp = t->altstack.ss_sp + t->altstack.ss_size;
	else
		sp -= 128;			// the red zone below the user's rsp

	// The extended state first, 64-byte aligned, with magic2 after it:
	// as large as what the thread may use (AMX tiles once permitted).
	size_t size = xstate_user_size(t);
	size_t have = size < t->arch.xstate_alloc ? size : t->arch.xstate_alloc;
	uint64_t fp = (sp - size - 4) & ~63UL;
	uint64_t frame_addr = ((fp - sizeof(struct rt_sigframe)) & ~15UL) - 8;

	fac_sync(t);		// the area now holds the thread's real state
	uint8_t *area = t->arch.xstate->area;
	struct fpx_sw_bytes sw = {
		.magic1 = FP_XSTATE_MAGIC1,
		.extended_size = (uint32_t)size + 4,
		.xfeatures = xstate_user_features(t),
		.xstate_size = (uint32_t)size,
	};
	memcpy(area + FXSAVE_SW_OFFSET, &sw, sizeof(sw));
	uint32_t magic2 = FP_XSTATE_MAGIC2;
	if (copy_to_user(fp, area, have) < 0 ||
	    (size > have && clear_user(fp + have, size - have) < 0) ||
	    copy_to_user(fp + size, &magic2, 4) < 0)
		return -EFAULT;

	struct rt_sigframe fr;
	memset(&fr, 0, sizeof(fr));
	fr.pretcode = ka->restorer;
	fr.uc.uc_flags = UC_FP_XSTATE | UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	fr.uc.uc_stack = t->altstack;
	if (t->altstack.ss_size == 0)
		fr.uc.uc_stack.ss_flags = SS_DISABLE;
	else if (on_altstack(t, f->rsp))
		fr.uc.uc_stack.ss_flags = SS_ONSTACK;
	struct sigcontext *sc = &fr.uc.uc_mcontext;
	sc->r8 = f->r8; sc->r9 = f->r9; sc->r10 = f->r10; sc->r11 = f->r11;
	sc->r12 = f->r12; sc->r13 = f->r13; sc->r14 = f->r14; sc->r15 = f->r15;
	sc->rdi = f->rdi; sc->rsi = f->rsi; sc->rbp = f->rbp; sc->rbx = f->rbx;
	sc->rdx = f->rdx; sc->rax = f->rax; sc->rcx = f->rcx; sc->rsp = f->rsp;
	sc->rip = f->rip; sc->eflags = f->rflags;
	sc->cs = (uint16_t)f->cs;
	sc->ss = (uint16_t)f->ss;
	sc->err = f->vector < 32 ? f->error : 0;
	sc->trapno = f->vector < 32 ? f->vector : 0;
	sc->oldmask = old_mask;
	sc->cr2 = info->addr;
	sc->fpstate = fp;
	fr.uc.uc_sigmask = old_mask;
	siginfo_to_user(&fr.info, info);
	if (copy_to_user(frame_addr, &fr, sizeof(fr)) < 0)
		return -EFAULT;

	// The handler starts with clean registers and a fresh FPU state.
	f->rdi = sig;
	f->rsi = frame_addr + offsetof(struct rt_sigframe, info);
	f->rdx = frame_addr + offsetof(struct rt_sigframe, uc);
	f->rax = 0;
	f->rsp = frame_addr;
	f->rip = ka->handler;
	f->rflags &= ~(0x100UL | 0x400UL | 0x40000UL);	// TF, DF, AC
	f->cs = SEL_USER_CS;
	f->ss = SEL_USER_DS;
	fac_reset(t);
	return 0;
}

// Loads the user's saved extended state back, refusing what XRSTOR would
// fault on: MXCSR bits the CPU lacks, components the thread may not have,
// the compacted format.
static int restore_fpstate(struct thread *t, uint64_t ufp)
{
	if (!ufp) {
		fac_reset(t);
		return 0;
	}
	size_t size = xstate_user_size(t);
	uint8_t *tmp = kmalloc(size);
	if (!tmp)
		return -EFAULT;
	if (copy_from_user(tmp, ufp, size) < 0) {
		kfree(tmp);
		return -EFAULT;
	}
	uint32_t mxcsr;
	memcpy(&mxcsr, tmp + MXCSR_OFFSET, 4);
	mxcsr &= xstate_mxcsr_mask;
	memcpy(tmp + MXCSR_OFFSET, &mxcsr, 4);
	if (size > XSTATE_BV_OFFSET) {
		uint64_t bv, zero = 0;
		memcpy(&bv, tmp + XSTATE_BV_OFFSET, 8);
		bv &= xstate_user_features(t);
		memcpy(tmp + XSTATE_BV_OFFSET, &bv, 8);
		memcpy(tmp + XCOMP_BV_OFFSET, &zero, 8);	// standard format only
		memset(tmp + XCOMP_BV_OFFSET + 8, 0, 48);	// reserved header bytes
		if ((bv & XFEATURE_TILEDATA) && xstate_make_room(t, size) < 0) {
			kfree(tmp);
			return -EFAULT;
		}
	}
	fac_take_area(t);	// no CPU keeps a copy to save over this
	size_t keep = size < t->arch.xstate_alloc ? size : t->arch.xstate_alloc;
	memcpy(t->arch.xstate->area, tmp, keep);
	kfree(tmp);
	return 0;
}

long arch_signal_frame_return(struct trap_frame *f)
{
	struct thread *t = current_thread();
	uint64_t uc_addr = f->rsp;		// the handler's ret popped pretcode
	struct ucontext uc;

	if (copy_from_user(&uc, uc_addr, sizeof(uc)) < 0)
		goto bad;
	struct sigcontext *sc = &uc.uc_mcontext;
	f->r8 = sc->r8; f->r9 = sc->r9; f->r10 = sc->r10; f->r11 = sc->r11;
	f->r12 = sc->r12; f->r13 = sc->r13; f->r14 = sc->r14; f->r15 = sc->r15;
	f->rdi = sc->rdi; f->rsi = sc->rsi; f->rbp = sc->rbp; f->rbx = sc->rbx;
	f->rdx = sc->rdx; f->rax = sc->rax; f->rcx = sc->rcx; f->rsp = sc->rsp;
	f->rip = sc->rip;
	// Only the flags user code may change (AC OF DF TF SF ZF AF PF CF RF);
	// IF stays on, IOPL, NT and VM stay off.
	f->rflags = (f->rflags & ~0x50dd5UL) | (sc->eflags & 0x50dd5UL) | 0x202;
	// 64-bit code only (Linux would also take the 32-bit CS).  SS as the
	// frame says when it asks for that (UC_STRICT_RESTORE_SS, as ours
	// do), at user privilege: a selector the CPU refuses makes the IRET
	// fault, and that fault becomes the process's SIGSEGV.
	f->cs = SEL_USER_CS;
	f->ss = (uc.uc_flags & UC_STRICT_RESTORE_SS) ? (sc->ss | 3u) : SEL_USER_DS;
	f->vector = 0;				// no syscall restart after this
	t->sig_blocked = uc.uc_sigmask & ~(sigmask_of(SIGKILL) | sigmask_of(SIGSTOP));
	if (restore_fpstate(t, sc->fpstate) < 0)
		goto bad;
	// No return to a non-canonical address: SIGSEGV with these registers
	// in its frame, as Linux ends up giving (there the IRET faults).
	if (!canonical(f->rip))
		signal_force_fault(SIGSEGV, SI_KERNEL, 0);
	return (long)f->rax;
bad:
	signal_force_fault(SIGSEGV, SI_KERNEL, 0);
	return (long)f->rax;
}

bool arch_syscall_restart_if_needed(struct trap_frame *f, bool handler, uint64_t sa_flags)
{
	if (f->vector != VECTOR_SYSCALL || !syscall_result_restarts((long)f->rax))
		return false;
	switch (syscall_restart_action((long)f->rax, handler, sa_flags)) {
	case RESTART_CALL:
		f->rax = f->error;		// the syscall number, kept at entry
		f->rip -= 2;			// back onto the SYSCALL instruction
		f->rcx = f->rip;		// keep the SYSRET path usable
		return true;
	case RESTART_EINTR:
		f->rax = (uint64_t)-EINTR;
		return false;
	case RESTART_NONE:
		break;
	}
	return false;
}

void arch_log_fatal_fault(struct trap_frame *f, int sig, const struct ksiginfo *info)
{
	struct thread *t = current_thread();
	const char *what = sig == SIGSEGV ? "segfault" : sig == SIGBUS ? "bus error" :
			   sig == SIGILL ? "invalid opcode" : "divide/FP error";

	kprintf("%s[%d]: %s at %#lx ip %#lx sp %#lx error %lx\n", t->name, t->proc->pid, what,
		info->addr, f->rip, f->rsp, f->vector < 32 ? f->error : 0);
}
