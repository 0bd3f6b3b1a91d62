// The address-range tree (see mm/vma_tree.h): an AVL tree with parent
// links.  Every node carries a summary of its subtree, recomputed from
// its children only (pull), so rotations and updates stay local: each
// change pulls from the changed node up to the root, O(log n).

#include <mm/vma_tree.h>

static int height(const struct vt_node *n)
{
	return n ? n->height : 0;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

// Free bytes between an end and the next reach (0 if they overlap, as
// when a mapping sits inside a stack's guard gap).
static uint64_t gap_between(uint64_t end, uint64_t next_reach)
{
	return next_reach > end ? next_reach - end : 0;
}

// Recomputes n's height and subtree summary from its children.
static void pull(struct vt_node *n)
{
	struct vt_node *l = n->left, *r = n->right;
	uint64_t gap = 0;

	n->height = 1 + (height(l) > height(r) ? height(l) : height(r));
	n->sub_lo = l ? l->sub_lo : vt_reach(n);
	n->sub_hi = r ? r->sub_hi : n->end;
	if (l)
		gap = max64(l->sub_gap, gap_between(l->sub_hi, vt_reach(n)));
	if (r)
		gap = max64(gap, max64(r->sub_gap, gap_between(n->end, r->sub_lo)));
	n->sub_gap = gap;
}

// Points whatever pointed at 'old' (its parent's link, or the root) at
// 'new'.
static void replace_child(struct vt_tree *t, struct vt_node *parent,
			  struct vt_node *old, struct vt_node *new)
{
	if (!parent)
		t->root = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
	if (new)
		new->parent = parent;
}

// n's left child l takes n's place, n becomes l's right child and takes
// l's old right subtree as its left one.
static struct vt_node *rotate_right(struct vt_tree *t, struct vt_node *n)
{
	struct vt_node *l = n->left;

	replace_child(t, n->parent, n, l);
	n->left = l->right;
	if (n->left)
		n->left->parent = n;
	l->right = n;
	n->parent = l;
	pull(n);
	pull(l);
	return l;
}

static struct vt_node *rotate_left(struct vt_tree *t, struct vt_node *n)
{
	struct vt_node *r = n->right;

	replace_child(t, n->parent, n, r);
	n->right = r->left;
	if (n->right)
		n->right->parent = n;
	r->left = n;
	n->parent = r;
	pull(n);
	pull(r);
	return r;
}

// Restores the AVL balance at n (its subtrees are balanced); returns the
// subtree's new root.
static struct vt_node *rebalance(struct vt_tree *t, struct vt_node *n)
{
	int bal = height(n->left) - height(n->right);

	if (bal > 1) {
		if (height(n->left->left) < height(n->left->right))
			rotate_left(t, n->left);
		return rotate_right(t, n);
	}
	if (bal < -1) {
		if (height(n->right->right) < height(n->right->left))
			rotate_right(t, n->right);
		return rotate_left(t, n);
	}
	pull(n);
	return n;
}

// From n up to the root: rebalance and recompute every summary.
static void fix_upward(struct vt_tree *t, struct vt_node *n)
{
	while (n) {
		n = rebalance(t, n);
		n = n->parent;
	}
}

void vt_insert(struct vt_tree *t, struct vt_node *n)
{
	struct vt_node *parent = 0, **link = &t->root;

	while (*link) {
		parent = *link;
		link = n->start < parent->start ? &parent->left : &parent->right;
	}
	n->left = n->right = 0;
	n->parent = parent;
	*link = n;
	pull(n);
	t->count++;
	fix_upward(t, parent);
}

// Puts s (n's successor, in n's right subtree) where n is in the tree,
// and n where s was: a structural swap, since the nodes are the caller's.
static void swap_with_successor(struct vt_tree *t, struct vt_node *n, struct vt_node *s)
{
	struct vt_node *np = n->parent, *nl = n->left, *nr = n->right;
	struct vt_node *sp = s->parent, *sr = s->right;
	int nh = n->height;

	replace_child(t, np, n, s);
	s->left = nl;
	nl->parent = s;
	if (nr == s) {
		s->right = n;
		n->parent = s;
	} else {
		s->right = nr;
		nr->parent = s;
		sp->left = n;
		n->parent = sp;
	}
	n->left = 0;
	n->right = sr;
	if (sr)
		sr->parent = n;
	s->height = nh;
}

void vt_remove(struct vt_tree *t, struct vt_node *n)
{
	if (n->left && n->right) {
		struct vt_node *s = n->right;
		while (s->left)
			s = s->left;
		swap_with_successor(t, n, s);
	}
	// Now n has at most one child.
	struct vt_node *child = n->left ? n->left : n->right;
	struct vt_node *parent = n->parent;

	replace_child(t, parent, n, child);
	n->left = n->right = n->parent = 0;
	t->count--;
	fix_upward(t, parent);
}

void vt_update(struct vt_node *n)
{
	for (; n; n = n->parent)
		pull(n);
}

struct vt_node *vt_find(const struct vt_tree *t, uint64_t addr)
{
	struct vt_node *n = t->root;

	while (n) {
		if (addr < n->start)
			n = n->left;
		else if (addr >= n->end)
			n = n->right;
		else
			return n;
	}
	return 0;
}

struct vt_node *vt_first_ending_after(const struct vt_tree *t, uint64_t addr)
{
	struct vt_node *n = t->root, *best = 0;

	// Ranges do not overlap, so ends are sorted like starts.
	while (n) {
		if (n->end > addr) {
			best = n;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	return best;
}

struct vt_node *vt_first(const struct vt_tree *t)
{
	struct vt_node *n = t->root;

	while (n && n->left)
		n = n->left;
	return n;
}

struct vt_node *vt_next(const struct vt_node *n)
{
	if (n->right) {
		n = n->right;
		while (n->left)
			n = n->left;
		return (struct vt_node *)n;
	}
	while (n->parent && n->parent->right == n)
		n = n->parent;
	return n->parent;
}

struct vt_node *vt_prev(const struct vt_node *n)
{
	if (n->left) {
		n = n->left;
		while (n->right)
			n = n->right;
		return (struct vt_node *)n;
	}
	while (n->parent && n->parent->left == n)
		n = n->parent;
	return n->parent;
}

// ---- free-gap search ----

struct gap_query {
	uint64_t len, lo, hi;
	uint64_t found;
};

enum { GAP_CONTINUE, GAP_FOUND, GAP_STOP };

// Does the free stretch [from, to) hold len bytes within [lo, hi)?
static bool gap_fits(struct gap_query *q, uint64_t from, uint64_t to)
{
	uint64_t a = from > q->lo ? from : q->lo;
	uint64_t b = to < q->hi ? to : q->hi;

	if (a >= b || b - a < q->len)
		return false;
	q->found = a;
	return true;
}

// Visits the gaps of n's subtree in address order, the first one being
// the gap between *prev_end (the end of the range before the subtree) and
// the subtree's first range; on return *prev_end is the subtree's end.
// Subtrees that cannot hold a fit are skipped by their summaries.
static int search(const struct vt_node *n, struct gap_query *q, uint64_t *prev_end)
{
	if (!n)
		return GAP_CONTINUE;
	// Nothing in here ends above lo, or no gap here is large enough.
	bool before = gap_between(*prev_end, n->sub_lo) >= q->len;
	if (n->sub_hi <= q->lo || (!before && n->sub_gap < q->len)) {
		*prev_end = n->sub_hi;
		return GAP_CONTINUE;
	}
	int r = search(n->left, q, prev_end);
	if (r != GAP_CONTINUE)
		return r;
	if (gap_fits(q, *prev_end, vt_reach(n)))
		return GAP_FOUND;
	if (vt_reach(n) >= q->hi)
		return GAP_STOP;	// every later gap starts above hi
	*prev_end = n->end;
	return search(n->right, q, prev_end);
}

bool vt_find_gap(const struct vt_tree *t, uint64_t len, uint64_t lo, uint64_t hi, uint64_t *out)
{
	struct gap_query q = { len, lo, hi, 0 };
	uint64_t prev_end = 0;

	if (len == 0 || lo >= hi || hi - lo < len)
		return false;
	int r = search(t->root, &q, &prev_end);
	if (r == GAP_STOP)
		return false;
	// After the last range, everything up to hi is free.
	if (r == GAP_CONTINUE && !gap_fits(&q, prev_end, UINT64_MAX))
		return false;
	*out = q.found;
	return true;
}
