// The socket layer: socket objects behind files, socket(2), socketpair(2)
// and shutdown(2), and read/write/poll on socket descriptors.  Only
// AF_UNIX exists, as in a Linux built without the other families.

#include <net/unix.h>
#include <fs/sigio.h>
#include <fs/anon.h>
#include <fs/fcntl.h>
#include <fs/file.h>
#include <fs/fs_syscall.h>
#include <fs/poll.h>
#include <fs/vfs.h>
#include <kernel/cred.h>
#include <kernel/process.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <lib/printf.h>
#include <mm/frame.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>
#include <uapi/ioctls.h>

struct spinlock unix_lock = SPINLOCK_INIT("unix sockets");

// Every socket, for names, the collector and the limit below.
static struct usock *all_socks;
static int nr_socks;

// Linux refuses a socket past twice the file limit (ENFILE); its
// default file limit is a tenth of memory in kilobytes.
static int socks_limit(void)
{
	uint64_t total, free;

	frame_stats(&total, &free);
	(void)free;
	return (int)(total * (4096 / 1024) / 10 * 2);
}

void current_ucred(struct ucred_k *c)
{
	const struct cred *cr = current_cred();

	c->pid = current_process()->pid;
	c->uid = cr->euid;
	c->gid = cr->egid;
}

void usock_get(struct usock *s)
{
	__atomic_add_fetch(&s->refcount, 1, __ATOMIC_RELAXED);
}

// The last reference: nothing points here any more, and everything the
// socket held went at its release (or it never had any).
void usock_put(struct usock *s)
{
	uint64_t flags;

	if (!s || __atomic_sub_fetch(&s->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	flags = spin_lock_irqsave(&unix_lock);
	*s->all_pprev = s->all_next;
	if (s->all_next)
		s->all_next->all_pprev = s->all_pprev;
	nr_socks--;
	spin_unlock_irqrestore(&unix_lock, flags);
	unix_addr_put(s->addr);
	kfree(s);
}

struct usock *usock_new(int type, int protocol, long *err)
{
	struct usock *s;
	uint64_t flags;

	s = kzalloc(sizeof(*s));
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	s->refcount = 1;
	s->type = type;
	s->protocol = protocol;
	s->sndbuf = WMEM_DEFAULT;
	s->rcvbuf = RMEM_DEFAULT;
	s->backlog = MAX_DGRAM_QLEN;
	s->rcvtimeo = s->sndtimeo = -1;
	s->lowat = 1;
	s->peek_off = -1;
	s->peercred.pid = 0;
	s->peercred.uid = s->peercred.gid = (uint32_t)-1;
	mutex_init(&s->iolock, "unix iolock");
	flags = spin_lock_irqsave(&unix_lock);
	if (nr_socks >= socks_limit()) {
		spin_unlock_irqrestore(&unix_lock, flags);
		kfree(s);
		*err = -ENFILE;
		return NULL;
	}
	nr_socks++;
	s->all_next = all_socks;
	if (all_socks)
		all_socks->all_pprev = &s->all_next;
	all_socks = s;
	s->all_pprev = &all_socks;
	spin_unlock_irqrestore(&unix_lock, flags);
	return s;
}

struct usock *unix_first_sock_locked(void)
{
	return all_socks;
}

void usock_wake_locked(struct usock *s, int key)
{
	wq_wake_all(&s->wq);
	wq_wake_all(&s->peer_wq);
	poll_event(&s->events, key);
	// O_ASYNC descriptors of it: SIGIO (fs/sigio.h), as Linux's
	// sk_wake_async.  Taking the signal locks inside unix_lock is safe:
	// nothing takes unix_lock while holding them.
	if (s->vn)
		sigio_notify(s->vn, FASYNC_READERS | FASYNC_WRITERS,
			     key == POLLOUT ? POLL_OUT : key == 0 ? POLL_HUP : POLL_IN);
}

// ---- the vnode ----

static struct usock *vn_sock(struct vnode *vn)
{
	return vn->priv;
}

static long sock_vn_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			 size_t n)
{
	struct usock *s = vn_sock(vn);
	struct umsg m = { 0 };

	(void)off;
	if (n == 0)
		return 0;	// as Linux's sock_read_iter: nothing to wait for
	m.it = (struct msg_iter){ .buf = b, .left = n };
	m.len = n;
	m.flags = (f->flags & O_NONBLOCK) ? MSG_DONTWAIT : 0;
	if (s->type == SOCK_STREAM)
		return unix_stream_recv(s, f, &m);
	return unix_dgram_recv(s, f, &m);
}

static long sock_vn_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			  size_t n)
{
	struct usock *s = vn_sock(vn);
	struct umsg m = { 0 };

	(void)off;
	m.it = (struct msg_iter){ .buf = b, .left = n };
	m.len = n;
	m.flags = (f->flags & O_NONBLOCK) ? MSG_DONTWAIT : 0;
	if (s->type == SOCK_STREAM)
		return unix_stream_send(s, f, &m);
	return unix_dgram_send(s, f, &m);
}

static int sock_vn_poll(struct vnode *vn)
{
	struct usock *s = vn_sock(vn);

	return s->type == SOCK_STREAM ? unix_stream_poll(s) : unix_dgram_poll(s);
}

static uint64_t sock_vn_poll_events(struct vnode *vn, uint32_t events)
{
	return poll_events_for(&vn_sock(vn)->events, events);
}


// Linux's unix_ioctl: the bytes waiting to be read (a stream's or
// seqpacket's whole queue, a datagram socket's next message), and what
// its sent messages still hold of the send buffer; others ENOTTY.
static long sock_vn_ioctl(struct vnode *vn, struct file *f, unsigned cmd, uint64_t arg)
{
	struct usock *s = vn_sock(vn);
	uint64_t flags;
	size_t amount = 0;
	long rc = 0;

	(void)f;
	if (cmd != SIOCINQ && cmd != SIOCOUTQ)
		return -ENOTTY;
	flags = spin_lock_irqsave(&unix_lock);
	if (cmd == SIOCOUTQ) {
		amount = s->wmem;
	} else if (s->state == US_LISTEN) {
		rc = -EINVAL;
	} else if (s->type == SOCK_DGRAM) {
		amount = s->rq_head ? s->rq_head->len : 0;
	} else {
		for (struct unix_skb *skb = s->rq_head; skb; skb = skb->next)
			amount += skb->len - skb->consumed;
	}
	spin_unlock_irqrestore(&unix_lock, flags);
	if (rc)
		return rc;
	return put_user_u32(arg, (uint32_t)amount) < 0 ? -EFAULT : 0;
}

// Linux's unix_show_fdinfo: the descriptors waiting in its queue (a
// listener's: in its waiting connections').
static void sock_vn_fdinfo(struct vnode *vn, char *buf, size_t size)
{
	struct usock *s = vn_sock(vn);
	uint64_t flags = spin_lock_irqsave(&unix_lock);
	unsigned nfds = 0;

	for (struct usock *q = s; q; q = q == s ? s->embryos : q->embryo_next) {
		if (q == s && s->state == US_LISTEN)
			continue;
		for (struct unix_skb *skb = q->rq_head; skb; skb = skb->next)
			nfds += (unsigned)skb->nfds;
	}
	spin_unlock_irqrestore(&unix_lock, flags);
	ksnprintf(buf, size, "scm_fds: %u\n", nfds);
}

static void sock_vn_release(struct vnode *vn)
{
	struct usock *s = vn_sock(vn);

	if (s)
		unix_release(s);
}

static const struct vnode_ops sock_vnode_ops = {
	.read = sock_vn_read,
	.write = sock_vn_write,
	.poll = sock_vn_poll,
	.poll_events = sock_vn_poll_events,
	.ioctl = sock_vn_ioctl,
	.open = anon_open,		// reopening through /proc/PID/fd: ENXIO, as Linux
	.release = sock_vn_release,
	.fdinfo = sock_vn_fdinfo,
	.stream = true,			// lseek: ESPIPE; also fasync (O_ASYNC, SIGIO)
};

struct usock *sock_of_file(const struct file *f)
{
	if (!f || !f->vn || f->vn->ops != &sock_vnode_ops || (f->flags & O_PATH))
		return NULL;
	return f->vn->priv;
}

// A socket's file before it has a socket (accept makes it before it
// waits, so that nothing can fail once a connection is taken).
struct file *sock_file_alloc(uint32_t flags)
{
	struct vnode *vn = vnode_alloc(VNODE_SOCK, 0777);
	struct file *f;

	if (!vn)
		return NULL;
	vn->ops = &sock_vnode_ops;	// no priv yet: its release does nothing
	f = file_new_vnode(vn, O_RDWR | (flags & O_NONBLOCK));
	if (!f)
		vnode_put(vn);
	return f;
}

// s becomes the file's socket, taking over the caller's reference.
void sock_file_attach(struct file *f, struct usock *s)
{
	s->vn = f->vn;
	s->file = f;
	f->vn->priv = s;
}

struct file *usock_file(struct usock *s, uint32_t flags)
{
	struct file *f = sock_file_alloc(flags);

	if (!f) {
		usock_put(s);
		return NULL;
	}
	sock_file_attach(f, s);
	return f;
}

struct file *sock_fget(int fd, struct usock **s, long *err)
{
	struct file *f = fget(fd);

	if (!f) {
		*err = -EBADF;
		return NULL;
	}
	*s = sock_of_file(f);
	if (!*s) {
		file_put(f);
		*err = -ENOTSOCK;
		return NULL;
	}
	return f;
}

// ---- socket and socketpair ----

// Linux's order: the flags in the type, the family, the type's range,
// then the family's own checks (unix_create: the protocol, then the type).
static long check_socket_args(int family, int type, int protocol, int *kind)
{
	int t = type & SOCK_TYPE_MASK;

	if ((type & ~SOCK_TYPE_MASK) & ~(O_CLOEXEC | O_NONBLOCK))
		return -EINVAL;
	if (family < 0 || family >= AF_MAX)
		return -EAFNOSUPPORT;
	if (t >= SOCK_MAX)
		return -EINVAL;
	if (family != AF_UNIX)
		return -EAFNOSUPPORT;
	if (protocol && protocol != AF_UNIX)
		return -EPROTONOSUPPORT;
	if (t == SOCK_RAW)
		t = SOCK_DGRAM;		// as unix_create
	if (t != SOCK_STREAM && t != SOCK_DGRAM && t != SOCK_SEQPACKET)
		return -ESOCKTNOSUPPORT;
	*kind = t;
	return 0;
}

static long install(struct file *f, int type)
{
	int fd = fd_install(current_fdtable(), f, 0, type & O_CLOEXEC);

	file_put(f);
	return fd;
}

SYSCALL_DEFINE(SYS_socket, socket)
{
	int family = (int)args->a[0], type = (int)args->a[1], protocol = (int)args->a[2];
	struct usock *s;
	struct file *f;
	long rc;
	int kind;

	rc = check_socket_args(family, type, protocol, &kind);
	if (rc)
		return rc;
	s = usock_new(kind, protocol, &rc);
	if (!s)
		return rc;
	f = usock_file(s, (uint32_t)type);
	if (!f)
		return -ENOMEM;
	return install(f, type);
}

// Both ends connected to each other, each with the caller's credentials
// as its peer's (Linux's init_peercred on both).
static void pair_up(struct usock *a, struct usock *b)
{
	struct ucred_k me;

	current_ucred(&me);
	usock_get(b);
	a->peer = b;
	usock_get(a);
	b->peer = a;
	a->state = b->state = US_CONNECTED;
	a->peercred = b->peercred = me;
	a->has_peercred = b->has_peercred = true;
}

SYSCALL_DEFINE(SYS_socketpair, socketpair)
{
	int family = (int)args->a[0], type = (int)args->a[1], protocol = (int)args->a[2];
	uint64_t usv = args->a[3];
	struct fdtable *fdt = current_fdtable();
	struct usock *a, *b;
	struct file *fa, *fb;
	int kind, fds[2];
	long rc;

	rc = check_socket_args(family, type, protocol, &kind);
	if (rc)
		return rc;
	a = usock_new(kind, protocol, &rc);
	if (!a)
		return rc;
	b = usock_new(kind, protocol, &rc);
	if (!b) {
		usock_put(a);
		return rc;
	}
	fa = usock_file(a, (uint32_t)type);
	fb = fa ? usock_file(b, (uint32_t)type) : (usock_put(b), NULL);
	if (!fa || !fb) {
		file_put(fa);
		return -ENOMEM;
	}
	pair_up(a, b);
	fds[0] = fd_install(fdt, fa, 0, type & O_CLOEXEC);
	fds[1] = fds[0] < 0 ? fds[0] : fd_install(fdt, fb, 0, type & O_CLOEXEC);
	rc = fds[1] < 0 ? fds[1] : 0;
	if (rc == 0 && copy_to_user(usv, fds, sizeof(fds)) < 0)
		rc = -EFAULT;
	if (rc) {
		// Linux makes the descriptors visible only after the copy.
		if (fds[0] >= 0)
			fd_close(fdt, fds[0]);
		if (fds[1] >= 0)
			fd_close(fdt, fds[1]);
	}
	file_put(fa);
	file_put(fb);
	return rc;
}

// ---- shutdown ----

SYSCALL_DEFINE(SYS_shutdown, shutdown)
{
	int how = (int)args->a[1];
	struct usock *s, *peer;
	uint64_t flags;
	int mode;
	long rc = 0;
	struct file *f = sock_fget((int)args->a[0], &s, &rc);

	if (!f)
		return rc;
	if (how < SHUT_RD || how > SHUT_RDWR) {
		file_put(f);
		return -EINVAL;
	}
	mode = how + 1;
	flags = spin_lock_irqsave(&unix_lock);
	s->shutdown |= mode;
	usock_wake_locked(s, 0);
	peer = s->peer;
	if (peer && s->type != SOCK_DGRAM) {
		if (mode & RCV_SHUTDOWN)
			peer->shutdown |= SEND_SHUTDOWN;
		if (mode & SEND_SHUTDOWN)
			peer->shutdown |= RCV_SHUTDOWN;
		usock_wake_locked(peer, 0);
	}
	spin_unlock_irqrestore(&unix_lock, flags);
	poll_notify();
	file_put(f);
	return rc;
}
