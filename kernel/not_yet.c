// Entry points whose subsystems are not written yet.  Each ends the
// machine with a clear message instead of doing something wrong.

#include <kernel/trap.h>
#include <kernel/panic.h>
#include <kernel/wait.h>
#include <kernel/thread.h>
#include <kernel/mm.h>
#include <arch/trapframe.h>



void facility_trap(struct trap_frame *f)
{
	panic_frame(f, "Unrecoverable FPU Unavailable Exception in kernel mode");
}



void device_interrupt(uint64_t vector) { (void)vector; }


