// Extended attributes: the in-memory file tree has none and no way to
// store them, so every call answers as Linux does for a file system
// without xattr support: get, set and remove fail with EOPNOTSUPP, a
// list is empty.  The file, the name and the flags are checked first,
// in Linux's order, so errors about them come out as on Linux.

#include <fs/fs_syscall.h>
#include <fs/fcntl.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <lib/string.h>
#include <uapi/errno.h>

#define XATTR_NAME_MAX	255
#define XATTR_SIZE_MAX	65536
#define XATTR_CREATE	1
#define XATTR_REPLACE	2

// The file a path call names (follow: not the l* variant) or an fd call
// holds; its type in *type.  EBADF for an O_PATH descriptor, as fdget.
static long xattr_target(bool by_fd, uint64_t arg, bool follow, enum vnode_type *type)
{
	struct vnode *vn;

	if (by_fd) {
		struct file *f = fget((int)arg);
		if (!f)
			return -EBADF;
		*type = f->vn ? f->vn->type : VNODE_REG;	// a pipe: no xattrs either
		file_put(f);
		return 0;
	}
	int r = lookup_user_at(AT_FDCWD, arg, follow ? LOOKUP_FOLLOW : 0, &vn);
	if (r < 0)
		return r;
	*type = vn->type;
	vnode_put(vn);
	return 0;
}

// Copies the attribute name: ERANGE if empty or longer than 255 bytes.
static long xattr_name(uint64_t uname, char *name)
{
	long n = strncpy_from_user(name, uname, XATTR_NAME_MAX + 1);

	if (n == 0 || n == -ENAMETOOLONG)
		return -ERANGE;
	return n < 0 ? n : 0;
}

// Linux refuses "user." attributes on anything but files and
// directories before it asks the file system.
static bool user_ns_refused(const char *name, enum vnode_type type)
{
	return strncmp(name, "user.", 5) == 0 && type != VNODE_REG && type != VNODE_DIR;
}

static long do_getxattr(bool by_fd, uint64_t target, bool follow, uint64_t uname)
{
	enum vnode_type type;
	char name[XATTR_NAME_MAX + 1];
	long r = xattr_target(by_fd, target, follow, &type);

	if (r == 0)
		r = xattr_name(uname, name);
	if (r == 0)
		r = user_ns_refused(name, type) ? -ENODATA : -EOPNOTSUPP;
	return r;
}

// Linux copies the value in before it finds it cannot store it.
static long value_readable(uint64_t uvalue, uint64_t size)
{
	uint8_t chunk[256];

	for (uint64_t off = 0; off < size; off += sizeof(chunk)) {
		uint64_t n = size - off < sizeof(chunk) ? size - off : sizeof(chunk);
		if (copy_from_user(chunk, uvalue + off, n) < 0)
			return -EFAULT;
	}
	return 0;
}

static long do_setxattr(bool by_fd, uint64_t target, bool follow, uint64_t uname,
			uint64_t uvalue, uint64_t size, int flags)
{
	enum vnode_type type;
	char name[XATTR_NAME_MAX + 1];
	long r = xattr_target(by_fd, target, follow, &type);

	if (r == 0 && (flags & ~(XATTR_CREATE | XATTR_REPLACE)))
		r = -EINVAL;
	if (r == 0)
		r = xattr_name(uname, name);
	if (r == 0 && size > XATTR_SIZE_MAX)
		r = -E2BIG;
	if (r == 0)
		r = value_readable(uvalue, size);
	if (r == 0)
		r = user_ns_refused(name, type) ? -EPERM : -EOPNOTSUPP;
	return r;
}

static long do_removexattr(bool by_fd, uint64_t target, bool follow, uint64_t uname)
{
	enum vnode_type type;
	char name[XATTR_NAME_MAX + 1];
	long r = xattr_target(by_fd, target, follow, &type);

	if (r == 0)
		r = xattr_name(uname, name);
	if (r == 0)
		r = user_ns_refused(name, type) ? -EPERM : -EOPNOTSUPP;
	return r;
}

// No attributes: the list is empty, whatever the buffer.
static long do_listxattr(bool by_fd, uint64_t target, bool follow)
{
	enum vnode_type type;

	return xattr_target(by_fd, target, follow, &type);
}

SYSCALL_DEFINE(SYS_getxattr, getxattr)
{
	return do_getxattr(false, args->a[0], true, args->a[1]);
}

SYSCALL_DEFINE(SYS_lgetxattr, lgetxattr)
{
	return do_getxattr(false, args->a[0], false, args->a[1]);
}

SYSCALL_DEFINE(SYS_fgetxattr, fgetxattr)
{
	return do_getxattr(true, args->a[0], true, args->a[1]);
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
	return do_listxattr(false, args->a[0], true);
}

SYSCALL_DEFINE(SYS_llistxattr, llistxattr)
{
	return do_listxattr(false, args->a[0], false);
}

SYSCALL_DEFINE(SYS_flistxattr, flistxattr)
{
	return do_listxattr(true, args->a[0], true);
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
