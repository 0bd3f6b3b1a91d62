// Host tests of kernel/fs/cpio.c: archives made by the real cpio(1) from a
// scratch directory (files, directories, symlinks, empty files), then the
// same archives truncated and corrupted, which must give an error and
// never a read outside the buffer (AddressSanitizer watches: every archive
// is copied into a malloc'd buffer of exactly its size).
#define _DEFAULT_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fs/cpio.h>
#include "ktap.h"

#define CPIO_EINVAL (-22)

static char scratch[64];

static void write_file(const char *name, const void *data, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tree/%s", scratch, name);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		exit(1);
	}
	if (len)
		fwrite(data, 1, len, f);
	fclose(f);
}

// Builds the tree and archives it with cpio -o -H newc; returns the
// archive in a malloc'd buffer of exactly its size.
static uint8_t *make_archive(size_t *len)
{
	char cmd[512], path[256];
	static char big[10000];
	FILE *f;
	uint8_t *buf;
	long n;

	snprintf(path, sizeof(path), "%s/tree", scratch);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/tree/dir", scratch);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/tree/dir/sub", scratch);
	mkdir(path, 0755);
	write_file("hello.txt", "hello\n", 6);
	write_file("empty", "", 0);
	write_file("dir/odd", "abc", 3);	// a length that needs padding
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 31 + 7);
	write_file("dir/sub/big", big, sizeof(big));
	snprintf(path, sizeof(path), "%s/tree/link", scratch);
	if (symlink("dir/odd", path) != 0) {
		perror("symlink");
		exit(1);
	}
	snprintf(cmd, sizeof(cmd),
		 "cd %s/tree && find . | LC_ALL=C sort | cpio -o -H newc --quiet > ../a.cpio",
		 scratch);
	if (system(cmd) != 0) {
		fprintf(stderr, "cpio failed\n");
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/a.cpio", scratch);
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n);
	if (fread(buf, 1, n, f) != (size_t)n)
		exit(1);
	fclose(f);
	*len = n;
	return buf;
}

static bool name_is(const struct cpio_entry *e, const char *s)
{
	return e->namelen == strlen(s) && memcmp(e->name, s, e->namelen) == 0 &&
	       e->name[e->namelen] == 0;
}

// Walks the archive; returns 0 at the trailer, or the error.  Counts entries.
static int walk(const uint8_t *a, size_t len, int *count)
{
	struct cpio_iter it;
	struct cpio_entry e;
	int rc;

	*count = 0;
	cpio_iter_init(&it, a, len);
	while ((rc = cpio_next(&it, &e)) == 1) {
		// Touch every byte the parser hands out, so ASan sees any overrun.
		volatile uint8_t sum = 0;
		for (size_t i = 0; i < e.size; i++)
			sum += ((const uint8_t *)e.data)[i];
		for (size_t i = 0; i <= e.namelen; i++)
			sum += (uint8_t)e.name[i];
		(*count)++;
	}
	return rc;
}

// Runs the parser on a copy of a[0..len) in a buffer of exactly len bytes.
static int walk_copy(const uint8_t *a, size_t len, int *count)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	memcpy(copy, a, len);
	rc = walk(copy, len, count);
	free(copy);
	return rc;
}

static void test_contents(const uint8_t *a, size_t len)
{
	struct cpio_iter it;
	struct cpio_entry e;
	bool hello = false, empty = false, odd = false, big = false, link = false;
	bool dir = false, sub = false, dot = false;
	int rc, n = 0;

	cpio_iter_init(&it, a, len);
	while ((rc = cpio_next(&it, &e)) == 1) {
		n++;
		if (name_is(&e, "."))
			dot = (e.mode & CPIO_S_IFMT) == CPIO_S_IFDIR;
		else if (name_is(&e, "hello.txt"))
			hello = (e.mode & CPIO_S_IFMT) == CPIO_S_IFREG && e.size == 6 &&
				!memcmp(e.data, "hello\n", 6) && (e.mode & 0777) == 0644;
		else if (name_is(&e, "empty"))
			empty = (e.mode & CPIO_S_IFMT) == CPIO_S_IFREG && e.size == 0;
		else if (name_is(&e, "dir/odd"))
			odd = e.size == 3 && !memcmp(e.data, "abc", 3);
		else if (name_is(&e, "dir"))
			dir = (e.mode & CPIO_S_IFMT) == CPIO_S_IFDIR;
		else if (name_is(&e, "dir/sub"))
			sub = (e.mode & CPIO_S_IFMT) == CPIO_S_IFDIR;
		else if (name_is(&e, "link"))
			link = (e.mode & CPIO_S_IFMT) == CPIO_S_IFLNK && e.size == 7 &&
			       !memcmp(e.data, "dir/odd", 7);
		else if (name_is(&e, "dir/sub/big")) {
			big = e.size == 10000;
			for (size_t i = 0; big && i < e.size; i++)
				big = ((const uint8_t *)e.data)[i] == (uint8_t)(i * 31 + 7);
		}
	}
	ktap_ok(rc == 0, "walk ends at the trailer");
	ktap_ok(n == 8, "eight entries before the trailer");
	ktap_ok(dot && dir && sub, "directories have S_IFDIR");
	ktap_ok(hello, "regular file: name, mode, size, data");
	ktap_ok(empty, "empty file");
	ktap_ok(odd, "file whose length needs padding");
	ktap_ok(big, "10000-byte file intact");
	ktap_ok(link, "symlink target is the data");
	ktap_ok(cpio_next(&it, &e) == 0, "next after the trailer stays 0");
}

static void test_truncated(const uint8_t *a, size_t len)
{
	bool all_fail = true;
	int count;

	size_t trailer_end = 0;

	// cpio pads the archive to 512-byte blocks after the trailer, so
	// find where the trailer's name ends: every cut before that point
	// must be an error, every cut after it a complete walk.
	for (size_t i = 0; i + 11 <= len; i++)
		if (!memcmp(a + i, "TRAILER!!!", 11))
			trailer_end = i + 11;
	for (size_t cut = 0; cut < len; cut++) {
		int rc = walk_copy(a, cut, &count);

		if (cut < trailer_end && rc != CPIO_EINVAL) {
			fprintf(stderr, "cut %zu of %zu (trailer end %zu): rc %d\n", cut, len, trailer_end, rc);
			all_fail = false;
		}
		if (cut >= trailer_end && rc != 0) {
			fprintf(stderr, "cut %zu of %zu (trailer end %zu): rc %d\n", cut, len, trailer_end, rc);
			all_fail = false;
		}
	}
	all_fail = all_fail && trailer_end > 0;
	ktap_ok(all_fail, "every truncation is an error, no overrun");
	ktap_ok(walk_copy(a, 0, &count) == CPIO_EINVAL, "empty archive is an error");
}

static void test_corrupt(const uint8_t *a, size_t len)
{
	uint8_t *c = malloc(len);
	int count;
	bool ok;

	memcpy(c, a, len);
	c[0] = 'X';
	ktap_ok(walk_copy(c, len, &count) == CPIO_EINVAL && count == 0, "bad magic");

	memcpy(c, a, len);
	c[6 + 2] = 'g';		// a non-hex digit in the inode field
	ktap_ok(walk_copy(c, len, &count) == CPIO_EINVAL, "non-hex field");

	memcpy(c, a, len);
	memcpy(c + 6 + 6 * 8, "7fffffff", 8);	// file size past the end
	ktap_ok(walk_copy(c, len, &count) == CPIO_EINVAL, "huge file size");

	memcpy(c, a, len);
	memcpy(c + 6 + 11 * 8, "ffffffff", 8);	// name size past the end
	ktap_ok(walk_copy(c, len, &count) == CPIO_EINVAL, "huge name size");

	memcpy(c, a, len);
	memcpy(c + 6 + 11 * 8, "00000000", 8);	// zero name size
	ktap_ok(walk_copy(c, len, &count) == CPIO_EINVAL, "zero name size");

	memcpy(c, a, len);
	c[110 + 1] = 'x';	// "." loses its NUL terminator
	ktap_ok(walk_copy(c, len, &count) == CPIO_EINVAL, "name without NUL");

	// Random byte flips: any result is fine as long as nothing overruns.
	ok = true;
	srand(1);
	for (int round = 0; round < 2000; round++) {
		memcpy(c, a, len);
		for (int k = 0; k < 4; k++)
			c[rand() % len] = (uint8_t)rand();
		int rc = walk_copy(c, len, &count);
		if (rc != 0 && rc != CPIO_EINVAL)
			ok = false;
	}
	ktap_ok(ok, "random corruption never overruns");
	free(c);
}

int main(void)
{
	char cmd[128];
	uint8_t *a;
	size_t len;

	snprintf(scratch, sizeof(scratch), "/tmp/test_cpio.%d", (int)getpid());
	mkdir(scratch, 0755);
	a = make_archive(&len);
	ktap_plan(18);
	test_contents(a, len);
	test_truncated(a, len);
	test_corrupt(a, len);
	free(a);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
	if (system(cmd) != 0)
		fprintf(stderr, "# could not remove %s\n", scratch);
	return ktap_exit();
}
