// Kernel time: the tick and the monotonic clock.
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include <stdint.h>

extern unsigned timer_hz;		// ticks per second (boot option hz=)
extern volatile uint64_t jiffies;	// ticks on CPU 0 since boot

uint64_t clock_monotonic_ns(void);
void delay_ns(uint64_t ns);		// busy wait

#endif
