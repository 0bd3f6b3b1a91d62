// Extended attributes, as Linux's fs/xattr.c over tmpfs (6.6 and later,
// which has user. attributes; kernel/fs/xattr.c keeps them).  The
// namespaces: user. (regular files and directories only, with the file's
// read or write permission, the sticky-directory rule), trusted.
// (CAP_SYS_ADMIN; hidden from others' lists), security. (anyone reads,
// CAP_SYS_ADMIN writes).  security.capability would be a file
// capability, which exec does not honour here: a well-formed one is
// refused (EOPNOTSUPP), as is system. (no POSIX ACLs).  /proc and /sys
// have no attributes (EOPNOTSUPP), and pipes and anonymous files only
// refuse user. ones, as Linux's pipefs and anon inodes.  The checks come
// in Linux's order: the file, the flags, the name, the size, the value,
// the permission, the store.

#include <fs/fs_syscall.h>
#include <fs/fcntl.h>
#include <kernel/cred.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define XATTR_NAME_MAX	255
#define XATTR_SIZE_MAX	65536
#define XATTR_LIST_MAX	65536
#define XATTR_CREATE	1
#define XATTR_REPLACE	2
#define CAP_SETFCAP	31

// What a call works on: a vnode of the tree (referenced), or a file
// without one (a pipe, an eventfd...).
struct xtarget {
	struct vnode *vn;
};

static long xattr_target(bool by_fd, uint64_t arg, bool follow, struct xtarget *t)
{
	t->vn = NULL;
	if (by_fd) {
		struct file *f = fget((int)arg);
		if (!f)
			return -EBADF;
		if (f->vn) {
			t->vn = f->vn;
			vnode_get(t->vn);
		}
		file_put(f);
		return 0;
	}
	return lookup_user_at(AT_FDCWD, arg, follow ? LOOKUP_FOLLOW : 0, &t->vn);
}

static void xattr_target_put(struct xtarget *t)
{
	if (t->vn)
		vnode_put(t->vn);
}

// The kernel's files (/proc, /sys): no attributes at all.
static bool synthetic(const struct vnode *vn)
{
	if (vn->type == VNODE_CHR || vn->type == VNODE_BLK)
		return false;		// device nodes: a tmpfs inode like any other
	return vn->ops != NULL || vn->refuse_new != 0;
}

// Copies the attribute name: ERANGE if empty or longer than 255 bytes.
static long xattr_name(uint64_t uname, char *name)
{
	long n = strncpy_from_user(name, uname, XATTR_NAME_MAX + 1);

	if (n == 0 || n == -ENAMETOOLONG)
		return -ERANGE;
	return n < 0 ? n : 0;
}

static bool has_prefix(const char *name, const char *prefix)
{
	return strncmp(name, prefix, strlen(prefix)) == 0;
}

enum xns { NS_USER, NS_TRUSTED, NS_SECURITY, NS_OTHER };

static enum xns name_space(const char *name)
{
	if (has_prefix(name, "user."))
		return NS_USER;
	if (has_prefix(name, "trusted."))
		return NS_TRUSTED;
	if (has_prefix(name, "security."))
		return NS_SECURITY;
	return NS_OTHER;
}

// Linux's xattr_permission: 0, or the errno.  'write' is MAY_WRITE.
static long may_access(const struct xtarget *t, const char *name, bool write)
{
	const struct cred *c = current_cred();
	struct vnode *vn = t->vn;
	bool reg_or_dir = vn && (vn->type == VNODE_REG || vn->type == VNODE_DIR);

	switch (name_space(name)) {
	case NS_SECURITY:
		return 0;
	case NS_TRUSTED:
		if (!cred_capable(c, CAP_SYS_ADMIN))
			return write ? -EPERM : -ENODATA;
		return 0;
	case NS_USER:
		if (!reg_or_dir)
			return write ? -EPERM : -ENODATA;
		if (vn->type == VNODE_DIR && (vn->mode & S_ISVTX) && write && !cred_owns(c, vn))
			return -EPERM;
		break;
	default:
		if (has_prefix(name, "system."))
			return 0;
		break;
	}
	return vn ? vnode_permission(c, vn, write ? MAY_WRITE : MAY_READ) : 0;
}

// The store behind a name: 0 for ours, else Linux's answer when no
// handler takes it (EOPNOTSUPP; EINVAL for a bare prefix).
static long store_for(const struct xtarget *t, const char *name)
{
	enum xns ns = name_space(name);
	static const char *const prefixes[] = { "user.", "trusted.", "security." };

	if (!t->vn || synthetic(t->vn) || ns == NS_OTHER)
		return -EOPNOTSUPP;
	if (name[strlen(prefixes[ns])] == 0)
		return -EINVAL;
	return 0;
}

// security.capability: a vfs_cap_data of revision 2 (20 bytes) or 3
// (24), as Linux's cap_convert_nscap checks; anything else is EINVAL.
static bool file_caps_wellformed(const void *value, uint64_t size)
{
	uint32_t magic;

	if (size < 4)
		return false;
	memcpy(&magic, value, 4);
	magic &= 0xff000000U;
	return (magic == 0x02000000U && size == 20) || (magic == 0x03000000U && size == 24);
}

static long do_getxattr(bool by_fd, uint64_t target, bool follow, uint64_t uname,
			uint64_t uvalue, uint64_t size)
{
	struct xtarget t;
	char name[XATTR_NAME_MAX + 1];
	void *kvalue = NULL;
	long r = xattr_target(by_fd, target, follow, &t);

	if (r < 0)
		return r;
	r = xattr_name(uname, name);
	if (r == 0 && size > XATTR_SIZE_MAX)
		size = XATTR_SIZE_MAX;
	if (r == 0 && size && !(kvalue = kmalloc(size)))
		r = -ENOMEM;
	if (r == 0)
		r = may_access(&t, name, false);
	if (r == 0)
		r = store_for(&t, name);
	if (r == 0)
		r = xattr_get(t.vn, name, kvalue, size);
	if (r == -ERANGE && size >= XATTR_SIZE_MAX)
		r = -E2BIG;
	if (r > 0 && size && copy_to_user(uvalue, kvalue, (size_t)r) < 0)
		r = -EFAULT;
	kfree(kvalue);
	xattr_target_put(&t);
	return r;
}

static long do_setxattr(bool by_fd, uint64_t target, bool follow, uint64_t uname,
			uint64_t uvalue, uint64_t size, int flags)
{
	struct xtarget t;
	char name[XATTR_NAME_MAX + 1];
	void *kvalue = NULL;
	long r = xattr_target(by_fd, target, follow, &t);

	if (r < 0)
		return r;
	if (flags & ~(XATTR_CREATE | XATTR_REPLACE))
		r = -EINVAL;
	if (r == 0)
		r = xattr_name(uname, name);
	if (r == 0 && size > XATTR_SIZE_MAX)
		r = -E2BIG;
	if (r == 0 && size && !(kvalue = kmalloc(size)))
		r = -ENOMEM;
	if (r == 0 && size && copy_from_user(kvalue, uvalue, size) < 0)
		r = -EFAULT;
	if (r == 0)
		r = may_access(&t, name, true);
	if (r == 0 && !strcmp(name, "security.capability"))
		r = !file_caps_wellformed(kvalue, size) ? -EINVAL :
		    !cred_capable(current_cred(), CAP_SETFCAP) ? -EPERM : -EOPNOTSUPP;
	else if (r == 0 && name_space(name) == NS_SECURITY &&
		 !cred_capable(current_cred(), CAP_SYS_ADMIN))
		r = -EPERM;
	if (r == 0)
		r = store_for(&t, name);
	if (r == 0)
		r = xattr_set(t.vn, name, size ? kvalue : "", size, flags);
	kfree(kvalue);
	xattr_target_put(&t);
	return r;
}

static long do_removexattr(bool by_fd, uint64_t target, bool follow, uint64_t uname)
{
	struct xtarget t;
	char name[XATTR_NAME_MAX + 1];
	long r = xattr_target(by_fd, target, follow, &t);

	if (r < 0)
		return r;
	r = xattr_name(uname, name);
	if (r == 0)
		r = may_access(&t, name, true);
	if (r == 0 && name_space(name) == NS_SECURITY &&
	    !cred_capable(current_cred(),
			  !strcmp(name, "security.capability") ? CAP_SETFCAP : CAP_SYS_ADMIN))
		r = -EPERM;
	if (r == 0)
		r = store_for(&t, name);
	if (r == 0)
		r = xattr_remove(t.vn, name);
	xattr_target_put(&t);
	return r;
}

static long do_listxattr(bool by_fd, uint64_t target, bool follow, uint64_t ulist, uint64_t size)
{
	struct xtarget t;
	char *klist = NULL;
	long r = xattr_target(by_fd, target, follow, &t);

	if (r < 0)
		return r;
	if (size > XATTR_LIST_MAX)
		size = XATTR_LIST_MAX;
	if (size && !(klist = kmalloc(size)))
		r = -ENOMEM;
	if (r == 0 && t.vn && !synthetic(t.vn))
		r = xattr_list(t.vn, klist, size, cred_capable(current_cred(), CAP_SYS_ADMIN));
	if (r == -ERANGE && size >= XATTR_LIST_MAX)
		r = -E2BIG;
	if (r > 0 && size && copy_to_user(ulist, klist, (size_t)r) < 0)
		r = -EFAULT;
	kfree(klist);
	xattr_target_put(&t);
	return r;
}

SYSCALL_DEFINE(SYS_getxattr, getxattr)
{
	return do_getxattr(false, args->a[0], true, args->a[1], args->a[2], args->a[3]);
}

SYSCALL_DEFINE(SYS_lgetxattr, lgetxattr)
{
	return do_getxattr(false, args->a[0], false, args->a[1], args->a[2], args->a[3]);
}

SYSCALL_DEFINE(SYS_fgetxattr, fgetxattr)
{
	return do_getxattr(true, args->a[0], true, args->a[1], args->a[2], args->a[3]);
}

SYSCALL_DEFINE(SYS_setxattr, setxattr)
{
	return do_setxattr(false, args->a[0], true, args->a[1], args->a[2], args->a[3],
			   (int)args->a[4]);
}

SYSCALL_DEFINE(SYS_lsetxattr, lsetxattr)
{
	return do_setxattr(false, args->a[0], false, args->a[1], args->a[2], args->a[3],
			   (int)args->a[4]);
}

SYSCALL_DEFINE(SYS_fsetxattr, fsetxattr)
{
	return do_setxattr(true, args->a[0], true, args->a[1], args->a[2], args->a[3],
			   (int)args->a[4]);
}

SYSCALL_DEFINE(SYS_listxattr, listxattr)
{
	return do_listxattr(false, args->a[0], true, args->a[1], args->a[2]);
}

SYSCALL_DEFINE(SYS_llistxattr, llistxattr)
{
	return do_listxattr(false, args->a[0], false, args->a[1], args->a[2]);
}

SYSCALL_DEFINE(SYS_flistxattr, flistxattr)
{
	return do_listxattr(true, args->a[0], true, args->a[1], args->a[2]);
}

SYSCALL_DEFINE(SYS_removexattr, removexattr)
{
	return do_removexattr(false, args->a[0], true, args->a[1]);
}

SYSCALL_DEFINE(SYS_lremovexattr, lremovexattr)
{
	return do_removexattr(false, args->a[0], false, args->a[1]);
}

SYSCALL_DEFINE(SYS_fremovexattr, fremovexattr)
{
	return do_removexattr(true, args->a[0], true, args->a[1]);
}
