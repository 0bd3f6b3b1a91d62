// eventfd and eventfd2: a 64-bit counter behind a descriptor, as Linux's.
// A write adds to it, blocking while the sum would pass 2^64 - 2; a read
// takes all of it (or 1 with EFD_SEMAPHORE), blocking while it is 0.

#include <fs/anon.h>
#include <fs/eventfd.h>
#include <fs/fs_syscall.h>
#include <fs/fcntl.h>
#include <fs/poll.h>
#include <kernel/syscall.h>
#include <kernel/wait.h>
#include <lib/printf.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define EFD_SEMAPHORE	1
#define EFD_NONBLOCK	O_NONBLOCK
#define EFD_CLOEXEC	O_CLOEXEC
#define COUNT_MAX	UINT64_MAX	// only the kernel's own signals reach it (POLLERR)

struct eventfd {
	struct spinlock lock;
	uint64_t count;
	bool semaphore;
	struct wait_queue wq;		// readers waiting for a count, writers for room
	int id;				// fdinfo's eventfd-id
	struct eventfd *id_next;	// the list of live ids, in order
	struct poll_events events;	// fs/poll.h
};

// eventfd-id is the lowest number no live eventfd has, as Linux's IDA
// gives it: a sorted list is enough for the handful a program makes.
static struct spinlock ids_lock = SPINLOCK_INIT("eventfd ids");
static struct eventfd *ids;

static void id_take(struct eventfd *e)
{
	uint64_t flags = spin_lock_irqsave(&ids_lock);
	struct eventfd **pp = &ids;
	int id = 0;

	for (; *pp && (*pp)->id == id; pp = &(*pp)->id_next)
		id++;
	e->id = id;
	e->id_next = *pp;
	*pp = e;
	spin_unlock_irqrestore(&ids_lock, flags);
}

static void id_give_back(struct eventfd *e)
{
	uint64_t flags = spin_lock_irqsave(&ids_lock);

	for (struct eventfd **pp = &ids; *pp; pp = &(*pp)->id_next) {
		if (*pp == e) {
			*pp = e->id_next;
			break;
		}
	}
	spin_unlock_irqrestore(&ids_lock, flags);
}

// The counter changed: wake both kinds of sleeper and every poller; 'key'
// is Linux's (POLLIN after a write, POLLOUT after a read).
static void changed_locked(struct eventfd *e, int key)
{
	wq_wake_all(&e->wq);
	poll_event(&e->events, key);
	poll_notify();
}

static long eventfd_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			 size_t n)
{
	struct eventfd *e = vn->priv;
	uint64_t v = 0, flags;
	long rc = 0;

	(void)off;
	if (n < sizeof(v))
		return -EINVAL;
	flags = spin_lock_irqsave(&e->lock);
	while (e->count == 0 && rc == 0) {
		if (f->flags & O_NONBLOCK)
			rc = -EAGAIN;
		else if (wq_wait(&e->wq, &e->lock, WAIT_FOREVER, true))
			rc = -ERESTARTSYS;
	}
	if (rc == 0) {
		v = e->semaphore ? 1 : e->count;
		e->count -= v;
		changed_locked(e, POLLOUT);
	}
	spin_unlock_irqrestore(&e->lock, flags);
	if (rc)
		return rc;
	// Taken already, as Linux: a bad buffer loses the value.
	return iobuf_put(b, 0, &v, sizeof(v)) < 0 ? -EFAULT : (long)sizeof(v);
}

static long eventfd_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			  size_t n)
{
	struct eventfd *e = vn->priv;
	uint64_t v, flags;
	long rc = 0;

	(void)off;
	if (n < sizeof(v))
		return -EINVAL;
	if (iobuf_get(b, 0, &v, sizeof(v)) < 0)
		return -EFAULT;
	if (v == UINT64_MAX)
		return -EINVAL;
	flags = spin_lock_irqsave(&e->lock);
	while (UINT64_MAX - e->count <= v && rc == 0) {
		if (f->flags & O_NONBLOCK)
			rc = -EAGAIN;
		else if (wq_wait(&e->wq, &e->lock, WAIT_FOREVER, true))
			rc = -ERESTARTSYS;
	}
	if (rc == 0) {
		e->count += v;
		changed_locked(e, POLLIN);
	}
	spin_unlock_irqrestore(&e->lock, flags);
	return rc ? rc : (long)sizeof(v);
}

static uint64_t eventfd_poll_events(struct vnode *vn, uint32_t events)
{
	struct eventfd *e = vn->priv;

	return poll_events_for(&e->events, events);
}

// Linux's bits exactly: POLLIN, POLLOUT and POLLERR without their
// RDNORM/WRNORM twins.
static int eventfd_poll(struct vnode *vn)
{
	struct eventfd *e = vn->priv;
	uint64_t count = __atomic_load_n(&e->count, __ATOMIC_RELAXED);
	int mask = 0;

	if (count > 0)
		mask |= POLLIN;
	if (count == COUNT_MAX)
		mask |= POLLERR;
	if (count < COUNT_MAX - 1)
		mask |= POLLOUT;
	return mask;
}

static void eventfd_fdinfo(struct vnode *vn, char *buf, size_t size)
{
	struct eventfd *e = vn->priv;

	ksnprintf(buf, size, "eventfd-count: %16lx\neventfd-id: %d\n",
		  __atomic_load_n(&e->count, __ATOMIC_RELAXED), e->id);
}

static void eventfd_release(struct vnode *vn)
{
	struct eventfd *e = vn->priv;

	id_give_back(e);
	kfree(e);
}

static const struct vnode_ops eventfd_ops = {
	.read = eventfd_read,
	.write = eventfd_write,
	.poll = eventfd_poll,
	.poll_events = eventfd_poll_events,
	.open = anon_open,
	.release = eventfd_release,
	.fdinfo = eventfd_fdinfo,
	.anon_name = "eventfd",
};

// IOCB_FLAG_RESFD (kernel/fs/aio.c): the eventfd file behind fd,
// referenced, or NULL with -EBADF (no such descriptor, O_PATH) or -EINVAL
// (not an eventfd), as Linux's eventfd_ctx_fdget.
struct file *eventfd_fget(int fd, int *err)
{
	struct file *f = fget(fd);

	*err = f ? -EINVAL : -EBADF;
	if (f && f->vn && f->vn->ops == &eventfd_ops)
		return f;
	if (f)
		file_put(f);
	return NULL;
}

// Linux's eventfd_signal: adds n without ever blocking, stopping at
// 2^64 - 1 (where poll reports POLLERR).
void eventfd_signal_file(struct file *f, uint64_t n)
{
	struct eventfd *e = f->vn->priv;
	uint64_t flags = spin_lock_irqsave(&e->lock);

	if (COUNT_MAX - e->count < n)
		n = COUNT_MAX - e->count;
	e->count += n;
	changed_locked(e, POLLIN);
	spin_unlock_irqrestore(&e->lock, flags);
}

static long do_eventfd(unsigned count, int flags)
{
	struct eventfd *e;
	struct file *f;

	if (flags & ~(EFD_SEMAPHORE | EFD_NONBLOCK | EFD_CLOEXEC))
		return -EINVAL;
	e = kzalloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	spin_init(&e->lock, "eventfd");
	e->count = count;
	e->semaphore = flags & EFD_SEMAPHORE;
	f = anon_file_new(&eventfd_ops, e, (uint32_t)flags);
	if (!f) {
		kfree(e);
		return -ENOMEM;
	}
	id_take(e);
	return anon_install(f, (uint32_t)flags);
}

SYSCALL_DEFINE(SYS_eventfd, eventfd)
{
	return do_eventfd((unsigned)args->a[0], 0);
}

SYSCALL_DEFINE(SYS_eventfd2, eventfd2)
{
	return do_eventfd((unsigned)args->a[0], (int)args->a[1]);
}
