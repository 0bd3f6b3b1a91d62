// Messages of AF_UNIX sockets: the data iterator, queued messages
// (skbs) and their accounting, and the send and receive system calls
// (sendto, recvfrom, sendmsg, recvmsg, sendmmsg, recvmmsg, and readv and
// writev on sockets), with Linux's argument checks in Linux's order.

#include <net/unix.h>
#include <fs/fcntl.h>
#include <fs/file.h>
#include <fs/fs_syscall.h>
#include <kernel/cred.h>
#include <kernel/ktime.h>
#include <kernel/syscall.h>
#include <kernel/time.h>
#include <kernel/uaccess.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define UIO_MAXIOV	1024
#define MAX_RW_COUNT	0x7ffff000UL
#define INT_MAX_	0x7fffffff

// ---- the iterator ----

static int iter_copy(struct msg_iter *it, void *kbuf, size_t n, bool to_user)
{
	char *p = kbuf;

	if (n > it->left)
		n = it->left;
	if (!it->iov) {
		int rc = to_user ? iobuf_put(it->buf, it->off, p, n) : iobuf_get(it->buf, it->off, p, n);
		if (rc < 0)
			return -EFAULT;
		it->off += n;
		it->left -= n;
		return 0;
	}
	while (n) {
		const struct sock_iovec *v = &it->iov[it->seg];
		size_t m = v->len - it->off;
		int rc;

		if (m == 0) {
			it->seg++;
			it->off = 0;
			continue;
		}
		if (m > n)
			m = n;
		rc = to_user ? copy_to_user(v->base + it->off, p, m)
			     : copy_from_user(p, v->base + it->off, m);
		if (rc < 0)
			return -EFAULT;
		p += m;
		n -= m;
		it->off += m;
		it->left -= m;
	}
	return 0;
}

int iter_copy_from(struct msg_iter *it, void *dst, size_t n)
{
	return iter_copy(it, dst, n, false);
}

int iter_copy_to(struct msg_iter *it, const void *src, size_t n)
{
	return iter_copy(it, (void *)src, n, true);
}

// ---- messages ----

struct unix_skb *unix_skb_alloc(struct usock *s, size_t len, struct scm_send *scm, bool fds)
{
	struct unix_skb *skb = kmalloc(sizeof(*skb) + len);
	uint64_t flags;

	if (!skb)
		return NULL;
	memset(skb, 0, sizeof(*skb));
	skb->len = len;
	skb->truesize = len + SKB_OVERHEAD;
	if (scm && fds && scm->nfds) {
		skb->fds = kmalloc(scm->nfds * sizeof(struct file *));
		skb->uid_entry = unix_uid_entry_alloc();
		if (!skb->fds || !skb->uid_entry) {
			kfree(skb->fds);
			kfree(skb->uid_entry);
			kfree(skb);
			return NULL;
		}
		skb->fds_uid = current_cred()->uid;
		memcpy(skb->fds, scm->fds, scm->nfds * sizeof(struct file *));
		skb->nfds = scm->nfds;
		scm->nfds = 0;		// the message holds them now
	}
	if (scm && scm->has_creds) {
		skb->has_creds = true;
		skb->creds = scm->creds;
	}
	usock_get(s);
	skb->sender = s;
	flags = spin_lock_irqsave(&unix_lock);
	s->wmem += skb->truesize;
	if (s->addr) {
		__atomic_add_fetch(&s->addr->refcount, 1, __ATOMIC_RELAXED);
		skb->from = s->addr;
	}
	spin_unlock_irqrestore(&unix_lock, flags);
	return skb;
}

void unix_skb_queue_locked(struct usock *to, struct unix_skb *skb)
{
	skb->next = NULL;
	if (to->rq_tail)
		to->rq_tail->next = skb;
	else
		to->rq_head = skb;
	to->rq_tail = skb;
	to->rq_len++;
	to->rq_seq++;
	unix_skb_inflight_add_locked(skb);
	usock_wake_locked(to, POLLIN);
}

// The memory goes back to its sender's send buffer, which may wake it.
static void skb_free_one(struct unix_skb *skb)
{
	struct usock *s = skb->sender;
	uint64_t flags = spin_lock_irqsave(&unix_lock);

	s->wmem -= skb->truesize;
	usock_wake_locked(s, POLLOUT);
	spin_unlock_irqrestore(&unix_lock, flags);
	poll_notify();
	for (int i = 0; i < skb->nfds; i++)
		file_put(skb->fds[i]);
	kfree(skb->fds);
	kfree(skb->uid_entry);
	unix_addr_put(skb->from);
	usock_put(s);
	kfree(skb);
}

// Freeing a message may close a socket whose queue holds more messages
// with more sockets: a chain as long as user space likes.  So frees are
// queued and one thread at a time drains the queue, never recursing.
static struct unix_skb *free_queue;
static bool freeing;

void unix_skb_free_list(struct unix_skb *list)
{
	uint64_t flags;

	if (!list)
		return;
	flags = spin_lock_irqsave(&unix_lock);
	while (list) {
		struct unix_skb *next = list->next;
		list->next = free_queue;
		free_queue = list;
		list = next;
	}
	if (freeing) {
		spin_unlock_irqrestore(&unix_lock, flags);
		return;
	}
	freeing = true;
	while (free_queue) {
		struct unix_skb *skb = free_queue;
		free_queue = skb->next;
		spin_unlock_irqrestore(&unix_lock, flags);
		skb_free_one(skb);
		flags = spin_lock_irqsave(&unix_lock);
	}
	freeing = false;
	spin_unlock_irqrestore(&unix_lock, flags);
}

void unix_skb_free(struct unix_skb *skb)
{
	if (skb) {
		skb->next = NULL;
		unix_skb_free_list(skb);
	}
}

struct unix_skb *unix_purge_locked(struct usock *s)
{
	struct unix_skb *list = s->rq_head;

	for (struct unix_skb *skb = list; skb; skb = skb->next)
		unix_skb_inflight_del_locked(skb);
	s->rq_head = s->rq_tail = NULL;
	s->rq_len = 0;
	return list;
}

void unix_peek_off_moved_locked(struct usock *s, bool peek, size_t n)
{
	int64_t off = s->peek_off;

	if (off < 0)
		return;
	off = peek ? off + (int64_t)n : off - (int64_t)n;
	if (off < 0)
		off = 0;
	if (off > 0x7fffffff)
		off = 0x7fffffff;
	s->peek_off = (int)off;
}

int64_t unix_timeo(int64_t timeo, int flags)
{
	return (flags & MSG_DONTWAIT) ? 0 : timeo;
}

int unix_wait(struct wait_queue *wq, int64_t *timeo)
{
	uint64_t deadline, now;
	bool forever = *timeo < 0;
	int rc;

	if (*timeo == 0)
		return -EAGAIN;
	deadline = forever ? WAIT_FOREVER : clock_monotonic_ns() + (uint64_t)*timeo;
	rc = wq_wait(wq, &unix_lock, deadline, true);
	if (!forever) {
		now = clock_monotonic_ns();
		*timeo = now >= deadline ? 0 : (int64_t)(deadline - now);
	}
	if (rc == -EINTR)
		return forever ? -ERESTARTSYS : -EINTR;
	if (rc == -ETIMEDOUT) {
		*timeo = 0;
		return -EAGAIN;
	}
	return 0;
}

// ---- the system calls ----

struct user_msghdr {
	uint64_t name;
	int32_t namelen;
	int32_t pad0;
	uint64_t iov;
	uint64_t iovlen;
	uint64_t control;
	uint64_t controllen;
	int32_t flags;
	int32_t pad1;
};

struct user_mmsghdr {
	struct user_msghdr hdr;
	uint32_t len;
	uint32_t pad;
};

static long proto_send(struct usock *s, struct file *f, struct umsg *m)
{
	if (f->flags & O_NONBLOCK)
		m->flags |= MSG_DONTWAIT;
	if (s->type == SOCK_STREAM)
		return unix_stream_send(s, f, m);
	return unix_dgram_send(s, f, m);
}

static long proto_recv(struct usock *s, struct file *f, struct umsg *m)
{
	if (f->flags & O_NONBLOCK)
		m->flags |= MSG_DONTWAIT;
	if (s->type == SOCK_STREAM)
		return unix_stream_recv(s, f, m);
	return unix_dgram_recv(s, f, m);
}

// Linux's import_iovec: at most UIO_MAXIOV segments (EMSGSIZE), none
// negative (EINVAL) or outside user space (EFAULT), the total cut at
// MAX_RW_COUNT.  *out is NULL for none.
static long get_iov(uint64_t uiov, uint64_t count, struct sock_iovec **out, size_t *total)
{
	struct sock_iovec *iov;

	*out = NULL;
	*total = 0;
	if (count > UIO_MAXIOV)
		return -EMSGSIZE;
	if (count == 0)
		return 0;
	iov = kmalloc(count * sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	if (copy_from_user(iov, uiov, count * sizeof(*iov)) < 0) {
		kfree(iov);
		return -EFAULT;
	}
	for (uint64_t i = 0; i < count; i++) {
		if ((int64_t)iov[i].len < 0) {
			kfree(iov);
			return -EINVAL;
		}
		if (!user_range_ok(iov[i].base, iov[i].len)) {
			kfree(iov);
			return -EFAULT;
		}
		if (iov[i].len > MAX_RW_COUNT - *total)
			iov[i].len = MAX_RW_COUNT - *total;
		*total += iov[i].len;
	}
	*out = iov;
	return 0;
}


static long do_sendmsg(struct usock *s, struct file *f, struct user_msghdr *h, int flags)
{
	struct sock_iovec *iov;
	struct scm_send *scm = NULL;
	struct umsg m = { 0 };
	void *ctl = NULL;
	size_t total;
	long rc;

	// Linux's __copy_msghdr: no name, no length to check.
	if (!h->name)
		h->namelen = 0;
	if (h->namelen < 0)
		return -EINVAL;
	if (h->namelen > SOCKADDR_STORAGE)
		h->namelen = SOCKADDR_STORAGE;
	if (h->name && h->namelen) {
		if (copy_from_user(m.to.name, h->name, (size_t)h->namelen) < 0)
			return -EFAULT;
		m.to.len = h->namelen;
	}
	rc = get_iov(h->iov, h->iovlen, &iov, &total);
	if (rc)
		return rc;
	if (h->controllen > INT_MAX_) {
		rc = -ENOBUFS;
		goto out;
	}
	if (h->controllen) {
		// sock_kmalloc's limit: below optmem_max, strictly.
		if (h->controllen >= OPTMEM_MAX) {
			rc = -ENOBUFS;
			goto out;
		}
		ctl = kmalloc(h->controllen);
		scm = kzalloc(sizeof(*scm));
		if (!ctl || !scm) {
			rc = -ENOBUFS;
			goto out;
		}
		if (copy_from_user(ctl, h->control, h->controllen) < 0) {
			rc = -EFAULT;
			goto out;
		}
		rc = scm_parse(ctl, h->controllen, scm);
		if (rc)
			goto out;
		m.scm = scm;
	}
	m.it = (struct msg_iter){ .iov = iov, .nseg = (int)h->iovlen, .left = total };
	m.len = total;
	m.flags = flags;
	rc = proto_send(s, f, &m);
out:
	if (scm) {
		scm_release(scm);
		kfree(scm);
	}
	kfree(ctl);
	kfree(iov);
	return rc;
}

static long do_recvmsg(struct usock *s, struct file *f, struct user_msghdr *h, uint64_t uh,
		       int flags)
{
	struct sock_iovec *iov;
	struct umsg m = { 0 };
	size_t total;
	long rc;

	if (h->name && h->namelen < 0)
		return -EINVAL;
	rc = get_iov(h->iov, h->iovlen, &iov, &total);
	if (rc)
		return rc;
	m.it = (struct msg_iter){ .iov = iov, .nseg = (int)h->iovlen, .left = total };
	m.len = total;
	m.flags = flags;
	// msg_flags starts with the call's MSG_CMSG_CLOEXEC, as Linux's
	// ___sys_recvmsg sets it (the protocols add to it).
	m.out_flags = flags & MSG_CMSG_CLOEXEC;
	m.want_name = h->name != 0;
	m.ucontrol = h->control;
	m.controllen = h->controllen;
	rc = proto_recv(s, f, &m);
	kfree(iov);
	if (rc < 0)
		return rc;
	if (h->name) {
		// The user's msg_namelen is the room (cut to what the kernel
		// takes), and gets the address's length.
		int32_t room = h->namelen > SOCKADDR_STORAGE ? SOCKADDR_STORAGE : h->namelen;
		int32_t len = room < m.name.len ? room : m.name.len;
		if (len && copy_to_user(h->name, m.name.name, (size_t)len) < 0)
			return -EFAULT;
		if (put_user_u32(uh + offsetof(struct user_msghdr, namelen), (uint32_t)m.name.len) < 0)
			return -EFAULT;
	}
	if (put_user_u32(uh + offsetof(struct user_msghdr, flags), (uint32_t)m.out_flags) < 0 ||
	    put_user_u64(uh + offsetof(struct user_msghdr, controllen), m.control_used) < 0)
		return -EFAULT;
	return rc;
}

// sendmsg and recvmsg: the descriptor, then the user's msghdr.
static long msg_call(const struct syscall_args *args, bool send)
{
	struct user_msghdr h;
	struct usock *s;
	struct file *f;
	int flags = (int)args->a[2];
	long rc;

	if ((uint32_t)flags & MSG_CMSG_COMPAT)
		return -EINVAL;
	f = sock_fget((int)args->a[0], &s, &rc);
	if (!f)
		return rc;
	if (copy_from_user(&h, args->a[1], sizeof(h)) < 0)
		rc = -EFAULT;
	else
		rc = send ? do_sendmsg(s, f, &h, flags) : do_recvmsg(s, f, &h, args->a[1], flags);
	file_put(f);
	return rc;
}

SYSCALL_DEFINE(SYS_sendmsg, sendmsg)
{
	return msg_call(args, true);
}

SYSCALL_DEFINE(SYS_recvmsg, recvmsg)
{
	return msg_call(args, false);
}

// sendto and recvfrom: the buffer is checked first, then the descriptor
// (Linux's import_single_range before sockfd_lookup_light).
SYSCALL_DEFINE(SYS_sendto, sendto)
{
	uint64_t buf = args->a[1], len = args->a[2], uaddr = args->a[4];
	int flags = (int)args->a[3], addrlen = (int)args->a[5];
	struct sock_iovec v;
	struct umsg m = { 0 };
	struct usock *s;
	struct file *f;
	long rc;

	if (len > MAX_RW_COUNT)
		len = MAX_RW_COUNT;
	if (!user_range_ok(buf, len))
		return -EFAULT;
	f = sock_fget((int)args->a[0], &s, &rc);
	if (!f)
		return rc;
	if (uaddr && addrlen) {
		if (addrlen < 0 || addrlen > SOCKADDR_STORAGE) {
			rc = -EINVAL;
			goto out;
		}
		if (copy_from_user(m.to.name, uaddr, (size_t)addrlen) < 0) {
			rc = -EFAULT;
			goto out;
		}
		m.to.len = addrlen;
	}
	v = (struct sock_iovec){ buf, len };
	m.it = (struct msg_iter){ .iov = &v, .nseg = 1, .left = len };
	m.len = len;
	m.flags = flags;
	rc = proto_send(s, f, &m);
out:
	file_put(f);
	return rc;
}

SYSCALL_DEFINE(SYS_recvfrom, recvfrom)
{
	uint64_t buf = args->a[1], len = args->a[2], uaddr = args->a[4], ulen = args->a[5];
	int flags = (int)args->a[3];
	struct sock_iovec v;
	struct umsg m = { 0 };
	struct usock *s;
	struct file *f;
	long rc, rc2;

	if (len > MAX_RW_COUNT)
		len = MAX_RW_COUNT;
	if (!user_range_ok(buf, len))
		return -EFAULT;
	f = sock_fget((int)args->a[0], &s, &rc);
	if (!f)
		return rc;
	v = (struct sock_iovec){ buf, len };
	m.it = (struct msg_iter){ .iov = &v, .nseg = 1, .left = len };
	m.len = len;
	m.flags = flags;
	m.want_name = uaddr != 0;
	rc = proto_recv(s, f, &m);
	if (rc >= 0 && uaddr) {
		rc2 = unix_put_addr(&m.name, uaddr, ulen);
		if (rc2 < 0)
			rc = rc2;
	}
	file_put(f);
	return rc;
}

SYSCALL_DEFINE(SYS_sendmmsg, sendmmsg)
{
	uint64_t uvec = args->a[1];
	unsigned vlen = (unsigned)args->a[2];
	int flags = (int)args->a[3];
	struct user_msghdr h;
	struct usock *s;
	struct file *f;
	unsigned done = 0;
	long rc;

	if ((uint32_t)flags & MSG_CMSG_COMPAT)
		return -EINVAL;
	f = sock_fget((int)args->a[0], &s, &rc);
	if (!f)
		return rc;
	if (vlen > UIO_MAXIOV)
		vlen = UIO_MAXIOV;
	rc = 0;
	while (done < vlen) {
		uint64_t ue = uvec + done * sizeof(struct user_mmsghdr);

		if (copy_from_user(&h, ue, sizeof(h)) < 0) {
			rc = -EFAULT;
			break;
		}
		rc = do_sendmsg(s, f, &h, flags);
		if (rc < 0)
			break;
		if (put_user_u32(ue + offsetof(struct user_mmsghdr, len), (uint32_t)rc) < 0) {
			rc = -EFAULT;
			break;
		}
		done++;
	}
	file_put(f);
	return done ? (long)done : rc;
}

SYSCALL_DEFINE(SYS_recvmmsg, recvmmsg)
{
	uint64_t uvec = args->a[1], utmo = args->a[4];
	unsigned vlen = (unsigned)args->a[2];
	int flags = (int)args->a[3];
	struct user_msghdr h;
	struct timespec64 ts;
	uint64_t deadline = 0, irq;
	struct usock *s;
	struct file *f;
	unsigned done = 0;
	long rc;

	if ((uint32_t)flags & MSG_CMSG_COMPAT)
		return -EINVAL;
	if (utmo) {
		if (copy_from_user(&ts, utmo, sizeof(ts)) < 0)
			return -EFAULT;
		if (!timespec64_valid(&ts))
			return -EINVAL;
		deadline = clock_monotonic_ns() + (uint64_t)timespec64_ns(&ts);
	}
	f = sock_fget((int)args->a[0], &s, &rc);
	if (!f)
		return rc;
	// A pending error (one an earlier call kept) is the answer first.
	irq = spin_lock_irqsave(&unix_lock);
	rc = -s->err;
	s->err = 0;
	spin_unlock_irqrestore(&unix_lock, irq);
	if (rc) {
		file_put(f);
		return rc;
	}
	// No cut at UIO_MAXIOV here, as Linux's do_recvmmsg.
	while (done < vlen) {
		uint64_t ue = uvec + done * sizeof(struct user_mmsghdr);

		if (copy_from_user(&h, ue, sizeof(h)) < 0) {
			rc = -EFAULT;
			break;
		}
		rc = do_recvmsg(s, f, &h, ue, flags);
		if (rc < 0)
			break;
		if (put_user_u32(ue + offsetof(struct user_mmsghdr, len), (uint32_t)rc) < 0) {
			rc = -EFAULT;
			break;
		}
		done++;
		rc = 0;
		if (flags & MSG_WAITFORONE)
			flags |= MSG_DONTWAIT;
		if (utmo && clock_monotonic_ns() >= deadline)
			break;		// checked between messages only, as Linux
	}
	// As Linux: an error after some messages is kept for the next call
	// (SO_ERROR), unless it is only that nothing more was waiting.
	if (done && rc < 0 && rc != -EAGAIN) {
		irq = spin_lock_irqsave(&unix_lock);
		s->err = (int)-rc;
		spin_unlock_irqrestore(&unix_lock, irq);
	}
	file_put(f);
	// The time left goes back at the end when something was received,
	// and a fault there is the answer (Linux's __sys_recvmmsg).
	if (utmo && done) {
		uint64_t now = clock_monotonic_ns();
		ts = ns_timespec64(now >= deadline ? 0 : (int64_t)(deadline - now));
		if (copy_to_user(utmo, &ts, sizeof(ts)) < 0)
			return -EFAULT;
	}
	return done ? (long)done : rc;
}

// readv and writev on a socket: one message from all the segments
// (kernel/syscall/fs_files.c sends them here).
long sock_rw_iov(struct file *f, const void *uiov, int64_t count, bool write)
{
	const struct sock_iovec *iov = uiov;
	struct usock *s = sock_of_file(f);
	struct umsg m = { 0 };
	size_t total = 0;

	for (int64_t i = 0; i < count; i++)
		total += iov[i].len;
	// Linux's do_iter_read/do_iter_write stop here: an empty writev
	// sends no empty datagram (a write of 0 bytes does).
	if (total == 0)
		return 0;
	m.it = (struct msg_iter){ .iov = iov, .nseg = (int)count, .left = total };
	m.len = total;
	return write ? proto_send(s, f, &m) : proto_recv(s, f, &m);
}

// send(2) and recv(2), which some archs (ppc64) keep as their own calls:
// sendto and recvfrom without an address.
#ifdef SYS_send
SYSCALL_DEFINE(SYS_send, send)
{
	struct syscall_args a = { { args->a[0], args->a[1], args->a[2], args->a[3], 0, 0 } };

	return syscall_call(SYS_sendto, &a);
}
#endif

#ifdef SYS_recv
SYSCALL_DEFINE(SYS_recv, recv)
{
	struct syscall_args a = { { args->a[0], args->a[1], args->a[2], args->a[3], 0, 0 } };

	return syscall_call(SYS_recvfrom, &a);
}
#endif
