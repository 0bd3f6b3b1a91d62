// Boot on QEMU's pseries machine: from the device tree QEMU passes in r3
// to the arch-neutral struct boot_info, the MMU, and kernel_main.

#include <stdint.h>
#include <arch/spr.h>
#include <arch/hcall.h>
#include <arch/memlayout.h>
#include <arch/platform.h>
#include <kernel/arch.h>
#include <kernel/boot.h>
#include <kernel/cpu.h>
#include <kernel/console.h>
#include <kernel/panic.h>
#include <kernel/power.h>
#include <lib/fdt.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/phys.h>

struct boot_info boot_info;
struct pseries pseries;

char boot_stack[BOOT_STACK_SIZE] __attribute__((aligned(16)));
char early_stack[4096] __attribute__((aligned(16)));
extern char boot_stack_top[], early_stack_top[];
__asm__(".globl boot_stack_top\n.set boot_stack_top, boot_stack + 16384\n"
	".globl early_stack_top\n.set early_stack_top, early_stack + 4096");
_Static_assert(BOOT_STACK_SIZE == 16384, "boot_stack_top above assumes 16 KiB");

extern char kernel_end[];

static char cmdline[1024];
static uint64_t fdt_pa, fdt_len;

// What the walk collects before it is turned into boot_info.
static struct mem_range fdt_ram[BOOT_MAX_RANGES];
static size_t fdt_nram;
static uint32_t root_addr_cells = 2, root_size_cells = 2;

static uint64_t cells(const void *v, uint32_t n, uint32_t at)
{
	return n == 2 ? fdt_cell64(v, at / 2) : fdt_cell32(v, at);
}

static void cpu_prop(const char *name, const void *v, uint32_t len)
{
	if (!strcmp(name, "reg") && len >= 4) {
		if (pseries.ncpus < MAX_CPUS)
			pseries.cpu_hw_id[pseries.ncpus++] = fdt_cell32(v, 0);
	} else if (!strcmp(name, "timebase-frequency") && len >= 4) {
		pseries.timebase_hz = fdt_cell32(v, 0);
	} else if (!strcmp(name, "ibm,dec-bits") && len >= 4) {
		pseries.dec_bits = fdt_cell32(v, 0);
	}
}

static void chosen_prop(const char *name, const void *v, uint32_t len)
{
	if (!strcmp(name, "bootargs")) {
		size_t n = len < sizeof(cmdline) - 1 ? len : sizeof(cmdline) - 1;
		memcpy(cmdline, v, n);
		cmdline[n] = 0;
	} else if (!strcmp(name, "linux,initrd-start")) {
		boot_info.initrd_pa = len == 8 ? fdt_cell64(v, 0) : fdt_cell32(v, 0);
	} else if (!strcmp(name, "linux,initrd-end")) {
		pseries.initrd_end = len == 8 ? fdt_cell64(v, 0) : fdt_cell32(v, 0);
	}
}

static void memory_prop(const char *name, const void *v, uint32_t len)
{
	uint32_t per = root_addr_cells + root_size_cells;

	if (strcmp(name, "reg"))
		return;
	for (uint32_t i = 0; (i + 1) * per * 4 <= len; i++) {
		uint64_t base = cells(v, root_addr_cells, i * per);
		uint64_t size = cells(v, root_size_cells, i * per + root_addr_cells);
		if (size && fdt_nram < BOOT_MAX_RANGES)
			fdt_ram[fdt_nram++] = (struct mem_range){ base, base + size };
	}
}

static void rtas_prop(const char *name, const void *v, uint32_t len)
{
	if (len != 4)
		return;
	if (!strcmp(name, "start-cpu"))
		pseries.rtas_start_cpu = fdt_cell32(v, 0);
	else if (!strcmp(name, "stop-self"))
		pseries.rtas_stop_self = fdt_cell32(v, 0);
	else if (!strcmp(name, "power-off"))
		pseries.rtas_power_off = fdt_cell32(v, 0);
	else if (!strcmp(name, "get-time-of-day"))
		pseries.rtas_get_time_of_day = fdt_cell32(v, 0);
	else if (!strcmp(name, "query-cpu-stopped-state"))
		pseries.rtas_query_cpu = fdt_cell32(v, 0);
}

static void fdt_visit(void *ctx, const char *path, const char *name, const void *v, uint32_t len)
{
	(void)ctx;
	if (!strcmp(path, "/")) {
		if (!strcmp(name, "#address-cells") && len == 4)
			root_addr_cells = fdt_cell32(v, 0);
		else if (!strcmp(name, "#size-cells") && len == 4)
			root_size_cells = fdt_cell32(v, 0);
		else if (!strcmp(name, "compatible") && len >= 12 && !memcmp(v, "qemu,pseries", 12))
			pseries.qemu = true;
	} else if (!strncmp(path, "/cpus/", 6)) {
		cpu_prop(name, v, len);
	} else if (!strcmp(path, "/chosen")) {
		chosen_prop(name, v, len);
	} else if (!strncmp(path, "/memory", 7) && path[7] != '/') {
		memory_prop(name, v, len);
	} else if (!strcmp(path, "/rtas")) {
		rtas_prop(name, v, len);
	} else if (fdt_node_is(path, "vty") && !strcmp(name, "reg") && len == 4) {
		pseries.vty = fdt_cell32(v, 0);
	}
}

// Adds RAM [start, end) to boot_info minus what boot still uses: the
// image and its early allocations, the device tree and the initrd.
static void add_ram(uint64_t start, uint64_t end, const struct mem_range *holes, size_t nholes)
{
	for (size_t i = 0; i < nholes; i++) {
		if (start < holes[i].end && end > holes[i].start) {
			add_ram(start, holes[i].start, holes + i + 1, nholes - i - 1);
			add_ram(holes[i].end, end, holes + i + 1, nholes - i - 1);
			return;
		}
	}
	start = (start + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	end &= ~(PAGE_SIZE - 1);
	if (end > start && boot_info.nram < BOOT_MAX_RANGES)
		boot_info.ram[boot_info.nram++] = (struct mem_range){ start, end };
}

static void parse_device_tree(uint64_t pa)
{
	const void *blob = phys_to_virt(pa);
	uint32_t size = fdt_size(blob, 1 << 20);

	if (!size)
		panic("no device tree at %#lx (r3 at entry)", pa);
	fdt_pa = pa;
	fdt_len = size;
	if (fdt_walk(blob, size, fdt_visit, 0) < 0)
		kprintf("boot: the device tree is malformed; using what came before the flaw\n");
	boot_info.cmdline = cmdline;
	if (boot_info.initrd_pa && pseries.initrd_end > boot_info.initrd_pa)
		boot_info.initrd_size = pseries.initrd_end - boot_info.initrd_pa;
	if (!fdt_nram)
		panic("the device tree lists no memory");
	if (!pseries.ncpus)
		pseries.ncpus = 1;
	if (!pseries.timebase_hz)
		panic("the device tree gives no timebase-frequency");
}

static void build_ram_map(void)
{
	uint64_t image_end = (uint64_t)kernel_end - KERNEL_OFFSET;
	struct mem_range holes[3] = {
		{ 0, early_alloc_end() },
		{ fdt_pa & ~(PAGE_SIZE - 1), fdt_pa + fdt_len },
		{ boot_info.initrd_pa & ~(PAGE_SIZE - 1), boot_info.initrd_pa + boot_info.initrd_size },
	};

	(void)image_end;
	for (size_t i = 0; i < fdt_nram; i++)
		add_ram(fdt_ram[i].start, fdt_ram[i].end, holes, 3);
	for (size_t i = 0; i < fdt_nram && boot_info.nmapped < BOOT_MAX_RANGES; i++)
		boot_info.mapped[boot_info.nmapped++] = fdt_ram[i];
}

// Interrupts are taken little-endian (LPCR[ILE]), and with the MMU on at
// 0xc000000000004000 + vector (LPCR[AIL] = 3): the hypervisor owns LPCR.
static void set_interrupt_mode(void)
{
	long rc = hcall(H_SET_MODE, H_SET_MODE_LITTLE, H_SET_MODE_ENDIAN, 0, 0, 0, 0);

	if (rc != H_SUCCESS)
		arch_machine_exit(3);	// no console yet that could say so
}

static void set_relocation_on_interrupts(void)
{
	long rc;

	// H_SET_MODE may ask to be called again while other CPUs catch up.
	while ((rc = hcall(H_SET_MODE, 3, H_SET_MODE_ADDR_TRANS, 0, 0, 0, 0)) == H_BUSY)
		;
	if (rc != H_SUCCESS)
		panic("H_SET_MODE(AIL=3) failed: %ld", rc);
}

// From entry.S, real mode, on the boot stack.
void ppc_boot(uint64_t fdt);

void ppc_boot(uint64_t fdt)
{
	cpus[0].self = &cpus[0];
	__asm__ volatile("mr 13, %0" : : "r"(&cpus[0]));
	mtspr(SPRN_SPRG0, &cpus[0]);
	__asm__ volatile("mtmsrd %0, 1" : : "r"(MSR_RI));	// recoverable, interrupts off
	set_interrupt_mode();
	pseries.vty = PSERIES_DEFAULT_VTY;
	parse_device_tree(fdt);

	early_alloc_init((uint64_t)kernel_end - KERNEL_OFFSET,
			 boot_info.initrd_pa, boot_info.initrd_pa + boot_info.initrd_size,
			 fdt_pa, fdt_pa + fdt_len);
	mmu_init(fdt_ram, fdt_nram);
	set_relocation_on_interrupts();
	mmu_enable();
	build_ram_map();
	kernel_main();
}

// An interrupt before the MMU and the vectors are up (or a system reset
// or machine check, which always arrive in real mode).
void ppc_early_exception(uint64_t vector, uint64_t srr0, uint64_t srr1, uint64_t dar);

void ppc_early_exception(uint64_t vector, uint64_t srr0, uint64_t srr1, uint64_t dar)
{
	kprintf_unlocked("\nearly exception %#lx at %#lx (SRR1 %#lx, DAR %#lx)\n",
			 vector, srr0, srr1, dar);
	arch_machine_exit(3);
}
