// Physical <-> virtual translation through the direct map of all RAM.
#ifndef MM_PHYS_H
#define MM_PHYS_H

#include <stdint.h>

#define PAGE_SIZE	4096UL
#define PAGE_SHIFT	12

#ifdef HOST_TEST
// Host unit tests back "physical memory" with a malloc'd arena.
extern uintptr_t host_direct_map_base;
#define DIRECT_MAP_BASE host_direct_map_base
#else
#include <arch/memlayout.h>
#define DIRECT_MAP_BASE ((uintptr_t)DIRECT_MAP_START)
#endif

static inline void *phys_to_virt(uint64_t pa)
{
	return (void *)(uintptr_t)(pa + DIRECT_MAP_BASE);
}

static inline uint64_t virt_to_phys(const void *va)
{
	return (uint64_t)(uintptr_t)va - DIRECT_MAP_BASE;
}

#endif
