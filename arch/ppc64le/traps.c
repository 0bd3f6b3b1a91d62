// Interrupts on ppc64: every vector lands in ppc_trap with a struct
// trap_frame (entry.S), and goes to the core's handlers from here.

#include <stdint.h>
#include <arch/spr.h>
#include <arch/irq.h>
#include <arch/trapframe.h>
#include <arch/memlayout.h>
#include <arch/platform.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/console.h>
#include <kernel/panic.h>
#include <kernel/trap.h>
#include <mm/kstack.h>
#include <kernel/thread.h>
#include <kernel/proc_internal.h>
#include <kernel/signal.h>
#include <kernel/process.h>
#include <kernel/smp.h>
#include <kernel/time.h>
#include <kernel/facility.h>
#include <lib/printf.h>

// DSISR (and, for instruction storage interrupts, SRR1) bits.
#define DSISR_NOPTE	0x40000000	// no translation
#define DSISR_BADCONFIG	0x00080000	// radix: an empty or invalid table (no address space)
#define DSISR_PROTFAULT	0x08000000	// translation forbids the access
#define DSISR_ISSTORE	0x02000000	// the access was a store
#define SRR1_ISI_NOPTE	0x40000000
#define SRR1_ISI_PROT	0x08000000
#define SRR1_ISI_NOEXEC	0x10000000

// Program interrupt causes in SRR1.
#define SRR1_PROG_FPE	0x00100000
#define SRR1_PROG_ILL	0x00080000
#define SRR1_PROG_PRIV	0x00040000
#define SRR1_PROG_TRAP	0x00020000

void syscall_dispatch(struct trap_frame *f);
void external_interrupt(struct trap_frame *f);		// xics.c
void facility_trap(struct trap_frame *f);		// facility.c
void arch_user_msr(struct trap_frame *f);
void time_rearm_after_interrupt(void);		// time.c

const char *exception_name(uint64_t vector)
{
	switch (vector) {
	case 0x100: return "system reset";
	case 0x200: return "machine check";
	case 0x300: return "data storage";
	case 0x380: return "data segment";
	case 0x400: return "instruction storage";
	case 0x480: return "instruction segment";
	case 0x500: return "external interrupt";
	case 0x600: return "alignment";
	case 0x700: return "program check";
	case 0x800: return "floating-point unavailable";
	case 0x900: return "decrementer";
	case 0xa00: return "doorbell";
	case 0xc00: return "system call";
	case 0xd00: return "trace";
	case 0xe00: return "hypervisor data storage";
	case 0xf00: return "performance monitor";
	case 0xf20: return "vector unavailable";
	case 0xf40: return "VSX unavailable";
	case 0xf60: return "facility unavailable";
	}
	return "unknown interrupt";
}

bool page_fault_write(const struct trap_frame *f)
{
	return f->trap == 0x300 && (f->dsisr & DSISR_ISSTORE);
}

bool page_fault_exec(const struct trap_frame *f)
{
	return f->trap == 0x400;
}

bool page_fault_present(const struct trap_frame *f)
{
	if (f->trap == 0x400)
		return !(f->msr & (SRR1_ISI_NOPTE | DSISR_BADCONFIG));
	return !(f->dsisr & (DSISR_NOPTE | DSISR_BADCONFIG));
}

static bool is_storage_fault(const struct trap_frame *f)
{
	return f->trap == 0x300 || f->trap == 0x400;
}

static uint64_t fault_address(const struct trap_frame *f)
{
	return f->trap == 0x400 ? f->nip : f->dar;
}

// Describes a storage interrupt in x86's words, which the panic tests and
// people share: "kernel write to a not-present page".
static void page_fault_kind(const struct trap_frame *f, char *buf, size_t len)
{
	const char *access = page_fault_exec(f) ? "instruction fetch from" :
			     page_fault_write(f) ? "write to" : "read from";
	const char *what = page_fault_present(f) ? "a protected" : "a not-present";

	ksnprintf(buf, len, "%s %s %s page", trap_from_user(f) ? "user" : "kernel", access, what);
}

static void kernel_exception(struct trap_frame *f)
{
	if (is_storage_fault(f) || f->trap == 0x380) {
		uint64_t addr = fault_address(f);
		char kind[96];
		if (kstack_guard_hit(addr) || kstack_guard_hit(f->gpr[1]))
			panic_frame(f, "kernel stack overflow (guard page %#lx hit)", addr);
		page_fault_kind(f, kind, sizeof(kind));
		panic_frame(f, "page fault at address %#lx: %s, ip %#lx (%s interrupt, DSISR %#lx)",
			    addr, kind, f->nip, exception_name(f->trap), f->dsisr);
	}
	panic_frame(f, "%s interrupt (%#lx) in kernel mode at %#lx (SRR1 %#lx)",
		    exception_name(f->trap), f->trap, f->nip, f->msr);
}

void user_exception(struct trap_frame *f)
{
	int sig = SIGSEGV, code = SI_KERNEL;
	uint64_t addr = f->nip;

	switch (f->trap) {
	case 0x380:
	case 0x480:
		sig = SIGSEGV; code = SEGV_MAPERR; addr = f->trap == 0x380 ? f->dar : f->nip;
		break;
	case 0x600:
		sig = SIGBUS; code = BUS_ADRALN; addr = f->dar;
		break;
	case 0x700:
		if (f->msr & SRR1_PROG_FPE) {
			sig = SIGFPE; code = FPE_FLTINV;
		} else if (f->msr & SRR1_PROG_PRIV) {
			sig = SIGILL; code = ILL_PRVOPC;
		} else if (f->msr & SRR1_PROG_TRAP) {
			sig = SIGTRAP; code = TRAP_BRKPT;
		} else {
			sig = SIGILL; code = ILL_ILLOPC;
		}
		break;
	case 0xd00:
		sig = SIGTRAP; code = TRAP_TRACE;
		break;
	default:
		sig = SIGILL; code = ILL_ILLOPC;
		break;
	}
	signal_force_fault(sig, code, addr);
}

static void exception(struct trap_frame *f)
{
	struct cpu *c = this_cpu();

	if (is_storage_fault(f)) {
		uint64_t addr = fault_address(f);
		c->stats.pgfaults++;
		if (trap_from_user(f)) {
			user_page_fault(f, addr, page_fault_write(f), page_fault_exec(f),
					page_fault_present(f));
			return;
		}
		if (uaccess_fixup(f, addr))
			return;
		kernel_exception(f);
	}
	if (f->trap == 0x800 || f->trap == 0xf20 || f->trap == 0xf40 || f->trap == 0xf60) {
		facility_trap(f);
		return;
	}
	if (trap_from_user(f)) {
		user_exception(f);
		return;
	}
	kernel_exception(f);
}

static bool is_interrupt(uint64_t trap)
{
	return trap == 0x500 || trap == 0x900 || trap == 0xa00;
}

static void interrupt(struct trap_frame *f)
{
	if (f->trap == 0x900) {
		// The decrementer interrupts while its top bit is set: re-arm
		// it first (the handler programs the next expiry).
		time_rearm_after_interrupt();
		timer_interrupt(f);
	} else if (f->trap == 0x500) {
		external_interrupt(f);
	}
}

// From entry.S with interrupts off.
void ppc_trap(struct trap_frame *f);

void ppc_trap(struct trap_frame *f)
{
	struct cpu *c = this_cpu();
	bool user = trap_from_user(f);

	// Taken inside an entry or exit (MSR[RI] off): nothing to return to.
	if (!(f->msr & MSR_RI) && !user)
		kernel_exception(f);
	if (f->trap == 0xc00 && user) {
		syscall_dispatch(f);
		return;
	}
	if (user)
		acct_user_to_kernel(&c->acct, &c->current->acct);
	if (!is_interrupt(f->trap)) {
		if (user)
			irq_enable();
		exception(f);
	} else {
		struct thread *t = c->current;
		if (!user && t)
			acct_kernel_lap(&c->acct, &t->acct, t->is_idle);
		c->preempt_count++;
		interrupt(f);
		c->preempt_count--;
		acct_irq_done(&c->acct);
	}
	if (user) {
		exit_to_user(f);
		arch_user_msr(f);
	} else if (is_interrupt(f->trap))
		preempt_from_interrupt(f);
}

void device_interrupt(uint64_t vector)
{
	kprintf("traps: unexpected device interrupt %#lx\n", vector);
}

void arch_dump_frame(const struct trap_frame *f)
{
	kprintf_unlocked("NIP: %016lx MSR: %016lx trap %#lx (%s)\n", f->nip, f->msr, f->trap,
			 exception_name(f->trap));
	kprintf_unlocked("LR:  %016lx CTR: %016lx CR: %08lx XER: %08lx\n", f->link, f->ctr,
			 f->ccr, f->xer);
	kprintf_unlocked("DAR: %016lx DSISR: %08lx\n", f->dar, f->dsisr);
	for (int i = 0; i < 32; i += 4)
		kprintf_unlocked("GPR%02d: %016lx %016lx %016lx %016lx\n", i, f->gpr[i],
				 f->gpr[i + 1], f->gpr[i + 2], f->gpr[i + 3]);
}

// Walks the back chain: each frame's first word is the caller's r1, and
// the caller's frame holds the return address at 16 (ELFv2).
void arch_backtrace(const struct trap_frame *f)
{
	uint64_t sp;

	kprintf_unlocked("Backtrace:\n");
	if (f && !trap_from_user(f)) {
		ksym_print(f->nip);
		ksym_print(f->link);
		sp = f->gpr[1];
	} else {
		__asm__ volatile("mr %0, 1" : "=r"(sp));
	}
	for (int depth = 0; depth < 32; depth++) {
		if (sp < KERNEL_OFFSET || (sp & 15))
			break;
		uint64_t next = *(uint64_t *)sp;
		if (next <= sp || next < KERNEL_OFFSET)
			break;
		uint64_t ret = ((uint64_t *)next)[2];
		if (ret < KERNEL_OFFSET)
			break;
		ksym_print(ret);
		sp = next;
	}
}
