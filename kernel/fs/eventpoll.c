// epoll_create, epoll_create1, epoll_ctl, epoll_wait, epoll_pwait,
// epoll_pwait2 (see fs/eventpoll.h).
//
// Locks.  epoll_topology guards which items exist: every epoll set's list
// and every file's list of the items watching it, so that the loop check
// and the removal at a file's last close see a graph that holds still.
// Each set's own lock guards its items' report state and is held while a
// scan polls their files; a nested set's lock is taken inside its
// parent's, and the loop check keeps that order acyclic.  Order:
// epoll_topology, then sets from the outermost, then whatever a file's
// poll takes (a pipe's lock, sighand's, proc_tree_lock for a pidfd): so
// none of those may be held around file_put or fdinfo (/proc calls it
// with no lock held).  All are spinlocks: file_put may come from any
// context, and no file's poll sleeps.

#include <fs/anon.h>
#include <fs/eventpoll.h>
#include <fs/fcntl.h>
#include <fs/fs_syscall.h>
#include <fs/poll.h>
#include <kernel/cred.h>
#include <kernel/signal.h>
#include <kernel/spinlock.h>
#include <kernel/syscall.h>
#include <kernel/time.h>
#include <kernel/uaccess.h>
#include <kernel/wait.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define CAP_BLOCK_SUSPEND	36
// Linux's EP_MAX_NESTS: at most this many sets below the top one.
#define EP_MAX_NESTS		4
// The loop check already bounds nesting; this only guards the stack.
#define EP_SCAN_DEPTH		8
#define EP_MAX_EVENTS		(0x7fffffff / (int)sizeof(struct epoll_event))
#define EP_SCAN_MAX		256	// reports copied out at a time
#define EPOLLEXCLUSIVE_OK_BITS	(EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLWAKEUP | \
				 EPOLLET | EPOLLEXCLUSIVE)

struct epitem {
	struct epitem *prev, *next;	// in the set's ring (sentinel: ep->head)
	struct epitem *file_next;	// in file->ep_items
	struct eventpoll *ep;
	struct file *file;		// not referenced: its last close removes the item
	int fd;
	uint32_t events;		// as asked, with EPOLLERR | EPOLLHUP
	uint64_t data;
	// EPOLLET: the file's event count and the bits at the last report.
	uint64_t seen_events;
	uint32_t seen_mask;
	bool disabled;			// EPOLLONESHOT reported: silent until MOD
	uint64_t call;			// the epoll_wait call that last reported it
};

struct eventpoll {
	struct spinlock lock;
	struct epitem head;		// ring sentinel; delivered items move to its tail
	struct file *file;		// the set's own file (the sets watching it: ep_items)
	int nitems;			// in the ring (read unlocked to size epoll_wait's array)
	uint64_t calls;			// epoll_wait calls so far: each reports an item once
	uint64_t events;		// ctl changes, part of the set's own event count
};

static struct spinlock epoll_topology = SPINLOCK_INIT("epoll topology");

static const struct vnode_ops eventpoll_ops;

static struct eventpoll *epoll_of(struct file *f)
{
	return anon_priv(f, &eventpoll_ops);
}

static void ring_unlink(struct epitem *it)
{
	it->prev->next = it->next;
	it->next->prev = it->prev;
}

static void ring_append(struct eventpoll *ep, struct epitem *it)
{
	it->prev = ep->head.prev;
	it->next = &ep->head;
	ep->head.prev->next = it;
	ep->head.prev = it;
}

// An item joins or leaves the set (delivery only moves it in the ring).
static void item_count(struct eventpoll *ep, int delta)
{
	__atomic_add_fetch(&ep->nitems, delta, __ATOMIC_RELAXED);
}

#define FOR_ITEMS(it, ep) for (struct epitem *it = (ep)->head.next; it != &(ep)->head; it = it->next)

// ---- readiness ----

static int ep_poll_depth(struct eventpoll *ep, int depth);
static uint64_t ep_events_depth(struct eventpoll *ep, int depth);

// A nested set is polled directly, one level deeper, rather than through
// file_poll, so that the depth bound holds.
static uint32_t target_poll(struct file *f, int depth)
{
	struct eventpoll *child = epoll_of(f);

	return (uint32_t)(child ? ep_poll_depth(child, depth + 1) : file_poll(f));
}

static uint64_t target_events(struct file *f, uint32_t events, int depth)
{
	struct eventpoll *child = epoll_of(f);

	return child ? ep_events_depth(child, depth + 1) : file_poll_events(f, events);
}

// The bits the item would report now (0: none) and, read first so that no
// event between the two reads is missed, the file's event count.
static uint32_t item_ready(struct epitem *it, int depth, uint64_t *events)
{
	if (it->disabled)
		return 0;
	*events = target_events(it->file, it->events, depth);
	return target_poll(it->file, depth) & it->events;
}

// An edge-triggered item reports only news: an event since its last
// report, or bits it did not report then.
static bool item_news(const struct epitem *it, uint64_t events, uint32_t mask)
{
	return !(it->events & EPOLLET) || events != it->seen_events || (mask & ~it->seen_mask);
}

// Readable when some item would report, as Linux's ep_eventpoll_poll.
static int ep_poll_depth(struct eventpoll *ep, int depth)
{
	int mask = 0;

	if (depth > EP_SCAN_DEPTH)
		return 0;
	uint64_t flags = spin_lock_irqsave(&ep->lock);
	FOR_ITEMS(it, ep) {
		uint64_t events;
		uint32_t m = item_ready(it, depth, &events);

		if (m && item_news(it, events, m)) {
			mask = POLLIN | POLLRDNORM;
			break;
		}
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	return mask;
}

// A set's event count moves whenever one of its items' does (a sum of
// counts that only grow), or when ctl changes it: Linux wakes a parent
// set whenever an item of the child is queued.
static uint64_t ep_events_depth(struct eventpoll *ep, int depth)
{
	uint64_t sum;

	if (depth > EP_SCAN_DEPTH)
		return 0;
	uint64_t flags = spin_lock_irqsave(&ep->lock);
	sum = ep->events;
	FOR_ITEMS(it, ep)
		sum += target_events(it->file, it->events, depth);
	spin_unlock_irqrestore(&ep->lock, flags);
	return sum;
}

static int eventpoll_poll(struct vnode *vn)
{
	return ep_poll_depth(vn->priv, 0);
}

static uint64_t eventpoll_poll_events(struct vnode *vn, uint32_t events)
{
	(void)events;		// a set's wake-ups carry no key
	return ep_events_depth(vn->priv, 0);
}

// ---- the file ----

// Linux's fdinfo lines, as many whole ones as the buffer holds.
static void eventpoll_fdinfo(struct vnode *vn, char *buf, size_t size)
{
	struct eventpoll *ep = vn->priv;
	size_t len = 0;

	buf[0] = 0;
	uint64_t flags = spin_lock_irqsave(&ep->lock);
	FOR_ITEMS(it, ep) {
		char line[128];
		struct vnode *tv = it->file->vn;
		int n = ksnprintf(line, sizeof(line),
				  "tfd: %8d events: %8x data: %16lx  pos:%lu ino:%lx sdev:%x\n",
				  it->fd, it->events, it->data, it->file->off,
				  tv ? tv->ino : 0, 0);

		if (n < 0 || len + (size_t)n >= size)
			break;
		memcpy(buf + len, line, (size_t)n + 1);
		len += (size_t)n;
	}
	spin_unlock_irqrestore(&ep->lock, flags);
}

// The set's file is gone (eventpoll_release has already taken it out of
// the sets that watched it): its items leave their files' lists.
static void eventpoll_free(struct vnode *vn)
{
	struct eventpoll *ep = vn->priv;
	uint64_t flags = spin_lock_irqsave(&epoll_topology);

	while (ep->head.next != &ep->head) {
		struct epitem *it = ep->head.next;
		struct epitem **pp = &it->file->ep_items;

		while (*pp != it)
			pp = &(*pp)->file_next;
		*pp = it->file_next;
		ring_unlink(it);
		kfree(it);
	}
	spin_unlock_irqrestore(&epoll_topology, flags);
	kfree(ep);
}

static const struct vnode_ops eventpoll_ops = {
	.poll = eventpoll_poll,
	.poll_events = eventpoll_poll_events,
	.open = anon_open,
	.release = eventpoll_free,
	.fdinfo = eventpoll_fdinfo,
	.anon_name = "eventpoll",
};

void eventpoll_release(struct file *f)
{
	uint64_t flags = spin_lock_irqsave(&epoll_topology);
	struct epitem *it;

	while ((it = f->ep_items)) {
		struct eventpoll *ep = it->ep;
		uint64_t epflags = spin_lock_irqsave(&ep->lock);

		f->ep_items = it->file_next;
		ring_unlink(it);
		item_count(ep, -1);
		ep->events++;
		spin_unlock_irqrestore(&ep->lock, epflags);
		kfree(it);
	}
	spin_unlock_irqrestore(&epoll_topology, flags);
	poll_notify();
}

static long epoll_new(int flags)
{
	struct eventpoll *ep = kzalloc(sizeof(*ep));
	struct file *f;

	if (!ep)
		return -ENOMEM;
	spin_init(&ep->lock, "eventpoll");
	ep->head.prev = ep->head.next = &ep->head;
	f = anon_file_new(&eventpoll_ops, ep, 0);
	if (!f) {
		kfree(ep);
		return -ENOMEM;
	}
	ep->file = f;
	return anon_install(f, flags & EPOLL_CLOEXEC ? O_CLOEXEC : 0);
}

SYSCALL_DEFINE(SYS_epoll_create, epoll_create)
{
	if ((int)args->a[0] <= 0)
		return -EINVAL;
	return epoll_new(0);
}

SYSCALL_DEFINE(SYS_epoll_create1, epoll_create1)
{
	int flags = (int)args->a[0];

	if (flags & ~EPOLL_CLOEXEC)
		return -EINVAL;
	return epoll_new(flags);
}

long eventpoll_target(struct file *f, int tfd, uint32_t toff, const struct file **out)
{
	struct eventpoll *ep = epoll_of(f);
	long rc = -ENOENT;

	if (!ep)
		return -EINVAL;
	uint64_t flags = spin_lock_irqsave(&ep->lock);
	FOR_ITEMS(it, ep) {
		if (it->fd == tfd && toff-- == 0) {
			*out = it->file;
			rc = 0;
			break;
		}
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	return rc;
}

// ---- epoll_ctl ----

// Linux's file_can_poll: pipes, terminals, devices and anonymous files
// with a poll hook, and the synthetic /proc and /sys files (Linux's proc
// and kernfs files all poll); not ordinary files, directories, /dev/null.
// Only files with a poll method, as Linux's file_can_poll: not regular
// files or directories of the tree, nor a process's /proc files but its
// mounts (EPERM).  Other synthetic files (/proc's own, /proc/sys, /sys)
// have one on Linux (proc_reg_poll, proc_sys_poll, kernfs): always ready.
static bool can_poll(struct file *f)
{
	if (f->pipe || f->hung_up)
		return true;
	if (!f->vn || !f->vn->ops)
		return false;
	if (f->vn->ops->poll)
		return f->vn->ops->poll(f->vn) >= 0;
	return f->vn->type == VNODE_REG;
}

// How many levels of sets lie below ep (0: none), or more than
// EP_MAX_NESTS when 'into' is among them or they go too deep: Linux's
// ep_loop_check_proc.  epoll_topology held, as for the two below.
static int depth_below(struct eventpoll *into, struct eventpoll *ep, int depth)
{
	int result = 0;

	FOR_ITEMS(it, ep) {
		struct eventpoll *child = epoll_of(it->file);
		int d;

		if (!child)
			continue;
		if (child == into || depth > EP_MAX_NESTS)
			d = EP_MAX_NESTS + 1;
		else
			d = depth_below(into, child, depth + 1) + 1;
		if (d > result)
			result = d;
		if (result > EP_MAX_NESTS)
			break;
	}
	return result;
}

// How many levels of sets lie above ep (ep_get_upwards_depth_proc).
static int depth_above(struct eventpoll *ep)
{
	int result = 0;

	for (struct epitem *it = ep->file->ep_items; it; it = it->file_next) {
		int d = depth_above(it->ep) + 1;

		if (d > result)
			result = d;
	}
	return result;
}

// Adding 'to' into 'into' must close no cycle and make no chain of more
// than EP_MAX_NESTS + 1 sets: Linux's ep_loop_check (Debian's 6.1 has the
// upward count that 6.10 added).
static bool closes_loop(struct eventpoll *into, struct eventpoll *to)
{
	int below = depth_below(into, to, 0);

	return below > EP_MAX_NESTS || below + 1 + depth_above(into) > EP_MAX_NESTS;
}

static struct epitem *find_item(struct eventpoll *ep, struct file *f, int fd)
{
	FOR_ITEMS(it, ep) {
		if (it->file == f && it->fd == fd)
			return it;
	}
	return NULL;
}

// (Re)arms an item: an edge-triggered one reports what is ready at once,
// as Linux queues an item found ready at ADD and MOD.
static void item_set(struct epitem *it, const struct epoll_event *ev)
{
	it->events = ev->events | EPOLLERR | EPOLLHUP;
	it->data = ev->data;
	it->seen_mask = 0;
	it->seen_events = 0;
	it->disabled = false;
}

// The ctl change with epoll_topology held; *spare is the new item for ADD
// (taken: set to NULL).
static int ctl_locked(struct eventpoll *ep, int op, struct file *tf, int fd,
		      const struct epoll_event *ev, struct epitem **spare)
{
	struct epitem *it = find_item(ep, tf, fd);
	struct eventpoll *tep = epoll_of(tf);
	uint64_t flags;

	if (op == EPOLL_CTL_ADD && tep && closes_loop(ep, tep))
		return -ELOOP;
	if (op == EPOLL_CTL_ADD && it)
		return -EEXIST;
	if (op != EPOLL_CTL_ADD && !it)
		return -ENOENT;
	if (op == EPOLL_CTL_MOD && (it->events & EPOLLEXCLUSIVE))
		return -EINVAL;
	flags = spin_lock_irqsave(&ep->lock);
	if (op == EPOLL_CTL_ADD) {
		it = *spare;
		*spare = NULL;
		it->ep = ep;
		it->file = tf;
		it->fd = fd;
		item_set(it, ev);
		ring_append(ep, it);
		item_count(ep, 1);
		it->file_next = tf->ep_items;
		tf->ep_items = it;
	} else if (op == EPOLL_CTL_MOD) {
		item_set(it, ev);
	} else {
		struct epitem **pp = &tf->ep_items;

		while (*pp != it)
			pp = &(*pp)->file_next;
		*pp = it->file_next;
		ring_unlink(it);
		item_count(ep, -1);
		*spare = it;		// freed by the caller
	}
	ep->events++;
	spin_unlock_irqrestore(&ep->lock, flags);
	return 0;
}

// Linux's checks on the event mask, in its order; EPOLLWAKEUP is dropped
// without CAP_BLOCK_SUSPEND, as Linux does.
static int check_events(int op, struct file *tf, struct epoll_event *ev)
{
	if (op == EPOLL_CTL_DEL)
		return 0;
	if ((ev->events & EPOLLWAKEUP) && !cred_capable(current_cred(), CAP_BLOCK_SUSPEND))
		ev->events &= ~EPOLLWAKEUP;
	if (!(ev->events & EPOLLEXCLUSIVE))
		return 0;
	if (op == EPOLL_CTL_MOD)
		return -EINVAL;
	if (op == EPOLL_CTL_ADD && (epoll_of(tf) || (ev->events & ~EPOLLEXCLUSIVE_OK_BITS)))
		return -EINVAL;
	return 0;
}

static long do_epoll_ctl(struct file *f, int op, struct file *tf, int fd, struct epoll_event *ev)
{
	struct eventpoll *ep = epoll_of(f);
	struct epitem *spare = NULL;
	uint64_t flags;
	long rc;

	if (!can_poll(tf))
		return -EPERM;
	if (!ep || f == tf)
		return -EINVAL;
	rc = check_events(op, tf, ev);
	if (rc < 0)
		return rc;
	if (op != EPOLL_CTL_ADD && op != EPOLL_CTL_MOD && op != EPOLL_CTL_DEL)
		return -EINVAL;
	if (op == EPOLL_CTL_ADD && !(spare = kzalloc(sizeof(*spare))))
		return -ENOMEM;
	flags = spin_lock_irqsave(&epoll_topology);
	rc = ctl_locked(ep, op, tf, fd, ev, &spare);
	spin_unlock_irqrestore(&epoll_topology, flags);
	kfree(spare);
	if (rc == 0)
		poll_notify();		// the set's readiness may differ now
	return rc;
}

SYSCALL_DEFINE(SYS_epoll_ctl, epoll_ctl)
{
	int epfd = (int)args->a[0], op = (int)args->a[1], fd = (int)args->a[2];
	struct epoll_event ev = { 0 };
	struct file *f, *tf;
	long rc = -EBADF;

	// Linux reads the event first, for every op but DEL.
	if (op != EPOLL_CTL_DEL && copy_from_user(&ev, args->a[3], sizeof(ev)) < 0)
		return -EFAULT;
	f = fget(epfd);
	if (!f)
		return -EBADF;
	tf = fget(fd);
	if (tf)
		rc = do_epoll_ctl(f, op, tf, fd, &ev);
	// Not under any epoll lock: a last reference dropped here takes them.
	file_put(tf);
	file_put(f);
	return rc;
}

// ---- epoll_wait ----

// The reports go through kernel arrays of this many: no more than the
// items (or maxevents), at most EP_SCAN_MAX at a time.
static int scan_size(struct eventpoll *ep, int maxevents)
{
	int n = __atomic_load_n(&ep->nitems, __ATOMIC_RELAXED);

	if (n < 1)
		n = 1;
	if (n > EP_SCAN_MAX)
		n = EP_SCAN_MAX;
	return n < maxevents ? n : maxevents;
}

// What a delivery changed in an item, to undo it when the events cannot
// be written out.
struct delivery {
	struct epitem *it;
	uint64_t seen_events;
	uint32_t seen_mask;
	bool disabled;
};

static void deliver(struct epitem *it, uint32_t mask, uint64_t events, uint64_t call,
		    struct epoll_event *out, struct delivery *d)
{
	*d = (struct delivery){ it, it->seen_events, it->seen_mask, it->disabled };
	it->seen_events = events;
	it->seen_mask = mask;
	it->call = call;
	if (it->events & EPOLLONESHOT)
		it->disabled = true;
	out->events = mask;
	out->data = it->data;
}

// Takes up to 'max' reports for epoll_wait call 'call', skipping the
// items it already reported; delivered items move to the ring's tail so
// that a small maxevents still serves every ready item in turn, as
// Linux's ready list does.
static int collect(struct eventpoll *ep, uint64_t call, struct epoll_event *out,
		   struct delivery *d, int max)
{
	uint64_t flags = spin_lock_irqsave(&ep->lock);
	int n = 0;

	for (struct epitem *it = ep->head.next, *next; it != &ep->head && n < max; it = next) {
		uint64_t events = 0;
		uint32_t m;

		next = it->next;
		if (it->call == call)
			continue;
		m = item_ready(it, 0, &events);
		if (!m) {
			if (!it->disabled) {
				it->seen_events = events;	// nothing to report: news must come
				it->seen_mask = 0;
			}
			continue;
		}
		if (!item_news(it, events, m))
			continue;
		deliver(it, m, events, call, &out[n], &d[n]);
		n++;
	}
	for (int i = 0; i < n; i++) {
		ring_unlink(d[i].it);
		ring_append(ep, d[i].it);
	}
	spin_unlock_irqrestore(&ep->lock, flags);
	return n;
}

// The events could not be written: the items report them next time.
// Items removed meanwhile are gone from the ring; one made since at the
// same address has not been delivered by this call.
static void undo(struct eventpoll *ep, uint64_t call, const struct delivery *d, int n)
{
	uint64_t flags = spin_lock_irqsave(&ep->lock);

	FOR_ITEMS(it, ep) {
		for (int i = 0; i < n; i++) {
			if (d[i].it != it || it->call != call)
				continue;
			it->seen_events = d[i].seen_events;
			it->seen_mask = d[i].seen_mask;
			it->disabled = d[i].disabled;
			it->call = 0;
		}
	}
	spin_unlock_irqrestore(&ep->lock, flags);
}

// Writes n collected events at 'uevents': how many went out before a
// fault (n if none), the rest undone.  One at a time only after the whole
// copy failed: Linux writes each in turn and stops at the first fault.
static int put_events(struct eventpoll *ep, uint64_t call, uint64_t uevents,
		      const struct epoll_event *out, const struct delivery *d, int n)
{
	int i = 0;

	if (copy_to_user(uevents, out, (size_t)n * sizeof(*out)) == 0)
		return n;
	while (i < n && copy_to_user(uevents + (uint64_t)i * sizeof(*out), &out[i],
				     sizeof(*out)) == 0)
		i++;
	undo(ep, call, d + i, n - i);
	return i;
}

// Up to 'max' events to user memory, 'chunk' at a time through the
// kernel arrays: how many, or -EFAULT if the first could not be written.
static long send_events(struct eventpoll *ep, uint64_t uevents, int max, int chunk,
			struct epoll_event *out, struct delivery *d)
{
	uint64_t call = __atomic_add_fetch(&ep->calls, 1, __ATOMIC_RELAXED);
	long total = 0;

	while (total < max) {
		int want = max - total < chunk ? (int)(max - total) : chunk;
		int n = collect(ep, call, out, d, want);
		int put = n ? put_events(ep, call, uevents + (uint64_t)total * sizeof(*out), out, d,
					 n) : 0;

		total += put;
		if (put < n)
			return total ? total : -EFAULT;
		if (n < want)
			break;
	}
	return total;
}

static long wait_scan(struct eventpoll *ep, uint64_t uevents, int max, bool nowait,
		      uint64_t deadline)
{
	int chunk = scan_size(ep, max);
	struct epoll_event *out = kmalloc((size_t)chunk * sizeof(*out));
	struct delivery *d = kmalloc((size_t)chunk * sizeof(*d));
	long n = -ENOMEM;

	while (out && d) {
		uint64_t seq = poll_seq();
		int rc;

		n = send_events(ep, uevents, max, chunk, out, d);
		if (n || nowait)
			break;
		rc = poll_wait_change(seq, deadline);
		if (rc == -ETIMEDOUT || rc == -EINTR) {
			n = rc == -EINTR ? -EINTR : 0;	// never restarted, as on Linux
			break;
		}
	}
	kfree(out);
	kfree(d);
	return n;
}

// Linux's order: maxevents, then the buffer's range, then the descriptor.
static long do_epoll_wait(int epfd, uint64_t uevents, int maxevents, bool nowait,
			  uint64_t deadline)
{
	struct file *f;
	long rc;

	if (maxevents <= 0 || maxevents > EP_MAX_EVENTS)
		return -EINVAL;
	if (!user_range_ok(uevents, (size_t)maxevents * sizeof(struct epoll_event)))
		return -EFAULT;
	f = fget(epfd);
	if (!f)
		return -EBADF;
	if (!epoll_of(f)) {
		file_put(f);
		return -EINVAL;
	}
	rc = wait_scan(epoll_of(f), uevents, maxevents, nowait, deadline);
	file_put(f);
	return rc;
}

static uint64_t deadline_after(uint64_t ns)
{
	uint64_t now = clock_monotonic_ns();

	if (ns > UINT64_MAX - now - 1)
		return WAIT_FOREVER;
	return now + ns;
}

// A millisecond timeout: negative waits forever, zero does not wait.
static long wait_ms(int epfd, uint64_t uevents, int maxevents, int timeout)
{
	if (timeout < 0)
		return do_epoll_wait(epfd, uevents, maxevents, false, WAIT_FOREVER);
	return do_epoll_wait(epfd, uevents, maxevents, timeout == 0,
			     deadline_after((uint64_t)timeout * 1000000ULL));
}

SYSCALL_DEFINE(SYS_epoll_wait, epoll_wait)
{
	return wait_ms((int)args->a[0], args->a[1], (int)args->a[2], (int)args->a[3]);
}

// epoll_pwait and epoll_pwait2 wait under a temporary signal mask; after
// EINTR it stays until the handler has run (signal delivery restores it),
// as ppoll's.  'umask' 0: none.
static long with_mask(uint64_t umask, uint64_t size, int epfd, uint64_t uevents, int maxevents,
		      bool nowait, uint64_t deadline)
{
	uint64_t mask;
	long rc;

	if (!umask)
		return do_epoll_wait(epfd, uevents, maxevents, nowait, deadline);
	if (size != 8)
		return -EINVAL;
	if (copy_from_user(&mask, umask, 8) < 0)
		return -EFAULT;
	signal_set_temporary_mask(mask);
	rc = do_epoll_wait(epfd, uevents, maxevents, nowait, deadline);
	if (rc != -EINTR)
		signal_restore_temporary_mask();
	return rc;
}

SYSCALL_DEFINE(SYS_epoll_pwait, epoll_pwait)
{
	int timeout = (int)args->a[3];
	bool nowait = timeout == 0;
	uint64_t deadline = WAIT_FOREVER;

	if (timeout > 0)
		deadline = deadline_after((uint64_t)timeout * 1000000ULL);
	return with_mask(args->a[4], args->a[5], (int)args->a[0], args->a[1], (int)args->a[2],
			 nowait, deadline);
}

SYSCALL_DEFINE(SYS_epoll_pwait2, epoll_pwait2)
{
	uint64_t uts = args->a[3], deadline = WAIT_FOREVER;
	struct { int64_t sec, nsec; } ts;
	bool nowait = false;

	if (uts) {
		if (copy_from_user(&ts, uts, sizeof(ts)) < 0)
			return -EFAULT;
		if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1000000000)
			return -EINVAL;
		nowait = ts.sec == 0 && ts.nsec == 0;
		if ((uint64_t)ts.sec < UINT64_MAX / 1000000000ULL)
			deadline = deadline_after((uint64_t)ts.sec * 1000000000ULL + (uint64_t)ts.nsec);
	}
	return with_mask(args->a[4], args->a[5], (int)args->a[0], args->a[1], (int)args->a[2],
			 nowait, deadline);
}
