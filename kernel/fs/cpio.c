// The newc cpio parser (see fs/cpio.h).  Untrusted input: every length is
// checked against what is left of the archive before it is used.

#include <fs/cpio.h>
#include <uapi/errno.h>

#define HEADER_LEN	110
#define FIELD_LEN	8

// Field order in the header, after the 6-byte magic.
enum {
	F_INO, F_MODE, F_UID, F_GID, F_NLINK, F_MTIME, F_FILESIZE,
	F_DEVMAJOR, F_DEVMINOR, F_RDEVMAJOR, F_RDEVMINOR, F_NAMESIZE, F_CHECK,
	F_COUNT
};

void cpio_iter_init(struct cpio_iter *it, const void *archive, size_t len)
{
	it->base = archive;
	it->len = len;
	it->pos = 0;
	it->done = false;
}

// Parses one 8-digit hex field; false if any character is not hex.
static bool parse_hex8(const uint8_t *p, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < FIELD_LEN; i++) {
		uint8_t c = p[i];
		uint32_t d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static bool names_equal(const char *a, size_t alen, const char *b)
{
	size_t i;

	for (i = 0; i < alen && b[i]; i++)
		if (a[i] != b[i])
			return false;
	return i == alen && b[i] == 0;
}

int cpio_next(struct cpio_iter *it, struct cpio_entry *e)
{
	static const char magic[6] = { '0', '7', '0', '7', '0', '1' };
	uint32_t f[F_COUNT];
	const uint8_t *h;
	size_t left, name_off, data_off, end;

	if (it->done)
		return 0;
	if (it->pos > it->len || it->len - it->pos < HEADER_LEN)
		return -EINVAL;
	h = it->base + it->pos;
	for (int i = 0; i < 6; i++)
		if (h[i] != magic[i])
			return -EINVAL;
	for (int i = 0; i < F_COUNT; i++)
		if (!parse_hex8(h + 6 + i * FIELD_LEN, &f[i]))
			return -EINVAL;

	// The name (with its NUL) must fit, and end in exactly one NUL.
	left = it->len - it->pos;
	if (f[F_NAMESIZE] == 0 || f[F_NAMESIZE] > left - HEADER_LEN)
		return -EINVAL;
	name_off = HEADER_LEN;
	if (h[name_off + f[F_NAMESIZE] - 1] != 0)
		return -EINVAL;
	for (size_t i = 0; i + 1 < f[F_NAMESIZE]; i++)
		if (h[name_off + i] == 0)
			return -EINVAL;

	e->name = (const char *)h + name_off;
	e->namelen = f[F_NAMESIZE] - 1;
	e->mode = f[F_MODE];
	e->uid = f[F_UID];
	e->gid = f[F_GID];
	e->ino = f[F_INO];
	e->nlink = f[F_NLINK];
	e->mtime = f[F_MTIME];
	e->data = NULL;
	e->size = 0;
	// The trailer ends the archive wherever its name ends: what follows
	// (padding to a block) is not needed.
	if (names_equal(e->name, e->namelen, "TRAILER!!!")) {
		it->done = true;
		return 0;
	}

	// The data starts after the name padded to 4 bytes (counting from
	// the start of the header, which is itself 4-byte aligned).
	data_off = align4(name_off + f[F_NAMESIZE]);
	if (data_off > left || f[F_FILESIZE] > left - data_off)
		return -EINVAL;
	end = data_off + f[F_FILESIZE];

	e->data = h + data_off;
	e->size = f[F_FILESIZE];
	// Padding after the last entry's data may be cut off; the next
	// call reports that as truncation if it matters.
	end = align4(end);
	it->pos += end <= left ? end : left;
	return 1;
}
