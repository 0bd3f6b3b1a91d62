// timerfd: the tick's and the clock's parts (see kernel/fs/timerfd.c).
#ifndef FS_TIMERFD_H
#define FS_TIMERFD_H

// Called from CPU 0's tick: fires every timerfd whose expiry has passed,
// waking its readers and pollers.
void timerfd_tick(void);
// CLOCK_REALTIME was set: absolute realtime timers with
// TFD_TIMER_CANCEL_ON_SET are cancelled (their next read is ECANCELED).
void timerfd_clock_was_set(void);

#endif
