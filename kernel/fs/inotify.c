// inotify: inotify_init, inotify_init1, inotify_add_watch and
// inotify_rm_watch, as Linux 6.1's fs/notify/inotify.
//
// A group (one inotify descriptor) holds a queue of events and a list of
// marks (watches); a mark sits on one vnode's list and on its group's.
// One lock guards all of it: marks, queues and the per-user counts.  The
// hooks (fs/fsnotify.h) take it inside vfs_tree_lock, never the other
// way round.
//
// A mark holds no reference to its vnode: vnode_free calls
// fsnotify_vnode_freed, which queues IN_DELETE_SELF and IN_IGNORED and
// frees the marks, so a watched file that loses its names goes as any
// other.  The descriptor's last close frees the group and its marks
// (Linux queues nothing then).

#include <fs/anon.h>
#include <fs/fcntl.h>
#include <fs/fs_syscall.h>
#include <fs/fsnotify.h>
#include <fs/poll.h>
#include <fs/sigio.h>
#include <fs/vfs.h>
#include <kernel/cred.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <kernel/wait.h>
#include <lib/string.h>
#include <mm/frame.h>
#include <mm/phys.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>
#include <uapi/termios.h>

#define IN_CLOEXEC		O_CLOEXEC
#define IN_NONBLOCK		O_NONBLOCK
#define EVENT_HEADER		16	// struct inotify_event without its name

// What add_watch accepts (Linux's ALL_INOTIFY_BITS) and what a mark keeps.
#define ALL_INOTIFY_BITS	(IN_ALL_EVENTS | IN_UNMOUNT | IN_Q_OVERFLOW | IN_IGNORED | \
				 IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK | IN_MASK_ADD | \
				 IN_MASK_CREATE | IN_ISDIR | IN_ONESHOT)
#define MARK_BITS		(IN_ALL_EVENTS | IN_EXCL_UNLINK | IN_ONESHOT)

// Linux's INOTIFY_WATCH_COST on x86-64 6.1 (a mark and twice an inode),
// for the default of max_user_watches: 1 % of RAM, within [8192, 1048576].
#define WATCH_COST		1280

struct inotify_event_k {
	struct inotify_event_k *next;
	int32_t wd;
	uint32_t mask, cookie;
	uint32_t namelen;		// strlen of name; 0 for none
	char name[];
};

// The counts of one effective user, as Linux's ucounts.
struct inotify_user {
	struct inotify_user *next;
	uint32_t uid;
	long instances, watches;
};

struct inotify_group {
	struct wait_queue wq;		// readers waiting for an event
	struct poll_events events;	// fs/poll.h
	struct inotify_event_k *head, *tail;
	unsigned qlen, max_events;	// max_queued_events when it was made
	uint64_t bytes;			// FIONREAD: what reading everything gives
	struct inotify_event_k *overflow;	// its own IN_Q_OVERFLOW, queued at most once
	bool overflow_queued;
	struct inotify_mark *marks;
	int last_wd;
	bool wd_wrapped;
	struct inotify_user *user;
	struct vnode *vn;		// its descriptor's: the key of its async files (fs/sigio.h)
};

struct inotify_mark {
	struct inotify_mark *vnode_next, *group_next;
	struct inotify_group *group;
	struct vnode *vn;
	int wd;
	uint32_t mask;			// MARK_BITS
};

static struct spinlock inotify_lock = SPINLOCK_INIT("inotify");
static struct inotify_user *users;
static long marks_live;			// the hooks' fast path: no mark, nothing to do
static uint32_t next_cookie;

static long max_user_instances = 128;
static long max_user_watches;		// 0 until first asked: depends on RAM
static long max_queued_events = 16384;

static long default_watches(void)
{
	uint64_t total, free;
	long n;

	frame_stats(&total, &free);
	n = (long)((total / 100) * PAGE_SIZE / WATCH_COST);
	if (n < 8192)
		n = 8192;
	if (n > 1048576)
		n = 1048576;
	return n;
}

static long watches_limit_locked(void)
{
	if (!max_user_watches)
		max_user_watches = default_watches();
	return max_user_watches;
}

long inotify_limit(int which)
{
	uint64_t flags = spin_lock_irqsave(&inotify_lock);
	long v = which == INOTIFY_MAX_USER_INSTANCES ? max_user_instances
		 : which == INOTIFY_MAX_USER_WATCHES ? watches_limit_locked()
		 : max_queued_events;

	spin_unlock_irqrestore(&inotify_lock, flags);
	return v;
}

// Linux's ranges: the per-user limits 0..INT_MAX (longs), the queue
// length 0..INT_MAX (an int).
int inotify_set_limit(int which, uint64_t value)
{
	uint64_t flags;

	if (value > INT32_MAX)
		return -EINVAL;
	flags = spin_lock_irqsave(&inotify_lock);
	if (which == INOTIFY_MAX_USER_INSTANCES)
		max_user_instances = (long)value;
	else if (which == INOTIFY_MAX_USER_WATCHES)
		max_user_watches = (long)value;
	else
		max_queued_events = (long)value;
	spin_unlock_irqrestore(&inotify_lock, flags);
	return 0;
}

// ---- the queue (inotify_lock held) ----

static uint32_t padded_len(const struct inotify_event_k *ev)
{
	return ev->namelen ? (ev->namelen + 1 + EVENT_HEADER - 1) / EVENT_HEADER * EVENT_HEADER
			   : 0;
}

static void append_locked(struct inotify_group *g, struct inotify_event_k *ev)
{
	ev->next = NULL;
	if (g->tail)
		g->tail->next = ev;
	else
		g->head = ev;
	g->tail = ev;
	g->qlen++;
	g->bytes += EVENT_HEADER + padded_len(ev);
	wq_wake_all(&g->wq);
	poll_event(&g->events, POLLIN);
	poll_notify();
	sigio_notify(g->vn, FASYNC_READERS, POLL_IN);	// Linux's fsnotify_insert_event
}

static void overflow_locked(struct inotify_group *g)
{
	if (g->overflow_queued)
		return;
	g->overflow_queued = true;
	append_locked(g, g->overflow);
}

// Linux's inotify_merge: the same event as the last one queued is not
// queued again (IN_IGNORED never merges).
static bool merges(const struct inotify_event_k *last, int wd, uint32_t mask, const char *name,
		   size_t len)
{
	return last && !(last->mask & IN_IGNORED) && last->mask == mask && last->wd == wd &&
	       last->namelen == len && (!len || memcmp(last->name, name, len) == 0);
}

static void queue_locked(struct inotify_group *g, int wd, uint32_t mask, uint32_t cookie,
			 const char *name, size_t len)
{
	struct inotify_event_k *ev = kmalloc(sizeof(*ev) + len + 1);

	// A lost event (no memory) is reported as an overflow, as Linux.
	if (!ev || g->qlen >= g->max_events) {
		kfree(ev);
		overflow_locked(g);
		return;
	}
	if (merges(g->tail, wd, mask, name, len)) {
		kfree(ev);
		return;
	}
	ev->wd = wd;
	ev->mask = mask;
	ev->cookie = cookie;
	ev->namelen = (uint32_t)len;
	memcpy(ev->name, name, len);
	ev->name[len] = 0;
	append_locked(g, ev);
}

// ---- marks (inotify_lock held) ----

static void unlink_mark(struct inotify_mark **list, struct inotify_mark *m, bool vnode_list)
{
	for (struct inotify_mark **pp = list; *pp;
	     pp = vnode_list ? &(*pp)->vnode_next : &(*pp)->group_next) {
		if (*pp == m) {
			*pp = vnode_list ? m->vnode_next : m->group_next;
			return;
		}
	}
}

// The watch goes: IN_IGNORED unless the whole group is going.
static void destroy_mark_locked(struct inotify_mark *m, bool ignored)
{
	struct inotify_group *g = m->group;

	if (ignored)
		queue_locked(g, m->wd, IN_IGNORED, 0, NULL, 0);
	unlink_mark(&m->vn->inotify_marks, m, true);
	unlink_mark(&g->marks, m, false);
	g->user->watches--;
	__atomic_sub_fetch(&marks_live, 1, __ATOMIC_RELAXED);
	kfree(m);
}

// One event for one mark, if it asks for it (Linux's
// inotify_handle_inode_event).
static void deliver_locked(struct inotify_mark *m, uint32_t mask, const char *name, size_t len,
			   uint32_t cookie)
{
	if (!(mask & m->mask & IN_ALL_EVENTS))
		return;
	queue_locked(m->group, m->wd, mask, cookie, name, len);
	if (m->mask & IN_ONESHOT)
		destroy_mark_locked(m, true);
}

static void deliver_all_locked(struct vnode *vn, uint32_t mask, const char *name, size_t len,
			       uint32_t cookie, bool unlinked)
{
	struct inotify_mark *m = vn->inotify_marks, *next;

	for (; m; m = next) {
		next = m->vnode_next;
		if (!(unlinked && (m->mask & IN_EXCL_UNLINK)))
			deliver_locked(m, mask, name, len, cookie);
	}
}

static bool nobody_watches(void)
{
	return __atomic_load_n(&marks_live, __ATOMIC_RELAXED) == 0;
}

// ---- the hooks ----

// To the directory's watches with the file's name (Linux sends it there
// first), then to the file's own.  'path_event': IN_EXCL_UNLINK applies.
static void notify_vnode(struct vnode *vn, uint32_t mask, bool path_event)
{
	uint64_t tflags, flags;
	struct vnode *dir;
	bool unlinked;

	if (nobody_watches())
		return;
	if (vn->type == VNODE_DIR)
		mask |= IN_ISDIR;
	tflags = spin_lock_irqsave(&vfs_tree_lock);
	flags = spin_lock_irqsave(&inotify_lock);
	unlinked = path_event && vn->nlink == 0;
	dir = vn->parent ? vn->parent : vn->unlinked_parent;
	if (dir && vn->name && dir->inotify_marks)
		deliver_all_locked(dir, mask, vn->name, strlen(vn->name), 0, unlinked);
	deliver_all_locked(vn, mask, NULL, 0, 0, unlinked);
	spin_unlock_irqrestore(&inotify_lock, flags);
	spin_unlock_irqrestore(&vfs_tree_lock, tflags);
}

void fsnotify_file(struct file *f, uint32_t mask)
{
	if (f->vn && f->vn->type != VNODE_ANON)
		notify_vnode(f->vn, mask, true);
}

void fsnotify_change(struct vnode *vn, uint32_t mask)
{
	notify_vnode(vn, mask, false);
}

void fsnotify_self(struct vnode *vn, uint32_t mask)
{
	uint64_t flags;

	if (nobody_watches())
		return;
	// Linux reports IN_ISDIR with a directory's events but never with
	// IN_MOVE_SELF and IN_DELETE_SELF.
	if (vn->type == VNODE_DIR && !(mask & (IN_MOVE_SELF | IN_DELETE_SELF)))
		mask |= IN_ISDIR;
	flags = spin_lock_irqsave(&inotify_lock);
	deliver_all_locked(vn, mask, NULL, 0, 0, false);
	spin_unlock_irqrestore(&inotify_lock, flags);
}

void fsnotify_name(struct vnode *dir, uint32_t mask, const char *name, uint32_t cookie)
{
	uint64_t flags;

	if (nobody_watches())
		return;
	flags = spin_lock_irqsave(&inotify_lock);
	deliver_all_locked(dir, mask, name, strlen(name), cookie, false);
	spin_unlock_irqrestore(&inotify_lock, flags);
}

uint32_t fsnotify_cookie(void)
{
	return __atomic_add_fetch(&next_cookie, 1, __ATOMIC_RELAXED);
}

void fsnotify_vnode_freed(struct vnode *vn)
{
	uint64_t flags;

	if (!__atomic_load_n(&vn->inotify_marks, __ATOMIC_RELAXED))
		return;
	flags = spin_lock_irqsave(&inotify_lock);
	deliver_all_locked(vn, IN_DELETE_SELF, NULL, 0, 0, false);
	while (vn->inotify_marks)
		destroy_mark_locked(vn->inotify_marks, true);
	spin_unlock_irqrestore(&inotify_lock, flags);
}

// ---- the descriptor ----

static const struct vnode_ops inotify_ops;

// Takes the first event if it fits in 'room': 0 and *out, -EINVAL when
// it does not fit, -EAGAIN when the queue is empty.
static int take_locked(struct inotify_group *g, size_t room, struct inotify_event_k **out)
{
	struct inotify_event_k *ev = g->head;

	if (!ev)
		return -EAGAIN;
	if (EVENT_HEADER + padded_len(ev) > room)
		return -EINVAL;
	g->head = ev->next;
	if (!g->head)
		g->tail = NULL;
	g->qlen--;
	g->bytes -= EVENT_HEADER + padded_len(ev);
	if (ev == g->overflow)
		g->overflow_queued = false;
	*out = ev;
	return 0;
}

// The event in Linux's layout: the header, the name padded with NULs to
// a multiple of 16 bytes.
static int copy_event(struct iobuf *b, size_t at, const struct inotify_event_k *ev)
{
	uint32_t pad = padded_len(ev);
	struct {
		int32_t wd;
		uint32_t mask, cookie, len;
	} hdr = { ev->wd, ev->mask, ev->cookie, pad };

	if (iobuf_put(b, at, &hdr, sizeof(hdr)) < 0)
		return -EFAULT;
	if (pad && (iobuf_put(b, at + EVENT_HEADER, ev->name, ev->namelen) < 0 ||
		    iobuf_zero(b, at + EVENT_HEADER + ev->namelen, pad - ev->namelen) < 0))
		return -EFAULT;
	return (int)(EVENT_HEADER + pad);
}

// As Linux's inotify_read: as many whole events as fit, blocking only
// while none has been read; an event that does not fit at all is EINVAL.
static long inotify_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			 size_t n)
{
	struct inotify_group *g = vn->priv;
	size_t done = 0;
	long rc = 0;

	(void)off;
	for (;;) {
		struct inotify_event_k *ev = NULL;
		uint64_t flags = spin_lock_irqsave(&inotify_lock);
		int got = take_locked(g, n - done, &ev);

		if (got == -EAGAIN && done == 0 && !(f->flags & O_NONBLOCK)) {
			if (wq_wait(&g->wq, &inotify_lock, WAIT_FOREVER, true))
				got = -ERESTARTSYS;
			else
				got = 1;	// look again
		}
		spin_unlock_irqrestore(&inotify_lock, flags);
		if (got == 1)
			continue;
		if (got < 0) {
			rc = got;
			break;
		}
		// Taken already: a bad buffer loses it, as on Linux.
		got = copy_event(b, done, ev);
		if (ev != g->overflow)
			kfree(ev);
		if (got < 0)
			return -EFAULT;
		done += (size_t)got;
	}
	return done ? (long)done : rc;
}

static int inotify_poll(struct vnode *vn)
{
	struct inotify_group *g = vn->priv;

	return __atomic_load_n(&g->head, __ATOMIC_RELAXED) ? POLLIN | POLLRDNORM : 0;
}

static uint64_t inotify_poll_events(struct vnode *vn, uint32_t events)
{
	struct inotify_group *g = vn->priv;

	return poll_events_for(&g->events, events);
}

static long inotify_ioctl(struct vnode *vn, struct file *f, unsigned cmd, uint64_t arg)
{
	struct inotify_group *g = vn->priv;
	uint64_t flags, bytes;

	(void)f;
	if (cmd != FIONREAD)
		return -ENOTTY;
	flags = spin_lock_irqsave(&inotify_lock);
	bytes = g->bytes;
	spin_unlock_irqrestore(&inotify_lock, flags);
	return put_user_u32(arg, (uint32_t)bytes);
}

static void put_user_locked(struct inotify_user *u)
{
	if (--u->instances > 0)
		return;
	for (struct inotify_user **pp = &users; *pp; pp = &(*pp)->next) {
		if (*pp == u) {
			*pp = u->next;
			break;
		}
	}
	kfree(u);
}

static void inotify_release(struct vnode *vn)
{
	struct inotify_group *g = vn->priv;
	struct inotify_event_k *ev, *next;
	uint64_t flags = spin_lock_irqsave(&inotify_lock);

	while (g->marks)
		destroy_mark_locked(g->marks, false);
	put_user_locked(g->user);
	spin_unlock_irqrestore(&inotify_lock, flags);
	for (ev = g->head; ev; ev = next) {
		next = ev->next;
		if (ev != g->overflow)
			kfree(ev);
	}
	kfree(g->overflow);
	kfree(g);
}

static const struct vnode_ops inotify_ops = {
	.read = inotify_read,
	.poll = inotify_poll,
	.poll_events = inotify_poll_events,
	.ioctl = inotify_ioctl,
	.open = anon_open,
	.release = inotify_release,
	.anon_name = "inotify",
	.fasync = true,
};

// Counts one more instance for the caller's effective user: 0, -EMFILE
// past max_user_instances, -ENOMEM.
static int charge_instance(struct inotify_group *g)
{
	uint32_t uid = current_cred()->euid;
	struct inotify_user *fresh = kzalloc(sizeof(*fresh)), *u;
	uint64_t flags = spin_lock_irqsave(&inotify_lock);
	int rc = 0;

	for (u = users; u && u->uid != uid; u = u->next)
		;
	if (!u && fresh) {
		u = fresh;
		fresh = NULL;
		u->uid = uid;
		u->next = users;
		users = u;
	}
	if (!u)
		rc = -ENOMEM;
	else if (u->instances + 1 > max_user_instances)
		rc = -EMFILE;
	else
		u->instances++;
	if (u && u->instances == 0) {		// refused the only would-be instance
		u->instances = 1;
		put_user_locked(u);
	} else if (rc == 0) {
		g->user = u;
	}
	spin_unlock_irqrestore(&inotify_lock, flags);
	kfree(fresh);
	return rc;
}

static long do_inotify_init(int flags)
{
	struct inotify_group *g;
	struct file *f;
	int rc;

	if (flags & ~(IN_CLOEXEC | IN_NONBLOCK))
		return -EINVAL;
	g = kzalloc(sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->overflow = kzalloc(sizeof(*g->overflow));
	rc = g->overflow ? charge_instance(g) : -ENOMEM;
	if (rc < 0) {
		kfree(g->overflow);
		kfree(g);
		return rc;
	}
	g->overflow->wd = -1;
	g->overflow->mask = IN_Q_OVERFLOW;
	g->max_events = (unsigned)inotify_limit(INOTIFY_MAX_QUEUED_EVENTS);
	f = anon_file_new(&inotify_ops, g, O_RDONLY | ((uint32_t)flags & O_NONBLOCK));
	if (!f) {
		uint64_t irq = spin_lock_irqsave(&inotify_lock);

		put_user_locked(g->user);
		spin_unlock_irqrestore(&inotify_lock, irq);
		kfree(g->overflow);
		kfree(g);
		return -ENOMEM;
	}
	g->vn = f->vn;
	// An inotify descriptor is read-only, as Linux's.
	f->flags = (f->flags & ~O_ACCMODE) | O_RDONLY;
	return anon_install(f, (uint32_t)flags);
}

SYSCALL_DEFINE(SYS_inotify_init, inotify_init)
{
	(void)args;
	return do_inotify_init(0);
}

SYSCALL_DEFINE(SYS_inotify_init1, inotify_init1)
{
	return do_inotify_init((int)args->a[0]);
}

// The next watch descriptor: from 1 up, cyclic as Linux's idr, skipping
// those still in use once the numbers have wrapped.
static int next_wd_locked(struct inotify_group *g)
{
	for (;;) {
		bool used = false;

		if (g->last_wd == INT32_MAX) {
			g->last_wd = 0;
			g->wd_wrapped = true;
		}
		g->last_wd++;
		if (!g->wd_wrapped)
			return g->last_wd;
		for (struct inotify_mark *m = g->marks; m && !used; m = m->group_next)
			used = m->wd == g->last_wd;
		if (!used)
			return g->last_wd;
	}
}

// Linux's inotify_update_watch: an existing mark of this group on vn is
// replaced (or added to with IN_MASK_ADD, refused with IN_MASK_CREATE),
// else a new one made if the user's max_user_watches allows (ENOSPC).
static long update_watch(struct inotify_group *g, struct vnode *vn, uint32_t mask)
{
	struct inotify_mark *fresh = kzalloc(sizeof(*fresh)), *m;
	uint64_t flags = spin_lock_irqsave(&inotify_lock);
	long rc;

	for (m = vn->inotify_marks; m && m->group != g; m = m->vnode_next)
		;
	if (m && (mask & IN_MASK_CREATE)) {
		rc = -EEXIST;
	} else if (m) {
		if (!(mask & IN_MASK_ADD))
			m->mask = 0;
		m->mask |= mask & MARK_BITS;
		rc = m->wd;
	} else if (!fresh) {
		rc = -ENOMEM;
	} else if (g->user->watches + 1 > watches_limit_locked()) {
		rc = -ENOSPC;
	} else {
		m = fresh;
		fresh = NULL;
		m->group = g;
		m->vn = vn;
		m->mask = mask & MARK_BITS;
		m->wd = next_wd_locked(g);
		m->vnode_next = vn->inotify_marks;
		vn->inotify_marks = m;
		m->group_next = g->marks;
		g->marks = m;
		g->user->watches++;
		__atomic_add_fetch(&marks_live, 1, __ATOMIC_RELAXED);
		rc = m->wd;
	}
	spin_unlock_irqrestore(&inotify_lock, flags);
	kfree(fresh);
	return rc;
}

// Linux's checks in order: the mask's bits (EINVAL), the descriptor
// (EBADF), IN_MASK_ADD with IN_MASK_CREATE and a descriptor that is not
// inotify's (EINVAL), the path (lookup errors, IN_ONLYDIR's ENOTDIR),
// read permission on the file (EACCES).
SYSCALL_DEFINE(SYS_inotify_add_watch, inotify_add_watch)
{
	uint32_t mask = (uint32_t)args->a[2];
	struct inotify_group *g;
	struct vnode *vn;
	struct file *f;
	long rc;

	if ((mask & ~ALL_INOTIFY_BITS) || !(mask & ALL_INOTIFY_BITS))
		return -EINVAL;
	f = fget((int)args->a[0]);
	if (!f)
		return -EBADF;
	g = anon_priv(f, &inotify_ops);
	if ((mask & IN_MASK_ADD) && (mask & IN_MASK_CREATE))
		rc = -EINVAL;
	else if (!g)
		rc = -EINVAL;
	else
		rc = lookup_user_at(AT_FDCWD, args->a[1],
				    (mask & IN_DONT_FOLLOW) ? 0 : LOOKUP_FOLLOW, &vn);
	if (rc == 0) {
		if ((mask & IN_ONLYDIR) && vn->type != VNODE_DIR)
			rc = -ENOTDIR;
		else
			rc = vnode_may(vn, MAY_READ);
		if (rc == 0)
			rc = update_watch(g, vn, mask);
		vnode_put(vn);
	}
	file_put(f);
	return rc;
}

SYSCALL_DEFINE(SYS_inotify_rm_watch, inotify_rm_watch)
{
	int wd = (int)args->a[1];
	struct inotify_group *g;
	struct file *f = fget((int)args->a[0]);
	long rc = -EINVAL;

	if (!f)
		return -EBADF;
	g = anon_priv(f, &inotify_ops);
	if (g) {
		uint64_t flags = spin_lock_irqsave(&inotify_lock);
		struct inotify_mark *m = g->marks;

		while (m && m->wd != wd)
			m = m->group_next;
		if (m) {
			destroy_mark_locked(m, true);
			rc = 0;
		}
		spin_unlock_irqrestore(&inotify_lock, flags);
	}
	file_put(f);
	return rc;
}
