// Reader of Switchyard's per-CPU counters in /proc/switchyard/cpustat,
// shared by the cpustat test and the sysstat tool.
//
// The file has a header line naming the columns, then one line per online
// CPU whose first field is the CPU number; every field is an unsigned
// decimal.  Writing "reset" zeroes the counters.  The columns are taken
// from the header line, so readers follow the kernel when fields are
// added.  Header-only, like ktap.h.
#ifndef USER_CPUSTAT_PARSE_H
#define USER_CPUSTAT_PARSE_H

#include "sysutil.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CPUSTAT_PATH "/proc/switchyard/cpustat"
#define CPUSTAT_MAX_FIELDS 64
#define CPUSTAT_MAX_CPUS 256

struct cpustat {
	int nr_fields;
	char names[CPUSTAT_MAX_FIELDS][32];
	int nr_cpus;
	uint64_t value[CPUSTAT_MAX_CPUS][CPUSTAT_MAX_FIELDS];
	char error[128];	// why reading or parsing failed; empty when it did not
};

// The file to read: SWITCHYARD_CPUSTAT in the environment names another
// one, so the readers can be tried on a host with a hand-made file.
static inline const char *cpustat_file(void)
{
	const char *path = getenv("SWITCHYARD_CPUSTAT");

	return path ? path : CPUSTAT_PATH;
}

// Read the whole file into 'buf' (NUL-terminated): sysutil.h's read_file.
static inline long cpustat_read(const char *path, char *buf, size_t size)
{
	return read_file(path, buf, size);
}

// An unsigned decimal and nothing else.
static inline int cpustat_number(const char *tok, uint64_t *out)
{
	uint64_t v = 0;

	if (!*tok)
		return 0;
	for (; *tok; tok++) {
		if (*tok < '0' || *tok > '9')
			return 0;
		v = v * 10 + (uint64_t)(*tok - '0');
	}
	*out = v;
	return 1;
}

// Parse the header and CPU lines of 'text' (which is cut up in the
// process).  Returns 1, or 0 with the reason in st->error; line numbers in
// the reason count the header as line 1.
static inline int cpustat_parse(char *text, struct cpustat *st)
{
	char *save_line = NULL, *line;
	int lineno = 0;

	memset(st, 0, sizeof(*st));
	for (line = strtok_r(text, "\n", &save_line); line; line = strtok_r(NULL, "\n", &save_line)) {
		char *save_tok = NULL, *tok;
		int field = 0;

		for (tok = strtok_r(line, " \t", &save_tok); tok; tok = strtok_r(NULL, " \t", &save_tok)) {
			if (field >= CPUSTAT_MAX_FIELDS) {
				snprintf(st->error, sizeof(st->error), "line %d: too many fields", lineno + 1);
				return 0;
			}
			if (lineno == 0) {
				snprintf(st->names[field], sizeof(st->names[field]), "%s", tok);
			} else if (!cpustat_number(tok, &st->value[st->nr_cpus][field])) {
				snprintf(st->error, sizeof(st->error), "line %d: '%s' is not a number",
					 lineno + 1, tok);
				return 0;
			}
			field++;
		}
		if (lineno == 0) {
			st->nr_fields = field;
			if (field == 0 || strcmp(st->names[0], "cpu") != 0) {
				snprintf(st->error, sizeof(st->error), "header does not start with 'cpu'");
				return 0;
			}
		} else {
			if (field != st->nr_fields) {
				snprintf(st->error, sizeof(st->error), "line %d has %d fields, the header %d",
					 lineno + 1, field, st->nr_fields);
				return 0;
			}
			if (++st->nr_cpus >= CPUSTAT_MAX_CPUS)
				break;
		}
		lineno++;
	}
	if (lineno == 0)
		snprintf(st->error, sizeof(st->error), "empty file");
	return lineno > 0;
}

// Read and parse the file at 'path' into 'st'.  Returns 1, or 0 with the
// reason in st->error.
static inline int cpustat_snapshot(const char *path, struct cpustat *st)
{
	static char buf[65536];

	if (cpustat_read(path, buf, sizeof(buf)) < 0) {
		int err = errno;

		memset(st, 0, sizeof(*st));
		snprintf(st->error, sizeof(st->error), "cannot read %s: %s", path, strerror(err));
		return 0;
	}
	return cpustat_parse(buf, st);
}

// Zero the counters.  Returns 1, or 0 with errno set.
static inline int cpustat_reset(const char *path)
{
	int fd = open(path, O_WRONLY);
	int ok, err;

	if (fd < 0)
		return 0;
	ok = write(fd, "reset", 5) == 5;
	err = errno;
	close(fd);
	errno = err;
	return ok;
}

#endif
