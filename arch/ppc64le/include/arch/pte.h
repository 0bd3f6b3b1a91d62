// User page-table entries of the POWER9 radix MMU, as the arch-neutral VM
// code sees them.  A leaf entry: valid (bit 0 in IBM numbering, 1 << 63),
// leaf (1 << 62), the real page number, R and C (referenced, changed:
// set up front, as Linux does, so the MMU never has to), the privileged
// bit (clear: user), and read/write/execute permission bits; bits 9-11 are
// the software's.  The MMU reads radix tables big-endian whatever the
// CPU's endianness: the values below are the entry as the CPU sees it,
// and arch_pte_get/arch_pte_set swap its bytes on the way to and from
// the table (Linux's pte_val on __be64).
#ifndef ARCH_PTE_H
#define ARCH_PTE_H

#include <stdint.h>
#include <stdbool.h>

#define PTE_VALID	(1UL << 63)
#define PTE_LEAF	(1UL << 62)
#define PTE_ADDR_MASK	0x01fffffffffff000UL
#define PTE_R_BIT	0x100UL		// referenced
#define PTE_C_BIT	0x080UL		// changed
#define PTE_PRIV	0x008UL		// kernel only
#define PTE_READ	0x004UL
#define PTE_WRITE	0x002UL
#define PTE_EXEC	0x001UL
#define PTE_COW		(1UL << 9)	// software: copy on the next write
#define PTE_SHARED	(1UL << 10)	// software: a MAP_SHARED page
#define PTE_PROTNONE	(1UL << 11)	// software: frame kept, access denied (not valid)

// An entry in a page table, as the core holds it: opaque, so that every
// load and store goes through arch_pte_get and arch_pte_set.
typedef struct {
	uint64_t be;			// big-endian, as the MMU reads it
} pte_t;

static inline uint64_t arch_pte_get(const pte_t *e)
{
	return __builtin_bswap64(e->be);
}

// The store is followed by ptesync: the MMU's table walk must see it
// before any access that may need it (Linux's radix set_pte does the same).
static inline void arch_pte_set(pte_t *e, uint64_t v)
{
	e->be = __builtin_bswap64(v);
	__asm__ volatile("ptesync" ::: "memory");
}

#define VM_PROT_READ	1
#define VM_PROT_WRITE	2
#define VM_PROT_EXEC	4

static inline bool pte_has_frame(uint64_t e)
{
	return (e & PTE_VALID) || (e & PTE_PROTNONE);
}

static inline bool pte_accessible(uint64_t e)
{
	return e & PTE_VALID;
}

static inline uint64_t pte_frame(uint64_t e)
{
	return e & PTE_ADDR_MASK;
}

static inline bool pte_writable(uint64_t e)
{
	return e & PTE_WRITE;
}

static inline bool pte_is_cow(uint64_t e)
{
	return e & PTE_COW;
}

static inline uint64_t pte_make(uint64_t pa, int prot, bool cow, bool shared)
{
	uint64_t soft = (cow ? PTE_COW : 0) | (shared ? PTE_SHARED : 0);

	if (!(prot & (VM_PROT_READ | VM_PROT_WRITE | VM_PROT_EXEC)))
		return pa | PTE_PROTNONE | PTE_LEAF | soft;
	uint64_t e = pa | PTE_VALID | PTE_LEAF | PTE_R_BIT | PTE_C_BIT | soft;
	if (prot & (VM_PROT_READ | VM_PROT_WRITE))
		e |= PTE_READ;
	if ((prot & VM_PROT_WRITE) && !cow)
		e |= PTE_WRITE;
	if (prot & VM_PROT_EXEC)
		e |= PTE_EXEC;
	return e;
}

// A leaf table (the last of the four radix levels with 4 KiB pages) maps
// 2 MiB: 512 entries side by side.
#define PTE_LEAF_SHIFT	21

static inline unsigned pte_leaf_index(uint64_t va)
{
	return (unsigned)(va >> 12) & 511;
}

pte_t *arch_pte_walk(uint64_t root_pa, uint64_t va, bool create, bool user);
pte_t *arch_pte_next_with_frame(uint64_t root, uint64_t *va, uint64_t end);
uint64_t arch_pt_root_new(void);
void arch_pt_root_free(uint64_t root);

#endif
