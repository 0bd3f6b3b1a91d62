// open, close, read, write and their positioned and vectored forms, lseek,
// truncation, sendfile and the sync family.

#include <fs/fs_syscall.h>
#include <fs/fcntl.h>
#include <fs/fsnotify.h>
#include <fs/pipe.h>
#include <kernel/syscall.h>
#include <kernel/cred.h>
#include <kernel/uaccess.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <mm/phys.h>
#include <net/unix.h>
#include <uapi/errno.h>

#define MAX_RW_COUNT	0x7ffff000UL	// Linux's cap on one transfer
#define PAGE_CHUNK	4096

// ---- read and write ----

// read, write, pread64 and pwrite64: one path, the direction aside.  The
// checks come in Linux's order: a negative position, the descriptor, a
// position on a pipe, the access mode, then the whole user range (a huge
// count from a small buffer is EFAULT, not a short transfer), and only
// then the cap on one transfer.
static long do_rw(int fd, uint64_t ubuf, size_t n, bool writing, bool positioned, int64_t off)
{
	struct iobuf b = iobuf_user(ubuf);
	struct file *f;
	bool ref;
	long rc;

	if (positioned && off < 0)
		return -EINVAL;
	f = fdget(fd, &ref);
	if (!f)
		return -EBADF;
	if (positioned && !file_can_pread(f))
		rc = -ESPIPE;
	else if (writing ? !file_writable(f) : !file_readable(f))
		rc = -EBADF;
	else if (!user_range_ok(ubuf, n))
		rc = -EFAULT;
	else {
		if (n > MAX_RW_COUNT)
			n = MAX_RW_COUNT;
		if (positioned)
			rc = writing ? file_pwrite(f, &b, n, (uint64_t)off)
				     : file_pread(f, &b, n, (uint64_t)off);
		else
			rc = writing ? file_write(f, &b, n) : file_read(f, &b, n);
	}
	fdput(f, ref);
	return rc;
}

SYSCALL_DEFINE(SYS_read, read)
{
	return do_rw((int)args->a[0], args->a[1], args->a[2], false, false, 0);
}

SYSCALL_DEFINE(SYS_write, write)
{
	return do_rw((int)args->a[0], args->a[1], args->a[2], true, false, 0);
}

SYSCALL_DEFINE(SYS_pread64, pread64)
{
	return do_rw((int)args->a[0], args->a[1], args->a[2], false, true, (int64_t)args->a[3]);
}

SYSCALL_DEFINE(SYS_pwrite64, pwrite64)
{
	return do_rw((int)args->a[0], args->a[1], args->a[2], true, true, (int64_t)args->a[3]);
}

long user_iovecs_get(uint64_t uiov, int64_t count, struct user_iovec **out)
{
	struct user_iovec *iov;
	uint64_t total = 0;
	long rc = 0;

	if (count < 0 || count > IOV_MAX)
		return -EINVAL;
	iov = kmalloc((count ? count : 1) * sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	if (copy_from_user(iov, uiov, count * sizeof(*iov)) < 0)
		rc = -EFAULT;
	for (int64_t i = 0; i < count && !rc; i++)
		if (iov[i].len > (uint64_t)INT64_MAX)
			rc = -EINVAL;
	for (int64_t i = 0; i < count && !rc; i++) {
		if (!user_range_ok(iov[i].base, iov[i].len))
			rc = -EFAULT;
		if (iov[i].len > MAX_RW_COUNT - total)
			iov[i].len = MAX_RW_COUNT - total;
		total += iov[i].len;
	}
	if (rc) {
		kfree(iov);
		return rc;
	}
	*out = iov;
	return 0;
}

// preadv2/pwritev2's flags: RWF_HIPRI (polling for O_DIRECT: nothing to
// poll), RWF_DSYNC and RWF_SYNC (nothing to flush) are exact no-ops here;
// RWF_APPEND appends; RWF_NOWAIT is refused as Linux refuses it for a
// file without FMODE_NOWAIT.
#define RWF_HIPRI	0x01
#define RWF_DSYNC	0x02
#define RWF_SYNC	0x04
#define RWF_NOWAIT	0x08
#define RWF_APPEND	0x10
#define RWF_KNOWN	(RWF_HIPRI | RWF_DSYNC | RWF_SYNC | RWF_NOWAIT | RWF_APPEND)

static long do_vector_flags(int fd, uint64_t uiov, int64_t count, bool write, bool positioned,
			    int64_t off, int rwf)
{
	struct user_iovec *iov;
	struct file *f;
	long rc, done = 0;

	if (positioned && off < 0)
		return -EINVAL;
	f = fget(fd);
	if (!f)
		return -EBADF;
	if (positioned && !file_can_pread(f)) {
		file_put(f);
		return -ESPIPE;
	}
	if (write ? !file_writable(f) : !file_readable(f)) {
		file_put(f);
		return -EBADF;
	}
	rc = user_iovecs_get(uiov, count, &iov);
	if (rc < 0) {
		file_put(f);
		return rc;
	}
	// As Linux, the flags are looked at only when there is something to
	// move.
	uint64_t total = 0;
	for (int64_t i = 0; i < count; i++)
		total += iov[i].len;
	if (total && (rwf & (~RWF_KNOWN | RWF_NOWAIT))) {
		kfree(iov);
		file_put(f);
		return -EOPNOTSUPP;
	}
	// A socket takes the vector as one message (net/unix.h).
	if (!positioned && sock_of_file(f)) {
		rc = sock_rw_iov(f, iov, count, write);
		kfree(iov);
		file_put(f);
		return rc;
	}
	bool append = write && (rwf & RWF_APPEND);
	// One position update for the whole vector, as Linux: the segments
	// come from (or go to) consecutive bytes even with other users of the
	// description.
	if (!positioned)
		file_pos_lock(f);
	for (int64_t i = 0; i < count; i++) {
		struct iobuf b = iobuf_user(iov[i].base);
		size_t n = iov[i].len;

		if (n == 0)
			continue;
		if (append)
			rc = file_write_append(f, &b, n);
		else if (positioned)
			rc = write ? file_pwrite(f, &b, n, off + done) : file_pread(f, &b, n, off + done);
		else
			rc = write ? file_write_locked(f, &b, n) : file_read_locked(f, &b, n);
		if (rc < 0)
			break;
		done += rc;
		if ((size_t)rc < n)
			break;		// short transfer: stop here, as Linux does
		rc = 0;
	}
	// Appended at the position: it follows the bytes to the new end.
	if (append && !positioned && done > 0 && f->vn && f->vn->type == VNODE_REG)
		f->off = __atomic_load_n(&f->vn->size, __ATOMIC_RELAXED);
	if (!positioned)
		file_pos_unlock(f);
	kfree(iov);
	file_put(f);
	return done ? done : rc;
}

static long do_vector(int fd, uint64_t uiov, int64_t count, bool write, bool positioned,
		      int64_t off)
{
	return do_vector_flags(fd, uiov, count, write, positioned, off, 0);
}

SYSCALL_DEFINE(SYS_readv, readv)
{
	return do_vector((int)args->a[0], args->a[1], (int64_t)args->a[2], false, false, 0);
}

SYSCALL_DEFINE(SYS_writev, writev)
{
	return do_vector((int)args->a[0], args->a[1], (int64_t)args->a[2], true, false, 0);
}

SYSCALL_DEFINE(SYS_preadv, preadv)
{
	return do_vector((int)args->a[0], args->a[1], (int64_t)args->a[2], false, true,
			 (int64_t)args->a[3]);
}

SYSCALL_DEFINE(SYS_pwritev, pwritev)
{
	return do_vector((int)args->a[0], args->a[1], (int64_t)args->a[2], true, true,
			 (int64_t)args->a[3]);
}

// preadv2 and pwritev2: an offset of -1 is the file position (readv and
// writev with flags); on x86-64 the offset is the fourth argument whole.
SYSCALL_DEFINE(SYS_preadv2, preadv2)
{
	int64_t off = (int64_t)args->a[3];

	return do_vector_flags((int)args->a[0], args->a[1], (int64_t)args->a[2], false, off != -1,
			       off, (int)args->a[5]);
}

SYSCALL_DEFINE(SYS_pwritev2, pwritev2)
{
	int64_t off = (int64_t)args->a[3];

	return do_vector_flags((int)args->a[0], args->a[1], (int64_t)args->a[2], true, off != -1,
			       off, (int)args->a[5]);
}

// ---- open and close ----

// Linux's may_open: the access the flags ask for (O_TRUNC writes), none
// for a file this open created, and O_NOATIME only for the owner.
static int open_permission(struct vnode *vn, uint32_t flags, bool created)
{
	const struct cred *c = current_cred();
	int mask = 0, rc = 0;

	switch (flags & O_ACCMODE) {
	case O_RDONLY:
		mask = MAY_READ;
		break;
	case O_WRONLY:
		mask = MAY_WRITE;
		break;
	default:
		mask = MAY_READ | MAY_WRITE;
		break;
	}
	if (flags & O_TRUNC)
		mask |= MAY_WRITE;
	if (!created)
		rc = vnode_permission(c, vn, mask);
	if (rc == 0 && (flags & O_NOATIME) && !cred_owns(c, vn))
		rc = -EPERM;
	return rc;
}

// open() of /proc/PID/fd/N (or /dev/stdin, ...) naming a pipe: f, the
// new file, becomes another end of that pipe.  The descriptor is what
// open returns.
static long reopen_object(struct file *f, struct file *object, uint32_t flags)
{
	if (flags & O_PATH)
		return -ENOENT;		// an O_PATH file of a pipe has nothing to name here
	if (flags & O_DIRECTORY)
		return -ENOTDIR;
	if (flags & O_DIRECT)
		return -EINVAL;		// no direct I/O, as below
	pipe_open_end(f, object->pipe);
	return fd_install(current_fdtable(), f, 0, flags & O_CLOEXEC);
}

// The rest of an open once the vnode is found (referenced; the file's
// reference on success): type and permission checks, the driver's open,
// O_TRUNC, FIFOs, then the descriptor (prepared by the caller).
static long open_found(struct file *f, struct vnode *vn, uint32_t flags, bool created)
{
	long rc;

	rc = 0;
	if (vn->type == VNODE_SYMLINK && !(flags & O_PATH))
		rc = -ELOOP;			// O_NOFOLLOW met a symlink
	else if ((flags & O_DIRECTORY) && vn->type != VNODE_DIR)
		rc = -ENOTDIR;
	else if (vn->type == VNODE_DIR && ((flags & O_ACCMODE) != O_RDONLY || (flags & O_CREAT)))
		rc = -EISDIR;
	else if (!(flags & O_PATH))
		rc = open_permission(vn, flags, created);
	// Nodes without a driver: a device number nothing serves, a block
	// device, a socket (Linux: ENXIO for each).
	if (rc == 0 && !(flags & O_PATH) &&
	    ((vn->type == VNODE_CHR && !vn->ops) || vn->type == VNODE_BLK || vn->type == VNODE_SOCK))
		rc = -ENXIO;
	// A program some address space runs cannot be opened for writing
	// (ETXTBSY, before O_TRUNC can touch it), as Linux's do_dentry_open.
	if (rc == 0 && !(flags & O_PATH) && (flags & O_ACCMODE) != O_RDONLY &&
	    vn->type == VNODE_REG && !vn->ops) {
		rc = vnode_get_write_access(vn);
		f->write_access = rc == 0;
	}
	// Nothing here does direct I/O (Linux 6.1's do_dentry_open: EINVAL
	// where the file has no direct_IO, as tmpfs, ramfs, devices, FIFOs
	// and /proc have none); asked before a driver's open, so that there
	// is nothing of it to undo.
	if (rc == 0 && (flags & O_DIRECT) && !(flags & O_PATH))
		rc = -EINVAL;
	if (rc == 0 && vn->ops && vn->ops->open && !(flags & O_PATH))
		rc = vn->ops->open(&vn, flags);
	if (rc == 0 && (flags & O_TRUNC) && !(flags & O_PATH) && !created &&
	    vn->type == VNODE_REG) {
		cred_write_kills_suid(vn);
		rc = vnode_truncate(vn, 0);
		if (rc == 0)
			fsnotify_change(vn, IN_MODIFY);
	}
	if (rc < 0) {
		if (f->write_access)
			vnode_put_write_access(vn);
		f->write_access = false;
		vnode_put(vn);
		return rc;
	}
	f->vn = vn;		// the file's reference now
	if (vn->type == VNODE_FIFO && !(flags & O_PATH) && (rc = fifo_open(f, vn)) < 0)
		return rc;
	// Modern Linux sends nothing for O_PATH descriptors (6.1 still did).
	if (!(flags & O_PATH)) {
		f->notify_opened = true;
		fsnotify_file(f, IN_OPEN);
	}
	return fd_install(current_fdtable(), f, 0, flags & O_CLOEXEC);
}

// O_TMPFILE: the path names a directory, where a file with no name is
// made and opened (tmpfs's, as Linux 6.1); linkat may name it later
// unless O_EXCL.
static long open_tmpfile(struct file *f, struct vnode *start, const char *path, int lflags,
			 uint32_t flags, uint32_t mode)
{
	struct vnode *dir, *vn;
	long rc = vfs_lookup_at(start, path, lflags | LOOKUP_FOLLOW, &dir);

	if (rc < 0)
		return rc;
	rc = vfs_tmpfile(dir, mode & ~current_umask() & 07777, !(flags & O_EXCL), &vn);
	vnode_put(dir);
	if (rc < 0)
		return rc;
	return open_found(f, vn, flags, true);
}

long open_vnode(struct vnode *vn, uint32_t flags)
{
	struct file *f;
	long rc;

	if (flags & O_PATH)
		flags &= O_PATH | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW;
	f = file_new_vnode(NULL, flags);
	rc = f ? fd_prepare(current_fdtable(), 0) : -ENOMEM;
	if (rc == 0)
		rc = open_found(f, vn, flags, false);
	else
		vnode_put(vn);
	if (f)
		file_put(f);
	return rc;
}
// 'resolve': openat2's LOOKUP_NO_SYMLINKS ... LOOKUP_IN_ROOT, for every
// walk of the path.
static long do_open_resolve(int dirfd, uint64_t upath, uint32_t flags, uint32_t mode,
			    int resolve)
{
	struct vnode *start = NULL, *vn = NULL;
	struct file *f = NULL, *object = NULL;
	bool created = false;
	char *path;
	long rc;

	// O_PATH keeps only these; Linux drops the rest (O_CREAT included).
	if (flags & O_PATH)
		flags &= O_PATH | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW;
	bool excl = (flags & O_CREAT) && (flags & O_EXCL);
	int lflags = ((flags & O_NOFOLLOW) || excl ? 0 : LOOKUP_FOLLOW) | resolve;

	// O_TMPFILE is O_DIRECTORY and a bit of its own, so that an old
	// kernel fails it; the bit needs the rest of it, write access and no
	// O_CREAT (EINVAL, as Linux's build_open_flags).
	bool tmpfile = flags & (O_TMPFILE & ~O_DIRECTORY);
	if (tmpfile && ((flags & (O_TMPFILE | O_CREAT)) != O_TMPFILE ||
			(flags & O_ACCMODE) == O_RDONLY))
		return -EINVAL;
	if (tmpfile)
		flags &= ~O_TMPFILE;	// the file it makes is no directory
	rc = user_path(upath, &path);
	if (rc < 0)
		return rc;
	// What open needs besides the file goes first, as on Linux: once
	// O_CREAT has made the file, nothing may fail for want of memory
	// or descriptors.
	f = file_new_vnode(NULL, flags);
	rc = f ? fd_prepare(current_fdtable(), 0) : -ENOMEM;
	if (rc < 0)
		goto out;
	// RESOLVE_IN_ROOT starts absolute paths at dirfd too (BENEATH
	// refuses them whatever dirfd is, as Linux).
	rc = at_start(dirfd, (resolve & LOOKUP_IN_ROOT) ? "." : path, &start);
	if (rc < 0)
		goto out;
	if (tmpfile) {
		rc = open_tmpfile(f, start, path, lflags, flags, mode);
		goto out;
	}
	rc = vfs_lookup_for_open(start, path, lflags, &vn, &object);
	if (rc == 0 && object) {
		rc = reopen_object(f, object, flags);
		file_put(object);
		goto out;
	}
	if (rc == 0 && excl) {
		vnode_put(vn);
		rc = -EEXIST;
		goto out;
	}
	if (rc == -ENOENT && (flags & O_CREAT)) {
		char name[NAME_MAX + 1];
		struct vnode *dir;
		bool trailing;

		rc = vfs_lookup_parent_flags(start, path, resolve, &dir, name, &trailing);
		if (rc < 0)
			goto out;
		if (trailing || name[0] == 0)
			rc = -EISDIR;
		else
			rc = vfs_create_or_open(dir, name, mode & ~current_umask() & 07777, excl, &vn,
						&created);
		vnode_put(dir);
		if (rc < 0)
			goto out;
		if (vn->type == VNODE_SYMLINK) {
			// A dangling symlink: Linux would create its target.
			vnode_put(vn);
			rc = -ENOENT;
			goto out;
		}
	}
	if (rc == 0)
		rc = open_found(f, vn, flags, created);
out:
	file_put(f);
	vnode_put(start);
	kfree(path);
	return rc;
}

static long do_open(int dirfd, uint64_t upath, uint32_t flags, uint32_t mode)
{
	return do_open_resolve(dirfd, upath, flags, mode, 0);
}

long file_open_user(uint64_t upath, uint32_t flags, struct file **out)
{
	struct fdtable *fdt = current_fdtable();
	long fd = do_open(AT_FDCWD, upath, flags | O_CLOEXEC, 0);

	if (fd < 0)
		return fd;
	*out = fd_get(fdt, (int)fd);
	fd_close(fdt, (int)fd);
	return *out ? 0 : -EBADF;
}

// ---- openat2 ----

struct open_how {
	uint64_t flags, mode, resolve;
};

#define OPEN_HOW_SIZE_VER0	24
#define RESOLVE_NO_XDEV		0x01
#define RESOLVE_NO_MAGICLINKS	0x02
#define RESOLVE_NO_SYMLINKS	0x04
#define RESOLVE_BENEATH		0x08
#define RESOLVE_IN_ROOT		0x10
#define RESOLVE_CACHED		0x20
#define VALID_RESOLVE_FLAGS	0x3f
// Linux's VALID_OPEN_FLAGS (O_SYNC includes O_DSYNC; O_NDELAY is O_NONBLOCK).
#define VALID_OPEN_FLAGS	(O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | \
				 O_NONBLOCK | O_SYNC | O_ASYNC | O_DIRECT | O_LARGEFILE | \
				 O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC | O_PATH | \
				 O_TMPFILE)
#define O_PATH_FLAGS		(O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CLOEXEC)

// Linux's copy_struct_from_user (at most a page, checked by the caller):
// a shorter struct is zero-extended, a
// longer one must be zero beyond ours (E2BIG; EFAULT if unreadable).
static long copy_open_how(uint64_t uhow, uint64_t usize, struct open_how *how)
{
	memset(how, 0, sizeof(*how));
	for (uint64_t off = sizeof(*how); off < usize;) {
		uint8_t chunk[64];
		uint64_t n = usize - off < sizeof(chunk) ? usize - off : sizeof(chunk);

		if (copy_from_user(chunk, uhow + off, n) < 0)
			return -EFAULT;
		for (uint64_t i = 0; i < n; i++)
			if (chunk[i])
				return -E2BIG;
		off += n;
	}
	if (copy_from_user(how, uhow, usize < sizeof(*how) ? usize : sizeof(*how)) < 0)
		return -EFAULT;
	return 0;
}

// Linux's build_open_flags, check by check: openat2 refuses what openat
// silently drops.
static long open_how_check(const struct open_how *how, int *resolve)
{
	uint64_t flags = how->flags & ~(uint64_t)O_CLOEXEC;
	bool creates = flags & (O_CREAT | O_TMPFILE);

	if (flags & ~(uint64_t)VALID_OPEN_FLAGS)
		return -EINVAL;
	if (how->resolve & ~(uint64_t)VALID_RESOLVE_FLAGS)
		return -EINVAL;
	if ((how->resolve & RESOLVE_BENEATH) && (how->resolve & RESOLVE_IN_ROOT))
		return -EINVAL;
	if (creates ? (how->mode & ~07777ULL) != 0 : how->mode != 0)
		return -EINVAL;
	if ((flags & (O_DIRECTORY | O_CREAT)) == (O_DIRECTORY | O_CREAT))
		return -EINVAL;
	if ((flags & O_TMPFILE) == O_TMPFILE && (flags & O_ACCMODE) == O_RDONLY)
		return -EINVAL;		// O_TMPFILE needs write access
	if ((flags & O_PATH) && (flags & ~(uint64_t)O_PATH_FLAGS))
		return -EINVAL;
	// Everything here is in memory, always "cached"; but creating or
	// truncating is never tried under RESOLVE_CACHED, as Linux.
	if ((how->resolve & RESOLVE_CACHED) && (flags & (O_TRUNC | O_CREAT | O_TMPFILE)))
		return -EAGAIN;
	*resolve = (how->resolve & RESOLVE_NO_SYMLINKS ? LOOKUP_NO_SYMLINKS : 0) |
		   (how->resolve & RESOLVE_NO_MAGICLINKS ? LOOKUP_NO_MAGICLINKS : 0) |
		   (how->resolve & RESOLVE_BENEATH ? LOOKUP_BENEATH : 0) |
		   (how->resolve & RESOLVE_IN_ROOT ? LOOKUP_IN_ROOT : 0);
	// RESOLVE_NO_XDEV: the tree is one file system (one st_dev, one
	// line in /proc/mounts), so no walk through it crosses a mount.
	return 0;
}

SYSCALL_DEFINE(SYS_openat2, openat2)
{
	uint64_t usize = args->a[3];
	struct open_how how;
	int resolve = 0;
	long rc;

	if (usize < OPEN_HOW_SIZE_VER0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	rc = copy_open_how(args->a[2], usize, &how);
	if (rc == 0)
		rc = open_how_check(&how, &resolve);
	if (rc < 0)
		return rc;
	return do_open_resolve((int)args->a[0], args->a[1], (uint32_t)how.flags,
			       (uint32_t)how.mode, resolve);
}

SYSCALL_DEFINE(SYS_open, open)
{
	return do_open(AT_FDCWD, args->a[0], (uint32_t)args->a[1], (uint32_t)args->a[2]);
}

SYSCALL_DEFINE(SYS_openat, openat)
{
	return do_open((int)args->a[0], args->a[1], (uint32_t)args->a[2], (uint32_t)args->a[3]);
}

SYSCALL_DEFINE(SYS_creat, creat)
{
	return do_open(AT_FDCWD, args->a[0], O_CREAT | O_WRONLY | O_TRUNC, (uint32_t)args->a[1]);
}

SYSCALL_DEFINE(SYS_close, close)
{
	return fd_close(current_fdtable(), (int)args->a[0]);
}

// ---- offsets ----

static long do_lseek(int fd, int64_t off, int whence)
{
	struct file *f = fget(fd);
	int64_t base, result;
	uint64_t flags;
	long rc;

	if (!f)
		return -EBADF;
	if (f->pipe || (f->vn->ops && f->vn->ops->stream)) {
		file_put(f);
		return -ESPIPE;
	}
	if (f->vn->type == VNODE_CHR || f->vn->type == VNODE_ANON) {
		file_put(f);
		return 0;		// devices and anonymous files have no position
	}
	flags = spin_lock_irqsave(&f->vn->lock);
	int64_t size = (int64_t)f->vn->size;
	spin_unlock_irqrestore(&f->vn->lock, flags);
	file_pos_lock(f);
	switch (whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = (int64_t)f->off;
		break;
	case SEEK_END:
		base = size;
		break;
	case SEEK_DATA:
	case SEEK_HOLE:
		// A regular file's pages are its data, what it lacks its holes;
		// anything else is data to its end.
		base = 0;
		if (off < 0 || off >= size) {	// ENXIO both, as shmem_file_llseek
			file_pos_unlock(f);
			file_put(f);
			return -ENXIO;
		}
		if (f->vn->type == VNODE_REG)
			off = vnode_seek_data(f->vn, (uint64_t)off, whence == SEEK_HOLE);
		else if (whence == SEEK_HOLE)
			off = size;
		if (off < 0) {
			file_pos_unlock(f);
			file_put(f);
			return off;
		}
		break;
	default:
		file_pos_unlock(f);
		file_put(f);
		return -EINVAL;
	}
	if (__builtin_add_overflow(base, off, &result) || result < 0) {
		rc = -EINVAL;
	} else {
		f->off = (uint64_t)result;
		rc = result;
	}
	file_pos_unlock(f);
	file_put(f);
	return rc;
}

SYSCALL_DEFINE(SYS_lseek, lseek)
{
	return do_lseek((int)args->a[0], (int64_t)args->a[1], (int)args->a[2]);
}

#ifdef SYS__llseek
// _llseek(fd, offset_high, offset_low, loff_t *result, whence): the
// 32-bit form, which Linux keeps on ppc64 too (and glibc uses there).
SYSCALL_DEFINE(SYS__llseek, llseek)
{
	int64_t off = (int64_t)((args->a[1] & 0xffffffffUL) << 32 | (args->a[2] & 0xffffffffUL));
	long r = do_lseek((int)args->a[0], off, (int)args->a[4]);

	if (r < 0)
		return r;
	return put_user_u64(args->a[3], (uint64_t)r) < 0 ? -EFAULT : 0;
}
#endif

// ---- sizes ----

SYSCALL_DEFINE(SYS_truncate, truncate)
{
	int64_t len = (int64_t)args->a[1];
	struct vnode *vn;
	int rc;

	rc = lookup_user_at(AT_FDCWD, args->a[0], LOOKUP_FOLLOW, &vn);
	if (rc < 0)
		return rc;
	if (len < 0)
		rc = -EINVAL;
	else if (vn->type == VNODE_DIR)
		rc = -EISDIR;
	else if ((rc = vnode_may(vn, MAY_WRITE)) == 0 &&
		 (rc = vnode_get_write_access(vn)) == 0) {	// ETXTBSY for a running program
		rc = file_size_may_grow(vn, (uint64_t)len);
		if (rc == 0) {
			cred_write_kills_suid(vn);
			rc = vnode_truncate(vn, (uint64_t)len);
		}
		if (rc == 0)
			fsnotify_change(vn, IN_MODIFY);
		vnode_put_write_access(vn);
	}
	vnode_put(vn);
	return rc;
}

SYSCALL_DEFINE(SYS_ftruncate, ftruncate)
{
	struct file *f = fget((int)args->a[0]);
	int64_t len = (int64_t)args->a[1];
	int rc;

	if (!f)
		return -EBADF;
	if (len < 0 || f->pipe || !file_writable(f) || f->vn->type != VNODE_REG)
		rc = -EINVAL;
	else if ((rc = file_size_may_grow(f->vn, (uint64_t)len)) == 0) {
		cred_write_kills_suid(f->vn);
		rc = vnode_truncate(f->vn, (uint64_t)len);
		if (rc == 0)
			fsnotify_change(f->vn, IN_MODIFY);
	}
	file_put(f);
	return rc;
}

#define FALLOC_FL_KEEP_SIZE	0x01
#define FALLOC_FL_PUNCH_HOLE	0x02
#define FALLOC_FL_COLLAPSE_RANGE 0x08
#define FALLOC_FL_ZERO_RANGE	0x10
#define FALLOC_FL_INSERT_RANGE	0x20
#define FALLOC_FL_UNSHARE_RANGE	0x40
#define FALLOC_FL_SUPPORTED	0x7b

// fallocate as Linux's vfs_fallocate checks it, then as tmpfs does it:
// allocation (with FALLOC_FL_KEEP_SIZE, past the end without moving it)
// and FALLOC_FL_PUNCH_HOLE (with KEEP_SIZE: the pages go, from every
// mapping too); tmpfs's other modes are EOPNOTSUPP.
SYSCALL_DEFINE(SYS_fallocate, fallocate)
{
	struct file *f = fget((int)args->a[0]);
	int mode = (int)args->a[1];
	int64_t off = (int64_t)args->a[2], len = (int64_t)args->a[3], end;
	int rc = 0;

	if (!f)
		return -EBADF;
	if (off < 0 || len <= 0)
		rc = -EINVAL;
	else if (mode & ~FALLOC_FL_SUPPORTED)
		rc = -EOPNOTSUPP;
	else if ((mode & FALLOC_FL_PUNCH_HOLE) && (mode & FALLOC_FL_ZERO_RANGE))
		rc = -EOPNOTSUPP;
	else if ((mode & FALLOC_FL_PUNCH_HOLE) && !(mode & FALLOC_FL_KEEP_SIZE))
		rc = -EOPNOTSUPP;
	else if (((mode & FALLOC_FL_COLLAPSE_RANGE) && (mode & ~FALLOC_FL_COLLAPSE_RANGE)) ||
		 ((mode & FALLOC_FL_INSERT_RANGE) && (mode & ~FALLOC_FL_INSERT_RANGE)) ||
		 ((mode & FALLOC_FL_UNSHARE_RANGE) &&
		  (mode & ~(FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_KEEP_SIZE))))
		rc = -EINVAL;
	else if (!file_writable(f))
		rc = -EBADF;
	else if (f->pipe)
		rc = -ESPIPE;
	else if (f->vn->type == VNODE_DIR)
		rc = -EISDIR;
	else if (f->vn->type != VNODE_REG)
		rc = -ENODEV;
	else if (__builtin_add_overflow(off, len, &end))
		rc = -EFBIG;
	else if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE))
		rc = -EOPNOTSUPP;	// tmpfs's shmem_fallocate
	else if (mode & FALLOC_FL_PUNCH_HOLE)
		rc = vnode_punch(f->vn, (uint64_t)off, (uint64_t)len);
	else if (mode & FALLOC_FL_KEEP_SIZE ||
		 (rc = file_size_may_grow(f->vn, (uint64_t)end)) == 0)
		rc = vnode_allocate(f->vn, (uint64_t)off, (uint64_t)len, mode & FALLOC_FL_KEEP_SIZE);
	if (rc == 0)
		fsnotify_file(f, IN_MODIFY);
	file_put(f);
	return rc;
}

// ---- sendfile ----

SYSCALL_DEFINE(SYS_sendfile, sendfile)
{
	struct file *out = fget((int)args->a[0]);
	struct file *in = fget((int)args->a[1]);
	uint64_t uoff = args->a[2], off = 0;
	size_t count = args->a[3], done = 0;
	char *buf = NULL;
	long rc = 0;

	// As Linux's sendfile64: the offset is read before anything else and
	// written back after everything, and a fault there is the answer.
	if (uoff && get_user_u64(&off, uoff) < 0) {
		rc = -EFAULT;
		goto out;
	}
	if (!out || !in) {
		rc = -EBADF;
		goto written_back;
	}
	if (!file_readable(in) || !file_writable(out)) {
		rc = -EBADF;
		goto written_back;
	}
	if (uoff && (int64_t)off < 0) {
		rc = -EINVAL;
		goto written_back;
	}
	if (uoff && !file_can_pread(in)) {
		rc = -ESPIPE;
		goto written_back;
	}
	// Linux splices only from regular files (splice_direct_to_actor): a
	// socket is no input.
	if (sock_of_file(in)) {
		rc = -EINVAL;
		goto written_back;
	}
	buf = kmalloc(PAGE_CHUNK);
	if (!buf) {
		rc = -ENOMEM;
		goto written_back;
	}
	if (count > MAX_RW_COUNT)
		count = MAX_RW_COUNT;
	while (done < count) {
		size_t want = count - done < PAGE_CHUNK ? count - done : PAGE_CHUNK;
		struct iobuf kb = iobuf_kernel(buf);
		long got, put;

		got = uoff ? file_pread(in, &kb, want, off + done) : file_read(in, &kb, want);
		if (got <= 0) {
			rc = got;
			break;
		}
		kb = iobuf_kernel(buf);
		put = file_write(out, &kb, (size_t)got);
		if (put < 0) {
			rc = put;
			break;
		}
		done += (size_t)put;
		if (put < got || (size_t)got < want)
			break;
	}
written_back:
	if (uoff && put_user_u64(uoff, off + done) < 0) {
		done = 0;
		rc = -EFAULT;
	}
out:
	kfree(buf);
	if (out)
		file_put(out);
	if (in)
		file_put(in);
	return done ? (long)done : rc;
}

// ---- copy_file_range ----

// The checks of Linux 6.1's generic_copy_file_checks, in its order.
static long copy_range_checks(struct file *in, struct file *out, uint64_t pos_in, uint64_t pos_out,
			      uint64_t len)
{
	if (!file_readable(in) || !file_writable(out) || (out->flags & O_APPEND))
		return -EBADF;
	if ((in->vn && in->vn->type == VNODE_DIR) || (out->vn && out->vn->type == VNODE_DIR))
		return -EISDIR;
	if (!in->vn || !out->vn || in->vn->type != VNODE_REG || out->vn->type != VNODE_REG)
		return -EINVAL;
	if ((int64_t)pos_in < 0 || (int64_t)pos_out < 0 || pos_in + len < pos_in ||
	    pos_out + len < pos_out)
		return -EINVAL;
	// The same file, overlapping ranges.
	if (in->vn == out->vn && pos_in < pos_out + len && pos_out < pos_in + len)
		return -EINVAL;
	return 0;
}

// copy_file_range(2): bytes from one regular file to another, through
// the kernel, at the given offsets (updated) or the file positions.
SYSCALL_DEFINE(SYS_copy_file_range, copy_file_range)
{
	uint64_t uoff_in = args->a[1], uoff_out = args->a[3], len = args->a[4];
	struct file *in = NULL, *out = NULL;
	uint64_t pos_in, pos_out, done = 0;
	char *buf = NULL;
	long rc;

	if (args->a[5])
		return -EINVAL;			// no flags exist
	in = fget((int)args->a[0]);
	out = fget((int)args->a[2]);
	rc = in && out ? 0 : -EBADF;
	if (rc == 0 && uoff_in && get_user_u64(&pos_in, uoff_in) < 0)
		rc = -EFAULT;
	if (rc == 0 && uoff_out && get_user_u64(&pos_out, uoff_out) < 0)
		rc = -EFAULT;
	if (rc == 0) {
		if (!uoff_in)
			pos_in = in->off;
		if (!uoff_out)
			pos_out = out->off;
		if (len > MAX_RW_COUNT)
			len = MAX_RW_COUNT;
		rc = copy_range_checks(in, out, pos_in, pos_out, len);
	}
	if (rc == 0 && len && !(buf = kmalloc(PAGE_CHUNK)))
		rc = -ENOMEM;
	while (rc == 0 && done < len) {
		size_t want = len - done < PAGE_CHUNK ? len - done : PAGE_CHUNK;
		struct iobuf kb = iobuf_kernel(buf);
		long got = file_pread(in, &kb, want, pos_in + done), put;

		if (got <= 0) {
			rc = got;
			break;
		}
		kb = iobuf_kernel(buf);
		put = file_pwrite(out, &kb, (size_t)got, pos_out + done);
		if (put < 0) {
			rc = put;
			break;
		}
		done += (uint64_t)put;
		if (put < got || (size_t)got < want)
			break;
	}
	// The offsets given, or the file positions, move past what was copied.
	if (done) {
		rc = 0;
		if (!uoff_in)
			in->off = pos_in + done;
		else if (put_user_u64(uoff_in, pos_in + done) < 0)
			rc = -EFAULT;
		if (!uoff_out)
			out->off = pos_out + done;
		else if (put_user_u64(uoff_out, pos_out + done) < 0)
			rc = -EFAULT;
	}
	kfree(buf);
	if (in)
		file_put(in);
	if (out)
		file_put(out);
	return done && rc == 0 ? (long)done : rc;
}

// ---- nothing to flush: everything lives in memory ----

// readahead(2): every page of a file is in memory already.  Linux's
// errnos: a bad descriptor or one not open for reading EBADF, a file
// that is not regular (no page cache) EINVAL.
SYSCALL_DEFINE(SYS_readahead, readahead)
{
	struct file *f = fget((int)args->a[0]);
	long rc = 0;

	if (!f || !file_readable(f))
		rc = -EBADF;
	else if (!f->vn || f->vn->type != VNODE_REG)
		rc = -EINVAL;
	if (f)
		file_put(f);
	return rc;
}

#define SYNC_FILE_RANGE_WAIT_BEFORE	1
#define SYNC_FILE_RANGE_WRITE		2
#define SYNC_FILE_RANGE_WAIT_AFTER	4

// sync_file_range(2): nothing to write back; the arguments are checked as
// Linux checks them (ksys_sync_file_range).
static long sync_file_range_args(int fd, int64_t off, int64_t nbytes, unsigned flags)
{
	struct file *f;

	if (flags & ~(unsigned)(SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				SYNC_FILE_RANGE_WAIT_AFTER))
		return -EINVAL;
	if (off < 0 || nbytes < 0 || off + nbytes < off)
		return -EINVAL;
	f = fget(fd);
	if (!f)
		return -EBADF;
	long rc = f->vn && (f->vn->type == VNODE_REG || f->vn->type == VNODE_DIR) ? 0 : -ESPIPE;
	file_put(f);
	return rc;
}

// x86-64 has sync_file_range(fd, offset, nbytes, flags); ppc64 has only
// sync_file_range2(fd, flags, offset, nbytes), whose 64-bit arguments
// fall on register pairs in 32-bit mode.
#ifdef SYS_sync_file_range
SYSCALL_DEFINE(SYS_sync_file_range, sync_file_range)
{
	return sync_file_range_args((int)args->a[0], (int64_t)args->a[1], (int64_t)args->a[2],
				    (unsigned)args->a[3]);
}
#endif

#ifdef SYS_sync_file_range2
SYSCALL_DEFINE(SYS_sync_file_range2, sync_file_range2)
{
	return sync_file_range_args((int)args->a[0], (int64_t)args->a[2], (int64_t)args->a[3],
				    (unsigned)args->a[1]);
}
#endif

static long fd_must_exist(int fd)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	file_put(f);
	return 0;
}

// fsync and fdatasync: a file or directory is always as good as on disk;
// pipes and devices have no fsync method on Linux (EINVAL).
static long fd_sync(int fd)
{
	struct file *f = fget(fd);
	long rc = 0;

	if (!f)
		return -EBADF;
	if (!f->vn || (f->vn->type != VNODE_REG && f->vn->type != VNODE_DIR))
		rc = -EINVAL;
	file_put(f);
	return rc;
}

SYSCALL_DEFINE(SYS_fsync, fsync)
{
	return fd_sync((int)args->a[0]);
}

SYSCALL_DEFINE(SYS_fdatasync, fdatasync)
{
	return fd_sync((int)args->a[0]);
}

SYSCALL_DEFINE(SYS_syncfs, syncfs)
{
	return fd_must_exist((int)args->a[0]);
}

SYSCALL_DEFINE(SYS_sync, sync)
{
	(void)args;
	return 0;
}

SYSCALL_DEFINE(SYS_fadvise64, fadvise64)
{
	struct file *f = fget((int)args->a[0]);
	int64_t len = (int64_t)args->a[2];
	int advice = (int)args->a[3];
	long rc = 0;

	// Every advice is only a hint about caching: with all files in
	// memory, following it changes nothing a program can see.
	if (!f)
		return -EBADF;
	if (f->pipe)
		rc = -ESPIPE;
	else if (len < 0 || advice < 0 || advice > 5)
		rc = -EINVAL;
	file_put(f);
	return rc;
}
