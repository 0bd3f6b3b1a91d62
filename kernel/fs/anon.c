// Anonymous-inode files (see fs/anon.h).

#include <fs/anon.h>
#include <fs/fcntl.h>
#include <fs/vfs.h>
#include <uapi/errno.h>

// Linux has one anonymous inode for all these files: they share its
// number (the first anonymous vnode's, taken once).
static uint64_t anon_ino;

static uint64_t shared_ino(uint64_t mine)
{
	uint64_t none = 0;

	__atomic_compare_exchange_n(&anon_ino, &none, mine, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	return __atomic_load_n(&anon_ino, __ATOMIC_RELAXED);
}

struct file *anon_file_new(const struct vnode_ops *ops, void *priv, uint32_t flags)
{
	struct vnode *vn = vnode_alloc(VNODE_ANON, 0600);
	struct file *f;

	if (!vn)
		return NULL;
	f = file_new_vnode(vn, O_RDWR | (flags & O_NONBLOCK));
	if (!f) {
		vnode_put(vn);		// no ops yet: priv stays the caller's
		return NULL;
	}
	vn->ino = shared_ino(vn->ino);
	vn->ops = ops;
	vn->priv = priv;
	return f;
}

int anon_open(struct vnode **vn, uint32_t flags)
{
	(void)vn;
	(void)flags;
	return -ENXIO;
}

void *anon_priv(const struct file *f, const struct vnode_ops *ops)
{
	if (!f->vn || f->vn->type != VNODE_ANON || f->vn->ops != ops || (f->flags & O_PATH))
		return NULL;
	return f->vn->priv;
}

int anon_install(struct file *f, uint32_t flags)
{
	int fd = fd_install(current_fdtable(), f, 0, flags & O_CLOEXEC);

	file_put(f);
	return fd;
}
