// x86-64 page tables: 4 levels, 4 KiB pages, 2 MiB pages for the direct map.
#ifndef ARCH_MMU_H
#define ARCH_MMU_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#define PTE_P		(1UL << 0)
#define PTE_W		(1UL << 1)
#define PTE_U		(1UL << 2)
#define PTE_PWT		(1UL << 3)
#define PTE_PCD		(1UL << 4)
#define PTE_A		(1UL << 5)
#define PTE_D		(1UL << 6)
#define PTE_PS		(1UL << 7)
#define PTE_G		(1UL << 8)
#define PTE_COW		(1UL << 9)	// software: copy on write
#define PTE_SHARED	(1UL << 10)	// software: MAP_SHARED page, never COW
#define PTE_NX		(1UL << 63)
#define PTE_ADDR_MASK	0x000ffffffffff000UL

struct mem_range;

// Boot: builds the kernel's final page tables (direct map of 'ram',
// kernel image with W^X) with page-table pages taken from the early
// allocator, and switches to them.
void mmu_init(const struct mem_range *ram, size_t n);

// Early page allocator used before frame_init: bumps upward from
// 'start', skipping [avoid_start, avoid_end).  Returns zeroed pages.
void early_alloc_init(uint64_t start, uint64_t avoid_start, uint64_t avoid_end);
uint64_t early_alloc_page(void);
uint64_t early_alloc_end(void);

// Maps a device's registers uncached; returns the virtual address.
void *mmio_map(uint64_t pa, size_t size);

// The kernel's top-level table (physical), shared by every address space
// for the kernel half.
extern uint64_t kernel_pml4_pa;

// Finds the page-table entry for 'va' in the table tree rooted at
// 'pml4_pa'; with 'create', allocates missing intermediate tables (user
// accessible when 'user').  Returns NULL if absent or out of memory.

// Temporary identity mapping of low memory for starting other CPUs.
void mmu_map_low_identity(bool on);

void tlb_init_cpu(void);		// PCID on, when the CPU has it
void tlb_flush_all(void);

#endif
