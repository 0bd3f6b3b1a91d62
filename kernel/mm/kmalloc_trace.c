// kmalloc_trace: the live heap objects by caller (include/mm/kmalloc_trace.h).
//
// One open-addressing table keyed by the object's address (linear
// probing, deletion by shifting the run back so no tombstones pile up),
// allocated from the frame allocator on the first allocation recorded,
// which is early in the boot, before allocation-failure injection can be
// armed.  A full table drops the newest records and says how many.

#include <uapi/errno.h>
#include <kernel/boot.h>
#include <kernel/panic.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/frame.h>
#include <mm/kmalloc_trace.h>
#include <mm/phys.h>

#define TABLE_ORDER	9			// 2 MiB of frames
#define TABLE_SLOTS	((PAGE_SIZE << TABLE_ORDER) / sizeof(struct record))
#define GROUPS_MAX	64			// distinct (caller, size) shown

struct record {
	uintptr_t obj;		// 0: free slot
	uintptr_t caller;
	uint32_t size;
	uint32_t seq;
	int32_t tid;
	uint32_t pad;
};

bool kmalloc_tracing;

static struct spinlock trace_lock = SPINLOCK_INIT("kmalloc_trace");
static struct record *table;
static bool table_failed;
static uint32_t seq, mark;
static uint64_t live, dropped;

static int set_kmalloc_trace(const char *value)
{
	if (value != NULL)
		return -1;
	kmalloc_tracing = true;
	return 0;
}
BOOT_OPTION(kmalloc_trace, "kmalloc_trace: record who allocated each live heap object "
	    "(/proc/switchyard/kmalloc_live)", set_kmalloc_trace);

static size_t slot_of(uintptr_t obj)
{
	// Objects are at least 8-byte aligned; mix the rest (Fibonacci hash).
	return (size_t)(((obj >> 3) * 0x9e3779b97f4a7c15ULL) >> 32) % TABLE_SLOTS;
}

static bool table_ready(void)
{
	if (table != NULL)
		return true;
	if (table_failed)
		return false;
	uint64_t pa = frame_alloc_zeroed(TABLE_ORDER);
	if (pa == 0) {
		table_failed = true;
		return false;
	}
	table = phys_to_virt(pa);
	return true;
}

void kmalloc_trace_alloc(void *p, size_t size, uintptr_t caller)
{
	struct thread *t = current_thread();
	uint64_t irq = spin_lock_irqsave(&trace_lock);

	if (!table_ready() || live + 1 >= TABLE_SLOTS * 3 / 4) {
		dropped++;
		spin_unlock_irqrestore(&trace_lock, irq);
		return;
	}
	size_t i = slot_of((uintptr_t)p);
	while (table[i].obj != 0 && table[i].obj != (uintptr_t)p)
		i = (i + 1) % TABLE_SLOTS;
	if (table[i].obj == 0)
		live++;
	table[i] = (struct record){ (uintptr_t)p, caller, (uint32_t)size, ++seq,
				    t ? t->tid : 0, 0 };
	spin_unlock_irqrestore(&trace_lock, irq);
}

// Removes slot i and moves later members of its run into the hole when
// their home slot is not between the hole and where they sit.
static void remove_slot(size_t i)
{
	size_t hole = i;

	for (size_t j = (i + 1) % TABLE_SLOTS; table[j].obj != 0; j = (j + 1) % TABLE_SLOTS) {
		size_t home = slot_of(table[j].obj);
		bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
		if (stays)
			continue;
		table[hole] = table[j];
		hole = j;
	}
	table[hole].obj = 0;
	live--;
}

void kmalloc_trace_free(void *p)
{
	uint64_t irq = spin_lock_irqsave(&trace_lock);

	if (table != NULL) {
		for (size_t i = slot_of((uintptr_t)p); table[i].obj != 0; i = (i + 1) % TABLE_SLOTS) {
			if (table[i].obj == (uintptr_t)p) {
				remove_slot(i);
				break;
			}
		}
	}
	spin_unlock_irqrestore(&trace_lock, irq);
}

int kmalloc_trace_command(const char *cmd)
{
	if (strcmp(cmd, "mark") != 0)
		return -EINVAL;
	uint64_t irq = spin_lock_irqsave(&trace_lock);
	mark = seq;
	spin_unlock_irqrestore(&trace_lock, irq);
	return 0;
}

struct group {
	uintptr_t caller;
	uint32_t size, count;
	int32_t tid;		// of the newest object
	uint32_t seq;
};

// Adds one record to the groups; false when there is no room for a new one.
static bool group_add(struct group *g, size_t *n, const struct record *r)
{
	for (size_t k = 0; k < *n; k++) {
		if (g[k].caller == r->caller && g[k].size == r->size) {
			g[k].count++;
			if (r->seq > g[k].seq) {
				g[k].seq = r->seq;
				g[k].tid = r->tid;
			}
			return true;
		}
	}
	if (*n == GROUPS_MAX)
		return false;
	g[(*n)++] = (struct group){ r->caller, r->size, 1, r->tid, r->seq };
	return true;
}

size_t kmalloc_trace_render(char *buf, size_t size)
{
	static struct group groups[GROUPS_MAX];	// under trace_lock
	size_t n = 0, len = 0, over = 0;

	if (!kmalloc_tracing)
		return ksnprintf(buf, size, "off\n");
	uint64_t irq = spin_lock_irqsave(&trace_lock);
	for (size_t i = 0; table != NULL && i < TABLE_SLOTS; i++)
		if (table[i].obj != 0 && table[i].seq > mark && !group_add(groups, &n, &table[i]))
			over++;
	len += ksnprintf(buf + len, size - len, "live %lu dropped %lu since_mark_ungrouped %lu\n",
			 (unsigned long)live, (unsigned long)dropped, (unsigned long)over);
	for (size_t k = 0; k < n && len < size; k++) {
		uint64_t off = 0;
		const char *name = ksym_lookup(groups[k].caller, &off);
		len += ksnprintf(buf + len, size - len, "%u %u %s+%#lx tid %d\n", groups[k].count,
				 groups[k].size, name ? name : "?", (unsigned long)off, groups[k].tid);
	}
	spin_unlock_irqrestore(&trace_lock, irq);
	return len < size ? len : size - 1;
}
