// An intrusive red-black tree with its least and greatest nodes cached:
// for ordered queues whose cost must not grow with their length and
// that need both ends and any node (the fair run queue, keyed by
// vruntime; the timer queue, which needs only the least, is a pairing
// heap: lib/pheap.h).  Pure bookkeeping, host-tested with sanitizers
// (tests/host/test_rbtree.c); the caller serialises access.
//
// The tree knows no keys.  The caller finds the place of a new node
// itself, descending from the root (or taking a shortcut at either end:
// a new node not less than the last one goes right of it, one less than
// the first one left of it), and hands the empty place it found, as the
// parent and the side, to rb_insert.  A caller that sends equal keys to
// the right keeps them in order of arrival.
//
// Invariants (checked by the host test after every step):
//   - in-order is the caller's order; parent links match child links;
//   - the root is black, a red node has no red child, and every path
//     from a node down to an empty place has as many black nodes as
//     any other, so the height is at most 2 log2(n + 1);
//   - first and last are the in-order first and last nodes (NULL when
//     the tree is empty).
// An insert rotates at most twice and an erase at most three times;
// with the cached ends, the pick of the least, an insert at either end
// and the erase of the least cost O(1) amortized, any other O(log n).
#ifndef LIB_RBTREE_H
#define LIB_RBTREE_H

#include <stdbool.h>
#include <stddef.h>

struct rb_node {
	struct rb_node *parent, *left, *right;
	bool red;
};

struct rb_tree {
	struct rb_node *root;
	struct rb_node *first, *last;	// least and greatest, NULL if empty
};

static inline void rb_init(struct rb_tree *t)
{
	t->root = t->first = t->last = NULL;
}

static inline bool rb_empty(const struct rb_tree *t)
{
	return t->root == NULL;
}

// The out-of-line parts of rb_insert and rb_erase (kernel/lib/rbtree.c).
void rb_insert_fixup(struct rb_tree *t, struct rb_node *n);
void rb_erase_fixup(struct rb_tree *t, struct rb_node *x, struct rb_node *p);
void rb_erase_inner(struct rb_tree *t, struct rb_node *n);

// Points the link that led to 'old' (its parent's, or the root) at
// 'new' (which may be NULL); the parent is p.
static inline void rb_relink(struct rb_tree *t, struct rb_node *p, struct rb_node *old,
			     struct rb_node *new)
{
	if (!p)
		t->root = new;
	else if (p->left == old)
		p->left = new;
	else
		p->right = new;
}

// rb_insert and rb_erase are inline for what a switch meets: linking a
// node at an end and taking out the first (a node with one child at
// most); a rebalance of more than a recolouring, and the erase of a
// node with two children, are calls.  (Out of line, the calls cost the
// switch between two threads about ten instructions each way.)

// Links n as the left (or right) child of parent, an empty place a
// descent found (parent NULL: the tree is empty), and rebalances.
static inline void rb_insert(struct rb_tree *t, struct rb_node *n, struct rb_node *parent,
			     bool left)
{
	n->parent = parent;
	n->left = n->right = NULL;
	if (!parent) {
		t->root = t->first = t->last = n;
		n->red = false;
		return;
	}
	n->red = true;
	if (left) {
		parent->left = n;
		if (parent == t->first)
			t->first = n;
	} else {
		parent->right = n;
		if (parent == t->last)
			t->last = n;
	}
	if (parent->red)
		rb_insert_fixup(t, n);
}

// Takes n out; its links are then stale, free for the caller.  A node
// with one child is black and its child a red leaf, which takes its
// place and colour; a black leaf leaves its parent's side short of a
// black node (rb_erase_fixup).  The first node has no left child, so
// its successor is its right child or else its parent; the last node
// likewise.
static inline void rb_erase(struct rb_tree *t, struct rb_node *n)
{
	struct rb_node *p = n->parent, *child = n->left ? n->left : n->right;

	if (n->left && n->right) {
		rb_erase_inner(t, n);
		return;
	}
	if (n == t->first)
		t->first = n->right ? n->right : p;
	if (n == t->last)
		t->last = n->left ? n->left : p;
	rb_relink(t, p, n, child);
	if (child) {
		child->parent = p;
		child->red = false;
	} else if (!n->red && p) {
		rb_erase_fixup(t, NULL, p);
	}
}

// n takes old's place, links and colour; old's links are then stale.
// The caller keeps the order: n's key belongs between old's neighbours
// (a yield hands its place in the run queue to the thread it picks).
// O(1), no rebalance.
static inline void rb_replace(struct rb_tree *t, struct rb_node *old, struct rb_node *n)
{
	struct rb_node *p = old->parent;

	*n = *old;
	rb_relink(t, p, old, n);
	if (n->left)
		n->left->parent = n;
	if (n->right)
		n->right->parent = n;
	if (t->first == old)
		t->first = n;
	if (t->last == old)
		t->last = n;
}

// In-order neighbours, NULL past either end.
struct rb_node *rb_next(const struct rb_node *n);
struct rb_node *rb_prev(const struct rb_node *n);

#endif
