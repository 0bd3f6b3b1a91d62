// memfd_create: an anonymous regular file in the in-memory file tree,
// reachable only through its descriptors (and what they are passed to:
// mmap, execveat with AT_EMPTY_PATH, /proc/self/fd).

#include <fs/fs_syscall.h>
#include <fs/fcntl.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define MFD_CLOEXEC		0x0001U
#define MFD_ALLOW_SEALING	0x0002U
#define MFD_HUGETLB		0x0004U
// Linux: "memfd:" plus the name must fit NAME_MAX.
#define MFD_NAME_MAX		(255 - 6)

// Huge pages are not there (EINVAL, Linux's answer without hugetlbfs).
// Without MFD_ALLOW_SEALING the file starts sealed against more seals, as
// Linux makes it.
SYSCALL_DEFINE(SYS_memfd_create, memfd_create)
{
	unsigned flags = (unsigned)args->a[1];
	char *name = kmalloc(MFD_NAME_MAX + 1);	// only checked: nothing shows it yet
	long rc;

	if (flags & ~(MFD_CLOEXEC | MFD_ALLOW_SEALING)) {
		kfree(name);
		return -EINVAL;
	}
	if (!name)
		return -ENOMEM;
	rc = strncpy_from_user(name, args->a[0], MFD_NAME_MAX + 1);
	kfree(name);
	if (rc == -ENAMETOOLONG)
		return -EINVAL;
	if (rc < 0)
		return rc;
	// As shmem gives it: a regular file, rwx for everyone, no links.
	struct vnode *vn = vnode_alloc(VNODE_REG, 0777);
	if (!vn)
		return -ENOMEM;
	vn->memfd = true;
	vn->seals = (flags & MFD_ALLOW_SEALING) ? 0 : F_SEAL_SEAL;
	struct file *f = file_new_vnode(vn, O_RDWR | O_LARGEFILE);
	if (!f) {
		vnode_put(vn);
		return -ENOMEM;
	}
	rc = fd_install(current_fdtable(), f, 0, flags & MFD_CLOEXEC);
	file_put(f);
	return rc;
}

#define F_ALL_SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)

// fcntl F_ADD_SEALS and F_GET_SEALS, Linux's memfd_fcntl: only memfd files
// have seals (EINVAL); adding needs the file open for writing (EPERM), no
// unknown bits (EINVAL) and no F_SEAL_SEAL yet (EPERM).  F_SEAL_WRITE is
// refused while a shared mapping that may be written exists (EBUSY:
// Linux's mapping_deny_writable; mmap checks the seals under the same
// lock, kernel/mm/vm.c).
long memfd_fcntl_seals(struct file *f, int cmd, uint64_t arg)
{
	struct vnode *vn = f->vn;
	uint64_t flags;
	long rc = 0;

	if (!vn || !vn->memfd)
		return -EINVAL;
	if (cmd == F_GET_SEALS)
		return __atomic_load_n(&vn->seals, __ATOMIC_RELAXED);
	if (!file_writable(f))
		return -EPERM;
	if (arg & ~(uint64_t)F_ALL_SEALS)
		return -EINVAL;
	flags = spin_lock_irqsave(&vn->lock);
	if (vn->seals & F_SEAL_SEAL)
		rc = -EPERM;
	else if ((arg & F_SEAL_WRITE) && !(vn->seals & F_SEAL_WRITE) && vn->maps_writable)
		rc = -EBUSY;
	else
		vn->seals |= (uint32_t)arg;
	spin_unlock_irqrestore(&vn->lock, flags);
	return rc;
}
