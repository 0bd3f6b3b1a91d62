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

// Sealing (F_ADD_SEALS) and huge pages are not implemented, so a call
// asking for them fails (EINVAL, Linux's answer to a flag it does not
// know) rather than hand out a file that would ignore its seals.
SYSCALL_DEFINE(SYS_memfd_create, memfd_create)
{
	unsigned flags = (unsigned)args->a[1];
	char *name = kmalloc(MFD_NAME_MAX + 1);	// only checked: nothing shows it yet
	long rc;

	if (flags & ~MFD_CLOEXEC) {
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
	struct file *f = file_new_vnode(vn, O_RDWR | O_LARGEFILE);
	if (!f) {
		vnode_put(vn);
		return -ENOMEM;
	}
	rc = fd_install(current_fdtable(), f, 0, flags & MFD_CLOEXEC);
	file_put(f);
	return rc;
}
