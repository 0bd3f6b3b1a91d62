// stat and friends, access, readlink, and the metadata calls that only
// record or accept (chmod, chown, utimensat, umask, statfs).

#include <fs/fs_syscall.h>
#include <fs/fsnotify.h>
#include <fs/fcntl.h>
#include <kernel/syscall.h>
#include <kernel/cred.h>
#include <kernel/uaccess.h>
#include <lib/string.h>
#include <kernel/process.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>
#include <uapi/time.h>

#define FS_DEV		1		// st_dev of the ramfs
#define PIPE_DEV	2		// st_dev of pipes
#define ANON_DEV	3		// st_dev of anonymous files (eventfd, ...)
#define BLKSIZE		4096

// struct stat of Linux x86-64 (ppc64's has the same layout: the 64-bit
// generic one).
struct user_stat {
	uint64_t st_dev;
	uint64_t st_ino;
	uint64_t st_nlink;
	uint32_t st_mode;
	uint32_t st_uid;
	uint32_t st_gid;
	uint32_t pad0;
	uint64_t st_rdev;
	int64_t st_size;
	int64_t st_blksize;
	int64_t st_blocks;
	uint64_t st_atime_sec, st_atime_nsec;
	uint64_t st_mtime_sec, st_mtime_nsec;
	uint64_t st_ctime_sec, st_ctime_nsec;
	int64_t reserved[3];
};

_Static_assert(sizeof(struct user_stat) == 144, "struct stat is 144 bytes on x86-64");

struct statx_timestamp {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t reserved;
};

struct user_statx {
	uint32_t stx_mask;
	uint32_t stx_blksize;
	uint64_t stx_attributes;
	uint32_t stx_nlink;
	uint32_t stx_uid;
	uint32_t stx_gid;
	uint16_t stx_mode;
	uint16_t pad0;
	uint64_t stx_ino;
	uint64_t stx_size;
	uint64_t stx_blocks;
	uint64_t stx_attributes_mask;
	struct statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime;
	uint32_t stx_rdev_major, stx_rdev_minor;
	uint32_t stx_dev_major, stx_dev_minor;
	uint64_t spare[14];
};

_Static_assert(sizeof(struct user_statx) == 256, "struct statx is 256 bytes");

#define STATX_BASIC_STATS	0x07ff
#define STATX_BTIME		0x0800
#define STATX_RESERVED		0x80000000u	// must be clear in the request

// The attributes every stat variant reports.
struct kstat {
	uint64_t dev, ino, nlink, rdev, size, blocks;
	uint32_t mode, uid, gid;
	uint64_t atime, mtime, ctime;	// ns
};

static void stat_vnode(struct vnode *vn, struct kstat *k)
{
	uint64_t flags;

	memset(k, 0, sizeof(*k));
	k->dev = FS_DEV;
	k->ino = vn->ino;
	k->rdev = vn->rdev;
	k->uid = vn->uid;
	k->gid = vn->gid;
	flags = spin_lock_irqsave(&vfs_tree_lock);
	k->nlink = vn->nlink;
	if (vn->computed && k->nlink == 0)	// /proc: named while it exists
		k->nlink = vn->type == VNODE_DIR ? 2 : 1;
	k->mode = vn->mode;
	spin_unlock_irqrestore(&vfs_tree_lock, flags);
	flags = spin_lock_irqsave(&vn->lock);
	k->size = vn->size;
	k->atime = vn->atime_ns;
	k->mtime = vn->mtime_ns;
	k->ctime = vn->ctime_ns;
	spin_unlock_irqrestore(&vn->lock, flags);
	if (vn->type == VNODE_DIR)
		k->size = BLKSIZE;
	if (vn->type == VNODE_ANON) {	// Linux's one anon inode: one link
		k->dev = ANON_DEV;
		k->nlink = 1;
	}
	if (vn->type == VNODE_SYMLINK && vn->ops && vn->ops->target) {
		char buf[EXE_PATH_MAX];
		long n = vnode_readlink(vn, buf, sizeof(buf));
		k->size = n > 0 ? (uint64_t)n : 0;
	}
	// A file of the tree: its pages, as tmpfs counts them (holes are
	// free, pages past the end from FALLOC_FL_KEEP_SIZE count).
	if (vn->type == VNODE_REG && !vn->ops)
		k->blocks = vnode_resident_pages(vn) * (BLKSIZE / 512);
	else
		k->blocks = (k->size + 511) / 512;
}

static void stat_file(struct file *f, struct kstat *k)
{
	if (f->vn) {
		stat_vnode(f->vn, k);
		return;
	}
	// A pipe: a FIFO owned by root, read-write for its owner.
	memset(k, 0, sizeof(*k));
	k->dev = PIPE_DEV;
	k->ino = ((uint64_t)(uintptr_t)f->pipe >> 6) & 0xffffffffULL;
	k->nlink = 1;
	k->mode = S_IFIFO | 0600;
	k->atime = k->mtime = k->ctime = fs_now_ns();
}

static int put_stat(uint64_t ubuf, const struct kstat *k)
{
	struct user_stat st;

	memset(&st, 0, sizeof(st));
	st.st_dev = k->dev;
	st.st_ino = k->ino;
	st.st_nlink = k->nlink;
	st.st_mode = k->mode;
	st.st_uid = k->uid;
	st.st_gid = k->gid;
	st.st_rdev = k->rdev;
	st.st_size = (int64_t)k->size;
	st.st_blksize = BLKSIZE;
	st.st_blocks = (int64_t)k->blocks;
	st.st_atime_sec = k->atime / 1000000000;
	st.st_atime_nsec = k->atime % 1000000000;
	st.st_mtime_sec = k->mtime / 1000000000;
	st.st_mtime_nsec = k->mtime % 1000000000;
	st.st_ctime_sec = k->ctime / 1000000000;
	st.st_ctime_nsec = k->ctime % 1000000000;
	return copy_to_user(ubuf, &st, sizeof(st));
}

// The kstat of what dirfd/path name (AT_EMPTY_PATH: the descriptor itself).
static int stat_at(int dirfd, uint64_t upath, int atflags, struct kstat *k)
{
	int lflags = atflags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW;
	struct vnode *vn;
	int rc;

	if (atflags & AT_EMPTY_PATH) {
		char c;

		// An empty path names the descriptor itself, pipes included.
		if (copy_from_user(&c, upath, 1) < 0)
			return -EFAULT;
		if (c == 0 && dirfd != AT_FDCWD) {
			struct file *f = fget_raw(dirfd);

			if (!f)
				return -EBADF;
			stat_file(f, k);
			file_put(f);
			return 0;
		}
		lflags |= LOOKUP_EMPTY_OK;
	}
	struct file *object = NULL;

	rc = lookup_user_object_at(dirfd, upath, lflags, &vn, &object);
	if (rc < 0)
		return rc;
	if (object) {
		stat_file(object, k);	// a pipe through its /proc link, as Linux
		file_put(object);
		return 0;
	}
	stat_vnode(vn, k);
	vnode_put(vn);
	return 0;
}

static long stat_common(int dirfd, uint64_t upath, uint64_t ubuf, int atflags)
{
	struct kstat k;
	int rc;

	if (atflags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT))
		return -EINVAL;
	rc = stat_at(dirfd, upath, atflags, &k);
	if (rc < 0)
		return rc;
	return put_stat(ubuf, &k);
}

SYSCALL_DEFINE(SYS_stat, stat)
{
	return stat_common(AT_FDCWD, args->a[0], args->a[1], 0);
}

SYSCALL_DEFINE(SYS_lstat, lstat)
{
	return stat_common(AT_FDCWD, args->a[0], args->a[1], AT_SYMLINK_NOFOLLOW);
}

SYSCALL_DEFINE(SYS_newfstatat, newfstatat)
{
	return stat_common((int)args->a[0], args->a[1], args->a[2], (int)args->a[3]);
}

SYSCALL_DEFINE(SYS_fstat, fstat)
{
	struct file *f = fget_raw((int)args->a[0]);
	struct kstat k;

	if (!f)
		return -EBADF;
	stat_file(f, &k);
	file_put(f);
	return put_stat(args->a[1], &k);
}

static struct statx_timestamp statx_time(uint64_t ns)
{
	return (struct statx_timestamp){ (int64_t)(ns / 1000000000), (uint32_t)(ns % 1000000000), 0 };
}

SYSCALL_DEFINE(SYS_statx, statx)
{
	int dirfd = (int)args->a[0];
	int atflags = (int)args->a[2];
	uint32_t mask = (uint32_t)args->a[3];
	struct user_statx sx;
	struct kstat k;
	int rc;

	if (mask & STATX_RESERVED)
		return -EINVAL;
	if (atflags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT | AT_STATX_SYNC_TYPE))
		return -EINVAL;
	if ((atflags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE)
		return -EINVAL;
	rc = stat_at(dirfd, args->a[1], atflags & (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH), &k);
	if (rc < 0)
		return rc;
	memset(&sx, 0, sizeof(sx));
	sx.stx_mask = STATX_BASIC_STATS;
	sx.stx_blksize = BLKSIZE;
	sx.stx_nlink = (uint32_t)k.nlink;
	sx.stx_uid = k.uid;
	sx.stx_gid = k.gid;
	sx.stx_mode = (uint16_t)k.mode;
	sx.stx_ino = k.ino;
	sx.stx_size = k.size;
	sx.stx_blocks = k.blocks;
	sx.stx_atime = statx_time(k.atime);
	sx.stx_ctime = statx_time(k.ctime);
	sx.stx_mtime = statx_time(k.mtime);
	sx.stx_rdev_major = (uint32_t)(k.rdev >> 8);
	sx.stx_rdev_minor = (uint32_t)(k.rdev & 0xff);
	sx.stx_dev_major = 0;
	sx.stx_dev_minor = (uint32_t)k.dev;
	return copy_to_user(args->a[4], &sx, sizeof(sx));
}

// ---- statfs ----

struct user_statfs {
	int64_t f_type;
	int64_t f_bsize;
	uint64_t f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int32_t f_fsid[2];
	int64_t f_namelen;
	int64_t f_frsize;
	int64_t f_flags;
	int64_t f_spare[4];
};

_Static_assert(sizeof(struct user_statfs) == 120, "struct statfs is 120 bytes on x86-64");

#define TMPFS_MAGIC 0x01021994

static long put_statfs(uint64_t ubuf)
{
	struct user_statfs s;
	uint64_t total, free;

	vfs_space(&total, &free);	// pages: BLKSIZE is the page size
	memset(&s, 0, sizeof(s));
	s.f_type = TMPFS_MAGIC;
	s.f_bsize = BLKSIZE;
	s.f_frsize = BLKSIZE;
	s.f_blocks = total;
	s.f_bfree = free;
	s.f_bavail = free;
	// No limit on the number of files: tmpfs mounted with nr_inodes=0
	// reports that as 0 and 0.
	s.f_files = 0;
	s.f_ffree = 0;
	s.f_namelen = NAME_MAX;
	return copy_to_user(ubuf, &s, sizeof(s));
}

// ustat(2): the free blocks and inodes of the file system on a device.
// The tree's own device, and the pseudo file systems of pipes and
// anonymous files (as Linux's pipefs and anon_inodefs: nothing free),
// are the only ones; any other number is EINVAL, as a device without a
// mounted file system on Linux.
struct user_ustat {
	int32_t f_tfree;
	uint64_t f_tinode;
	char f_fname[6];
	char f_fpack[6];
};

_Static_assert(sizeof(struct user_ustat) == 32, "struct ustat is 32 bytes on x86-64");

SYSCALL_DEFINE(SYS_ustat, ustat)
{
	uint32_t dev = (uint32_t)args->a[0];
	struct user_ustat u;
	uint64_t total, free;

	if (dev != FS_DEV && dev != PIPE_DEV && dev != ANON_DEV)
		return -EINVAL;
	memset(&u, 0, sizeof(u));
	if (dev == FS_DEV) {
		vfs_space(&total, &free);
		u.f_tfree = (int32_t)free;	// Linux truncates to the field too
	}
	return copy_to_user(args->a[1], &u, sizeof(u)) < 0 ? -EFAULT : 0;
}

// Is the user string at uaddr 'want'?  0 if so; else Linux's getname
// errors (EFAULT, ENOENT for an empty string, ENAMETOOLONG past
// PATH_MAX) or, for any other name, -EINVAL.
static long user_name_matches(uint64_t uaddr, const char *want, char *buf, size_t size)
{
	long len = strncpy_from_user(buf, uaddr, size);

	if (len >= 0)
		return len == 0 ? -ENOENT : strcmp(buf, want) ? -EINVAL : 0;
	if (len != -ENAMETOOLONG)
		return len;
	// Longer than want: find out whether it is longer than a path.
	char *path = kmalloc(PATH_MAX);
	if (!path)
		return -ENOMEM;
	len = strncpy_from_user(path, uaddr, PATH_MAX);
	kfree(path);
	return len < 0 ? len : -EINVAL;
}

// sysfs(2), the old list of file system types: the one this kernel has
// (see /proc/filesystems).
SYSCALL_DEFINE(SYS_sysfs, sysfs)
{
	static const char only_type[] = "tmpfs";
	char name[sizeof(only_type)];
	long len;

	switch ((int)args->a[0]) {
	case 1:		// the index of a type name, taken as Linux's getname takes it
		len = user_name_matches(args->a[1], only_type, name, sizeof(name));
		return len < 0 ? len : 0;
	case 2:		// the name of a type index
		if ((unsigned int)args->a[1] != 0)
			return -EINVAL;
		return copy_to_user(args->a[2], only_type, sizeof(only_type)) < 0 ? -EFAULT : 0;
	case 3:		// how many types
		return 1;
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE(SYS_statfs, statfs)
{
	struct vnode *vn;
	int rc = lookup_user_at(AT_FDCWD, args->a[0], LOOKUP_FOLLOW, &vn);

	if (rc < 0)
		return rc;
	vnode_put(vn);
	return put_statfs(args->a[1]);
}

SYSCALL_DEFINE(SYS_fstatfs, fstatfs)
{
	struct file *f = fget_raw((int)args->a[0]);

	if (!f)
		return -EBADF;
	file_put(f);
	return put_statfs(args->a[1]);
}

#ifdef SYS_statfs64
// statfs64(path, size, buf) and fstatfs64(fd, size, buf): on a 64-bit
// arch struct statfs64 is struct statfs; 'size' must say so.
#define STATFS64_SIZE 120

SYSCALL_DEFINE(SYS_statfs64, statfs64)
{
	struct vnode *vn;

	if (args->a[1] != STATFS64_SIZE)
		return -EINVAL;
	int rc = lookup_user_at(AT_FDCWD, args->a[0], LOOKUP_FOLLOW, &vn);
	if (rc < 0)
		return rc;
	vnode_put(vn);
	return put_statfs(args->a[2]);
}

SYSCALL_DEFINE(SYS_fstatfs64, fstatfs64)
{
	if (args->a[1] != STATFS64_SIZE)
		return -EINVAL;
	struct file *f = fget_raw((int)args->a[0]);
	if (!f)
		return -EBADF;
	file_put(f);
	return put_statfs(args->a[2]);
}
#endif

// ---- access ----

#define R_OK 4
#define W_OK 2
#define X_OK 1

static long do_access(int dirfd, uint64_t upath, int mode, int atflags)
{
	struct vnode *vn;
	int rc;

	if (mode & ~(R_OK | W_OK | X_OK))
		return -EINVAL;
	if (atflags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	// The real IDs stand in for the effective ones unless AT_EACCESS,
	// for the lookup as for the check.
	struct cred *real = NULL;
	const struct cred *saved = NULL;
	if (!(atflags & AT_EACCESS)) {
		real = cred_for_access();
		if (!real)
			return -ENOMEM;
		saved = cred_override(real);
	}
	rc = lookup_user_at(dirfd, upath,
			    (atflags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW) |
			    (atflags & AT_EMPTY_PATH ? LOOKUP_EMPTY_OK : 0), &vn);
	if (rc == 0) {
		if (mode)
			rc = vnode_may(vn, mode);
		vnode_put(vn);
	}
	if (real) {
		cred_override(saved);
		cred_put(real);
	}
	return rc;
}

SYSCALL_DEFINE(SYS_access, access)
{
	return do_access(AT_FDCWD, args->a[0], (int)args->a[1], 0);
}

SYSCALL_DEFINE(SYS_faccessat, faccessat)
{
	return do_access((int)args->a[0], args->a[1], (int)args->a[2], 0);
}

SYSCALL_DEFINE(SYS_faccessat2, faccessat2)
{
	return do_access((int)args->a[0], args->a[1], (int)args->a[2], (int)args->a[3]);
}

// ---- readlink ----

static long do_readlink(int dirfd, uint64_t upath, uint64_t ubuf, int64_t size)
{
	struct vnode *vn;
	char *target;
	long rc;

	if (size <= 0)
		return -EINVAL;
	rc = lookup_user_at(dirfd, upath, 0, &vn);
	if (rc < 0)
		return rc;
	target = kmalloc(PATH_MAX);
	if (!target) {
		vnode_put(vn);
		return -ENOMEM;
	}
	rc = vnode_readlink(vn, target, PATH_MAX);
	vnode_put(vn);
	if (rc >= 0) {
		if (rc > size)
			rc = size;	// silently truncated, never terminated
		if (copy_to_user(ubuf, target, (size_t)rc) < 0)
			rc = -EFAULT;
	}
	kfree(target);
	return rc;
}

SYSCALL_DEFINE(SYS_readlink, readlink)
{
	return do_readlink(AT_FDCWD, args->a[0], args->a[1], (int64_t)(int)args->a[2]);
}

SYSCALL_DEFINE(SYS_readlinkat, readlinkat)
{
	return do_readlink((int)args->a[0], args->a[1], args->a[2], (int64_t)(int)args->a[3]);
}

// ---- permissions, owners and times ----

// chmod: the owner or CAP_FOWNER; the setgid bit stays only for a member
// of the file's group or with CAP_FSETID.
static long set_mode(struct vnode *vn, uint32_t mode)
{
	const struct cred *c = current_cred();
	uint64_t flags;

	mode &= 07777;
	if (!cred_owns(c, vn)) {
		return -EPERM;
	}
	if (!cred_in_group(c, vn->gid) && !cred_capable(c, CAP_FSETID))
		mode &= ~S_ISGID;
	flags = spin_lock_irqsave(&vfs_tree_lock);
	vn->mode = (vn->mode & S_IFMT) | mode;
	spin_unlock_irqrestore(&vfs_tree_lock, flags);
	flags = spin_lock_irqsave(&vn->lock);
	vn->ctime_ns = fs_now_ns();
	spin_unlock_irqrestore(&vn->lock, flags);
	fsnotify_change(vn, IN_ATTRIB);
	return 0;
}

static long chmod_at(int dirfd, uint64_t upath, uint32_t mode, int atflags)
{
	struct vnode *vn;
	int rc;

	if (atflags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	rc = lookup_user_at(dirfd, upath,
			    (atflags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW) |
			    (atflags & AT_EMPTY_PATH ? LOOKUP_EMPTY_OK : 0), &vn);
	if (rc < 0)
		return rc;
	if (vn->type == VNODE_SYMLINK)
		rc = -EOPNOTSUPP;
	else
		rc = set_mode(vn, mode);
	vnode_put(vn);
	return rc;
}

SYSCALL_DEFINE(SYS_chmod, chmod)
{
	return chmod_at(AT_FDCWD, args->a[0], (uint32_t)args->a[1], 0);
}

SYSCALL_DEFINE(SYS_fchmodat, fchmodat)
{
	return chmod_at((int)args->a[0], args->a[1], (uint32_t)args->a[2], 0);
}

SYSCALL_DEFINE(SYS_fchmod, fchmod)
{
	struct file *f = fget((int)args->a[0]);
	long rc = 0;

	if (!f)
		return -EBADF;
	if (f->vn)
		rc = set_mode(f->vn, (uint32_t)args->a[1]);
	file_put(f);
	return rc;
}

// Linux's chown_ok and chgrp_ok: CAP_CHOWN may do anything; the owner
// may only "change" the owner to itself and the group to one of its own.
static bool may_chown(const struct cred *c, const struct vnode *vn, uint32_t uid, uint32_t gid)
{
	bool owner = c->fsuid == vn->uid, cap = cred_capable(c, CAP_CHOWN);

	if (uid != (uint32_t)-1 && !(owner && uid == vn->uid) && !cap)
		return false;
	if (gid != (uint32_t)-1 && !(owner && (gid == vn->gid || cred_in_group(c, gid))) && !cap)
		return false;
	return true;
}

static long set_owner(struct vnode *vn, uint32_t uid, uint32_t gid)
{
	const struct cred *c = current_cred();
	bool ok = may_chown(c, vn, uid, gid);
	uint64_t flags;

	if (!ok)
		return -EPERM;
	flags = spin_lock_irqsave(&vfs_tree_lock);
	// -1 leaves a field as it is.
	if (uid != (uint32_t)-1)
		vn->uid = uid;
	if (gid != (uint32_t)-1)
		vn->gid = gid;
	// Any chown of a non-directory ends setuid, and setgid where it
	// means execution with the group (root's chown too).
	if (vn->type != VNODE_DIR) {
		vn->mode &= ~S_ISUID;
		if ((vn->mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
			vn->mode &= ~S_ISGID;
	}
	spin_unlock_irqrestore(&vfs_tree_lock, flags);
	flags = spin_lock_irqsave(&vn->lock);
	vn->ctime_ns = fs_now_ns();
	spin_unlock_irqrestore(&vn->lock, flags);
	fsnotify_change(vn, IN_ATTRIB);
	return 0;
}

static long chown_at(int dirfd, uint64_t upath, uint32_t uid, uint32_t gid, int atflags)
{
	struct vnode *vn;
	int rc;

	if (atflags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	rc = lookup_user_at(dirfd, upath,
			    (atflags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW) |
			    (atflags & AT_EMPTY_PATH ? LOOKUP_EMPTY_OK : 0), &vn);
	if (rc < 0)
		return rc;
	rc = set_owner(vn, uid, gid);
	vnode_put(vn);
	return rc;
}

SYSCALL_DEFINE(SYS_chown, chown)
{
	return chown_at(AT_FDCWD, args->a[0], (uint32_t)args->a[1], (uint32_t)args->a[2], 0);
}

SYSCALL_DEFINE(SYS_lchown, lchown)
{
	return chown_at(AT_FDCWD, args->a[0], (uint32_t)args->a[1], (uint32_t)args->a[2],
			AT_SYMLINK_NOFOLLOW);
}

SYSCALL_DEFINE(SYS_fchownat, fchownat)
{
	return chown_at((int)args->a[0], args->a[1], (uint32_t)args->a[2], (uint32_t)args->a[3],
			(int)args->a[4]);
}

SYSCALL_DEFINE(SYS_fchown, fchown)
{
	struct file *f = fget((int)args->a[0]);
	long rc = 0;

	if (!f)
		return -EBADF;
	if (f->vn)
		rc = set_owner(f->vn, (uint32_t)args->a[1], (uint32_t)args->a[2]);
	file_put(f);
	return rc;
}

#define UTIME_NOW	((1L << 30) - 1)
#define UTIME_OMIT	((1L << 30) - 2)

// One timestamp of utimensat: false if it is to be left alone.
static bool pick_time(const struct user_timespec *ts, uint64_t now, uint64_t *out)
{
	if (!ts || ts->tv_nsec == UTIME_NOW) {
		*out = now;
		return true;
	}
	if (ts->tv_nsec == UTIME_OMIT)
		return false;
	*out = (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
	return true;
}

// Setting the times to now needs ownership or write permission
// (EACCES); setting any other value needs ownership (EPERM).
static int may_set_times(struct vnode *vn, bool to_now)
{
	const struct cred *c = current_cred();
	int rc = 0;

	if (!cred_owns(c, vn))
		rc = to_now ? vnode_permission(c, vn, MAY_WRITE) : -EPERM;
	return rc;
}

// Linux's do_utimes: the access and modification times of what dirfd
// and upath name (no path: the descriptor itself) become ts[0] and ts[1]
// (UTIME_NOW, UTIME_OMIT), or now when utimes is false.
static long set_times(int dirfd, uint64_t upath, const struct user_timespec *ts, bool utimes,
		      int atflags)
{
	struct vnode *vn;
	uint64_t now = fs_now_ns(), t, flags;
	bool set_a, set_m;
	int rc;

	// Both omitted: nothing to do, not even the lookup (as Linux).
	if (utimes && ts[0].tv_nsec == UTIME_OMIT && ts[1].tv_nsec == UTIME_OMIT)
		return 0;
	if (!upath && dirfd == AT_FDCWD)
		return -EFAULT;			// no path to look up
	if (!upath && atflags)
		return -EINVAL;			// futimens() takes no flags
	if (!upath) {
		// futimens(): the descriptor itself.
		struct file *f = fget(dirfd);

		if (!f)
			return -EBADF;
		vn = f->vn;
		if (vn)
			vnode_get(vn);
		file_put(f);
		if (!vn)
			return 0;
	} else {
		rc = lookup_user_at(dirfd, upath,
				    (atflags & AT_SYMLINK_NOFOLLOW ? 0 : LOOKUP_FOLLOW) |
				    (atflags & AT_EMPTY_PATH ? LOOKUP_EMPTY_OK : 0), &vn);
		if (rc < 0)
			return rc;
	}
	rc = may_set_times(vn, !utimes || (ts[0].tv_nsec == UTIME_NOW && ts[1].tv_nsec == UTIME_NOW));
	if (rc < 0) {
		vnode_put(vn);
		return rc;
	}
	flags = spin_lock_irqsave(&vn->lock);
	if ((set_a = pick_time(utimes ? &ts[0] : NULL, now, &t)))
		vn->atime_ns = t;
	if ((set_m = pick_time(utimes ? &ts[1] : NULL, now, &t)))
		vn->mtime_ns = t;
	vn->ctime_ns = now;
	spin_unlock_irqrestore(&vn->lock, flags);
	// Linux's fsnotify_change: both times are IN_ATTRIB, the access time
	// alone IN_ACCESS, the modification time alone IN_MODIFY.
	fsnotify_change(vn, set_a && set_m ? IN_ATTRIB : set_a ? IN_ACCESS : IN_MODIFY);
	vnode_put(vn);
	return 0;
}

SYSCALL_DEFINE(SYS_utimensat, utimensat)
{
	int atflags = (int)args->a[3];
	struct user_timespec ts[2];

	if (atflags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (args->a[2]) {
		if (copy_from_user(ts, args->a[2], sizeof(ts)) < 0)
			return -EFAULT;
		for (int i = 0; i < 2; i++)
			if (ts[i].tv_nsec != UTIME_NOW && ts[i].tv_nsec != UTIME_OMIT &&
			    (ts[i].tv_nsec < 0 || ts[i].tv_nsec >= 1000000000 || ts[i].tv_sec < 0))
				return -EINVAL;
	}
	return set_times((int)args->a[0], args->a[1], ts, args->a[2] != 0, atflags);
}

// utimes and futimesat: microseconds, no UTIME_NOW or UTIME_OMIT.
static long set_times_timeval(int dirfd, uint64_t upath, uint64_t utv)
{
	struct user_timeval tv[2];
	struct user_timespec ts[2];

	if (utv) {
		if (copy_from_user(tv, utv, sizeof(tv)) < 0)
			return -EFAULT;
		for (int i = 0; i < 2; i++) {
			if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
				return -EINVAL;
			ts[i] = (struct user_timespec){ tv[i].tv_sec, tv[i].tv_usec * 1000 };
		}
	}
	return set_times(dirfd, upath, ts, utv != 0, 0);
}

SYSCALL_DEFINE(SYS_utimes, utimes)
{
	return set_times_timeval(AT_FDCWD, args->a[0], args->a[1]);
}

SYSCALL_DEFINE(SYS_futimesat, futimesat)
{
	return set_times_timeval((int)args->a[0], args->a[1], args->a[2]);
}

// utime: whole seconds, struct utimbuf { actime, modtime }.
SYSCALL_DEFINE(SYS_utime, utime)
{
	int64_t buf[2];
	struct user_timespec ts[2];

	if (args->a[1]) {
		if (copy_from_user(buf, args->a[1], sizeof(buf)) < 0)
			return -EFAULT;
		ts[0] = (struct user_timespec){ buf[0], 0 };
		ts[1] = (struct user_timespec){ buf[1], 0 };
	}
	return set_times(AT_FDCWD, args->a[0], ts, args->a[1] != 0, 0);
}

SYSCALL_DEFINE(SYS_umask, umask)
{
	uint32_t old = __atomic_exchange_n(&current_fs_view()->umask, (uint32_t)args->a[0] & 0777,
					   __ATOMIC_RELAXED);

	return old;
}
