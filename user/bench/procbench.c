// procbench: the cost of making processes and threads.  One op is one
// complete life: create, (exec,) exit, and the parent's wait or join.
//
//   fork       fork + _exit + waitpid
//   forkexec   fork + execve(PROGRAM) + waitpid
//   vfork      vfork + execve(PROGRAM) + waitpid
//   spawn      posix_spawn(PROGRAM) + waitpid
//   thread     pthread_create + return + pthread_join
//
// PROGRAM is a static program that exits at once: busybox's `true` applet
// by default (-e to choose another).  -M FILE first maps FILE privately
// and reads every page of it, as a big program (a shell) has its text
// resident when it forks.  Output: one line per mode,
//   RESULT proc kernel=switchyard policy=.. mode=forkexec mapped=PAGES loops=N
//          usecs_per_op=X.XXX ops_per_sec=Y
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

extern char **environ;

static const char *const modes[] = { "fork", "forkexec", "vfork", "spawn", "thread" };
#define NMODES (sizeof(modes) / sizeof(modes[0]))

static long loops = 200;
static long mapped_pages;
static const char *program = "/bin/busybox";
static char *exec_argv[] = { "true", NULL };

static void usage(FILE *out)
{
	fprintf(out,
		"usage: procbench [-l LOOPS] [-m MODE[,MODE...]] [-e PROGRAM] [-M FILE] [-h]\n"
		"  -l  lives per mode; default 200\n"
		"  -m  fork, forkexec, vfork, spawn, thread; default all\n"
		"  -e  the static program to exec, run with argv[0] \"true\"; default /bin/busybox\n"
		"  -M  map FILE privately and read all its pages before the runs\n"
		"Prints one line per mode: RESULT proc kernel=.. policy=.. mode=.. mapped=..\n"
		"  loops=.. usecs_per_op=.. ops_per_sec=..\n");
}

// Maps 'path' read-only and private, and reads one byte of every page so
// that all of it is mapped; the mapping stays for the whole run.
static int map_and_touch(const char *path)
{
	struct stat st;
	volatile const char *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
		perror("procbench: -M");
		return -1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror("procbench: mmap");
		return -1;
	}
	for (off_t off = 0; off < st.st_size; off += 4096) {
		(void)p[off];
		mapped_pages++;
	}
	return 0;
}

// Reap 'pid'; returns 0 when it exited with status 0.
static int reap(pid_t pid)
{
	int status;

	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int one_fork(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	return reap(pid);
}

static int one_forkexec(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		execve(program, exec_argv, environ);
		_exit(127);
	}
	return reap(pid);
}

static int one_vfork(void)
{
	pid_t pid = vfork();

	if (pid == 0) {
		execve(program, exec_argv, environ);
		_exit(127);
	}
	return reap(pid);
}

static int one_spawn(void)
{
	pid_t pid;

	if (posix_spawn(&pid, program, NULL, NULL, exec_argv, environ) != 0)
		return -1;
	return reap(pid);
}

static void *thread_body(void *arg)
{
	return arg;
}

static int one_thread(void)
{
	pthread_t t;
	void *ret;

	if (pthread_create(&t, NULL, thread_body, NULL) != 0)
		return -1;
	return pthread_join(t, &ret) == 0 ? 0 : -1;
}

static int (*const lives[])(void) = { one_fork, one_forkexec, one_vfork, one_spawn, one_thread };

// Run 'loops' lives of mode m; returns the seconds, or a negative value.
static double run_mode(size_t m)
{
	double start = now_seconds();

	for (long i = 0; i < loops; i++)
		if (lives[m]() != 0) {
			fprintf(stderr, "procbench: %s failed at life %ld: %s\n", modes[m], i,
				strerror(errno));
			return -1;
		}
	return now_seconds() - start;
}

// Is 'word' in the comma-separated 'list' (NULL: everything is)?
static int listed(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p;) {
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == 0))
			return 1;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return list == NULL;
}

// Every name of the -m list must be a mode.
static int modes_valid(const char *list)
{
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		int known = 0;
		for (size_t m = 0; m < NMODES; m++)
			known |= strlen(modes[m]) == len && strncmp(p, modes[m], len) == 0;
		if (!known)
			return 0;
		p += len;
		if (*p == ',')
			p++;
	}
	return 1;
}

int main(int argc, char **argv)
{
	const char *list = NULL;
	char kernel[32], policy[48], *end;
	int ch, failed = 0;

	while ((ch = getopt(argc, argv, "l:m:e:M:h")) != -1) {
		switch (ch) {
		case 'l':
			loops = strtol(optarg, &end, 10);
			if (*end || loops <= 0) {
				usage(stderr);
				return 2;
			}
			break;
		case 'm':
			list = optarg;
			break;
		case 'e':
			program = optarg;
			break;
		case 'M':
			if (map_and_touch(optarg) != 0)
				return 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || (list && !modes_valid(list))) {
		usage(stderr);
		return 2;
	}
	kernel_and_policy(kernel, sizeof(kernel), policy, sizeof(policy));
	for (size_t m = 0; m < NMODES; m++) {
		if (!listed(list, modes[m]))
			continue;
		double seconds = run_mode(m);
		if (seconds < 0) {
			failed = 1;
			continue;
		}
		printf("RESULT proc kernel=%s policy=%s mode=%s mapped=%ld loops=%ld "
		       "usecs_per_op=%.3f ops_per_sec=%.0f\n", kernel, policy, modes[m], mapped_pages, loops,
		       seconds * 1e6 / (double)loops, (double)loops / seconds);
		fflush(stdout);
	}
	return failed;
}
