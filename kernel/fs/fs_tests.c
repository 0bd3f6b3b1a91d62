// In-kernel tests of the file layer: lookups, file data, directories,
// pipes and initramfs unpacking.  They run on a kernel thread (no
// process: relative paths start at the root) inside a scratch directory
// each test removes again.

#include <fs/vfs.h>
#include <fs/file.h>
#include <fs/pipe.h>
#include <fs/poll.h>
#include <fs/fcntl.h>
#include <fs/cpio.h>
#include <kernel/ktest.h>
#include <kernel/uaccess.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <mm/phys.h>
#include <uapi/errno.h>

// Creates 'path' (absolute) as a directory, file or symlink.
static int make(const char *path, enum vnode_type type, const char *target)
{
	char name[NAME_MAX + 1];
	struct vnode *dir;
	int rc = vfs_lookup_parent(NULL, path, &dir, name, NULL);

	if (rc)
		return rc;
	rc = vfs_create(dir, name, type, 0755, target, NULL);
	vnode_put(dir);
	return rc;
}

static int remove(const char *path, bool is_dir)
{
	char name[NAME_MAX + 1];
	struct vnode *dir;
	int rc = vfs_lookup_parent(NULL, path, &dir, name, NULL);

	if (rc)
		return rc;
	rc = vfs_unlink(dir, name, is_dir);
	vnode_put(dir);
	return rc;
}

// The error of looking 'path' up (0 on success, the vnode dropped).
static int lookup_rc(const char *path, bool follow)
{
	struct vnode *vn;
	int rc = vfs_lookup(path, follow, &vn);

	if (rc == 0)
		vnode_put(vn);
	return rc;
}

static bool lookup_is(const char *path, bool follow, const char *want_path)
{
	char buf[128];
	struct vnode *vn;
	int rc = vfs_lookup(path, follow, &vn);

	if (rc)
		return false;
	rc = vnode_path(vn, buf, sizeof(buf));
	vnode_put(vn);
	return rc > 0 && strcmp(buf, want_path) == 0;
}

KTEST(fs, lookup_edge_cases)
{
	char longname[NAME_MAX + 2];

	KEXPECT(make("/ktl", VNODE_DIR, NULL) == 0);
	KEXPECT(make("/ktl/a", VNODE_DIR, NULL) == 0);
	KEXPECT(make("/ktl/a/b", VNODE_DIR, NULL) == 0);
	KEXPECT(make("/ktl/f", VNODE_REG, NULL) == 0);
	KEXPECT(make("/ktl/l", VNODE_SYMLINK, "a/b") == 0);
	KEXPECT(make("/ktl/abs", VNODE_SYMLINK, "/ktl/a") == 0);
	KEXPECT(make("/ktl/loop", VNODE_SYMLINK, "loop") == 0);
	KEXPECT(make("/ktl/dangling", VNODE_SYMLINK, "nowhere") == 0);

	KEXPECT(make("/ktl/a", VNODE_DIR, NULL) == -EEXIST);
	KEXPECT(lookup_is("//ktl///a/./b/../b", true, "/ktl/a/b"));
	KEXPECT(lookup_is("ktl/a/b", true, "/ktl/a/b"));	// no process: from the root
	KEXPECT(lookup_is("/..", true, "/"));
	KEXPECT(lookup_is("/../../ktl/..", true, "/"));
	KEXPECT(lookup_is("/ktl/l", true, "/ktl/a/b"));
	KEXPECT(lookup_is("/ktl/l/..", true, "/ktl/a"));	// ".." of where the link led
	KEXPECT(lookup_is("/ktl/abs/b", true, "/ktl/a/b"));
	KEXPECT(lookup_is("/ktl/l", false, "/ktl/l"));		// the link itself
	KEXPECT(lookup_is("/ktl/l/", false, "/ktl/a/b"));	// a trailing slash follows
	KEXPECT(lookup_is("/ktl/a/", true, "/ktl/a"));

	KEXPECT(lookup_rc("/ktl/missing", true) == -ENOENT);
	KEXPECT(lookup_rc("/ktl/missing/x", true) == -ENOENT);
	KEXPECT(lookup_rc("/ktl/f/x", true) == -ENOTDIR);
	KEXPECT(lookup_rc("/ktl/f/", true) == -ENOTDIR);
	KEXPECT(lookup_rc("/ktl/f", true) == 0);
	KEXPECT(lookup_rc("/ktl/loop", true) == -ELOOP);
	KEXPECT(lookup_rc("/ktl/loop", false) == 0);
	KEXPECT(lookup_rc("/ktl/loop/x", false) == -ELOOP);
	KEXPECT(lookup_rc("/ktl/dangling", true) == -ENOENT);
	KEXPECT(lookup_rc("", true) == -ENOENT);
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	KEXPECT(lookup_rc(longname, true) == -ENAMETOOLONG);

	// Parent lookups: the last component comes back as a name.
	char name[NAME_MAX + 1];
	struct vnode *dir;
	bool slash;
	KEXPECT(vfs_lookup_parent(NULL, "/ktl/a/newdir/", &dir, name, &slash) == 0);
	KEXPECT(strcmp(name, "newdir") == 0 && slash);
	vnode_put(dir);
	KEXPECT(vfs_lookup_parent(NULL, "/", &dir, name, &slash) == 0 && name[0] == 0);
	vnode_put(dir);
	KEXPECT(vfs_lookup_parent(NULL, "/ktl/f/x", &dir, name, &slash) == -ENOTDIR);

	// Removal rules.
	KEXPECT(remove("/ktl/a", true) == -ENOTEMPTY);
	KEXPECT(remove("/ktl/a", false) == -EISDIR);
	KEXPECT(remove("/ktl/f", true) == -ENOTDIR);
	KEXPECT(remove("/ktl/nothere", false) == -ENOENT);
	KEXPECT(remove("/ktl/a/b", true) == 0);
	KEXPECT(lookup_rc("/ktl/l", true) == -ENOENT);
	KEXPECT(remove("/ktl/a", true) == 0);
	const char *files[] = { "/ktl/f", "/ktl/l", "/ktl/abs", "/ktl/loop", "/ktl/dangling" };
	for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		KEXPECT(remove(files[i], false) == 0);
	KEXPECT(remove("/ktl", true) == 0);
	return true;
}

KTEST(fs, file_growth_and_holes)
{
	enum { OFF = 3 * 4096 + 10, BIG = 3 * 4096 + 5 };
	struct vnode *vn;
	char *buf = kmalloc(8 * 4096);
	bool ok = true;

	KEXPECT(buf);
	KEXPECT(make("/ktg", VNODE_REG, NULL) == 0);
	KEXPECT(vfs_lookup("/ktg", true, &vn) == 0);

	// A write far past the end leaves a hole that reads as zeros.
	KEXPECT(vnode_write(vn, OFF, "tail", 4) == 4);
	KEXPECT(vn->size == OFF + 4);
	memset(buf, 0x55, 8 * 4096);
	KEXPECT(vnode_read(vn, 0, buf, 8 * 4096) == OFF + 4);
	for (int i = 0; i < OFF; i++)
		ok &= buf[i] == 0;
	KEXPECT(ok);
	KEXPECT(memcmp(buf + OFF, "tail", 4) == 0);
	KEXPECT(vnode_read(vn, OFF + 4, buf, 10) == 0);		// at the end
	KEXPECT(vnode_read(vn, OFF + 400, buf, 10) == 0);	// past it

	// Growth across pages, read back in odd pieces.
	for (int i = 0; i < BIG; i++)
		buf[i] = (char)(i * 7 + 3);
	KEXPECT(vnode_write(vn, 100, buf, BIG) == BIG);
	for (size_t at = 0; at < BIG; at += 1000) {
		char piece[1000];
		size_t n = BIG - at < 1000 ? BIG - at : 1000;
		KEXPECT(vnode_read(vn, 100 + at, piece, n) == (long)n);
		KEXPECT(memcmp(piece, buf + at, n) == 0);
	}

	// Shrinking then growing again must not resurrect old bytes.
	KEXPECT(vnode_truncate(vn, 150) == 0);
	KEXPECT(vnode_truncate(vn, 9000) == 0);
	KEXPECT(vnode_read(vn, 0, buf, 9000) == 9000);
	ok = true;
	for (int i = 150; i < 9000; i++)
		ok &= buf[i] == 0;
	KEXPECT(ok);

	// Unlinked but referenced: still readable, freed with the last put.
	KEXPECT(remove("/ktg", false) == 0);
	KEXPECT(lookup_rc("/ktg", true) == -ENOENT);
	KEXPECT(vn->nlink == 0);
	KEXPECT(vnode_write(vn, 0, "still", 5) == 5);
	KEXPECT(vnode_read(vn, 0, buf, 5) == 5 && memcmp(buf, "still", 5) == 0);
	vnode_put(vn);
	kfree(buf);
	return true;
}

// fs_size= values: bytes with K/M/G, or a percentage of RAM.
KTEST(fs, size_option)
{
	static const char *const bad[] = { "", "%", "0%", "101%", "12X", "M", "-1", "1.5G",
					   "99999999999999999999", "17179869184G" };
	uint64_t v;
	bool pct;

	KEXPECT(fs_size_parse("64M", &v, &pct) == 0 && v == 64ULL << 20 && !pct);
	KEXPECT(fs_size_parse("2g", &v, &pct) == 0 && v == 2ULL << 30 && !pct);
	KEXPECT(fs_size_parse("100k", &v, &pct) == 0 && v == 100ULL << 10 && !pct);
	KEXPECT(fs_size_parse("12345", &v, &pct) == 0 && v == 12345 && !pct);
	KEXPECT(fs_size_parse("0", &v, &pct) == 0 && v == 0 && !pct);
	KEXPECT(fs_size_parse("25%", &v, &pct) == 0 && v == 25 && pct);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		KEXPECT(fs_size_parse(bad[i], &v, &pct) == -1);
	return true;
}

// The tree's space: data pages count, holes do not, and every page comes
// back when it is cut off or its file goes.
KTEST(fs, space_accounting)
{
	uint64_t total, free0, free;
	struct vnode *vn;
	char page[64] = "data";

	vfs_space(&total, &free0);
	KEXPECT(total > 0 && free0 <= total);
	KEXPECT(make("/kts", VNODE_REG, NULL) == 0);
	KEXPECT(vfs_lookup("/kts", true, &vn) == 0);
	KEXPECT(vnode_write(vn, 0, page, sizeof(page)) == sizeof(page));
	KEXPECT(vnode_write(vn, 2 * 4096 + 5, page, sizeof(page)) == sizeof(page));
	vfs_space(&total, &free);
	KEXPECT(free0 - free == 2);		// pages 0 and 2; page 1 is a hole
	KEXPECT(vnode_truncate(vn, 100 * 4096) == 0);
	vfs_space(&total, &free);
	KEXPECT(free0 - free == 2);		// growing makes holes only
	KEXPECT(vnode_allocate(vn, 0, 4 * 4096, false) == 0);
	vfs_space(&total, &free);
	KEXPECT(free0 - free == 4);		// pages 1 and 3 filled in
	KEXPECT(vnode_truncate(vn, 4096) == 0);
	vfs_space(&total, &free);
	KEXPECT(free0 - free == 1);
	// More than the whole limit: refused, nothing changed.
	if (total < VNODE_MAX_FILE_SIZE / 4096)
		KEXPECT(vnode_allocate(vn, 0, (total + 1) * 4096, false) == -ENOSPC);
	KEXPECT(vn->size == 4096);
	vfs_space(&total, &free);
	KEXPECT(free0 - free == 1);
	KEXPECT(remove("/kts", false) == 0);
	vnode_put(vn);
	vfs_space(&total, &free);
	KEXPECT(free == free0);
	return true;
}

struct listing {
	char names[16][16];
	int n;
	int limit;		// stop after this many entries per call
};

static bool collect(void *arg, const char *name, size_t len, uint64_t ino, unsigned type,
		    uint64_t next_pos)
{
	struct listing *l = arg;

	(void)ino; (void)type; (void)next_pos;
	if (l->limit-- <= 0 || l->n >= 16 || len >= 16)
		return false;
	memcpy(l->names[l->n], name, len);
	l->names[l->n][len] = 0;
	l->n++;
	return true;
}

static bool listed(struct listing *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->names[i], name))
			return true;
	return false;
}

KTEST(fs, readdir_positions_and_rename)
{
	struct listing l = { .limit = 100 };
	struct vnode *dir;
	uint64_t pos = 0;

	KEXPECT(make("/ktd", VNODE_DIR, NULL) == 0);
	KEXPECT(make("/ktd/a", VNODE_REG, NULL) == 0);
	KEXPECT(make("/ktd/b", VNODE_REG, NULL) == 0);
	KEXPECT(make("/ktd/c", VNODE_REG, NULL) == 0);
	KEXPECT(make("/ktd/sub", VNODE_DIR, NULL) == 0);
	KEXPECT(vfs_lookup("/ktd", true, &dir) == 0);

	// Read ". .. a" then delete a and b: the listing goes on with c,
	// skipping nothing that still exists.
	l.limit = 3;
	KEXPECT(vfs_readdir(dir, &pos, collect, &l) == 0);
	KEXPECT(l.n == 3 && listed(&l, ".") && listed(&l, "..") && listed(&l, "a"));
	KEXPECT(remove("/ktd/a", false) == 0);
	KEXPECT(remove("/ktd/b", false) == 0);
	l.limit = 100;
	KEXPECT(vfs_readdir(dir, &pos, collect, &l) == 0);
	KEXPECT(l.n == 5 && listed(&l, "c") && listed(&l, "sub") && !listed(&l, "b"));

	// Rename: over a file, into a subdirectory, and the forbidden ones.
	KEXPECT(make("/ktd/d", VNODE_REG, NULL) == 0);
	KEXPECT(vfs_rename(dir, "c", dir, "d", 0) == 0);
	KEXPECT(lookup_rc("/ktd/c", true) == -ENOENT && lookup_rc("/ktd/d", true) == 0);
	struct vnode *sub;
	KEXPECT(vfs_lookup("/ktd/sub", true, &sub) == 0);
	KEXPECT(vfs_rename(dir, "d", sub, "moved", 0) == 0);
	KEXPECT(lookup_rc("/ktd/sub/moved", true) == 0);
	KEXPECT(vfs_rename(dir, "sub", sub, "inside", 0) == -EINVAL);
	KEXPECT(make("/ktd/file", VNODE_REG, NULL) == 0);
	KEXPECT(vfs_rename(dir, "file", dir, "sub", 0) == -EISDIR);
	KEXPECT(vfs_rename(dir, "sub", dir, "file", 0) == -ENOTDIR);
	KEXPECT(vfs_rename(dir, "file", dir, "file", 0) == 0);
	KEXPECT(vfs_rename(dir, "sub", dir, "renamed", 0) == 0);
	KEXPECT(lookup_is("/ktd/renamed/moved", true, "/ktd/renamed/moved"));
	KEXPECT(lookup_rc("/ktd/renamed/moved/..", true) == -ENOTDIR);
	vnode_put(sub);

	KEXPECT(remove("/ktd/renamed/moved", false) == 0);
	KEXPECT(remove("/ktd/renamed", true) == 0);
	KEXPECT(remove("/ktd/file", false) == 0);
	vnode_put(dir);
	KEXPECT(remove("/ktd", true) == 0);
	return true;
}

// A big directory's hash index: names are found through every growth of
// the table; a readdir in small chunks, with names removed and added
// meanwhile, gives each name that stays exactly once, in creation order;
// the emptied directory gives the table back.
enum { BIG_N = 600 };

struct big_listing {
	uint8_t seen[BIG_N];
	uint64_t last_pos;
	int limit, dots, added, bad;
};

static bool big_collect(void *arg, const char *name, size_t len, uint64_t ino, unsigned type,
			uint64_t next_pos)
{
	struct big_listing *l = arg;
	int i = 0;

	(void)ino; (void)type;
	if (l->limit-- <= 0)
		return false;
	l->bad += next_pos <= l->last_pos;	// positions only go forward
	l->last_pos = next_pos;
	if (name[0] == '.') {
		l->dots++;
		return true;
	}
	if (name[0] == 'n') {
		l->added++;
		return true;
	}
	for (size_t k = 1; k < len; k++)
		i = i * 10 + (name[k] - '0');
	if (i < 0 || i >= BIG_N)
		l->bad++;
	else
		l->seen[i]++;
	return true;
}

static void big_name(char *buf, size_t size, char kind, int i)
{
	ksnprintf(buf, size, "/ktb/%c%d", kind, i);
}

KTEST(fs, big_directory_index)
{
	static struct big_listing l;
	struct vnode *dir;
	uint64_t pos = 0;
	char path[32];
	bool ok = true;

	memset(&l, 0, sizeof(l));
	KEXPECT(make("/ktb", VNODE_DIR, NULL) == 0);
	for (int i = 0; i < BIG_N && ok; i++) {
		big_name(path, sizeof(path), 'f', i);
		ok = make(path, VNODE_REG, NULL) == 0;
	}
	KEXPECT(ok);
	KEXPECT(vfs_lookup("/ktb", true, &dir) == 0);
	KEXPECT(dir->dir_nbuckets >= BIG_N / 2);
	for (int i = 0; i < BIG_N && ok; i++) {
		big_name(path, sizeof(path), 'f', i);
		ok = lookup_rc(path, true) == 0;
	}
	KEXPECT(ok);
	KEXPECT(make("/ktb/f7", VNODE_REG, NULL) == -EEXIST);
	KEXPECT(lookup_rc("/ktb/f600", true) == -ENOENT);

	// Chunks of 7; after each, the next name of every third is removed
	// (it is then never listed) and a new one added (after the end:
	// listed, once, as a readdir reaching it would).
	int removed = 0;
	do {
		l.limit = 7;
		KEXPECT(vfs_readdir(dir, &pos, big_collect, &l) == 0);
		for (int i = 0; i < BIG_N; i++) {
			if (i % 3 == 0 && !l.seen[i] && i / 3 == removed) {
				big_name(path, sizeof(path), 'f', i);
				ok &= remove(path, false) == 0;
				big_name(path, sizeof(path), 'n', removed);
				ok &= make(path, VNODE_REG, NULL) == 0;
				removed++;
				break;
			}
		}
	} while (l.limit < 0);
	KEXPECT(ok && l.bad == 0 && l.dots == 2);
	for (int i = 0; i < BIG_N; i++) {
		bool gone = i % 3 == 0 && i / 3 < removed;
		ok &= l.seen[i] == (gone ? 0 : 1);
	}
	KEXPECT(ok);
	KEXPECT(l.added == removed);

	for (int i = 0; i < BIG_N; i++) {
		big_name(path, sizeof(path), 'f', i);
		if (i % 3 != 0 || i / 3 >= removed)
			ok &= remove(path, false) == 0;
	}
	for (int i = 0; i < removed; i++) {
		big_name(path, sizeof(path), 'n', i);
		ok &= remove(path, false) == 0;
	}
	KEXPECT(ok);
	KEXPECT(dir->dir_buckets == NULL && dir->dir_nbuckets == 0 && dir_is_empty(dir));
	vnode_put(dir);
	KEXPECT(remove("/ktb", true) == 0);
	return true;
}

KTEST(fs, pipe_ring_wraparound)
{
	enum { CHUNK = 20000 };
	struct file *rd, *wr;
	char *out = kmalloc(CHUNK), *in = kmalloc(CHUNK);
	uint32_t next_out = 0, next_in = 0;
	bool ok = true;

	KEXPECT(out && in);
	KEXPECT(pipe_create(&rd, &wr, O_NONBLOCK) == 0);
	KEXPECT((file_poll(rd) & POLLIN) == 0 && (file_poll(wr) & POLLOUT));

	// Keep the ring between half and nearly full while 1 MiB flows,
	// so the ends wrap many times at ever-changing offsets.
	for (int round = 0; round < 60; round++) {
		struct iobuf b = iobuf_kernel(out);
		long n;

		for (int i = 0; i < CHUNK; i++)
			out[i] = (char)(next_out + i);
		n = file_write(wr, &b, CHUNK);
		if (n <= 0) {
			ok = n == -EAGAIN;
			n = 0;
		}
		next_out += (uint32_t)n;
		b = iobuf_kernel(in);
		n = file_read(rd, &b, CHUNK - 777);
		if (n <= 0)
			break;
		for (long i = 0; i < n; i++)
			ok &= in[i] == (char)(next_in + i);
		next_in += (uint32_t)n;
	}
	KEXPECT(ok);
	KEXPECT(next_in > 512 * 1024);

	// Drain what is left of the rounds.
	struct iobuf b;
	for (;;) {
		b = iobuf_kernel(in);
		if (file_read(rd, &b, CHUNK) <= 0)
			break;
	}
	// Fill to the brim, as Linux's slots fill: four writes of 1000
	// share a page, the fifth starts the next slot, so 16 slots take
	// 64000 bytes; then single bytes top up only the last slot.  A write
	// that does not fit in a full pipe fails with EAGAIN, an atomic one
	// never goes in halfway.
	b = iobuf_kernel(out);
	while (file_write(wr, &b, 1000) > 0)
		;
	KEXPECT(pipe_bytes_ready(rd) == 16 * 4000);
	while (file_write(wr, &b, 1) > 0)
		;
	KEXPECT(file_write(wr, &b, 1) == -EAGAIN);
	KEXPECT((file_poll(wr) & POLLOUT) == 0 && (file_poll(rd) & POLLIN));
	KEXPECT(pipe_bytes_ready(rd) == 15 * 4000 + 4096);

	// Drain, then EOF once the writer is gone.
	while (1) {
		b = iobuf_kernel(in);
		long n = file_read(rd, &b, CHUNK);
		if (n <= 0) {
			KEXPECT(n == -EAGAIN);
			break;
		}
	}
	file_put(wr);
	b = iobuf_kernel(in);
	KEXPECT(file_read(rd, &b, 10) == 0);
	KEXPECT(file_poll(rd) & POLLHUP);
	file_put(rd);
	kfree(out);
	kfree(in);
	return true;
}

// Appends one newc entry to buf at *len.
static void cpio_add(char *buf, size_t *len, const char *name, uint32_t mode, const char *data,
		     size_t size)
{
	size_t namesize = strlen(name) + 1;

	*len += ksnprintf(buf + *len, 200,
			  "070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
			  1u, mode, 0u, 0u, 1u, 0u, (unsigned)size, 0u, 0u, 0u, 0u,
			  (unsigned)namesize, 0u);
	memcpy(buf + *len, name, namesize);
	*len += namesize;
	while (*len % 4)
		buf[(*len)++] = 0;
	memcpy(buf + *len, data, size);
	*len += size;
	while (*len % 4)
		buf[(*len)++] = 0;
}

KTEST(fs, cpio_unpack)
{
	char *archive = kzalloc(4096);
	char buf[32];
	struct vnode *vn;
	size_t len = 0;

	KEXPECT(archive);
	cpio_add(archive, &len, ".", 040755, "", 0);
	cpio_add(archive, &len, "ktc", 040700, "", 0);
	cpio_add(archive, &len, "ktc/hello", 0100644, "hello, world\n", 13);
	cpio_add(archive, &len, "./ktc/implied/deep/file", 0100755, "x", 1);
	cpio_add(archive, &len, "ktc/empty", 0100600, "", 0);
	cpio_add(archive, &len, "ktc/link", 0120777, "hello", 5);
	cpio_add(archive, &len, "TRAILER!!!", 0, "", 0);
	KEXPECT(vfs_unpack(archive, len) == 0);

	KEXPECT(vfs_lookup("/ktc", true, &vn) == 0);
	KEXPECT(vn->type == VNODE_DIR && (vn->mode & 07777) == 0700);
	vnode_put(vn);
	KEXPECT(vfs_lookup("/ktc/link", true, &vn) == 0);	// through the symlink
	KEXPECT(vn->type == VNODE_REG && vn->size == 13);
	KEXPECT(vnode_read(vn, 0, buf, sizeof(buf)) == 13 && !memcmp(buf, "hello, world\n", 13));
	vnode_put(vn);
	KEXPECT(vfs_lookup("/ktc/implied/deep/file", true, &vn) == 0);
	KEXPECT((vn->mode & 0777) == 0755 && vn->size == 1);
	vnode_put(vn);
	KEXPECT(vfs_lookup("/ktc/empty", true, &vn) == 0);
	KEXPECT(vn->size == 0 && vnode_read(vn, 0, buf, sizeof(buf)) == 0);
	vnode_put(vn);

	// A truncated archive is an error; what came before stays.
	KEXPECT(vfs_unpack(archive, 200) == -EINVAL);

	const char *gone[] = { "/ktc/link", "/ktc/empty", "/ktc/hello", "/ktc/implied/deep/file" };
	for (unsigned i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
		KEXPECT(remove(gone[i], false) == 0);
	KEXPECT(remove("/ktc/implied/deep", true) == 0);
	KEXPECT(remove("/ktc/implied", true) == 0);
	KEXPECT(remove("/ktc", true) == 0);
	kfree(archive);
	return true;
}

KTEST(fs, fdtable_dup_and_close)
{
	struct fdtable *fdt = fdtable_new(), *copy;
	struct file *rd, *wr;

	KEXPECT(fdt);
	KEXPECT(pipe_create(&rd, &wr, O_NONBLOCK) == 0);
	KEXPECT(fd_install(fdt, rd, 0, false) == 0);
	KEXPECT(fd_install(fdt, wr, 0, true) == 1);
	KEXPECT(fd_install(fdt, rd, 5, false) == 5);
	file_put(wr);			// the table holds the write end now
	KEXPECT(fd_dup_to(fdt, 1, 200, true) == 200);		// grows the table
	KEXPECT(fd_get_cloexec(fdt, 200) == 1 && fd_get_cloexec(fdt, 5) == 0);
	KEXPECT(fd_close(fdt, 7) == -EBADF);
	KEXPECT(fd_dup_to(fdt, 9, 3, false) == -EBADF);
	copy = fdtable_copy(fdt);
	KEXPECT(copy);
	fdtable_close_on_exec(copy);
	KEXPECT(fd_get_cloexec(copy, 1) == -EBADF && fd_get_cloexec(copy, 200) == -EBADF);
	KEXPECT(fd_get_cloexec(copy, 0) == 0 && fd_get_cloexec(copy, 5) == 0);
	// The writer survives in 'fdt': no EOF for the reader yet.
	struct iobuf b = iobuf_kernel((char[4]){ 0 });
	KEXPECT(file_read(rd, &b, 1) == -EAGAIN);
	fdtable_put(fdt);
	KEXPECT(file_read(rd, &b, 1) == 0);			// all writers gone
	fdtable_put(copy);
	file_put(rd);
	return true;
}
