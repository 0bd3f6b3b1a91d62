// timerfd: the clock's part (see kernel/fs/timerfd.c).
#ifndef FS_TIMERFD_H
#define FS_TIMERFD_H

// CLOCK_REALTIME was set: absolute realtime timers with
// TFD_TIMER_CANCEL_ON_SET are cancelled (their next read is ECANCELED).
void timerfd_clock_was_set(void);

#endif
