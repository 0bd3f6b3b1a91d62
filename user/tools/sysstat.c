// sysstat: show Switchyard's per-CPU counters, or what a command changed.
//
//   sysstat                 print /proc/switchyard/cpustat as it is now
//   sysstat -r              reset the counters
//   sysstat COMMAND [ARGS]  run COMMAND, then print per-CPU deltas of every
//                           field and a total line, in the file's columns
//
// The columns come from the file's header line, so the tool follows the
// kernel when fields are added.  SWITCHYARD_CPUSTAT names another file
// (for trying the tool on a host with a hand-made file).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpustat_parse.h"

// CPUSTAT_PATH, or the file named by SWITCHYARD_CPUSTAT (see cpustat_file).
static const char *cpustat_path;
static struct cpustat before, after;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: sysstat                  print %s\n"
		"       sysstat -r               reset the counters\n"
		"       sysstat COMMAND [ARGS]   run COMMAND and print per-CPU deltas and a total\n"
		"(on a kernel without %s, COMMAND runs alone)\n",
		CPUSTAT_PATH, CPUSTAT_PATH);
}

// Read the file into 'st', or say on stderr why not.
static int snapshot(struct cpustat *st)
{
	if (cpustat_snapshot(cpustat_path, st))
		return 1;
	fprintf(stderr, "sysstat: %s\n", st->error);
	return 0;
}

// Each column as wide as the larger of its name and its widest number.
static void column_widths(const struct cpustat *st, uint64_t rows[][CPUSTAT_MAX_FIELDS],
			  int nr_rows, const uint64_t *total, int width[])
{
	char tmp[32];

	for (int f = 0; f < st->nr_fields; f++) {
		width[f] = (int)strlen(st->names[f]);
		for (int r = 0; r < nr_rows; r++) {
			int len = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)rows[r][f]);

			if (len > width[f])
				width[f] = len;
		}
		if (total && f > 0) {
			int len = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)total[f]);

			if (len > width[f])
				width[f] = len;
		}
	}
	if (total && width[0] < 5)
		width[0] = 5;	// "total"
}

static void print_table(const struct cpustat *st, uint64_t rows[][CPUSTAT_MAX_FIELDS],
			int nr_rows, const uint64_t *total)
{
	int width[CPUSTAT_MAX_FIELDS] = { 0 };

	column_widths(st, rows, nr_rows, total, width);
	for (int f = 0; f < st->nr_fields; f++)
		printf("%s%*s", f ? " " : "", width[f], st->names[f]);
	printf("\n");
	for (int r = 0; r < nr_rows; r++) {
		for (int f = 0; f < st->nr_fields; f++)
			printf("%s%*llu", f ? " " : "", width[f], (unsigned long long)rows[r][f]);
		printf("\n");
	}
	if (!total)
		return;
	printf("%*s", width[0], "total");
	for (int f = 1; f < st->nr_fields; f++)
		printf(" %*llu", width[f], (unsigned long long)total[f]);
	printf("\n");
}

static int show_current(void)
{
	if (!snapshot(&before))
		return 1;
	print_table(&before, before.value, before.nr_cpus, NULL);
	return 0;
}

static int reset(void)
{
	if (cpustat_reset(cpustat_path))
		return 0;
	fprintf(stderr, "sysstat: cannot reset %s: %s\n", cpustat_path, strerror(errno));
	return 1;
}

// Run the command; return its exit status in the shell's convention.
static int run_command(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("sysstat: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "sysstat: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int show_delta(char **argv)
{
	static uint64_t delta[CPUSTAT_MAX_CPUS][CPUSTAT_MAX_FIELDS];
	uint64_t total[CPUSTAT_MAX_FIELDS] = { 0 };
	int rc;

	if (!snapshot(&before))
		return 1;
	rc = run_command(argv);
	if (!snapshot(&after))
		return 1;
	if (after.nr_fields != before.nr_fields || after.nr_cpus != before.nr_cpus) {
		fprintf(stderr, "sysstat: the file changed shape while the command ran\n");
		return 1;
	}
	for (int c = 0; c < after.nr_cpus; c++) {
		delta[c][0] = after.value[c][0];
		for (int f = 1; f < after.nr_fields; f++) {
			// A reset during the command makes the counter smaller:
			// then the new value is all that happened since.
			uint64_t a = after.value[c][f], b = before.value[c][f];

			delta[c][f] = a >= b ? a - b : a;
			total[f] += delta[c][f];
		}
	}
	fflush(stdout);
	print_table(&after, delta, after.nr_cpus, total);
	if (rc != 0)
		fprintf(stderr, "sysstat: %s exited with status %d\n", argv[0], rc);
	return rc;
}

int main(int argc, char **argv)
{
	cpustat_path = cpustat_file();
	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (access(cpustat_path, F_OK) != 0) {
		fprintf(stderr, "sysstat: %s is absent: this kernel is not Switchyard\n", cpustat_path);
		// A command still runs, without counters: the same benchmark
		// matrix runs on a Linux guest for comparison.
		char **cmd = argv + 1;
		if (cmd[0] && strcmp(cmd[0], "--") == 0)
			cmd++;
		if (cmd[0] && cmd[0][0] != '-') {
			execvp(cmd[0], cmd);
			fprintf(stderr, "sysstat: %s: %s\n", cmd[0], strerror(errno));
			return 127;
		}
		return 1;
	}
	if (argc == 1)
		return show_current();
	if (strcmp(argv[1], "-r") == 0)
		return reset();
	if (argv[1][0] == '-' && strcmp(argv[1], "--") != 0) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--") == 0)
		argv++;
	if (!argv[1]) {
		usage(stderr);
		return 2;
	}
	return show_delta(argv + 1);
}
