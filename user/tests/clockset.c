// Setting the clock: clock_settime and settimeofday (as root).
// CLOCK_REALTIME jumps and CLOCK_MONOTONIC does not; what waits for an
// absolute realtime time follows the jump (clock_nanosleep TIMER_ABSTIME,
// futex FUTEX_CLOCK_REALTIME, an absolute timerfd) and a timerfd with
// TFD_TIMER_CANCEL_ON_SET is cancelled (ECANCELED); the time zone
// settimeofday stores is what gettimeofday reports; Linux's errnos
// (EINVAL for the clock, the time and the zone, EFAULT, EPERM without
// CAP_SYS_TIME, a CPU clock never set).  Every case puts the clock back.
//
// On Linux the cases that move the clock run only with --set-clock (they
// would move the host's clock under everything else running there).
#define _GNU_SOURCE
#include <errno.h>
#define FUTEX_WAIT_BITSET	9
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX_BITSET_MATCH_ANY	0xffffffff
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"

static int may_set;		// --set-clock, or on Switchyard
static int on_switchyard;

static int64_t ns_of(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t saved_offset;	// realtime less monotonic before a case

static void save_clock(void)
{
	saved_offset = ns_of(CLOCK_REALTIME) - ns_of(CLOCK_MONOTONIC);
}

static int set_realtime_ns(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	return clock_settime(CLOCK_REALTIME, &ts);
}

static void restore_clock(void)
{
	set_realtime_ns(ns_of(CLOCK_MONOTONIC) + saved_offset);
}

// The raw calls: musl's settimeofday ignores the zone (and makes no call
// without a time), its gettimeofday never fills one.
static long settod(const struct timeval *tv, const struct timezone *tz)
{
	return syscall(SYS_settimeofday, tv, tz);
}

static long gettod(struct timeval *tv, struct timezone *tz)
{
	return syscall(SYS_gettimeofday, tv, tz);
}

static int can_set(void)
{
	if (!may_set) {
		skip("moves the clock: on Linux only with --set-clock");
		return 0;
	}
	return 1;
}

static void t_jump(void)
{
	if (!can_set())
		return;
	save_clock();
	int64_t mono = ns_of(CLOCK_MONOTONIC), real = ns_of(CLOCK_REALTIME);
	if (!check_ok(set_realtime_ns(real + 1000 * 1000000000LL), "clock_settime +1000 s"))
		return;
	int64_t real2 = ns_of(CLOCK_REALTIME), mono2 = ns_of(CLOCK_MONOTONIC);
	check(real2 - real >= 1000 * 1000000000LL && real2 - real < 1010 * 1000000000LL,
	      "CLOCK_REALTIME moved by 1000 s");
	check(mono2 - mono < 10 * 1000000000LL, "CLOCK_MONOTONIC did not");
	struct timeval tv;
	gettimeofday(&tv, 0);
	check(tv.tv_sec >= real2 / 1000000000 - 1, "gettimeofday agrees");
	time_t t = time(0);
	check(t >= real2 / 1000000000 - 1, "time agrees");
	struct timeval back = { (real + 5 * 1000000000LL) / 1000000000, 0 };
	check_ok(settod(&back, 0), "settimeofday back");
	check(ns_of(CLOCK_REALTIME) < real2, "back again");
	restore_clock();
}

static volatile int woke;
static int64_t wake_at;

static void *abs_sleeper(void *arg)
{
	struct timespec ts = { wake_at / 1000000000, wake_at % 1000000000 };

	(void)arg;
	woke = clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, 0) == 0 ? 1 : -1;
	return 0;
}

static uint32_t futex_word;

static void *futex_sleeper(void *arg)
{
	struct timespec ts = { wake_at / 1000000000, wake_at % 1000000000 };

	(void)arg;
	long r = syscall(SYS_futex, &futex_word, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 0, &ts,
			 0, FUTEX_BITSET_MATCH_ANY);
	woke = r == -1 && errno == ETIMEDOUT ? 1 : -1;
	return 0;
}

// A thread waits for realtime + 100 s; the clock jumps 200 s ahead: the
// wait ends within seconds.
static void jump_ends(void *(*fn)(void *), const char *what)
{
	pthread_t th;

	if (!can_set())
		return;
	save_clock();
	woke = 0;
	wake_at = ns_of(CLOCK_REALTIME) + 100 * 1000000000LL;
	if (pthread_create(&th, 0, fn, 0) != 0) {
		fail("pthread_create");
		return;
	}
	usleep(200000);
	check(woke == 0, "still waiting before the jump");
	set_realtime_ns(ns_of(CLOCK_REALTIME) + 200 * 1000000000LL);
	for (int i = 0; i < 100 && !woke; i++)
		usleep(50000);
	restore_clock();
	check(woke == 1, what);
	if (woke == 0) {
		// Wake it for good so that the program can end.
		set_realtime_ns(wake_at + 1000000000LL);
		for (int i = 0; i < 100 && !woke; i++)
			usleep(50000);
		restore_clock();
	}
	pthread_join(th, 0);
}

static void t_abs_nanosleep(void) { jump_ends(abs_sleeper, "clock_nanosleep TIMER_ABSTIME followed the jump"); }
static void t_abs_futex(void) { jump_ends(futex_sleeper, "FUTEX_CLOCK_REALTIME timed out at the jump"); }

static void t_timerfd(void)
{
	uint64_t ticks;

	if (!can_set())
		return;
	save_clock();
	int plain = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
	int cancel = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
	int rel = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
	int64_t at = ns_of(CLOCK_REALTIME) + 100 * 1000000000LL;
	struct itimerspec abs = { { 0, 0 }, { at / 1000000000, at % 1000000000 } };
	struct itimerspec in100 = { { 0, 0 }, { 100, 0 } };
	if (plain < 0 || cancel < 0 || rel < 0) {
		fail("timerfd_create");
		return;
	}
	check_ok(timerfd_settime(plain, TFD_TIMER_ABSTIME, &abs, 0), "absolute");
	check_ok(timerfd_settime(cancel, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &abs, 0),
		 "absolute, cancel on set");
	check_ok(timerfd_settime(rel, 0, &in100, 0), "relative");
	check_errno(read(cancel, &ticks, 8), EAGAIN, "nothing before the jump");
	set_realtime_ns(ns_of(CLOCK_REALTIME) + 200 * 1000000000LL);
	int got = 0;
	for (int i = 0; i < 100 && !got; i++) {
		usleep(50000);
		got = read(plain, &ticks, 8) == 8;
	}
	check(got && ticks == 1, "the absolute timer expired at the jump");
	check_errno(read(cancel, &ticks, 8), ECANCELED, "the cancel-on-set one: ECANCELED");
	check_errno(read(cancel, &ticks, 8), EAGAIN, "once");
	check_errno(read(rel, &ticks, 8), EAGAIN, "the relative one runs on");
	restore_clock();
	close(plain);
	close(cancel);
	close(rel);
}

static void t_timezone(void)
{
	struct timezone tz = { 0, 0 }, got;
	struct timeval tv;

	if (!can_set())
		return;
	// A zone of 0 first: Linux shifts the clock by the first zone set
	// when no time comes with it.
	check_ok(settod(0, &tz), "zone 0");
	tz.tz_minuteswest = 60;
	tz.tz_dsttime = 1;
	save_clock();
	check_ok(settod(0, &tz), "zone 60 west");
	check(ns_of(CLOCK_REALTIME) - ns_of(CLOCK_MONOTONIC) - saved_offset < 1000000000LL,
	      "not the first: no shift");
	check_ok(gettod(&tv, &got), "gettimeofday");
	check(got.tz_minuteswest == 60 && got.tz_dsttime == 1, "reports the zone");
	tz.tz_minuteswest = 15 * 60 + 1;
	check_errno(settod(0, &tz), EINVAL, "a zone past 15 hours");
	tz.tz_minuteswest = 0;
	tz.tz_dsttime = 0;
	check_ok(settod(0, &tz), "zone back to 0");
	check_ok(settod(0, 0), "nothing to set");
}

static void t_errors(void)
{
	struct timespec ts = { 1000, 0 }, bad = { 100, 1000000000 }, neg = { -1, 0 };
	struct timeval tv = { 1, 1000001 };

	check_errno(clock_settime(CLOCK_MONOTONIC, &ts), EINVAL, "CLOCK_MONOTONIC");
	check_errno(clock_settime(CLOCK_BOOTTIME, &ts), EINVAL, "CLOCK_BOOTTIME");
	check_errno(clock_settime(CLOCK_REALTIME_COARSE, &ts), EINVAL, "CLOCK_REALTIME_COARSE");
	check_errno(clock_settime(99, &ts), EINVAL, "clock 99");
	check_errno(clock_settime(CLOCK_PROCESS_CPUTIME_ID, &ts), EINVAL, "a CPU clock");
	check_errno(syscall(SYS_clock_settime, CLOCK_REALTIME, (void *)8), EFAULT, "bad pointer");
	check_errno(clock_settime(CLOCK_REALTIME, &bad), EINVAL, "nanoseconds out of range");
	check_errno(clock_settime(CLOCK_REALTIME, &neg), EINVAL, "negative seconds");
	check_errno(settod(&tv, 0), EINVAL, "microseconds out of range");
	check_errno(syscall(SYS_settimeofday, (void *)8, 0), EFAULT, "bad timeval");
	check_errno(syscall(SYS_settimeofday, 0, (void *)8), EFAULT, "bad timezone");
	if (may_set) {
		struct timespec early = { 0, 0 };
		save_clock();
		if (!check_errno(clock_settime(CLOCK_REALTIME, &early), EINVAL,
				 "a time before the machine booted"))
			restore_clock();
	}
}

// The alarm clocks read as their plain ones; sleeping on them needs
// CAP_WAKE_ALARM.  (A Linux without a real-time clock device has none:
// EINVAL, and the case is skipped.)
static void t_alarm_clocks(void)
{
	struct timespec ts, res, ten_ms = { 0, 10000000 };

	if (clock_gettime(CLOCK_BOOTTIME_ALARM, &ts) < 0 && errno == EINVAL && !on_switchyard) {
		skip("no RTC: no alarm clocks on this Linux");
		return;
	}
	int64_t boot = ns_of(CLOCK_BOOTTIME), real = ns_of(CLOCK_REALTIME);
	int64_t balarm = ns_of(CLOCK_BOOTTIME_ALARM), ralarm = ns_of(CLOCK_REALTIME_ALARM);
	check(balarm - boot >= 0 && balarm - boot < 1000000000LL, "BOOTTIME_ALARM reads BOOTTIME");
	check(ralarm - real >= 0 && ralarm - real < 1000000000LL, "REALTIME_ALARM reads REALTIME");
	check_ok(clock_getres(CLOCK_BOOTTIME_ALARM, &res), "clock_getres");
	check_errno(clock_settime(CLOCK_BOOTTIME_ALARM, &ts), EINVAL, "not settable");
	check(clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &ten_ms, 0) == 0, "a 10 ms alarm sleep");
	check(clock_nanosleep(CLOCK_REALTIME_ALARM, 2, &ten_ms, 0) == EINVAL, "unknown flags");
}

// adjtimex: the NTP state as read; a step with ADJ_SETOFFSET; Linux's
// checks; on Switchyard, settings that would change the clock's rate
// are EINVAL (no clock discipline).
static void t_adjtimex(void)
{
	struct timex tx = { 0 };

	int r = adjtimex(&tx);
	check(r >= 0, "read");
	if (on_switchyard)
		check(r == TIME_ERROR && (tx.status & STA_UNSYNC), "unsynchronized");
	check(tx.precision == 1 && tx.tolerance == 32768000, "precision and tolerance");
	check(tx.tick == 10000, "tick 10000 us");
	tx.modes = ADJ_TICK;
	tx.tick = 100;
	check_errno(adjtimex(&tx), EINVAL, "a tick off by more than 10%");
	tx.modes = 0x8000;
	check_errno(adjtimex(&tx), EINVAL, "ADJ_ADJTIME without singleshot");
	tx.modes = ADJ_SETOFFSET;
	tx.time.tv_sec = 0;
	tx.time.tv_usec = 1000000;
	check_errno(adjtimex(&tx), EINVAL, "ADJ_SETOFFSET microseconds out of range");
	check_errno(syscall(SYS_adjtimex, (void *)8), EFAULT, "bad pointer");
	check_errno(syscall(SYS_clock_adjtime, CLOCK_MONOTONIC, &tx), EOPNOTSUPP,
		    "clock_adjtime of CLOCK_MONOTONIC");
	check_errno(syscall(SYS_clock_adjtime, 99, &tx), EINVAL, "clock 99");
	memset(&tx, 0, sizeof(tx));
	check(syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx) >= 0, "clock_adjtime of CLOCK_REALTIME");
	if (!may_set)
		return;
	save_clock();
	int64_t before = ns_of(CLOCK_REALTIME);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_SETOFFSET;
	tx.time.tv_sec = 100;
	check(adjtimex(&tx) >= 0, "ADJ_SETOFFSET +100 s");
	int64_t after = ns_of(CLOCK_REALTIME);
	restore_clock();
	check(after - before >= 100000000000LL && after - before < 110000000000LL, "the clock stepped");
	if (on_switchyard) {
		memset(&tx, 0, sizeof(tx));
		tx.modes = ADJ_MAXERROR | ADJ_ESTERROR;
		tx.maxerror = 1234;
		tx.esterror = 56;
		check(adjtimex(&tx) >= 0 && tx.maxerror == 1234 && tx.esterror == 56, "state kept");
		tx.modes = ADJ_FREQUENCY;
		tx.freq = 1 << 16;
		check_errno(adjtimex(&tx), EINVAL, "a frequency (no clock discipline)");
		tx.modes = ADJ_OFFSET_SINGLESHOT;
		tx.offset = 1000;
		check_errno(adjtimex(&tx), EINVAL, "an adjtime slew");
		tx.modes = ADJ_MAXERROR | ADJ_ESTERROR;
		tx.maxerror = tx.esterror = 16000000;
		adjtimex(&tx);
	}
}

static int c_unprivileged(void)
{
	struct timespec ts;
	struct timezone tz = { 0, 0 };

	if (drop_to(U1, G1, 0, 0))
		return 1;
	clock_gettime(CLOCK_REALTIME, &ts);
	int bad = c_err(clock_settime(CLOCK_REALTIME, &ts), EPERM, "clock_settime");
	struct timespec ms = { 0, 1000000 };
	int r = clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &ms, 0);
	if ((r != EINVAL && r != EOPNOTSUPP) || on_switchyard)	// a Linux without RTC
		bad |= c_eq(r, EPERM, "an alarm sleep without CAP_WAKE_ALARM");
	struct timex tx = { .modes = ADJ_MAXERROR };
	bad |= c_err(adjtimex(&tx), EPERM, "adjtimex setting");
	tx.modes = ADJ_OFFSET_SS_READ;
	bad |= adjtimex(&tx) >= 0 ? 0 : cfail("adjtimex reading an adjtime slew");
	bad |= c_err(settod(0, &tz), EPERM, "settimeofday, a zone only");
	bad |= c_err(settod(0, 0), EPERM, "settimeofday, nothing");
	return bad;
}

static void t_unprivileged(void)
{
	in_child(c_unprivileged, "unprivileged");
}

static const struct test_case cases[] = {
	{ "realtime_jumps_monotonic_not", t_jump },
	{ "abs_clock_nanosleep_follows", t_abs_nanosleep },
	{ "abs_futex_follows", t_abs_futex },
	{ "timerfd_abs_and_cancel_on_set", t_timerfd },
	{ "timezone", t_timezone },
	{ "errors", t_errors },
	{ "alarm_clocks", t_alarm_clocks },
	{ "adjtimex", t_adjtimex },
	{ "unprivileged_EPERM", t_unprivileged },
};

int main(int argc, char **argv)
{
	struct utsname u;

	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root\n");
		return 0;
	}
	on_switchyard = uname(&u) == 0 && strstr(u.version, "Switchyard");
	may_set = on_switchyard || (argc > 1 && !strcmp(argv[1], "--set-clock"));
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
