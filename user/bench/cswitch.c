// cswitch: Linux's own powerpc context-switch microbenchmark, run
// unmodified beside ours.
//
// tools/testing/selftests/powerpc/benchmarks/context_switch.c (Anton
// Blanchard's, the first seed's tool), built from Debian's
// linux-source-6.1 by scripts/build-powerpc-selftests, is run as
//   context_switch --test=T [--process] --timeout=S CPU1 CPU2
// for T in yield, pipe and futex, threads and processes, both sides on
// CPU 0, and pipe and futex across CPUs 0 and 1 when there are two.
// Each second it prints the switches of that second (its "iterations",
// two per round trip).  The first second holds the start-up and is
// dropped; the RESULT is the median of the others:
//
//   RESULT cswitch kernel=.. policy=.. test=pipe mode=thread cpus=0,0
//          touch=fp,altivec,vector switches_per_sec=X min=.. max=.. seconds=N
//
// touch= is what its header line says it touched between switches: it
// reads AT_HWCAP from /proc/self/auxv, and without /proc it touches FP
// alone.  So /proc is mounted first where it is missing (the Linux
// guest's init, ours, mounts nothing).
//
// usage: cswitch [-P PROGRAM] [-s SECONDS] [-n NCPU]
//   -P  default /linux-selftests/powerpc/context_switch
//   -s  seconds measured per run, after the first (default 2)
//   -n  CPUs to use (default: those online)
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

#define MAX_SECONDS 64

static char kernel[32], policy[64];

struct run {
	long per_sec[MAX_SECONDS];
	int nsec;
	char touch[64];
};

// "... touching FP:yes altivec:yes vector:no vdso:no" into "fp,altivec".
static void parse_touch(const char *line, char *out, size_t len)
{
	static const struct { const char *key, *name; } kinds[] = {
		{ "FP:yes", "fp" }, { "altivec:yes", "altivec" },
		{ "vector:yes", "vector" }, { "vdso:yes", "vdso" },
	};
	size_t n = 0;

	out[0] = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strstr(line, kinds[i].key) && n < len)
			n += (size_t)snprintf(out + n, len - n, "%s%s", n ? "," : "",
					      kinds[i].name);
	if (!out[0])
		snprintf(out, len, "none");
}

// One line of its output: the header, or a second's count.
static void parse_line(const char *line, struct run *r)
{
	char *end;
	long v = strtol(line, &end, 10);

	if (strstr(line, "touching"))
		parse_touch(line, r->touch, sizeof(r->touch));
	else if (end != line && *end == 0 && v >= 0 && r->nsec < MAX_SECONDS)
		r->per_sec[r->nsec++] = v;
}

static void parse_one(const char *line, void *r)
{
	parse_line(line, r);
}

static int run_program(char *const argv[], struct run *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->touch, sizeof(r->touch), "unknown");
	return run_reading_lines(argv, "context_switch", parse_one, r);
}

static int compare_longs(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

static void one(const char *prog, const char *test, int processes, int cpu1, int cpu2,
		int seconds)
{
	char t[32], s[16], c1[8], c2[8];
	char *argv[] = { (char *)prog, t, s, c1, c2, NULL, NULL };
	struct run r;
	int status;

	snprintf(t, sizeof(t), "--test=%s", test);
	snprintf(s, sizeof(s), "--timeout=%d", seconds + 1);
	snprintf(c1, sizeof(c1), "%d", cpu1);
	snprintf(c2, sizeof(c2), "%d", cpu2);
	if (processes)
		argv[5] = "--process";
	status = run_program(argv, &r);
	printf("RESULT cswitch kernel=%s policy=%s test=%s mode=%s cpus=%d,%d touch=%s ", kernel,
	       policy, test, processes ? "process" : "thread", cpu1, cpu2, r.touch);
	// It ends itself by SIGUSR1 to its process group, caught: exit 0.
	if (status != 0 || r.nsec < 2) {
		printf("unsupported=%s\n", status != 0 ? "exit" : "no-figure");
		fflush(stdout);
		return;
	}
	long *v = r.per_sec + 1;
	int n = r.nsec - 1;
	qsort(v, (size_t)n, sizeof(*v), compare_longs);
	printf("switches_per_sec=%ld min=%ld max=%ld seconds=%d\n", n % 2 ? v[n / 2] :
	       (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1], n);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const char *const tests[] = { "yield", "pipe", "futex" };
	const char *prog = "/linux-selftests/powerpc/context_switch";
	int seconds = 2, ncpu = 0, opt;

	while ((opt = getopt(argc, argv, "P:s:n:h")) != -1) {
		switch (opt) {
		case 'P': prog = optarg; break;
		case 's': seconds = atoi(optarg); break;
		case 'n': ncpu = atoi(optarg); break;
		default:
			fprintf(opt == 'h' ? stdout : stderr,
				"usage: cswitch [-P PROGRAM] [-s SECONDS] [-n NCPU]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (seconds < 1)
		seconds = 1;
	if (seconds > MAX_SECONDS - 2)
		seconds = MAX_SECONDS - 2;
	if (ncpu <= 0)
		ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (access(prog, X_OK) != 0) {
		printf("SKIP cswitch: no %s (built on ppc64le from linux-source-6.1)\n", prog);
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	mount_proc();
	kernel_and_policy(kernel, sizeof(kernel), policy, sizeof(policy));
	for (int mode = 0; mode < 2; mode++)
		for (size_t t = 0; t < sizeof(tests) / sizeof(tests[0]); t++) {
			one(prog, tests[t], mode, 0, 0, seconds);
			if (ncpu > 1 && strcmp(tests[t], "yield") != 0)
				one(prog, tests[t], mode, 0, 1, seconds);
		}
	return 0;
}
