// Host tests of the red-black tree (kernel/lib/rbtree.c): random inserts
// (by descent, and by the shortcuts at either end the run queue and the
// timer queue take) and erases (the least, the greatest, any) checked
// after every step against a plain array kept in the same order: the
// in-order sequence, parent links, colours, black heights, the height
// bound, the cached first and last, and rb_next/rb_prev both ways.
// Equal keys must come out in order of arrival.

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lib/rbtree.h>

#include "ktap.h"

#define MAXN	600

struct item {
	struct rb_node node;	// first: an rb_node * is an item *
	uint64_t key;
	int seq;		// order of arrival, for equal keys
	bool used;
};

static struct item items[MAXN];
static struct item *order[MAXN];	// the reference: in-order
static int count;
static int next_seq;
static struct rb_tree tree;
static const char *why;

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

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

static struct item *item_of(struct rb_node *n)
{
	return (struct item *)n;
}

// ---- the operations, as the kernel's callers do them ----

// Descends from the root; equal keys go right (after the ones there).
static void insert_descend(struct item *it)
{
	struct rb_node *parent = NULL, *n = tree.root;
	bool left = false;

	while (n) {
		parent = n;
		left = it->key < item_of(n)->key;
		n = left ? n->left : n->right;
	}
	rb_insert(&tree, &it->node, parent, left);
}

// The shortcuts at the ends first, then the descent.
static void insert_ends(struct item *it)
{
	if (tree.last && it->key >= item_of(tree.last)->key)
		rb_insert(&tree, &it->node, tree.last, false);
	else if (tree.first && it->key < item_of(tree.first)->key)
		rb_insert(&tree, &it->node, tree.first, true);
	else
		insert_descend(it);
}

static void ref_insert(struct item *it)
{
	int i = count;

	while (i > 0 && order[i - 1]->key > it->key) {
		order[i] = order[i - 1];
		i--;
	}
	order[i] = it;
	count++;
}

static void ref_remove(struct item *it)
{
	int i = 0;

	while (order[i] != it)
		i++;
	memmove(&order[i], &order[i + 1], (size_t)(count - i - 1) * sizeof(order[0]));
	count--;
}

static struct item *free_item(void)
{
	for (int tries = 0; tries < 4 * MAXN; tries++) {
		struct item *it = &items[rnd(MAXN)];
		if (!it->used)
			return it;
	}
	for (int i = 0; i < MAXN; i++)
		if (!items[i].used)
			return &items[i];
	return NULL;
}

static void add(struct item *it, uint64_t key, bool ends)
{
	it->key = key;
	it->seq = next_seq++;
	it->used = true;
	if (ends)
		insert_ends(it);
	else
		insert_descend(it);
	ref_insert(it);
}

static void del(struct item *it)
{
	rb_erase(&tree, &it->node);
	it->used = false;
	ref_remove(it);
}

// ---- checking the structure ----

// Black height of n's subtree (empty leaves count 1), or -1 if broken;
// its height in *h.  Checks parent links and colours on the way.
static int check_subtree(const struct rb_node *n, const struct rb_node *parent, int *h)
{
	int hl, hr, bl, br;

	if (!n) {
		*h = 0;
		return 1;
	}
	if (n->parent != parent)
		return why = "parent link", -1;
	if (n->red && parent && parent->red)
		return why = "red node with a red child", -1;
	if ((bl = check_subtree(n->left, n, &hl)) < 0 || (br = check_subtree(n->right, n, &hr)) < 0)
		return -1;
	if (bl != br)
		return why = "black heights differ", -1;
	*h = 1 + (hl > hr ? hl : hr);
	return bl + !n->red;
}

static int log2_floor(int n)
{
	int l = 0;

	while (n >>= 1)
		l++;
	return l;
}

static bool check_tree(void)
{
	int h, i = 0;

	why = "";
	if (tree.root && tree.root->red)
		return why = "red root", false;
	if (check_subtree(tree.root, NULL, &h) < 0)
		return false;
	if (h > 2 * (log2_floor(count + 1) + 1))
		return why = "too high", false;
	if (tree.first != (count ? &order[0]->node : NULL))
		return why = "cached first", false;
	if (tree.last != (count ? &order[count - 1]->node : NULL))
		return why = "cached last", false;
	for (struct rb_node *n = tree.first; n; n = rb_next(n), i++) {
		if (i >= count || n != &order[i]->node)
			return why = "in-order (rb_next)", false;
		if (i > 0 && order[i - 1]->key == order[i]->key && order[i - 1]->seq > order[i]->seq)
			return why = "equal keys out of arrival order", false;
	}
	if (i != count)
		return why = "count", false;
	for (struct rb_node *n = tree.last; n; n = rb_prev(n))
		if (--i < 0 || n != &order[i]->node)
			return why = "in-order (rb_prev)", false;
	return i == 0 || (why = "rb_prev ends early", false);
}

static void reset(void)
{
	rb_init(&tree);
	memset(items, 0, sizeof(items));
	count = 0;
	next_seq = 0;
}

// ---- the cases ----

static bool empty_tree(void)
{
	reset();
	return rb_empty(&tree) && !tree.first && !tree.last && check_tree();
}

// One node in, the same out: the run queue of two ping-pong threads.
static bool one_in_one_out(void)
{
	reset();
	for (int i = 0; i < 100; i++) {
		add(&items[0], (uint64_t)i, i & 1);
		if (!check_tree() || tree.first != &items[0].node)
			return false;
		del(&items[0]);
		if (!check_tree() || !rb_empty(&tree))
			return false;
	}
	return true;
}

// Random keys from a small range (many equal), random inserts and
// erases of random nodes; both insert paths.
static bool random_ops(bool ends, uint64_t range)
{
	reset();
	for (int step = 0; step < 20000; step++) {
		struct item *it = free_item();
		bool grow = count < MAXN / 2 ? rnd(3) != 0 : rnd(3) == 0;
		if (grow && it) {
			add(it, rnd(range), ends);
		} else if (count) {
			del(order[rnd((uint64_t)count)]);
		}
		if (!check_tree()) {
			printf("# step %d (%d nodes): %s\n", step, count, why);
			return false;
		}
	}
	return true;
}

// The run queue's pattern: take the least, put it back after the others
// (a yield) or somewhere in the middle (a wake-up); every node's key
// only grows.
static bool queue_pattern(void)
{
	uint64_t clock = 0;

	reset();
	for (int i = 0; i < 300; i++)
		add(&items[i], clock, true);
	for (int step = 0; step < 20000; step++) {
		struct item *it = item_of(tree.first);
		del(it);
		clock += rnd(10);
		if (rnd(4))
			add(it, item_of(tree.last) ? item_of(tree.last)->key : clock, true);
		else
			add(it, clock + rnd(50), true);
		if (!check_tree()) {
			printf("# step %d: %s\n", step, why);
			return false;
		}
	}
	return true;
}

// Equal keys only: a FIFO.
static bool equal_keys_fifo(void)
{
	reset();
	for (int i = 0; i < MAXN; i++)
		add(&items[i], 7, i % 3 == 0);
	for (int i = 0; i < MAXN; i++) {
		if (tree.first != &items[i].node)
			return false;
		del(&items[i]);
		if (i % 50 == 0 && !check_tree())
			return false;
	}
	return rb_empty(&tree);
}

// Ascending and descending runs (the worst cases of a plain binary tree)
// stay within the height bound, and drain from both ends.
static bool sorted_runs(void)
{
	reset();
	for (int i = 0; i < MAXN / 2; i++)
		add(&items[i], (uint64_t)i, false);
	for (int i = MAXN / 2; i < MAXN; i++)
		add(&items[i], (uint64_t)(MAXN - i), false);
	if (!check_tree())
		return false;
	while (count) {
		del(item_of(count & 1 ? tree.first : tree.last));
		if (!check_tree())
			return false;
	}
	return true;
}

// A node hands its place to a new one whose key lies between its
// neighbours (rb_replace): the first (a yield between threads) or any.
static bool replace_in_place(void)
{
	reset();
	for (int i = 0; i < MAXN / 2; i++)
		add(&items[i], rnd(100), i & 1);
	for (int step = 0; step < 20000; step++) {
		struct item *old = step & 1 ? order[rnd((uint64_t)count)] : item_of(tree.first);
		struct item *it = free_item();
		struct rb_node *next = rb_next(&old->node);
		uint64_t hi = next ? item_of(next)->key : old->key + 10;
		int i = 0;

		if (!it)
			return why = "no free item", false;
		if (next && hi == old->key)
			continue;	// no key fits: it would pass an equal one
		it->key = old->key + (hi > old->key ? rnd(hi - old->key) : 0);
		it->seq = next_seq++;
		it->used = true;
		rb_replace(&tree, &old->node, &it->node);
		old->used = false;
		while (order[i] != old)
			i++;
		order[i] = it;
		if (!check_tree()) {
			printf("# step %d: %s\n", step, why);
			return false;
		}
	}
	return true;
}

int main(void)
{
	ktap_plan(9);
	ktap_ok(empty_tree(), "empty_tree");
	ktap_ok(one_in_one_out(), "one_in_one_out");
	ktap_ok(random_ops(false, 1000), "random_ops_by_descent");
	ktap_ok(random_ops(true, 1000), "random_ops_with_end_shortcuts");
	ktap_ok(random_ops(true, 8), "random_ops_many_equal_keys");
	ktap_ok(queue_pattern(), "run_queue_pattern");
	ktap_ok(equal_keys_fifo(), "equal_keys_fifo");
	ktap_ok(sorted_runs(), "sorted_runs_balanced");
	ktap_ok(replace_in_place(), "replace_in_place");
	return ktap_exit();
}
