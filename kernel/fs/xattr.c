// Extended attributes of the in-memory tree, as Linux's tmpfs keeps them
// (simple_xattr): a list per vnode of (name, value) pairs.  Their bytes
// count against the tree's size limit, so attributes cannot take memory
// files could not.  The namespace rules (user., trusted., security.)
// are the system calls' (kernel/syscall/fs_xattr.c).

#include <fs/vnode.h>
#include <kernel/spinlock.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define XATTR_CREATE	1
#define XATTR_REPLACE	2
#define PAGE_BYTES	4096

struct xattr {
	struct xattr *next;
	size_t name_len, size;
	char data[];		// the name, its NUL, then the value
};

// Bytes of every attribute together, charged to the tree's space by
// whole pages.
static struct spinlock charge_lock = SPINLOCK_INIT("xattr space");
static uint64_t charged_bytes;

static uint64_t pages_of(uint64_t bytes)
{
	return (bytes + PAGE_BYTES - 1) / PAGE_BYTES;
}

static bool charge(uint64_t n)
{
	uint64_t flags = spin_lock_irqsave(&charge_lock);
	uint64_t more = pages_of(charged_bytes + n) - pages_of(charged_bytes);
	bool ok = more == 0 || vfs_space_take(more);

	if (ok)
		charged_bytes += n;
	spin_unlock_irqrestore(&charge_lock, flags);
	return ok;
}

static void uncharge(uint64_t n)
{
	uint64_t flags = spin_lock_irqsave(&charge_lock);
	uint64_t fewer = pages_of(charged_bytes) - pages_of(charged_bytes - n);

	charged_bytes -= n;
	vfs_space_give(fewer);
	spin_unlock_irqrestore(&charge_lock, flags);
}

static uint64_t cost(const struct xattr *x)
{
	return sizeof(*x) + x->name_len + 1 + x->size;
}

static struct xattr **find_locked(struct vnode *vn, const char *name)
{
	struct xattr **pp = &vn->xattrs;

	while (*pp && strcmp((*pp)->data, name))
		pp = &(*pp)->next;
	return pp;
}

long xattr_get(struct vnode *vn, const char *name, void *buf, size_t size)
{
	uint64_t flags = spin_lock_irqsave(&vn->lock);
	struct xattr *x = *find_locked(vn, name);
	long rc = -ENODATA;

	if (x && size && x->size > size)
		rc = -ERANGE;
	else if (x) {
		if (size)
			memcpy(buf, x->data + x->name_len + 1, x->size);
		rc = (long)x->size;
	}
	spin_unlock_irqrestore(&vn->lock, flags);
	return rc;
}

long xattr_set(struct vnode *vn, const char *name, const void *value, size_t size, int flags)
{
	size_t len = strlen(name);
	struct xattr *nx = kmalloc(sizeof(*nx) + len + 1 + size);

	if (!nx)
		return -ENOMEM;
	nx->next = NULL;
	nx->name_len = len;
	nx->size = size;
	memcpy(nx->data, name, len + 1);
	memcpy(nx->data + len + 1, value, size);
	if (!charge(cost(nx))) {
		kfree(nx);
		return -ENOSPC;
	}
	uint64_t irq = spin_lock_irqsave(&vn->lock);
	struct xattr **pp = find_locked(vn, name), *old = *pp;
	long rc = 0;

	if (old && (flags & XATTR_CREATE))
		rc = -EEXIST;
	else if (!old && (flags & XATTR_REPLACE))
		rc = -ENODATA;
	else {
		nx->next = old ? old->next : NULL;
		*pp = nx;	// a replaced value keeps its place in the list
		vn->ctime_ns = fs_now_ns();
	}
	spin_unlock_irqrestore(&vn->lock, irq);
	struct xattr *gone = rc ? nx : old;
	if (gone) {
		uncharge(cost(gone));
		kfree(gone);
	}
	return rc;
}

long xattr_remove(struct vnode *vn, const char *name)
{
	uint64_t irq = spin_lock_irqsave(&vn->lock);
	struct xattr **pp = find_locked(vn, name), *x = *pp;

	if (x) {
		*pp = x->next;
		vn->ctime_ns = fs_now_ns();
	}
	spin_unlock_irqrestore(&vn->lock, irq);
	if (!x)
		return -ENODATA;
	uncharge(cost(x));
	kfree(x);
	return 0;
}

long xattr_list(struct vnode *vn, char *buf, size_t size, bool with_trusted)
{
	uint64_t irq = spin_lock_irqsave(&vn->lock);
	size_t need = 0;
	long rc = 0;

	for (struct xattr *x = vn->xattrs; x; x = x->next) {
		if (!with_trusted && !strncmp(x->data, "trusted.", 8))
			continue;
		if (size && need + x->name_len + 1 > size) {
			rc = -ERANGE;
			break;
		}
		if (size)
			memcpy(buf + need, x->data, x->name_len + 1);
		need += x->name_len + 1;
	}
	spin_unlock_irqrestore(&vn->lock, irq);
	return rc ? rc : (long)need;
}

void xattr_free_all(struct vnode *vn)
{
	while (vn->xattrs) {
		struct xattr *x = vn->xattrs;
		vn->xattrs = x->next;
		uncharge(cost(x));
		kfree(x);
	}
}
