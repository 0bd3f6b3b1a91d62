// timerfd: the tick's part (see kernel/fs/timerfd.c).
#ifndef FS_TIMERFD_H
#define FS_TIMERFD_H

// Called from CPU 0's tick: fires every timerfd whose expiry has passed,
// waking its readers and pollers.
void timerfd_tick(void);

#endif
