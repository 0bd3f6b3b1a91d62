// Kernel stacks of KSTACK_SIZE bytes (arch/memlayout.h), each in its own
// slot of the kernel-stack area with an unmapped guard page below it, so
// an overflow faults and is reported as such instead of overwriting
// whatever memory follows.  The arch maps them (arch_kstack_pte,
// arch_kstack_pte_value); kernel/mm/kstack.c keeps the slots.
#ifndef MM_KSTACK_H
#define MM_KSTACK_H

#include <stdint.h>
#include <stdbool.h>
#include <arch/pte.h>

void *kstack_alloc(void);		// NULL when out of memory
void kstack_free(void *stack);
// Stacks handed out, freed ones kept for reuse (their frames stay), and
// the frames of one stack.
void kstack_stats(uint64_t *in_use, uint64_t *cached, uint64_t *pages_each);
// Is va in the guard page of a kernel stack?
bool kstack_guard_hit(uint64_t va);

// Arch: the kernel page-table entry for va in the kernel-stack area,
// creating the tables above it (kept forever); NULL when out of memory.
pte_t *arch_kstack_pte(uint64_t va);
// Arch: the entry that maps frame pa there (kernel only, writable, not
// executable).
uint64_t arch_kstack_pte_value(uint64_t pa);

#endif
