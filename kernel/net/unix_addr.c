// Names and connections of AF_UNIX sockets: bind (a socket node in the
// file tree, an abstract name, or autobind's "\0XXXXX"), listen, connect,
// accept, getsockname, getpeername, and the close (unix_release), as
// Linux 6.1's af_unix.c.  Abstract names are per socket type there (the
// type is part of their hash), so they are here.

#include <net/unix.h>
#include <fs/fcntl.h>
#include <fs/file.h>
#include <fs/fs_syscall.h>
#include <fs/vfs.h>
#include <kernel/cred.h>
#include <kernel/process.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>


void unix_addr_put(struct unix_addr *a)
{
	if (a && __atomic_sub_fetch(&a->refcount, 1, __ATOMIC_ACQ_REL) == 0)
		kfree(a);
}

static struct unix_addr *addr_dup(const struct unix_addr *a)
{
	struct unix_addr *n = kmalloc(sizeof(*n));

	if (n) {
		*n = *a;
		n->refcount = 1;
	}
	return n;
}

int unix_addr_make(const void *a, int addrlen, struct unix_addr *out)
{
	const uint8_t *p = a;

	if (addrlen <= SUN_PATH_OFF || addrlen > SUN_PATH_OFF + UNIX_PATH_MAX)
		return -EINVAL;
	if ((p[0] | p[1] << 8) != AF_UNIX)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	memcpy(out->name, p, (size_t)addrlen);
	out->name[addrlen] = 0;
	// A path counts up to its NUL, which counts too (unix_mkname_bsd).
	out->len = p[SUN_PATH_OFF] ? (int)strlen(out->name + SUN_PATH_OFF) + 1 + SUN_PATH_OFF
				   : addrlen;
	return 0;
}

static bool abstract(const struct unix_addr *a)
{
	return a->name[SUN_PATH_OFF] == 0;
}

// The live socket bound to the abstract name a with 'type' (lock held).
static struct usock *find_abstract_locked(const struct unix_addr *a, int type)
{
	for (struct usock *u = unix_first_sock_locked(); u; u = u->all_next)
		if (!u->dead && u->addr && u->type == type && abstract(u->addr) &&
		    u->addr->len == a->len && !memcmp(u->addr->name, a->name, (size_t)a->len))
			return u;
	return NULL;
}

static struct usock *find_path_locked(const struct vnode *vn)
{
	for (struct usock *u = unix_first_sock_locked(); u; u = u->all_next)
		if (!u->dead && u->path == vn)
			return u;
	return NULL;
}

// Linux's unix_find_bsd: the lookup, write permission, a socket node, a
// socket bound to it, its type.
static int find_bsd(const struct unix_addr *a, int type, struct usock **out)
{
	struct vnode *vn;
	struct usock *u;
	uint64_t flags;
	int rc = vfs_lookup(a->name + SUN_PATH_OFF, true, &vn);

	if (rc)
		return rc;
	rc = vnode_may(vn, MAY_WRITE);
	if (rc == 0 && vn->type != VNODE_SOCK)
		rc = -ECONNREFUSED;
	if (rc == 0) {
		flags = spin_lock_irqsave(&unix_lock);
		u = find_path_locked(vn);
		if (!u)
			rc = -ECONNREFUSED;
		else if (u->type != type)
			rc = -EPROTOTYPE;
		else
			usock_get(u);
		spin_unlock_irqrestore(&unix_lock, flags);
		if (rc == 0)
			*out = u;
	}
	vnode_put(vn);
	return rc;
}

int unix_find_other(const struct unix_addr *a, int type, struct usock **out)
{
	struct usock *u;
	uint64_t flags;

	if (!abstract(a))
		return find_bsd(a, type, out);
	flags = spin_lock_irqsave(&unix_lock);
	u = find_abstract_locked(a, type);
	if (u)
		usock_get(u);
	spin_unlock_irqrestore(&unix_lock, flags);
	if (!u)
		return -ECONNREFUSED;
	*out = u;
	return 0;
}

// ---- bind ----

int unix_autobind(struct usock *s)
{
	static uint32_t ordernum;
	struct unix_addr a, *n;
	uint64_t flags;
	uint32_t last;

	memset(&a, 0, sizeof(a));
	a.name[0] = AF_UNIX;
	a.len = SUN_PATH_OFF + 1 + 5;
	n = kmalloc(sizeof(*n));
	if (!n)
		return -ENOMEM;
	flags = spin_lock_irqsave(&unix_lock);
	if (s->addr) {
		spin_unlock_irqrestore(&unix_lock, flags);
		kfree(n);
		return 0;
	}
	last = ordernum & 0xfffff;
	for (;;) {
		static const char hex[] = "0123456789abcdef";
		uint32_t v = ordernum = (ordernum + 1) & 0xfffff;

		for (int i = 4; i >= 0; i--, v >>= 4)
			a.name[SUN_PATH_OFF + 1 + i] = hex[v & 0xf];
		if (!find_abstract_locked(&a, s->type))
			break;
		if ((ordernum & 0xfffff) == last) {
			spin_unlock_irqrestore(&unix_lock, flags);
			kfree(n);
			return -ENOSPC;		// every name taken
		}
	}
	*n = a;
	n->refcount = 1;
	s->addr = n;
	spin_unlock_irqrestore(&unix_lock, flags);
	return 0;
}

static long bind_abstract(struct usock *s, const struct unix_addr *a)
{
	struct unix_addr *n = addr_dup(a);
	uint64_t flags;
	long rc = 0;

	if (!n)
		return -ENOMEM;
	flags = spin_lock_irqsave(&unix_lock);
	if (s->addr)
		rc = -EINVAL;
	else if (find_abstract_locked(a, s->type))
		rc = -EADDRINUSE;
	else
		s->addr = n;
	spin_unlock_irqrestore(&unix_lock, flags);
	if (rc)
		kfree(n);
	return rc;
}

// The node first, as Linux's unix_bind_bsd (an existing name is
// EADDRINUSE even for a socket already bound), then the socket's name.
static long bind_bsd(struct usock *s, const struct unix_addr *a)
{
	char name[NAME_MAX + 1];
	struct unix_addr *n;
	struct vnode *dir, *vn;
	bool slash;
	uint64_t flags;
	long rc;

	rc = vfs_lookup_parent(NULL, a->name + SUN_PATH_OFF, &dir, name, &slash);
	if (rc)
		return rc;
	if (slash || name[0] == 0)
		rc = name[0] == 0 ? -EEXIST : -ENOENT;
	else
		rc = vnode_may(dir, MAY_WRITE | MAY_EXEC);
	if (rc == 0)
		rc = vfs_create_node(dir, name, VNODE_SOCK, 0777 & ~current_umask(), 0, &vn);
	if (rc) {
		vnode_put(dir);
		return rc == -EEXIST ? -EADDRINUSE : rc;
	}
	n = addr_dup(a);
	flags = spin_lock_irqsave(&unix_lock);
	rc = !n ? -ENOMEM : s->addr ? -EINVAL : 0;
	if (rc == 0) {
		s->addr = n;
		s->path = vn;
	}
	spin_unlock_irqrestore(&unix_lock, flags);
	if (rc) {
		kfree(n);
		vnode_put(vn);
		vfs_unlink(dir, name, false);
	}
	vnode_put(dir);
	return rc;
}

// Linux's move_addr_to_kernel: 0..128 bytes (EINVAL), copied (EFAULT).
static long get_addr(uint64_t uaddr, int len, char *buf)
{
	if (len < 0 || len > SOCKADDR_STORAGE)
		return -EINVAL;
	if (len && copy_from_user(buf, uaddr, (size_t)len) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE(SYS_bind, bind)
{
	int len = (int)args->a[2];
	char raw[SOCKADDR_STORAGE + 1];
	struct unix_addr a;
	struct usock *s;
	struct file *f;
	long rc;

	f = sock_fget((int)args->a[0], &s, &rc);
	if (!f)
		return rc;
	rc = get_addr(args->a[1], len, raw);
	if (rc == 0 && len == SUN_PATH_OFF && (raw[0] | raw[1] << 8) == AF_UNIX)
		rc = unix_autobind(s);
	else if (rc == 0 && (rc = unix_addr_make(raw, len, &a)) == 0)
		rc = abstract(&a) ? bind_abstract(s, &a) : bind_bsd(s, &a);
	file_put(f);
	return rc;
}

// ---- listen ----

SYSCALL_DEFINE(SYS_listen, listen)
{
	int backlog = (int)args->a[1];
	struct usock *s;
	struct file *f;
	uint64_t flags;
	long rc;

	f = sock_fget((int)args->a[0], &s, &rc);
	if (!f)
		return rc;
	if ((unsigned)backlog > SOMAXCONN)
		backlog = SOMAXCONN;
	flags = spin_lock_irqsave(&unix_lock);
	if (s->type != SOCK_STREAM && s->type != SOCK_SEQPACKET)
		rc = -EOPNOTSUPP;
	else if (!s->addr)
		rc = -EINVAL;
	else if (s->state != US_UNCONNECTED && s->state != US_LISTEN)
		rc = -EINVAL;
	else {
		if (backlog > s->backlog)
			usock_wake_locked(s, 0);	// connectors waiting for room
		s->backlog = backlog;
		s->state = US_LISTEN;
		current_ucred(&s->peercred);
		s->has_peercred = true;
		rc = 0;
	}
	spin_unlock_irqrestore(&unix_lock, flags);
	poll_notify();
	file_put(f);
	return rc;
}

// ---- connect ----

// Linux's unix_stream_connect: a new socket (the embryo) waits in the
// listener's queue, already connected to s, until accept takes it.
static long stream_connect(struct usock *s, const struct unix_addr *a, int64_t timeo)
{
	struct usock *e, *other;
	struct ucred_k me;
	uint64_t flags;
	long rc;

	if (s->passcred && !s->addr && (rc = unix_autobind(s)) != 0)
		return rc;
	e = usock_new(s->type, s->protocol, &rc);
	if (!e)
		return rc;
	current_ucred(&me);
	for (;;) {
		rc = unix_find_other(a, s->type, &other);
		if (rc) {
			usock_put(e);
			return rc;
		}
		flags = spin_lock_irqsave(&unix_lock);
		for (;;) {
			if (other->dead) {
				rc = 1;		// it went: look the name up again
				break;
			}
			if (other->state != US_LISTEN || (other->shutdown & RCV_SHUTDOWN)) {
				rc = -ECONNREFUSED;
				break;
			}
			if (other->nembryos <= other->backlog) {
				rc = 0;
				break;
			}
			rc = unix_wait(&other->peer_wq, &timeo);
			if (rc)
				break;
		}
		if (rc == 0) {
			if (s->state == US_CONNECTED)
				rc = -EISCONN;
			else if (s->state != US_UNCONNECTED)
				rc = -EINVAL;
		}
		if (rc == 0)
			break;
		spin_unlock_irqrestore(&unix_lock, flags);
		usock_put(other);
		if (rc != 1) {
			usock_put(e);
			return rc;
		}
	}
	e->state = US_CONNECTED;
	usock_get(s);
	e->peer = s;
	e->peercred = me;
	e->has_peercred = true;
	if (other->addr) {
		__atomic_add_fetch(&other->addr->refcount, 1, __ATOMIC_RELAXED);
		e->addr = other->addr;
	}
	usock_get(e);
	s->peer = e;
	s->state = US_CONNECTED;
	s->peercred = other->peercred;
	s->has_peercred = other->has_peercred;
	// The listener's queue holds the embryo's first reference.
	e->embryo_next = NULL;
	if (other->embryos_tail)
		other->embryos_tail->embryo_next = e;
	else
		other->embryos = e;
	other->embryos_tail = e;
	other->nembryos++;
	usock_wake_locked(other, POLLIN);
	spin_unlock_irqrestore(&unix_lock, flags);
	poll_notify();
	usock_put(other);
	return 0;
}

// Linux's unix_dgram_connect: a default destination, or none for
// AF_UNSPEC; messages from the old one are dropped.
static long dgram_connect(struct usock *s, const char *raw, int len)
{
	struct usock *other = NULL, *old;
	struct unix_addr a;
	uint64_t flags;
	long rc;

	if (len < 2)
		return -EINVAL;
	if ((raw[0] | raw[1] << 8) != AF_UNSPEC) {
		rc = unix_addr_make(raw, len, &a);
		if (rc)
			return rc;
		if (s->passcred && !s->addr && (rc = unix_autobind(s)) != 0)
			return rc;
		for (;;) {
			rc = unix_find_other(&a, s->type, &other);
			if (rc)
				return rc;
			flags = spin_lock_irqsave(&unix_lock);
			if (!other->dead)
				break;
			spin_unlock_irqrestore(&unix_lock, flags);
			usock_put(other);
		}
		if (other->peer && other->peer != s) {
			spin_unlock_irqrestore(&unix_lock, flags);
			usock_put(other);
			return -EPERM;
		}
	} else {
		flags = spin_lock_irqsave(&unix_lock);
	}
	old = s->peer;
	s->peer = other;		// our reference moves here
	s->state = other ? US_CONNECTED : US_UNCONNECTED;
	if (old)
		usock_wake_locked(old, POLLOUT);
	spin_unlock_irqrestore(&unix_lock, flags);
	poll_notify();
	if (old) {
		if (old != other)
			unix_dgram_disconnected(s, old);
		usock_put(old);
	}
	return 0;
}

SYSCALL_DEFINE(SYS_connect, connect)
{
	int len = (int)args->a[2];
	char raw[SOCKADDR_STORAGE + 1];
	struct unix_addr a;
	struct usock *s;
	struct file *f;
	long rc;

	f = sock_fget((int)args->a[0], &s, &rc);
	if (!f)
		return rc;
	rc = get_addr(args->a[1], len, raw);
	if (rc == 0 && s->type == SOCK_DGRAM)
		rc = dgram_connect(s, raw, len);
	else if (rc == 0 && (rc = unix_addr_make(raw, len, &a)) == 0)
		rc = stream_connect(s, &a, (f->flags & O_NONBLOCK) ? 0 : s->sndtimeo);
	file_put(f);
	return rc;
}

// ---- accept ----

// Linux's unix_getname: its own name or the peer's; an unbound socket's
// is the family alone.  The length, or -ENOTCONN without a peer.
static int getname(struct usock *s, bool peer, struct unix_addr *out)
{
	uint64_t flags = spin_lock_irqsave(&unix_lock);
	struct usock *u = peer ? s->peer : s;
	int rc = 0;

	if (!u) {
		rc = -ENOTCONN;
	} else if (u->addr) {
		*out = *u->addr;
	} else {
		memset(out, 0, sizeof(*out));
		out->name[0] = AF_UNIX;
		out->len = SUN_PATH_OFF;
	}
	spin_unlock_irqrestore(&unix_lock, flags);
	return rc ? rc : out->len;
}

// Linux's move_addr_to_user: as much of the address as *ulen allows,
// and its whole length back in *ulen.
long unix_put_addr(const struct unix_addr *a, uint64_t uaddr, uint64_t ulen)
{
	int32_t len;

	if (get_user_u32((uint32_t *)&len, ulen) < 0)
		return -EFAULT;
	if (len > a->len)
		len = a->len;
	if (len < 0)
		return -EINVAL;
	if (len && copy_to_user(uaddr, a->name, (size_t)len) < 0)
		return -EFAULT;
	return put_user_u32(ulen, (uint32_t)a->len) < 0 ? -EFAULT : 0;
}

// Waits for an embryo of the listener s and takes it (referenced).
static long take_embryo(struct usock *s, int64_t timeo, struct usock **out)
{
	uint64_t flags = spin_lock_irqsave(&unix_lock);
	struct usock *e;
	long rc = 0;

	while (!(e = s->embryos)) {
		if (s->err) {
			rc = -s->err;
			s->err = 0;
			break;
		}
		if (s->shutdown & RCV_SHUTDOWN) {
			rc = -EINVAL;
			break;
		}
		rc = unix_wait(&s->wq, &timeo);
		if (rc)
			break;
		if (s->state != US_LISTEN) {
			rc = -EINVAL;
			break;
		}
	}
	if (e) {
		s->embryos = e->embryo_next;
		if (!s->embryos)
			s->embryos_tail = NULL;
		s->nembryos--;
		e->passcred = s->passcred;	// unix_sock_inherit_flags
		usock_wake_locked(s, POLLOUT);	// a connector waiting for room
		rc = 0;
	}
	spin_unlock_irqrestore(&unix_lock, flags);
	poll_notify();
	*out = e;
	return rc;
}

static long do_accept(int fd, uint64_t uaddr, uint64_t ulen, int aflags)
{
	struct file *f, *nf;
	struct usock *s, *e;
	struct unix_addr a;
	long rc;
	int nfd;

	f = fget(fd);
	if (!f)
		return -EBADF;
	if (aflags & ~(O_CLOEXEC | O_NONBLOCK)) {
		file_put(f);
		return -EINVAL;
	}
	s = sock_of_file(f);
	if (!s) {
		file_put(f);
		return -ENOTSOCK;
	}
	rc = fd_prepare(current_fdtable(), 0);
	if (rc < 0)
		goto out;
	nf = sock_file_alloc((uint32_t)aflags);
	if (!nf) {
		rc = -ENOMEM;
		goto out;
	}
	if (s->type != SOCK_STREAM && s->type != SOCK_SEQPACKET)
		rc = -EOPNOTSUPP;
	else if (s->state != US_LISTEN)
		rc = -EINVAL;
	else
		rc = take_embryo(s, (f->flags & O_NONBLOCK) ? 0 : s->rcvtimeo, &e);
	if (rc) {
		file_put(nf);
		goto out;
	}
	sock_file_attach(nf, e);	// the queue's reference is the file's now
	if (uaddr) {
		getname(e, true, &a);
		rc = unix_put_addr(&a, uaddr, ulen);
		if (rc) {
			file_put(nf);	// the connection goes, as Linux's
			goto out;
		}
	}
	nfd = fd_install(current_fdtable(), nf, 0, aflags & O_CLOEXEC);
	file_put(nf);
	rc = nfd;
out:
	file_put(f);
	return rc;
}

SYSCALL_DEFINE(SYS_accept, accept)
{
	return do_accept((int)args->a[0], args->a[1], args->a[2], 0);
}

SYSCALL_DEFINE(SYS_accept4, accept4)
{
	return do_accept((int)args->a[0], args->a[1], args->a[2], (int)args->a[3]);
}

static long do_getname(const struct syscall_args *args, bool peer)
{
	struct unix_addr a;
	struct usock *s;
	struct file *f;
	long rc;

	f = sock_fget((int)args->a[0], &s, &rc);
	if (!f)
		return rc;
	rc = getname(s, peer, &a);
	if (rc >= 0)
		rc = unix_put_addr(&a, args->a[1], args->a[2]);
	file_put(f);
	return rc;
}

SYSCALL_DEFINE(SYS_getsockname, getsockname)
{
	return do_getname(args, false);
}

SYSCALL_DEFINE(SYS_getpeername, getpeername)
{
	return do_getname(args, true);
}

// ---- the close ----

// Linux's unix_release_sock: the socket is dead, its connected peer
// hears the hang-up (ECONNRESET if unread data was lost or it never got
// accepted), its queue and waiting connections go.
static void release_one(struct usock *s, bool embryo, struct usock **embryos)
{
	struct unix_skb *list;
	struct usock *peer;
	struct vnode *path;
	uint64_t flags = spin_lock_irqsave(&unix_lock);

	s->dead = true;
	s->state = US_UNCONNECTED;
	s->shutdown = SHUTDOWN_MASK;
	s->file = NULL;
	path = s->path;
	s->path = NULL;
	peer = s->peer;
	s->peer = NULL;
	if (peer && s->type != SOCK_DGRAM) {
		peer->shutdown = SHUTDOWN_MASK;
		if (s->rq_head || embryo)
			peer->err = ECONNRESET;
		usock_wake_locked(peer, 0);
	}
	usock_wake_locked(s, 0);
	list = unix_purge_locked(s);
	*embryos = s->embryos;
	s->embryos = s->embryos_tail = NULL;
	s->nembryos = 0;
	spin_unlock_irqrestore(&unix_lock, flags);
	poll_notify();
	unix_skb_free_list(list);
	vnode_put(path);
	usock_put(peer);
}

void unix_release(struct usock *s)
{
	struct usock *embryos, *next;

	release_one(s, false, &embryos);
	// Waiting connections are closed as if accepted and closed at once;
	// an embryo has no embryos of its own.
	for (struct usock *e = embryos; e; e = next) {
		struct usock *none;
		next = e->embryo_next;
		release_one(e, true, &none);
		usock_put(e);
	}
	usock_put(s);
	unix_gc_maybe();
}
