// fsbench: the cost of path lookup and directory operations in a big
// directory.  In a fresh directory under DIR it measures, in turn:
//
//   create   open(O_CREAT|O_EXCL) + close of N files (the directory grows
//            to N entries)
//   stat     stat of each of the N files, in a scattered order
//   readdir  opendir + readdir to the end + closedir of the N entries
//            (one op = one entry read)
//   open     open + close of a file DEPTH directories deep
//   unlink   unlink of the N files
//   tree     mkdir of a tree (fan-out 4, 4 levels: 340 directories), then
//            rmdir of it, leaves first (one op = one mkdir or rmdir)
//
// Output: one line per operation,
//   RESULT fs kernel=switchyard policy=.. op=create entries=N ops=N
//          usecs_per_op=X.XXX ops_per_sec=Y
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"

#define DEPTH 16
#define FANOUT 4
#define LEVELS 4

static long entries = 10000;
static long open_loops = 2000;
static const char *parent = "/tmp";
static char base[256];
static char kernel[32], policy[48];

static void usage(FILE *out)
{
	fprintf(out,
		"usage: fsbench [-n ENTRIES] [-l OPEN_LOOPS] [-d DIR] [-h]\n"
		"  -n  files in the big directory; default 10000\n"
		"  -l  open+close of the deep path; default 2000\n"
		"  -d  where to make the scratch directory; default /tmp\n"
		"Prints one line per operation: RESULT fs kernel=.. policy=.. op=.. entries=..\n"
		"  ops=.. usecs_per_op=.. ops_per_sec=..\n");
}

static void result(const char *op, long ops, double seconds)
{
	printf("RESULT fs kernel=%s policy=%s op=%s entries=%ld ops=%ld usecs_per_op=%.3f "
	       "ops_per_sec=%.0f\n", kernel, policy, op, entries, ops,
	       seconds * 1e6 / (double)ops, (double)ops / seconds);
	fflush(stdout);
}

static void file_name(char *buf, size_t size, long i)
{
	snprintf(buf, size, "%s/big/f%06ld", base, i);
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "fsbench: %s %s: %s\n", what, path, strerror(errno));
	return -1;
}

static int bench_create(void)
{
	char path[320];
	double start = now_seconds();

	for (long i = 0; i < entries; i++) {
		file_name(path, sizeof(path), i);
		int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			return fail("create", path);
		close(fd);
	}
	result("create", entries, now_seconds() - start);
	return 0;
}

// A stride prime to the count visits every file once, far from the last.
static long stride(void)
{
	long s = 7919;

	while (entries % s == 0)
		s += 2;
	return s;
}

static int bench_stat(void)
{
	char path[320];
	struct stat st;
	long s = stride(), i = 0;
	double start = now_seconds();

	for (long n = 0; n < entries; n++, i = (i + s) % entries) {
		file_name(path, sizeof(path), i);
		if (stat(path, &st) != 0)
			return fail("stat", path);
	}
	result("stat", entries, now_seconds() - start);
	return 0;
}

static int bench_readdir(void)
{
	char path[320];
	long seen = 0;
	struct dirent *d;
	double start = now_seconds();

	snprintf(path, sizeof(path), "%s/big", base);
	DIR *dir = opendir(path);
	if (!dir)
		return fail("opendir", path);
	while ((errno = 0, d = readdir(dir)) != NULL)
		seen++;
	if (errno)
		return fail("readdir", path);
	closedir(dir);
	if (seen != entries + 2) {
		fprintf(stderr, "fsbench: readdir saw %ld entries, not %ld\n", seen, entries + 2);
		return -1;
	}
	result("readdir", seen, now_seconds() - start);
	return 0;
}

static int bench_open(void)
{
	char path[512];
	size_t len = (size_t)snprintf(path, sizeof(path), "%s", base);

	for (int i = 0; i < DEPTH; i++) {
		len += (size_t)snprintf(path + len, sizeof(path) - len, "/d%d", i);
		if (mkdir(path, 0755) != 0)
			return fail("mkdir", path);
	}
	snprintf(path + len, sizeof(path) - len, "/file");
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		return fail("create", path);
	close(fd);
	double start = now_seconds();
	for (long i = 0; i < open_loops; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return fail("open", path);
		close(fd);
	}
	result("open", open_loops, now_seconds() - start);
	unlink(path);
	for (int i = DEPTH - 1; i >= 0; i--) {
		path[len] = 0;
		rmdir(path);
		len = (size_t)(strrchr(path, '/') - path);
	}
	return 0;
}

static int bench_unlink(void)
{
	char path[320];
	double start = now_seconds();

	for (long i = 0; i < entries; i++) {
		file_name(path, sizeof(path), i);
		if (unlink(path) != 0)
			return fail("unlink", path);
	}
	result("unlink", entries, now_seconds() - start);
	return 0;
}

// mkdir (pre-order) or rmdir (post-order) the tree below 'path'.
static long walk_tree(char *path, size_t len, int level, int make)
{
	long ops = 0;

	if (level == LEVELS)
		return 0;
	for (int i = 0; i < FANOUT; i++) {
		size_t n = len + (size_t)snprintf(path + len, 512 - len, "/t%d", i);
		if (make && mkdir(path, 0755) != 0)
			return fail("mkdir", path);
		ops++;
		long below = walk_tree(path, n, level + 1, make);
		if (below < 0)
			return -1;
		ops += below;
		path[n] = 0;
		if (!make && rmdir(path) != 0)
			return fail("rmdir", path);
		path[len] = 0;
	}
	return ops;
}

static int bench_tree(void)
{
	char path[512];
	size_t len = (size_t)snprintf(path, sizeof(path), "%s", base);
	double start = now_seconds();
	long made = walk_tree(path, len, 0, 1);
	long removed = made < 0 ? -1 : walk_tree(path, len, 0, 0);

	if (removed < 0)
		return -1;
	result("tree", made + removed, now_seconds() - start);
	return 0;
}

int main(int argc, char **argv)
{
	char path[320], *end;
	int ch, failed;

	while ((ch = getopt(argc, argv, "n:l:d:h")) != -1) {
		switch (ch) {
		case 'n':
			entries = strtol(optarg, &end, 10);
			if (*end || entries <= 0 || entries > 999999)
				goto bad;
			break;
		case 'l':
			open_loops = strtol(optarg, &end, 10);
			if (*end || open_loops <= 0)
				goto bad;
			break;
		case 'd':
			parent = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	kernel_and_policy(kernel, sizeof(kernel), policy, sizeof(policy));
	snprintf(base, sizeof(base), "%s/fsbench.%d", parent, (int)getpid());
	snprintf(path, sizeof(path), "%s/big", base);
	if (mkdir(base, 0755) != 0 || mkdir(path, 0755) != 0) {
		fail("mkdir", path);
		return 1;
	}
	failed = bench_create() || bench_stat() || bench_readdir() || bench_open() ||
		 bench_unlink() || bench_tree();
	rmdir(path);
	rmdir(base);
	return failed;
bad:
	usage(stderr);
	return 2;
}
