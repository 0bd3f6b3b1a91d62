// Ending the machine: QEMU's isa-debug-exit device turns a value written
// to port 0xf4 into QEMU's exit status ((v << 1) | 1).

#include <arch/x86.h>
#include <kernel/power.h>
#include <kernel/arch.h>

#define DEBUG_EXIT_PORT 0xf4

void arch_machine_exit(int status)
{
	outl(DEBUG_EXIT_PORT, (uint32_t)status);
	// No debug-exit device: a triple fault ends QEMU when run with
	// -no-reboot.  Load an empty IDT and raise an exception.
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) empty = { 0, 0 };
	__asm__ volatile("lidt %0; int3" : : "m"(empty));
	arch_halt_forever();
}

void arch_irq_disable_all(void)
{
	irq_disable();
}

void arch_halt_forever(void)
{
	for (;;) {
		irq_disable();
		halt();
	}
}
