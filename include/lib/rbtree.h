// An intrusive red-black tree with its least and greatest nodes cached:
// the ordered queues whose cost must not grow with their length (the
// fair run queue, keyed by vruntime; the kernel timer queue, keyed by
// expiry).  Pure bookkeeping, host-tested with sanitizers
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

// Links n as the left (or right) child of parent, an empty place a
// descent found (parent NULL: the tree is empty), and rebalances.
void rb_insert(struct rb_tree *t, struct rb_node *n, struct rb_node *parent, bool left);
// Takes n out; its links are then free for the caller's use.
void rb_erase(struct rb_tree *t, struct rb_node *n);
// In-order neighbours, NULL past either end.
struct rb_node *rb_next(const struct rb_node *n);
struct rb_node *rb_prev(const struct rb_node *n);

#endif
