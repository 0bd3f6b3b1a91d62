// Host tests of the address-range tree (kernel/mm/vma_tree.c): random
// inserts, removals and updates checked against a plain array after every
// step (order, parent links, AVL balance, subtree summaries), and every
// query (find, first range after an address, lowest free gap) compared
// with a brute-force answer.

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mm/vma_tree.h>

#include "ktap.h"

#define MAXN	300
#define SPACE	(1u << 16)	// addresses used by the random tests

static struct vt_node nodes[MAXN];
static bool used[MAXN];
static struct vt_tree tree;
static const char *why;

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

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

static bool overlaps_any(uint64_t start, uint64_t end, int except)
{
	for (int i = 0; i < MAXN; i++)
		if (used[i] && i != except && nodes[i].start < end && start < nodes[i].end)
			return true;
	return false;
}

// ---- checking the structure ----

struct summary {
	int height;
	uint64_t lo, hi, gap;
	int count;
};

static uint64_t gap_of(uint64_t end, uint64_t reach)
{
	return reach > end ? reach - end : 0;
}

// Checks n's subtree; *prev is the in-order predecessor so far.
static bool check_subtree(const struct vt_node *n, const struct vt_node *parent,
			  const struct vt_node **prev, struct summary *s)
{
	struct summary l = { 0, 0, 0, 0, 0 }, r = { 0, 0, 0, 0, 0 };

	if (!n) {
		*s = l;
		return true;
	}
	if (n->parent != parent)
		return why = "parent link", false;
	if (!check_subtree(n->left, n, prev, &l))
		return false;
	if (*prev && (*prev)->end > n->start)
		return why = "order or overlap", false;
	if (n->start >= n->end)
		return why = "empty range", false;
	uint64_t gap = l.count ? gap_of(l.hi, vt_reach(n)) : 0;
	*prev = n;
	if (!check_subtree(n->right, n, prev, &r))
		return false;
	if (r.count && gap_of(n->end, r.lo) > gap)
		gap = gap_of(n->end, r.lo);
	if (l.gap > gap)
		gap = l.gap;
	if (r.gap > gap)
		gap = r.gap;
	s->height = 1 + (l.height > r.height ? l.height : r.height);
	s->lo = l.count ? l.lo : vt_reach(n);
	s->hi = r.count ? r.hi : n->end;
	s->gap = gap;
	s->count = 1 + l.count + r.count;
	if (l.height - r.height > 1 || r.height - l.height > 1)
		return why = "AVL balance", false;
	if (n->height != s->height)
		return why = "height", false;
	if (n->sub_lo != s->lo || n->sub_hi != s->hi || n->sub_gap != s->gap)
		return why = "subtree summary", false;
	return true;
}

static bool check_tree(void)
{
	const struct vt_node *prev = 0;
	struct summary s;
	int count = 0;

	for (int i = 0; i < MAXN; i++)
		count += used[i];
	if (!check_subtree(tree.root, 0, &prev, &s))
		return false;
	if (s.count != count || tree.count != (size_t)count)
		return why = "node count", false;
	return true;
}

// ---- brute-force answers ----

static int cmp_start(const void *a, const void *b)
{
	const struct vt_node *x = *(const struct vt_node *const *)a;
	const struct vt_node *y = *(const struct vt_node *const *)b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int sorted(const struct vt_node **out)
{
	int n = 0;

	for (int i = 0; i < MAXN; i++)
		if (used[i])
			out[n++] = &nodes[i];
	qsort(out, n, sizeof(*out), cmp_start);
	return n;
}

static bool brute_fits(uint64_t from, uint64_t to, uint64_t len, uint64_t lo, uint64_t hi,
		       uint64_t *out)
{
	uint64_t a = from > lo ? from : lo, b = to < hi ? to : hi;

	if (a >= b || b - a < len)
		return false;
	*out = a;
	return true;
}

static bool brute_gap(uint64_t len, uint64_t lo, uint64_t hi, uint64_t *out)
{
	const struct vt_node *s[MAXN];
	int n = sorted(s);
	uint64_t prev_end = 0;

	if (len == 0 || lo >= hi || hi - lo < len)
		return false;
	for (int i = 0; i < n; i++) {
		if (brute_fits(prev_end, vt_reach(s[i]), len, lo, hi, out))
			return true;
		prev_end = s[i]->end;
	}
	return brute_fits(prev_end, UINT64_MAX, len, lo, hi, out);
}

static const struct vt_node *brute_find(uint64_t addr)
{
	for (int i = 0; i < MAXN; i++)
		if (used[i] && nodes[i].start <= addr && addr < nodes[i].end)
			return &nodes[i];
	return 0;
}

static const struct vt_node *brute_first_ending_after(uint64_t addr)
{
	const struct vt_node *best = 0;

	for (int i = 0; i < MAXN; i++)
		if (used[i] && nodes[i].end > addr && (!best || nodes[i].start < best->start))
			best = &nodes[i];
	return best;
}

static bool check_queries(void)
{
	for (int k = 0; k < 20; k++) {
		uint64_t a = rnd(SPACE + 64);
		if (vt_find(&tree, a) != brute_find(a))
			return why = "vt_find", false;
		if (vt_first_ending_after(&tree, a) != brute_first_ending_after(a))
			return why = "vt_first_ending_after", false;
		uint64_t len = 1 + rnd(k < 10 ? 64 : 2048);
		uint64_t lo = rnd(SPACE), hi = lo + rnd(SPACE);
		if (k == 0)
			hi = UINT64_MAX;
		uint64_t got = 0, want = 0;
		bool g = vt_find_gap(&tree, len, lo, hi, &got);
		bool w = brute_gap(len, lo, hi, &want);
		if (g != w || (g && got != want))
			return why = "vt_find_gap", false;
	}
	// In-order walk forwards and backwards matches the sorted array.
	const struct vt_node *s[MAXN];
	int n = sorted(s);
	const struct vt_node *v = vt_first(&tree);
	for (int i = 0; i < n; i++, v = vt_next(v))
		if (v != s[i] || (i > 0 && vt_prev(v) != s[i - 1]))
			return why = "vt_next/vt_prev", false;
	if (v)
		return why = "walk past the end", false;
	return true;
}

// ---- random operations ----

static void op_insert(void)
{
	int i = (int)rnd(MAXN);

	if (used[i])
		return;
	uint64_t start = rnd(SPACE), len = 1 + rnd(rnd(4) ? 40 : 600);
	if (overlaps_any(start, start + len, -1))
		return;
	nodes[i].start = start;
	nodes[i].end = start + len;
	nodes[i].guard = rnd(5) == 0 ? rnd(300) : 0;
	used[i] = true;
	vt_insert(&tree, &nodes[i]);
}

static void op_remove(void)
{
	int i = (int)rnd(MAXN);

	if (!used[i])
		return;
	vt_remove(&tree, &nodes[i]);
	used[i] = false;
}

// Grow or shrink a range in place (as a stack grows, or a VMA is cut),
// or change its guard.
static void op_update(void)
{
	int i = (int)rnd(MAXN);

	if (!used[i])
		return;
	struct vt_node *n = &nodes[i];
	uint64_t start = n->start, end = n->end;
	switch (rnd(3)) {
	case 0:
		start = start > 20 ? start - rnd(20) : start;
		break;
	case 1:
		end = end + rnd(20) - 10;
		break;
	default:
		n->guard = rnd(3) ? 0 : rnd(500);
		vt_update(n);
		return;
	}
	if (end <= start || overlaps_any(start, end, i))
		return;
	n->start = start;
	n->end = end;
	vt_update(n);
}

static bool test_random_ops(void)
{
	memset(used, 0, sizeof(used));
	tree.root = 0;
	tree.count = 0;
	for (int step = 0; step < 20000; step++) {
		uint64_t r = rnd(10);
		// Phases that fill up and empty out the tree.
		bool filling = (step / 2500) % 2 == 0;
		if (r < (filling ? 6u : 2u))
			op_insert();
		else if (r < 8)
			op_remove();
		else
			op_update();
		if (!check_tree() || !check_queries()) {
			printf("# step %d: %s\n", step, why);
			return false;
		}
	}
	return true;
}

// Adjacent ranges inserted in order (as a program mapping page after page
// does) keep the tree balanced: height within the AVL bound.
static bool test_sequential_balanced(void)
{
	enum { N = 100000 };
	struct vt_node *many = calloc(N, sizeof(*many));
	struct vt_tree t = { 0, 0 };
	bool ok = true;

	if (!many)
		return false;
	for (int i = 0; i < N; i++) {
		many[i].start = (uint64_t)i * 2 * 4096;
		many[i].end = many[i].start + 4096;
		vt_insert(&t, &many[i]);
	}
	// 1.44 log2(N + 2): 24 for 100000.
	ok &= t.root->height <= 24;
	ok &= t.root->sub_gap == 4096;
	uint64_t a;
	ok &= vt_find_gap(&t, 4096, 0, UINT64_MAX, &a) && a == 4096;
	ok &= vt_find_gap(&t, 8192, 0, UINT64_MAX, &a) && a == (uint64_t)N * 2 * 4096 - 4096;
	ok &= vt_find(&t, 77777 * 2 * 4096 + 5) == &many[77777];
	ok &= vt_find(&t, 77777 * 2 * 4096 + 4096) == 0;
	// Remove every other one and then all of them.
	for (int i = 0; i < N; i += 2)
		vt_remove(&t, &many[i]);
	ok &= t.count == N / 2 && t.root->height <= 24;
	for (int i = 1; i < N; i += 2)
		vt_remove(&t, &many[i]);
	ok &= t.count == 0 && t.root == 0;
	free(many);
	return ok;
}

// A guard below a range keeps the search out of it, but not a range
// already placed inside it.
static bool test_guard(void)
{
	struct vt_node stack = { .start = 1000, .end = 1100, .guard = 256 };
	struct vt_node low = { .start = 100, .end = 200 };
	struct vt_tree t = { 0, 0 };
	uint64_t a;
	bool ok = true;

	vt_insert(&t, &stack);
	vt_insert(&t, &low);
	// [200, 744) is free, [744, 1000) is the guard.
	ok &= vt_find_gap(&t, 544, 150, 2000, &a) && a == 200;
	ok &= vt_find_gap(&t, 545, 150, 2000, &a) && a == 1100;
	ok &= vt_find_gap(&t, 10, 740, 1000, &a) == false;
	// A range inside the guard (MAP_FIXED) leaves no gap before the stack.
	struct vt_node fixed = { .start = 900, .end = 950 };
	vt_insert(&t, &fixed);
	ok &= vt_find_gap(&t, 10, 940, 1000, &a) == false;
	ok &= vt_find_gap(&t, 10, 0, 2000, &a) && a == 0;
	ok &= vt_find_gap(&t, 100, 101, 2000, &a) && a == 200;
	// A guard reaching below address 0 only closes the gap right below
	// its range (the ranges before keep theirs).
	stack.guard = 5000;
	vt_update(&stack);
	ok &= vt_reach(&stack) == 0;
	ok &= vt_find_gap(&t, 100, 0, 2000, &a) && a == 0;
	ok &= vt_find_gap(&t, 100, 950, 2000, &a) && a == 1100;
	return ok;
}

// The top of the address space: nothing wraps.
static bool test_top(void)
{
	struct vt_node hi = { .start = UINT64_MAX - 4096, .end = UINT64_MAX };
	struct vt_tree t = { 0, 0 };
	uint64_t a;
	bool ok = true;

	vt_insert(&t, &hi);
	ok &= vt_find_gap(&t, 4096, UINT64_MAX - 8192, UINT64_MAX, &a) &&
	      a == UINT64_MAX - 8192;
	ok &= !vt_find_gap(&t, 4097, UINT64_MAX - 8192, UINT64_MAX, &a);
	ok &= !vt_find_gap(&t, 1, UINT64_MAX - 4096, UINT64_MAX, &a);
	ok &= vt_find(&t, UINT64_MAX - 1) == &hi;
	ok &= vt_first_ending_after(&t, UINT64_MAX - 1) == &hi;
	ok &= !vt_find_gap(&t, 0, 0, 10, &a);
	return ok;
}

int main(void)
{
	ktap_plan(4);
	ktap_ok(test_random_ops(), "random_ops_match_model");
	ktap_ok(test_sequential_balanced(), "sequential_inserts_balanced");
	ktap_ok(test_guard(), "guard_gap");
	ktap_ok(test_top(), "top_of_address_space");
	return ktap_exit();
}
