// Processes' views of the file tree (fs/fs_view.h): root, cwd, umask.

#include <fs/fs_view.h>
#include <fs/vfs.h>
#include <kernel/process.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <mm/kmalloc.h>

struct fs_view *fs_view_new(void)
{
	struct fs_view *fv = kzalloc(sizeof(*fv));
	struct vnode *root = vfs_root();

	if (!fv || !root) {
		kfree(fv);
		return NULL;
	}
	fv->refcount = 1;
	fv->umask = 022;
	vnode_get(root);
	vnode_get(root);
	fv->root = fv->cwd = root;
	return fv;
}

struct fs_view *fs_view_copy(struct fs_view *src)
{
	struct fs_view *fv = kzalloc(sizeof(*fv));
	uint64_t irq;

	if (!fv)
		return NULL;
	fv->refcount = 1;
	fv->umask = __atomic_load_n(&src->umask, __ATOMIC_RELAXED);
	// Another process sharing src may be changing them.
	irq = spin_lock_irqsave(&vfs_tree_lock);
	fv->root = src->root;
	fv->cwd = src->cwd;
	fv->root->refcount++;
	fv->cwd->refcount++;
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
	return fv;
}

void fs_view_get(struct fs_view *fv)
{
	__atomic_add_fetch(&fv->refcount, 1, __ATOMIC_RELAXED);
}

void fs_view_put(struct fs_view *fv)
{
	if (!fv || __atomic_sub_fetch(&fv->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	vnode_put(fv->root);
	vnode_put(fv->cwd);
	kfree(fv);
}

struct fs_view *fs_view_replace(struct process *p, struct fs_view *fv)
{
	uint64_t irq = spin_lock_irqsave(&vfs_tree_lock);
	struct fs_view *old;

	spin_lock(&p->lock);
	old = p->fs;
	p->fs = fv;
	spin_unlock(&p->lock);
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
	return old;
}

void fs_view_drop(struct process *p)
{
	fs_view_put(fs_view_replace(p, NULL));
}

static struct fs_view *current_view(void)
{
	struct thread *t = current_thread();

	if (t && t->own_fs)
		return t->own_fs;
	return t && t->proc ? t->proc->fs : NULL;
}

struct fs_view *current_fs_view(void)
{
	return current_view();
}

struct vnode *current_root_locked(void)
{
	struct fs_view *fv = current_view();

	return fv ? fv->root : vfs_root();
}

struct vnode *current_cwd_locked(void)
{
	struct fs_view *fv = current_view();

	return fv ? fv->cwd : vfs_root();
}

struct vnode *fs_view_root_locked(struct process *p)
{
	return p->fs ? p->fs->root : NULL;
}

struct vnode *fs_view_cwd_locked(struct process *p)
{
	return p->fs ? p->fs->cwd : NULL;
}

// Makes vn the caller's root or cwd; the old directory is dropped.
static void set_view_dir(bool root, struct vnode *vn)
{
	struct fs_view *fv = current_view();
	struct vnode **where, *old;
	uint64_t irq;

	if (!fv) {
		vnode_put(vn);
		return;
	}
	irq = spin_lock_irqsave(&vfs_tree_lock);
	where = root ? &fv->root : &fv->cwd;
	old = *where;
	*where = vn;
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
	vnode_put(old);
}

void vfs_set_cwd(struct vnode *vn)
{
	set_view_dir(false, vn);
}

void vfs_set_root(struct vnode *vn)
{
	set_view_dir(true, vn);
}
