// File handles: name_to_handle_at and open_by_handle_at, as Linux 6.1's
// fs/fhandle.c over tmpfs's export operations.  A handle names a vnode
// of the tree by inode number (three 32-bit words as tmpfs's: a
// generation, which is 0 here since inode numbers are never reused, and
// the two halves of the number; type 1), and opens it again while it
// lives, named or not.  /proc and /sys, pipes and anonymous files have
// none (EOPNOTSUPP), as Linux's procfs and pipefs.  There is one mount:
// its ID is 1.

#include <fs/fs_syscall.h>
#include <fs/fcntl.h>
#include <fs/vfs.h>
#include <kernel/cred.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <lib/string.h>
#include <uapi/errno.h>

#define MAX_HANDLE_SZ		128
#define FILEID_INVALID		0xff
#define HANDLE_WORDS		3
#define HANDLE_TYPE		1
#define MOUNT_ID		1
#define AT_SYMLINK_FOLLOW	0x400
#define AT_EMPTY_PATH_FLAG	0x1000

struct handle_head {
	uint32_t handle_bytes;
	int32_t handle_type;
};

// The kernel's own files have no handles.
static bool exportable(const struct vnode *vn)
{
	if (vn->type == VNODE_CHR || vn->type == VNODE_BLK)
		return true;
	return vn->ops == NULL && vn->refuse_new == 0;
}

SYSCALL_DEFINE(SYS_name_to_handle_at, name_to_handle_at)
{
	int dirfd = (int)args->a[0], flag = (int)args->a[4];
	uint64_t uhandle = args->a[2], umnt = args->a[3];
	struct handle_head head;
	struct vnode *vn;
	long rc;

	if (flag & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH_FLAG))
		return -EINVAL;
	rc = lookup_user_at(dirfd, args->a[1],
			    ((flag & AT_SYMLINK_FOLLOW) ? LOOKUP_FOLLOW : 0) |
			    ((flag & AT_EMPTY_PATH_FLAG) ? LOOKUP_EMPTY_OK : 0), &vn);
	if (rc < 0)
		return rc;
	uint64_t ino = vn->ino;
	bool ok = exportable(vn);
	vnode_put(vn);
	if (!ok)
		return -EOPNOTSUPP;
	if (copy_from_user(&head, uhandle, sizeof(head)) < 0)
		return -EFAULT;
	if (head.handle_bytes > MAX_HANDLE_SZ)
		return -EINVAL;
	uint32_t words[HANDLE_WORDS] = { 0, (uint32_t)ino, (uint32_t)(ino >> 32) };
	bool fits = head.handle_bytes / 4 >= HANDLE_WORDS;
	// Too small: the size needed and an invalid type, EOVERFLOW.
	head.handle_bytes = HANDLE_WORDS * 4;
	head.handle_type = fits ? HANDLE_TYPE : FILEID_INVALID;
	rc = fits ? 0 : -EOVERFLOW;
	if (put_user_u32(umnt, MOUNT_ID) < 0 || copy_to_user(uhandle, &head, sizeof(head)) < 0 ||
	    (fits && copy_to_user(uhandle + sizeof(head), words, sizeof(words)) < 0))
		rc = -EFAULT;
	return rc;
}

SYSCALL_DEFINE(SYS_open_by_handle_at, open_by_handle_at)
{
	int mountfd = (int)args->a[0];
	uint32_t flags = (uint32_t)args->a[2];
	struct handle_head head;
	uint32_t words[MAX_HANDLE_SZ / 4];

	if (!cred_capable(current_cred(), CAP_DAC_READ_SEARCH))
		return -EPERM;
	if (copy_from_user(&head, args->a[1], sizeof(head)) < 0)
		return -EFAULT;
	if (head.handle_bytes > MAX_HANDLE_SZ || head.handle_bytes == 0)
		return -EINVAL;
	if (copy_from_user(words, args->a[1] + sizeof(head), head.handle_bytes) < 0)
		return -EFAULT;
	// The mount the handle is looked up in: the descriptor's (any will
	// do: there is one), or the cwd's.
	if (mountfd != AT_FDCWD) {
		struct file *f = fget_raw(mountfd);
		if (!f)
			return -EBADF;
		file_put(f);
	}
	if (head.handle_bytes / 4 < HANDLE_WORDS || words[0] != 0)
		return -ESTALE;
	struct vnode *vn = vnode_by_ino((uint64_t)words[1] | ((uint64_t)words[2] << 32));
	if (!vn)
		return -ESTALE;
	if (!exportable(vn)) {
		vnode_put(vn);
		return -ESTALE;
	}
	return open_vnode(vn, flags);
}
