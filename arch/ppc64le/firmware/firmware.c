// Switchyard's pseries firmware: the little that QEMU's pseries machine
// leaves to firmware before a kernel booted from a flat device tree runs.
//
// QEMU builds the device tree and implements RTAS itself, behind the
// H_RTAS hypercall.  What it leaves out is what SLOF's instantiate-rtas
// adds: the RTAS entry code in memory (five instructions that make the
// hypercall) and the /rtas properties that say where it is,
// "linux,rtas-base" and "linux,rtas-entry".  Without them Linux finds no
// RTAS: it cannot start its other CPUs, power off or reboot.  Switchyard
// makes the hypercall itself and does not need them.
//
// The properties go into the tree in place.  QEMU puts the packed tree at
// the start of a region much larger than the tree, so there is room
// after it; the entry code goes after the grown tree and is reserved in
// the tree's memory-reservation map, as a kernel must not overwrite it.
// A tree this code does not expect is left alone: the kernel then finds
// no RTAS, as before.
//
// Built big-endian and freestanding, with the kernel's own reader of the
// tree (kernel/lib/fdt.c); tests/host/test_firmware.c runs the same code
// on the host, so the tree is written a byte at a time (it is big-endian
// whatever the CPU).

#include <stddef.h>
#include <stdint.h>

#include <lib/fdt.h>
#include "firmware.h"

#define FDT_PROP	3
#define PROP_HEADER	12	// FDT_PROP, length, name offset

// The header's fields, as byte offsets.
#define H_TOTALSIZE	4
#define H_OFF_STRUCT	8
#define H_OFF_STRINGS	12
#define H_OFF_RSVMAP	16
#define H_VERSION	20
#define H_SIZE_STRINGS	32
#define H_SIZE_STRUCT	36
#define H_LEN		40

// The RTAS entry, as the kernel calls it (big-endian, real mode, r3 =
// the argument buffer): mr r4,r3; lis r3,0; ori r3,r3,0xf000
// (KVMPPC_H_RTAS); sc 1; blr.
static const uint32_t rtas_entry_code[] = {
	0x7c641b78, 0x3c600000, 0x6063f000, 0x44000022, 0x4e800020,
};

// The names of the two properties, as they go into the strings block.
static const char new_strings[] = "linux,rtas-base\0linux,rtas-entry";
#define NEW_STRINGS_LEN	sizeof(new_strings)	// both NULs included
#define NAME_BASE_OFF	0
#define NAME_ENTRY_OFF	16
#define NEW_PROPS_LEN	(2 * 4 * sizeof(uint32_t))	// two 4-byte properties
#define RSV_ENTRY_LEN	16

static uint32_t get32(const uint8_t *p)
{
	return fdt_cell32(p, 0);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static void add32(uint8_t *blob, size_t field, uint32_t n)
{
	put32(blob + field, get32(blob + field) + n);
}

static size_t align_up(size_t n, size_t a)
{
	return (n + a - 1) & ~(a - 1);
}

static int same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

// Moves [p, p + len) up by 'by' bytes, highest byte first.
static void move_up(uint8_t *p, size_t len, size_t by)
{
	while (len > 0) {
		len--;
		p[len + by] = p[len];
	}
}

// What the walk of the tree found in /rtas.
struct rtas_node {
	const uint8_t *blob;
	size_t props_at;	// offset of its first property (0: none seen)
	uint32_t size;		// its "rtas-size"
	int has_base;		// "linux,rtas-base" is already there
};

// fdt_walk's callback: /rtas's properties.  The new ones go in front of
// the first, which is where the node's name ends.
static void rtas_prop(void *ctx, const char *path, const char *name, const void *value,
		      uint32_t len)
{
	struct rtas_node *r = ctx;
	size_t at = (size_t)((const uint8_t *)value - r->blob) - PROP_HEADER;

	if (!same(path, "/rtas"))
		return;
	if (r->props_at == 0 || at < r->props_at)
		r->props_at = at;
	if (same(name, "rtas-size") && len == 4)
		r->size = fdt_cell32(value, 0);
	if (same(name, "linux,rtas-base"))
		r->has_base = 1;
}

// Where the memory-reservation map's terminating entry is, or 0.
static size_t rsvmap_end(const uint8_t *blob)
{
	size_t p = get32(blob + H_OFF_RSVMAP), end = get32(blob + H_OFF_STRUCT);

	for (; p + RSV_ENTRY_LEN <= end; p += RSV_ENTRY_LEN) {
		int zero = 1;
		for (size_t i = 0; i < RSV_ENTRY_LEN; i++)
			zero &= blob[p + i] == 0;
		if (zero)
			return p;
	}
	return 0;
}

// A tree (fdt_size checks the header) with the layout libfdt's packed
// trees have: header, reservation map, structure block, strings block,
// nothing after.
static int layout_expected(const uint8_t *blob)
{
	uint32_t rsv = get32(blob + H_OFF_RSVMAP), st = get32(blob + H_OFF_STRUCT);
	uint32_t str = get32(blob + H_OFF_STRINGS);

	return fdt_size(blob, get32(blob + H_TOTALSIZE)) != 0 && get32(blob + H_VERSION) >= 17 &&
	       rsv >= H_LEN && rsv % 8 == 0 && rsv < st &&
	       st + get32(blob + H_SIZE_STRUCT) <= str &&
	       str + get32(blob + H_SIZE_STRINGS) == get32(blob + H_TOTALSIZE);
}

static void put_prop(uint8_t *at, uint32_t nameoff, uint32_t value)
{
	put32(at, FDT_PROP);
	put32(at + 4, 4);
	put32(at + 8, nameoff);
	put32(at + 12, value);
}

uintptr_t fdt_add_rtas(void *fdt)
{
	uint8_t *blob = fdt;
	struct rtas_node r = { blob, 0, 0, 0 };
	size_t rsv, grow;

	if (!layout_expected(blob) || fdt_walk(blob, get32(blob + H_TOTALSIZE), rtas_prop, &r) < 0 ||
	    r.props_at == 0 || r.has_base || r.size == 0)
		return 0;
	rsv = rsvmap_end(blob);
	if (rsv == 0)
		return 0;
	grow = RSV_ENTRY_LEN + NEW_PROPS_LEN + NEW_STRINGS_LEN;
	uintptr_t code = align_up((uintptr_t)blob + get32(blob + H_TOTALSIZE) + grow, 4096);
	uint32_t off_strings = get32(blob + H_OFF_STRINGS);
	uint32_t strings_len = get32(blob + H_SIZE_STRINGS);

	// From the top down, each part moved by what is inserted below it.
	move_up(blob + off_strings, strings_len, RSV_ENTRY_LEN + NEW_PROPS_LEN);
	move_up(blob + r.props_at, off_strings - r.props_at, RSV_ENTRY_LEN + NEW_PROPS_LEN);
	move_up(blob + rsv, r.props_at - rsv, RSV_ENTRY_LEN);

	put64(blob + rsv, code);
	put64(blob + rsv + 8, align_up(r.size, 4096));
	put_prop(blob + r.props_at + RSV_ENTRY_LEN, strings_len + NAME_BASE_OFF, (uint32_t)code);
	put_prop(blob + r.props_at + RSV_ENTRY_LEN + 16, strings_len + NAME_ENTRY_OFF, (uint32_t)code);
	uint8_t *strings_end = blob + off_strings + RSV_ENTRY_LEN + NEW_PROPS_LEN + strings_len;
	for (size_t i = 0; i < NEW_STRINGS_LEN; i++)
		strings_end[i] = (uint8_t)new_strings[i];

	add32(blob, H_OFF_STRUCT, RSV_ENTRY_LEN);
	add32(blob, H_SIZE_STRUCT, NEW_PROPS_LEN);
	add32(blob, H_OFF_STRINGS, RSV_ENTRY_LEN + NEW_PROPS_LEN);
	add32(blob, H_SIZE_STRINGS, NEW_STRINGS_LEN);
	add32(blob, H_TOTALSIZE, grow);

	uint8_t *c = (uint8_t *)code;
	for (size_t i = 0; i < sizeof(rtas_entry_code) / sizeof(rtas_entry_code[0]); i++)
		put32(c + 4 * i, rtas_entry_code[i]);
	return code;
}

void firmware_main(void *fdt)
{
	uintptr_t code = fdt_add_rtas(fdt);

#ifdef __powerpc64__
	// The kernel fetches this code as instructions: write it back from
	// the data cache and drop stale instructions.
	if (code)
		__asm__ volatile("dcbst 0,%0; sync; icbi 0,%0; isync" : : "r"(code) : "memory");
#else
	(void)code;
#endif
}
