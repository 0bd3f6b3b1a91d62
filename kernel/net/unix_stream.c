// SOCK_STREAM: a byte stream between two connected sockets, as Linux's
// unix_stream_sendmsg and unix_stream_read_generic.  A send is cut into
// messages of at most half the send buffer; a read glues messages
// together unless their credentials differ (with SO_PASSCRED) or one
// carries descriptors, which end a read.

#include <net/unix.h>
#include <fs/file.h>
#include <kernel/process.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>
#include <uapi/signal.h>

#define STREAM_CHUNK_MAX 32768	// Linux: SKB_MAX_HEAD(0) + UNIX_SKB_FRAGS_SZ, about

void unix_add_creds_locked(struct unix_skb *skb, struct usock *s, struct usock *other)
{
	if (skb->has_creds || !(s->passcred || other->passcred))
		return;
	current_ucred(&skb->creds);
	skb->has_creds = true;
}

// Linux's sock_alloc_send_pskb: a pending error, a shut-down send side
// (-EPIPE), then room in the send buffer, waited for (lock held).
long unix_wait_for_wmem_locked(struct usock *s, int64_t *timeo)
{
	for (;;) {
		long rc;

		if (s->err) {
			rc = -s->err;
			s->err = 0;
			return rc;
		}
		if (s->shutdown & SEND_SHUTDOWN)
			return -EPIPE;
		if (s->wmem < (size_t)s->sndbuf)
			return 0;
		rc = unix_wait(&s->wq, timeo);
		if (rc)
			return rc;
	}
}

static long pipe_error(struct umsg *m, size_t sent)
{
	if (sent == 0 && !(m->flags & MSG_NOSIGNAL))
		signal_send_thread(current_thread(), SIGPIPE, NULL);
	return sent ? (long)sent : -EPIPE;
}

long unix_stream_send(struct usock *s, struct file *f, struct umsg *m)
{
	int64_t timeo = unix_timeo(s->sndtimeo, m->flags);
	bool fds_sent = false;
	size_t sent = 0;
	uint64_t flags;
	long rc;

	(void)f;
	if (m->flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (m->to.len)
		return s->state == US_CONNECTED ? -EISCONN : -EOPNOTSUPP;
	flags = spin_lock_irqsave(&unix_lock);
	if (!s->peer) {
		spin_unlock_irqrestore(&unix_lock, flags);
		return -ENOTCONN;
	}
	if (s->shutdown & SEND_SHUTDOWN) {
		spin_unlock_irqrestore(&unix_lock, flags);
		return pipe_error(m, 0);
	}
	spin_unlock_irqrestore(&unix_lock, flags);
	while (sent < m->len) {
		size_t size = m->len - sent;
		size_t half = (size_t)(s->sndbuf >> 1) - 64;
		struct unix_skb *skb;
		struct usock *other;

		if (size > half)
			size = half;
		if (size > STREAM_CHUNK_MAX)
			size = STREAM_CHUNK_MAX;
		flags = spin_lock_irqsave(&unix_lock);
		rc = unix_wait_for_wmem_locked(s, &timeo);
		spin_unlock_irqrestore(&unix_lock, flags);
		if (rc)
			return sent ? (long)sent : rc;	// no SIGPIPE here, as Linux
		skb = unix_skb_alloc(s, size, m->scm, !fds_sent);
		if (!skb)
			return sent ? (long)sent : -ENOBUFS;
		fds_sent = true;
		if (iter_copy_from(&m->it, skb->data, size) < 0) {
			unix_skb_free(skb);
			return sent ? (long)sent : -EFAULT;
		}
		flags = spin_lock_irqsave(&unix_lock);
		other = s->peer;
		if (!other || other->dead || (other->shutdown & RCV_SHUTDOWN)) {
			spin_unlock_irqrestore(&unix_lock, flags);
			unix_skb_free(skb);
			return pipe_error(m, sent);
		}
		unix_add_creds_locked(skb, s, other);
		unix_skb_queue_locked(other, skb);
		spin_unlock_irqrestore(&unix_lock, flags);
		poll_notify();
		sent += size;
	}
	return (long)sent;
}

static bool creds_equal(const struct unix_skb *skb, bool has, const struct ucred_k *c)
{
	if (skb->has_creds != has)
		return false;
	return !has || (skb->creds.pid == c->pid && skb->creds.uid == c->uid &&
			skb->creds.gid == c->gid);
}

// A copy of a message's descriptors for MSG_PEEK (each referenced), or
// NULL when out of memory (they are not passed then).
static struct file **peek_fds(const struct unix_skb *skb)
{
	struct file **fds = kmalloc(skb->nfds * sizeof(struct file *));
	uint64_t flags;

	if (!fds)
		return NULL;
	flags = spin_lock_irqsave(&unix_lock);
	for (int i = 0; i < skb->nfds; i++) {
		fds[i] = skb->fds[i];
		file_get(fds[i]);
	}
	spin_unlock_irqrestore(&unix_lock, flags);
	return fds;
}

struct stream_read {
	size_t copied, target;
	bool check_creds, has_creds;
	struct ucred_k creds;
	bool name_done;
	struct file **fds;
	int nfds;
};

// The first message read fixes the credentials the read reports; later
// ones must match them (lock held).  False: stop before skb.
static bool take_creds_locked(struct usock *s, struct stream_read *r, const struct unix_skb *skb)
{
	if (r->check_creds)
		return creds_equal(skb, r->has_creds, &r->creds);
	if (s->passcred) {
		r->check_creds = true;
		r->has_creds = skb->has_creds;
		r->creds = skb->creds;
	}
	return true;
}

static void take_name_locked(struct umsg *m, struct stream_read *r, const struct unix_skb *skb)
{
	if (!m->want_name || r->name_done)
		return;
	r->name_done = true;
	m->name.len = 0;
	if (skb->from) {
		m->name.len = skb->from->len;
		for (int i = 0; i < skb->from->len; i++)
			m->name.name[i] = skb->from->name[i];
	}
}

// Nothing to read (lock held): 1 to stop the read, 0 after a wait that
// may have brought something, or an error.
static long stream_wait_locked(struct usock *s, struct stream_read *r, int64_t *timeo,
			       uint64_t *flags, uint64_t seen)
{
	long rc;

	if (r->copied >= r->target)
		return 1;
	if (s->err) {
		rc = -s->err;
		s->err = 0;
		return rc;
	}
	if (s->shutdown & RCV_SHUTDOWN)
		return 1;
	if (*timeo == 0)
		return -EAGAIN;
	// Readers wait without the iolock, as Linux's unix_stream_data_wait.
	spin_unlock_irqrestore(&unix_lock, *flags);
	mutex_unlock(&s->iolock);
	*flags = spin_lock_irqsave(&unix_lock);
	if (s->rq_seq == seen && !(s->shutdown & RCV_SHUTDOWN) && !s->err)
		rc = unix_wait(&s->wq, timeo);
	else
		rc = 0;
	spin_unlock_irqrestore(&unix_lock, *flags);
	mutex_lock(&s->iolock);
	*flags = spin_lock_irqsave(&unix_lock);
	return rc;
}

long unix_stream_recv(struct usock *s, struct file *f, struct umsg *m)
{
	int64_t timeo = unix_timeo(s->rcvtimeo, m->flags);
	bool peek = m->flags & MSG_PEEK;
	struct stream_read r = { 0 };
	struct unix_skb *last = NULL;
	uint64_t flags;
	long rc = 0;

	(void)f;
	if (s->state != US_CONNECTED)
		return -EINVAL;
	if (m->flags & MSG_OOB)
		return -EOPNOTSUPP;
	r.target = (m->flags & MSG_WAITALL) ? m->len : (m->len < (size_t)s->lowat ? m->len : (size_t)s->lowat);
	if (r.target == 0)
		r.target = 1;
	mutex_lock(&s->iolock);
	flags = spin_lock_irqsave(&unix_lock);
	for (;;) {
		struct unix_skb *skb = peek && last ? last->next : s->rq_head;
		uint64_t seen = s->rq_seq;
		size_t skip, chunk, pskip = 0;

		// SO_PEEK_OFF: a first peek starts that far into the queue.
		if (peek && !last && s->peek_off > 0) {
			pskip = (size_t)s->peek_off;
			while (skb && pskip >= skb->len - skb->consumed) {
				pskip -= skb->len - skb->consumed;
				skb = skb->next;
			}
		}
		if (!skb) {
			if (peek && last)
				break;		// a peek does not wait past what it saw
			rc = stream_wait_locked(s, &r, &timeo, &flags, seen);
			if (rc == 0)
				continue;
			if (rc == 1)
				rc = 0;
			break;
		}
		if (!take_creds_locked(s, &r, skb))
			break;
		take_name_locked(m, &r, skb);
		skip = skb->consumed + pskip;
		chunk = skb->len - skip;
		if (chunk > m->len - r.copied)
			chunk = m->len - r.copied;
		spin_unlock_irqrestore(&unix_lock, flags);
		if (chunk && iter_copy_to(&m->it, skb->data + skip, chunk) < 0) {
			if (!r.copied)
				rc = -EFAULT;
			flags = spin_lock_irqsave(&unix_lock);
			break;
		}
		r.copied += chunk;
		if (peek) {
			if (skb->nfds) {
				r.fds = peek_fds(skb);
				r.nfds = r.fds ? skb->nfds : 0;
				flags = spin_lock_irqsave(&unix_lock);
				break;
			}
			flags = spin_lock_irqsave(&unix_lock);
			last = skb;
			if (r.copied >= m->len)
				break;
			continue;
		}
		flags = spin_lock_irqsave(&unix_lock);
		skb->consumed += chunk;
		if (skb->nfds) {
			unix_skb_inflight_del_locked(skb);
			r.fds = skb->fds;
			r.nfds = skb->nfds;
			skb->fds = NULL;
			skb->nfds = 0;
		}
		if (skb->consumed < skb->len)
			break;
		s->rq_head = skb->next;
		if (!s->rq_head)
			s->rq_tail = NULL;
		s->rq_len--;
		spin_unlock_irqrestore(&unix_lock, flags);
		unix_skb_free(skb);
		flags = spin_lock_irqsave(&unix_lock);
		if (r.fds || r.copied >= m->len)
			break;
	}
	unix_peek_off_moved_locked(s, peek, r.copied);
	spin_unlock_irqrestore(&unix_lock, flags);
	mutex_unlock(&s->iolock);
	if (rc < 0 && !r.copied) {
		for (int i = 0; i < r.nfds; i++)
			file_put(r.fds[i]);
		kfree(r.fds);
		return rc;
	}
	// What the read reports when no message gave credentials: Linux's
	// zeroed scm_cookie.
	struct unix_skb creds = { 0 };
	if (r.check_creds && r.has_creds) {
		creds.has_creds = true;
		creds.creds = r.creds;
	} else if (r.check_creds) {
		creds.creds = (struct ucred_k){ 0, 65534, 65534 };
		creds.has_creds = true;
	} else {
		creds.has_creds = true;	// {0, 0, 0}
	}
	scm_recv(s, m, &creds, r.fds, r.nfds);
	return (long)r.copied;
}

int unix_stream_poll(struct usock *s)
{
	uint64_t flags = spin_lock_irqsave(&unix_lock);
	int mask = 0;

	if (s->err)
		mask |= POLLERR;
	if (s->shutdown == SHUTDOWN_MASK)
		mask |= POLLHUP;
	if (s->shutdown & RCV_SHUTDOWN)
		mask |= POLLRDHUP | POLLIN | POLLRDNORM;
	if (s->rq_head || s->embryos)
		mask |= POLLIN | POLLRDNORM;
	if (s->state == US_UNCONNECTED)
		mask |= POLLHUP;
	if (s->state != US_LISTEN && (s->wmem << 2) <= (size_t)s->sndbuf)
		mask |= POLLOUT | POLLWRNORM | POLLWRBAND;
	spin_unlock_irqrestore(&unix_lock, flags);
	return mask;
}
