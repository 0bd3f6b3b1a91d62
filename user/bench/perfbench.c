// perfbench: Linux's own scheduler benchmarks, run unmodified beside ours.
//
// Runs Debian's perf (linux-perf: a dynamically linked program the runner
// packs with its interpreter and libraries, scripts/dyn-deps) as
//   perf bench sched pipe -l L [-T]
//   perf bench sched messaging -p -g G -l M [-t]   (pipes)
//   perf bench sched messaging -g G -l M           (sockets)
// passes its output through (as "# perf: ..." lines, so the log shows
// what perf said) and reads its figures into RESULT lines:
//
//   RESULT perf_pipe kernel=.. policy=.. mode=process loops=L
//          usecs_per_op=X ops_per_sec=Y
//   RESULT perf_messaging kernel=.. policy=.. ipc=pipe mode=thread groups=G
//          loops=M tasks=N seconds=S
//
// Both figures are perf's own (its gettimeofday around the run).  A run
// perf could not make prints unsupported=exit:N (or signal:N, or
// no-figure) in place of its figures.  Without perf: a SKIP line, exit 0.
//
// usage: perfbench [-P PERF] [-l PIPE_LOOPS] [-g GROUPS] [-m MSG_LOOPS]
//                  [-o pipe,messaging]
//   -P  perf's path (default: /usr/bin/perf_6.1, else /usr/bin/perf)
//   -l  pipe round trips (default 20000)   -g  messaging groups (2)
//   -m  messaging loops (default 100)      -o  which benchmarks (both)
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

// What perf printed that we keep.  -1: not seen.
struct figures {
	double usecs_per_op, ops_per_sec, seconds;
	long tasks;
};

static char kernel[32], policy[64];

// One line of perf's output into f.  perf bench's "default" format:
//   "     Total time: 0.110 [sec]"
//   "       5.497250 usecs/op"
//   "         181909 ops/sec"
//   "# 2 groups == 80 processes run"  (or "threads run")
static void parse_line(const char *line, struct figures *f)
{
	double x;
	long groups, tasks;
	const char *t = strstr(line, "Total time:");

	if (t && sscanf(t, "Total time: %lf", &x) == 1)
		f->seconds = x;
	else if (strstr(line, "usecs/op") && sscanf(line, "%lf usecs/op", &x) == 1)
		f->usecs_per_op = x;
	else if (strstr(line, "ops/sec") && sscanf(line, "%lf ops/sec", &x) == 1)
		f->ops_per_sec = x;
	else if (sscanf(line, "# %ld groups == %ld", &groups, &tasks) == 2)
		f->tasks = tasks;
}

static void parse_one(const char *line, void *f)
{
	parse_line(line, f);
}

// Runs perf with argv, its output into parse_line.  Returns its wait
// status, or -1 if it could not start.
static int run_perf(char *const argv[], struct figures *f)
{
	*f = (struct figures){ -1, -1, -1, -1 };
	return run_reading_lines(argv, "perf", parse_one, f);
}

// Why a run gave no figure, for the unsupported= field; NULL if it did.
static const char *failure(int status, int have_figure, char *buf, size_t len)
{
	if (status < 0)
		snprintf(buf, len, "fork");
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "signal:%d", WTERMSIG(status));
	else if (WEXITSTATUS(status) != 0)
		snprintf(buf, len, "exit:%d", WEXITSTATUS(status));
	else if (!have_figure)
		snprintf(buf, len, "no-figure");
	else
		return NULL;
	return buf;
}

static void bench_pipe(const char *perf, long loops, int threads)
{
	char l[24], why[32];
	char *argv[] = { (char *)perf, "bench", "sched", "pipe", "-l", l,
			 threads ? "-T" : NULL, NULL };
	struct figures f;
	int status;

	snprintf(l, sizeof(l), "%ld", loops);
	status = run_perf(argv, &f);
	printf("RESULT perf_pipe kernel=%s policy=%s mode=%s loops=%ld ", kernel, policy,
	       threads ? "thread" : "process", loops);
	if (failure(status, f.usecs_per_op >= 0, why, sizeof(why)))
		printf("unsupported=%s\n", why);
	else
		printf("usecs_per_op=%.3f ops_per_sec=%.0f\n", f.usecs_per_op, f.ops_per_sec);
	fflush(stdout);
}

static void bench_messaging(const char *perf, long groups, long loops, int pipes, int threads)
{
	char g[24], l[24], why[32];
	char *argv[10] = { (char *)perf, "bench", "sched", "messaging" };
	int n = 4, status;
	struct figures f;

	snprintf(g, sizeof(g), "%ld", groups);
	snprintf(l, sizeof(l), "%ld", loops);
	if (pipes)
		argv[n++] = "-p";
	if (threads)
		argv[n++] = "-t";
	argv[n++] = "-g";
	argv[n++] = g;
	argv[n++] = "-l";
	argv[n++] = l;
	argv[n] = NULL;
	status = run_perf(argv, &f);
	printf("RESULT perf_messaging kernel=%s policy=%s ipc=%s mode=%s groups=%ld loops=%ld ",
	       kernel, policy, pipes ? "pipe" : "socket", threads ? "thread" : "process",
	       groups, loops);
	if (failure(status, f.seconds >= 0, why, sizeof(why)))
		printf("unsupported=%s\n", why);
	else
		printf("tasks=%ld seconds=%.3f\n", f.tasks, f.seconds);
	fflush(stdout);
}

// Debian 12's linux-perf has shipped perf as perf_6.1 and, later, as
// perf: whichever is there.
static const char *find_perf(void)
{
	static const char *const paths[] = { "/usr/bin/perf_6.1", "/usr/bin/perf" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: perfbench [-P PERF] [-l PIPE_LOOPS] [-g GROUPS] [-m MSG_LOOPS] "
		"[-o pipe,messaging]\n");
}

int main(int argc, char **argv)
{
	const char *perf = NULL, *only = "pipe,messaging";
	long pipe_loops = 20000, groups = 2, msg_loops = 100;
	int opt;

	while ((opt = getopt(argc, argv, "P:l:g:m:o:h")) != -1) {
		switch (opt) {
		case 'P': perf = optarg; break;
		case 'l': pipe_loops = atol(optarg); break;
		case 'g': groups = atol(optarg); break;
		case 'm': msg_loops = atol(optarg); break;
		case 'o': only = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (pipe_loops <= 0 || groups <= 0 || msg_loops <= 0) {
		usage(stderr);
		return 2;
	}
	if (!perf)
		perf = find_perf();
	if (!perf || access(perf, X_OK) != 0) {
		printf("SKIP perf: no perf (%s; install linux-perf on the host)\n",
		       perf ? perf : "/usr/bin/perf_6.1, /usr/bin/perf");
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	kernel_and_policy(kernel, sizeof(kernel), policy, sizeof(policy));
	if (strstr(only, "pipe")) {
		bench_pipe(perf, pipe_loops, 0);
		bench_pipe(perf, pipe_loops, 1);
	}
	if (strstr(only, "messaging")) {
		bench_messaging(perf, groups, msg_loops, 1, 0);
		bench_messaging(perf, groups, msg_loops, 1, 1);
		bench_messaging(perf, groups, msg_loops, 0, 0);
	}
	return 0;
}
