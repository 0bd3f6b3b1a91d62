// Kernel time: the tick and the monotonic clock.
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include <stdint.h>

struct process;

extern unsigned timer_hz;		// ticks per second (boot option hz=)
extern volatile uint64_t jiffies;	// monotonic time in ticks, as of the last tick anywhere

// The tick (kernel/time/tick.c): runs only while a CPU needs it.
uint64_t tick_period_ns(void);
void tick_init_cpu(int cpu);
void tick_start(void);			// this CPU, interrupts off
void tick_idle_enter(void);		// the idle loop, about to halt
void tick_idle_exit(void);		// ... woken
void tick_kick_stopped(int busy_cpu);	// busy_cpu has threads waiting
void tick_needed_on(int cpu);		// something there needs the tick now
void tick_ipi(void);			// IPI_TICK arrived
void tick_process_changed(struct process *p);	// p armed CPU timers or limits
struct thread;
void tick_switch_in(struct thread *next, int waiting);	// schedule() chose next

uint64_t clock_monotonic_ns(void);
void delay_ns(uint64_t ns);		// busy wait
uint64_t clock_realtime_ns(void);	// wall clock
// CLOCK_REALTIME less CLOCK_MONOTONIC, in ns (clock_settime moves it).
int64_t clock_realtime_offset(void);
// The realtime clock stepped by delta ns (adjtimex ADJ_SETOFFSET): 0 or
// -EINVAL.
int clock_realtime_inject(int64_t delta_ns);
int get_timespec_ns(uint64_t uaddr, uint64_t *ns);	// user timespec -> ns

#endif
