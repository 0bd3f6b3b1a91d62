// Exceptions and interrupts on x86-64: every vector lands in
// trap_dispatch with a struct trap_frame.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/trapframe.h>
#include <arch/xstate.h>
#include <arch/irq_vectors.h>
#include <arch/apic.h>
#include <arch/memlayout.h>
#include <arch/mmu.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/console.h>
#include <kernel/panic.h>
#include <kernel/trap.h>
#include <mm/kstack.h>
#include <kernel/thread.h>
#include <kernel/proc_internal.h>
#include <kernel/smp.h>
#include <kernel/time.h>
#include <fs/dev.h>
#include <lib/printf.h>

static const char *const exception_names[32] = {
	[0] = "divide error",
	[1] = "debug exception",
	[2] = "non-maskable interrupt",
	[3] = "breakpoint",
	[4] = "overflow",
	[5] = "bound range exceeded",
	[6] = "invalid opcode",
	[7] = "device not available",
	[8] = "double fault",
	[9] = "coprocessor segment overrun",
	[10] = "invalid TSS",
	[11] = "segment not present",
	[12] = "stack-segment fault",
	[13] = "general protection fault",
	[14] = "page fault",
	[16] = "x87 floating-point exception",
	[17] = "alignment check",
	[18] = "machine check",
	[19] = "SIMD floating-point exception",
	[20] = "virtualization exception",
	[21] = "control protection exception",
	[28] = "hypervisor injection exception",
	[29] = "VMM communication exception",
	[30] = "security exception",
};

const char *exception_name(uint64_t vector)
{
	if (vector < 32 && exception_names[vector])
		return exception_names[vector];
	return "reserved exception";
}

// Describes a page fault's error code: "write to a not-present page".
static void page_fault_kind(uint64_t err, char *buf, size_t len)
{
	const char *access = (err & 0x10) ? "instruction fetch from" :
			     (err & 0x2) ? "write to" : "read from";
	const char *what = (err & 0x1) ? "a protected" : "a not-present";
	const char *who = (err & 0x4) ? "user" : "kernel";
	const char *extra = (err & 0x8) ? " (reserved bit set)" :
			    (err & 0x20) ? " (protection key)" : "";
	ksnprintf(buf, len, "%s %s %s page%s", who, access, what, extra);
}

static void kernel_exception(struct trap_frame *f)
{
	// A page fault on a stack's guard page cannot even be reported on
	// that stack: it becomes a double fault, handled on its own stack.
	if (f->vector == VEC_DOUBLE_FAULT && kstack_guard_hit(read_cr2()))
		panic_frame(f, "kernel stack overflow (guard page %#lx hit)", read_cr2());
	if (f->vector == VEC_PAGE_FAULT) {
		char kind[96];
		uint64_t addr = read_cr2();
		page_fault_kind(f->error, kind, sizeof(kind));
		panic_frame(f, "page fault at address %#lx: %s, ip %#lx", addr, kind, f->rip);
	}
	panic_frame(f, "%s (vector %lu, error %#lx) in kernel mode at ip %#lx",
		    exception_name(f->vector), f->vector, f->error, f->rip);
}

static void exception(struct trap_frame *f)
{
	if (f->vector == VEC_PAGE_FAULT) {
		uint64_t addr = read_cr2();
		this_cpu()->stats.pgfaults++;
		if (trap_from_user(f)) {
			user_page_fault(f, addr, page_fault_write(f), page_fault_exec(f),
					page_fault_present(f));
			return;
		}
		if (uaccess_fixup(f, addr))
			return;
		// A kernel fault on a user address outside uaccess is a bug, but
		// demand paging of user memory the kernel touches goes through
		// uaccess, so it lands above.
		kernel_exception(f);
	}
	if (f->vector == VEC_DEVICE_NOT_AVAIL) {
		xstate_nm_trap(f);
		return;
	}
	if (trap_from_user(f)) {
		user_exception(f);
		return;
	}
	kernel_exception(f);
}

// Counts an IPI received, by kind.
static void ipi_received(struct cpu *c, uint64_t *kind)
{
	c->stats.ipi_recv++;
	if (kind)
		(*kind)++;
}

// Device interrupts and IPIs.  Every one but a spurious interrupt is
// acknowledged first, so the handler may take a long time (or switch
// threads) without blocking further interrupts at the APIC.
static void interrupt(struct cpu *c, struct trap_frame *f)
{
	if (f->vector == VEC_SPURIOUS)
		return;
	lapic_eoi();
	switch (f->vector) {
	case VEC_TIMER:
		timer_interrupt(f);
		break;
	case VEC_IPI_CALL:
		ipi_received(c, &c->stats.ipi_call);
		cross_call_interrupt();
		break;
	case VEC_IPI_RESCHED:
		ipi_received(c, &c->stats.ipi_resched);
		c->need_resched = true;
		break;
	case VEC_IPI_TLB:
		ipi_received(c, &c->stats.ipi_tlb);
		tlb_shootdown_interrupt();
		break;
	case VEC_IPI_TEST:
		ipi_received(c, 0);
		ipi_test_interrupt();
		break;
	case VEC_IPI_TICK:
		ipi_received(c, 0);
		tick_ipi();
		break;
	default:
		if (f->vector >= 0x20 && f->vector < 0x30) {
			device_interrupt(f->vector);
			break;
		}
		panic_frame(f, "unexpected interrupt vector %lu", f->vector);
	}
}

void trap_dispatch(struct trap_frame *f)
{
	struct cpu *c = this_cpu();

	if (trap_from_user(f))
		acct_user_to_kernel(&c->acct, &c->current->acct);
	if (f->vector < 32) {
		// The gate turned interrupts off.  A fault from user mode may
		// sleep or wait for a lock: on again.  A kernel one stays off,
		// except that a fault inside a user-memory copy turns them back
		// on while it resolves the fault (uaccess_fixup).
		if (trap_from_user(f))
			irq_enable();
		exception(f);
	} else {
		// The handler's time is the CPU's irq time, nobody's system
		// time (a tick that comes before the first thread: the boot's).
		struct thread *t = c->current;
		if (!trap_from_user(f) && t)
			acct_kernel_lap(&c->acct, &t->acct, t->is_idle);
		c->preempt_count++;
		interrupt(c, f);
		c->preempt_count--;
		acct_irq_done(&c->acct);
	}
	if (trap_from_user(f))
		exit_to_user(f);
	else if (f->vector >= 32)
		preempt_from_interrupt(f);
}

// The IRET back to user space faulted (entry.S checked that and took
// the kernel's GS back).  The CPU had not left the kernel: the general
// registers already hold the user's values (saved in f), and the frame
// the IRET was loading (rip, cs, rflags, rsp, ss) is the tail of the
// thread's user frame at the top of the stack, which f->rsp points at.
// Rebuild that frame whole so the fault is handled as a fault in user
// mode at the address the IRET was going to: a signal for the process,
// never a kernel fault.  f lies below it on the same stack and partly
// overlaps it, hence the copy.
struct trap_frame *iret_fault_fixup(struct trap_frame *f);	// called by entry.S

struct trap_frame *iret_fault_fixup(struct trap_frame *f)
{
	struct trap_frame *u = arch_thread_user_frame(current_thread());
	struct trap_frame copy = *f;

	if (f->rsp != (uint64_t)&u->rip)
		panic_frame(f, "fault on IRET to user space with a frame not at the stack top");
	copy.rip = u->rip;
	copy.cs = u->cs;
	copy.rflags = u->rflags;
	copy.rsp = u->rsp;
	copy.ss = u->ss;
	*u = copy;
	return u;
}

// Device interrupts: only the console's UART is routed through the
// IOAPIC; anything else arriving is unexpected but harmless.
void device_interrupt(uint64_t vector)
{
	if (vector == VEC_SERIAL) {
		console_poll_input();
		return;
	}
	kprintf("traps: unexpected device interrupt on vector %#lx\n", vector);
}

bool page_fault_write(const struct trap_frame *f)	{ return f->error & 0x2; }
bool page_fault_exec(const struct trap_frame *f)	{ return f->error & 0x10; }
bool page_fault_present(const struct trap_frame *f)	{ return f->error & 0x1; }

void arch_dump_frame(const struct trap_frame *f)
{
	kprintf_unlocked("RIP: %016lx CS: %#lx RFLAGS: %#lx vector %lu error %#lx\n",
			 f->rip, f->cs, f->rflags, f->vector, f->error);
	kprintf_unlocked("RSP: %016lx SS: %#lx CR2: %#lx CR3: %#lx\n",
			 f->rsp, f->ss, read_cr2(), read_cr3());
	kprintf_unlocked("RAX: %016lx RBX: %016lx RCX: %016lx\n", f->rax, f->rbx, f->rcx);
	kprintf_unlocked("RDX: %016lx RSI: %016lx RDI: %016lx\n", f->rdx, f->rsi, f->rdi);
	kprintf_unlocked("RBP: %016lx R8:  %016lx R9:  %016lx\n", f->rbp, f->r8, f->r9);
	kprintf_unlocked("R10: %016lx R11: %016lx R12: %016lx\n", f->r10, f->r11, f->r12);
	kprintf_unlocked("R13: %016lx R14: %016lx R15: %016lx\n", f->r13, f->r14, f->r15);
}

// Walks the frame-pointer chain (the kernel is built with frame pointers).
void arch_backtrace(const struct trap_frame *f)
{
	uint64_t rbp;

	kprintf_unlocked("Backtrace:\n");
	if (f && !trap_from_user(f)) {
		ksym_print(f->rip);
		rbp = f->rbp;
	} else {
		__asm__ volatile("movq %%rbp, %0" : "=r"(rbp));
	}
	for (int depth = 0; depth < 32; depth++) {
		if (rbp < KERNEL_OFFSET && rbp < DIRECT_MAP_START)
			break;
		if (rbp & 7)
			break;
		uint64_t *frame = (uint64_t *)rbp;
		uint64_t ret = frame[1];
		if (ret < KERNEL_OFFSET)
			break;
		ksym_print(ret);
		rbp = frame[0];
	}
}
