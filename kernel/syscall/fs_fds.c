// The descriptor table calls: dup, dup2, dup3, fcntl, close_range.

#include <fs/sigio.h>
#include <fs/fs_syscall.h>
#include <fs/fcntl.h>
#include <fs/pipe.h>
#include <fs/locks.h>
#include <kernel/syscall.h>
#include <kernel/cred.h>
#include <kernel/uaccess.h>
#include <uapi/errno.h>

SYSCALL_DEFINE(SYS_dup, dup)
{
	struct file *f = fget_raw((int)args->a[0]);
	int fd;

	if (!f)
		return -EBADF;
	fd = fd_install(current_fdtable(), f, 0, false);
	file_put(f);
	return fd;
}

SYSCALL_DEFINE(SYS_dup2, dup2)
{
	int oldfd = (int)args->a[0], newfd = (int)args->a[1];

	if (oldfd == newfd) {
		struct file *f = fget_raw(oldfd);

		if (!f)
			return -EBADF;
		file_put(f);
		return newfd;
	}
	return fd_dup_to(current_fdtable(), oldfd, newfd, false);
}

SYSCALL_DEFINE(SYS_dup3, dup3)
{
	int oldfd = (int)args->a[0], newfd = (int)args->a[1];
	int flags = (int)args->a[2];

	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	if (oldfd == newfd)
		return -EINVAL;
	return fd_dup_to(current_fdtable(), oldfd, newfd, flags & O_CLOEXEC);
}


// F_SETFL.  O_DIRECT on a pipe's write end makes its writes packets
// (kernel/fs/pipe.c), as Linux's; O_ASYNC stays only where Linux keeps it:
// on files with a fasync method, which then signal their owner
// (fs/sigio.h).
static long fcntl_setfl(struct file *f, int fd, uint32_t arg)
{
	uint32_t want = arg & O_SETFL_MASK;
	uint64_t flags;

	// Only pipes and FIFOs take O_DIRECT: no other file here does direct
	// I/O (Linux 6.1's setfl: EINVAL without FMODE_CAN_ODIRECT, which
	// tmpfs, ramfs, devices, sockets and anonymous files lack).
	if (!f->pipe && (want & O_DIRECT))
		return -EINVAL;
	// Setting or clearing O_NOATIME: only the owner (or CAP_FOWNER), as
	// open.  A pipe belongs to whoever holds it here.
	if (((want ^ f->flags) & O_NOATIME) && f->vn && !vnode_owned(f->vn))
		return -EPERM;
	if (((want ^ f->flags) & O_ASYNC) && file_has_fasync(f)) {
		int rc = fasync_set(f, fd, want & O_ASYNC);

		if (rc < 0)
			return rc;
	}
	flags = spin_lock_irqsave(&f->lock);
	want = (want & ~O_ASYNC) | (f->flags & O_ASYNC);	// fasync_set's to change
	f->flags = (f->flags & ~O_SETFL_MASK) | want;
	spin_unlock_irqrestore(&f->lock, flags);
	return 0;
}

static long fcntl_file(struct file *f, int fd, int cmd, uint64_t arg)
{
	struct fdtable *fdt = current_fdtable();
	int rc;

	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		if ((int64_t)(int)arg < 0 || (int)arg >= fd_limit())
			return -EINVAL;
		return fd_install(fdt, f, (int)arg, cmd == F_DUPFD_CLOEXEC);
	case F_GETFD:
		rc = fd_get_cloexec(fdt, fd);
		return rc < 0 ? rc : (rc ? FD_CLOEXEC : 0);
	case F_SETFD:
		return fd_set_cloexec(fdt, fd, arg & FD_CLOEXEC);
	case F_GETFL:
		// Pipes and anonymous files are not opened by open(2), which
		// alone adds O_LARGEFILE on 64-bit Linux.
		return f->flags | (f->pipe || f->vn->type == VNODE_ANON || f->vn->type == VNODE_SOCK
				   ? 0 : O_LARGEFILE);
	case F_SETFL:
		return fcntl_setfl(f, fd, (uint32_t)arg);
	case F_GETLK:
	case F_SETLK:
	case F_SETLKW:
	case F_OFD_GETLK:
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
		return locks_fcntl(f, fdt, cmd, arg);
	case F_GETLEASE:
		return F_UNLCK;		// never a lease
	case F_GETOWN:
	case F_SETOWN:
	case F_GETOWN_EX:
	case F_SETOWN_EX:
	case F_GETSIG:
	case F_SETSIG:
		return sigio_fcntl(f, cmd, arg);
	case F_ADD_SEALS:
	case F_GET_SEALS:
		return memfd_fcntl_seals(f, cmd, arg);
	case F_GETPIPE_SZ:
		return f->pipe ? (long)pipe_size(f) : -EBADF;
	case F_SETPIPE_SZ:
		return f->pipe ? pipe_set_size(f, arg) : -EBADF;
	default:
		// Among others F_SETLEASE, F_NOTIFY and write hints.
		return -EINVAL;
	}
}

SYSCALL_DEFINE(SYS_flock, flock)
{
	struct file *f = fget((int)args->a[0]);	// not an O_PATH descriptor
	long rc;

	if (!f)
		return -EBADF;
	rc = locks_flock(f, (int)args->a[1]);
	file_put(f);
	return rc;
}

SYSCALL_DEFINE(SYS_fcntl, fcntl)
{
	int fd = (int)args->a[0], cmd = (int)args->a[1];
	struct file *f = fget_raw(fd);
	long rc;

	if (!f)
		return -EBADF;
	// An O_PATH descriptor takes only the descriptor commands, as on Linux.
	if ((f->flags & O_PATH) && cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC && cmd != F_GETFD &&
	    cmd != F_SETFD && cmd != F_GETFL)
		rc = -EBADF;
	else
		rc = fcntl_file(f, fd, cmd, args->a[2]);
	file_put(f);
	return rc;
}

#define CLOSE_RANGE_CLOEXEC (1U << 2)

SYSCALL_DEFINE(SYS_close_range, close_range)
{
	unsigned first = (unsigned)args->a[0], last = (unsigned)args->a[1];
	unsigned flags = (unsigned)args->a[2];
	struct fdtable *fdt = current_fdtable();

	if (flags & ~CLOSE_RANGE_CLOEXEC)
		return -EINVAL;
	if (first > last)
		return -EINVAL;
	// Nothing is open past the table's end (it only grows meanwhile,
	// with descriptors opened after the call began).
	unsigned size = (unsigned)__atomic_load_n(&fdt->size, __ATOMIC_RELAXED);
	if (last >= size)
		last = size - 1;
	for (unsigned fd = first; fd <= last; fd++) {
		if (flags & CLOSE_RANGE_CLOEXEC)
			fd_set_cloexec(fdt, (int)fd, true);
		else
			fd_close(fdt, (int)fd);
	}
	return 0;
}
