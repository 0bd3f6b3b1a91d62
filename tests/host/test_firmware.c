// Host tests of arch/ppc64le/firmware/firmware.c: the RTAS entry it adds
// to QEMU's device tree.  The tree must stay well formed (lib/fdt.c reads
// it back), keep every property it had, gain "linux,rtas-base" and
// "linux,rtas-entry" in /rtas and a reservation of the code, and the code
// must be the hypercall; a tree it does not expect is left as it was.
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lib/fdt.h>
#include "../../arch/ppc64le/firmware/firmware.h"
#include "fdt_writer.h"
#include "ktap.h"

#define ROOM	(4 * 4096)	// the buffer: the tree, then free memory

// ktap_ok with a formatted name (its diagnostics after a newline).
static void ktap_check(int cond, const char *fmt, ...)
{
	char name[20000];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (!cond) {
		char *nl = strchr(name, '\n');
		if (nl) {
			printf("#%s\n", nl + 1);
			*nl = 0;
		}
	} else {
		char *nl = strchr(name, '\n');
		if (nl)
			*nl = 0;
	}
	ktap_ok(cond, name);
}

static void pseries_like(struct writer *w, int with_rtas, int with_base)
{
	memset(w, 0, sizeof(*w));
	begin(w, "");
	prop_cells(w, "#address-cells", 1, (uint32_t[]){ 2 });
	begin(w, "chosen");
	prop(w, "bootargs", "console=hvc0", 13);
	end(w);
	if (with_rtas) {
		begin(w, "rtas");
		prop_cells(w, "start-cpu", 1, (uint32_t[]){ 0x2006 });
		prop_cells(w, "rtas-size", 1, (uint32_t[]){ 0x83c });
		if (with_base)
			prop_cells(w, "linux,rtas-base", 1, (uint32_t[]){ 0x1000 });
		begin(w, "child");
		prop(w, "name", "child", 6);
		end(w);
		end(w);
	}
	begin(w, "vdevice");
	prop_cells(w, "#size-cells", 1, (uint32_t[]){ 0 });
	end(w);
	end(w);
	token(w, 9);
}

// The tree in a page-aligned buffer with room after it, as QEMU leaves.
static uint8_t *in_room(struct writer *w, size_t *size)
{
	uint8_t *tree = finish(w, size);
	uint8_t *b = aligned_alloc(4096, ROOM);
	memset(b, 0xa5, ROOM);
	memcpy(b, tree, *size);
	free(tree);
	return b;
}

static uint32_t be32(const uint8_t *p)
{
	return fdt_cell32(p, 0);
}

static void test_adds_rtas(void)
{
	struct writer w;
	size_t size;
	char before[sizeof(seen)], want[sizeof(seen)];

	pseries_like(&w, 1, 0);
	uint8_t *b = in_room(&w, &size);
	seen[0] = 0;
	fdt_walk(b, size, record, 0);
	strcpy(before, seen);

	uintptr_t code = fdt_add_rtas(b);
	ktap_check(code != 0 && code % 4096 == 0 && code >= (uintptr_t)b + size + 81 &&
		   code + 20 <= (uintptr_t)b + ROOM, "the code goes page-aligned after the grown tree");
	ktap_check(be32(b + 4) == size + 81, "the tree grew by 81 bytes (%u -> %u)", (unsigned)size,
		   be32(b + 4));
	seen[0] = 0;
	int rc = fdt_walk(b, be32(b + 4), record, 0);
	ktap_check(rc == 0, "the grown tree is well formed");
	// The new properties come first in /rtas, then everything as before.
	const char *rtas = strstr(before, "/rtas:");
	snprintf(want, sizeof(want), "%.*s/rtas:linux,rtas-base:4=%#x;/rtas:linux,rtas-entry:4=%#x;%s",
		 (int)(rtas - before), before, (uint32_t)code, (uint32_t)code, rtas);
	ktap_check(!strcmp(seen, want), "every property kept, the two added to /rtas\n# got  %s\n# want %s",
		   seen, want);
	const uint8_t *rsv = b + be32(b + 16);
	uint64_t addr = (uint64_t)be32(rsv) << 32 | be32(rsv + 4);
	uint64_t len = (uint64_t)be32(rsv + 8) << 32 | be32(rsv + 12);
	int terminated = 1;
	for (int i = 16; i < 32; i++)
		terminated &= rsv[i] == 0;
	ktap_check(addr == code && len == 0x1000 && terminated,
		   "the code is reserved (rtas-size 0x83c, a page), the map still terminated");
	const uint8_t *c = (const uint8_t *)code;
	ktap_check(be32(c) == 0x7c641b78 && be32(c + 4) == 0x3c600000 && be32(c + 8) == 0x6063f000 &&
		   be32(c + 12) == 0x44000022 && be32(c + 16) == 0x4e800020,
		   "the code is mr r4,r3; lis/ori r3,H_RTAS; sc 1; blr, big-endian");
	ktap_check(fdt_add_rtas(b) == 0, "a second pass changes nothing (the base is there)");
	free(b);
}

// Each tree fdt_add_rtas must leave byte for byte as it was.
static void check_left_alone(struct writer *w, void (*spoil)(uint8_t *), const char *what)
{
	size_t size;
	uint8_t *b = in_room(w, &size);
	if (spoil)
		spoil(b);
	uint8_t *copy = malloc(ROOM);
	memcpy(copy, b, ROOM);
	ktap_check(fdt_add_rtas(b) == 0 && !memcmp(b, copy, ROOM), "left alone: %s", what);
	free(copy);
	free(b);
}

static void bad_magic(uint8_t *b)
{
	b[0] ^= 1;
}

static void strings_not_last(uint8_t *b)
{
	b[7] += 8;		// totalsize beyond the strings block
}

static void bad_name_offset(uint8_t *b)
{
	// The first property's name offset, past the strings block: the
	// root's first token is BEGIN_NODE "" (8 bytes), then PROP.
	uint8_t *p = b + be32(b + 8) + 8 + 8;
	p[0] = 0x7f;
}

static void test_left_alone(void)
{
	struct writer w;

	pseries_like(&w, 0, 0);
	check_left_alone(&w, NULL, "no /rtas");
	pseries_like(&w, 1, 1);
	check_left_alone(&w, NULL, "/rtas already has linux,rtas-base");
	pseries_like(&w, 1, 0);
	check_left_alone(&w, bad_magic, "not a device tree");
	pseries_like(&w, 1, 0);
	check_left_alone(&w, strings_not_last, "something after the strings block");
	pseries_like(&w, 1, 0);
	check_left_alone(&w, bad_name_offset, "a property name outside the strings block");
}

int main(void)
{
	ktap_plan(12);
	test_adds_rtas();
	test_left_alone();
	return ktap_exit();
}
