// SOCK_DGRAM and SOCK_SEQPACKET: one message per send, read whole (or
// cut, MSG_TRUNC), as Linux's unix_dgram_sendmsg and unix_dgram_recvmsg.
// A datagram socket's queue holds at most max_dgram_qlen + 1 messages
// from senders it is not connected back to; they wait for room (or get
// EAGAIN).  SOCK_SEQPACKET is the same over a connection.

#include <net/unix.h>
#include <fs/file.h>
#include <kernel/process.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

// Messages from the old peer are lost when a datagram socket connects
// elsewhere or its peer is found dead, and a peer that was connected
// back hears ECONNRESET (Linux's unix_dgram_disconnected).
void unix_dgram_disconnected(struct usock *s, struct usock *old)
{
	struct unix_skb *list;
	uint64_t flags;

	mutex_lock(&s->iolock);
	flags = spin_lock_irqsave(&unix_lock);
	list = unix_purge_locked(s);
	if (list) {
		usock_wake_locked(s, POLLOUT);
		if (!old->dead && old->peer == s) {
			old->err = ECONNRESET;
			usock_wake_locked(old, 0);
		}
	}
	spin_unlock_irqrestore(&unix_lock, flags);
	mutex_unlock(&s->iolock);
	poll_notify();
	unix_skb_free_list(list);
}

// Is 'other' full for a sender it is not connected to (lock held)?
static bool recvq_full_locked(struct usock *s, struct usock *other)
{
	return other != s && other->peer != s && other->rq_len > other->backlog;
}

// s's queue just stopped being full: the sockets connected to it become
// writable, which their own poll counts must show (edge-triggered epoll
// watches those), as Linux's unix_dgram_peer_wake_relay.
static void relay_room_locked(struct usock *s)
{
	for (struct usock *u = unix_first_sock_locked(); u; u = u->all_next)
		if (u->peer == s && u != s)
			poll_event(&u->events, POLLOUT);
}

// The destination of a send, referenced: the named socket or the peer.
static long find_target(struct usock *s, struct umsg *m, struct usock **other)
{
	struct unix_addr to;
	uint64_t flags;
	long rc;

	if (m->to.len) {
		rc = unix_addr_make(m->to.name, m->to.len, &to);
		if (rc)
			return rc;
		return unix_find_other(&to, s->type, other);
	}
	flags = spin_lock_irqsave(&unix_lock);
	*other = s->peer;
	if (*other)
		usock_get(*other);
	spin_unlock_irqrestore(&unix_lock, flags);
	return *other ? 0 : -ENOTCONN;
}

// Queues skb at other, waiting for room (lock held on entry and return).
// 0 when queued; otherwise skb is still the caller's.
static long deliver_locked(struct usock *s, struct usock *other, struct unix_skb *skb,
			   int64_t *timeo, bool *dead_peer)
{
	long rc;

	for (;;) {
		if (other->peer && other->peer != s)
			return -EPERM;		// connected to somebody else
		if (other->dead) {
			if (s->type == SOCK_SEQPACKET)
				return -EPIPE;
			if (s->peer == other) {
				s->peer = NULL;
				s->state = US_UNCONNECTED;
				*dead_peer = true;
			}
			return -ECONNREFUSED;
		}
		if (other->shutdown & RCV_SHUTDOWN)
			return -EPIPE;
		if (!recvq_full_locked(s, other))
			break;
		rc = unix_wait(&other->peer_wq, timeo);
		if (rc)
			return rc;
	}
	unix_add_creds_locked(skb, s, other);
	unix_skb_queue_locked(other, skb);
	return 0;
}

long unix_dgram_send(struct usock *s, struct file *f, struct umsg *m)
{
	int64_t timeo = unix_timeo(s->sndtimeo, m->flags);
	struct usock *other = NULL;
	struct unix_skb *skb;
	bool dead_peer = false;
	uint64_t flags;
	long rc;

	(void)f;
	if (s->type == SOCK_SEQPACKET) {
		flags = spin_lock_irqsave(&unix_lock);
		rc = s->err ? -s->err : (s->state != US_CONNECTED ? -ENOTCONN : 0);
		if (s->err)
			s->err = 0;
		spin_unlock_irqrestore(&unix_lock, flags);
		if (rc)
			return rc;
		m->to.len = 0;
	}
	if (m->flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (m->to.len) {
		struct unix_addr to;
		rc = unix_addr_make(m->to.name, m->to.len, &to);
		if (rc)
			return rc;
	} else {
		flags = spin_lock_irqsave(&unix_lock);
		rc = s->peer ? 0 : -ENOTCONN;
		spin_unlock_irqrestore(&unix_lock, flags);
		if (rc)
			return rc;
	}
	if (s->passcred && !s->addr && (rc = unix_autobind(s)) != 0)
		return rc;
	if (m->len > (size_t)s->sndbuf - 32)
		return -EMSGSIZE;
	flags = spin_lock_irqsave(&unix_lock);
	rc = unix_wait_for_wmem_locked(s, &timeo);
	spin_unlock_irqrestore(&unix_lock, flags);
	if (rc)
		return rc;
	skb = unix_skb_alloc(s, m->len, m->scm, true);
	if (!skb)
		return -ENOBUFS;
	if (iter_copy_from(&m->it, skb->data, m->len) < 0) {
		unix_skb_free(skb);
		return -EFAULT;
	}
	rc = find_target(s, m, &other);
	if (rc) {
		unix_skb_free(skb);
		return rc;
	}
	flags = spin_lock_irqsave(&unix_lock);
	rc = deliver_locked(s, other, skb, &timeo, &dead_peer);
	spin_unlock_irqrestore(&unix_lock, flags);
	poll_notify();
	if (rc)
		unix_skb_free(skb);
	if (dead_peer) {
		unix_dgram_disconnected(s, other);
		usock_put(other);		// the peer pointer's reference
	}
	usock_put(other);
	return rc ? rc : (long)m->len;
}

// The message a receive takes (lock held): the first, or for a peek with
// SO_PEEK_OFF the one that offset falls in (*skip: where in it), as
// Linux's __skb_try_recv_from_queue; NULL when there is none.
static struct unix_skb *peek_at_locked(struct usock *s, bool peek, size_t *skip)
{
	struct unix_skb *skb = s->rq_head;
	size_t off = peek && s->peek_off > 0 ? (size_t)s->peek_off : 0;

	while (skb && peek && s->peek_off >= 0 && off >= skb->len && (off || skb->peeked)) {
		off -= skb->len;
		skb = skb->next;
	}
	*skip = skb ? off : 0;
	return skb;
}

// Waits for a message (lock and iolock held; both dropped meanwhile):
// 0 when one may be there, 1 for end of file, or an error.
static long dgram_wait_locked(struct usock *s, int64_t *timeo, uint64_t *flags, uint64_t seen)
{
	long rc;

	if (s->err) {
		rc = -s->err;
		s->err = 0;
		return rc;
	}
	if (*timeo == 0) {
		// Only a seqpacket socket says end of file without waiting.
		if (s->type == SOCK_SEQPACKET && (s->shutdown & RCV_SHUTDOWN))
			return 1;
		return -EAGAIN;
	}
	if (s->shutdown & RCV_SHUTDOWN)
		return 1;
	spin_unlock_irqrestore(&unix_lock, *flags);
	mutex_unlock(&s->iolock);
	*flags = spin_lock_irqsave(&unix_lock);
	rc = 0;
	if (s->rq_seq == seen && !(s->shutdown & RCV_SHUTDOWN) && !s->err)
		rc = unix_wait(&s->wq, timeo);
	spin_unlock_irqrestore(&unix_lock, *flags);
	mutex_lock(&s->iolock);
	*flags = spin_lock_irqsave(&unix_lock);
	return rc;
}

long unix_dgram_recv(struct usock *s, struct file *f, struct umsg *m)
{
	int64_t timeo = unix_timeo(s->rcvtimeo, m->flags);
	bool peek = m->flags & MSG_PEEK;
	struct file **fds = NULL;
	struct unix_skb *skb;
	size_t size, skip = 0;
	uint64_t flags;
	int nfds = 0;
	long rc;

	(void)f;
	if (s->type == SOCK_SEQPACKET && s->state != US_CONNECTED)
		return -ENOTCONN;
	if (m->flags & MSG_OOB)
		return -EOPNOTSUPP;
	mutex_lock(&s->iolock);
	flags = spin_lock_irqsave(&unix_lock);
	while (!(skb = peek_at_locked(s, peek, &skip))) {
		rc = dgram_wait_locked(s, &timeo, &flags, s->rq_seq);
		if (rc) {
			spin_unlock_irqrestore(&unix_lock, flags);
			mutex_unlock(&s->iolock);
			return rc == 1 ? 0 : rc;
		}
	}
	if (!peek) {
		s->rq_head = skb->next;
		if (!s->rq_head)
			s->rq_tail = NULL;
		s->rq_len--;
		unix_skb_inflight_del_locked(skb);
		fds = skb->fds;
		nfds = skb->nfds;
		skb->fds = NULL;
		skb->nfds = 0;
		usock_wake_locked(s, POLLOUT);	// room for the senders waiting on us
		if (s->rq_len == s->backlog)
			relay_room_locked(s);
	}
	spin_unlock_irqrestore(&unix_lock, flags);
	poll_notify();
	if (peek && skb->nfds) {
		// The iolock keeps the message queued while it is looked at.
		fds = kmalloc(skb->nfds * sizeof(struct file *));
		if (fds) {
			flags = spin_lock_irqsave(&unix_lock);
			for (int i = 0; i < skb->nfds; i++) {
				fds[i] = skb->fds[i];
				file_get(fds[i]);
			}
			spin_unlock_irqrestore(&unix_lock, flags);
			nfds = skb->nfds;
		}
	}
	if (m->want_name) {
		m->name.len = skb->from ? skb->from->len : 0;
		for (int i = 0; i < m->name.len; i++)
			m->name.name[i] = skb->from->name[i];
	}
	size = m->len;
	if (size > skb->len - skip)
		size = skb->len - skip;
	else if (size < skb->len - skip)
		m->out_flags |= MSG_TRUNC;
	rc = iter_copy_to(&m->it, skb->data + skip, size) < 0 ? -EFAULT : 0;
	flags = spin_lock_irqsave(&unix_lock);
	if (peek && skb->len == 0)
		skb->peeked = true;
	unix_peek_off_moved_locked(s, peek, peek ? size : skb->len);
	spin_unlock_irqrestore(&unix_lock, flags);
	if (rc == 0) {
		scm_recv(s, m, skb, fds, nfds);
		rc = (m->flags & MSG_TRUNC) ? (long)(skb->len - skip) : (long)size;
	} else {
		for (int i = 0; i < nfds; i++)
			file_put(fds[i]);
		kfree(fds);
	}
	mutex_unlock(&s->iolock);
	if (!peek)
		unix_skb_free(skb);
	return rc;
}

int unix_dgram_poll(struct usock *s)
{
	uint64_t flags = spin_lock_irqsave(&unix_lock);
	struct usock *other = s->peer;
	int mask = 0;

	if (s->err)
		mask |= POLLERR;
	if (s->shutdown & RCV_SHUTDOWN)
		mask |= POLLRDHUP | POLLIN | POLLRDNORM;
	if (s->shutdown == SHUTDOWN_MASK)
		mask |= POLLHUP;
	if (s->rq_head || s->embryos)
		mask |= POLLIN | POLLRDNORM;
	if (s->type == SOCK_SEQPACKET && s->state == US_UNCONNECTED)
		mask |= POLLHUP;
	if (s->state != US_LISTEN && (s->wmem << 2) <= (size_t)s->sndbuf &&
	    !(other && !other->dead && recvq_full_locked(s, other)))
		mask |= POLLOUT | POLLWRNORM | POLLWRBAND;
	spin_unlock_irqrestore(&unix_lock, flags);
	return mask;
}
