// A balanced tree of non-overlapping address ranges [start, end), keyed
// by start: the index behind an address space's mappings (VMAs).  An AVL
// tree whose nodes also summarise their subtree (lowest reach, highest
// end, largest free gap between neighbours), so that finding the range
// at an address, the first range after an address, and the lowest free
// gap of a given size all take O(log n) instead of a walk over every
// mapping.
//
// Nodes are embedded in the caller's objects (struct vma) and the tree
// allocates nothing; it is pure bookkeeping, host-tested with sanitizers.
// The caller serialises access (mm->lock).
//
// A node may keep a guard gap below its start (a stack's guard gap): the
// free gap between it and the range before it ends guard bytes early, so
// the gap search never places anything there.
#ifndef MM_VMA_TREE_H
#define MM_VMA_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vt_node {
	uint64_t start, end;		// [start, end); set before insert
	uint64_t guard;			// bytes below start kept free by the search
	// Bookkeeping of the tree: not to be touched by the caller.
	struct vt_node *left, *right, *parent;
	int height;
	uint64_t sub_lo;		// start - guard of the subtree's first range
	uint64_t sub_hi;		// end of the subtree's last range
	uint64_t sub_gap;		// largest gap between neighbours inside
};

struct vt_tree {
	struct vt_node *root;
	size_t count;
};

// Adds n (n->start, end and guard set, not overlapping any other node).
void vt_insert(struct vt_tree *t, struct vt_node *n);
void vt_remove(struct vt_tree *t, struct vt_node *n);
// n's start, end or guard changed without passing a neighbour: fix the
// summaries above it.
void vt_update(struct vt_node *n);

// The range containing addr, or NULL.
struct vt_node *vt_find(const struct vt_tree *t, uint64_t addr);
// The first range that ends after addr (contains it or lies above), or
// NULL.
struct vt_node *vt_first_ending_after(const struct vt_tree *t, uint64_t addr);
struct vt_node *vt_first(const struct vt_tree *t);
struct vt_node *vt_next(const struct vt_node *n);
struct vt_node *vt_prev(const struct vt_node *n);

// The lowest address a >= lo with [a, a + len) free, a + len <= hi, and
// not inside a node's guard gap.  False if there is none.  len > 0.
bool vt_find_gap(const struct vt_tree *t, uint64_t len, uint64_t lo, uint64_t hi, uint64_t *out);

// Where a gap before n starts being unusable: n->start - n->guard (0 if
// the guard reaches below 0).
static inline uint64_t vt_reach(const struct vt_node *n)
{
	return n->start > n->guard ? n->start - n->guard : 0;
}

#endif
