// fslimit: the size limit of the in-memory file tree, seen through /tmp
// as tmpfs shows it on Linux.  statfs reports the limit and what is left;
// writing and fallocate take space and unlinking gives it back; a write
// that meets the limit is short and the next fails with ENOSPC; fallocate
// is all or nothing; truncating past the limit is allowed (holes are
// free); and a full /tmp does not keep another process from allocating
// and using memory.
//
// The cases that measure or fill the file system run only where it is a
// tmpfs, and the filling one only where it holds at most 1 GiB (Switchyard's
// /tmp).  On Linux, give the directory of a small tmpfs as the argument:
//	mount -t tmpfs -o size=64m none /mnt/small
//	build/user/tests/fslimit /mnt/small
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>

#include "testcase.h"

#define TMPFS_MAGIC	0x01021994
#define MiB		(1024 * 1024)
#define CHUNK		MiB
#define FILL_FILE_MAX	(64 * MiB)	// one file takes at most this much
#define FILL_FILES_MAX	64
#define FILL_FS_MAX	(1024LL * MiB)	// fill only a file system this small

static const char *base_dir = "/tmp";
static char chunk[CHUNK];

// ---- helpers --------------------------------------------------------------

// The file system's free blocks, or -1 (failure recorded).
static long long free_blocks(void)
{
	struct statfs sf;

	if (!check_ok(statfs(scratch_dir, &sf), "statfs"))
		return -1;
	return (long long)sf.f_bfree;
}

// 1 if the scratch directory is on a tmpfs (no more than 'max_bytes' big,
// if that is not 0); else the case is skipped and 0 returned.
static int on_tmpfs(long long max_bytes)
{
	struct statfs sf;

	if (!check_ok(statfs(scratch_dir, &sf), "statfs"))
		return 0;
	if (sf.f_type != TMPFS_MAGIC) {
		skip("not a tmpfs");
		return 0;
	}
	if (max_bytes && (long long)sf.f_blocks * (long long)sf.f_bsize > max_bytes) {
		skip("tmpfs too big to fill");
		return 0;
	}
	return 1;
}

static long blocks_of(long long bytes)
{
	struct statfs sf;

	if (statfs(scratch_dir, &sf) < 0 || sf.f_bsize <= 0)
		return -1;
	return (long)((bytes + sf.f_bsize - 1) / sf.f_bsize);
}

// Writes 'len' bytes of the chunk to a new file; 0 or -1 (recorded).
static int make_file(const char *path, long len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	long done = 0;

	if (!check_ok(fd, "create"))
		return -1;
	while (done < len) {
		long n = len - done < CHUNK ? len - done : CHUNK;
		ssize_t w = write(fd, chunk, n);

		if (w <= 0) {
			fail("write %s: rc=%zd errno=%d", path, w, errno);
			close(fd);
			return -1;
		}
		done += w;
	}
	close(fd);
	return 0;
}

// ---- the cases --------------------------------------------------------------

static void t_statfs_reports_space(void)
{
	struct statfs a, b;
	int fd = open(scratch_dir, O_RDONLY | O_DIRECTORY);

	if (!check_ok(fd, "open dir"))
		return;
	check_ok(statfs(scratch_dir, &a), "statfs");
	check_ok(fstatfs(fd, &b), "fstatfs");
	close(fd);
	check(a.f_bsize > 0 && a.f_blocks > 0, "a block size and a size");
	check(a.f_bfree <= a.f_blocks && a.f_bavail <= a.f_blocks, "free space within the size");
	check(a.f_type == b.f_type && a.f_blocks == b.f_blocks, "statfs and fstatfs agree");
}

static void t_write_unlink_space(void)
{
	const char *path = scratch("one-mib");
	long long before, written, after;

	if (!on_tmpfs(0))
		return;
	before = free_blocks();
	if (make_file(path, MiB) < 0)
		return;
	written = free_blocks();
	check_ok(unlink(path), "unlink");
	after = free_blocks();
	if (before - written != blocks_of(MiB))
		fail("1 MiB written took %lld blocks, want %ld", before - written, blocks_of(MiB));
	if (after != before)
		fail("unlink gave back %lld of %lld blocks", after - written, before - written);
}

static void t_fallocate_space(void)
{
	const char *path = scratch("falloc");
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	long long before, taken;
	struct stat st;
	char buf[4096];

	if (!check_ok(fd, "create"))
		return;
	if (!on_tmpfs(0)) {
		close(fd);
		unlink(path);
		return;
	}
	before = free_blocks();
	check_ok(fallocate(fd, 0, 0, MiB), "fallocate 1 MiB");
	taken = before - free_blocks();
	if (taken != blocks_of(MiB))
		fail("fallocate of 1 MiB took %lld blocks, want %ld", taken, blocks_of(MiB));
	check(fstat(fd, &st) == 0 && st.st_size == MiB, "fallocate grew the file");
	memset(buf, 1, sizeof(buf));
	check(pread(fd, buf, sizeof(buf), MiB / 2) == sizeof(buf) && buf[0] == 0 &&
	      buf[sizeof(buf) - 1] == 0, "allocated bytes read as zeros");
	check_errno(fallocate(fd, 0, 0, 0), EINVAL, "fallocate of length 0");
	close(fd);
	check_ok(unlink(path), "unlink");
	check(free_blocks() == before, "unlink gave the space back");
}

// Fills the file system with files fill-0, fill-1, ...; returns how many
// were made (each is to be removed), with *short_writes counting writes
// that returned less than asked.  The last write must fail with ENOSPC.
static int fill_up(int *short_writes)
{
	int files = 0;

	*short_writes = 0;
	while (files < FILL_FILES_MAX) {
		char name[32];
		int fd;
		long done = 0;

		snprintf(name, sizeof(name), "fill-%d", files);
		fd = open(scratch(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (!check_ok(fd, "create a fill file"))
			return files;
		files++;
		while (done < FILL_FILE_MAX) {
			ssize_t w = write(fd, chunk, CHUNK);

			if (w == CHUNK) {
				done += w;
				continue;
			}
			if (w > 0) {
				(*short_writes)++;
				done += w;
				continue;
			}
			close(fd);
			if (w < 0 && errno == ENOSPC)
				return files;
			fail("filling: write rc=%zd errno=%d, want ENOSPC", w, errno);
			return files;
		}
		close(fd);
	}
	fail("%d files of %d MiB and no ENOSPC", FILL_FILES_MAX, FILL_FILE_MAX / MiB);
	return files;
}

static void remove_fill(int files)
{
	for (int i = 0; i < files; i++) {
		char name[32];

		snprintf(name, sizeof(name), "fill-%d", i);
		unlink(scratch(name));
	}
}

// Another process allocates and touches 8 MiB while the file system is full.
static void bystander_allocates(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		size_t n = 8 * MiB;
		unsigned char *p = malloc(n);

		if (!p)
			_exit(1);
		memset(p, 0x5a, n);
		for (size_t i = 0; i < n; i += 4096)
			if (p[i] != 0x5a)
				_exit(2);
		_exit(0);
	}
	check_child_ok(pid, "bystander allocating 8 MiB while /tmp is full");
}

// While full: no new data, but an empty file, a sparse size and other
// processes' memory are all fine.
static void check_full(void)
{
	const char *path = scratch("while-full");
	struct stat st;
	char buf[4096];
	int fd;

	bystander_allocates();
	check(free_blocks() == 0, "statfs shows no free blocks");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (!check_ok(fd, "create an empty file while full"))
		return;
	check_errno(write(fd, chunk, 1), ENOSPC, "write while full");
	check_errno(fallocate(fd, 0, 0, 4096), ENOSPC, "fallocate while full");
	check(fstat(fd, &st) == 0 && st.st_size == 0, "a failed fallocate changes nothing");
	check_ok(ftruncate(fd, 16 * MiB), "ftruncate to 16 MiB (holes) while full");
	memset(buf, 1, sizeof(buf));
	check(pread(fd, buf, sizeof(buf), 8 * MiB) == sizeof(buf) && buf[0] == 0,
	      "the hole reads as zeros");
	close(fd);
	unlink(path);
}

static void t_fill_until_enospc(void)
{
	char keep[PATH_MAX];	// scratch() reuses its buffers
	int files, short_writes, fd;
	long long start;
	ssize_t w;

	if (!on_tmpfs(FILL_FS_MAX))
		return;
	snprintf(keep, sizeof(keep), "%s", scratch("three-pages"));
	start = free_blocks();
	if (make_file(keep, 3 * 4096) < 0)
		return;
	files = fill_up(&short_writes);
	if (fail_why[0] == 0) {
		check(short_writes <= 1, "at most one short write before ENOSPC");
		check_full();
	}
	// Three pages come free: a 1 MiB write now writes exactly those
	// (a short write: the bytes written so far), then ENOSPC.
	check_ok(unlink(keep), "unlink the three-page file");
	fd = open(scratch("after"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (check_ok(fd, "create")) {
		w = write(fd, chunk, CHUNK);
		if (w != 3 * 4096)
			fail("write into 3 free pages returned %zd (errno %d), want %d", w, errno,
			     3 * 4096);
		check_errno(write(fd, chunk, CHUNK), ENOSPC, "the next write");
		close(fd);
		unlink(scratch("after"));
	}
	remove_fill(files);
	if (free_blocks() != start)
		fail("free blocks %lld after removing everything, %lld before", free_blocks(), start);
	if (make_file(scratch("again"), MiB) == 0)
		unlink(scratch("again"));
}

static const struct test_case cases[] = {
	{ "statfs_reports_space", t_statfs_reports_space },
	{ "write_and_unlink_change_free_space", t_write_unlink_space },
	{ "fallocate_takes_space", t_fallocate_space },
	{ "fill_until_enospc", t_fill_until_enospc },
};

int main(int argc, char **argv)
{
	if (argc > 1)
		base_dir = argv[1];
	memset(chunk, 0xa5, sizeof(chunk));
	snprintf(scratch_dir, sizeof(scratch_dir), "%s/fslimit-%d", base_dir, (int)getpid());
	if (mkdir(scratch_dir, 0755) < 0)
		ktap_diag("cannot create %s: errno %d", scratch_dir, errno);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
