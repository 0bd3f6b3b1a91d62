// insnprof: a QEMU TCG plugin that counts, exactly, how many times each
// guest instruction address executes between two marker instructions,
// for ./switchyard profile (docs/benchmarking.md, "Where the
// instructions go").
//
// Every translated instruction gets an inline counter of its own (a slot
// keyed by its virtual address; slots never move, so the translated code
// may point at them).  A program opens a window by executing the start
// marker and closes it with the stop marker (user/lib/profmark.h): the
// start clears every counter, the stop writes the non-zero ones to the
// output file as "PC COUNT" lines between "window ID" and "end ID TOTAL".
// Symbols are the reporter's business (scripts/insnprof_report.py).
//
// The markers are instructions that change nothing:
//   x86-64:  nopl 0x5359CCII(%rax)   bytes 0f 1f 80 II CC 59 53
//   ppc64le: xori r0,r0,0xCCII       r0 declared clobbered by the caller
// with CC 0xf1 (start) or 0xf2 (stop) and II the window's id.
//
// Counting is exact for one vCPU under -icount (QEMU then runs every
// vCPU in one thread; the profile command uses -smp 1): the counters are
// plain adds, not atomics.
//
// Arguments: out=FILE (required).

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_api.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARK_START	0xf1
#define MARK_STOP	0xf2
#define CHUNK_SLOTS	65536

struct slot {
	uint64_t pc;
	uint64_t count;
};

// Slots live in chunks that are never freed or moved; the index maps an
// address to its slot (open addressing, linear probing, grown at 1/2).
static struct slot **chunks;
static size_t nr_chunks, nr_slots;
static struct slot **index_table;
static size_t index_size;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static FILE *out;
static bool is_ppc;
static int open_window = -1;

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		qemu_plugin_outs("insnprof: out of memory\n");
		abort();
	}
	return p;
}

static size_t hash_pc(uint64_t pc)
{
	return (size_t)((pc * 0x9e3779b97f4a7c15ULL) >> 17);
}

static void index_insert(struct slot *s)
{
	size_t i = hash_pc(s->pc) & (index_size - 1);

	while (index_table[i])
		i = (i + 1) & (index_size - 1);
	index_table[i] = s;
}

static void index_grow(void)
{
	struct slot **old = index_table;
	size_t old_size = index_size;

	index_size = old_size ? old_size * 2 : 1 << 16;
	index_table = xcalloc(index_size, sizeof(*index_table));
	for (size_t i = 0; i < old_size; i++)
		if (old[i])
			index_insert(old[i]);
	free(old);
}

static struct slot *new_slot(uint64_t pc)
{
	if (nr_slots == nr_chunks * CHUNK_SLOTS) {
		chunks = realloc(chunks, (nr_chunks + 1) * sizeof(*chunks));
		if (!chunks) {
			qemu_plugin_outs("insnprof: out of memory\n");
			abort();
		}
		chunks[nr_chunks++] = xcalloc(CHUNK_SLOTS, sizeof(struct slot));
	}
	struct slot *s = &chunks[nr_slots / CHUNK_SLOTS][nr_slots % CHUNK_SLOTS];
	nr_slots++;
	s->pc = pc;
	if (2 * nr_slots > index_size)
		index_grow();
	index_insert(s);
	return s;
}

// The slot of pc, made on first sight; lock held.
static struct slot *slot_of(uint64_t pc)
{
	if (index_size) {
		size_t i = hash_pc(pc) & (index_size - 1);
		for (; index_table[i]; i = (i + 1) & (index_size - 1))
			if (index_table[i]->pc == pc)
				return index_table[i];
	}
	return new_slot(pc);
}

static void for_each_slot(void (*fn)(struct slot *s))
{
	for (size_t i = 0; i < nr_slots; i++)
		fn(&chunks[i / CHUNK_SLOTS][i % CHUNK_SLOTS]);
}

static void clear_slot(struct slot *s)
{
	s->count = 0;
}

static uint64_t window_total;

static void write_slot(struct slot *s)
{
	if (!s->count)
		return;
	fprintf(out, "%llx %llu\n", (unsigned long long)s->pc, (unsigned long long)s->count);
	window_total += s->count;
}

// The marker's exec callback: udata is (CC << 8) | II.
static void on_marker(unsigned int vcpu, void *udata)
{
	unsigned code = (unsigned)(uintptr_t)udata;
	int id = (int)(code & 0xff);

	(void)vcpu;
	pthread_mutex_lock(&lock);
	if (code >> 8 == MARK_START) {
		for_each_slot(clear_slot);
		open_window = id;
	} else if (open_window == id) {
		window_total = 0;
		fprintf(out, "window %d\n", id);
		for_each_slot(write_slot);
		fprintf(out, "end %d %llu\n", id, (unsigned long long)window_total);
		fflush(out);
		open_window = -1;
	}
	pthread_mutex_unlock(&lock);
}

// Is insn a marker?  Returns (CC << 8) | II, or 0.
static unsigned marker_code(const struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn);
	unsigned cc;

	if (is_ppc) {
		// xori r0,r0,imm: opcode 26, RS = RA = 0; little-endian word.
		if (n != 4 || b[3] != 0x68 || b[2] != 0x00)
			return 0;
		cc = b[1];
		return cc == MARK_START || cc == MARK_STOP ? (cc << 8) | b[0] : 0;
	}
	if (n != 7 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80 || b[5] != 0x59 || b[6] != 0x53)
		return 0;
	cc = b[4];
	return cc == MARK_START || cc == MARK_STOP ? (cc << 8) | b[3] : 0;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		struct slot *s = slot_of(qemu_plugin_insn_vaddr(insn));
		unsigned code = marker_code(insn);

		if (code)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)code);
		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
							   &s->count, 1);
	}
	pthread_mutex_unlock(&lock);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	pthread_mutex_lock(&lock);
	if (out) {
		fprintf(out, "slots %zu\n", nr_slots);
		fclose(out);
		out = NULL;
	}
	pthread_mutex_unlock(&lock);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;

	for (int i = 0; i < argc; i++)
		if (strncmp(argv[i], "out=", 4) == 0)
			path = argv[i] + 4;
	if (!path) {
		qemu_plugin_outs("insnprof: usage: -plugin insnprof.so,out=FILE\n");
		return -1;
	}
	if (!info->system_emulation) {
		qemu_plugin_outs("insnprof: for system emulation only\n");
		return -1;
	}
	is_ppc = strncmp(info->target_name, "ppc", 3) == 0;
	out = fopen(path, "w");
	if (!out) {
		qemu_plugin_outs("insnprof: cannot open the output file\n");
		return -1;
	}
	fprintf(out, "target %s\n", info->target_name);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
