// The cycle counter CPU-time accounting reads at every transition
// (include/kernel/cputime.h): on x86-64 the TSC, which QEMU and hardware
// with an invariant TSC keep in step across CPUs.  No fence: a read a few
// instructions early or late moves nanoseconds between two accounts.
#ifndef ARCH_CYCLES_H
#define ARCH_CYCLES_H

#include <stdint.h>

static inline uint64_t arch_cycles(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

// A count of cycles in ns, at the clock's current rate (arch/x86_64/tsc.c).
uint64_t arch_cycles_to_ns(uint64_t cycles);

#endif
