// Host tests of the pairing heap (kernel/lib/pheap.c): random inserts,
// removals of the least and of any node, checked after every step
// against a plain array (the reference order is the key, then the
// insertion): the heap order, the links (prev is the previous sibling
// or the parent, the root's NULL), the count; and the order in which
// everything comes out, equal keys first in first out; and the timer
// queue's pattern (inserts later than all, removals of the first).

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lib/pheap.h>

#include "ktap.h"

#define MAXN	600

struct item {
	struct ph_node node;	// first: a ph_node * is an item *
	bool used;
};

static struct item items[MAXN];
static struct item *ref[MAXN];	// the queued ones, in no order
static int count;
static struct ph_heap heap;
static const char *why;

static uint64_t rng_state = 0x243f6a8885a308d3ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t rnd(uint64_t n)
{
	return rng() % n;
}

static bool before(const struct ph_node *a, const struct ph_node *b)
{
	return a->key < b->key || (a->key == b->key && a->order < b->order);
}

static void reset(void)
{
	ph_init(&heap);
	memset(items, 0, sizeof(items));
	count = 0;
}

static void add(struct item *it, uint64_t key)
{
	ph_insert(&heap, &it->node, key);
	it->used = true;
	ref[count++] = it;
}

static void del(struct item *it)
{
	ph_remove(&heap, &it->node);
	it->used = false;
	for (int i = 0; i < count; i++)
		if (ref[i] == it) {
			ref[i] = ref[--count];
			break;
		}
}

static struct item *least_ref(void)
{
	struct item *best = NULL;

	for (int i = 0; i < count; i++)
		if (!best || before(&ref[i]->node, &best->node))
			best = ref[i];
	return best;
}

// Checks n's subtree (n's prev already checked); returns its size or -1.
static int check_subtree(const struct ph_node *n)
{
	int size = 1;
	const struct ph_node *prev = n;

	for (const struct ph_node *c = n->child; c; prev = c, c = c->next) {
		if (c->prev != prev)
			return why = "prev link", -1;
		if (before(c, n))
			return why = "child before its parent", -1;
		int s = check_subtree(c);
		if (s < 0)
			return -1;
		size += s;
	}
	return size;
}

static bool check_heap(void)
{
	why = "";
	if (!heap.root)
		return count == 0 || (why = "empty heap, items queued", false);
	if (heap.root->prev || heap.root->next)
		return why = "root with a sibling or parent", false;
	if (check_subtree(heap.root) != count)
		return why[0] ? false : (why = "count", false);
	if (heap.root != &least_ref()->node)
		return why = "root is not the least", false;
	return true;
}

static struct item *free_item(void)
{
	for (int i = 0; i < MAXN; i++) {
		struct item *it = &items[rnd(MAXN)];
		if (!it->used)
			return it;
	}
	for (int i = 0; i < MAXN; i++)
		if (!items[i].used)
			return &items[i];
	return NULL;
}

// ---- the cases ----

static bool one_in_one_out(void)
{
	reset();
	for (int i = 0; i < 100; i++) {
		add(&items[0], (uint64_t)i);
		if (!check_heap())
			return false;
		del(&items[0]);
		if (!check_heap() || ph_first(&heap))
			return false;
	}
	return true;
}

// Random inserts, removals of the least and of any node.
static bool random_ops(uint64_t range)
{
	reset();
	for (int step = 0; step < 20000; step++) {
		struct item *it = free_item();
		uint64_t r = rnd(4);
		if (it && (count < MAXN / 2 ? r != 0 : r == 0)) {
			add(it, rnd(range));
		} else if (count) {
			del(rnd(2) ? (struct item *)ph_first(&heap) : ref[rnd((uint64_t)count)]);
		}
		if (!check_heap()) {
			printf("# step %d (%d queued): %s\n", step, count, why);
			return false;
		}
	}
	return true;
}

// Everything comes out in the reference order, equal keys first in
// first out, whatever shape removals in the middle left.
static bool drains_in_order(void)
{
	const struct ph_node *last = NULL;

	reset();
	for (int i = 0; i < MAXN; i++)
		add(&items[i], rnd(20));
	for (int i = 0; i < MAXN; i += 5)
		del(&items[i]);
	while (ph_first(&heap)) {
		struct ph_node *n = ph_first(&heap);
		if (last && before(n, last))
			return false;
		last = n;
		del((struct item *)n);
		if (count % 50 == 0 && !check_heap())
			return false;
	}
	return count == 0;
}

// The timer queue's pattern: n timers, each expiry followed by a new one
// later than all (or nearly).
static bool timer_pattern(void)
{
	for (int n = 2; n <= MAXN; n *= 4) {
		uint64_t clock = 0;
		reset();
		for (int i = 0; i < n; i++)
			add(&items[i], clock + (uint64_t)i);
		for (int step = 0; step < 5000; step++) {
			struct item *it = (struct item *)ph_first(&heap);
			del(it);
			clock++;
			add(it, clock + (uint64_t)n + rnd(3));
			if (step % 97 == 0 && !check_heap()) {
				printf("# n %d step %d: %s\n", n, step, why);
				return false;
			}
		}
		if (!check_heap())
			return false;
	}
	return true;
}

int main(void)
{
	ktap_plan(5);
	ktap_ok(one_in_one_out(), "one_in_one_out");
	ktap_ok(random_ops(1000), "random_ops");
	ktap_ok(random_ops(4), "random_ops_many_equal_keys");
	ktap_ok(drains_in_order(), "drains_in_order_equal_keys_fifo");
	ktap_ok(timer_pattern(), "timer_pattern");
	return ktap_exit();
}
