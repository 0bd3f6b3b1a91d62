// The POWER9 radix MMU for a pseries guest.
//
// The process table (registered with H_REGISTER_PROC_TBL) has one entry
// per radix PID.  Addresses with the top two bits set (0xc...) translate
// through entry 0, the kernel's tree: the direct map of all RAM in 2 MiB
// pages and the kernel stacks in 4 KiB pages with unmapped guard pages.
// Addresses with them clear are user addresses and translate through the
// entry of the PID in the PIDR register: each address space has its own
// PID, so a switch is one mtspr and TLB entries are tagged by PID.  With
// no address space loaded PIDR holds NO_USER_PID, whose entry is empty,
// so that a stray user address faults: PID 0 would translate it through
// the kernel's tree (the MMU drops the quadrant bits), and the kernel's
// NULL would alias physical 0.
//
// Every tree covers 52 bits of address: a 13-bit root (64 KiB), then
// three 9-bit levels of 4 KiB tables down to 4 KiB pages, as Linux lays
// it out.  The MMU reads every table entry big-endian (arch/pte.h).

#include <stdint.h>
#include <arch/spr.h>
#include <arch/irq.h>
#include <arch/pte.h>
#include <arch/hcall.h>
#include <arch/memlayout.h>
#include <arch/platform.h>
#include <kernel/mm.h>
#include <kernel/vm.h>
#include <kernel/cpu.h>
#include <kernel/arch.h>
#include <kernel/panic.h>
#include <kernel/spinlock.h>
#include <mm/frame.h>
#include <mm/phys.h>
#include <lib/string.h>

#define ROOT_BITS	13
#define LEVEL_BITS	9
#define ROOT_SIZE	(8UL << ROOT_BITS)		// 64 KiB
#define ROOT_ORDER	4				// 16 frames
#define RADIX_RTS	(52 - 31)			// tree size: 2^52 bytes
#define PRTE_RTS	((((uint64_t)RADIX_RTS >> 3) & 3) << 61 | ((uint64_t)RADIX_RTS & 7) << 5)
#define PDE_NLB_MASK	0x0fffffffffffff00UL
#define PROC_TABLE_SHIFT 8				// 2^(8+12) bytes: 65536 PIDs
#define PROC_TABLE_SIZE	(1UL << (PROC_TABLE_SHIFT + 12))
#define NR_PIDS		(PROC_TABLE_SIZE / 16)
#define NO_USER_PID	1				// an empty entry: every access faults
#define FIRST_USER_PID	2

// H_REGISTER_PROC_TBL flags.
#define PROC_TBL_MODIFY		0x10
#define PROC_TBL_REGISTER	0x08
#define PROC_TBL_RADIX		0x04
#define PROC_TBL_GTSE		0x01	// the guest may use tlbie itself

struct prte {
	uint64_t dw0, dw1;		// big-endian
};

static uint64_t kernel_root_pa;
static struct prte *proc_table;
static uint64_t proc_table_pa;

static uint64_t early_next, avoid[2][2];
static bool frames_ready;

// ---- allocation of table memory ----

void early_alloc_init(uint64_t start, uint64_t a_start, uint64_t a_end,
		      uint64_t b_start, uint64_t b_end)
{
	early_next = (start + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	avoid[0][0] = a_start & ~(PAGE_SIZE - 1);
	avoid[0][1] = a_end;
	avoid[1][0] = b_start & ~(PAGE_SIZE - 1);
	avoid[1][1] = b_end;
}

// 'size' bytes aligned to 'size' (a power of two), zeroed, before the
// frame allocator exists.
static uint64_t early_alloc(uint64_t size)
{
	uint64_t pa;

	for (;;) {
		pa = (early_next + size - 1) & ~(size - 1);
		bool clash = false;
		for (int i = 0; i < 2; i++) {
			if (avoid[i][1] > avoid[i][0] && pa < avoid[i][1] && pa + size > avoid[i][0]) {
				early_next = avoid[i][1];
				clash = true;
			}
		}
		if (!clash)
			break;
	}
	early_next = pa + size;
	memset(phys_to_virt(pa), 0, size);
	return pa;
}

uint64_t early_alloc_end(void)
{
	return early_next;
}

void mmu_frames_ready(void)
{
	frames_ready = true;
}

static uint64_t table_alloc(bool user, unsigned order)
{
	if (!frames_ready)
		return early_alloc(PAGE_SIZE << order);
	uint64_t pa = frame_alloc_zeroed(order);
	if (pa)
		frame_set_use(pa, user ? FRAME_PAGETABLE : FRAME_KPAGETABLE);
	return pa;
}

// ---- tree walks ----

static pte_t *table_at(uint64_t pa)
{
	return phys_to_virt(pa);
}

// The index of va's entry in the table at 'level' (0 = root ... 3 = leaf).
static unsigned level_index(uint64_t va, int level)
{
	static const unsigned shift[4] = { 39, 30, 21, 12 };
	unsigned bits = level == 0 ? ROOT_BITS : LEVEL_BITS;

	return (unsigned)(va >> shift[level]) & ((1U << bits) - 1);
}

static uint64_t pde_make(uint64_t table_pa)
{
	return PTE_VALID | table_pa | LEVEL_BITS;	// NLS: the next table's size
}

// The entry at 'level' for va, creating the tables above it when asked.
static pte_t *walk_to(uint64_t root, uint64_t va, int level, bool create, bool user)
{
	pte_t *table = table_at(root);

	for (int l = 0; l < level; l++) {
		pte_t *e = &table[level_index(va, l)];
		uint64_t v = arch_pte_get(e);
		if (!(v & PTE_VALID)) {
			if (!create)
				return 0;
			uint64_t pa = table_alloc(user, 0);
			if (!pa)
				return 0;
			arch_pte_set(e, pde_make(pa));
			v = arch_pte_get(e);
		} else if (v & PTE_LEAF) {
			return 0;		// a large page covers va
		}
		table = table_at(v & PDE_NLB_MASK);
	}
	return &table[level_index(va, level)];
}

pte_t *arch_pte_walk(uint64_t root, uint64_t va, bool create, bool user)
{
	return walk_to(root, va, 3, create, user);
}

// ---- the kernel's tree ----

static uint64_t kernel_leaf(uint64_t pa)
{
	return pa | PTE_VALID | PTE_LEAF | PTE_R_BIT | PTE_C_BIT | PTE_PRIV |
	       PTE_READ | PTE_WRITE | PTE_EXEC;
}

// The direct map of RAM in 2 MiB pages.  The image is in it too (it runs
// at its direct-map address), so it stays executable.
static void direct_map_range(uint64_t start, uint64_t end)
{
	for (uint64_t pa = start & ~0x1fffffUL; pa < end; pa += 0x200000) {
		pte_t *e = walk_to(kernel_root_pa, DIRECT_MAP_START + pa, 2, true, false);
		if (!e)
			panic("out of memory for the kernel's page tables");
		arch_pte_set(e, kernel_leaf(pa));
	}
}

static void set_prte(uint32_t pid, uint64_t root)
{
	uint64_t dw0 = root ? PRTE_RTS | root | ROOT_BITS : 0;

	proc_table[pid].dw0 = __builtin_bswap64(dw0);
	proc_table[pid].dw1 = 0;
	__asm__ volatile("ptesync" ::: "memory");
}

void mmu_init(const struct mem_range *ram, size_t n)
{
	kernel_root_pa = table_alloc(false, ROOT_ORDER);
	for (size_t i = 0; i < n; i++)
		direct_map_range(ram[i].start, ram[i].end);

	proc_table_pa = early_alloc(PROC_TABLE_SIZE);
	proc_table = phys_to_virt(proc_table_pa);
	set_prte(0, kernel_root_pa);
	long rc = hcall(H_REGISTER_PROC_TBL,
			PROC_TBL_MODIFY | PROC_TBL_REGISTER | PROC_TBL_RADIX | PROC_TBL_GTSE,
			proc_table_pa, 0, PROC_TABLE_SHIFT, 0, 0);
	if (rc != H_SUCCESS)
		panic("H_REGISTER_PROC_TBL (radix) failed: %ld", rc);
}

// Turns translation on for this CPU: the code runs at its direct-map
// address, which means the same in real mode, so no jump is needed.
void mmu_enable(void)
{
	mtspr(SPRN_PIDR, NO_USER_PID);
	__asm__ volatile("isync");
	uint64_t msr;
	__asm__ volatile("mfmsr %0" : "=r"(msr));
	msr |= MSR_IR | MSR_DR;
	__asm__ volatile("mtmsrd %0\n\tisync" : : "r"(msr) : "memory");
}

// ---- TLB invalidation ----
//
// tlbie reaches every CPU of the partition (GTSE is on): a shootdown
// needs no interrupt of other CPUs.  RIC 0 flushes translations, RIC 2
// translations and the page-walk cache; PRS=1, R=1: process-scoped radix.

static void tlb_sync(void)
{
	__asm__ volatile("eieio; tlbsync; ptesync" ::: "memory");
}

static void tlbie_page(uint64_t va, uint32_t pid)
{
	uint64_t rb = va & ~(PAGE_SIZE - 1);	// IS=0 (by address), AP=0 (4 KiB)
	uint64_t rs = (uint64_t)pid << 32;

	__asm__ volatile("tlbie %0, %1, 0, 1, 1" : : "r"(rb), "r"(rs) : "memory");
}

static void tlbie_pid(uint32_t pid, bool walk_cache)
{
	uint64_t rb = 1UL << 10;		// IS=1: everything of the PID
	uint64_t rs = (uint64_t)pid << 32;

	if (walk_cache)
		__asm__ volatile("tlbie %0, %1, 2, 1, 1" : : "r"(rb), "r"(rs) : "memory");
	else
		__asm__ volatile("tlbie %0, %1, 0, 1, 1" : : "r"(rb), "r"(rs) : "memory");
}

void arch_tlb_flush_page(uint64_t va)
{
	struct mm *mm = this_cpu()->active_mm;

	__asm__ volatile("ptesync" ::: "memory");
	tlbie_page(va, va >= KERNEL_OFFSET || !mm ? 0 : mm->arch.pid);
	tlb_sync();
}

#define FLUSH_ALL_THRESHOLD 32	// pages; beyond this flush the whole PID

// Runs on each other CPU of the address space, after the tlbie.
static void tlb_sync_here(void *arg)
{
	(void)arg;
	__asm__ volatile("ptesync" ::: "memory");
}

// On a POWER9, tlbie followed by tlbsync and ptesync has removed the
// entries from every CPU when it returns.  QEMU's TCG only queues the
// flush for the other vCPUs, which run on with the stale entries until
// they next leave their translated code: the CPUs that may hold the
// address space's entries are interrupted too (and wait for), so that
// theirs are gone before this returns.  (tests/mmrace on 4 CPUs reads
// freed frames through stale entries without it.)
void arch_tlb_shootdown(struct mm *mm, uint64_t start, uint64_t end)
{
	__asm__ volatile("ptesync" ::: "memory");
	if ((end - start) / PAGE_SIZE > FLUSH_ALL_THRESHOLD) {
		tlbie_pid(mm->arch.pid, false);
	} else {
		for (uint64_t va = start & ~(PAGE_SIZE - 1); va < end; va += PAGE_SIZE)
			tlbie_page(va, mm->arch.pid);
	}
	tlb_sync();
	cpumask_t others = __atomic_load_n(&mm->active_cpus, __ATOMIC_SEQ_CST) &
			   ~cpumask_of(this_cpu()->id);
	if (others)
		cross_call_mask_ipi(others, tlb_sync_here, 0, true, IPI_TLB);
}

void tlb_shootdown_interrupt(void)
{
	cross_call_interrupt();
}

// ---- address spaces ----

static struct spinlock pid_lock = SPINLOCK_INIT("radix pids");
static uint64_t pid_used[NR_PIDS / 64];

uint64_t arch_pt_root_new(void)
{
	return table_alloc(true, ROOT_ORDER);
}

static void free_table(uint64_t pa, int level)
{
	pte_t *t = table_at(pa);

	if (level < 3) {
		for (int i = 0; i < 512; i++) {
			uint64_t v = arch_pte_get(&t[i]);
			if ((v & PTE_VALID) && !(v & PTE_LEAF))
				free_table(v & PDE_NLB_MASK, level + 1);
		}
	}
	frame_free(pa, 0);
}

void arch_pt_root_free(uint64_t root)
{
	pte_t *t = table_at(root);

	for (unsigned i = 0; i < (1U << ROOT_BITS); i++) {
		uint64_t v = arch_pte_get(&t[i]);
		if ((v & PTE_VALID) && !(v & PTE_LEAF))
			free_table(v & PDE_NLB_MASK, 1);
	}
	frame_free(root, ROOT_ORDER);
}

pte_t *arch_pte_next_with_frame(uint64_t root, uint64_t *va, uint64_t end)
{
	static const unsigned shift[4] = { 39, 30, 21, 12 };
	uint64_t v = *va;

	while (v < end) {
		pte_t *table = table_at(root);
		int level = 0;
		for (; level < 3; level++) {
			uint64_t e = arch_pte_get(&table[level_index(v, level)]);
			if (!(e & PTE_VALID) || (e & PTE_LEAF))
				break;
			table = table_at(e & PDE_NLB_MASK);
		}
		if (level < 3) {
			uint64_t span = 1UL << shift[level];
			uint64_t next = (v + span) & ~(span - 1);
			if (next <= v)
				return 0;
			v = next;
			continue;
		}
		for (unsigned i = level_index(v, 3); v < end; i++, v += PAGE_SIZE) {
			if (i == 512)
				break;
			if (pte_has_frame(arch_pte_get(&table[i]))) {
				*va = v;
				return &table[i];
			}
		}
	}
	return 0;
}

void arch_mm_init(struct mm *mm)
{
	uint64_t flags = spin_lock_irqsave(&pid_lock);
	uint32_t pid = 0;

	for (uint32_t i = FIRST_USER_PID; i < NR_PIDS; i++) {
		if (!(pid_used[i / 64] & (1ULL << (i % 64)))) {
			pid_used[i / 64] |= 1ULL << (i % 64);
			pid = i;
			break;
		}
	}
	spin_unlock_irqrestore(&pid_lock, flags);
	// Each address space costs a 64 KiB root, so memory runs out long
	// before 65535 of them exist.
	if (!pid)
		panic("out of radix PIDs");
	mm->arch.pid = pid;
	set_prte(pid, mm->root_pa);
	// The PID may have been used before: nothing of that may linger.
	tlbie_pid(pid, true);
	tlb_sync();
}

void arch_mm_fini(struct mm *mm)
{
	uint64_t flags = spin_lock_irqsave(&pid_lock);

	pid_used[mm->arch.pid / 64] &= ~(1ULL << (mm->arch.pid % 64));
	spin_unlock_irqrestore(&pid_lock, flags);
}

void arch_mm_activate(struct mm *mm)
{
	struct cpu *c = this_cpu();
	struct mm *prev = c->active_mm;

	if (prev == mm)
		return;
	__atomic_or_fetch(&mm->active_cpus, cpumask_of(c->id), __ATOMIC_SEQ_CST);
	mtspr(SPRN_PIDR, mm->arch.pid);
	__asm__ volatile("isync" ::: "memory");
	c->active_mm = mm;
	if (prev)
		__atomic_and_fetch(&prev->active_cpus, ~cpumask_of(c->id), __ATOMIC_SEQ_CST);
}

static void drop_local(void *arg)
{
	struct cpu *c = this_cpu();

	if (c->active_mm != arg)
		return;
	mtspr(SPRN_PIDR, NO_USER_PID);
	__asm__ volatile("isync" ::: "memory");
	c->active_mm = 0;
	__atomic_and_fetch(&((struct mm *)arg)->active_cpus, ~cpumask_of(c->id), __ATOMIC_SEQ_CST);
}

// Before an mm's tables are freed: its process-table entry goes, then
// every CPU's cached translations and walks of it, and no CPU keeps it
// as its active address space.
void arch_mm_drop_everywhere(struct mm *mm)
{
	set_prte(mm->arch.pid, 0);
	tlbie_pid(mm->arch.pid, true);
	tlb_sync();
	cpumask_t mask = __atomic_load_n(&mm->active_cpus, __ATOMIC_SEQ_CST);
	if (mask)
		cross_call_mask_ipi(mask, drop_local, mm, true, IPI_TLB);
}

void arch_mm_deactivate_current(void)
{
	struct cpu *c = this_cpu();
	uint64_t flags = irq_save();
	struct mm *mm = c->active_mm;

	mtspr(SPRN_PIDR, NO_USER_PID);
	__asm__ volatile("isync" ::: "memory");
	c->active_mm = 0;
	if (mm)
		__atomic_and_fetch(&mm->active_cpus, ~cpumask_of(c->id), __ATOMIC_SEQ_CST);
	irq_restore(flags);
}

// ---- kernel stacks ----
//
// The kernel-stack area's entries (kernel/mm/kstack.c keeps the slots).

pte_t *arch_kstack_pte(uint64_t va)
{
	return walk_to(kernel_root_pa, va, 3, true, false);
}

uint64_t arch_kstack_pte_value(uint64_t pa)
{
	return kernel_leaf(pa) & ~PTE_EXEC;
}
