// Clocks and sleeping.

#include <kernel/ktimer.h>
#include <kernel/syscall.h>
#include <kernel/time.h>
#include <kernel/wait.h>
#include <kernel/uaccess.h>
#include <kernel/thread.h>
#include <kernel/arch.h>
#include <kernel/cputime.h>
#include <kernel/cred.h>
#include <kernel/ktime.h>
#include <kernel/spinlock.h>
#include <fs/timerfd.h>
#include <uapi/errno.h>

#define CLOCK_REALTIME		0
#define CLOCK_MONOTONIC		1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID	3
#define CLOCK_MONOTONIC_RAW	4
#define CLOCK_REALTIME_COARSE	5
#define CLOCK_MONOTONIC_COARSE	6
#define CLOCK_BOOTTIME		7
#define CLOCK_REALTIME_ALARM	8	// as REALTIME and BOOTTIME (nothing suspends,
#define CLOCK_BOOTTIME_ALARM	9	// so no alarm ever has to wake the machine)
#define TIMER_ABSTIME		1

#define NSEC 1000000000ULL

// CLOCK_REALTIME is the monotonic clock plus an offset: read from the
// RTC at first use, moved by clock_settime and settimeofday (and by the
// historical first settimeofday with a time zone).  Never below the
// monotonic clock (Linux refuses a time before boot).
#define OFFSET_UNSET	INT64_MIN
static int64_t realtime_offset = OFFSET_UNSET;	// ns
static bool tz_seen;			// a settimeofday has carried a time zone
static struct { int32_t minuteswest, dsttime; } sys_tz;
static struct spinlock tz_lock = SPINLOCK_INIT("timezone");

int64_t clock_realtime_offset(void)
{
	int64_t off = __atomic_load_n(&realtime_offset, __ATOMIC_ACQUIRE);

	if (off == OFFSET_UNSET) {
		int64_t rtc = (int64_t)(arch_rtc_seconds() * NSEC) - (int64_t)clock_monotonic_ns();
		if (rtc < 0)
			rtc = 0;
		__atomic_compare_exchange_n(&realtime_offset, &off, rtc, false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
		off = __atomic_load_n(&realtime_offset, __ATOMIC_ACQUIRE);
	}
	return off;
}

uint64_t clock_realtime_ns(void)
{
	return (uint64_t)clock_realtime_offset() + clock_monotonic_ns();
}

// The clock was set: what depends on the jump hears of it.  Kernel
// timers on absolute realtime deadlines (sleepers, POSIX timers,
// timerfds) take their new place in their CPU's queue.
static void clock_was_set(void)
{
	ktimer_clock_was_set();
	timerfd_clock_was_set();
}

// Linux's timespec64_valid_settod: a time, below KTIME_SEC_MAX less 30
// years of uptime.
#define TIME_SETTOD_SEC_MAX	(KTIME_SEC_MAX - 30LL * 365 * 86400)

// do_settimeofday64: -EINVAL for a time before boot.
static int set_realtime(int64_t sec, int64_t nsec)
{
	int64_t ns = sec * (int64_t)NSEC + nsec;
	int64_t off = ns - (int64_t)clock_monotonic_ns();

	if (off < 0)
		return -EINVAL;
	__atomic_store_n(&realtime_offset, off, __ATOMIC_RELEASE);
	clock_was_set();
	return 0;
}

// adjtimex's ADJ_SETOFFSET: the clock moved by delta (Linux's
// timekeeping_inject_offset: -EINVAL if that leaves the settable range
// or goes before boot).
int clock_realtime_inject(int64_t delta_ns)
{
	int64_t now = (int64_t)clock_realtime_ns(), to;

	if (__builtin_add_overflow(now, delta_ns, &to) || to < 0 ||
	    to / (int64_t)NSEC >= TIME_SETTOD_SEC_MAX)
		return -EINVAL;
	return set_realtime(to / (int64_t)NSEC, to % (int64_t)NSEC);
}

static bool settod_valid(int64_t sec, int64_t nsec)
{
	return sec >= 0 && nsec >= 0 && nsec < (int64_t)NSEC && sec < TIME_SETTOD_SEC_MAX;
}

// Reads clock 'id' in ns; -EINVAL for unknown clocks.  The monotonic
// clock is never slewed, so it is also the raw one, and nothing suspends,
// so it is also boot time.  The CPU-time clocks (of the process, the
// thread, or another one's) are kernel/proc/cpu_clocks.c's.
static int64_t clock_read(int id)
{
	uint64_t ns;

	if (cpu_clock_id(id)) {
		int rc = cpu_clock_read(id, &ns);
		return rc < 0 ? rc : (int64_t)(ns & INT64_MAX);
	}
	switch (id) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_REALTIME_ALARM:
		return (int64_t)clock_realtime_ns();
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
	case CLOCK_BOOTTIME_ALARM:
		return (int64_t)clock_monotonic_ns();
	default:
		return -EINVAL;
	}
}

static int put_timespec(uint64_t uaddr, uint64_t ns)
{
	struct timespec64 ts = { (int64_t)(ns / NSEC), (int64_t)(ns % NSEC) };
	return copy_to_user(uaddr, &ts, sizeof(ts));
}

// A user timespec as ns; -EINVAL if malformed.
int get_timespec_ns(uint64_t uaddr, uint64_t *ns)
{
	struct timespec64 ts;

	if (copy_from_user(&ts, uaddr, sizeof(ts)) < 0)
		return -EFAULT;
	if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= (int64_t)NSEC)
		return -EINVAL;
	if ((uint64_t)ts.sec > UINT64_MAX / NSEC - 1)
		*ns = UINT64_MAX / 2;
	else
		*ns = (uint64_t)ts.sec * NSEC + (uint64_t)ts.nsec;
	return 0;
}

SYSCALL_DEFINE(SYS_clock_gettime, clock_gettime)
{
	int64_t ns = clock_read((int)args->a[0]);

	if (ns < 0)
		return ns;
	return put_timespec(args->a[1], (uint64_t)ns) < 0 ? -EFAULT : 0;
}

SYSCALL_DEFINE(SYS_clock_getres, clock_getres)
{
	int id = (int)args->a[0];
	uint64_t res = 1;

	if (cpu_clock_id(id) ? cpu_clock_res(id, &res) < 0 : clock_read(id) < 0)
		return -EINVAL;
	if (args->a[1] && put_timespec(args->a[1], res) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE(SYS_gettimeofday, gettimeofday)
{
	uint64_t ns = clock_realtime_ns();
	int64_t tv[2] = { (int64_t)(ns / NSEC), (int64_t)(ns % NSEC / 1000) };

	if (args->a[0] && copy_to_user(args->a[0], tv, sizeof(tv)) < 0)
		return -EFAULT;
	if (args->a[1]) {
		uint64_t flags = spin_lock_irqsave(&tz_lock);
		int32_t tz[2] = { sys_tz.minuteswest, sys_tz.dsttime };
		spin_unlock_irqrestore(&tz_lock, flags);
		if (copy_to_user(args->a[1], tz, sizeof(tz)) < 0)
			return -EFAULT;
	}
	return 0;
}

// clock_settime: only CLOCK_REALTIME can be set, with CAP_SYS_TIME; the
// others are EINVAL (after the time is read, for a CPU-time clock).
SYSCALL_DEFINE(SYS_clock_settime, clock_settime)
{
	int id = (int)args->a[0];
	struct timespec64 ts;

	if (id != CLOCK_REALTIME && !cpu_clock_id(id))
		return -EINVAL;
	if (copy_from_user(&ts, args->a[1], sizeof(ts)) < 0)
		return -EFAULT;
	// A CPU-time clock is never set: EINVAL, as Debian's 6.1 (and later
	// Linux) answers, whatever the ID.
	if (cpu_clock_id(id))
		return -EINVAL;
	if (!settod_valid(ts.sec, ts.nsec))
		return -EINVAL;
	if (!cred_capable(current_cred(), CAP_SYS_TIME))
		return -EPERM;
	return set_realtime(ts.sec, ts.nsec);
}

// settimeofday(tv, tz), in Linux's order: the user values (EINVAL for
// microseconds out of range, EFAULT), the time's range, CAP_SYS_TIME
// (also for a time zone alone), the zone's range.  The first call with a
// zone and no time shifts the clock by it (Linux's "persistent clock in
// local time" warp); the zone is what gettimeofday reports.
SYSCALL_DEFINE(SYS_settimeofday, settimeofday)
{
	int64_t tv[2];
	int32_t tz[2];

	if (args->a[0]) {
		if (copy_from_user(tv, args->a[0], sizeof(tv)) < 0)
			return -EFAULT;
		if (tv[1] > 1000000 || tv[1] < 0)
			return -EINVAL;
		tv[1] *= 1000;
	}
	if (args->a[1] && copy_from_user(tz, args->a[1], sizeof(tz)) < 0)
		return -EFAULT;
	if (args->a[0] && !settod_valid(tv[0], tv[1]))
		return -EINVAL;
	if (!cred_capable(current_cred(), CAP_SYS_TIME))
		return -EPERM;
	if (args->a[1]) {
		if (tz[0] > 15 * 60 || tz[0] < -15 * 60)
			return -EINVAL;
		uint64_t flags = spin_lock_irqsave(&tz_lock);
		bool first = !tz_seen;
		tz_seen = true;
		sys_tz.minuteswest = tz[0];
		sys_tz.dsttime = tz[1];
		spin_unlock_irqrestore(&tz_lock, flags);
		if (first && !args->a[0] && tz[0] != 0) {
			uint64_t now = clock_realtime_ns() + (uint64_t)((int64_t)tz[0] * 60) * NSEC;
			int rc = set_realtime((int64_t)(now / NSEC), (int64_t)(now % NSEC));
			if (rc < 0)
				return rc;
		}
	}
	if (args->a[0])
		return set_realtime(tv[0], tv[1]);
	return 0;
}

SYSCALL_DEFINE(SYS_time, time)
{
	int64_t t = (int64_t)(clock_realtime_ns() / NSEC);

	if (args->a[0] && copy_to_user(args->a[0], &t, sizeof(t)) < 0)
		return -EFAULT;
	return t;
}

// Sleeps until the monotonic deadline; on a signal stores what was left.
static long sleep_until(uint64_t deadline, uint64_t urem)
{
	int r;

	do {
		r = wq_wait(0, 0, deadline, true);
	} while (r == 0 && !deadline_passed(deadline));
	if (r == -EINTR) {
		uint64_t now = clock_monotonic_ns();
		if (urem && put_timespec(urem, deadline > now ? deadline - now : 0) < 0)
			return -EFAULT;
		return -EINTR;
	}
	return 0;
}

SYSCALL_DEFINE(SYS_nanosleep, nanosleep)
{
	uint64_t ns;
	int r = get_timespec_ns(args->a[0], &ns);

	if (r < 0)
		return r;
	return sleep_until(clock_monotonic_ns() + ns + 1, args->a[1]);
}

SYSCALL_DEFINE(SYS_clock_nanosleep, clock_nanosleep)
{
	int id = (int)args->a[0];
	int flags = (int)args->a[1];
	uint64_t ns;

	if (cpu_clock_id(id))
		return cpu_clock_nanosleep(id, flags, args->a[2], args->a[3]);
	if (clock_read(id) < 0)
		return -EINVAL;
	// Linux has no sleep on these clocks either.
	if (id == CLOCK_MONOTONIC_RAW || id == CLOCK_REALTIME_COARSE || id == CLOCK_MONOTONIC_COARSE)
		return -EOPNOTSUPP;
	// The alarm clocks' sleeps (Linux's alarm_timer_nsleep) check their
	// flags and need CAP_WAKE_ALARM, then sleep as their plain clocks.
	if (id == CLOCK_REALTIME_ALARM || id == CLOCK_BOOTTIME_ALARM) {
		if (flags & ~TIMER_ABSTIME)
			return -EINVAL;
		if (!cred_capable(current_cred(), CAP_WAKE_ALARM))
			return -EPERM;
		id = id == CLOCK_REALTIME_ALARM ? CLOCK_REALTIME : CLOCK_BOOTTIME;
	}
	int r = get_timespec_ns(args->a[2], &ns);
	if (r < 0)
		return r;
	if (flags & TIMER_ABSTIME) {
		// A realtime sleep follows the clock if it is set meanwhile.
		if (id == CLOCK_REALTIME)
			return sleep_until(ns | DEADLINE_REALTIME, 0);
		return sleep_until(ns ? ns : 1, 0);
	}
	return sleep_until(clock_monotonic_ns() + ns + 1, args->a[3]);
}
