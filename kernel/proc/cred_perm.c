// Permission checks on files: Linux's generic_permission and the rules
// around it (sticky directories, setgid directories, setuid bits that a
// write removes), and who may signal whom.

#include <kernel/cred.h>
#include <kernel/process.h>
#include <fs/fsnotify.h>
#include <fs/vnode.h>
#include <fs/fcntl.h>
#include <uapi/errno.h>

int vnode_permission(const struct cred *c, const struct vnode *vn, int mask)
{
	uint32_t mode = vn->mode, bits;

	mask &= MAY_READ | MAY_WRITE | MAY_EXEC;
	if (c->fsuid == vn->uid)
		bits = mode >> 6;
	else if (cred_in_group(c, vn->gid))
		bits = mode >> 3;
	else
		bits = mode;
	if ((mask & ~bits & 7) == 0)
		return 0;
	// The capabilities: CAP_DAC_OVERRIDE grants everything except
	// executing a file that has no execute bit at all;
	// CAP_DAC_READ_SEARCH grants reading files and reading and searching
	// directories.
	if (vn->type == VNODE_DIR) {
		if (cred_capable(c, CAP_DAC_OVERRIDE))
			return 0;
		if (!(mask & MAY_WRITE) && cred_capable(c, CAP_DAC_READ_SEARCH))
			return 0;
		return -EACCES;
	}
	if (cred_capable(c, CAP_DAC_OVERRIDE) && (!(mask & MAY_EXEC) || (mode & 0111)))
		return 0;
	if (mask == MAY_READ && cred_capable(c, CAP_DAC_READ_SEARCH))
		return 0;
	return -EACCES;
}

int vnode_may(const struct vnode *vn, int mask)
{
	return vnode_permission(current_cred(), vn, mask);
}

bool cred_owns(const struct cred *c, const struct vnode *vn)
{
	return c->fsuid == vn->uid || cred_capable(c, CAP_FOWNER);
}

bool vnode_owned(const struct vnode *vn)
{
	return cred_owns(current_cred(), vn);
}

int cred_may_delete(const struct cred *c, const struct vnode *dir, const struct vnode *victim)
{
	int rc = vnode_permission(c, dir, MAY_WRITE | MAY_EXEC);

	if (rc)
		return rc;
	// In a sticky directory only the file's owner, the directory's
	// owner or CAP_FOWNER may remove or rename a name.
	if ((dir->mode & S_ISVTX) && c->fsuid != victim->uid && c->fsuid != dir->uid &&
	    !cred_capable(c, CAP_FOWNER))
		return -EPERM;
	return 0;
}

void cred_init_owner(const struct cred *c, const struct vnode *dir, struct vnode *vn)
{
	vn->uid = c->fsuid;
	vn->gid = c->fsgid;
	if (!dir || !(dir->mode & S_ISGID))
		return;
	vn->gid = dir->gid;
	if (vn->type == VNODE_DIR)
		vn->mode |= S_ISGID;
	else if ((vn->mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) &&
		 !cred_in_group(c, dir->gid) && !cred_capable(c, CAP_FSETID))
		vn->mode &= ~S_ISGID;
}

void cred_write_kills_suid(struct vnode *vn)
{
	uint32_t mode = __atomic_load_n(&vn->mode, __ATOMIC_RELAXED);
	uint32_t kill = mode & S_ISUID;
	uint64_t irq;

	if ((mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		kill |= S_ISGID;
	if (!kill || vn->type != VNODE_REG)
		return;		// the common case: nothing to look at
	if (!cred_capable(current_cred(), CAP_FSETID)) {
		irq = spin_lock_irqsave(&vfs_tree_lock);
		vn->mode &= ~kill;
		spin_unlock_irqrestore(&vfs_tree_lock, irq);
		fsnotify_change(vn, IN_ATTRIB);		// Linux's notify_change of the mode
	}
}

// Linux's kill_ok_by_cred and check_kill_permission: a process may
// signal its own, one whose real or saved uid is its real or effective
// uid, anyone with CAP_KILL, and with SIGCONT any process of its session.
int cred_may_signal(struct process *p, int sig)
{
	struct process *me = current_process();
	const struct cred *c = current_cred();
	struct cred *tc;
	bool ok;

	if (p == me)
		return 0;
	tc = cred_of(p);
	ok = c->euid == tc->suid || c->euid == tc->uid || c->uid == tc->suid ||
	     c->uid == tc->uid || cred_capable(c, CAP_KILL) ||
	     (sig == SIGCONT && p->sid == me->sid);
	cred_put(tc);
	return ok ? 0 : -EPERM;
}

bool cred_ids_all_callers(struct process *p)
{
	const struct cred *c = current_cred();
	struct cred *tc = cred_of(p);
	bool same = c->uid == tc->uid && c->uid == tc->euid && c->uid == tc->suid &&
		    c->gid == tc->gid && c->gid == tc->egid && c->gid == tc->sgid;

	cred_put(tc);
	return same;
}

int cred_may_inspect(struct process *p)
{
	if (p == current_process() || cred_capable(current_cred(), CAP_SYS_PTRACE))
		return 0;
	return cred_ids_all_callers(p) && !p->not_dumpable ? 0 : -EPERM;
}
