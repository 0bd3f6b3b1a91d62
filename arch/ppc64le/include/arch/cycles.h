// The cycle counter on ppc64: the timebase (512 MHz on POWER9).
#ifndef ARCH_CYCLES_H
#define ARCH_CYCLES_H

#include <stdint.h>

static inline uint64_t arch_cycles(void)
{
	uint64_t tb;

	__asm__ volatile("mfspr %0, 268" : "=r"(tb));	// TBR
	return tb;
}

uint64_t arch_cycles_to_ns(uint64_t cycles);

#endif
