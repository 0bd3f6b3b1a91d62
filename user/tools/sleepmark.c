// sleepmark: marks the start and the end of a sleep on standard output,
// so that a host watching the console can time the sleep with its own
// clock (scripts/test_clock_load.sh).
//
//   sleepmark [SECONDS [ROUNDS]]    default: one sleep of 2 s
//
// Each round prints "SLEEPMARK start N", sleeps with nanosleep, then prints
// "SLEEPMARK end N guest_ms=M" (M: the sleep by CLOCK_MONOTONIC, which
// says nothing about the clock's rate: only the host can).  Each line is
// one write, so it reaches the console at once.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void say(const char *line)
{
	size_t len = strlen(line);

	if (write(1, line, len) != (ssize_t)len)
		exit(1);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 2;
	int rounds = argc > 2 ? atoi(argv[2]) : 1;
	char line[96];

	if (seconds < 1 || rounds < 1) {
		fprintf(stderr, "usage: sleepmark [SECONDS [ROUNDS]]\n");
		return 2;
	}
	for (int n = 1; n <= rounds; n++) {
		struct timespec ts = { seconds, 0 };
		snprintf(line, sizeof(line), "SLEEPMARK start %d\n", n);
		say(line);
		long long t0 = now_ns();
		while (nanosleep(&ts, &ts) != 0)
			if (errno != EINTR)
				return 1;
		long long ms = (now_ns() - t0) / 1000000;
		snprintf(line, sizeof(line), "SLEEPMARK end %d guest_ms=%lld\n", n, ms);
		say(line);
	}
	return 0;
}
