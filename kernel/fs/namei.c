// Path lookup and the operations that change names in the tree: create,
// unlink, rename, link.  Every walk holds vfs_tree_lock from start to end,
// so the vnodes it passes cannot change or vanish meanwhile.

#include <fs/vfs.h>
#include <fs/fcntl.h>
#include <fs/dev.h>
#include <fs/fsnotify.h>
#include <kernel/process.h>
#include <kernel/cred.h>
#include <kernel/uaccess.h>
#include <lib/string.h>
#include <lib/printf.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define MAX_SYMLINKS 40		// expansions per lookup (Linux's limit)

static struct vnode *root_vnode;

struct vnode *vfs_root(void)
{
	struct vnode *root = __atomic_load_n(&root_vnode, __ATOMIC_ACQUIRE);

	if (root)
		return root;
	// First use (vfs_init or an early test): make the empty root.
	root = vnode_alloc(VNODE_DIR, 0755);
	if (!root)
		return NULL;
	root->nlink = 2;	// never reaches 0: the root is never freed
	struct vnode *expected = NULL;
	if (!__atomic_compare_exchange_n(&root_vnode, &expected, root, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		root->nlink = 0;	// lost the race: free ours
		vnode_put(root);
		return expected;
	}
	return root;
}

static bool is_dot(const char *s, size_t len)
{
	return len == 1 && s[0] == '.';
}

static bool is_dotdot(const char *s, size_t len)
{
	return len == 2 && s[0] == '.' && s[1] == '.';
}

// Replaces the path still to walk by the target of 'link' followed by
// 'rest' (what came after the link's name).  The result lives in *buf.
static int expand_symlink(struct vnode *link, const char *rest, char **buf, const char **p)
{
	const char *target;
	char *dyn = NULL;
	size_t tlen, rlen = strlen(rest);
	int rc;

	if (link->ops && link->ops->target) {
		dyn = kmalloc(PATH_MAX);
		if (!dyn)
			return -ENOMEM;
		long n = link->ops->target(link, dyn, PATH_MAX);
		if (n < 0) {
			kfree(dyn);
			return (int)n;
		}
		target = dyn;
		tlen = (size_t)n;
	} else {
		target = link->target;
		tlen = link->size;
	}
	rc = 0;
	if (tlen == 0)
		rc = -ENOENT;
	else if (tlen + rlen + 1 > PATH_MAX)
		rc = -ENAMETOOLONG;
	else if (!*buf && !(*buf = kmalloc(PATH_MAX)))
		rc = -ENOMEM;
	if (rc == 0) {
		// 'rest' may already live in *buf: move it first.
		memmove(*buf + tlen, rest, rlen + 1);
		memcpy(*buf, target, tlen);
		*p = *buf;
	}
	kfree(dyn);
	return rc;
}

// A name in 'dir' that only its lookup hook knows: the new vnode joins
// the walk's list of those it made (put when the walk ends), and holds
// 'dir' so that ".." from it stays valid.  Tree lock held.
static int lookup_computed(struct vnode *dir, const char *name, size_t len,
			   struct vnode **made, struct vnode **out)
{
	struct vnode *vn;
	int rc;

	if (!dir->ops || !dir->ops->lookup)
		return -ENOENT;
	rc = dir->ops->lookup(dir, name, len, &vn);
	if (rc)
		return rc;
	vn->computed = true;
	vnode_set_name(vn, dir, name, len);	// for getcwd in /proc
	dir->refcount++;
	vn->walk_next = *made;
	*made = vn;
	*out = vn;
	return 0;
}

struct walk_result {
	struct vnode *vn;	// the result, or the parent in parent mode
	char *name;		// parent mode: NAME_MAX + 1 bytes
	bool trailing_slash;
	bool want_file;		// open: a last magic link may give a file
	struct file *file;	// ... which it did (referenced; vn is NULL)
};

// openat2's rules for a link about to be followed, in Linux's order
// (pick_link, nd_jump_link).  Magic links are those that lead to an
// object rather than a path.
static int may_follow(struct vnode *link, int flags)
{
	bool magic = link->ops && (link->ops->jump || link->ops->jump_file);

	if (flags & LOOKUP_NO_SYMLINKS)
		return -ELOOP;
	if (magic && (flags & LOOKUP_NO_MAGICLINKS))
		return -ELOOP;
	if (magic && (flags & (LOOKUP_BENEATH | LOOKUP_IN_ROOT)))
		return -EXDEV;
	return 0;
}

// The lookup engine.  In parent mode it stops before the last component.
static int walk(struct vnode *start, const char *path, int flags, bool parent_mode,
		struct walk_result *res)
{
	struct vnode *root;
	struct vnode *made = NULL;
	const char *p = path;
	char *buf = NULL;
	int links = 0, rc = 0;
	bool slash_seen = false;
	struct vnode *cur;
	const struct cred *cred;
	uint64_t irq;

	if (!vfs_root())
		return -ENOMEM;
	if (*p == 0 && !(flags & LOOKUP_EMPTY_OK))
		return -ENOENT;
	cred = current_cred();
	irq = spin_lock_irqsave(&vfs_tree_lock);
	// Absolute paths and ".." stop at the caller's root (chroot), or at
	// the start of a scoped walk (openat2).
	root = current_root_locked();
	cur = start ? start : current_cwd_locked();
	if (flags & (LOOKUP_BENEATH | LOOKUP_IN_ROOT))
		root = cur;
	if (*p == '/' && (flags & LOOKUP_BENEATH))
		rc = -EXDEV;
	if (*p == '/')
		cur = root;
	while (rc == 0) {
		const char *comp, *next, *after;
		struct dirent_node *d;
		struct vnode *nxt;
		size_t len = 0;
		bool last;

		while (*p == '/')
			p++;
		if (*p == 0) {
			// Out of components: 'cur' is the answer.
			if (slash_seen && cur->type != VNODE_DIR)
				rc = -ENOTDIR;
			if (parent_mode) {
				res->name[0] = 0;
				res->trailing_slash = slash_seen;
			}
			break;
		}
		comp = p;
		// Every directory walked through must be searchable, the one
		// holding the last component too (Linux's may_lookup).
		if (cur->type == VNODE_DIR && (rc = vnode_permission(cred, cur, MAY_EXEC)))
			break;
		while (comp[len] && comp[len] != '/')
			len++;
		if (len > NAME_MAX) {
			rc = -ENAMETOOLONG;
			break;
		}
		next = comp + len;
		after = next;
		while (*after == '/')
			after++;
		last = *after == 0;
		if (cur->type != VNODE_DIR) {
			rc = -ENOTDIR;
			break;
		}
		if (last && parent_mode) {
			memcpy(res->name, comp, len);
			res->name[len] = 0;
			res->trailing_slash = *next == '/';
			break;
		}
		if (is_dot(comp, len)) {
			nxt = cur;
		} else if (is_dotdot(comp, len)) {
			if (cur == root && (flags & LOOKUP_BENEATH)) {
				rc = -EXDEV;
				break;
			}
			nxt = cur == root || cur == vfs_root() ? cur : cur->parent;
			if (!nxt) {
				rc = -ENOENT;	// cur was removed
				break;
			}
		} else {
			d = dir_find(cur, comp, len);
			if (d)
				nxt = d->vn;
			else if ((rc = lookup_computed(cur, comp, len, &made, &nxt)) != 0)
				break;
		}
		// A symlink is followed unless it is the last component of a
		// no-follow lookup; a trailing slash forces it.
		if (nxt->type == VNODE_SYMLINK &&
		    (!last || *next == '/' || (flags & LOOKUP_FOLLOW))) {
			if (++links > MAX_SYMLINKS) {
				rc = -ELOOP;
				break;
			}
			if ((rc = may_follow(nxt, flags)) != 0)
				break;
			struct vnode *to = nxt->ops && nxt->ops->jump ? nxt->ops->jump(nxt) : NULL;
			if (to) {
				slash_seen = *next == '/';
				cur = to;
				p = next;
				continue;
			}
			if (last && *next != '/' && res->want_file && nxt->ops && nxt->ops->jump_file &&
			    (res->file = nxt->ops->jump_file(nxt)) != NULL)
				break;	// an object without a path: open takes it

			rc = expand_symlink(nxt, next, &buf, &p);
			if (rc)
				break;
			if (*p == '/' && (flags & LOOKUP_BENEATH)) {
				rc = -EXDEV;
				break;
			}
			if (*p == '/')
				cur = root;
			continue;	// 'cur' stays the directory holding the link
		}
		slash_seen = *next == '/';
		cur = nxt;
		p = next;
	}
	if (!rc && !res->file) {
		cur->refcount++;
		res->vn = cur;
	}
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
	// The computed vnodes made on the way: the result keeps its own
	// reference, the others go now.
	while (made) {
		struct vnode *next = made->walk_next;
		vnode_put(made);
		made = next;
	}
	kfree(buf);
	return rc;
}

int vfs_lookup_at(struct vnode *start, const char *path, int flags, struct vnode **out)
{
	struct walk_result res = { 0 };
	int rc = walk(start, path, flags, false, &res);

	if (rc == 0)
		*out = res.vn;
	return rc;
}

int vfs_lookup_for_open(struct vnode *start, const char *path, int flags, struct vnode **out,
			struct file **file)
{
	struct walk_result res = { .want_file = true };
	int rc = walk(start, path, flags, false, &res);

	*out = res.vn;
	*file = res.file;
	return rc;
}

int vfs_lookup(const char *path, bool follow, struct vnode **out)
{
	return vfs_lookup_at(NULL, path, follow ? LOOKUP_FOLLOW : 0, out);
}

int vfs_lookup_parent(struct vnode *start, const char *path, struct vnode **dir,
		      char *name, bool *trailing_slash)
{
	return vfs_lookup_parent_flags(start, path, 0, dir, name, trailing_slash);
}

int vfs_lookup_parent_flags(struct vnode *start, const char *path, int flags, struct vnode **dir,
			    char *name, bool *trailing_slash)
{
	struct walk_result res = { .name = name };
	int rc = walk(start, path, flags & ~LOOKUP_FOLLOW, true, &res);

	if (rc)
		return rc;
	if (res.vn->type != VNODE_DIR) {
		vnode_put(res.vn);
		return -ENOTDIR;
	}
	*dir = res.vn;
	if (trailing_slash)
		*trailing_slash = res.trailing_slash;
	return 0;
}

// ---- changing names ----

static bool special_name(const char *name)
{
	size_t len = strlen(name);

	return len == 0 || is_dot(name, len) || is_dotdot(name, len);
}

// vfs_create for 'cred': it needs write and search on the directory and
// owns the new file.
// A device node's number and driver are set before the node appears.
static int create_as_node(const struct cred *cred, struct vnode *dir, const char *name,
			  enum vnode_type type, uint32_t perm, const char *target, uint64_t rdev,
			  struct vnode **out);

static int create_as(const struct cred *cred, struct vnode *dir, const char *name,
		     enum vnode_type type, uint32_t perm, const char *target, struct vnode **out)
{
	return create_as_node(cred, dir, name, type, perm, target, 0, out);
}

static int create_as_node(const struct cred *cred, struct vnode *dir, const char *name,
			  enum vnode_type type, uint32_t perm, const char *target, uint64_t rdev,
			  struct vnode **out)
{
	size_t len = strlen(name);
	struct vnode *vn;
	uint64_t irq;
	int rc = 0;

	if (special_name(name))
		return -EEXIST;
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	vn = vnode_alloc(type, perm);
	if (!vn)
		return -ENOMEM;
	if (type == VNODE_SYMLINK) {
		size_t tlen = strlen(target);

		vn->target = kmalloc(tlen + 1);
		if (!vn->target) {
			vnode_put(vn);
			return -ENOMEM;
		}
		memcpy(vn->target, target, tlen + 1);
		vn->size = tlen;
	}
	if (type == VNODE_CHR || type == VNODE_BLK) {
		vn->rdev = rdev;
		vn->ops = type == VNODE_CHR ? dev_ops(rdev) : NULL;
	}
	irq = spin_lock_irqsave(&vfs_tree_lock);
	if (dir->type != VNODE_DIR)
		rc = -ENOTDIR;
	else if (dir->nlink == 0)
		rc = -ENOENT;		// the directory has been removed
	else if (dir_find(dir, name, len))
		rc = -EEXIST;
	else if (dir->refuse_new)
		rc = -dir->refuse_new;
	else if (!(rc = vnode_permission(cred, dir, MAY_WRITE | MAY_EXEC))) {
		// The creator's fsuid and fsgid own it (or a setgid
		// directory's group).
		cred_init_owner(cred, dir, vn);
		rc = dir_add(dir, name, len, vn);
	}
	if (rc == 0)
		fsnotify_name(dir, IN_CREATE | (type == VNODE_DIR ? IN_ISDIR : 0), name, 0);
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
	if (rc || !out)
		vnode_put(vn);		// frees it on failure (nlink 0)
	else
		*out = vn;
	return rc;
}

int vfs_create(struct vnode *dir, const char *name, enum vnode_type type, uint32_t perm,
	       const char *target, struct vnode **out)
{
	const struct cred *cred = current_cred();
	int rc = create_as(cred, dir, name, type, perm, target, out);

	return rc;
}

int vfs_create_node(struct vnode *dir, const char *name, enum vnode_type type, uint32_t perm,
		    uint64_t rdev, struct vnode **out)
{
	return create_as_node(current_cred(), dir, name, type, perm, NULL, rdev, out);
}

int vfs_tmpfile(struct vnode *dir, uint32_t perm, bool linkable, struct vnode **out)
{
	const struct cred *cred = current_cred();
	struct vnode *vn = vnode_alloc(VNODE_REG, perm);
	char name[24];
	uint64_t irq;
	int rc = 0;

	if (!vn)
		return -ENOMEM;
	irq = spin_lock_irqsave(&vfs_tree_lock);
	if (dir->type != VNODE_DIR)
		rc = -ENOTDIR;
	else if (dir->nlink == 0)
		rc = -ENOENT;
	else if (dir->refuse_new)
		rc = -EOPNOTSUPP;	// /proc, /sys: no tmpfile on Linux either
	else if (!(rc = vnode_permission(cred, dir, MAY_WRITE | MAY_EXEC))) {
		cred_init_owner(cred, dir, vn);
		vn->linkable = linkable;
		// Named in /proc/PID/fd as Linux's: "DIR/#INO (deleted)".
		int len = ksnprintf(name, sizeof(name), "#%lu", (unsigned long)vn->ino);
		vnode_set_name(vn, dir, name, (size_t)len);
		vn->parent = NULL;
		vn->unlinked_parent = dir;
		dir->refcount++;
	}
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
	if (rc)
		vnode_put(vn);		// frees it (nlink 0)
	else
		*out = vn;
	return rc;
}

int vfs_create_or_open(struct vnode *dir, const char *name, uint32_t perm, bool excl,
		       struct vnode **out, bool *created)
{
	size_t len = strlen(name);
	struct dirent_node *d;
	uint64_t irq;
	int rc;

	for (;;) {
		rc = vfs_create(dir, name, VNODE_REG, perm, NULL, out);
		*created = rc == 0;
		if (rc != -EEXIST || excl || special_name(name))
			return rc;
		// Somebody has the name: open that instead, unless it is a
		// symlink (the caller's follow-up lookup handles those).
		irq = spin_lock_irqsave(&vfs_tree_lock);
		d = dir_find(dir, name, len);
		if (d)
			d->vn->refcount++;
		spin_unlock_irqrestore(&vfs_tree_lock, irq);
		if (d) {
			*out = d->vn;
			return 0;
		}
		// It went away again: try to create once more.
	}
}

// Frees 'vn' after the tree lock is dropped if it is now unreferenced
// and unnamed.
static void unlock_and_reap(struct vnode *vn, uint64_t irq)
{
	bool dead = vn && vn->refcount == 0 && vn->nlink == 0;

	if (vn && dead)
		vn->refcount = 1;	// ours now: vnode_put frees it
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
	if (dead)
		vnode_put(vn);
}

int vfs_unlink(struct vnode *dir, const char *name, bool want_dir)
{
	const struct cred *cred = current_cred();
	struct dirent_node *d;
	struct vnode *vn = NULL;
	uint64_t irq;
	int rc = 0;

	irq = spin_lock_irqsave(&vfs_tree_lock);
	d = dir->type == VNODE_DIR ? dir_find(dir, name, strlen(name)) : NULL;
	if (dir->type != VNODE_DIR)
		rc = -ENOTDIR;
	else if (!d)
		rc = -ENOENT;
	else if (dir->refuse_remove)
		rc = -dir->refuse_remove;
	else if ((rc = cred_may_delete(cred, dir, d->vn)))
		;	// EACCES, or EPERM in a sticky directory
	else if (want_dir && d->vn->type != VNODE_DIR)
		rc = -ENOTDIR;
	else if (want_dir && !dir_is_empty(d->vn))
		rc = -ENOTEMPTY;
	else if (want_dir && d->vn == vfs_root())
		rc = -EBUSY;
	else if (!want_dir && d->vn->type == VNODE_DIR)
		rc = -EISDIR;
	if (rc == 0) {
		vn = d->vn;
		dir_remove(dir, d);
		// Linux's order: the file's link count (not a directory's),
		// its IN_DELETE_SELF if this was its last use, the name.
		if (!want_dir)
			fsnotify_self(vn, IN_ATTRIB);
	}
	unlock_and_reap(vn, irq);
	if (rc == 0)
		fsnotify_name(dir, IN_DELETE | (want_dir ? IN_ISDIR : 0), name, 0);
	return rc;
}

// Is 'a' the same as 'b' or below it?
static bool is_within(struct vnode *a, struct vnode *b)
{
	for (struct vnode *v = a; v; v = v->parent)
		if (v == b)
			return true;
	return false;
}

// Linux's checks of a rename, in its order: removing the old name,
// removing the target or creating the new name, and for a directory
// that changes parents, writing its "..".  Tree lock held.
static int may_rename(const struct cred *c, struct vnode *odir, struct vnode *src,
		      struct vnode *ndir, struct dirent_node *nd)
{
	int rc;

	// Names in /proc and /sys stay: within them Linux answers with the
	// directory's errno, across the boundary with EXDEV (another file
	// system there).
	if (odir->refuse_new && ndir->refuse_new)
		return -odir->refuse_new;
	if (odir->refuse_new || ndir->refuse_new)
		return -EXDEV;
	rc = cred_may_delete(c, odir, src);
	if (!rc)
		rc = nd ? cred_may_delete(c, ndir, nd->vn)
			: vnode_permission(c, ndir, MAY_WRITE | MAY_EXEC);
	if (!rc && src->type == VNODE_DIR && odir != ndir)
		rc = vnode_permission(c, src, MAY_WRITE);
	return rc;
}

// A directory's ".." moves: its old parent loses a link, the new one
// gains it.  Tree lock held.
static void move_dotdot(struct vnode *vn, struct vnode *from, struct vnode *to)
{
	if (vn->type == VNODE_DIR && from != to) {
		from->nlink--;
		to->nlink++;
	}
}

// Linux's fsnotify_move, tree lock held: the pair of names with one
// cookie, the replaced file's link count, the moved file's IN_MOVE_SELF.
static void notify_move(struct vnode *odir, const char *oname, struct vnode *ndir,
			const char *nname, struct vnode *moved, struct vnode *victim)
{
	uint32_t isdir = moved->type == VNODE_DIR ? IN_ISDIR : 0;
	uint32_t cookie = fsnotify_cookie();

	fsnotify_name(odir, IN_MOVED_FROM | isdir, oname, cookie);
	fsnotify_name(ndir, IN_MOVED_TO | isdir, nname, cookie);
	if (victim)
		fsnotify_self(victim, IN_ATTRIB);
	fsnotify_self(moved, IN_MOVE_SELF);
}

// RENAME_EXCHANGE: both names stay where they are and trade their files,
// atomically, whatever their types (Linux's rules: both must exist,
// neither directory may go into itself, each move is checked as a
// rename would be).
static int exchange(struct vnode *odir, const char *oname, struct vnode *ndir, const char *nname)
{
	size_t olen = strlen(oname), nlen = strlen(nname);
	const struct cred *cred = current_cred();
	struct dirent_node *od, *nd;
	struct vnode *a, *b;
	uint64_t irq;
	int rc = 0;

	if (special_name(oname) || special_name(nname))
		return -EBUSY;
	irq = spin_lock_irqsave(&vfs_tree_lock);
	od = dir_find(odir, oname, olen);
	nd = dir_find(ndir, nname, nlen);
	if (!od || !nd)
		rc = -ENOENT;
	else if ((rc = may_rename(cred, odir, od->vn, ndir, nd)) ||
		 (rc = may_rename(cred, ndir, nd->vn, odir, od)))
		;
	else if (od->vn == nd->vn)
		rc = 1;			// one file: nothing to do
	else if ((od->vn->type == VNODE_DIR && is_within(ndir, od->vn)) ||
		 (nd->vn->type == VNODE_DIR && is_within(odir, nd->vn)))
		rc = -EINVAL;		// a directory into itself
	if (rc) {
		spin_unlock_irqrestore(&vfs_tree_lock, irq);
		return rc > 0 ? 0 : rc;
	}
	a = od->vn;
	b = nd->vn;
	od->vn = b;
	nd->vn = a;
	move_dotdot(a, odir, ndir);
	move_dotdot(b, ndir, odir);
	if (a->type == VNODE_DIR || a->parent == odir || !a->parent)
		vnode_set_name(a, ndir, nname, nlen);
	if (b->type == VNODE_DIR || b->parent == ndir || !b->parent)
		vnode_set_name(b, odir, oname, olen);
	a->ctime_ns = b->ctime_ns = fs_now_ns();
	notify_move(odir, oname, ndir, nname, a, NULL);
	notify_move(ndir, nname, odir, oname, b, NULL);
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
	return 0;
}

int vfs_rename(struct vnode *odir, const char *oname, struct vnode *ndir, const char *nname,
	       unsigned flags)
{
	size_t olen = strlen(oname), nlen = strlen(nname);
	struct dirent_node *od, *nd, *moved;
	struct vnode *src, *victim = NULL;
	const struct cred *cred;
	uint64_t irq;
	int rc = 0;

	if (flags == RENAME_EXCHANGE)
		return exchange(odir, oname, ndir, nname);
	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL;		// no whiteout
	if (special_name(oname) || special_name(nname))
		return -EBUSY;
	if (nlen > NAME_MAX)
		return -ENAMETOOLONG;
	moved = dirent_new(NULL, nname, nlen);
	if (!moved)
		return -ENOMEM;

	cred = current_cred();
	irq = spin_lock_irqsave(&vfs_tree_lock);
	od = dir_find(odir, oname, olen);
	nd = dir_find(ndir, nname, nlen);
	src = od ? od->vn : NULL;
	if (!od)
		rc = -ENOENT;
	else if ((rc = may_rename(cred, odir, src, ndir, nd)))
		;
	else if (ndir->nlink == 0)
		rc = -ENOENT;
	else if (nd && (flags & RENAME_NOREPLACE))
		rc = -EEXIST;		// even when both names are one file
	else if (nd && nd->vn == src)
		rc = 1;			// same file: nothing to do
	else if (src->type == VNODE_DIR && is_within(ndir, src))
		rc = -EINVAL;		// a directory into itself
	else if (nd && src->type == VNODE_DIR && nd->vn->type != VNODE_DIR)
		rc = -ENOTDIR;
	else if (nd && src->type != VNODE_DIR && nd->vn->type == VNODE_DIR)
		rc = -EISDIR;
	else if (nd && nd->vn->type == VNODE_DIR && !dir_is_empty(nd->vn))
		rc = -ENOTEMPTY;
	if (rc) {
		spin_unlock_irqrestore(&vfs_tree_lock, irq);
		kfree(moved);
		return rc > 0 ? 0 : rc;
	}
	if (nd) {
		victim = nd->vn;
		dir_remove(ndir, nd);
	}
	// Move the name: same vnode, new entry; link counts change only
	// for a directory's ".." moving between parents.
	moved->vn = src;
	dir_detach(odir, od);
	dir_attach(ndir, moved);
	move_dotdot(src, odir, ndir);
	if (src->type == VNODE_DIR || src->parent == odir || !src->parent)
		vnode_set_name(src, ndir, nname, nlen);
	src->ctime_ns = fs_now_ns();
	kfree(od);
	notify_move(odir, oname, ndir, nname, src, victim);
	unlock_and_reap(victim, irq);
	return 0;
}

int vfs_link(struct vnode *vn, struct vnode *dir, const char *name)
{
	size_t len = strlen(name);
	const struct cred *cred;
	uint64_t irq;
	int rc;

	if (vn->type == VNODE_DIR)
		return -EPERM;
	if (special_name(name))
		return -EEXIST;
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	cred = current_cred();
	irq = spin_lock_irqsave(&vfs_tree_lock);
	if (dir->type != VNODE_DIR)
		rc = -ENOTDIR;
	else if (dir->nlink == 0 || (vn->nlink == 0 && !vn->linkable))
		rc = -ENOENT;
	else if (vn->parent && vn->parent->refuse_new && vn->parent != dir)
		rc = -EXDEV;		// a /proc or /sys file: another file system on Linux
	else if (dir_find(dir, name, len))
		rc = -EEXIST;
	else if (dir->refuse_new)
		rc = -dir->refuse_new;
	else if (!(rc = vnode_permission(cred, dir, MAY_WRITE | MAY_EXEC)))
		rc = dir_add(dir, name, len, vn);
	if (rc == 0) {
		vn->linkable = false;			// named now
		vn->ctime_ns = fs_now_ns();
		fsnotify_self(vn, IN_ATTRIB);		// Linux's fsnotify_link
		fsnotify_name(dir, IN_CREATE, name, 0);
	}
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
	return rc;
}

int vfs_mkdir_p(const char *path, struct vnode **out)
{
	struct vnode *cur = vfs_root();
	const char *p = path;

	if (!cur)
		return -ENOMEM;
	vnode_get(cur);
	for (;;) {
		char name[NAME_MAX + 1];
		struct vnode *next;
		size_t len = 0;
		int rc;

		while (*p == '/')
			p++;
		if (*p == 0)
			break;
		while (p[len] && p[len] != '/')
			len++;
		if (len > NAME_MAX) {
			vnode_put(cur);
			return -ENAMETOOLONG;
		}
		memcpy(name, p, len);
		name[len] = 0;
		p += len;
		// The kernel's own directories (boot, /proc, /dev): made by
		// root whoever's call needed them.
		rc = create_as(&root_cred, cur, name, VNODE_DIR, 0755, NULL, &next);
		if (rc == -EEXIST)
			rc = vfs_lookup_at(cur, name, LOOKUP_FOLLOW, &next);
		vnode_put(cur);
		if (rc)
			return rc;
		if (next->type != VNODE_DIR) {
			vnode_put(next);
			return -ENOTDIR;
		}
		cur = next;
	}
	if (out)
		*out = cur;
	else
		vnode_put(cur);
	return 0;
}

static void fix_names_below(struct vnode *dir, int refuse_new, int refuse_remove)
{
	dir->refuse_new = (int16_t)refuse_new;
	dir->refuse_remove = (int16_t)refuse_remove;
	for (struct dirent_node *d = dir->entries; d; d = d->next)
		if (d->vn->type == VNODE_DIR && d->vn != dir)
			fix_names_below(d->vn, refuse_new, refuse_remove);
}

int vfs_fix_names(const char *path, int refuse_new, int refuse_remove)
{
	struct vnode *dir;
	uint64_t irq;
	int rc = vfs_mkdir_p(path, &dir);

	if (rc)
		return rc;
	irq = spin_lock_irqsave(&vfs_tree_lock);
	fix_names_below(dir, refuse_new, refuse_remove);
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
	vnode_put(dir);
	return 0;
}

int vfs_add_node(const char *dirpath, const char *name, struct vnode *vn)
{
	struct vnode *dir;
	uint64_t irq;
	int rc = vfs_mkdir_p(dirpath, &dir);

	if (rc)
		return rc;
	irq = spin_lock_irqsave(&vfs_tree_lock);
	if (dir_find(dir, name, strlen(name)))
		rc = -EEXIST;
	else
		rc = dir_add(dir, name, strlen(name), vn);
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
	vnode_put(dir);
	return rc;
}
