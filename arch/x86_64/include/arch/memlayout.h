// Virtual memory layout of Switchyard on x86-64.
//
//   0x0000000000000000 .. 0x00007fffffffffff   user space (per process)
//   0xffff800000000000 .. +RAM                 direct map of all physical RAM
//   0xffffc00000000000 ..                      MMIO mappings (APIC, ...)
//   0xffffc80000000000 ..                      kernel stacks, each below an unmapped guard page
//   0xffffffff80000000 ..                      kernel image (loaded at 2 MiB)
#ifndef ARCH_MEMLAYOUT_H
#define ARCH_MEMLAYOUT_H

#define KERNEL_OFFSET		0xffffffff80000000
#define KERNEL_LOAD_PHYS	0x200000
#define DIRECT_MAP_START	0xffff800000000000
#define MMIO_START		0xffffc00000000000
#define KSTACK_AREA_START	0xffffc80000000000
#define KSTACK_SLOT_SIZE	(KSTACK_SIZE + 4096)	// guard page, then the stack
#define USER_END		0x0000800000000000	// first non-user address
// End of what user space may map or pass as a pointer (Linux's
// TASK_SIZE_MAX): the last page below the non-canonical hole stays
// unmapped, so no instruction there can fall through (or return from
// SYSCALL) to a non-canonical address.
#define USER_TOP		0x00007ffffffff000

// Physical page used to start application processors in real mode.
#define AP_TRAMPOLINE_PHYS	0x8000

#define BOOT_STACK_SIZE		16384
#define KSTACK_SIZE		16384

#endif
