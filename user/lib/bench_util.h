// Helpers shared by Switchyard's benchmarks (ctxsw, pipebench): a clock in
// seconds, pinning a side to its CPU, and the "-c CPU0,CPU1" option.
// Header-only, like ktap.h, so each benchmark stays a single C file.
#ifndef USER_BENCH_UTIL_H
#define USER_BENCH_UTIL_H

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

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

// Which kernel runs, and under which extended-state policy: "switchyard"
// and its policy line (/proc/switchyard/facilities, e.g. "deferred:256"),
// else the kernel's own name (Linux: "linux", whose x86 policy is eager).
// Printed in every RESULT line so runs under different policies and
// kernels can be told apart.
static inline void kernel_and_policy(char *kernel, size_t ksize, char *policy, size_t psize)
{
	char line[64] = "";
	FILE *f = fopen("/proc/switchyard/facilities", "r");

	if (f && fgets(line, sizeof(line), f) && strncmp(line, "policy ", 7) == 0) {
		char *name = line + 7;
		name[strcspn(name, " \n")] = 0;	// the name is padded
		snprintf(kernel, ksize, "switchyard");
		snprintf(policy, psize, "%.*s", (int)psize - 1, name);
	} else {
		snprintf(kernel, ksize, "linux");
		snprintf(policy, psize, "linux");
	}
	if (f)
		fclose(f);
}

// /proc where it is missing: the Linux guest's init (ours) mounts
// nothing, and Linux's own programs read /proc/self/auxv, mbbench
// /proc/interrupts.  Switchyard's /proc is always there.  Best effort:
// a program that cannot mount it runs without it, as before.
static inline void mount_proc(void)
{
	if (access("/proc/self/auxv", R_OK) != 0)
		mount("proc", "/proc", "proc", 0, NULL);
}

#endif
