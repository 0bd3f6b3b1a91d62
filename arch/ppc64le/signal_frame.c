// Signal handler frames on ppc64, laid out as Linux's (signal_64.c and
// the uapi ucontext/sigcontext), so that libc, ucontext readers and
// debuggers work unchanged:
//
//   [ struct rt_sigframe: ucontext, the TM ucontext, the trampoline words,
//     pinfo, puc, siginfo, the 512-byte ABI gap ]            <- frame
//   [ a 128-byte caller frame whose back chain is the old r1 ] <- r1
//
// The handler gets r3 = signal, r4 = &siginfo, r5 = &ucontext (or r4 =
// &mcontext without SA_SIGINFO), r6 = the frame, r12 = ctr = handler and
// LR = the trampoline, "li r0, __NR_rt_sigreturn; sc", which Linux keeps
// in the vDSO and Switchyard in one read-only page it maps at exec.

#include <arch/tm.h>
#include <stdint.h>
#include <stddef.h>
#include <arch/spr.h>
#include <arch/trapframe.h>
#include <arch/thread_arch.h>
#include <arch/fpu_state.h>
#include <kernel/exec.h>
#include <kernel/signal.h>
#include <kernel/facility.h>
#include <kernel/process.h>
#include <kernel/thread.h>
#include <kernel/uaccess.h>
#include <kernel/console.h>
#include <kernel/vm.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <mm/phys.h>
#include <uapi/errno.h>
#include <uapi/syscall_nr.h>

#define ELF_NGREG	48
#define ELF_NFPREG	33
#define ELF_NVRREG	34
#define SIGNAL_FRAMESIZE 128		// the dummy caller frame below the frame
#define USER_REDZONE	512
#define PT_MSR		33
#define PT_SOFTE	39

struct sigcontext {
	uint64_t unused[4];
	int32_t signal;
	int32_t pad0;
	uint64_t handler;
	uint64_t oldmask;
	uint64_t regs;			// user pointer to gp_regs
	uint64_t gp_regs[ELF_NGREG];
	uint64_t fp_regs[ELF_NFPREG];	// FPR 0-31, FPSCR
	uint64_t v_regs;		// user pointer into vmx_reserve, 16-aligned
	uint64_t vmx_reserve[ELF_NVRREG + ELF_NVRREG + 1 + 32];
};

struct ucontext {
	uint64_t uc_flags;
	uint64_t uc_link;
	struct user_stack_t uc_stack;
	uint64_t uc_sigmask;
	uint64_t unused_masks[15];	// room for a larger sigset_t
	struct sigcontext uc_mcontext;
};

struct rt_sigframe {
	struct ucontext uc;
	struct ucontext uc_transact;	// the checkpointed state of a transaction
	uint64_t unused[2];
	uint32_t tramp[6];
	uint64_t pinfo;
	uint64_t puc;
	struct user_siginfo info;
	uint8_t abigap[USER_REDZONE];
} __attribute__((aligned(16)));

_Static_assert(sizeof(struct sigcontext) == 1528, "sigcontext layout");
_Static_assert(offsetof(struct ucontext, uc_mcontext) == 168, "ucontext layout");
_Static_assert(offsetof(struct rt_sigframe, info) == 3448, "rt_sigframe layout");
_Static_assert(sizeof(struct trap_frame) <= ELF_NGREG * 8, "pt_regs fits gp_regs");

// The fixed address of the trampoline page: far below the stack's 8 MiB
// and above where mmap starts looking.
#define SIGTRAMP_ADDR	0x7fff00000000UL

int arch_exec_map(struct mm *mm)
{
	uint32_t code[2] = {
		0x38000000u | SYS_rt_sigreturn,		// li r0, __NR_rt_sigreturn
		0x44000002u,				// sc
	};
	long addr = vm_map(mm, SIGTRAMP_ADDR, PAGE_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, 0, 0, 0, false);

	if (addr < 0)
		return (int)addr;
	int r = vm_write(mm, SIGTRAMP_ADDR, code, sizeof(code));
	if (r == 0)
		r = vm_protect(mm, SIGTRAMP_ADDR, PAGE_SIZE, PROT_READ | PROT_EXEC, false);
	return r;
}

static bool on_altstack(struct thread *t, uint64_t sp)
{
	return t->altstack.ss_flags != SS_DISABLE && t->altstack.ss_size &&
	       sp - t->altstack.ss_sp < t->altstack.ss_size;
}

// The v_regs area inside vmx_reserve, 16-byte aligned, as a user address.
static uint64_t vregs_user(uint64_t sc_user)
{
	return (sc_user + offsetof(struct sigcontext, vmx_reserve) + 15) & ~15UL;
}

// The thread's registers into the frame's mcontext (a kernel copy; the
// v_regs region is written at its user address by the caller).
static void fill_sigcontext(struct sigcontext *sc, uint8_t *vregs, struct thread *t,
			    const struct trap_frame *f, uint64_t sc_user)
{
	uint64_t msr = f->msr & ~(MSR_VEC | MSR_VSX);
	struct fp_state *fp = t->arch.fp;
	struct vec_state *vec = t->arch.vec;

	sc->v_regs = vregs_user(sc_user);
	if (vec && t->fac[FAC_VEC].saved) {
		memcpy(vregs, vec->vr, 32 * 16);
		memcpy(vregs + 32 * 16, vec->vscr, 16);
		msr |= MSR_VEC;
	}
	memcpy(vregs + 33 * 16, vec ? &vec->vrsave : &(uint32_t){ 0 }, 4);
	if (fp && t->fac[FAC_FP].saved) {
		for (int i = 0; i < 32; i++)
			sc->fp_regs[i] = fp->vsr[i][0];
		sc->fp_regs[32] = fp->fpscr;
		// The right halves of VSR 0-31 after the 34 vector slots.
		for (int i = 0; i < 32; i++)
			memcpy(vregs + ELF_NVRREG * 16 + 8 * i, &fp->vsr[i][1], 8);
		msr |= MSR_VSX;
	}
	sc->regs = sc_user + offsetof(struct sigcontext, gp_regs);
	memcpy(sc->gp_regs, f, sizeof(*f));
	sc->gp_regs[PT_MSR] = msr;
	sc->gp_regs[PT_SOFTE] = 1;
}

int arch_signal_frame_setup(struct trap_frame *f, int sig, const struct k_sigaction *ka,
			    const struct ksiginfo *info, uint64_t old_mask)
{
	struct thread *t = current_thread();

	tm_fail_for_signal(t, f);	// a transaction does not outlive a signal
	uint64_t sp = f->gpr[1];

	if ((ka->flags & SA_ONSTACK) && t->altstack.ss_flags != SS_DISABLE &&
	    t->altstack.ss_size && !on_altstack(t, sp))
		sp = t->altstack.ss_sp + t->altstack.ss_size;
	uint64_t frame = (sp - sizeof(struct rt_sigframe)) & ~15UL;
	uint64_t newsp = frame - SIGNAL_FRAMESIZE;

	fac_sync(t);		// the areas now hold the thread's real state
	struct rt_sigframe *fr = kmalloc(sizeof(*fr));
	if (!fr)
		return -EFAULT;
	memset(fr, 0, sizeof(*fr));
	fr->uc.uc_stack = t->altstack;
	if (t->altstack.ss_size == 0)
		fr->uc.uc_stack.ss_flags = SS_DISABLE;
	else if (on_altstack(t, f->gpr[1]))
		fr->uc.uc_stack.ss_flags = SS_ONSTACK;
	fr->uc.uc_sigmask = old_mask;
	uint64_t sc_user = frame + offsetof(struct rt_sigframe, uc.uc_mcontext);
	struct sigcontext *sc = &fr->uc.uc_mcontext;
	uint8_t *vregs = (uint8_t *)sc + (vregs_user(sc_user) - sc_user);
	fill_sigcontext(sc, vregs, t, f, sc_user);
	sc->signal = sig;
	sc->handler = ka->handler;
	sc->oldmask = old_mask;
	fr->tramp[0] = 0x38000000u | SYS_rt_sigreturn;
	fr->tramp[1] = 0x44000002u;
	fr->pinfo = frame + offsetof(struct rt_sigframe, info);
	fr->puc = frame + offsetof(struct rt_sigframe, uc);
	siginfo_to_user(&fr->info, info);
	int r = copy_to_user(frame, fr, sizeof(*fr));
	kfree(fr);
	if (r < 0 || put_user_u64(newsp, f->gpr[1]) < 0)
		return -EFAULT;

	f->link = SIGTRAMP_ADDR;
	f->ctr = f->gpr[12] = f->nip = ka->handler;
	f->gpr[1] = newsp;
	f->gpr[3] = (uint64_t)sig;
	if (ka->flags & SA_SIGINFO) {
		f->gpr[4] = frame + offsetof(struct rt_sigframe, info);
		f->gpr[5] = frame + offsetof(struct rt_sigframe, uc);
		f->gpr[6] = frame;
	} else {
		f->gpr[4] = sc_user;
	}
	f->result = 0;
	f->trap = 0;			// no syscall restart from the handler's frame
	fac_reset(t);
	return 0;
}

// The mcontext's FP, VMX and VSX state back into the thread's areas.
static int restore_facilities(struct thread *t, const struct sigcontext *sc, const uint8_t *vregs,
			      uint64_t msr)
{
	for (int fac = FAC_FP; fac <= FAC_VEC; fac++)
		if (arch_fac_prepare(fac, t))
			return -EFAULT;
	fac_take_area(t);	// no CPU keeps a copy to save over this
	struct fp_state *fp = t->arch.fp;
	struct vec_state *vec = t->arch.vec;
	if (msr & MSR_VEC) {
		memcpy(vec->vr, vregs, 32 * 16);
		memcpy(vec->vscr, vregs + 32 * 16, 16);
	} else {
		memset(vec->vr, 0, sizeof(vec->vr));
	}
	memcpy(&vec->vrsave, vregs + 33 * 16, 4);
	for (int i = 0; i < 32; i++) {
		fp->vsr[i][0] = sc->fp_regs[i];
		fp->vsr[i][1] = 0;
		if (msr & MSR_VSX)
			memcpy(&fp->vsr[i][1], vregs + ELF_NVRREG * 16 + 8 * i, 8);
	}
	fp->fpscr = sc->fp_regs[32];
	return 0;
}

// rt_sigreturn: the ucontext sits above the dummy caller frame.
long arch_signal_frame_return(struct trap_frame *f)
{
	struct thread *t = current_thread();
	uint64_t uc_user = f->gpr[1] + SIGNAL_FRAMESIZE;
	struct ucontext *uc = kmalloc(sizeof(*uc));
	uint8_t vregs[(ELF_NVRREG * 2 + 1) * 16];

	if (!uc || copy_from_user(uc, uc_user, sizeof(*uc)) < 0)
		goto bad;
	const struct sigcontext *sc = &uc->uc_mcontext;
	uint64_t msr = sc->gp_regs[PT_MSR];
	// v_regs must point into this frame's vmx_reserve; Linux only
	// checks it is user memory, which copy_from_user does too.
	if (sc->v_regs && copy_from_user(vregs, sc->v_regs, ELF_NVRREG * 16 + 32 * 8) < 0)
		goto bad;
	if (!sc->v_regs) {
		memset(vregs, 0, sizeof(vregs));
		msr &= ~(MSR_VEC | MSR_VSX);
	}
	uint64_t keep_msr = f->msr;
	memcpy(f->gpr, sc->gp_regs, sizeof(f->gpr));
	f->nip = sc->gp_regs[32];
	f->orig_r3 = sc->gp_regs[34];
	f->ctr = sc->gp_regs[35];
	f->link = sc->gp_regs[36];
	f->xer = sc->gp_regs[37];
	f->ccr = sc->gp_regs[38];
	f->dar = sc->gp_regs[41];
	f->dsisr = sc->gp_regs[42];
	f->result = sc->gp_regs[43];
	// Only the endianness comes from the frame; the facilities are
	// loaded again as the thread uses them.
	f->msr = (keep_msr & ~MSR_LE) | (msr & MSR_LE);
	f->trap = 0;			// no syscall restart after this
	t->sig_blocked = uc->uc_sigmask & ~(sigmask_of(SIGKILL) | sigmask_of(SIGSTOP));
	int r = restore_facilities(t, sc, vregs, msr);
	kfree(uc);
	if (r < 0)
		signal_force_fault(SIGSEGV, SI_KERNEL, 0);
	return (long)f->gpr[3];
bad:
	kfree(uc);
	signal_force_fault(SIGSEGV, SI_KERNEL, 0);
	return (long)f->gpr[3];
}

// Linux's MINSIGSTKSZ on ppc64.
uint64_t arch_min_sigstack(void)
{
	return 8192;
}

void arch_log_fatal_fault(struct trap_frame *f, int sig, const struct ksiginfo *info)
{
	struct thread *t = current_thread();
	const char *what = sig == SIGSEGV ? "segfault" : sig == SIGBUS ? "bus error" :
			   sig == SIGILL ? "illegal instruction" : "trap/FP error";

	kprintf("%s[%d]: %s at %#lx nip %#lx lr %#lx sp %#lx trap %#lx\n", t->name, t->proc->pid,
		what, info->addr, f->nip, f->link, f->gpr[1], f->trap);
}
