// timerbench: how long a timed wait really lasts, against what was asked.
// Each call sleeps for the requested time (10 µs, 50 µs, 1 ms; the calls
// that take milliseconds only 1 ms) N times; the actual duration is taken
// on CLOCK_MONOTONIC around the call.  A timerfd armed with a period is
// read N times: the actual figure is the time between two reads' returns.
//
// Output: one line per call and request,
//   RESULT timer kernel=.. policy=.. call=nanosleep req_us=10 samples=N
//          min_us=X median_us=X p90_us=X max_us=X ratio=X
// (min below the request would be a timer firing early), ratio is
// median/requested: 1.0 is exact, a tick-driven kernel at hz=100
// shows about 10000 / req_us.  The timerfd line adds expirations (the
// periods the reads counted) and mean_period_us (elapsed / expirations).
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"
#include "bench_util.h"

// musl has no <linux/futex.h>: the two operations used, private.
#define FUTEX_WAIT_PRIVATE 128

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

// One timed wait of 'ns'; returns 0, or -1 with errno set when the call
// itself failed (not merely timed out).
typedef int (*wait_fn)(long ns);

static int idle_pipe[2] = { -1, -1 };	// never written: poll on it times out
static int epoll_fd = -1;

static struct timespec to_timespec(long long ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };

	return ts;
}

static int wait_nanosleep(long ns)
{
	struct timespec ts = to_timespec(ns);

	return nanosleep(&ts, NULL);
}

static int wait_abs(long ns)
{
	struct timespec ts = to_timespec(now_ns(CLOCK_MONOTONIC) + ns);
	int err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);

	errno = err;
	return err ? -1 : 0;
}

static int wait_futex(long ns)
{
	static uint32_t word;
	struct timespec ts = to_timespec(ns);

	if (syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0) == 0)
		return 0;
	return errno == ETIMEDOUT ? 0 : -1;
}

static int wait_poll(long ns)
{
	struct pollfd p = { idle_pipe[0], POLLIN, 0 };

	return poll(&p, 1, (int)(ns / 1000000)) < 0 ? -1 : 0;
}

static int wait_ppoll(long ns)
{
	struct pollfd p = { idle_pipe[0], POLLIN, 0 };
	struct timespec ts = to_timespec(ns);

	return ppoll(&p, 1, &ts, NULL) < 0 ? -1 : 0;
}

static int wait_epoll(long ns)
{
	struct epoll_event ev;

	return epoll_wait(epoll_fd, &ev, 1, (int)(ns / 1000000)) < 0 ? -1 : 0;
}

static int wait_epoll2(long ns)
{
	struct epoll_event ev;
	struct timespec ts = to_timespec(ns);

	return syscall(SYS_epoll_pwait2, epoll_fd, &ev, 1, &ts, NULL, 8) < 0 ? -1 : 0;
}

static const struct call {
	const char *name;
	wait_fn wait;
	long min_ns;	// the call's granularity: shorter requests are skipped
} calls[] = {
	{ "nanosleep", wait_nanosleep, 0 },
	{ "clock_nanosleep_abs", wait_abs, 0 },
	{ "futex_wait", wait_futex, 0 },
	{ "poll", wait_poll, 1000000 },
	{ "epoll_wait", wait_epoll, 1000000 },
	{ "ppoll", wait_ppoll, 0 },
	{ "epoll_pwait2", wait_epoll2, 0 },
	{ "timerfd", NULL, 0 },
};

static const long requests_ns[] = { 10000, 50000, 1000000 };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int samples = 30;
static const char *only;	// -c LIST: these calls only
static char kernel[32], policy[48];

static void print_result(const char *call, long req_ns, double *v, int n, const char *extra)
{
	struct stats s = summarise(v, n);

	printf("RESULT timer kernel=%s policy=%s call=%s req_us=%ld samples=%d min_us=%.1f "
	       "median_us=%.1f p90_us=%.1f max_us=%.1f ratio=%.2f%s\n", kernel, policy, call,
	       req_ns / 1000, n, s.min / 1e3, s.median / 1e3, s.p90 / 1e3, s.max / 1e3, s.median / (double)req_ns, extra);
	fflush(stdout);
}

static void print_failure(const char *call, long req_ns, int err)
{
	printf("RESULT timer kernel=%s policy=%s call=%s req_us=%ld unsupported=%s\n", kernel,
	       policy, call, req_ns / 1000, errno_name(err));
	fflush(stdout);
}

// N waits of one call; returns 0, or the errno of a failed call.
static int time_call(const struct call *c, long req_ns, double *v)
{
	for (int i = 0; i < samples; i++) {
		long long start = now_ns(CLOCK_MONOTONIC);
		if (c->wait(req_ns) != 0)
			return errno;
		v[i] = (double)(now_ns(CLOCK_MONOTONIC) - start);
	}
	return 0;
}

// A periodic timerfd read N times: the time between returns, and how many
// periods the reads counted in all.
static int time_timerfd(long req_ns, double *v)
{
	struct itimerspec its = { to_timespec(req_ns), to_timespec(req_ns) };
	unsigned long long expirations = 0, n;
	long long start, last;
	char extra[96];
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);

	if (fd < 0)
		return errno;
	start = last = now_ns(CLOCK_MONOTONIC);
	if (timerfd_settime(fd, 0, &its, NULL) != 0) {
		int err = errno;
		close(fd);
		return err;
	}
	for (int i = 0; i < samples; i++) {
		if (read(fd, &n, sizeof(n)) != (ssize_t)sizeof(n)) {
			int err = errno;
			close(fd);
			return err;
		}
		long long t = now_ns(CLOCK_MONOTONIC);
		v[i] = (double)(t - last);
		last = t;
		expirations += n;
	}
	close(fd);
	snprintf(extra, sizeof(extra), " expirations=%llu mean_period_us=%.1f", expirations,
		 (double)(last - start) / 1e3 / (double)expirations);
	print_result("timerfd", req_ns, v, samples, extra);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: timerbench [-n SAMPLES] [-c CALLS] [-h]\n"
		"  -n  waits per call and request; default 30\n"
		"  -c  comma-separated calls: nanosleep,clock_nanosleep_abs,futex_wait,poll,\n"
		"      epoll_wait,ppoll,epoll_pwait2,timerfd; default all\n"
		"Prints per call and request (10 us, 50 us, 1 ms): RESULT timer kernel=.. policy=..\n"
		"  call=.. req_us=.. samples=.. min_us=.. median_us=.. p90_us=.. max_us=.. ratio=..\n");
}

static int parse_options(int argc, char **argv)
{
	int ch;
	char *end;

	while ((ch = getopt(argc, argv, "n:c:h")) != -1) {
		switch (ch) {
		case 'n':
			samples = (int)strtol(optarg, &end, 10);
			if (*end || samples <= 0 || samples > 100000)
				return 0;
			break;
		case 'c':
			only = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return 0;
		}
	}
	return optind == argc;
}

static int set_up_waits(void)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (pipe(idle_pipe) != 0 || (epoll_fd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
		perror("timerbench: pipe/epoll_create1");
		return -1;
	}
	if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, idle_pipe[0], &ev) != 0) {
		perror("timerbench: epoll_ctl");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	double *v;

	if (!parse_options(argc, argv)) {
		usage(stderr);
		return 2;
	}
	if (set_up_waits() != 0 || !(v = calloc((size_t)samples, sizeof(*v))))
		return 1;
	kernel_and_policy(kernel, sizeof(kernel), policy, sizeof(policy));
	for (size_t c = 0; c < NELEM(calls); c++) {
		if (!listed(only, calls[c].name))
			continue;
		for (size_t r = 0; r < NELEM(requests_ns); r++) {
			long req = requests_ns[r];
			int err;
			if (req < calls[c].min_ns)
				continue;
			if (calls[c].wait == NULL) {
				err = time_timerfd(req, v);
			} else {
				err = time_call(&calls[c], req, v);
				if (err == 0)
					print_result(calls[c].name, req, v, samples, "");
			}
			if (err)
				print_failure(calls[c].name, req, err);
		}
	}
	free(v);
	return 0;
}
