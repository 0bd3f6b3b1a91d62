// Address-space switching and TLB shootdown on x86-64.
//
// Each CPU records the mm whose tables are in CR3 (active_mm) and each mm
// the CPUs that may cache its translations (active_cpus).  A kernel
// thread leaves the previous mm loaded (lazy), so that CPU stays in the
// set until another mm replaces it; shootdowns reach it too.
//
// With PCID, each mm has its own tag (asid) and switching keeps the TLB
// entries of the others.  A CPU that switched away from an mm still holds
// its entries, so a shootdown marks every CPU outside active_cpus as stale
// for that mm (stale_cpus); such a CPU flushes the tag when it loads the mm
// again.  A reused tag starts stale everywhere.  Without PCID every CR3
// load flushes, and none of this is needed.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/mmu.h>
#include <kernel/mm.h>
#include <kernel/vm.h>
#include <kernel/cpu.h>
#include <kernel/smp.h>
#include <kernel/arch.h>
#include <kernel/trap.h>
#include <kernel/boot.h>
#include <kernel/spinlock.h>
#include <lib/string.h>

#define FLUSH_ALL_THRESHOLD 32	// pages; beyond this reload CR3
#define ASID_MAX 4096
#define CR3_NOFLUSH (1UL << 63)

static bool pcid_enabled;
static bool pcid_disabled_by_option;
static struct spinlock asid_lock = SPINLOCK_INIT("asid");
static uint64_t asid_used[ASID_MAX / 64];

static int set_pcid(const char *value)
{
	if (!value || (strcmp(value, "on") && strcmp(value, "off")))
		return -1;
	pcid_disabled_by_option = !strcmp(value, "off");
	return 0;
}
BOOT_OPTION(pcid, "pcid=off: do not tag TLB entries by address space even if the CPU can", set_pcid);

// Boot CPU and every other: turn PCID on when the CPU has it (INVPCID is
// not needed: shootdowns use INVLPG on the live tag and CR3 reloads).
void tlb_init_cpu(void)
{
	if (!cpu_has.pcid || pcid_disabled_by_option)
		return;
	write_cr4(read_cr4() | CR4_PCIDE);
	pcid_enabled = true;
}

void arch_mm_init(struct mm *mm)
{
	mm->arch.asid = 0;
	if (!pcid_enabled)
		return;
	uint64_t flags = spin_lock_irqsave(&asid_lock);
	for (int i = 1; i < ASID_MAX; i++) {
		if (!(asid_used[i / 64] & (1ULL << (i % 64)))) {
			asid_used[i / 64] |= 1ULL << (i % 64);
			mm->arch.asid = (uint16_t)i;
			break;
		}
	}
	spin_unlock_irqrestore(&asid_lock, flags);
	// The tag may have been used before: every CPU flushes it first.
	mm->arch.stale_cpus = ~(cpumask_t)0;
}

void arch_mm_fini(struct mm *mm)
{
	if (!mm->arch.asid)
		return;
	uint64_t flags = spin_lock_irqsave(&asid_lock);
	asid_used[mm->arch.asid / 64] &= ~(1ULL << (mm->arch.asid % 64));
	spin_unlock_irqrestore(&asid_lock, flags);
}

static void load_cr3(struct cpu *c, struct mm *mm)
{
	if (!mm->arch.asid) {
		write_cr3(mm->root_pa);
		return;
	}
	cpumask_t me = cpumask_of(c->id);
	bool stale = __atomic_fetch_and(&mm->arch.stale_cpus, ~me, __ATOMIC_SEQ_CST) & me;
	write_cr3(mm->root_pa | mm->arch.asid | (stale ? 0 : CR3_NOFLUSH));
}

void arch_mm_activate(struct mm *mm)
{
	struct cpu *c = this_cpu();
	struct mm *prev = c->active_mm;

	if (prev == mm)
		return;
	// Join the new mm's CPU set before loading it, so a concurrent
	// shootdown either sees us or happens before our CR3 load.
	__atomic_or_fetch(&mm->active_cpus, cpumask_of(c->id), __ATOMIC_SEQ_CST);
	load_cr3(c, mm);
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
	struct cpu *c = this_cpu();

	if (c->active_mm != r->mm) {
		// Switched away meanwhile; with PCID its entries linger.
		__atomic_or_fetch(&r->mm->arch.stale_cpus, cpumask_of(c->id), __ATOMIC_SEQ_CST);
		return;
	}
	// Running it: flushing now settles the mark arch_tlb_shootdown set.
	__atomic_and_fetch(&r->mm->arch.stale_cpus, ~cpumask_of(c->id), __ATOMIC_SEQ_CST);
	if ((r->end - r->start) / 4096 > FLUSH_ALL_THRESHOLD) {
		write_cr3(read_cr3());
		return;
	}
	for (uint64_t va = r->start; va < r->end; va += 4096)
		invlpg(va);
}

void arch_tlb_shootdown(struct mm *mm, uint64_t start, uint64_t end)
{
	struct flush_request r = { mm, start, end };

	// With PCID, a CPU outside active_cpus may still hold entries tagged
	// with this mm's id: it must flush them when it next loads the mm.
	// Every CPU is marked before the set is read, so that one joining at
	// the same moment either finds its mark when it loads CR3 or is in
	// the set read here and gets the IPI (marking only the CPUs outside
	// the set read would miss one that joined in between and loaded CR3
	// without a flush).  The CPUs that flush below clear their mark.
	if (mm->arch.asid)
		__atomic_or_fetch(&mm->arch.stale_cpus, ~(cpumask_t)0, __ATOMIC_SEQ_CST);
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
void arch_mm_deactivate_current(void)
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
