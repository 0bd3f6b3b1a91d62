// Calls on another process's address space through a pidfd, as Linux
// 6.1's mm/madvise.c and mm/oom_kill.c: process_madvise (hints for its
// memory) and process_mrelease (its memory back at once when it is being
// killed).

#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/pidfd.h>
#include <kernel/cred.h>
#include <kernel/uaccess.h>
#include <kernel/time.h>
#include <kernel/vm.h>
#include <kernel/wait.h>
#include <fs/file.h>
#include <fs/fs_syscall.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define MADV_COLLAPSE	25

// The process a pidfd names, under proc_tree_lock: -EBADF for a
// descriptor that is no pidfd, -ESRCH once its process is reaped.
static struct process *pidfd_target_locked(struct file *f, long *err)
{
	struct process *p = f && file_is_pidfd(f) ? pidfd_process_locked(f) : NULL;

	*err = !f || !file_is_pidfd(f) ? -EBADF : p ? 0 : -ESRCH;
	return p;
}

// The advice process_madvise takes: the ones that change nothing a
// program can see (Linux: "only non-destructive hints").
static bool remote_advice_valid(int advice)
{
	return advice == MADV_COLD || advice == MADV_PAGEOUT || advice == MADV_WILLNEED ||
	       advice == MADV_COLLAPSE;
}

// Its address space, referenced, for a caller that may inspect it
// (else EACCES) and has CAP_SYS_NICE (else EPERM); NULL with *err set
// otherwise.
static struct mm *advised_mm(int pidfd, int advice, long *err)
{
	struct file *f = fget(pidfd);
	struct mm *mm = NULL;
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = pidfd_target_locked(f, err);

	if (p && !remote_advice_valid(advice)) {
		*err = -EINVAL;
	} else if (p && cred_may_inspect(p) < 0) {
		*err = -EACCES;		// Linux passes mm_access's refusal on
	} else if (p) {
		spin_lock(&p->lock);
		mm = p->mm;
		if (mm)
			mm_get(mm);
		spin_unlock(&p->lock);
		*err = mm ? 0 : -ESRCH;
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	if (f)
		file_put(f);
	if (mm && !cred_capable(current_cred(), CAP_SYS_NICE)) {
		mm_put(mm);
		mm = NULL;
		*err = -EPERM;
	}
	return mm;
}

// process_madvise(pidfd, iovec, vlen, advice, flags): each range advised
// in turn; the bytes advised before the first failure, else its errno.
// Memory is never paged out or collapsed into huge pages here, so the
// hints are checked and otherwise change nothing, as on Linux without
// swap; MADV_COLLAPSE, which needs transparent huge pages, is EINVAL
// where Linux without them says so.
SYSCALL_DEFINE(SYS_process_madvise, process_madvise)
{
	int pidfd = (int)args->a[0], advice = (int)args->a[3];
	struct user_iovec *iov;
	uint64_t done = 0;
	long rc = 0;

	if (args->a[4])
		return -EINVAL;
	rc = user_iovecs_get(args->a[1], (int64_t)args->a[2], &iov);
	if (rc < 0)
		return rc;
	struct mm *mm = advised_mm(pidfd, advice, &rc);
	if (mm && advice == MADV_COLLAPSE)
		rc = -EINVAL;
	for (uint64_t i = 0; mm && rc == 0 && i < args->a[2]; i++) {
		rc = vm_advise(mm, iov[i].base, iov[i].len, advice);
		if (rc == 0)
			done += iov[i].len;
	}
	if (mm)
		mm_put(mm);
	kfree(iov);
	return done ? (long)done : rc;
}

// Does another process that is not exiting share p's address space
// (CLONE_VM without CLONE_THREAD)?  Then its memory does not go with p.
struct mm_sharer {
	struct process *p;
	struct mm *mm;
	bool found;
};

static void find_sharer(struct process *q, void *arg)
{
	struct mm_sharer *s = arg;

	if (q != s->p && q->mm == s->mm && !q->exiting && !q->zombie)
		s->found = true;
}

// process_mrelease(pidfd, flags): returns once the address space of a
// process being killed is gone (Linux reaps it at once; here its exit,
// already under way, frees it, and the call waits for that).  A process
// that is not exiting, or whose memory another process still uses, is
// EINVAL; one whose memory is gone already, 0; one reaped, ESRCH.
SYSCALL_DEFINE(SYS_process_mrelease, process_mrelease)
{
	int pidfd = (int)args->a[0];
	struct file *f;
	long rc;

	if (args->a[1])
		return -EINVAL;
	f = fget(pidfd);
	for (bool waited = false;; waited = true) {
		uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
		struct process *p = pidfd_target_locked(f, &rc);
		bool gone = true;
		if (p) {
			spin_lock(&p->lock);
			struct mm_sharer s = { p, p->mm, false };
			gone = !p->mm || p->zombie;
			spin_unlock(&p->lock);
			if (!gone && !p->exiting)
				rc = -EINVAL;
			else if (!gone) {
				process_for_each_locked(find_sharer, &s);
				if (s.found)
					rc = -EINVAL;
			}
		}
		spin_unlock_irqrestore(&proc_tree_lock, flags);
		if (rc == -ESRCH && waited)
			rc = 0;		// reaped while we waited: released
		if (rc < 0 || gone)
			break;
		if (wq_wait_killable(0, 0, clock_monotonic_ns() + 1000000) == -EINTR) {
			rc = -EINTR;
			break;
		}
	}
	if (f)
		file_put(f);
	return rc;
}
