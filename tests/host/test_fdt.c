// Host tests of kernel/lib/fdt.c: walking well-formed device trees built
// here, and refusing malformed ones without reading outside the blob
// (AddressSanitizer checks that: each blob is malloc'd at its exact size).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lib/fdt.h>
#include "ktap.h"

#include "fdt_writer.h"

static void pseries_like(struct writer *w)
{
	uint32_t reg[] = { 0, 0, 0, 0x20000000 }, tb[] = { 0x1e848000 }, one[] = { 1 };
	memset(w, 0, sizeof(*w));
	begin(w, "");
	prop_cells(w, "#address-cells", 1, (uint32_t[]){ 2 });
	begin(w, "chosen");
	prop(w, "bootargs", "hz=100", 7);
	end(w);
	begin(w, "cpus");
	begin(w, "PowerPC,POWER9@0");
	prop_cells(w, "timebase-frequency", 1, tb);
	end(w);
	begin(w, "PowerPC,POWER9@1");
	prop_cells(w, "reg", 1, one);
	end(w);
	end(w);
	begin(w, "memory@0");
	prop_cells(w, "reg", 4, reg);
	end(w);
	end(w);
	token(w, 9);
}

static int walk(const uint8_t *b, size_t size)
{
	seen[0] = 0;
	return fdt_walk(b, size, record, 0);
}

static void test_well_formed(void)
{
	struct writer w;
	size_t size;
	pseries_like(&w);
	uint8_t *b = finish(&w, &size);

	ktap_ok(fdt_size(b, size) == size, "fdt_size of a well-formed tree");
	ktap_ok(fdt_size(b, size - 1) == 0, "fdt_size refuses a tree longer than its buffer");
	ktap_ok(walk(b, size) == 0, "walk succeeds");
	ktap_ok(!strcmp(seen, "/:#address-cells:4=0x2;/chosen:bootargs:7;"
			"/cpus/PowerPC,POWER9@0:timebase-frequency:4=0x1e848000;"
			"/cpus/PowerPC,POWER9@1:reg:4=0x1;/memory@0:reg:16;"),
		"walk reports every property with its node's path");
	free(b);
}

static void test_cells(void)
{
	uint8_t v[16] = { 0, 0, 0, 1, 0x80, 0, 0, 2, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4 };
	ktap_ok(fdt_cell32(v, 0) == 1 && fdt_cell32(v, 1) == 0x80000002, "fdt_cell32 reads big-endian");
	ktap_ok(fdt_cell64(v, 0) == 0x0000000180000002ULL && fdt_cell64(v, 1) == 0xdeadbeef01020304ULL,
		"fdt_cell64 reads pairs of cells");
}

static void test_node_is(void)
{
	ktap_ok(fdt_node_is("/vdevice/vty@71000000", "vty"), "node_is matches a name before @");
	ktap_ok(fdt_node_is("/cpus", "cpus"), "node_is matches a plain name");
	ktap_ok(!fdt_node_is("/vdevice/vtyx@1", "vty"), "node_is refuses a longer name");
	ktap_ok(!fdt_node_is("/vdevice", "vty"), "node_is refuses another node");
}

// Corrupts one 32-bit word of a good blob and checks the walk refuses it
// (or at least stays inside the blob: ASan would stop the test otherwise).
static int corrupted_walk(size_t word_off, uint32_t value)
{
	struct writer w;
	size_t size;
	pseries_like(&w);
	uint8_t *b = finish(&w, &size);
	put32(b + word_off, value);
	int r = walk(b, size);
	free(b);
	return r;
}

static void test_malformed(void)
{
	struct writer w;
	size_t size;

	ktap_ok(fdt_walk(0, 0, record, 0) == -1, "a missing blob is refused");
	ktap_ok(corrupted_walk(0, 0x12345678) == -1, "a bad magic is refused");
	ktap_ok(corrupted_walk(4, 0xffffffff) == -1, "a total size beyond the buffer is refused");
	ktap_ok(corrupted_walk(8, 0xfffffff0) == -1, "a structure offset beyond the blob is refused");
	ktap_ok(corrupted_walk(36, 0x7fffffff) == -1, "a structure size beyond the blob is refused");
	ktap_ok(corrupted_walk(32, 0x7fffffff) == -1, "a strings size beyond the blob is refused");
	ktap_ok(corrupted_walk(20, 3) == -1, "a version before 16 is refused");

	// A property whose length runs past the structure block.
	memset(&w, 0, sizeof(w));
	begin(&w, "");
	prop(&w, "x", "abcd", 4);
	end(&w);
	token(&w, 9);
	uint8_t *b = finish(&w, &size);
	put32(b + 56 + 8, 0x10000);		// root name is 4 bytes: prop's len word
	ktap_ok(walk(b, size) == -1, "a property longer than the structure block is refused");
	put32(b + 56 + 8, 4);
	put32(b + 56 + 12, 0x1000);		// its name offset
	ktap_ok(walk(b, size) == -1, "a property name offset beyond the strings is refused");
	free(b);

	// A property name that is not NUL-terminated within the strings block.
	memset(&w, 0, sizeof(w));
	begin(&w, "");
	prop(&w, "name", "v", 1);
	end(&w);
	token(&w, 9);
	b = finish(&w, &size);
	b[size - 1] = 'X';			// the strings block's last NUL
	ktap_ok(walk(b, size) == -1, "an unterminated property name is refused");
	free(b);

	// Unbalanced nodes, an unknown token, a missing END.
	memset(&w, 0, sizeof(w));
	begin(&w, "");
	begin(&w, "a");
	end(&w);
	token(&w, 9);
	b = finish(&w, &size);
	ktap_ok(walk(b, size) == -1, "a node left open at END is refused");
	free(b);
	memset(&w, 0, sizeof(w));
	begin(&w, "");
	end(&w);
	end(&w);
	token(&w, 9);
	b = finish(&w, &size);
	ktap_ok(walk(b, size) == -1, "an END_NODE without a node is refused");
	free(b);
	memset(&w, 0, sizeof(w));
	begin(&w, "");
	token(&w, 7);
	b = finish(&w, &size);
	ktap_ok(walk(b, size) == -1, "an unknown token is refused");
	free(b);
	memset(&w, 0, sizeof(w));
	begin(&w, "");
	end(&w);
	b = finish(&w, &size);
	ktap_ok(walk(b, size) == -1, "a structure block without END is refused");
	free(b);

	// Nesting deeper than the walker tracks, and a path that overflows.
	memset(&w, 0, sizeof(w));
	begin(&w, "");
	for (int i = 0; i < 40; i++)
		begin(&w, "n");
	for (int i = 0; i < 40; i++)
		end(&w);
	end(&w);
	token(&w, 9);
	b = finish(&w, &size);
	ktap_ok(walk(b, size) == -1, "nesting deeper than 32 nodes is refused");
	free(b);
	memset(&w, 0, sizeof(w));
	begin(&w, "");
	char longname[200];
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	begin(&w, longname);
	begin(&w, longname);
	end(&w);
	end(&w);
	end(&w);
	token(&w, 9);
	b = finish(&w, &size);
	ktap_ok(walk(b, size) == -1, "a path longer than FDT_MAX_PATH is refused");
	free(b);
}

int main(void)
{
	ktap_plan(26);
	test_well_formed();
	test_cells();
	test_node_is();
	test_malformed();
	return ktap_exit();
}
