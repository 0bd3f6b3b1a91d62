// pidfds (kernel/pidfd.h): pidfd_open, pidfd_getfd and the pidfd file
// itself.  pidfd_send_signal is with the other senders (signal.c),
// waitid(P_PIDFD) with waitid (exit.c), CLONE_PIDFD with clone.

#include <kernel/pidfd.h>
#include <kernel/cred.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/syscall.h>
#include <fs/anon.h>
#include <fs/fcntl.h>
#include <fs/file.h>
#include <fs/fs_syscall.h>
#include <fs/poll.h>
#include <lib/printf.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define PIDFD_NONBLOCK	O_NONBLOCK

struct pidfd {
	int pid;
	uint64_t start_ns;	// tells this process from a later one with its PID
};

static const struct vnode_ops pidfd_ops;

static struct process *named_locked(const struct pidfd *pf)
{
	struct process *p = process_find(pf->pid);

	return p && p->start_ns == pf->start_ns ? p : NULL;
}

// Readable (POLLIN | POLLRDNORM) once the process has exited: a zombie,
// or reaped.
static int pidfd_poll(struct vnode *vn)
{
	uint64_t irq = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = named_locked(vn->priv);
	bool exited = !p || p->zombie;

	spin_unlock_irqrestore(&proc_tree_lock, irq);
	return exited ? POLLIN | POLLRDNORM : 0;
}

// fdinfo: "Pid:" and "NSpid:", -1 once the process is gone, as Linux.
static void pidfd_fdinfo(struct vnode *vn, char *buf, size_t size)
{
	const struct pidfd *pf = vn->priv;
	uint64_t irq = spin_lock_irqsave(&proc_tree_lock);
	int pid = named_locked(pf) ? pf->pid : -1;

	spin_unlock_irqrestore(&proc_tree_lock, irq);
	ksnprintf(buf, size, "Pid:\t%d\nNSpid:\t%d\n", pid, pid);
}

static void pidfd_release(struct vnode *vn)
{
	kfree(vn->priv);
	vn->priv = NULL;
}

static const struct vnode_ops pidfd_ops = {
	.poll = pidfd_poll,
	.open = anon_open,
	.release = pidfd_release,
	.anon_name = "pidfd",
	.fdinfo = pidfd_fdinfo,
};

int pidfd_create(int pid, uint64_t start_ns, unsigned flags)
{
	struct pidfd *pf = kmalloc(sizeof(*pf));
	struct file *f;

	if (!pf)
		return -ENOMEM;
	pf->pid = pid;
	pf->start_ns = start_ns;
	f = anon_file_new(&pidfd_ops, pf, flags & PIDFD_NONBLOCK);
	if (!f) {
		kfree(pf);
		return -ENOMEM;
	}
	return anon_install(f, O_CLOEXEC);
}

bool file_is_pidfd(const struct file *f)
{
	return anon_priv(f, &pidfd_ops) != NULL;
}

struct process *pidfd_process_locked(const struct file *f)
{
	const struct pidfd *pf = anon_priv(f, &pidfd_ops);

	return pf ? named_locked(pf) : NULL;
}

int pidfd_pid(const struct file *f)
{
	const struct pidfd *pf = anon_priv(f, &pidfd_ops);

	return pf ? pf->pid : 0;
}

int pidfd_wait_target(int fd, int *pid, bool *nonblocking)
{
	struct file *f = fget(fd);
	uint64_t irq;
	int rc = 0;

	if (!f)
		return -EBADF;
	if (!file_is_pidfd(f)) {
		file_put(f);
		return -EBADF;
	}
	irq = spin_lock_irqsave(&proc_tree_lock);
	if (!pidfd_process_locked(f))
		rc = -ECHILD;		// reaped: no child of anyone's any more
	spin_unlock_irqrestore(&proc_tree_lock, irq);
	*pid = pidfd_pid(f);
	*nonblocking = f->flags & O_NONBLOCK;
	file_put(f);
	return rc;
}

// pidfd_open(2): a process's main thread ID (another thread's: EINVAL);
// a zombie still has one.
SYSCALL_DEFINE(SYS_pidfd_open, pidfd_open)
{
	int pid = (int)args->a[0];
	unsigned flags = (unsigned)args->a[1];
	struct process *p;
	uint64_t irq, start_ns = 0;
	int rc;

	if (flags & ~PIDFD_NONBLOCK)
		return -EINVAL;
	if (pid <= 0)
		return -EINVAL;
	irq = spin_lock_irqsave(&proc_tree_lock);
	p = process_find(pid);
	rc = p ? 0 : thread_find(pid) ? -EINVAL : -ESRCH;
	if (p)
		start_ns = p->start_ns;
	spin_unlock_irqrestore(&proc_tree_lock, irq);
	return rc ? rc : pidfd_create(pid, start_ns, flags);
}

// pidfd_getfd(2): a duplicate (close-on-exec) of the process's descriptor
// 'targetfd', for a caller that may attach to it as a debugger would
// (Linux's PTRACE_MODE_ATTACH_REALCREDS: here the same test as kcmp's).
SYSCALL_DEFINE(SYS_pidfd_getfd, pidfd_getfd)
{
	int pidfd = (int)args->a[0], targetfd = (int)args->a[1];
	struct file *pf, *target = NULL;
	struct process *p;
	uint64_t irq;
	int rc = 0;

	if (args->a[2])
		return -EINVAL;
	pf = fget(pidfd);
	if (!pf)
		return -EBADF;
	if (!file_is_pidfd(pf)) {
		file_put(pf);
		return -EBADF;
	}
	irq = spin_lock_irqsave(&proc_tree_lock);
	p = pidfd_process_locked(pf);
	if (!p || p->zombie)
		rc = -ESRCH;
	else if (cred_may_inspect(p))
		rc = -EPERM;
	else {
		spin_lock(&p->lock);	// p->fdt leaves p under it
		target = p->fdt ? fd_get(p->fdt, targetfd) : NULL;
		spin_unlock(&p->lock);
		if (!target)
			rc = -EBADF;
	}
	spin_unlock_irqrestore(&proc_tree_lock, irq);
	file_put(pf);
	if (rc)
		return rc;
	rc = fd_install(current_fdtable(), target, 0, true);
	file_put(target);
	return rc;
}
