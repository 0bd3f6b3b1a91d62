// The PVH boot protocol: QEMU passes an hvm_start_info with the memory
// map, the command line, the ACPI RSDP and the initrd as module 0.  This
// turns it into the arch-neutral struct boot_info and starts the kernel.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/mmu.h>
#include <arch/serial.h>
#include <arch/memlayout.h>
#include <kernel/boot.h>
#include <kernel/cpu.h>
#include <kernel/console.h>
#include <kernel/panic.h>
#include <mm/phys.h>

#define PVH_MAGIC	0x336ec578
#define E820_RAM	1

struct hvm_start_info {
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr;
	uint64_t cmdline_paddr;
	uint64_t rsdp_paddr;
	uint64_t memmap_paddr;		// version 1 and later
	uint32_t memmap_entries;
	uint32_t reserved;
};

struct hvm_modlist_entry {
	uint64_t paddr;
	uint64_t size;
	uint64_t cmdline_paddr;
	uint64_t reserved;
};

struct hvm_memmap_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;
	uint32_t reserved;
};

struct boot_info boot_info;
extern char kernel_end[];

// Adds RAM [start, end) minus the initrd, dropping the first MiB (BIOS
// data, the AP trampoline, the boot structures).
static void add_ram(uint64_t start, uint64_t end)
{
	if (start < 0x100000)
		start = 0x100000;
	if (end <= start)
		return;
	uint64_t is = boot_info.initrd_pa & ~(PAGE_SIZE - 1);
	uint64_t ie = (boot_info.initrd_pa + boot_info.initrd_size + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	if (boot_info.initrd_size && start < ie && end > is) {
		add_ram(start, is);
		add_ram(ie, end);
		return;
	}
	if (boot_info.nram < BOOT_MAX_RANGES)
		boot_info.ram[boot_info.nram++] = (struct mem_range){ start, end };
}

static void parse_start_info(uint64_t pa)
{
	// The boot page tables direct-map the first 4 GiB, where QEMU puts
	// all of these structures.
	const struct hvm_start_info *si = phys_to_virt(pa);

	if (si->magic != PVH_MAGIC)
		panic("bad PVH start info magic %#x", si->magic);
	boot_info.cmdline = si->cmdline_paddr ? phys_to_virt(si->cmdline_paddr) : "";
	boot_info.rsdp_pa = si->rsdp_paddr;
	if (si->nr_modules > 0) {
		const struct hvm_modlist_entry *m = phys_to_virt(si->modlist_paddr);
		boot_info.initrd_pa = m->paddr;
		boot_info.initrd_size = m->size;
	}
	if (si->version < 1 || si->memmap_entries == 0)
		panic("PVH start info has no memory map");
	const struct hvm_memmap_entry *e = phys_to_virt(si->memmap_paddr);
	for (uint32_t i = 0; i < si->memmap_entries; i++) {
		if (e[i].type == E820_RAM)
			add_ram(e[i].addr, e[i].addr + e[i].size);
		// Firmware tables may sit in reserved ranges; the range just
		// below 4 GiB holds device registers and boot ROM, never mapped
		// cacheable.
		bool device_hole = e[i].addr >= 0xfe000000 && e[i].addr < 0x100000000;
		if (!device_hole && boot_info.nmapped < BOOT_MAX_RANGES)
			boot_info.mapped[boot_info.nmapped++] =
				(struct mem_range){ e[i].addr, e[i].addr + e[i].size };
	}
	if (boot_info.initrd_size && boot_info.nmapped < BOOT_MAX_RANGES)
		boot_info.mapped[boot_info.nmapped++] = (struct mem_range){
			boot_info.initrd_pa, boot_info.initrd_pa + boot_info.initrd_size };
}

// Called by boot.S in long mode, on the boot stack.
void kmain(uint64_t start_info_pa)
{
	// Per-CPU pointer first: locks and kprintf use it.
	cpus[0].self = &cpus[0];
	wrmsr(MSR_GS_BASE, (uint64_t)&cpus[0]);
	serial_init();
	cpu_detect_features();
	cpu_init_this(&cpus[0]);
	parse_start_info(start_info_pa);

	uint64_t image_end = (uint64_t)kernel_end - KERNEL_OFFSET;
	early_alloc_init(image_end, boot_info.initrd_pa,
			 boot_info.initrd_pa + boot_info.initrd_size);
	mmu_init(boot_info.mapped, boot_info.nmapped);
	kernel_main();
}
