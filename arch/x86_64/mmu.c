// Kernel page tables on x86-64.
//
// The boot code (boot.S) maps the first 4 GiB both at 0 and at the direct
// map so that C can run; mmu_init replaces that with the real layout:
// every RAM range in the direct map (non-executable, and read-only where
// it aliases kernel text and read-only data), the kernel image with text
// read-only+executable and everything else non-executable, and nothing
// at all in the user half.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/mmu.h>
#include <arch/pte.h>
#include <arch/cpu_arch.h>
#include <arch/memlayout.h>
#include <mm/frame.h>
#include <mm/phys.h>
#include <kernel/panic.h>
#include <kernel/spinlock.h>
#include <lib/string.h>

extern char kernel_start[], kernel_text_end[], kernel_rodata_end[], kernel_end[];

uint64_t kernel_pml4_pa;

static uint64_t early_next, early_avoid_start, early_avoid_end;
static bool frames_ready;
static struct spinlock mmio_lock = SPINLOCK_INIT("mmio");
static uint64_t mmio_next = MMIO_START;

static uint64_t kimg_phys(const char *sym)
{
	return (uint64_t)sym - KERNEL_OFFSET;
}

void early_alloc_init(uint64_t start, uint64_t avoid_start, uint64_t avoid_end)
{
	early_next = start;
	early_avoid_start = avoid_start;
	early_avoid_end = avoid_end;
}

uint64_t early_alloc_page(void)
{
	if (early_next + PAGE_SIZE > early_avoid_start && early_next < early_avoid_end)
		early_next = (early_avoid_end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	uint64_t pa = early_next;
	early_next += PAGE_SIZE;
	memset(phys_to_virt(pa), 0, PAGE_SIZE);
	return pa;
}

uint64_t early_alloc_end(void)
{
	return early_next;
}

// A zeroed page for a table; 'user' says whether it belongs to a user
// address space (freed with it) or to the kernel's half (kept forever).
static uint64_t table_alloc(bool user)
{
	if (!frames_ready)
		return early_alloc_page();
	uint64_t pa = frame_alloc_zeroed(0);
	if (pa)
		frame_set_use(pa, user ? FRAME_PAGETABLE : FRAME_KPAGETABLE);
	return pa;
}

static uint64_t *table_at(uint64_t pa)
{
	return phys_to_virt(pa & PTE_ADDR_MASK);
}

// Returns the entry at 'level' (4 = PML4 ... 1 = PT) for va, allocating
// the tables above it when 'create'.
static uint64_t *walk_to(uint64_t pml4_pa, uint64_t va, int level, bool create, bool user)
{
	uint64_t *table = table_at(pml4_pa);

	for (int l = 4; l > level; l--) {
		uint64_t *e = &table[(va >> (12 + 9 * (l - 1))) & 511];
		if (!(*e & PTE_P)) {
			if (!create)
				return 0;
			uint64_t pa = table_alloc(user);
			if (!pa)
				return 0;
			*e = pa | PTE_P | PTE_W | (user ? PTE_U : 0);
		} else if (*e & PTE_PS) {
			return 0;	// a large page covers va: no lower table
		}
		table = table_at(*e);
	}
	return &table[(va >> (12 + 9 * (level - 1))) & 511];
}

pte_t *arch_pte_walk(uint64_t pml4_pa, uint64_t va, bool create, bool user)
{
	return (pte_t *)walk_to(pml4_pa, va, 1, create, user);
}

static void map_4k(uint64_t va, uint64_t pa, uint64_t flags)
{
	uint64_t *e = walk_to(kernel_pml4_pa, va, 1, true, false);
	if (!e)
		panic("out of memory for kernel page tables");
	*e = pa | flags;
}

static void map_2m(uint64_t va, uint64_t pa, uint64_t flags)
{
	uint64_t *e = walk_to(kernel_pml4_pa, va, 2, true, false);
	if (!e)
		panic("out of memory for kernel page tables");
	*e = pa | flags | PTE_PS;
}

// Direct-map flags for one 4 KiB frame: never executable, and read-only
// where the frame holds kernel text or read-only data.
static uint64_t direct_flags(uint64_t pa)
{
	uint64_t flags = PTE_P | PTE_G | (cpu_has.nx ? PTE_NX : 0);
	if (pa < kimg_phys(kernel_start) || pa >= kimg_phys(kernel_rodata_end))
		flags |= PTE_W;
	return flags;
}

// The PD entry covering va in the kernel tables, or NULL if the tables
// above it do not exist yet.
static uint64_t *kernel_pde(uint64_t va)
{
	return walk_to(kernel_pml4_pa, va, 2, false, false);
}

// Maps [start, end) into the direct map.  Ranges may overlap ones mapped
// before (the firmware's map lists the initrd inside RAM, say): whatever
// is already mapped is left as it is.
static void direct_map_range(uint64_t start, uint64_t end)
{
	uint64_t ro_start = kimg_phys(kernel_start) & ~0x1fffffUL;
	uint64_t ro_end = (kimg_phys(kernel_rodata_end) + 0x1fffff) & ~0x1fffffUL;
	uint64_t pa = start & ~(PAGE_SIZE - 1);

	while (pa < end) {
		uint64_t va = DIRECT_MAP_START + pa;
		uint64_t *pde = kernel_pde(va);
		if (pde && (*pde & PTE_PS)) {		// inside a mapped 2 MiB page
			pa = (pa + 0x200000) & ~0x1fffffUL;
			continue;
		}
		bool big = (pa & 0x1fffff) == 0 && pa + 0x200000 <= end &&
			   (pa + 0x200000 <= ro_start || pa >= ro_end) &&
			   !(pde && (*pde & PTE_P));	// no 4 KiB table there yet
		if (big) {
			map_2m(va, pa, direct_flags(pa));
			pa += 0x200000;
			continue;
		}
		uint64_t *pte = walk_to(kernel_pml4_pa, va, 1, false, false);
		if (!pte || !(*pte & PTE_P))
			map_4k(va, pa, direct_flags(pa));
		pa += PAGE_SIZE;
	}
}

static void kernel_image_map(void)
{
	uint64_t nx = cpu_has.nx ? PTE_NX : 0;

	for (char *va = kernel_start; va < kernel_end; va += PAGE_SIZE) {
		uint64_t flags = PTE_P | PTE_G;
		if (va >= kernel_rodata_end)
			flags |= PTE_W | nx;
		else if (va >= kernel_text_end)
			flags |= nx;
		map_4k((uint64_t)va, kimg_phys(va), flags);
	}
}

void mmu_init(const struct mem_range *ram, size_t n)
{
	kernel_pml4_pa = table_alloc(false);
	// Pre-create every kernel-half PDPT so that user address spaces can
	// share the kernel half by copying PML4 entries 256..511 once.
	uint64_t *pml4 = table_at(kernel_pml4_pa);
	for (int i = 256; i < 512; i++)
		pml4[i] = table_alloc(false) | PTE_P | PTE_W;

	direct_map_range(0, 0x100000);		// low memory: boot info, trampoline
	for (size_t i = 0; i < n; i++)
		direct_map_range(ram[i].start, ram[i].end);
	kernel_image_map();
	write_cr3(kernel_pml4_pa);
}

// Called once frame_init has taken over memory.
void mmu_frames_ready(void)
{
	frames_ready = true;
}

void *mmio_map(uint64_t pa, size_t size)
{
	uint64_t offset = pa & (PAGE_SIZE - 1);
	uint64_t flags = PTE_P | PTE_W | PTE_PCD | PTE_PWT | PTE_G | (cpu_has.nx ? PTE_NX : 0);
	uint64_t flags_saved = spin_lock_irqsave(&mmio_lock);
	uint64_t va = mmio_next;

	size = (size + offset + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	for (uint64_t done = 0; done < size; done += PAGE_SIZE)
		map_4k(va + done, (pa & ~(PAGE_SIZE - 1)) + done, flags);
	mmio_next += size;
	spin_unlock_irqrestore(&mmio_lock, flags_saved);
	return (void *)(va + offset);
}

// APs start with paging off and switch to the kernel's tables while still
// executing the trampoline in low memory: that needs an identity mapping
// of the first 2 MiB, present only while CPUs are being started.
void mmu_map_low_identity(bool on)
{
	uint64_t *pml4 = table_at(kernel_pml4_pa);

	if (on) {
		uint64_t pdpt = table_alloc(false);
		uint64_t pd = table_alloc(false);
		table_at(pdpt)[0] = pd | PTE_P | PTE_W;
		table_at(pd)[0] = 0 | PTE_P | PTE_W | PTE_PS;
		pml4[0] = pdpt | PTE_P | PTE_W;
	} else {
		uint64_t pdpt = pml4[0] & PTE_ADDR_MASK;
		uint64_t pd = table_at(pdpt)[0] & PTE_ADDR_MASK;
		pml4[0] = 0;
		tlb_flush_all();
		frame_free(pd, 0);
		frame_free(pdpt, 0);
	}
}

void arch_tlb_flush_page(uint64_t va)
{
	invlpg(va);
}

void tlb_flush_all(void)
{
	// Rewriting CR4.PGE drops global entries too.
	uint64_t cr4 = read_cr4();
	if (cr4 & CR4_PGE) {
		write_cr4(cr4 & ~CR4_PGE);
		write_cr4(cr4);
	} else {
		write_cr3(read_cr3());
	}
}

uint64_t arch_pt_root_new(void)
{
	uint64_t root = frame_alloc_zeroed(0);

	if (!root)
		return 0;
	frame_set_use(root, FRAME_PAGETABLE);
	uint64_t *dst = table_at(root), *src = table_at(kernel_pml4_pa);
	for (int i = 256; i < 512; i++)
		dst[i] = src[i];
	return root;
}

static void free_table(uint64_t pa, int level)
{
	uint64_t *t = table_at(pa);

	if (level > 1) {
		for (int i = 0; i < 512; i++)
			if (t[i] & PTE_P)
				free_table(t[i] & PTE_ADDR_MASK, level - 1);
	}
	frame_free(pa & PTE_ADDR_MASK, 0);
}

void arch_pt_root_free(uint64_t root)
{
	uint64_t *t = table_at(root);

	for (int i = 0; i < 256; i++)
		if (t[i] & PTE_P)
			free_table(t[i] & PTE_ADDR_MASK, 3);
	frame_free(root, 0);
}

pte_t *arch_pte_next_with_frame(uint64_t root, uint64_t *va, uint64_t end)
{
	uint64_t v = *va;

	while (v < end) {
		uint64_t *table = table_at(root);
		int level = 4;
		for (; level > 1; level--) {
			uint64_t e = table[(v >> (12 + 9 * (level - 1))) & 511];
			if (!(e & PTE_P))
				break;
			table = table_at(e);
		}
		if (level > 1) {
			// No table below this level: skip the whole span it covers.
			uint64_t span = 1UL << (12 + 9 * (level - 1));
			uint64_t next = (v + span) & ~(span - 1);
			if (next <= v)
				return 0;
			v = next;
			continue;
		}
		// Scan the rest of this leaf table without walking down
		// again for each entry: a sparse table costs one walk, not
		// one per empty slot.
		for (unsigned i = (v >> 12) & 511; v < end; i++, v += PAGE_SIZE) {
			if (i == 512)
				break;
			if (table[i] & (PTE_P | PTE_PROTNONE)) {
				*va = v;
				return (pte_t *)&table[i];
			}
		}
	}
	return 0;
}

// The kernel-stack area's entries (kernel/mm/kstack.c keeps the slots).
pte_t *arch_kstack_pte(uint64_t va)
{
	return (pte_t *)walk_to(kernel_pml4_pa, va, 1, true, false);
}

uint64_t arch_kstack_pte_value(uint64_t pa)
{
	return pa | PTE_P | PTE_W | PTE_G | (cpu_has.nx ? PTE_NX : 0);
}
