// The time-stamp counter as the kernel's clock source.
#ifndef ARCH_TSC_H
#define ARCH_TSC_H

#include <stdint.h>

// Finds the TSC frequency: CPUID leaf 0x15/0x16, the hypervisor's timing
// leaf, else a measurement against the PIT.  Sets the clock's zero.
void tsc_init(void);
uint64_t tsc_hz(void);
const char *tsc_source(void);	// how the frequency was found

#endif
