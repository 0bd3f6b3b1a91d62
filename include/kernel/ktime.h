// Nanosecond timer arithmetic as Linux's ktime/hrtimer helpers, shared by
// the timers that run on the clocks (timerfd: kernel/fs/timerfd.c, POSIX
// timers: kernel/proc/posix_timers.c).  Times are int64_t ns.
#ifndef KERNEL_KTIME_H
#define KERNEL_KTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <kernel/time.h>

#define KT_CLOCK_REALTIME	0
#define KT_CLOCK_MONOTONIC	1
#define KT_CLOCK_BOOTTIME	7
#define KT_CLOCK_REALTIME_ALARM	8
#define KT_CLOCK_BOOTTIME_ALARM	9

#define KT_NSEC		((int64_t)1000000000)
#define KTIME_MAX	INT64_MAX
#define KTIME_SEC_MAX	(KTIME_MAX / KT_NSEC)

struct timespec64 {
	int64_t sec, nsec;
};

struct itimerspec64 {
	struct timespec64 interval, value;
};

static inline bool ktime_is_alarm(int clockid)
{
	return clockid == KT_CLOCK_REALTIME_ALARM || clockid == KT_CLOCK_BOOTTIME_ALARM;
}

// The clock a timer's expiry is kept in: its own, except that a relative
// CLOCK_REALTIME setting runs on the monotonic clock, as Linux's
// hrtimer_init makes it ('mono_base').  Boot time is the monotonic clock
// (nothing suspends); the _ALARM clocks are their plain ones.
static inline int64_t ktime_now(int clockid, bool mono_base)
{
	if (!mono_base && (clockid == KT_CLOCK_REALTIME || clockid == KT_CLOCK_REALTIME_ALARM))
		return (int64_t)clock_realtime_ns();
	return (int64_t)clock_monotonic_ns();
}

// Linux's ktime_add_safe: saturates at KTIME_SEC_MAX seconds.
static inline int64_t ktime_add_safe(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r) || r < 0)
		return KTIME_SEC_MAX * KT_NSEC;
	return r;
}

// hrtimer_forward: moves *exp past 'now' by whole intervals and returns
// how many that took (0 if not yet due).
static inline uint64_t ktime_forward(int64_t *exp, int64_t interval, int64_t now)
{
	uint64_t n = 1;

	if (now < *exp)
		return 0;
	if (now - *exp >= interval) {
		n = (uint64_t)((now - *exp) / interval);
		*exp = ktime_add_safe(*exp, (int64_t)n * interval);
		if (*exp > now)
			return n;
		n++;
	}
	*exp = ktime_add_safe(*exp, interval);
	return n;
}

static inline bool timespec64_valid(const struct timespec64 *ts)
{
	return ts->sec >= 0 && ts->nsec >= 0 && ts->nsec < KT_NSEC;
}

// Linux's timespec64_to_ktime: saturated at KTIME_MAX.
static inline int64_t timespec64_ns(const struct timespec64 *ts)
{
	if (ts->sec >= KTIME_SEC_MAX)
		return KTIME_MAX;
	return ts->sec * KT_NSEC + ts->nsec;
}

static inline struct timespec64 ns_timespec64(int64_t ns)
{
	return (struct timespec64){ ns / KT_NSEC, ns % KT_NSEC };
}

#endif
