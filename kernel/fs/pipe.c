// Pipes.  The ring buffer and both wait queues are guarded by the pipe's
// lock; user memory is never touched under it: data goes through a bounce
// buffer on its way in and out, so a fault (which may sleep) happens with
// no lock held.

#include <fs/pipe.h>
#include <kernel/cred.h>
#include <fs/file.h>
#include <fs/fcntl.h>
#include <fs/poll.h>
#include <fs/vnode.h>
#include <kernel/process.h>
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

struct pipe {
	struct spinlock lock;
	char *ring;
	unsigned order;			// the ring is 2^order pages
	size_t size;			// of the ring: the capacity (F_SETPIPE_SZ)
	size_t head;			// next byte to read
	size_t count;			// bytes in the ring
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

// A new pipe holds 64 KiB, or pipe-max-size if that is less (as Linux
// gives a user without CAP_SYS_RESOURCE).
struct pipe *pipe_alloc(void)
{
	struct pipe *p = kzalloc(sizeof(*p));
	unsigned order = PIPE_ORDER, max_order = order_of(pipe_get_max_size());

	if (!p)
		return NULL;
	if (max_order < order && !cred_capable(current_cred(), CAP_SYS_RESOURCE))
		order = max_order;
	p->ring = page_alloc(order);
	if (!p->ring) {
		kfree(p);
		return NULL;
	}
	frame_set_use(virt_to_phys(p->ring), FRAME_PIPE);
	p->order = order;
	p->size = PAGE_SIZE << order;
	spin_init(&p->lock, "pipe");
	return p;
}

void pipe_free(struct pipe *p)
{
	page_free(p->ring, p->order);
	kfree(p);
}

int pipe_create(struct file **rd, struct file **wr, uint32_t flags)
{
	struct pipe *p = pipe_alloc();

	if (!p)
		return -ENFILE;
	p->readers = p->writers = 1;
	*rd = file_new_pipe(p, false, O_RDONLY | (flags & O_NONBLOCK));
	*wr = file_new_pipe(p, true, O_WRONLY | (flags & O_NONBLOCK));
	if (!*rd || !*wr) {
		// Neither end was ever used: free them directly.
		kfree(*rd);
		kfree(*wr);
		pipe_free(p);
		return -ENFILE;
	}
	return 0;
}

// Copies up to n bytes out of the ring (lock held).
static size_t ring_take(struct pipe *p, char *dst, size_t n)
{
	size_t first;

	if (n > p->count)
		n = p->count;
	first = p->size - p->head;
	if (first > n)
		first = n;
	memcpy(dst, p->ring + p->head, first);
	memcpy(dst + first, p->ring, n - first);
	p->head = (p->head + n) % p->size;
	p->count -= n;
	if (p->count == 0)
		p->head = 0;	// keeps later writes contiguous
	return n;
}

// Copies n bytes into the ring; the caller made sure they fit.
static void ring_put(struct pipe *p, const char *src, size_t n)
{
	size_t tail = (p->head + p->count) % p->size;
	size_t first = p->size - tail;

	if (first > n)
		first = n;
	memcpy(p->ring + tail, src, first);
	memcpy(p->ring, src + first, n - first);
	p->count += n;
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
	bool slept = false;
	long rc = 0;

	if (n == 0)
		return 0;
	bounce_init(&bb, n);
	while (done < n) {
		uint64_t flags = spin_lock_irqsave(&p->lock);
		bool was_full;
		size_t got;

		// Wait for data only if nothing has been read yet: a read
		// returns what is there.
		while (p->count == 0 && done == 0) {
			if (p->writers == 0)
				break;				// EOF
			if (nonblock) {
				rc = -EAGAIN;
				break;
			}
			rc = wq_wait(&p->read_wq, &p->lock, WAIT_FOREVER, true);
			if (rc) {
				rc = -ERESTARTSYS;
				break;
			}
			slept = true;
		}
		if (rc || p->count == 0) {
			spin_unlock_irqrestore(&p->lock, flags);
			break;
		}
		was_full = p->count == p->size;
		got = ring_take(p, bb.buf, n - done < bb.size ? n - done : bb.size);
		wq_wake_all(&p->write_wq);
		if (was_full)
			poll_event(&p->events, POLLOUT);
		if (slept && p->count)
			poll_event(&p->events, POLLIN);	// the next reader's turn
		spin_unlock_irqrestore(&p->lock, flags);
		poll_notify();
		if (iobuf_put(b, done, bb.buf, got) < 0) {
			rc = -EFAULT;
			break;
		}
		done += got;
	}
	bounce_done(&bb);
	return done ? (long)done : rc;
}

long pipe_write(struct file *f, struct iobuf *b, size_t n)
{
	return pipe_write_nowait(f, b, n, false);
}

long pipe_write_nowait(struct file *f, struct iobuf *b, size_t n, bool nowait)
{
	struct pipe *p = f->pipe;
	bool nonblock = nowait || (f->flags & O_NONBLOCK);
	bool atomic = n <= PIPE_BUF;
	struct bounce bb;
	size_t done = 0;
	bool slept = false;
	long rc = 0;

	if (n == 0)
		return 0;
	bounce_init(&bb, n);
	if (atomic && bb.size < n) {
		// Out of memory for a page: an atomic write must still go
		// in one piece, so take it from the stack in one go.
		bounce_done(&bb);
		return -ENOMEM;
	}
	while (done < n) {
		size_t chunk = n - done < bb.size ? n - done : bb.size;
		size_t put = 0;

		if (iobuf_get(b, done, bb.buf, chunk) < 0) {
			rc = -EFAULT;
			break;
		}
		// Feed this chunk into the ring, waiting for room as needed.
		uint64_t flags = spin_lock_irqsave(&p->lock);
		while (put < chunk) {
			size_t room = p->size - p->count;
			size_t need = atomic ? chunk : 1;

			if (p->readers == 0) {
				rc = -EPIPE;
				break;
			}
			if (room >= need) {
				size_t m = chunk - put < room ? chunk - put : room;
				ring_put(p, bb.buf + put, m);
				put += m;
				wq_wake_all(&p->read_wq);
				poll_event(&p->events, POLLIN);
				if (slept && p->count < p->size)
					poll_event(&p->events, POLLOUT);	// the next writer's turn
				poll_notify();
				continue;
			}
			if (nonblock) {
				rc = -EAGAIN;
				break;
			}
			rc = wq_wait(&p->write_wq, &p->lock, WAIT_FOREVER, true);
			if (rc) {
				rc = -ERESTARTSYS;
				break;
			}
			slept = true;
		}
		spin_unlock_irqrestore(&p->lock, flags);
		done += put;
		if (rc)
			break;
	}
	bounce_done(&bb);
	if (rc == -EPIPE)
		signal_send_thread(current_thread(), SIGPIPE, NULL);
	return done ? (long)done : rc;
}

int pipe_poll(struct file *f)
{
	struct pipe *p = f->pipe;
	uint64_t flags = spin_lock_irqsave(&p->lock);
	int mask = 0;

	if (f->pipe_writer) {
		if (p->size - p->count >= PIPE_BUF)
			mask |= POLLOUT | POLLWRNORM;
		if (p->readers == 0)
			mask |= POLLERR;
	}
	if (f->pipe_reader) {
		if (p->count)
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
// pages (at least one), as Linux rounds it, and the contents move to a
// ring of that size.  Everyone is root here, but no one grows a pipe
// beyond pipe-max-size, as on Linux without CAP_SYS_RESOURCE; shrinking
// is always allowed.
long pipe_set_size(struct file *f, uint64_t want)
{
	struct pipe *p = f->pipe;
	uint64_t size = pipe_round_size(want);
	unsigned order = order_of(size);
	char *ring, *unused;
	unsigned unused_order;
	uint64_t flags;
	long rc;

	if (size == 0)
		return -EINVAL;
	if (size > pipe_get_max_size() && size > __atomic_load_n(&p->size, __ATOMIC_RELAXED) &&
	    !cred_capable(current_cred(), CAP_SYS_RESOURCE))
		return -EPERM;
	ring = page_alloc(order);
	if (!ring)
		return -ENOMEM;
	frame_set_use(virt_to_phys(ring), FRAME_PIPE);
	flags = spin_lock_irqsave(&p->lock);
	if (p->count > (PAGE_SIZE << order)) {
		rc = -EBUSY;		// the contents would not fit
		unused = ring;
		unused_order = order;
	} else {
		size_t n = p->count, first = p->size - p->head;

		if (first > n)
			first = n;
		memcpy(ring, p->ring + p->head, first);
		memcpy(ring + first, p->ring, n - first);
		unused = p->ring;
		unused_order = p->order;
		p->ring = ring;
		p->order = order;
		p->size = PAGE_SIZE << order;
		p->head = 0;
		rc = (long)p->size;
		wq_wake_all(&p->write_wq);	// there may be room now
	}
	spin_unlock_irqrestore(&p->lock, flags);
	page_free(unused, unused_order);
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
	spin_unlock_irqrestore(&p->lock, flags);
	// A FIFO's data goes with its last open end, as on Linux.
	if (fifo) {
		if (last)
			fifo->priv = NULL;
		spin_unlock_irqrestore(&fifo->lock, vflags);
	}
	poll_event(&p->events, 0);
	poll_notify();
	if (last)
		pipe_free(p);
}
