// Tests of the x86-64 extended-state mechanisms.

#include <kernel/ktest.h>
#include <kernel/console.h>
#include <kernel/facility.h>
#include <arch/irq.h>

// The kernel never uses vector registers; if it did while the facility is
// off for the user thread, the trap must be a clear, named panic (the
// seed's "Unrecoverable ... Unavailable Exception"), not a silent fix-up.
KTEST_PANIC(facility, kernel_use_panics_by_name)
{
	kprintf("# expect-panic: Unrecoverable FP Unavailable Exception in kernel mode\n");
	irq_disable();
	arch_fac_switch(FAC_XSTATE, false);
	__asm__ volatile("pxor %xmm0, %xmm0");
	return false;
}
