// Write access against execution, as Linux 6.1's i_writecount: while a
// file is open for writing it cannot be executed, and while an address
// space runs a program (exec'd it, or was forked from one that did) the
// program cannot be opened for writing or truncated.  Either way the
// loser gets ETXTBSY.  Without this a program could be changed under a
// running process, whose pages are read from the file as they fault in.
//
// vn->writecount counts writers when above 0 and runners when below 0;
// it never holds both.  Only regular files take part.
#include <fs/vnode.h>
#include <uapi/errno.h>
#include <kernel/spinlock.h>

// Counts one more writer (delta +1) or runner (-1), unless the other
// side holds the file.
static int take(struct vnode *vn, int delta)
{
	int rc = 0;

	if (vn->type != VNODE_REG)
		return 0;
	uint64_t flags = spin_lock_irqsave(&vn->lock);
	if (vn->writecount * delta < 0)
		rc = -ETXTBSY;
	else
		vn->writecount += delta;
	spin_unlock_irqrestore(&vn->lock, flags);
	return rc;
}

static void give_back(struct vnode *vn, int delta)
{
	if (vn->type != VNODE_REG)
		return;
	uint64_t flags = spin_lock_irqsave(&vn->lock);
	vn->writecount -= delta;
	spin_unlock_irqrestore(&vn->lock, flags);
}

int vnode_get_write_access(struct vnode *vn)
{
	return take(vn, 1);
}

void vnode_put_write_access(struct vnode *vn)
{
	give_back(vn, 1);
}

int vnode_deny_write_access(struct vnode *vn)
{
	return take(vn, -1);
}

void vnode_allow_write_access(struct vnode *vn)
{
	give_back(vn, -1);
}
