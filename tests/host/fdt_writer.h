// A tiny writer of flattened device trees for the host tests
// (test_fdt.c, test_firmware.c): structure and strings built separately,
// then joined behind a header, with an empty memory-reservation map; and
// a recorder of what fdt_walk reports.
#ifndef FDT_WRITER_H
#define FDT_WRITER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lib/fdt.h>

struct writer {
	uint8_t st[4096];
	size_t nst;
	char strings[1024];
	size_t nstrings;
};

static inline void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

static inline void token(struct writer *w, uint32_t t)
{
	put32(w->st + w->nst, t);
	w->nst += 4;
}

static inline void begin(struct writer *w, const char *name)
{
	token(w, 1);
	size_t n = strlen(name) + 1;
	memcpy(w->st + w->nst, name, n);
	w->nst += (n + 3) & ~3UL;
}

static inline void end(struct writer *w)
{
	token(w, 2);
}

static inline uint32_t string_off(struct writer *w, const char *s)
{
	for (size_t i = 0; i < w->nstrings; i += strlen(w->strings + i) + 1)
		if (!strcmp(w->strings + i, s))
			return i;
	uint32_t off = w->nstrings;
	strcpy(w->strings + off, s);
	w->nstrings += strlen(s) + 1;
	return off;
}

static inline void prop(struct writer *w, const char *name, const void *v, uint32_t len)
{
	token(w, 3);
	put32(w->st + w->nst, len);
	put32(w->st + w->nst + 4, string_off(w, name));
	w->nst += 8;
	memcpy(w->st + w->nst, v, len);
	w->nst += (len + 3) & ~3UL;
}

static inline void prop_cells(struct writer *w, const char *name, int n, const uint32_t *cells)
{
	uint8_t buf[64];
	for (int i = 0; i < n; i++)
		put32(buf + 4 * i, cells[i]);
	prop(w, name, buf, 4 * n);
}

// The blob, malloc'd at exactly its size; *size set.
static inline uint8_t *finish(struct writer *w, size_t *size)
{
	size_t hdr = 40, total = hdr + 16 + w->nst + w->nstrings;
	uint8_t *b = calloc(1, total);
	put32(b, FDT_MAGIC);
	put32(b + 4, total);
	put32(b + 8, hdr + 16);				// structure
	put32(b + 12, hdr + 16 + w->nst);		// strings
	put32(b + 16, hdr);				// memory reservations (empty)
	put32(b + 20, 17);
	put32(b + 24, 16);
	put32(b + 32, w->nstrings);
	put32(b + 36, w->nst);
	memcpy(b + hdr + 16, w->st, w->nst);
	memcpy(b + hdr + 16 + w->nst, w->strings, w->nstrings);
	*size = total;
	return b;
}

// What a walk saw: "PATH:NAME:LEN[=CELL];" per property, appended to
// 'seen' by record() (an fdt_prop_fn).
static char seen[8192];

static inline void record(void *ctx, const char *path, const char *name, const void *v, uint32_t len)
{
	(void)ctx;
	size_t n = strlen(seen);
	snprintf(seen + n, sizeof(seen) - n, "%s:%s:%u", path, name, len);
	if (len == 4)
		snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "=%#x", fdt_cell32(v, 0));
	strcat(seen, ";");
}

#endif
