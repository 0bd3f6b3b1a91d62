// User page-table entries, as the arch-neutral VM code sees them.
#ifndef ARCH_PTE_H
#define ARCH_PTE_H

#include <stdint.h>
#include <stdbool.h>
#include <arch/mmu.h>
#include <arch/cpu_arch.h>

#define PTE_PROTNONE	(1UL << 11)	// software: frame kept, access denied (P = 0)

// An entry in a page table, as the core holds it: opaque, so that every
// load and store goes through arch_pte_get and arch_pte_set (ppc64's
// radix tables are big-endian in memory; x86-64's are native words).
typedef struct {
	uint64_t v;
} pte_t;

static inline uint64_t arch_pte_get(const pte_t *e)
{
	return e->v;
}

static inline void arch_pte_set(pte_t *e, uint64_t v)
{
	e->v = v;
}

#define VM_PROT_READ	1
#define VM_PROT_WRITE	2
#define VM_PROT_EXEC	4

// Does the entry hold a frame (accessible or not)?
static inline bool pte_has_frame(uint64_t e)
{
	return (e & PTE_P) || (e & PTE_PROTNONE);
}

static inline bool pte_accessible(uint64_t e)
{
	return e & PTE_P;
}

static inline uint64_t pte_frame(uint64_t e)
{
	return e & PTE_ADDR_MASK;
}

static inline bool pte_writable(uint64_t e)
{
	return e & PTE_W;
}

static inline bool pte_is_cow(uint64_t e)
{
	return e & PTE_COW;
}

// An entry for a user page with the given protection.  'cow' makes it
// read-only until the first write copies it.
static inline uint64_t pte_make(uint64_t pa, int prot, bool cow, bool shared)
{
	if (!(prot & (VM_PROT_READ | VM_PROT_WRITE | VM_PROT_EXEC)))
		return pa | PTE_PROTNONE | (cow ? PTE_COW : 0) | (shared ? PTE_SHARED : 0);
	uint64_t e = pa | PTE_P | PTE_U;
	if ((prot & VM_PROT_WRITE) && !cow)
		e |= PTE_W;
	if (cow)
		e |= PTE_COW;
	if (shared)
		e |= PTE_SHARED;
	if (!(prot & VM_PROT_EXEC) && cpu_has.nx)
		e |= PTE_NX;
	return e;
}

// One leaf table maps 2 MiB: the entries of the pages of one such span
// lie side by side, so a walker may step through them without walking
// down from the root for each page.
#define PTE_LEAF_SHIFT	21

static inline unsigned pte_leaf_index(uint64_t va)
{
	return (unsigned)(va >> 12) & 511;
}

// The leaf entry for va under the table at root_pa (created, with the
// tables above it, if 'create'; 'user' marks new tables user-accessible),
// or NULL.
pte_t *arch_pte_walk(uint64_t root_pa, uint64_t va, bool create, bool user);
// Finds the next entry with a frame at or after *va (below end), skipping
// absent tables; updates *va to its address.  NULL if none.
pte_t *arch_pte_next_with_frame(uint64_t root, uint64_t *va, uint64_t end);

// A new top-level table sharing the kernel half; freeing releases the
// user-half tables (not the frames they map).
uint64_t arch_pt_root_new(void);
void arch_pt_root_free(uint64_t root);

#endif
