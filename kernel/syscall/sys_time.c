// Clocks and sleeping.

#include <kernel/syscall.h>
#include <kernel/time.h>
#include <kernel/wait.h>
#include <kernel/uaccess.h>
#include <kernel/thread.h>
#include <kernel/arch.h>
#include <kernel/cputime.h>
#include <uapi/errno.h>

#define CLOCK_REALTIME		0
#define CLOCK_MONOTONIC		1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID	3
#define CLOCK_MONOTONIC_RAW	4
#define CLOCK_REALTIME_COARSE	5
#define CLOCK_MONOTONIC_COARSE	6
#define CLOCK_BOOTTIME		7
#define TIMER_ABSTIME		1

#define NSEC 1000000000ULL

struct timespec64 {
	int64_t sec;
	int64_t nsec;
};

static uint64_t boot_epoch_ns;

uint64_t clock_realtime_ns(void)
{
	if (!boot_epoch_ns)
		boot_epoch_ns = arch_rtc_seconds() * NSEC - clock_monotonic_ns();
	return boot_epoch_ns + clock_monotonic_ns();
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
		return (int64_t)clock_realtime_ns();
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
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
		int32_t tz[2] = { 0, 0 };
		if (copy_to_user(args->a[1], tz, sizeof(tz)) < 0)
			return -EFAULT;
	}
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
	} while (r == 0 && clock_monotonic_ns() < deadline);
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
	int r = get_timespec_ns(args->a[2], &ns);
	if (r < 0)
		return r;
	uint64_t deadline;
	if (flags & TIMER_ABSTIME) {
		int64_t now = clock_read(id);
		uint64_t mono = clock_monotonic_ns();
		deadline = ns > (uint64_t)now ? mono + (ns - (uint64_t)now) : mono;
		return sleep_until(deadline, 0);
	}
	return sleep_until(clock_monotonic_ns() + ns + 1, args->a[3]);
}
