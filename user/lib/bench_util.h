// Helpers shared by Switchyard's benchmarks (ctxsw, pipebench): a clock in
// seconds, pinning a side to its CPU, and the "-c CPU0,CPU1" option.
// Header-only, like ktap.h, so each benchmark stays a single C file.
#ifndef USER_BENCH_UTIL_H
#define USER_BENCH_UTIL_H

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sysutil.h"

// CLOCK_MONOTONIC in seconds, for timing a whole run.
static inline double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// Pin the calling thread to 'cpu'.  On failure say so on stderr, as
// 'program', and return -1; the caller decides whether the run is lost.
static inline int pin_or_complain(const char *program, int cpu)
{
	if (pin_self(cpu) == 0)
		return 0;
	fprintf(stderr, "%s: cannot pin to CPU %d: %s\n", program, cpu, strerror(errno));
	return -1;
}

// Parse "CPU0,CPU1" into cpu[0] and cpu[1]; returns 0 when it is not two
// CPU numbers that a cpu_set_t can hold.
static inline int parse_cpu_pair(const char *arg, int cpu[2])
{
	return sscanf(arg, "%d,%d", &cpu[0], &cpu[1]) == 2 && cpu[0] >= 0 && cpu[1] >= 0 &&
	       cpu[0] < CPU_SETSIZE && cpu[1] < CPU_SETSIZE;
}

#endif
