// Pipes, as Linux 6.1's fs/pipe.c: a ring of slots (16 for a new pipe),
// each a page of the pipe's memory holding one buffer (an offset and a
// length within its page, and flags).  A write first tops up the last
// buffer (its length modulo a page, if it fits and the buffer may take
// more), then fills new slots a page at a time; a reader takes buffers in
// order.  A writer whose file has O_DIRECT makes packets (pipe2's packet
// mode): each slot it fills is one packet, never topped up, and a read
// takes at most one packet, the rest of which is dropped.  splice, tee
// and vmsplice move buffers between pipes and files (kernel/fs/pipe.c's
// pipe_splice_* below).
//
// The ring and both wait queues are guarded by the pipe's lock; user
// memory is never touched under it: data goes through a bounce buffer on
// its way in and out, so a fault (which may sleep) happens with no lock
// held.

#include <fs/sigio.h>
#include <fs/pipe.h>
#include <kernel/cred.h>
#include <fs/file.h>
#include <fs/fcntl.h>
#include <fs/poll.h>
#include <fs/vnode.h>
#include <kernel/process.h>
#include <kernel/user_counts.h>
#include <kernel/wait.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <mm/frame.h>
#include <mm/phys.h>
#include <uapi/errno.h>
#include <uapi/signal.h>

#define PIPE_ORDER 4		// 2^4 pages = 64 KiB, the size of a new pipe
#define BOUNCE_SMALL 256	// on the stack; larger transfers use a page

_Static_assert(PIPE_SIZE == (4096 << PIPE_ORDER), "pipe ring is 2^PIPE_ORDER pages");
_Static_assert(PIPE_BUF == PAGE_SIZE, "a pipe buffer is a page");

// A buffer's flags, Linux's PIPE_BUF_FLAG_*.
#define BUF_CAN_MERGE	0x1	// a write may top it up
#define BUF_PACKET	0x2	// one packet: a read takes it and no more

// One slot's buffer: bytes [offset, offset + len) of its page.
struct pipe_buf {
	uint32_t offset, len;
	uint32_t flags;
};

struct pipe {
	struct spinlock lock;
	char *ring;			// nslots pages: slot i is page i
	unsigned order;			// the ring is 2^order pages
	size_t size;			// of the ring: the capacity (F_SETPIPE_SZ)
	struct pipe_buf *bufs;		// nslots of them
	size_t nslots;			// size / PAGE_SIZE
	size_t tail;			// the slot of the first buffer
	size_t nbufs;			// slots in use
	size_t count;			// bytes in them (FIONREAD)
	int readers, writers;		// open ends
	struct wait_queue read_wq;	// readers waiting for data
	struct wait_queue write_wq;	// writers waiting for space
	// A FIFO's pipe: its vnode (whose priv it is while any end is open),
	// and how many readers and writers ever opened it, for an opener
	// waiting for the other side (Linux's r_counter, w_counter).
	struct vnode *fifo;
	unsigned r_counter, w_counter;
	// fs/poll.h: Linux's wake-ups with their keys (as 6.1's pipe_read,
	// pipe_write: data in always, room only when it was full or a writer
	// had to wait; an end closing or the ring resized: everyone).
	struct poll_events events;
	// The user charged for the ring's pages (fs.pipe-user-pages-*).
	uint32_t acct_uid;
};

// /proc/sys/fs/pipe-max-size: the largest capacity F_SETPIPE_SZ grants,
// and the most a new pipe gets.  Always a power of two pages, as
// pipe_round_size leaves it.  Linux's default.
static unsigned pipe_max_size = 1 << 20;

unsigned pipe_get_max_size(void)
{
	return __atomic_load_n(&pipe_max_size, __ATOMIC_RELAXED);
}

// Linux's round_pipe_size: at least a page, a power of two, at most 2^31.
uint64_t pipe_round_size(uint64_t size)
{
	uint64_t r = PAGE_SIZE;

	if (size > (1ULL << 31))
		return 0;
	while (r < size)
		r <<= 1;
	return r;
}

int pipe_set_max_size(uint64_t size)
{
	uint64_t r = pipe_round_size(size);

	if (r == 0)
		return -EINVAL;
	__atomic_store_n(&pipe_max_size, (unsigned)r, __ATOMIC_RELAXED);
	return 0;
}

static unsigned order_of(uint64_t size)
{
	unsigned order = 0;

	while ((PAGE_SIZE << order) < size)
		order++;
	return order;
}

// ---- fs.pipe-user-pages-soft and -hard ----
//
// As Linux, the pages of the pipes a user made are counted for that
// user (the real uid of the maker).  A user without CAP_SYS_RESOURCE or
// CAP_SYS_ADMIN past the soft limit gets new pipes of two pages, and
// cannot grow one with F_SETPIPE_SZ; past the hard limit, no new pipe.
// 0 is no limit; Linux's defaults: 16384 pages soft, no hard limit.

#define PIPE_MIN_DEF_ORDER 1	// Linux's PIPE_MIN_DEF_BUFFERS: 2 pages

static unsigned long pipe_user_pages_soft = 16384, pipe_user_pages_hard;

unsigned long pipe_get_user_pages(bool hard)
{
	return __atomic_load_n(hard ? &pipe_user_pages_hard : &pipe_user_pages_soft,
			       __ATOMIC_RELAXED);
}

void pipe_set_user_pages(bool hard, unsigned long pages)
{
	__atomic_store_n(hard ? &pipe_user_pages_hard : &pipe_user_pages_soft, pages,
			 __ATOMIC_RELAXED);
}

static bool unprivileged(void)
{
	const struct cred *c = current_cred();

	return !cred_capable(c, CAP_SYS_RESOURCE) && !cred_capable(c, CAP_SYS_ADMIN);
}

static bool past(uint64_t pages, bool hard)
{
	unsigned long limit = pipe_get_user_pages(hard);

	return limit && pages > limit;
}

// Moves uid's count by 'delta' pages; the count after.
static uint64_t charge_pages(uint32_t uid, int64_t delta)
{
	uint64_t now;

	user_count_add(uid, USER_PIPE_PAGES, delta, &now);
	return now;
}

// A new pipe holds 64 KiB, or pipe-max-size if that is less (as Linux
// gives a user without CAP_SYS_RESOURCE), or two pages past the soft
// limit above; NULL past the hard one (or without memory).
struct pipe *pipe_alloc(void)
{
	struct pipe *p = kzalloc(sizeof(*p));
	unsigned order = PIPE_ORDER, max_order = order_of(pipe_get_max_size());
	uint32_t uid = current_cred()->uid;

	if (!p)
		return NULL;
	if (max_order < order && !cred_capable(current_cred(), CAP_SYS_RESOURCE))
		order = max_order;
	uint64_t now = charge_pages(uid, 1 << order);
	if (past(now, false) && unprivileged()) {
		now = charge_pages(uid, (1 << PIPE_MIN_DEF_ORDER) - (1 << order));
		order = PIPE_MIN_DEF_ORDER;
	}
	if (past(now, true) && unprivileged()) {
		charge_pages(uid, -(1 << order));
		kfree(p);
		return NULL;
	}
	p->acct_uid = uid;
	p->ring = page_alloc(order);
	p->bufs = kmalloc(sizeof(struct pipe_buf) << order);
	if (!p->ring || !p->bufs) {
		if (p->ring)
			page_free(p->ring, order);
		kfree(p->bufs);
		charge_pages(uid, -(1 << order));
		kfree(p);
		return NULL;
	}
	frame_set_use(virt_to_phys(p->ring), FRAME_PIPE);
	p->order = order;
	p->size = PAGE_SIZE << order;
	p->nslots = (size_t)1 << order;
	spin_init(&p->lock, "pipe");
	return p;
}

void pipe_free(struct pipe *p)
{
	charge_pages(p->acct_uid, -((int64_t)1 << p->order));
	page_free(p->ring, p->order);
	kfree(p->bufs);
	kfree(p);
}

int pipe_create(struct file **rd, struct file **wr, uint32_t flags)
{
	struct pipe *p = pipe_alloc();

	if (!p)
		return -ENFILE;
	p->readers = p->writers = 1;
	*rd = file_new_pipe(p, false, O_RDONLY | (flags & O_NONBLOCK));
	// Packet mode is the write end's (Linux's is_packetized).
	*wr = file_new_pipe(p, true, O_WRONLY | (flags & (O_NONBLOCK | O_DIRECT)));
	if (!*rd || !*wr) {
		// Neither end was ever used: free them directly.
		kfree(*rd);
		kfree(*wr);
		pipe_free(p);
		return -ENFILE;
	}
	return 0;
}

// ---- the ring (lock held) ----

static bool ring_full(const struct pipe *p)
{
	return p->nbufs >= p->nslots;
}

static size_t slot_of(const struct pipe *p, size_t i)
{
	return (p->tail + i) % p->nslots;
}

static struct pipe_buf *first_buf(struct pipe *p)
{
	return &p->bufs[p->tail];
}

static struct pipe_buf *last_buf(struct pipe *p)
{
	return &p->bufs[slot_of(p, p->nbufs - 1)];
}

static char *buf_data(struct pipe *p, const struct pipe_buf *b)
{
	return p->ring + (size_t)(b - p->bufs) * PAGE_SIZE + b->offset;
}

// A new buffer at the end holding n bytes (at most a page) of src.
static void ring_push(struct pipe *p, const char *src, size_t n, uint32_t flags)
{
	struct pipe_buf *b = &p->bufs[slot_of(p, p->nbufs)];

	b->offset = 0;
	b->len = (uint32_t)n;
	b->flags = flags;
	memcpy(buf_data(p, b), src, n);
	p->nbufs++;
	p->count += n;
}

// The first buffer loses its first n bytes (copied to dst unless NULL);
// an emptied buffer frees its slot.
static void ring_consume(struct pipe *p, char *dst, size_t n)
{
	struct pipe_buf *b = first_buf(p);

	if (dst)
		memcpy(dst, buf_data(p, b), n);
	b->offset += (uint32_t)n;
	b->len -= (uint32_t)n;
	p->count -= n;
	if (b->len == 0) {
		p->tail = (p->tail + 1) % p->nslots;
		p->nbufs--;
	}
}

// Copies up to n bytes of the first buffer without taking them (splice
// to a file or to user memory takes them only once they are delivered;
// it pays no heed to packets, as Linux's).
static size_t ring_peek(struct pipe *p, char *dst, size_t n)
{
	struct pipe_buf *b = first_buf(p);

	if (p->nbufs == 0)
		return 0;
	if (n > b->len)
		n = b->len;
	memcpy(dst, buf_data(p, b), n);
	return n;
}

struct bounce {
	char *buf;
	size_t size;
	char small[BOUNCE_SMALL];
};

static void bounce_init(struct bounce *b, size_t want)
{
	b->buf = b->small;
	b->size = BOUNCE_SMALL;
	if (want > BOUNCE_SMALL) {
		char *page = kmalloc(PIPE_BUF);
		if (page) {
			b->buf = page;
			b->size = PIPE_BUF;
		}
	}
}

static void bounce_done(struct bounce *b)
{
	if (b->buf != b->small)
		kfree(b->buf);
}

// Data went in: readers and pollers hear of it.
static void added_locked(struct pipe *p, bool slept)
{
	wq_wake_all(&p->read_wq);
	poll_event(&p->events, POLLIN);
	if (slept && !ring_full(p))
		poll_event(&p->events, POLLOUT);	// the next writer's turn
}

// Data went out: writers hear of it, pollers if it had been full.
static void taken_locked(struct pipe *p, bool was_full, bool slept)
{
	wq_wake_all(&p->write_wq);
	if (was_full)
		poll_event(&p->events, POLLOUT);
	if (slept && p->nbufs)
		poll_event(&p->events, POLLIN);		// the next reader's turn
}

long pipe_read(struct file *f, struct iobuf *b, size_t n)
{
	return pipe_read_nowait(f, b, n, false);
}

long pipe_read_nowait(struct file *f, struct iobuf *b, size_t n, bool nowait)
{
	struct pipe *p = f->pipe;
	bool nonblock = nowait || (f->flags & O_NONBLOCK);
	struct bounce bb;
	size_t done = 0;
	bool slept = false, stop = false, told = false;
	long rc = 0;

	if (n == 0)
		return 0;
	bounce_init(&bb, n);
	while (done < n && !stop) {
		uint64_t flags = spin_lock_irqsave(&p->lock);
		struct pipe_buf *buf;
		bool was_full;
		size_t got;

		// Wait for data only if nothing has been read yet: a read
		// returns what is there.
		while (p->nbufs == 0 && done == 0) {
			if (p->writers == 0)
				break;				// EOF
			if (nonblock) {
				rc = -EAGAIN;
				break;
			}
			if (!told && sigio_any()) {
				// Linux tells the async writers before a reader
				// sleeps, then looks again.
				spin_unlock_irqrestore(&p->lock, flags);
				sigio_notify(p, FASYNC_WRITERS, POLL_OUT);
				flags = spin_lock_irqsave(&p->lock);
				told = true;
				continue;
			}
			told = false;
			rc = wq_wait(&p->read_wq, &p->lock, WAIT_FOREVER, true);
			if (rc) {
				rc = -ERESTARTSYS;
				break;
			}
			slept = true;
		}
		if (rc || p->nbufs == 0) {
			spin_unlock_irqrestore(&p->lock, flags);
			break;
		}
		buf = first_buf(p);
		got = buf->len;
		if (got > n - done)
			got = n - done;
		if (got > bb.size) {
			if (buf->flags & BUF_PACKET) {
				// Out of memory for a page: a packet cannot be
				// taken in parts.
				spin_unlock_irqrestore(&p->lock, flags);
				if (done == 0)
					rc = -ENOMEM;
				break;
			}
			got = bb.size;
		}
		was_full = ring_full(p);
		if (buf->flags & BUF_PACKET) {
			// A packet: this read takes it and what does not fit
			// is dropped.
			size_t rest = buf->len - got;

			ring_consume(p, bb.buf, got);
			if (rest)
				ring_consume(p, NULL, rest);
			stop = true;
		} else {
			ring_consume(p, bb.buf, got);
		}
		taken_locked(p, was_full, slept);
		spin_unlock_irqrestore(&p->lock, flags);
		poll_notify();
		if (iobuf_put(b, done, bb.buf, got) < 0) {
			rc = -EFAULT;
			break;
		}
		done += got;
	}
	bounce_done(&bb);
	// Every read tells the async writers, as Linux's pipe_read.
	sigio_notify(p, FASYNC_WRITERS, POLL_OUT);
	return done ? (long)done : rc;
}

// Linux's first step of a write: its length modulo a page tops up the
// last buffer if that may take more and has room (lock held).  True if
// it did.
static bool top_up_locked(struct pipe *p, const char *src, size_t n)
{
	struct pipe_buf *last;

	if (p->nbufs == 0)
		return false;
	last = last_buf(p);
	if (!(last->flags & BUF_CAN_MERGE) || last->offset + last->len + n > PAGE_SIZE)
		return false;
	memcpy(buf_data(p, last) + last->len, src, n);
	last->len += (uint32_t)n;
	p->count += n;
	return true;
}

// Waits until the ring has a free slot (lock held): 0, -EPIPE without
// readers, -EAGAIN when not 'wait', -ERESTARTSYS on a signal.
static int wait_for_slot_locked(struct pipe *p, bool wait, bool *slept)
{
	bool told = false;

	while (ring_full(p)) {
		if (p->readers == 0)
			return -EPIPE;
		if (!wait)
			return -EAGAIN;
		if (!told && sigio_any()) {
			// The async readers hear of it before a writer sleeps,
			// as on Linux; then look again.
			spin_unlock(&p->lock);
			sigio_notify(p, FASYNC_READERS, POLL_IN);
			spin_lock(&p->lock);
			told = true;
			continue;
		}
		told = false;
		if (wq_wait(&p->write_wq, &p->lock, WAIT_FOREVER, true))
			return -ERESTARTSYS;
		*slept = true;
	}
	return p->readers == 0 ? -EPIPE : 0;
}

long pipe_write(struct file *f, struct iobuf *b, size_t n)
{
	return pipe_write_nowait(f, b, n, false);
}

long pipe_write_nowait(struct file *f, struct iobuf *b, size_t n, bool nowait)
{
	struct pipe *p = f->pipe;
	bool nonblock = nowait || (f->flags & O_NONBLOCK);
	uint32_t buf_flags = (f->flags & O_DIRECT) ? BUF_PACKET : BUF_CAN_MERGE;
	size_t first = n & (PAGE_SIZE - 1);
	struct bounce bb;
	size_t done = 0;
	bool slept = false;
	uint64_t flags;
	long rc = 0;

	if (n == 0)
		return 0;
	bounce_init(&bb, n);
	if (bb.size < n && bb.size < PAGE_SIZE) {
		// Out of memory for a page: every slot is filled a page at a
		// time (and a write of PIPE_BUF or less must go in one piece).
		bounce_done(&bb);
		return -ENOMEM;
	}
	// No readers is EPIPE before a bad buffer is noticed, as Linux.
	if (first && iobuf_get(b, 0, bb.buf, first) < 0)
		rc = -EFAULT;
	flags = spin_lock_irqsave(&p->lock);
	if (p->readers == 0) {
		rc = -EPIPE;
	} else if (rc == 0 && first && top_up_locked(p, bb.buf, first)) {
		done = first;
		added_locked(p, false);
	} else if (rc == 0 && first == n && !ring_full(p)) {
		// Less than a page, in hand already, and a slot free: it is
		// the loop's one buffer below, without copying it in again.
		ring_push(p, bb.buf, n, buf_flags);
		done = n;
		added_locked(p, false);
	}
	spin_unlock_irqrestore(&p->lock, flags);
	poll_notify();
	while (rc == 0 && done < n) {
		size_t chunk = n - done < PAGE_SIZE ? n - done : PAGE_SIZE;

		if (iobuf_get(b, done, bb.buf, chunk) < 0) {
			rc = -EFAULT;
			break;
		}
		flags = spin_lock_irqsave(&p->lock);
		rc = wait_for_slot_locked(p, !nonblock, &slept);
		if (rc == 0) {
			ring_push(p, bb.buf, chunk, buf_flags);
			done += chunk;
			added_locked(p, slept);
		}
		spin_unlock_irqrestore(&p->lock, flags);
		poll_notify();
	}
	bounce_done(&bb);
	if (rc == -EPIPE)
		signal_send_thread(current_thread(), SIGPIPE, NULL);
	// Every write tells the async readers, as Linux's pipe_write.
	sigio_notify(p, FASYNC_READERS, POLL_IN);
	return done ? (long)done : rc;
}

int pipe_poll(struct file *f)
{
	struct pipe *p = f->pipe;
	uint64_t flags = spin_lock_irqsave(&p->lock);
	int mask = 0;

	if (f->pipe_writer) {
		if (!ring_full(p))
			mask |= POLLOUT | POLLWRNORM;
		if (p->readers == 0)
			mask |= POLLERR;
	}
	if (f->pipe_reader) {
		if (p->nbufs)
			mask |= POLLIN | POLLRDNORM;
		if (p->writers == 0)
			mask |= POLLHUP;
	}
	spin_unlock_irqrestore(&p->lock, flags);
	return mask;
}

uint64_t pipe_poll_events(struct file *f, uint32_t events)
{
	return poll_events_for(&f->pipe->events, events);
}

size_t pipe_size(struct file *f)
{
	return __atomic_load_n(&f->pipe->size, __ATOMIC_RELAXED);
}

// F_SETPIPE_SZ: the capacity becomes 'want' rounded up to a power of two
// pages (at least one), as Linux rounds it, and the buffers move to a
// ring of that many slots (EBUSY if more are in use, as Linux's
// pipe_resize_ring).  No one grows a pipe beyond pipe-max-size without
// CAP_SYS_RESOURCE; shrinking is always allowed.
long pipe_set_size(struct file *f, uint64_t want)
{
	struct pipe *p = f->pipe;
	uint64_t size = pipe_round_size(want);
	unsigned order = order_of(size);
	size_t nslots = (size_t)1 << order;
	struct pipe_buf *bufs, *unused_bufs;
	char *ring, *unused;
	unsigned unused_order;
	uint64_t flags;
	long rc;

	if (size == 0)
		return -EINVAL;
	if (size > pipe_get_max_size() && size > __atomic_load_n(&p->size, __ATOMIC_RELAXED) &&
	    !cred_capable(current_cred(), CAP_SYS_RESOURCE))
		return -EPERM;
	// The new ring is charged before the old one is given back; the
	// count with the old one gone (Linux's account_pipe_buffers) decides:
	// growing past a limit is EPERM.
	uint64_t old_slots = (uint64_t)1 << __atomic_load_n(&p->order, __ATOMIC_RELAXED);
	uint64_t now = charge_pages(p->acct_uid, (int64_t)nslots) - old_slots;
	if (nslots > old_slots && (past(now, true) || past(now, false)) && unprivileged()) {
		charge_pages(p->acct_uid, -(int64_t)nslots);
		return -EPERM;
	}
	ring = page_alloc(order);
	bufs = kmalloc(sizeof(*bufs) * nslots);
	if (!ring || !bufs) {
		if (ring)
			page_free(ring, order);
		kfree(bufs);
		charge_pages(p->acct_uid, -(int64_t)nslots);
		return -ENOMEM;
	}
	frame_set_use(virt_to_phys(ring), FRAME_PIPE);
	flags = spin_lock_irqsave(&p->lock);
	if (p->nbufs > nslots) {
		rc = -EBUSY;		// the buffers would not fit
		unused = ring;
		unused_order = order;
		unused_bufs = bufs;
	} else {
		for (size_t i = 0; i < p->nbufs; i++) {
			struct pipe_buf *from = &p->bufs[slot_of(p, i)];

			bufs[i] = *from;
			memcpy(ring + i * PAGE_SIZE + from->offset, buf_data(p, from), from->len);
		}
		unused = p->ring;
		unused_order = p->order;
		unused_bufs = p->bufs;
		p->ring = ring;
		p->bufs = bufs;
		p->order = order;
		p->size = PAGE_SIZE << order;
		p->nslots = nslots;
		p->tail = 0;
		rc = (long)p->size;
		wq_wake_all(&p->write_wq);	// there may be room now
	}
	spin_unlock_irqrestore(&p->lock, flags);
	charge_pages(p->acct_uid, -((int64_t)1 << unused_order));
	page_free(unused, unused_order);
	kfree(unused_bufs);
	poll_event(&p->events, 0);
	poll_notify();
	return rc;
}

size_t pipe_bytes_ready(struct file *f)
{
	return __atomic_load_n(&f->pipe->count, __ATOMIC_RELAXED);
}

// f becomes an end of p, reading, writing or both as its access mode
// says; a FIFO opener waiting for that side is woken.  p->lock held.
static void add_end_locked(struct file *f, struct pipe *p)
{
	uint32_t acc = f->flags & O_ACCMODE;

	f->pipe = p;
	f->pipe_reader = acc != O_WRONLY;
	f->pipe_writer = acc != O_RDONLY;
	if (f->pipe_reader) {
		p->readers++;
		p->r_counter++;
		wq_wake_all(&p->write_wq);
	}
	if (f->pipe_writer) {
		p->writers++;
		p->w_counter++;
		wq_wake_all(&p->read_wq);
	}
}

void pipe_open_end(struct file *f, struct pipe *p)
{
	uint64_t flags = spin_lock_irqsave(&p->lock);

	add_end_locked(f, p);
	spin_unlock_irqrestore(&p->lock, flags);
}

// ---- FIFOs ----

// vn's pipe, made on the first open, returned with its lock held and
// interrupts off (*flags gives them back); NULL without memory.  vn->lock
// guards priv, and is taken before the pipe's lock.
static struct pipe *fifo_pipe_locked(struct vnode *vn, uint64_t *flags)
{
	struct pipe *made = NULL, *p;

	for (;;) {
		*flags = spin_lock_irqsave(&vn->lock);
		if (vn->priv || made)
			break;
		spin_unlock_irqrestore(&vn->lock, *flags);
		made = pipe_alloc();
		if (!made)
			return NULL;
	}
	if (!vn->priv) {
		made->fifo = vn;
		vn->priv = made;
		made = NULL;
	}
	p = vn->priv;
	spin_lock(&p->lock);
	spin_unlock(&vn->lock);
	if (made)
		pipe_free(made);	// another opener made it first
	return p;
}

int fifo_open(struct file *f, struct vnode *vn)
{
	uint32_t acc = f->flags & O_ACCMODE;
	bool nonblock = f->flags & O_NONBLOCK;
	uint64_t flags;
	struct pipe *p = fifo_pipe_locked(vn, &flags);
	unsigned seen;
	int rc = 0;

	if (!p)
		return -ENOMEM;
	if (acc == O_WRONLY && nonblock && p->readers == 0) {
		spin_unlock_irqrestore(&p->lock, flags);
		f->pipe = p;		// neither end: the release frees a pipe no one opened
		pipe_release(f);
		f->pipe = NULL;
		return -ENXIO;
	}
	add_end_locked(f, p);
	// One end alone waits until the other side has been opened (even if
	// it closed again since), unless a reader asked not to wait.
	if (f->pipe_reader && !f->pipe_writer && !nonblock) {
		seen = p->w_counter;
		while (rc == 0 && p->writers == 0 && p->w_counter == seen)
			rc = wq_wait(&p->read_wq, &p->lock, WAIT_FOREVER, true);
	} else if (f->pipe_writer && !f->pipe_reader) {
		seen = p->r_counter;
		while (rc == 0 && p->readers == 0 && p->r_counter == seen)
			rc = wq_wait(&p->write_wq, &p->lock, WAIT_FOREVER, true);
	}
	spin_unlock_irqrestore(&p->lock, flags);
	poll_event(&p->events, 0);
	poll_notify();
	if (rc) {
		pipe_release(f);	// the caller drops f
		f->pipe = NULL;
		return -ERESTARTSYS;
	}
	return 0;
}

void pipe_release(struct file *f)
{
	struct pipe *p = f->pipe;
	struct vnode *fifo = p->fifo;
	uint64_t vflags = fifo ? spin_lock_irqsave(&fifo->lock) : 0;
	uint64_t flags = spin_lock_irqsave(&p->lock);
	bool last;

	if (f->pipe_writer) {
		p->writers--;
		wq_wake_all(&p->read_wq);	// readers see EOF
	}
	if (f->pipe_reader) {
		p->readers--;
		wq_wake_all(&p->write_wq);	// writers see EPIPE
	}
	last = p->readers == 0 && p->writers == 0;
	// The last reader or writer gone while the other side stays.
	bool one_side = (p->readers == 0) != (p->writers == 0);
	spin_unlock_irqrestore(&p->lock, flags);
	// A FIFO's data goes with its last open end, as on Linux.
	if (fifo) {
		if (last)
			fifo->priv = NULL;
		spin_unlock_irqrestore(&fifo->lock, vflags);
	}
	poll_event(&p->events, 0);
	poll_notify();
	if (one_side) {
		sigio_notify(p, FASYNC_READERS, POLL_IN);
		sigio_notify(p, FASYNC_WRITERS, POLL_OUT);
	}
	if (last)
		pipe_free(p);
}

// ---- splice, tee, vmsplice (kernel/syscall/fs_splice.c) ----

// Takes both pipes' locks, in address order so that two callers going
// opposite ways cannot deadlock (Linux's pipe_double_lock).
static uint64_t double_lock(struct pipe *a, struct pipe *b)
{
	struct pipe *first = a < b ? a : b, *second = a < b ? b : a;
	uint64_t flags = spin_lock_irqsave(&first->lock);

	spin_lock(&second->lock);
	return flags;
}

static void double_unlock(struct pipe *a, struct pipe *b, uint64_t flags)
{
	struct pipe *first = a < b ? a : b, *second = a < b ? b : a;

	spin_unlock(&second->lock);
	spin_unlock_irqrestore(&first->lock, flags);
}

bool pipe_same(const struct file *a, const struct file *b)
{
	return a->pipe == b->pipe;
}

// Linux's ipipe_prep and splice_from_pipe_next: waits while p is empty.
// 0 when there is data or no writer is left (end of file), -EAGAIN,
// -ERESTARTSYS.
int pipe_wait_data(struct file *f, bool nonblock)
{
	struct pipe *p = f->pipe;
	uint64_t flags = spin_lock_irqsave(&p->lock);
	int rc = 0;

	while (p->nbufs == 0) {
		if (thread_signal_pending(current_thread())) {
			rc = -ERESTARTSYS;
			break;
		}
		if (p->writers == 0)
			break;
		if (nonblock) {
			rc = -EAGAIN;
			break;
		}
		wq_wait(&p->read_wq, &p->lock, WAIT_FOREVER, true);
	}
	spin_unlock_irqrestore(&p->lock, flags);
	return rc;
}

// Linux's opipe_prep and wait_for_space: waits while p is full.  0,
// -EPIPE (with SIGPIPE) when nobody reads, -EAGAIN, -ERESTARTSYS.
int pipe_wait_room(struct file *f, bool nonblock)
{
	struct pipe *p = f->pipe;
	uint64_t flags = spin_lock_irqsave(&p->lock);
	int rc = 0;

	for (;;) {
		if (p->readers == 0) {
			rc = -EPIPE;
			break;
		}
		if (!ring_full(p))
			break;
		if (nonblock) {
			rc = -EAGAIN;
			break;
		}
		if (thread_signal_pending(current_thread())) {
			rc = -ERESTARTSYS;
			break;
		}
		wq_wait(&p->write_wq, &p->lock, WAIT_FOREVER, true);
	}
	spin_unlock_irqrestore(&p->lock, flags);
	if (rc == -EPIPE)
		signal_send_thread(current_thread(), SIGPIPE, NULL);
	return rc;
}

// A copy of buffer 'from' of 'in' as the next buffer of 'out', cut to
// 'len' bytes (both locks held, out not full).
static void copy_buf_locked(struct pipe *in, const struct pipe_buf *from, struct pipe *out,
			    size_t len, uint32_t flags)
{
	struct pipe_buf *to = &out->bufs[slot_of(out, out->nbufs)];

	to->offset = from->offset;
	to->len = (uint32_t)len;
	to->flags = flags;
	memcpy(buf_data(out, to), buf_data(in, from), len);
	out->nbufs++;
	out->count += len;
}

// Linux's splice_pipe_to_pipe: whole buffers move from 'in' to 'out'
// (flags and all), a last partial one is copied without its merge flag,
// until 'len' bytes, 'in' is empty or 'out' full.  Waits for data and
// room before the first buffer only.
long pipe_splice_pipe(struct file *fin, struct file *fout, size_t len, bool nonblock)
{
	struct pipe *in = fin->pipe, *out = fout->pipe;

	for (;;) {
		long ret = pipe_wait_data(fin, nonblock);
		bool retry = false, taken = false, in_was_full;
		uint64_t flags;

		if (ret == 0)
			ret = pipe_wait_room(fout, nonblock);
		if (ret)
			return ret;
		flags = double_lock(in, out);
		in_was_full = ring_full(in);
		while (len) {
			struct pipe_buf *ibuf;
			size_t moved;

			if (out->readers == 0) {
				if (!ret)
					ret = -EPIPE;
				break;
			}
			if (in->nbufs == 0 && in->writers == 0)
				break;
			if (in->nbufs == 0 || ring_full(out)) {
				// Someone was quicker since we waited: wait
				// again unless something moved already.
				if (!ret && nonblock)
					ret = -EAGAIN;
				else if (!ret)
					retry = true;
				break;
			}
			ibuf = first_buf(in);
			moved = len >= ibuf->len ? ibuf->len : len;
			copy_buf_locked(in, ibuf, out, moved,
					moved == ibuf->len ? ibuf->flags : ibuf->flags & ~BUF_CAN_MERGE);
			ring_consume(in, NULL, moved);
			taken = true;
			ret += (long)moved;
			len -= moved;
		}
		if (ret > 0)
			added_locked(out, false);
		if (taken)
			taken_locked(in, in_was_full, false);
		double_unlock(in, out, flags);
		poll_notify();
		if (retry)
			continue;
		if (ret == -EPIPE)
			signal_send_thread(current_thread(), SIGPIPE, NULL);
		return ret;
	}
}

// Linux's link_pipe (tee): copies of 'in''s buffers, cut to 'len' bytes
// in all, become 'out''s, 'in' unchanged; stops when in's buffers are
// all copied or out is full.  No waiting (the caller waited).
long pipe_tee(struct file *fin, struct file *fout, size_t len)
{
	struct pipe *in = fin->pipe, *out = fout->pipe;
	uint64_t flags = double_lock(in, out);
	long ret = 0;

	for (size_t i = 0; len; i++) {
		struct pipe_buf *ibuf;
		size_t n;

		if (out->readers == 0) {
			if (!ret)
				ret = -EPIPE;
			break;
		}
		if (i >= in->nbufs || ring_full(out))
			break;
		ibuf = &in->bufs[slot_of(in, i)];
		n = ibuf->len < len ? ibuf->len : len;
		copy_buf_locked(in, ibuf, out, n, ibuf->flags & ~BUF_CAN_MERGE);
		ret += (long)n;
		len -= n;
	}
	if (ret > 0)
		added_locked(out, false);
	double_unlock(in, out, flags);
	poll_notify();
	if (ret == -EPIPE)
		signal_send_thread(current_thread(), SIGPIPE, NULL);
	return ret;
}

// Linux's add_to_pipe: n bytes (at most a page) of src as a new buffer
// of their own (never topped up by a write).  n, -EPIPE (with SIGPIPE),
// or -EAGAIN when full.
long pipe_add_buf(struct file *f, const char *src, size_t n, size_t offset)
{
	struct pipe *p = f->pipe;
	uint64_t flags = spin_lock_irqsave(&p->lock);
	long rc = (long)n;

	if (p->readers == 0) {
		rc = -EPIPE;
	} else if (ring_full(p)) {
		rc = -EAGAIN;
	} else {
		struct pipe_buf *b = &p->bufs[slot_of(p, p->nbufs)];

		b->offset = (uint32_t)offset;	// where the data sat in its page
		b->len = (uint32_t)n;
		b->flags = 0;
		memcpy(buf_data(p, b), src, n);
		p->nbufs++;
		p->count += n;
		added_locked(p, false);
	}
	spin_unlock_irqrestore(&p->lock, flags);
	poll_notify();
	if (rc == -EPIPE)
		signal_send_thread(current_thread(), SIGPIPE, NULL);
	return rc;
}

size_t pipe_free_slots(struct file *f)
{
	struct pipe *p = f->pipe;
	uint64_t flags = spin_lock_irqsave(&p->lock);
	size_t n = p->nslots - p->nbufs;

	spin_unlock_irqrestore(&p->lock, flags);
	return n;
}

// Up to n bytes of the first buffer, copied but left there.
size_t pipe_peek(struct file *f, char *dst, size_t n)
{
	struct pipe *p = f->pipe;
	uint64_t flags = spin_lock_irqsave(&p->lock);
	size_t got = ring_peek(p, dst, n);

	spin_unlock_irqrestore(&p->lock, flags);
	return got;
}

// The first n bytes go (fewer if a reader took some meanwhile).
void pipe_consume(struct file *f, size_t n)
{
	struct pipe *p = f->pipe;
	uint64_t flags = spin_lock_irqsave(&p->lock);
	bool was_full = ring_full(p);

	while (n && p->nbufs) {
		size_t m = first_buf(p)->len < n ? first_buf(p)->len : n;

		ring_consume(p, NULL, m);
		n -= m;
	}
	taken_locked(p, was_full, false);
	spin_unlock_irqrestore(&p->lock, flags);
	poll_notify();
}
