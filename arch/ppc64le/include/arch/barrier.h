// Memory barrier and core serialization on ppc64, for membarrier
// (docs/membarrier.md): sync orders all loads and stores; isync is
// context synchronizing (what MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE
// asks for: no instruction past it was fetched before it).
#ifndef ARCH_BARRIER_H
#define ARCH_BARRIER_H

static inline void arch_mb(void)
{
	__asm__ volatile("sync" ::: "memory");
}

static inline void arch_sync_core(void)
{
	__asm__ volatile("isync" ::: "memory");
}

#endif
