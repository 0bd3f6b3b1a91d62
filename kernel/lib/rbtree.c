// The red-black tree of lib/rbtree.h: the textbook algorithm (Cormen et
// al., chapter 13) with parent links and NULL for the empty leaves, which
// count as black.  An erase whose removed colour was black leaves a
// "double black" at the place that lost it; with NULL leaves that place
// may be empty, so the fix-up carries its parent along with it.

#include <lib/rbtree.h>

static bool is_red(const struct rb_node *n)
{
	return n && n->red;
}

// Points whatever pointed at 'old' (its parent's link, or the root) at
// 'new'.
static void replace_child(struct rb_tree *t, struct rb_node *parent,
			  struct rb_node *old, struct rb_node *new)
{
	rb_relink(t, parent, old, new);
	if (new)
		new->parent = parent;
}

// n's right child r takes n's place, n becomes r's left child and takes
// r's old left subtree as its right one.
static void rotate_left(struct rb_tree *t, struct rb_node *n)
{
	struct rb_node *r = n->right;

	replace_child(t, n->parent, n, r);
	n->right = r->left;
	if (n->right)
		n->right->parent = n;
	r->left = n;
	n->parent = r;
}

static void rotate_right(struct rb_tree *t, struct rb_node *n)
{
	struct rb_node *l = n->left;

	replace_child(t, n->parent, n, l);
	n->left = l->right;
	if (n->left)
		n->left->parent = n;
	l->right = n;
	n->parent = l;
}

// n is red and has a red parent: recolour upward while the uncle is
// red, then at most two rotations end it.
void rb_insert_fixup(struct rb_tree *t, struct rb_node *n)
{
	struct rb_node *p, *g, *u;

	while ((p = n->parent) && p->red) {
		g = p->parent;		// p is red, so not the root
		if (p == g->left) {
			u = g->right;
			if (is_red(u)) {
				p->red = u->red = false;
				g->red = true;
				n = g;
				continue;
			}
			if (n == p->right) {
				rotate_left(t, p);
				p = n;
			}
			p->red = false;
			g->red = true;
			rotate_right(t, g);
		} else {
			u = g->left;
			if (is_red(u)) {
				p->red = u->red = false;
				g->red = true;
				n = g;
				continue;
			}
			if (n == p->left) {
				rotate_right(t, p);
				p = n;
			}
			p->red = false;
			g->red = true;
			rotate_left(t, g);
		}
		break;
	}
	t->root->red = false;
}

struct rb_node *rb_next(const struct rb_node *n)
{
	const struct rb_node *p;

	if (n->right) {
		n = n->right;
		while (n->left)
			n = n->left;
		return (struct rb_node *)n;
	}
	while ((p = n->parent) && n == p->right)
		n = p;
	return (struct rb_node *)p;
}

struct rb_node *rb_prev(const struct rb_node *n)
{
	const struct rb_node *p;

	if (n->left) {
		n = n->left;
		while (n->right)
			n = n->right;
		return (struct rb_node *)n;
	}
	while ((p = n->parent) && n == p->left)
		n = p;
	return (struct rb_node *)p;
}

// The subtree at x (possibly empty), child of p, has one black node
// fewer on its paths than its sibling's: recolour upward while the
// sibling and its children are black, else at most three rotations end
// it.  The sibling exists: its side has at least one black node.
void rb_erase_fixup(struct rb_tree *t, struct rb_node *x, struct rb_node *p)
{
	struct rb_node *w;

	while (x != t->root && !is_red(x)) {
		if (x == p->left) {
			w = p->right;
			if (w->red) {
				w->red = false;
				p->red = true;
				rotate_left(t, p);
				w = p->right;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = true;
				x = p;
				p = x->parent;
				continue;
			}
			if (!is_red(w->right)) {
				w->left->red = false;
				w->red = true;
				rotate_right(t, w);
				w = p->right;
			}
			w->red = p->red;
			p->red = false;
			w->right->red = false;
			rotate_left(t, p);
		} else {
			w = p->left;
			if (w->red) {
				w->red = false;
				p->red = true;
				rotate_right(t, p);
				w = p->left;
			}
			if (!is_red(w->left) && !is_red(w->right)) {
				w->red = true;
				x = p;
				p = x->parent;
				continue;
			}
			if (!is_red(w->left)) {
				w->right->red = false;
				w->red = true;
				rotate_left(t, w);
				w = p->left;
			}
			w->red = p->red;
			p->red = false;
			w->left->red = false;
			rotate_right(t, p);
		}
		x = t->root;
		break;
	}
	if (x)
		x->red = false;
}

// rb_erase of n with two children (so neither the first nor the last):
// its successor y, leftmost on its right and so without a left child,
// takes n's place and colour; the colour lost is y's, where y was, and
// y's right child (if any) takes that place.
void rb_erase_inner(struct rb_tree *t, struct rb_node *n)
{
	struct rb_node *y = n->right, *x, *xp;
	bool removed_red;

	while (y->left)
		y = y->left;
	removed_red = y->red;
	x = y->right;
	if (y->parent == n) {
		xp = y;
	} else {
		xp = y->parent;
		xp->left = x;
		if (x)
			x->parent = xp;
		y->right = n->right;
		y->right->parent = y;
	}
	replace_child(t, n->parent, n, y);
	y->left = n->left;
	y->left->parent = y;
	y->red = n->red;
	if (!removed_red)
		rb_erase_fixup(t, x, xp);
}
