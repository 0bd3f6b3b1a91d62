// A flattened device tree reader: a walk over the structure block that
// checks every offset and length against the blob's size before use.

#include <lib/fdt.h>

#define FDT_BEGIN_NODE	1
#define FDT_END_NODE	2
#define FDT_PROP	3
#define FDT_NOP		4
#define FDT_END		9

// Header fields, in 32-bit big-endian words.
#define HDR_MAGIC	0
#define HDR_TOTALSIZE	1
#define HDR_OFF_STRUCT	2
#define HDR_OFF_STRINGS	3
#define HDR_VERSION	5
#define HDR_SIZE_STRINGS 8
#define HDR_SIZE_STRUCT	9
#define HDR_WORDS	10

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint32_t fdt_cell32(const void *value, uint32_t index)
{
	return be32((const uint8_t *)value + 4 * index);
}

uint64_t fdt_cell64(const void *value, uint32_t index)
{
	return (uint64_t)fdt_cell32(value, 2 * index) << 32 | fdt_cell32(value, 2 * index + 1);
}

static uint32_t header(const void *blob, int word)
{
	return be32((const uint8_t *)blob + 4 * word);
}

uint32_t fdt_size(const void *blob, size_t avail)
{
	if (!blob || avail < 4 * HDR_WORDS || header(blob, HDR_MAGIC) != FDT_MAGIC)
		return 0;
	uint32_t total = header(blob, HDR_TOTALSIZE);
	if (total < 4 * HDR_WORDS || total > avail || header(blob, HDR_VERSION) < 16)
		return 0;
	return total;
}

// The length of the NUL-terminated string at s within [s, end), or -1.
static long bounded_strlen(const char *s, const char *end)
{
	for (const char *p = s; p < end; p++)
		if (!*p)
			return p - s;
	return -1;
}

#define FDT_MAX_DEPTH	32

// Appends "/name" to the path (no separator after the root's "/"); -1 if
// it would not fit.
static int path_push(char *path, size_t *len, const char *name, long nlen)
{
	if (*len == 0) {		// the root node: its name is empty
		path[0] = '/';
		path[1] = 0;
		*len = 1;
		return 0;
	}
	size_t sep = *len > 1 ? 1 : 0;
	if (*len + sep + (size_t)nlen + 1 > FDT_MAX_PATH)
		return -1;
	if (sep)
		path[(*len)++] = '/';
	for (long i = 0; i < nlen; i++)
		path[(*len)++] = name[i];
	path[*len] = 0;
	return 0;
}

int fdt_walk(const void *blob, size_t avail, fdt_prop_fn fn, void *ctx)
{
	uint32_t total = fdt_size(blob, avail);
	if (!total)
		return -1;
	const uint8_t *base = blob;
	uint32_t soff = header(blob, HDR_OFF_STRUCT), ssize = header(blob, HDR_SIZE_STRUCT);
	uint32_t stroff = header(blob, HDR_OFF_STRINGS), strsize = header(blob, HDR_SIZE_STRINGS);
	if (soff > total || ssize > total - soff || stroff > total || strsize > total - stroff)
		return -1;
	const uint8_t *p = base + soff, *end = p + ssize;
	const char *strings = (const char *)base + stroff, *strings_end = strings + strsize;
	char path[FDT_MAX_PATH];
	size_t len = 0, outer[FDT_MAX_DEPTH];	// the path's length in each open node
	int depth = 0;

	path[0] = 0;
	while (p + 4 <= end) {
		uint32_t token = be32(p);
		p += 4;
		if (token == FDT_BEGIN_NODE) {
			long nlen = bounded_strlen((const char *)p, (const char *)end);
			if (nlen < 0 || depth == FDT_MAX_DEPTH)
				return -1;
			outer[depth++] = len;
			if (path_push(path, &len, (const char *)p, nlen) < 0)
				return -1;
			p += (nlen + 1 + 3) & ~3L;
		} else if (token == FDT_END_NODE) {
			if (depth == 0)
				return -1;
			len = outer[--depth];
			path[len] = 0;
		} else if (token == FDT_PROP) {
			if (depth == 0 || end - p < 8)
				return -1;
			uint32_t vlen = be32(p), nameoff = be32(p + 4);
			p += 8;
			if (vlen > (size_t)(end - p) || nameoff >= strsize)
				return -1;
			const char *name = strings + nameoff;
			if (bounded_strlen(name, strings_end) < 0)
				return -1;
			fn(ctx, path, name, p, vlen);
			p += ((size_t)vlen + 3) & ~(size_t)3;
		} else if (token == FDT_NOP) {
			continue;
		} else if (token == FDT_END) {
			return depth == 0 ? 0 : -1;
		} else {
			return -1;
		}
	}
	return -1;
}

int fdt_node_is(const char *path, const char *name)
{
	const char *last = path;

	for (const char *s = path; *s; s++)
		if (*s == '/')
			last = s + 1;
	while (*name && *last == *name) {
		last++;
		name++;
	}
	return *name == 0 && (*last == 0 || *last == '@');
}
