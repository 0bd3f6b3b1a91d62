// The descriptor table calls: dup, dup2, dup3, fcntl, close_range.

#include <fs/fs_syscall.h>
#include <fs/fcntl.h>
#include <fs/pipe.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <uapi/errno.h>

SYSCALL_DEFINE(SYS_dup, dup)
{
	struct file *f = fget((int)args->a[0]);
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
		struct file *f = fget(oldfd);

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

// struct flock of x86-64: only l_type is touched (F_GETLK says "unlocked").
#define F_UNLCK 2

static long fcntl_file(struct file *f, int fd, int cmd, uint64_t arg)
{
	struct fdtable *fdt = current_fdtable();
	uint64_t flags;
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
		return f->flags | (f->pipe ? 0 : O_LARGEFILE);
	case F_SETFL:
		flags = spin_lock_irqsave(&f->lock);
		f->flags = (f->flags & ~O_SETFL_MASK) | ((uint32_t)arg & O_SETFL_MASK);
		spin_unlock_irqrestore(&f->lock, flags);
		return 0;
	case F_GETLK: {
		int16_t type = F_UNLCK;
		return copy_to_user(arg, &type, sizeof(type));
	}
	case F_SETLK:
	case F_SETLKW:
		return 0;		// one machine, no contention worth modelling
	case F_GETOWN:
	case F_SETOWN:
		return 0;
	case F_GETPIPE_SZ:
		return f->pipe ? PIPE_SIZE : -EBADF;
	case F_SETPIPE_SZ:
		return f->pipe ? PIPE_SIZE : -EBADF;
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE(SYS_fcntl, fcntl)
{
	int fd = (int)args->a[0];
	struct file *f = fget(fd);
	long rc;

	if (!f)
		return -EBADF;
	rc = fcntl_file(f, fd, (int)args->a[1], args->a[2]);
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
	if (last >= FD_LIMIT)
		last = FD_LIMIT - 1;
	for (unsigned fd = first; fd <= last; fd++) {
		if (flags & CLOSE_RANGE_CLOEXEC)
			fd_set_cloexec(fdt, (int)fd, true);
		else
			fd_close(fdt, (int)fd);
	}
	return 0;
}
