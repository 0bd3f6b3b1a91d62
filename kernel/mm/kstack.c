// Kernel stacks: slots in the kernel-stack area, a guard page and
// KSTACK_SIZE bytes each.  Slots are never unmapped: a freed stack keeps
// its frames and waits on a free list for the next thread, so no TLB
// flush is ever needed.

#include <stdint.h>
#include <mm/kstack.h>
#include <mm/frame.h>
#include <mm/phys.h>
#include <arch/memlayout.h>
#include <kernel/spinlock.h>

#define STACK_PAGES	(KSTACK_SIZE / PAGE_SIZE)

static struct spinlock kstack_lock = SPINLOCK_INIT("kernel stacks");
static uint64_t kstack_next = KSTACK_AREA_START;
static void **kstack_free_list;
static uint64_t kstacks_in_use, kstacks_cached;	// for the statistics

void *kstack_alloc(void)
{
	uint64_t flags = spin_lock_irqsave(&kstack_lock);
	void **top = kstack_free_list;

	if (top) {
		kstack_free_list = *top;
		kstacks_cached--;
		kstacks_in_use++;
		spin_unlock_irqrestore(&kstack_lock, flags);
		return (char *)top - KSTACK_SIZE + sizeof(void *);
	}
	// A new slot.  Its page tables first (kept whatever happens next:
	// kernel tables are never freed), then every frame, and only then
	// the mappings, so that a failure leaves nothing mapped that would
	// have to be unmapped and flushed on every CPU before its frame
	// could be freed, and the slot is simply tried again next time.
	uint64_t base = kstack_next + PAGE_SIZE;	// the guard page stays unmapped
	uint64_t pa[STACK_PAGES];
	pte_t *e[STACK_PAGES];
	size_t n = 0;
	for (; n < STACK_PAGES; n++) {
		e[n] = arch_kstack_pte(base + n * PAGE_SIZE);
		pa[n] = e[n] ? frame_alloc(0) : 0;
		if (!pa[n])
			break;
	}
	if (n < STACK_PAGES) {
		while (n-- > 0)
			frame_free(pa[n], 0);
		spin_unlock_irqrestore(&kstack_lock, flags);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		frame_set_use(pa[i], FRAME_KSTACK);
		arch_pte_set(e[i], arch_kstack_pte_value(pa[i]));
	}
	kstack_next += KSTACK_SLOT_SIZE;
	kstacks_in_use++;
	spin_unlock_irqrestore(&kstack_lock, flags);
	return (void *)base;
}

void kstack_free(void *stack)
{
	// The free list link lives in the stack's top word.
	void **top = (void **)((char *)stack + KSTACK_SIZE - sizeof(void *));
	uint64_t flags = spin_lock_irqsave(&kstack_lock);

	*top = kstack_free_list;
	kstack_free_list = top;
	kstacks_in_use--;
	kstacks_cached++;
	spin_unlock_irqrestore(&kstack_lock, flags);
}

void kstack_stats(uint64_t *in_use, uint64_t *cached, uint64_t *pages_each)
{
	uint64_t flags = spin_lock_irqsave(&kstack_lock);

	*in_use = kstacks_in_use;
	*cached = kstacks_cached;
	spin_unlock_irqrestore(&kstack_lock, flags);
	*pages_each = STACK_PAGES;
}

bool kstack_guard_hit(uint64_t va)
{
	if (va < KSTACK_AREA_START || va >= kstack_next)
		return false;
	return (va - KSTACK_AREA_START) % KSTACK_SLOT_SIZE < PAGE_SIZE;
}
