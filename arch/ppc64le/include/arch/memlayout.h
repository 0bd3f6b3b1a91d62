// The address-space layout on ppc64 (radix MMU, 4 KiB pages): the kernel
// in the top quadrant at 0xc000..., user space the 128 TiB that Linux's
// default mmap window gives a 64-bit process.
#ifndef ARCH_MEMLAYOUT_H
#define ARCH_MEMLAYOUT_H

#define KERNEL_OFFSET		0xc000000000000000
#define KERNEL_LOAD_PHYS	0x400000		// where SLOF puts -kernel
#define DIRECT_MAP_START	0xc000000000000000
#define MMIO_START		0xc008000000000000
#define KSTACK_AREA_START	0xc00a000000000000
#define KSTACK_SLOT_SIZE	(KSTACK_SIZE + 4096)	// guard page, then the stack
#define USER_END		0x0000800000000000	// first non-user address
#define USER_TOP		0x00007ffffffff000

#define BOOT_STACK_SIZE		16384
#define KSTACK_SIZE		16384

#endif
