// Helpers shared by Switchyard's benchmarks (ctxsw, pipebench, perfbench,
// cswitch): a clock in seconds, pinning a side to its CPU, the "-c
// CPU0,CPU1" option, and running another tool to read what it prints.
// Header-only, like ktap.h, so each benchmark stays a single C file.
#ifndef USER_BENCH_UTIL_H
#define USER_BENCH_UTIL_H

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
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

// Runs argv[0] with argv, its stdout and stderr through a pipe: each line
// is echoed as "# WHO: line" (a comment in the RESULT stream) and handed
// to each(line, arg).  Returns the wait status, or -1 if it did not start.
static inline int run_reading_lines(char *const argv[], const char *who,
				    void (*each)(const char *line, void *arg), void *arg)
{
	int fds[2], status;
	char *line = NULL;
	size_t cap = 0;
	FILE *in;
	pid_t pid;

	if (pipe(fds) != 0 || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execv(argv[0], argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", who, argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	while (in && getline(&line, &cap, in) > 0) {
		line[strcspn(line, "\n")] = 0;
		printf("# %s: %s\n", who, line);
		each(line, arg);
	}
	free(line);
	if (in)
		fclose(in);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

#endif
