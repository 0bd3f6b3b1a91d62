// Tests of the ppc64 facility mechanisms that must end in a panic: the
// kernel never uses FP, VMX or TM itself, so a facility-unavailable
// interrupt from kernel mode is a bug, reported by name as the seed's
// "Unrecoverable TM Unavailable Exception".

#include <stdint.h>
#include <kernel/ktest.h>
#include <kernel/console.h>
#include <arch/irq.h>

KTEST_PANIC(facility, kernel_tm_use_panics_by_name)
{
	uint64_t v;

	kprintf("# expect-panic: Unrecoverable TM Unavailable Exception in kernel mode\n");
	irq_disable();
	__asm__ volatile("mfspr %0, 128" : "=r"(v));	// TFHAR, MSR[TM] off
	return v == 0;
}

KTEST_PANIC(facility, kernel_fp_use_panics_by_name)
{
	uint64_t v = 0;

	kprintf("# expect-panic: Unrecoverable FP Unavailable Exception in kernel mode\n");
	irq_disable();
	__asm__ volatile("stfd 0, %0" : "=m"(v));	// MSR[FP] off
	return v == 0;
}
