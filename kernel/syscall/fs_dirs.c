// Directories and names: getdents64 and getdents, getcwd, chdir, mkdir, rmdir, unlink,
// rename, symlink, link.

#include <fs/fs_syscall.h>
#include <fs/fsnotify.h>
#include <fs/fcntl.h>
#include <kernel/process.h>
#include <kernel/syscall.h>
#include <kernel/cred.h>
#include <kernel/uaccess.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define DIRENT_BUF_MAX (64 * 1024)

// ---- getdents64 and getdents ----

struct dirent_fill {
	char *buf;
	size_t size, used;
	bool too_small;		// the first record did not fit
	bool old_form;		// struct linux_dirent (getdents), not linux_dirent64
};

// Both records start with u64 ino, s64 off, u16 reclen.  linux_dirent64
// then has the type byte and the name; the older linux_dirent has the
// name, its NUL, and the type in the record's last byte.
static bool fill_dirent(void *arg, const char *name, size_t len, uint64_t ino, unsigned type,
			uint64_t next_pos)
{
	struct dirent_fill *fill = arg;
	size_t name_at = fill->old_form ? 18 : 19;
	size_t reclen = (name_at + len + (fill->old_form ? 2 : 1) + 7) & ~(size_t)7;
	char *rec = fill->buf + fill->used;

	if (fill->used + reclen > fill->size) {
		if (fill->used == 0)
			fill->too_small = true;
		return false;
	}
	memcpy(rec, &ino, 8);
	memcpy(rec + 8, &next_pos, 8);
	uint16_t r = (uint16_t)reclen;
	memcpy(rec + 16, &r, 2);
	memcpy(rec + name_at, name, len);
	memset(rec + name_at + len, 0, reclen - name_at - len);
	if (fill->old_form)
		rec[reclen - 1] = (char)type;
	else
		rec[18] = (char)type;
	fill->used += reclen;
	return true;
}

static long list_directory(int fd, uint64_t ubuf, size_t count, bool old_form)
{
	struct file *f = fget(fd);
	struct dirent_fill fill = { .old_form = old_form };
	uint64_t pos;
	long rc;

	if (!f)
		return -EBADF;
	if (!f->vn || f->vn->type != VNODE_DIR) {
		file_put(f);
		return -ENOTDIR;
	}
	if (!user_range_ok(ubuf, count)) {
		file_put(f);
		return -EFAULT;
	}
	fill.size = count < DIRENT_BUF_MAX ? count : DIRENT_BUF_MAX;
	fill.buf = kmalloc(fill.size ? fill.size : 1);
	if (!fill.buf) {
		file_put(f);
		return -ENOMEM;
	}
	// The position stays locked until the listing reached the caller:
	// readers sharing the description get each entry once.
	file_pos_lock(f);
	pos = f->off;
	rc = vfs_readdir(f->vn, &pos, fill_dirent, &fill);
	if (rc == 0 && fill.too_small)
		rc = -EINVAL;
	if (rc == 0 && fill.used && copy_to_user(ubuf, fill.buf, fill.used) < 0)
		rc = -EFAULT;
	if (rc == 0) {
		// Only a listing that reached the caller moves the position.
		f->off = pos;
		rc = (long)fill.used;
	}
	file_pos_unlock(f);
	if (rc >= 0)
		fsnotify_file(f, IN_ACCESS);	// Linux's iterate_dir

	kfree(fill.buf);
	file_put(f);
	return rc;
}

SYSCALL_DEFINE(SYS_getdents64, getdents64)
{
	return list_directory((int)args->a[0], args->a[1], (unsigned int)args->a[2], false);
}

SYSCALL_DEFINE(SYS_getdents, getdents)
{
	return list_directory((int)args->a[0], args->a[1], (unsigned int)args->a[2], true);
}

// ---- cwd ----

SYSCALL_DEFINE(SYS_getcwd, getcwd)
{
	uint64_t ubuf = args->a[0];
	size_t size = args->a[1];
	static const char unreachable_prefix[] = "(unreachable)";
	const size_t plen = sizeof(unreachable_prefix) - 1;
	bool unreachable;
	char *path;
	uint64_t irq;
	long rc;

	path = kmalloc(PATH_MAX + plen);
	if (!path)
		return -ENOMEM;
	// From the caller's root; a cwd outside it (chroot without chdir) is
	// shown as Linux shows it, "(unreachable)" and its path.
	irq = spin_lock_irqsave(&vfs_tree_lock);
	rc = vnode_path_from_locked(current_root_locked(), current_cwd_locked(), path + plen,
				    PATH_MAX, &unreachable);
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
	if (rc >= 0 && unreachable) {
		memcpy(path, unreachable_prefix, plen);
		rc += (long)plen;
	} else if (rc >= 0) {
		memmove(path, path + plen, (size_t)rc + 1);
	}
	if (rc >= 0) {
		if ((size_t)rc + 1 > size)
			rc = -ERANGE;
		else if (copy_to_user(ubuf, path, (size_t)rc + 1) < 0)
			rc = -EFAULT;
		else
			rc += 1;	// the length with its NUL, as Linux returns
	}
	kfree(path);
	return rc;
}

// The searchable directory that chdir and chroot name (referenced).
static int lookup_dir_to_enter(uint64_t upath, struct vnode **out)
{
	struct vnode *vn;
	int rc = lookup_user_at(AT_FDCWD, upath, LOOKUP_FOLLOW, &vn);

	if (rc < 0)
		return rc;
	if (vn->type != VNODE_DIR)
		rc = -ENOTDIR;
	else
		rc = vnode_may(vn, MAY_EXEC);
	if (rc) {
		vnode_put(vn);
		return rc;
	}
	*out = vn;
	return 0;
}

SYSCALL_DEFINE(SYS_chdir, chdir)
{
	struct vnode *vn;
	int rc = lookup_dir_to_enter(args->a[0], &vn);

	if (rc == 0)
		vfs_set_cwd(vn);
	return rc;
}

// Absolute paths and ".." of this process (and those sharing its view,
// CLONE_FS) stop at the new root; the cwd stays where it is, as on Linux.
// The lookup's errors come before the capability check, as Linux's.
SYSCALL_DEFINE(SYS_chroot, chroot)
{
	struct vnode *vn;
	int rc = lookup_dir_to_enter(args->a[0], &vn);

	if (rc)
		return rc;
	if (!cred_capable(current_cred(), CAP_SYS_CHROOT)) {
		vnode_put(vn);
		return -EPERM;
	}
	vfs_set_root(vn);
	return 0;
}

SYSCALL_DEFINE(SYS_fchdir, fchdir)
{
	struct file *f = fget_raw((int)args->a[0]);
	struct vnode *vn;

	if (!f)
		return -EBADF;
	vn = f->vn;
	if (!vn || vn->type != VNODE_DIR) {
		file_put(f);
		return -ENOTDIR;
	}
	if (vnode_may(vn, MAY_EXEC)) {
		file_put(f);
		return -EACCES;
	}
	vnode_get(vn);
	file_put(f);
	vfs_set_cwd(vn);
	return 0;
}

// ---- operations on the last component of a path ----

struct parent {
	struct vnode *dir;
	char name[NAME_MAX + 1];
	bool trailing_slash;
};

static int parent_at(int dirfd, uint64_t upath, struct parent *pp)
{
	struct vnode *start;
	char *path;
	long rc = user_path(upath, &path);

	if (rc < 0)
		return (int)rc;
	rc = at_start(dirfd, path, &start);
	if (rc == 0) {
		rc = vfs_lookup_parent(start, path, &pp->dir, pp->name, &pp->trailing_slash);
		vnode_put(start);
	}
	kfree(path);
	return (int)rc;
}

static long do_mkdir(int dirfd, uint64_t upath, uint32_t mode)
{
	struct parent pp;
	int rc = parent_at(dirfd, upath, &pp);

	if (rc < 0)
		return rc;
	rc = vfs_create(pp.dir, pp.name, VNODE_DIR, mode & ~current_umask() & 07777, NULL, NULL);
	vnode_put(pp.dir);
	return rc;
}

// mknod and mknodat: FIFOs, regular files, sockets, and device nodes
// (CAP_MKNOD), checked in Linux's order (the type, the path and the
// directory's permission, then the capability).  A character node for a device this kernel has is that
// device; any other opens with ENXIO, as a number no driver serves.
static long do_mknod(int dirfd, uint64_t upath, uint32_t mode, uint32_t dev)
{
	enum vnode_type type;
	struct parent pp;
	struct vnode *vn;
	int rc;

	switch (mode & S_IFMT) {
	case 0:
	case S_IFREG:
		type = VNODE_REG;
		break;
	case S_IFIFO:
		type = VNODE_FIFO;
		break;
	case S_IFSOCK:
		type = VNODE_SOCK;
		break;
	case S_IFCHR:
		type = VNODE_CHR;
		break;
	case S_IFBLK:
		type = VNODE_BLK;
		break;
	case S_IFDIR:
		return -EPERM;
	default:
		return -EINVAL;
	}
	rc = parent_at(dirfd, upath, &pp);
	if (rc < 0)
		return rc;
	if (pp.trailing_slash || pp.name[0] == 0)
		rc = pp.name[0] == 0 ? -EEXIST : -ENOENT;
	else if ((rc = vnode_may(pp.dir, MAY_WRITE | MAY_EXEC)) != 0)
		;
	else if ((type == VNODE_CHR || type == VNODE_BLK) && !cred_capable(current_cred(), CAP_MKNOD))
		rc = -EPERM;
	else
		rc = vfs_create_node(pp.dir, pp.name, type, mode & ~current_umask() & 07777,
				     dev, &vn);	// Linux's encoding, as st_rdev shows it
	vnode_put(pp.dir);
	if (rc == 0)
		vnode_put(vn);
	return rc;
}

SYSCALL_DEFINE(SYS_mknod, mknod)
{
	return do_mknod(AT_FDCWD, args->a[0], (uint32_t)args->a[1], (uint32_t)args->a[2]);
}

SYSCALL_DEFINE(SYS_mknodat, mknodat)
{
	return do_mknod((int)args->a[0], args->a[1], (uint32_t)args->a[2], (uint32_t)args->a[3]);
}

SYSCALL_DEFINE(SYS_mkdir, mkdir)
{
	return do_mkdir(AT_FDCWD, args->a[0], (uint32_t)args->a[1]);
}

SYSCALL_DEFINE(SYS_mkdirat, mkdirat)
{
	return do_mkdir((int)args->a[0], args->a[1], (uint32_t)args->a[2]);
}

static long do_rmdir(int dirfd, uint64_t upath)
{
	struct parent pp;
	int rc = parent_at(dirfd, upath, &pp);

	if (rc < 0)
		return rc;
	if (pp.name[0] == 0)
		rc = -EBUSY;			// "/"
	else if (!strcmp(pp.name, "."))
		rc = -EINVAL;
	else if (!strcmp(pp.name, ".."))
		rc = -ENOTEMPTY;
	else
		rc = vfs_unlink(pp.dir, pp.name, true);
	vnode_put(pp.dir);
	return rc;
}

static long do_unlink(int dirfd, uint64_t upath)
{
	struct parent pp;
	int rc = parent_at(dirfd, upath, &pp);

	if (rc < 0)
		return rc;
	if (pp.name[0] == 0 || !strcmp(pp.name, ".") || !strcmp(pp.name, "..")) {
		rc = -EISDIR;
	} else if (pp.trailing_slash) {
		// "name/" asks for a directory: never unlinked, only judged.
		struct vnode *vn;

		rc = vfs_lookup_at(pp.dir, pp.name, 0, &vn);
		if (rc == 0) {
			rc = vn->type == VNODE_DIR ? -EISDIR : -ENOTDIR;
			vnode_put(vn);
		}
	} else {
		rc = vfs_unlink(pp.dir, pp.name, false);
	}
	vnode_put(pp.dir);
	return rc;
}

SYSCALL_DEFINE(SYS_rmdir, rmdir)
{
	return do_rmdir(AT_FDCWD, args->a[0]);
}

SYSCALL_DEFINE(SYS_unlink, unlink)
{
	return do_unlink(AT_FDCWD, args->a[0]);
}

SYSCALL_DEFINE(SYS_unlinkat, unlinkat)
{
	int flags = (int)args->a[2];

	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	if (flags & AT_REMOVEDIR)
		return do_rmdir((int)args->a[0], args->a[1]);
	return do_unlink((int)args->a[0], args->a[1]);
}

static long do_rename(int olddirfd, uint64_t oldpath, int newdirfd, uint64_t newpath,
		      unsigned flags)
{
	struct parent *from, *to;
	int rc;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	if ((flags & RENAME_EXCHANGE) && (flags & (RENAME_NOREPLACE | RENAME_WHITEOUT)))
		return -EINVAL;
	from = kmalloc(sizeof(*from) * 2);
	if (!from)
		return -ENOMEM;
	to = from + 1;
	rc = parent_at(olddirfd, oldpath, from);
	if (rc < 0)
		goto out;
	rc = parent_at(newdirfd, newpath, to);
	if (rc < 0) {
		vnode_put(from->dir);
		goto out;
	}
	rc = vfs_rename(from->dir, from->name, to->dir, to->name, flags);
	vnode_put(from->dir);
	vnode_put(to->dir);
out:
	kfree(from);
	return rc;
}

SYSCALL_DEFINE(SYS_rename, rename)
{
	return do_rename(AT_FDCWD, args->a[0], AT_FDCWD, args->a[1], 0);
}

SYSCALL_DEFINE(SYS_renameat, renameat)
{
	return do_rename((int)args->a[0], args->a[1], (int)args->a[2], args->a[3], 0);
}

SYSCALL_DEFINE(SYS_renameat2, renameat2)
{
	return do_rename((int)args->a[0], args->a[1], (int)args->a[2], args->a[3],
			 (unsigned)args->a[4]);
}

static long do_symlink(uint64_t utarget, int dirfd, uint64_t upath)
{
	struct parent pp;
	char *target;
	long rc = user_path(utarget, &target);

	if (rc < 0)
		return rc;
	if (rc == 0) {
		kfree(target);
		return -ENOENT;
	}
	rc = parent_at(dirfd, upath, &pp);
	if (rc == 0) {
		rc = vfs_create(pp.dir, pp.name, VNODE_SYMLINK, 0777, target, NULL);
		vnode_put(pp.dir);
	}
	kfree(target);
	return rc;
}

SYSCALL_DEFINE(SYS_symlink, symlink)
{
	return do_symlink(args->a[0], AT_FDCWD, args->a[1]);
}

SYSCALL_DEFINE(SYS_symlinkat, symlinkat)
{
	return do_symlink(args->a[0], (int)args->a[1], args->a[2]);
}

static long do_link(int olddirfd, uint64_t oldpath, int newdirfd, uint64_t newpath, int flags)
{
	struct parent pp;
	struct vnode *vn;
	int rc;

	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	// Naming a descriptor's file (an O_TMPFILE one, say) takes
	// CAP_DAC_READ_SEARCH, as Linux (ENOENT); /proc/self/fd/N with
	// AT_SYMLINK_FOLLOW does not.
	if ((flags & AT_EMPTY_PATH) && !cred_capable(current_cred(), CAP_DAC_READ_SEARCH))
		return -ENOENT;
	rc = lookup_user_at(olddirfd, oldpath,
			    (flags & AT_SYMLINK_FOLLOW ? LOOKUP_FOLLOW : 0) |
			    (flags & AT_EMPTY_PATH ? LOOKUP_EMPTY_OK : 0), &vn);
	if (rc < 0)
		return rc;
	rc = parent_at(newdirfd, newpath, &pp);
	if (rc == 0) {
		rc = vfs_link(vn, pp.dir, pp.name);
		vnode_put(pp.dir);
	}
	vnode_put(vn);
	return rc;
}

SYSCALL_DEFINE(SYS_link, link)
{
	return do_link(AT_FDCWD, args->a[0], AT_FDCWD, args->a[1], 0);
}

SYSCALL_DEFINE(SYS_linkat, linkat)
{
	return do_link((int)args->a[0], args->a[1], (int)args->a[2], args->a[3], (int)args->a[4]);
}
