// The register discipline of tm.S's reclaim and recheckpoint.  Real
// transactions cannot be made under QEMU's TCG (every tbegin. fails), and
// there treclaim. and trechkpt. outside a transaction leave the registers
// as they are (on a real CPU they would be a "TM Bad Thing"), so what
// these check is the routines' own part: the checkpoint words they store
// are the registers as they stood, and every register of the kernel's
// comes back.

#include <stdint.h>
#include <kernel/ktest.h>
#include <kernel/cpu.h>
#include <arch/spr.h>
#include <arch/irq.h>
#include <arch/platform.h>
#include <arch/tm.h>

static uint64_t current_r2(void)
{
	uint64_t v;
	__asm__ volatile("mr %0, 2" : "=r"(v));
	return v;
}

static uint64_t current_r1(void)
{
	uint64_t v;
	__asm__ volatile("mr %0, 1" : "=r"(v));
	return v;
}

KTEST(tm, reclaim_recheckpoint_keep_kernel_registers)
{
	static struct tm_ckpt_regs ck;
	uint64_t flags, msr;

	if (!pseries.qemu)
		return true;	// outside a transaction only QEMU lets these run
	flags = irq_save();
	__asm__ volatile("mfmsr %0" : "=r"(msr));
	__asm__ volatile("mtmsrd %0\n\tisync" : : "r"(msr | MSR_TM) : "memory");
	// Values in callee-saved registers across both calls: the compiler
	// keeps these in r14-r31, which the routines must give back.
	volatile uint64_t a = 0x1111, b = 0x2222;
	uint64_t r1 = current_r1(), r2 = current_r2();
	tm_reclaim_regs(&ck, 0xde);
	tm_recheckpoint_regs(&ck);
	__asm__ volatile("mtmsrd %0\n\tisync" : : "r"(msr) : "memory");
	irq_restore(flags);
	KEXPECT(a == 0x1111 && b == 0x2222);
	KEXPECT(current_r1() == r1 && current_r2() == r2);
	// The "checkpoint" is the registers inside the routine: its stack
	// below ours, our TOC, this CPU in r13.
	KEXPECT(ck.gpr[2] == r2);
	KEXPECT(ck.gpr[13] == (uint64_t)this_cpu());
	KEXPECT(ck.gpr[1] < r1 && r1 - ck.gpr[1] < 4096);
	KEXPECT(ck.lr != 0);
	return true;
}
