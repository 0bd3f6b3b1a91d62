// ioctl: the requests every descriptor understands, then the device's own
// (the console's terminal requests); ENOTTY for everything else.

#include <fs/sigio.h>
#include <fs/fs_syscall.h>
#include <fs/fcntl.h>
#include <fs/pipe.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <uapi/errno.h>
#include <uapi/termios.h>
#include <kernel/tty.h>


static long ioctl_file(struct file *f, int fd, unsigned cmd, uint64_t arg)
{
	uint64_t flags;
	uint32_t v;

	switch (cmd) {
	case FIONBIO:
		if (get_user_u32(&v, arg) < 0)
			return -EFAULT;
		flags = spin_lock_irqsave(&f->lock);
		if (v)
			f->flags |= O_NONBLOCK;
		else
			f->flags &= ~O_NONBLOCK;
		spin_unlock_irqrestore(&f->lock, flags);
		return 0;
	case FIOCLEX:
		return fd_set_cloexec(current_fdtable(), fd, true);
	case FIONCLEX:
		return fd_set_cloexec(current_fdtable(), fd, false);
	case FIOASYNC:
		// Linux's ioctl_fioasync: a change of the flag needs a file
		// with a fasync method (ENOTTY elsewhere), which then signals
		// its owner (fs/sigio.h).
		if (get_user_u32(&v, arg) < 0)
			return -EFAULT;
		if (!(v != 0) == !(f->flags & O_ASYNC))
			return 0;
		if (!file_has_fasync(f))
			return -ENOTTY;
		return fasync_set(f, fd, v != 0);
	}
	if (f->pipe) {
		if (cmd == FIONREAD)
			return put_user_u32(arg, (uint32_t)pipe_bytes_ready(f));
		return -ENOTTY;
	}
	if (f->hung_up)
		return cmd == TIOCSPGRP ? -ENOTTY : -EIO;	// as Linux's hung-up terminal
	if (f->vn->ops && f->vn->ops->ioctl)
		return f->vn->ops->ioctl(f->vn, f, cmd, arg);
	if (cmd == FIONREAD && f->vn->type == VNODE_REG) {
		uint64_t size = f->vn->size, off = f->off;
		return put_user_u32(arg, size > off ? (uint32_t)(size - off) : 0);
	}
	return -ENOTTY;
}

SYSCALL_DEFINE(SYS_ioctl, ioctl)
{
	int fd = (int)args->a[0];
	struct file *f = fget(fd);
	long rc;

	if (!f)
		return -EBADF;
	rc = ioctl_file(f, fd, (unsigned)args->a[1], args->a[2]);
	file_put(f);
	return rc;
}
