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

int vnode_get_write_access(struct vnode *vn)
{
	int rc = 0;

	if (vn->type != VNODE_REG)
		return 0;
	uint64_t flags = spin_lock_irqsave(&vn->lock);
	if (vn->writecount < 0)
		rc = -ETXTBSY;
	else
		vn->writecount++;
	spin_unlock_irqrestore(&vn->lock, flags);
	return rc;
}

void vnode_put_write_access(struct vnode *vn)
{
	if (vn->type != VNODE_REG)
		return;
	uint64_t flags = spin_lock_irqsave(&vn->lock);
	vn->writecount--;
	spin_unlock_irqrestore(&vn->lock, flags);
}

int vnode_deny_write_access(struct vnode *vn)
{
	int rc = 0;

	if (vn->type != VNODE_REG)
		return 0;
	uint64_t flags = spin_lock_irqsave(&vn->lock);
	if (vn->writecount > 0)
		rc = -ETXTBSY;
	else
		vn->writecount--;
	spin_unlock_irqrestore(&vn->lock, flags);
	return rc;
}

void vnode_allow_write_access(struct vnode *vn)
{
	if (vn->type != VNODE_REG)
		return;
	uint64_t flags = spin_lock_irqsave(&vn->lock);
	vn->writecount++;
	spin_unlock_irqrestore(&vn->lock, flags);
}
