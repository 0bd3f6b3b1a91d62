// Address-space switching and TLB shootdown on x86-64.
//
// Each CPU records the mm whose tables are in CR3 (active_mm) and each mm
// the CPUs that may cache its translations (active_cpus).  A kernel
// thread leaves the previous mm loaded (lazy), so that CPU stays in the
// set until another mm replaces it; shootdowns reach it too.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/mmu.h>
#include <kernel/mm.h>
#include <kernel/vm.h>
#include <kernel/cpu.h>
#include <kernel/smp.h>
#include <kernel/arch.h>
#include <kernel/trap.h>

#define FLUSH_ALL_THRESHOLD 32	// pages; beyond this reload CR3

void mm_activate(struct mm *mm)
{
	struct cpu *c = this_cpu();
	struct mm *prev = c->active_mm;

	if (prev == mm)
		return;
	// Join the new mm's CPU set before loading it, so a concurrent
	// shootdown either sees us or happens before our CR3 load.
	__atomic_or_fetch(&mm->active_cpus, cpumask_of(c->id), __ATOMIC_SEQ_CST);
	write_cr3(mm->root_pa);
	c->active_mm = mm;
	if (prev)
		__atomic_and_fetch(&prev->active_cpus, ~cpumask_of(c->id), __ATOMIC_SEQ_CST);
}

struct flush_request {
	struct mm *mm;
	uint64_t start, end;
};

static void flush_local(void *arg)
{
	struct flush_request *r = arg;

	if (this_cpu()->active_mm != r->mm)
		return;
	if ((r->end - r->start) / 4096 > FLUSH_ALL_THRESHOLD) {
		write_cr3(read_cr3());
		return;
	}
	for (uint64_t va = r->start; va < r->end; va += 4096)
		invlpg(va);
}

void tlb_shootdown(struct mm *mm, uint64_t start, uint64_t end)
{
	struct flush_request r = { mm, start, end };
	cpumask_t mask = __atomic_load_n(&mm->active_cpus, __ATOMIC_SEQ_CST);

	if (!mask)
		return;
	cross_call_mask_ipi(mask, flush_local, &r, true, IPI_TLB);
}

void tlb_shootdown_interrupt(void)
{
	cross_call_interrupt();
}

static void drop_local(void *arg)
{
	struct cpu *c = this_cpu();

	if (c->active_mm != arg)
		return;
	write_cr3(kernel_pml4_pa);
	c->active_mm = 0;
	__atomic_and_fetch(&((struct mm *)arg)->active_cpus, ~cpumask_of(c->id), __ATOMIC_SEQ_CST);
}

// Before an mm's tables are freed: no CPU may keep them in CR3.
void arch_mm_drop_everywhere(struct mm *mm)
{
	cpumask_t mask = __atomic_load_n(&mm->active_cpus, __ATOMIC_SEQ_CST);

	if (mask)
		cross_call_mask_ipi(mask, drop_local, mm, true, IPI_TLB);
}

// The current thread is about to drop its address space for good.
void mm_deactivate_current(void)
{
	struct cpu *c = this_cpu();
	uint64_t flags = irq_save();
	struct mm *mm = c->active_mm;

	write_cr3(kernel_pml4_pa);
	c->active_mm = 0;
	if (mm)
		__atomic_and_fetch(&mm->active_cpus, ~cpumask_of(c->id), __ATOMIC_SEQ_CST);
	irq_restore(flags);
}
