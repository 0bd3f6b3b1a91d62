// pipebench: round trips of a one-byte message over a pair of pipes, in
// the manner of `perf bench sched pipe`.  One loop = the first side writes
// a byte and reads the reply; the other side reads it and writes it back.
//
// Output: one line,
//   RESULT pipe kernel=switchyard policy=deferred:256 mode=process cpus=0,1 loops=N
//          usecs_per_op=X.XXX ops_per_sec=Y
// where an op is one loop (one round trip, two handoffs) and cpus=any means
// the sides were not pinned.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

struct options {
	long loops;
	int threads;
	int pinned;
	int cpu[2];
};

static struct options opt = { 20000, 0, 0, { 0, 0 } };
static int to_second[2], to_first[2];

static void usage(FILE *out)
{
	fprintf(out,
		"usage: pipebench [-l LOOPS] [-T] [-c CPU0,CPU1] [-h]\n"
		"  -l  round trips to make; default 20000\n"
		"  -T  two threads instead of two processes\n"
		"  -c  pin the two sides to these CPUs; default: not pinned\n"
		"Prints one line: RESULT pipe kernel=.. policy=.. mode=.. cpus=.. loops=.. usecs_per_op=..\n"
		"  ops_per_sec=..\n");
}

static void pin_side(int side)
{
	if (opt.pinned && pin_or_complain("pipebench", opt.cpu[side]) != 0)
		exit(1);
}

static int read_byte(int fd, char *c)
{
	ssize_t n;

	while ((n = read(fd, c, 1)) < 0 && errno == EINTR)
		;
	return n == 1;
}

// The echoing side; returns 0 on success.
static int run_second(void)
{
	char c;

	pin_side(1);
	for (long i = 0; i < opt.loops; i++)
		if (!read_byte(to_second[0], &c) || write(to_first[1], &c, 1) != 1)
			return 1;
	return 0;
}

static void *second_thread(void *arg)
{
	(void)arg;
	return (void *)(long)run_second();
}

// The timing side; returns the elapsed seconds, or a negative value.
static double run_first(void)
{
	char c = 'x';
	double start;

	pin_side(0);
	start = now_seconds();
	for (long i = 0; i < opt.loops; i++)
		if (write(to_second[1], &c, 1) != 1 || !read_byte(to_first[0], &c))
			return -1;
	return now_seconds() - start;
}

static int parse_options(int argc, char **argv)
{
	int ch;
	char *end;

	while ((ch = getopt(argc, argv, "l:Tc:h")) != -1) {
		switch (ch) {
		case 'l':
			opt.loops = strtol(optarg, &end, 10);
			if (*end || opt.loops <= 0)
				return 0;
			break;
		case 'T':
			opt.threads = 1;
			break;
		case 'c':
			if (!parse_cpu_pair(optarg, opt.cpu))
				return 0;
			opt.pinned = 1;
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

int main(int argc, char **argv)
{
	double seconds;
	int failed = 0;
	char cpus[32];

	if (!parse_options(argc, argv)) {
		usage(stderr);
		return 2;
	}
	// A dead peer should fail the run with EPIPE, not kill us silently.
	signal(SIGPIPE, SIG_IGN);
	if (pipe(to_second) != 0 || pipe(to_first) != 0) {
		perror("pipebench: pipe");
		return 1;
	}
	if (opt.threads) {
		pthread_t t;
		void *ret;

		if (pthread_create(&t, NULL, second_thread, NULL) != 0) {
			fprintf(stderr, "pipebench: cannot create a thread\n");
			return 1;
		}
		seconds = run_first();
		pthread_join(t, &ret);
		failed = ret != NULL;
	} else {
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			perror("pipebench: fork");
			return 1;
		}
		// Each side keeps only its own ends, so a side that dies
		// leaves the other an end-of-file instead of a hang.
		if (pid == 0) {
			close(to_second[1]);
			close(to_first[0]);
			_exit(run_second());
		}
		close(to_second[0]);
		close(to_first[1]);
		seconds = run_first();
		waitpid(pid, &status, 0);
		failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	if (failed || seconds < 0) {
		fprintf(stderr, "pipebench: the run failed\n");
		return 1;
	}
	if (opt.pinned)
		snprintf(cpus, sizeof(cpus), "%d,%d", opt.cpu[0], opt.cpu[1]);
	else
		snprintf(cpus, sizeof(cpus), "any");
	char kernel[32], policy[48];
	kernel_and_policy(kernel, sizeof(kernel), policy, sizeof(policy));
	printf("RESULT pipe kernel=%s policy=%s mode=%s cpus=%s loops=%ld usecs_per_op=%.3f "
	       "ops_per_sec=%.0f\n", kernel, policy, opt.threads ? "thread" : "process", cpus,
	       opt.loops, seconds * 1e6 / (double)opt.loops, (double)opt.loops / seconds);
	return 0;
}
