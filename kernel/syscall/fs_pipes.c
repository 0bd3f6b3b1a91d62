// pipe and pipe2.

#include <fs/fs_syscall.h>
#include <fs/fcntl.h>
#include <fs/pipe.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <uapi/errno.h>

static long do_pipe(uint64_t ufds, int flags)
{
	struct fdtable *fdt = current_fdtable();
	struct file *rd, *wr;
	int fds[2];
	long rc;

	// O_DIRECT: packet mode (kernel/fs/pipe.c).  O_NOTIFICATION_PIPE
	// (watch queues) is refused as a kernel without them refuses it.
	if (flags & ~(O_CLOEXEC | O_NONBLOCK | O_DIRECT))
		return -EINVAL;
	if (!user_range_ok(ufds, sizeof(fds)))
		return -EFAULT;
	rc = pipe_create(&rd, &wr, flags);
	if (rc < 0)
		return rc;
	fds[0] = fd_install(fdt, rd, 0, flags & O_CLOEXEC);
	fds[1] = fds[0] < 0 ? -1 : fd_install(fdt, wr, 0, flags & O_CLOEXEC);
	file_put(rd);
	file_put(wr);
	if (fds[1] < 0) {
		if (fds[0] >= 0)
			fd_close(fdt, fds[0]);
		return -EMFILE;
	}
	if (copy_to_user(ufds, fds, sizeof(fds)) < 0) {
		// Nothing may be left behind by a failed call.
		fd_close(fdt, fds[0]);
		fd_close(fdt, fds[1]);
		return -EFAULT;
	}
	return 0;
}

SYSCALL_DEFINE(SYS_pipe, pipe)
{
	return do_pipe(args->a[0], 0);
}

SYSCALL_DEFINE(SYS_pipe2, pipe2)
{
	return do_pipe(args->a[0], (int)args->a[1]);
}
