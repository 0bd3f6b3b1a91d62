// The time-stamp counter as the kernel's clock source.
#ifndef ARCH_TSC_H
#define ARCH_TSC_H

#include <stdint.h>
#include <stdbool.h>

// Finds the TSC frequency from every reference the machine has (see
// tsc.c), prints them, and starts the clock at 0.
void tsc_init(void);
uint64_t tsc_hz(void);
const char *tsc_source(void);	// which reference the frequency came from

// CPU 0's tick: the RTC check of the first seconds (corrects the rate if
// the RTC disagrees with it).
void tsc_rtc_tick(void);
bool tsc_rtc_done(void);		// the RTC check has ended (no more ticks needed)

// rtc.c: the RTC's seconds (0-59), or -1 if it cannot be read right now.
int rtc_second(void);

#endif
