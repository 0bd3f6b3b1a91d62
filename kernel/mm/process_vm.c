// process_vm_readv and process_vm_writev: copying between the caller's
// memory and another process's, as Linux 6.1's mm/process_vm_access.c,
// for a caller that may attach to it as a debugger would.  The remote
// side is reached through vm_read/vm_write_as_owner, which fault pages
// in as the owner's own accesses would and refuse what the owner could
// not read or write.  Copying stops at the first remote page that is not
// there or a local segment that faults: the bytes moved so far, or
// -EFAULT if none, as Linux.

#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/cred.h>
#include <kernel/uaccess.h>
#include <kernel/vm.h>
#include <mm/kmalloc.h>
#include <lib/string.h>
#include <uapi/errno.h>

#define BOUNCE_SIZE	4096
#define SSIZE_MAX_U	((uint64_t)INT64_MAX)

// The remote iovec array: Linux's iovec_from_user checks the count and
// the lengths but not the addresses, which belong to the other process.
static long remote_iovecs_get(uint64_t uiov, uint64_t count, struct user_iovec **out)
{
	struct user_iovec *iov;

	if (count > IOV_MAX)
		return -EINVAL;
	iov = kmalloc((count ? count : 1) * sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	if (copy_from_user(iov, uiov, count * sizeof(*iov)) < 0) {
		kfree(iov);
		return -EFAULT;
	}
	for (uint64_t i = 0; i < count; i++) {
		if (iov[i].len > SSIZE_MAX_U) {
			kfree(iov);
			return -EINVAL;
		}
	}
	*out = iov;
	return 0;
}

// The target's address space, referenced: -ESRCH if there is none (no
// such process, or it has exited), -EPERM if the caller may not attach.
static struct mm *target_mm(int pid, long *err)
{
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = pid > 0 ? process_find_any_id(pid) : NULL;
	struct mm *mm = NULL;

	*err = -ESRCH;
	if (p && cred_may_inspect(p) < 0) {
		*err = -EPERM;
	} else if (p) {
		spin_lock(&p->lock);
		mm = p->mm;
		if (mm)
			mm_get(mm);
		spin_unlock(&p->lock);
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return mm;
}

// Where the copy stands in the local segments.
struct local_pos {
	const struct user_iovec *iov;
	uint64_t count, i, off;
};

static uint64_t local_left_in_segment(struct local_pos *lp)
{
	while (lp->i < lp->count && lp->off == lp->iov[lp->i].len) {
		lp->i++;
		lp->off = 0;
	}
	return lp->i < lp->count ? lp->iov[lp->i].len - lp->off : 0;
}

// Moves one remote segment; adds the bytes moved to *done.  0 to go on,
// -EFAULT to stop.
static int copy_segment(struct mm *mm, uint64_t addr, uint64_t len, struct local_pos *lp,
			char *bounce, bool write, uint64_t *done)
{
	while (len > 0) {
		uint64_t local = local_left_in_segment(lp);
		if (local == 0)
			return 0;	// the local side is full (or empty)
		uint64_t n = BOUNCE_SIZE - (addr % BOUNCE_SIZE);
		if (n > len)
			n = len;
		if (n > local)
			n = local;
		uint64_t ubuf = lp->iov[lp->i].base + lp->off;
		int moved;
		if (write) {
			if (copy_from_user(bounce, ubuf, n) < 0)
				return -EFAULT;
			moved = vm_write_as_owner(mm, addr, bounce, n);
		} else {
			moved = vm_read(mm, addr, bounce, n);
			if (moved > 0 && copy_to_user(ubuf, bounce, (size_t)moved) < 0)
				return -EFAULT;
		}
		if (moved < 0)
			return -EFAULT;
		*done += (uint64_t)moved;
		lp->off += (uint64_t)moved;
		if ((uint64_t)moved < n)
			return -EFAULT;
		addr += n;
		len -= n;
	}
	return 0;
}

static long process_vm_rw(const struct syscall_args *args, bool write)
{
	int pid = (int)args->a[0];
	uint64_t lvec = args->a[1], liovcnt = args->a[2];
	uint64_t rvec = args->a[3], riovcnt = args->a[4];
	struct user_iovec *liov = NULL, *riov = NULL;
	uint64_t ltotal = 0, any_remote = 0, done = 0;
	struct mm *mm = NULL;
	char *bounce = NULL;
	long rc;

	if (args->a[5])
		return -EINVAL;		// flags: none defined
	if (liovcnt > IOV_MAX)
		return -EINVAL;
	rc = user_iovecs_get(lvec, (int64_t)liovcnt, &liov);
	if (rc < 0)
		return rc;
	for (uint64_t i = 0; i < liovcnt; i++)
		ltotal += liov[i].len;
	if (ltotal == 0)
		goto out;		// nothing to move: 0 before the rest is looked at
	rc = remote_iovecs_get(rvec, riovcnt, &riov);
	if (rc < 0)
		goto out;
	for (uint64_t i = 0; i < riovcnt; i++)
		any_remote |= riov[i].len;
	if (any_remote == 0)
		goto out;		// 0, before the process is looked up
	bounce = kmalloc(BOUNCE_SIZE);
	if (!bounce) {
		rc = -ENOMEM;
		goto out;
	}
	mm = target_mm(pid, &rc);
	if (!mm)
		goto out;
	rc = 0;
	struct local_pos lp = { .iov = liov, .count = liovcnt };
	for (uint64_t i = 0; i < riovcnt && rc == 0 && local_left_in_segment(&lp); i++)
		rc = copy_segment(mm, riov[i].base, riov[i].len, &lp, bounce, write, &done);
	if (done)
		rc = (long)done;
out:
	if (mm)
		mm_put(mm);
	kfree(bounce);
	kfree(riov);
	kfree(liov);
	return rc;
}

SYSCALL_DEFINE(SYS_process_vm_readv, process_vm_readv)
{
	return process_vm_rw(args, false);
}

SYSCALL_DEFINE(SYS_process_vm_writev, process_vm_writev)
{
	return process_vm_rw(args, true);
}
