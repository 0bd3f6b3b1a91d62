// An intrusive pairing heap (Fredman, Sedgewick, Sleator and Tarjan,
// 1986) keyed by a 64-bit value: the kernel timer queue.  Pure
// bookkeeping, host-tested with sanitizers (tests/host/test_pheap.c); the
// caller serialises access.
//
// Why a pairing heap for timers: a queue of timers is mostly inserts
// later than everything queued (sleeps of one length) and removals of
// the first (expiries), the pattern a balanced tree pays most for: with
// a few hundred timers queued (hotpath sleep:1000), a red-black tree
// spent about 350 instructions a sleep on its queue, rebalancing at
// nearly every insert at its right end and erase at its left; the heap
// spends about 140.  An insert is one comparison with the root; taking
// out the first or any node pairs up the children left behind, O(log n)
// amortized.
//
// Invariants (checked by the host test after every step): a node's key
// is not less than its parent's, and of equal keys the one inserted
// first comes out first (each node carries its insertion number, so the
// order is total and no structure can reorder equals); a node's 'prev'
// is its previous sibling, or its parent if it is a first child, and
// the root's is NULL.
#ifndef LIB_PHEAP_H
#define LIB_PHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ph_node {
	struct ph_node *child;	// first child
	struct ph_node *next;	// next sibling
	struct ph_node *prev;	// previous sibling, or the parent
	uint64_t key;
	uint64_t order;		// insertion number: equal keys come out in order
};

struct ph_heap {
	struct ph_node *root;	// the least, NULL if empty
	uint64_t inserted;	// the next insertion number
};

static inline void ph_init(struct ph_heap *h)
{
	h->root = NULL;
	h->inserted = 0;
}

static inline struct ph_node *ph_first(const struct ph_heap *h)
{
	return h->root;
}

void ph_insert(struct ph_heap *h, struct ph_node *n, uint64_t key);
// Takes n (in h) out; ph_remove(h, ph_first(h)) takes out the least.
void ph_remove(struct ph_heap *h, struct ph_node *n);

#endif
