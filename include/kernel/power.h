// Ending the machine.
#ifndef KERNEL_POWER_H
#define KERNEL_POWER_H

// Exit status values reported to the host (QEMU exits with (v << 1) | 1).
#define EXIT_PANIC	0x7f
#define EXIT_BAD_OPTION	0x7e

__attribute__((noreturn)) void arch_machine_exit(int status);

#endif
