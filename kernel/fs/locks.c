// File locks: POSIX record locks, open-file-description locks and flock
// (fs/locks.h has the owners and lifetimes).  Each vnode keeps a list of
// the locks on it; one spinlock guards every list and the table of
// waiters.  A waiter sleeps on its own queue and names the lock in its
// way: only a change to that lock (freed, shrunk, split, merged away)
// wakes it to look again, as Linux's blocked requests hang on the lock
// that blocks them.  Work on other ranges costs it nothing.
//
// Ranges are inclusive, [start, end], with end OFFSET_MAX for "to the end
// of the file and beyond", as Linux keeps them.

#include <fs/locks.h>
#include <fs/file.h>
#include <fs/fcntl.h>
#include <fs/vnode.h>
#include <kernel/process.h>
#include <kernel/spinlock.h>
#include <kernel/uaccess.h>
#include <kernel/wait.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define OFFSET_MAX	INT64_MAX
#define MAX_DEADLOCK_STEPS 10		// Linux's MAX_DEADLK_ITERATIONS

#define LOCK_SH		1
#define LOCK_EX		2
#define LOCK_NB		4
#define LOCK_UN		8

enum lock_kind { LOCK_POSIX, LOCK_OFD, LOCK_FLOCK };

struct file_lock {
	struct file_lock *next;
	enum lock_kind kind;
	int type;			// F_RDLCK or F_WRLCK
	int64_t start, end;
	const void *owner;		// the fdtable (POSIX) or the file (OFD, flock)
	int pid;			// the setter's process, for F_GETLK (OFD: -1)
};

// A lock request sleeping on a conflict: who waits, for whom (the
// owner, for deadlock detection), on which lock (NULL once it changed).
struct lock_waiter {
	const void *owner, *blocker;
	const struct file_lock *on;
	struct wait_queue wq;
	struct lock_waiter *next;
};

static struct spinlock locks_lock = SPINLOCK_INIT("file locks");
static struct lock_waiter *waiters;

static bool overlap(const struct file_lock *a, int64_t start, int64_t end)
{
	return a->start <= end && start <= a->end;
}

static bool same_class(enum lock_kind a, enum lock_kind b)
{
	return (a == LOCK_FLOCK) == (b == LOCK_FLOCK);
}

// The first lock on vn that keeps 'req' out.  locks_lock held.
static struct file_lock *conflict(struct vnode *vn, const struct file_lock *req)
{
	for (struct file_lock *l = vn->locks; l; l = l->next) {
		if (l->owner == req->owner || !same_class(l->kind, req->kind))
			continue;
		if (overlap(l, req->start, req->end) && (l->type == F_WRLCK || req->type == F_WRLCK))
			return l;
	}
	return NULL;
}

// Linux's posix_locks_deadlock: would 'owner' waiting for 'blocker'
// close a chain of POSIX waiters?  locks_lock held.
static bool would_deadlock(const void *owner, const void *blocker)
{
	for (int i = 0; i < MAX_DEADLOCK_STEPS && blocker; i++) {
		const struct lock_waiter *w;

		if (blocker == owner)
			return true;
		for (w = waiters; w && w->owner != blocker; w = w->next)
			;
		blocker = w ? w->blocker : NULL;
	}
	return false;
}

static void unlink_waiter(struct lock_waiter *me)
{
	for (struct lock_waiter **w = &waiters; *w; w = &(*w)->next) {
		if (*w == me) {
			*w = me->next;
			return;
		}
	}
}

// Lock l is about to change or go: whoever waits on it looks again.
// locks_lock held.
static void wake_waiters_on(const struct file_lock *l)
{
	for (struct lock_waiter *w = waiters; w; w = w->next) {
		if (w->on == l) {
			w->on = NULL;
			wq_wake_all(&w->wq);
		}
	}
}

// The locks 'req' changes: its owner's locks of its class in the range
// (and, of the same type, next to it) give way to it; the parts outside
// the range stay.  'spare' is a preallocated lock for a split (taken:
// set to NULL).  locks_lock held.
static void replace_own(struct vnode *vn, struct file_lock *req, struct file_lock **spare)
{
	struct file_lock **pl = &vn->locks;

	while (*pl) {
		struct file_lock *l = *pl;
		bool same_type = l->type == req->type;
		// The same type merges with what overlaps or is next to it.
		int64_t after = req->end == OFFSET_MAX ? OFFSET_MAX : req->end + 1;
		int64_t before = req->start == 0 ? 0 : req->start - 1;
		bool touches = same_type ? overlap(l, before, after) : overlap(l, req->start, req->end);

		if (l->owner != req->owner || l->kind != req->kind || !touches) {
			pl = &l->next;
			continue;
		}
		wake_waiters_on(l);
		if (same_type && req->type != F_UNLCK) {
			// Merged into the request.
			req->start = l->start < req->start ? l->start : req->start;
			req->end = l->end > req->end ? l->end : req->end;
			*pl = l->next;
			kfree(l);
			continue;
		}
		// Another type, or an unlock: keep what lies outside.
		if (l->start < req->start && l->end > req->end && *spare) {
			struct file_lock *right = *spare;

			*spare = NULL;
			*right = *l;
			right->start = req->end + 1;
			l->end = req->start - 1;
			right->next = l->next;
			l->next = right;
			pl = &right->next;
			continue;
		}
		if (l->start < req->start) {
			l->end = req->start - 1;
		} else if (l->end > req->end) {
			l->start = req->end + 1;
		} else {
			*pl = l->next;
			kfree(l);
			continue;
		}
		pl = &l->next;
	}
}

// Puts a copy of req (in *newl, taken) where Linux's posix_lock_inode
// puts it: an owner's locks stay together in order of start, a new
// owner's go last.  F_GETLK reports the first lock in this order that
// conflicts, and programs compare its answer with Linux's.  locks_lock held.
static void insert_lock(struct vnode *vn, const struct file_lock *req, struct file_lock **newl)
{
	struct file_lock **pl = &vn->locks;

	while (*pl && ((*pl)->owner != req->owner || (*pl)->kind != req->kind))
		pl = &(*pl)->next;
	while (*pl && (*pl)->owner == req->owner && (*pl)->kind == req->kind &&
	       (*pl)->start < req->start)
		pl = &(*pl)->next;
	**newl = *req;
	(*newl)->next = *pl;
	*pl = *newl;
	*newl = NULL;
}

// Sets (or, F_UNLCK, clears) req on vn, waiting if 'wait'.  *newl is a
// preallocated lock for it, taken on success.  0, -EAGAIN, -EDEADLK,
// -ERESTARTSYS.
static int set_lock(struct vnode *vn, struct file_lock *req, bool wait, struct file_lock **newl,
		    struct file_lock **spare)
{
	struct lock_waiter me = { .owner = req->owner };
	uint64_t irq = spin_lock_irqsave(&locks_lock);
	struct file_lock *c;
	int rc = 0;

	while (req->type != F_UNLCK && (c = conflict(vn, req)) != NULL) {
		if (!wait) {
			rc = -EAGAIN;
			break;
		}
		if (req->kind == LOCK_POSIX && would_deadlock(req->owner, c->owner)) {
			rc = -EDEADLK;
			break;
		}
		me.blocker = c->owner;
		me.on = c;
		me.next = waiters;
		waiters = &me;
		do
			rc = wq_wait(&me.wq, &locks_lock, WAIT_FOREVER, true);
		while (!rc && me.on);
		unlink_waiter(&me);
		if (rc) {
			rc = -ERESTARTSYS;
			break;
		}
	}
	if (rc == 0) {
		replace_own(vn, req, spare);
		if (req->type != F_UNLCK)
			insert_lock(vn, req, newl);
	}
	spin_unlock_irqrestore(&locks_lock, irq);
	return rc;
}

// Removes every lock of 'owner' and 'kind' on vn.
static void remove_owned(struct vnode *vn, const void *owner, enum lock_kind kind)
{
	uint64_t irq = spin_lock_irqsave(&locks_lock);

	for (struct file_lock **pl = &vn->locks; *pl;) {
		struct file_lock *l = *pl;

		if (l->owner == owner && l->kind == kind) {
			wake_waiters_on(l);
			*pl = l->next;
			kfree(l);
		} else {
			pl = &l->next;
		}
	}
	spin_unlock_irqrestore(&locks_lock, irq);
}

void locks_remove_posix(struct file *f, struct fdtable *fdt)
{
	if (f->vn && __atomic_load_n(&f->vn->locks, __ATOMIC_RELAXED))
		remove_owned(f->vn, fdt, LOCK_POSIX);
}

void locks_remove_file(struct file *f)
{
	if (!f->vn || !__atomic_load_n(&f->vn->locks, __ATOMIC_RELAXED))
		return;
	remove_owned(f->vn, f, LOCK_OFD);
	remove_owned(f->vn, f, LOCK_FLOCK);
}

// ---- fcntl ----

// Linux's flock_to_posix_lock: the user's range as [start, end].
static int range_of(struct file *f, const struct user_flock *fl, struct file_lock *req)
{
	int64_t base, start, end;

	switch (fl->l_whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = (int64_t)f->off;
		break;
	case SEEK_END:
		base = (int64_t)__atomic_load_n(&f->vn->size, __ATOMIC_RELAXED);
		break;
	default:
		return -EINVAL;
	}
	if (fl->l_start > OFFSET_MAX - base)
		return -EOVERFLOW;
	start = base + fl->l_start;
	if (start < 0)
		return -EINVAL;
	if (fl->l_len > 0) {
		if (fl->l_len - 1 > OFFSET_MAX - start)
			return -EOVERFLOW;
		end = start + fl->l_len - 1;
	} else if (fl->l_len < 0) {
		end = start - 1;
		start += fl->l_len;
		if (start < 0)
			return -EINVAL;
	} else {
		end = OFFSET_MAX;
	}
	req->start = start;
	req->end = end;
	return 0;
}

static long getlk(struct vnode *vn, struct file_lock *req, struct user_flock *fl, uint64_t ulock)
{
	uint64_t irq = spin_lock_irqsave(&locks_lock);
	struct file_lock *c = conflict(vn, req);

	if (c) {
		fl->l_type = (int16_t)c->type;
		fl->l_whence = SEEK_SET;
		fl->l_start = c->start;
		fl->l_len = c->end == OFFSET_MAX ? 0 : c->end - c->start + 1;
		fl->l_pid = c->pid;
	} else {
		fl->l_type = F_UNLCK;
	}
	spin_unlock_irqrestore(&locks_lock, irq);
	return copy_to_user(ulock, fl, sizeof(*fl)) < 0 ? -EFAULT : 0;
}

long locks_fcntl(struct file *f, struct fdtable *fdt, int cmd, uint64_t ulock)
{
	bool ofd = cmd == F_OFD_GETLK || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;
	bool query = cmd == F_GETLK || cmd == F_OFD_GETLK;
	struct file_lock req = { .kind = ofd ? LOCK_OFD : LOCK_POSIX };
	struct file_lock *newl, *spare;
	struct user_flock fl;
	int rc;

	// The checks in the order of Linux's fcntl_getlk and fcntl_setlk.
	if (copy_from_user(&fl, ulock, sizeof(fl)) < 0)
		return -EFAULT;
	if (query && fl.l_type != F_RDLCK && fl.l_type != F_WRLCK)
		return -EINVAL;
	if (!f->vn)
		return -ENOLCK;		// a pipe: no inode to lock here
	if ((rc = range_of(f, &fl, &req)) != 0)
		return rc;
	if (fl.l_type != F_RDLCK && fl.l_type != F_WRLCK && fl.l_type != F_UNLCK)
		return -EINVAL;
	req.type = fl.l_type;
	req.owner = ofd ? (const void *)f : (const void *)fdt;
	req.pid = ofd ? -1 : current_process()->pid;
	if (!query && ((req.type == F_RDLCK && !file_readable(f)) ||
		       (req.type == F_WRLCK && !file_writable(f))))
		return -EBADF;
	if (ofd && fl.l_pid != 0)
		return -EINVAL;
	if (query)
		return getlk(f->vn, &req, &fl, ulock);
	newl = kmalloc(sizeof(*newl));
	spare = kmalloc(sizeof(*spare));
	if (!newl || !spare) {
		kfree(newl);
		kfree(spare);
		return -ENOLCK;		// Linux's answer when it cannot allocate a lock
	}
	rc = set_lock(f->vn, &req, cmd == F_SETLKW || cmd == F_OFD_SETLKW, &newl, &spare);
	kfree(newl);
	kfree(spare);
	return rc;
}

// ---- flock ----

long locks_flock(struct file *f, int op)
{
	struct file_lock req = { .kind = LOCK_FLOCK, .start = 0, .end = OFFSET_MAX, .owner = f,
				 .pid = current_process()->pid };
	struct file_lock *newl, *spare = NULL;
	int rc;

	switch (op & ~LOCK_NB) {
	case LOCK_SH:
		req.type = F_RDLCK;
		break;
	case LOCK_EX:
		req.type = F_WRLCK;
		break;
	case LOCK_UN:
		req.type = F_UNLCK;
		break;
	default:
		return -EINVAL;
	}
	if (!f->vn)
		return -ENOLCK;
	newl = kmalloc(sizeof(*newl));
	if (!newl)
		return -ENOLCK;
	// As Linux: a conversion gives the old lock up first (not atomic).
	remove_owned(f->vn, f, LOCK_FLOCK);
	if (req.type == F_UNLCK)
		rc = 0;
	else
		rc = set_lock(f->vn, &req, !(op & LOCK_NB), &newl, &spare);
	kfree(newl);
	return rc;		// -EAGAIN is EWOULDBLOCK
}
