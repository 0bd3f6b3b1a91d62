// fpos: one open file description shared by several processes (inherited
// across fork) has one position, and reads, writes, readv and getdents64
// through it are atomic with respect to that position, as on Linux
// (f_pos_lock): children reading one byte at a time at the same moment
// read every byte exactly once, writers never overwrite each other, a
// readv's segments come from consecutive bytes, and a directory listed
// by several readers yields every entry once.  Run it on several CPUs:
// the children really run at the same time there.  Linux is the
// reference: every case passes there.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"

#define CHILDREN	6
#define FILE_BYTES	12288		// a multiple of 256
#define WRITES_EACH	1500
#define DIR_ENTRIES	150

// Counters the children share with the parent.
struct tally {
	long byte_count[256];		// how often each byte value was read
	long total;			// bytes (or entries) read in all
	long odd;			// readv pairs that were not consecutive
	long errors;			// failed calls
};

static struct tally *tally_new(void)
{
	struct tally *t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (t == MAP_FAILED) {
		fail("mmap: errno=%d", errno);
		return NULL;
	}
	memset(t, 0, sizeof(*t));
	return t;
}

static void add(long *counter, long n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

// Starts CHILDREN children running fn(fd, t) at about the same time (a
// pipe releases them together) and waits for them all.
static void run_children(void (*fn)(int, struct tally *), int fd, struct tally *t)
{
	pid_t pids[CHILDREN];
	int go[2];

	if (pipe(go) < 0) {
		fail("pipe: errno=%d", errno);
		return;
	}
	for (int i = 0; i < CHILDREN; i++) {
		pids[i] = fork_child();
		if (pids[i] == 0) {
			char c;
			close(go[1]);
			if (read(go[0], &c, 1) != 0)
				_exit(2);
			fn(fd, t);
			_exit(0);
		}
	}
	close(go[0]);
	close(go[1]);		// EOF: everyone starts
	for (int i = 0; i < CHILDREN; i++)
		if (pids[i] > 0)
			check_child_ok(pids[i], "child");
}

// A file whose byte at offset i is i % 256.
static int make_offset_file(const char *path)
{
	static unsigned char buf[FILE_BYTES];
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);

	if (fd < 0)
		return fail("create %s: errno=%d", path, errno), -1;
	for (int i = 0; i < FILE_BYTES; i++)
		buf[i] = (unsigned char)i;
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		close(fd);
		return fail("write: errno=%d", errno), -1;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

// ---- read -------------------------------------------------------------------------

static void read_bytes(int fd, struct tally *t)
{
	unsigned char c;
	ssize_t n;

	while ((n = read(fd, &c, 1)) == 1) {
		add(&t->byte_count[c], 1);
		add(&t->total, 1);
	}
	if (n < 0)
		add(&t->errors, 1);
}

static void check_every_byte_once(struct tally *t, const char *how)
{
	if (t->errors)
		fail("%s: %ld calls failed", how, t->errors);
	if (t->total != FILE_BYTES)
		fail("%s: %ld bytes read in all from a file of %d", how, t->total, FILE_BYTES);
	for (int v = 0; v < 256; v++)
		if (t->byte_count[v] != FILE_BYTES / 256) {
			fail("%s: byte value %d read %ld times, want %d", how, v, t->byte_count[v],
			     FILE_BYTES / 256);
			break;
		}
}

static void t_shared_read_every_byte_once(void)
{
	struct tally *t = tally_new();
	int fd = make_offset_file(scratch("read"));

	if (t && fd >= 0) {
		run_children(read_bytes, fd, t);
		check_every_byte_once(t, "1-byte reads");
	}
	if (fd >= 0)
		close(fd);
	unlink(scratch("read"));
	if (t)
		munmap(t, sizeof(*t));
}

// ---- readv ------------------------------------------------------------------------

// Two 1-byte segments per call: both come from consecutive offsets.
static void readv_pairs(int fd, struct tally *t)
{
	unsigned char a, b;
	struct iovec iov[2] = { { &a, 1 }, { &b, 1 } };
	ssize_t n;

	while ((n = readv(fd, iov, 2)) == 2) {
		add(&t->byte_count[a], 1);
		add(&t->byte_count[b], 1);
		add(&t->total, 2);
		if ((unsigned char)(a + 1) != b)
			add(&t->odd, 1);
	}
	if (n < 0)
		add(&t->errors, 1);
}

static void t_shared_readv_atomic(void)
{
	struct tally *t = tally_new();
	int fd = make_offset_file(scratch("readv"));

	if (t && fd >= 0) {
		run_children(readv_pairs, fd, t);
		check_every_byte_once(t, "readv of two 1-byte segments");
		if (t->odd)
			fail("%ld readv calls got bytes from two places", t->odd);
	}
	if (fd >= 0)
		close(fd);
	unlink(scratch("readv"));
	if (t)
		munmap(t, sizeof(*t));
}

// ---- write ------------------------------------------------------------------------

static void write_bytes(int fd, struct tally *t)
{
	char c = (char)('a' + getpid() % 26);

	for (int i = 0; i < WRITES_EACH; i++)
		if (write(fd, &c, 1) != 1)
			add(&t->errors, 1);
}

static void t_shared_write_no_overwrite(void)
{
	struct tally *t = tally_new();
	const char *path = scratch("write");
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	struct stat st;

	if (fd < 0)
		fail("create: errno=%d", errno);
	if (t && fd >= 0) {
		run_children(write_bytes, fd, t);
		if (t->errors)
			fail("%ld writes failed", t->errors);
		if (fstat(fd, &st) < 0)
			fail("fstat: errno=%d", errno);
		else if (st.st_size != (off_t)CHILDREN * WRITES_EACH)
			fail("file has %ld bytes after %d 1-byte writes", (long)st.st_size,
			     CHILDREN * WRITES_EACH);
		else if (lseek(fd, 0, SEEK_CUR) != st.st_size)
			fail("shared position %ld, file size %ld", (long)lseek(fd, 0, SEEK_CUR),
			     (long)st.st_size);
	}
	if (fd >= 0)
		close(fd);
	unlink(path);
	if (t)
		munmap(t, sizeof(*t));
}

// ---- getdents64 --------------------------------------------------------------------

// A buffer that holds one entry per call.
static void list_entries(int fd, struct tally *t)
{
	char buf[64] __attribute__((aligned(8)));
	long n;

	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			unsigned short reclen;
			memcpy(&reclen, buf + off + 16, 2);
			const char *name = buf + off + 19;
			if (name[0] == 'f')
				add(&t->byte_count[atoi(name + 1) % 256], 1);
			add(&t->total, 1);
			off += reclen;
		}
	}
	if (n < 0)
		add(&t->errors, 1);
}

static void t_shared_getdents_each_once(void)
{
	struct tally *t = tally_new();
	const char *dir = scratch("dir");
	char path[PATH_MAX];
	int fd = -1;

	if (mkdir(dir, 0755) < 0)
		fail("mkdir: errno=%d", errno);
	for (int i = 0; i < DIR_ENTRIES && !fail_why[0]; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		int f = open(path, O_CREAT | O_WRONLY, 0644);
		if (f < 0)
			fail("create %s: errno=%d", path, errno);
		close(f);
	}
	if (!fail_why[0])
		fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (t && fd >= 0) {
		run_children(list_entries, fd, t);
		if (t->errors)
			fail("%ld getdents64 calls failed", t->errors);
		if (t->total != DIR_ENTRIES + 2)
			fail("%ld entries listed in all, the directory has %d", t->total,
			     DIR_ENTRIES + 2);
		for (int i = 0; i < DIR_ENTRIES && !fail_why[0]; i++)
			if (t->byte_count[i] != 1)
				fail("f%d listed %ld times", i, t->byte_count[i]);
	}
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < DIR_ENTRIES; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		unlink(path);
	}
	rmdir(dir);
	if (t)
		munmap(t, sizeof(*t));
}

static const struct test_case cases[] = {
	{ "shared_read_every_byte_once", t_shared_read_every_byte_once },
	{ "shared_readv_atomic", t_shared_readv_atomic },
	{ "shared_write_no_overwrite", t_shared_write_no_overwrite },
	{ "shared_getdents_each_entry_once", t_shared_getdents_each_once },
};

int main(void)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/fpos-%d", (int)getpid());
	if (mkdir(scratch_dir, 0755) < 0)
		ktap_diag("cannot create %s: errno %d", scratch_dir, errno);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
