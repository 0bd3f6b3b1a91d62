// The pairing heap of lib/pheap.h.  A heap is a tree whose root is the
// least node; a node's children are a list, linked by next and prev,
// the first child's prev pointing back at the parent.  Two heaps meld by
// one comparison: the greater root becomes the first child of the other.
// Taking a node out leaves its children, which the two-pass rule melds
// back into one heap: in pairs from the first, then the pairs from the
// last back to the first.

#include <lib/pheap.h>

static bool less(const struct ph_node *a, const struct ph_node *b)
{
	return a->key < b->key || (a->key == b->key && a->order < b->order);
}

// Melds two heaps (roots without siblings); returns the new root, whose
// next and prev the caller sets.
static struct ph_node *meld(struct ph_node *a, struct ph_node *b)
{
	struct ph_node *t;

	if (less(b, a)) {
		t = a;
		a = b;
		b = t;
	}
	b->prev = a;
	b->next = a->child;
	if (a->child)
		a->child->prev = b;
	a->child = b;
	return a;
}

// Melds the list of siblings starting at c into one heap (NULL if c is).
static struct ph_node *merge_pairs(struct ph_node *c)
{
	struct ph_node *pairs = NULL, *a, *b, *r;

	// First pass, from the first: meld each two, stacking the results
	// (linked by next) so the last pair is on top.
	while (c) {
		a = c;
		b = c->next;
		c = b ? b->next : NULL;
		if (b) {
			a->next = b->next = NULL;
			a = meld(a, b);
		}
		a->next = pairs;
		pairs = a;
	}
	if (!pairs)
		return NULL;
	// Second pass, from the last pair back to the first.
	r = pairs;
	pairs = pairs->next;
	while (pairs) {
		a = pairs;
		pairs = pairs->next;
		r = meld(a, r);
	}
	r->next = r->prev = NULL;
	return r;
}

void ph_insert(struct ph_heap *h, struct ph_node *n, uint64_t key)
{
	n->key = key;
	n->order = h->inserted++;
	n->child = n->next = n->prev = NULL;
	h->root = h->root ? meld(h->root, n) : n;
	h->root->next = h->root->prev = NULL;
}

void ph_remove(struct ph_heap *h, struct ph_node *n)
{
	struct ph_node *sub = merge_pairs(n->child);

	if (n == h->root) {
		h->root = sub;
		return;
	}
	// Out of its parent's list of children.
	if (n->prev->child == n)
		n->prev->child = n->next;
	else
		n->prev->next = n->next;
	if (n->next)
		n->next->prev = n->prev;
	if (sub) {
		h->root = meld(h->root, sub);
		h->root->next = h->root->prev = NULL;
	}
}
