// Linux native AIO: io_setup, io_destroy, io_submit, io_cancel,
// io_getevents and io_pgetevents, as Linux 6.1's fs/aio.c.
//
// A context is a completion ring mapped into its creator's address space
// exactly as Linux lays it out (struct aio_ring, then io_events), so that
// libaio-style code reading the ring itself works; the context's id is the
// ring's user address.  The ring's frames belong to the context (the user
// mapping holds a reference of its own): a user munmap leaves them to
// the kernel, and events still land there.  Contexts belong to the
// address space: threads share them, fork's child has none (the ring is
// not copied: VM_DONTCOPY), and they end with it (aio_mm_exit).
//
// Reads, writes and syncs complete within io_submit, as Linux's buffered
// AIO on an in-memory file does (a pipe read blocks there, as on Linux).
// IOCB_CMD_POLL completes at once when the file is ready; otherwise it
// waits, cancellable, until a kernel thread ("aio poll", started while
// polls wait) sees it ready.  That thread follows the poll machinery
// (fs/poll.h) as poll(2) does: it checks the waiting files, then sleeps
// until the poll sequence number changes.
//
// Locking: aio_lock guards every context's list links, state, ring tail
// and the waiting polls; the ring's readers hold the context's ring_lock
// (a sleeping lock: they copy to user memory).  The ring's frames are
// written only through the direct map, never faulted.

#include <fs/aio.h>
#include <fs/eventfd.h>
#include <fs/fcntl.h>
#include <fs/fs_syscall.h>
#include <fs/iobuf.h>
#include <fs/pipe.h>
#include <fs/poll.h>
#include <kernel/cpu.h>
#include <kernel/cred.h>
#include <kernel/mutex.h>
#include <kernel/process.h>
#include <kernel/signal.h>
#include <kernel/syscall.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/uaccess.h>
#include <kernel/vm.h>
#include <kernel/wait.h>
#include <lib/string.h>
#include <mm/frame.h>
#include <mm/kmalloc.h>
#include <mm/phys.h>
#include <uapi/errno.h>
#include <uapi/time.h>

#define AIO_RING_MAGIC			0xa10a10a1
#define AIO_RING_COMPAT_FEATURES	1
#define AIO_RING_INCOMPAT_FEATURES	0
#define AIO_MAX_NR_DEFAULT		0x10000
#define EVENTS_PER_PAGE			(PAGE_SIZE / sizeof(struct io_event))
#define EVENTS_OFFSET			1	// the header fills the first slot of page 0

#define IOCB_CMD_PREAD		0
#define IOCB_CMD_PWRITE		1
#define IOCB_CMD_FSYNC		2
#define IOCB_CMD_FDSYNC		3
#define IOCB_CMD_POLL		5
#define IOCB_CMD_NOOP		6
#define IOCB_CMD_PREADV		7
#define IOCB_CMD_PWRITEV	8

#define IOCB_FLAG_RESFD		(1 << 0)
#define IOCB_FLAG_IOPRIO	(1 << 1)
#define KIOCB_KEY		0

#define MAX_RW_COUNT		0x7ffff000UL
#define UIO_MAXIOV		1024

#define RWF_HIPRI	0x01
#define RWF_DSYNC	0x02
#define RWF_SYNC	0x04
#define RWF_NOWAIT	0x08
#define RWF_APPEND	0x10
#define RWF_KNOWN	(RWF_HIPRI | RWF_DSYNC | RWF_SYNC | RWF_NOWAIT | RWF_APPEND)

#define IOPRIO_CLASS_NONE	0
#define IOPRIO_CLASS_RT		1
#define IOPRIO_CLASS_BE		2
#define IOPRIO_CLASS_IDLE	3
#define IOPRIO_NR_LEVELS	8
#define CAP_SYS_NICE		23

#define KTIME_SEC_MAX		9223372036L	// KTIME_MAX / NSEC_PER_SEC

// The user-visible layout (include/uapi/linux/aio_abi.h and fs/aio.c).
struct aio_ring {
	uint32_t id;			// the context's index among its address space's
	uint32_t nr;			// events the ring holds
	uint32_t head;			// next event to take (user space may move it)
	uint32_t tail;			// next event the kernel writes
	uint32_t magic;
	uint32_t compat_features;
	uint32_t incompat_features;
	uint32_t header_length;		// sizeof(struct aio_ring)
};

struct io_event {
	uint64_t data;			// the iocb's aio_data
	uint64_t obj;			// the iocb's user address
	int64_t res;
	int64_t res2;
};

struct iocb {
	uint64_t aio_data;
	uint32_t aio_key;
	uint32_t aio_rw_flags;
	uint16_t aio_lio_opcode;
	int16_t aio_reqprio;
	uint32_t aio_fildes;
	uint64_t aio_buf;
	uint64_t aio_nbytes;
	int64_t aio_offset;
	uint64_t aio_reserved2;
	uint32_t aio_flags;
	uint32_t aio_resfd;
};

_Static_assert(sizeof(struct aio_ring) == 32, "Linux's ring header");
_Static_assert(sizeof(struct io_event) == 32, "Linux's io_event");
_Static_assert(sizeof(struct iocb) == 64, "Linux's iocb");

struct aio_ctx {
	struct aio_ctx *next;		// its address space's contexts
	int refs;			// the list, lookups in progress, waiting polls
	bool dead;			// io_destroy or the address space's end
	uint32_t id;			// ring->id
	uint64_t user_id;		// the ring's user address: the aio_context_t
	uint32_t max_reqs;		// io_setup's nr_events, counted in aio-nr
	uint32_t nr_events;		// the ring's size in events
	uint32_t tail;			// the kernel's own copy of ring->tail
	uint32_t inflight;		// taken a ring slot, not yet completed
	uint32_t dead_tail;		// the tail when it died (set before 'dead')
	size_t npages;
	uint64_t *pages;		// the ring's frames
	struct mutex ring_lock;		// readers of the ring
	struct wait_queue wq;		// io_getevents and io_destroy
};

// An IOCB_CMD_POLL request waiting for its file (or a request completing
// within io_submit, on the stack).
struct aio_req {
	struct aio_req *next;		// in 'polls_pending' or 'polls_checked'
	struct aio_ctx *ctx;		// referenced while the request waits
	struct file *file;		// referenced
	struct file *resfd;		// eventfd to signal, referenced, or NULL
	uint64_t obj, data;		// the event's fields
	uint32_t events;		// POLL: what it waits for
	bool busy;			// being polled by the aio thread
	bool cancelled;			// io_cancel, io_destroy: completes with 0
	uint64_t seen_in, seen_out;	// the file's keyed wake-ups so far (fs/poll.h)
};

static struct spinlock aio_lock = SPINLOCK_INIT("aio");
static uint64_t aio_max_nr = AIO_MAX_NR_DEFAULT;
static uint64_t aio_nr;
// The waiting polls: not yet checked in the aio thread's current round,
// and checked.  'poller_running': an aio thread serves them; 'starting':
// submitters between making one and queueing their request.
static struct aio_req *polls_pending, *polls_checked;
static bool poller_running;
static int poller_starting;

uint64_t aio_max_nr_get(void)
{
	return __atomic_load_n(&aio_max_nr, __ATOMIC_RELAXED);
}

void aio_max_nr_set(uint64_t v)
{
	__atomic_store_n(&aio_max_nr, v, __ATOMIC_RELAXED);
}

uint64_t aio_nr_get(void)
{
	return __atomic_load_n(&aio_nr, __ATOMIC_RELAXED);
}

// ---- the ring ----

static struct aio_ring *ring_of(struct aio_ctx *c)
{
	return phys_to_virt(c->pages[0]);
}

// Ring slot i (0 .. nr_events - 1), after the header.
static struct io_event *slot_of(struct aio_ctx *c, uint32_t i)
{
	uint64_t pos = i + EVENTS_OFFSET;

	return (struct io_event *)phys_to_virt(c->pages[pos / EVENTS_PER_PAGE]) +
	       pos % EVENTS_PER_PAGE;
}

// Events in the ring not yet taken: from the user's head (which it may
// have moved, or scribbled: clamped as Linux does) to the kernel's tail.
static uint32_t events_in_ring_locked(struct aio_ctx *c)
{
	uint32_t head = __atomic_load_n(&ring_of(c)->head, __ATOMIC_RELAXED) % c->nr_events;

	return head <= c->tail ? c->tail - head : c->nr_events - (head - c->tail);
}

// A ring slot for one more request: what is in the ring and in flight
// stays below nr_events - 1 (Linux's reqs_available).
static bool slot_take(struct aio_ctx *c)
{
	uint64_t irq = spin_lock_irqsave(&aio_lock);
	bool ok = events_in_ring_locked(c) + c->inflight < c->nr_events - 1;

	if (ok)
		c->inflight++;
	spin_unlock_irqrestore(&aio_lock, irq);
	return ok;
}

static void slot_give_back(struct aio_ctx *c)
{
	uint64_t irq = spin_lock_irqsave(&aio_lock);

	c->inflight--;
	wq_wake_all(&c->wq);
	spin_unlock_irqrestore(&aio_lock, irq);
}

static void ctx_free(struct aio_ctx *c)
{
	for (size_t i = 0; c->pages && i < c->npages; i++)
		if (c->pages[i])
			frame_unref(c->pages[i]);
	kfree(c->pages);
	kfree(c);
}

static void ctx_put(struct aio_ctx *c)
{
	uint64_t irq = spin_lock_irqsave(&aio_lock);
	bool last = --c->refs == 0;

	spin_unlock_irqrestore(&aio_lock, irq);
	if (last)
		ctx_free(c);
}

// aio_complete: the event goes into the ring (even of a dead context, as
// Linux), the request leaves the in-flight count, waiters wake, and the
// eventfd is signalled.  Drops the request's file references.
static void complete(struct aio_req *r, int64_t res)
{
	struct aio_ctx *c = r->ctx;
	uint64_t irq = spin_lock_irqsave(&aio_lock);
	struct io_event *e = slot_of(c, c->tail);

	e->data = r->data;
	e->obj = r->obj;
	e->res = res;
	e->res2 = 0;
	if (++c->tail >= c->nr_events)
		c->tail = 0;
	// The event is in place before the tail that shows it.
	__atomic_store_n(&ring_of(c)->tail, c->tail, __ATOMIC_RELEASE);
	c->inflight--;
	wq_wake_all(&c->wq);
	spin_unlock_irqrestore(&aio_lock, irq);
	if (r->resfd) {
		eventfd_signal_file(r->resfd, 1);
		file_put(r->resfd);
	}
	file_put(r->file);
}

// ---- contexts ----

// The lowest id none of mm's contexts has (Linux's table slot).
static uint32_t free_id_locked(struct mm *mm)
{
	for (uint32_t id = 0;; id++) {
		struct aio_ctx *c = mm->aio;
		while (c && c->id != id)
			c = c->next;
		if (!c)
			return id;
	}
}

// The ring's frames, zeroed, with the header Linux writes.
static int ring_alloc(struct aio_ctx *c)
{
	c->pages = kzalloc(c->npages * sizeof(*c->pages));
	if (!c->pages)
		return -ENOMEM;
	for (size_t i = 0; i < c->npages; i++) {
		c->pages[i] = frame_alloc_zeroed(0);
		if (!c->pages[i])
			return -ENOMEM;
		frame_set_use(c->pages[i], FRAME_USER);
	}
	struct aio_ring *ring = ring_of(c);
	ring->nr = c->nr_events;
	ring->id = ~0U;
	ring->magic = AIO_RING_MAGIC;
	ring->compat_features = AIO_RING_COMPAT_FEATURES;
	ring->incompat_features = AIO_RING_INCOMPAT_FEATURES;
	ring->header_length = sizeof(struct aio_ring);
	return 0;
}

// ioctx_alloc and aio_setup_ring: Linux doubles the request (at least 4
// per possible CPU) for its per-CPU slot caches and adds 2, then fills
// whole pages; the limit checks come in its order.
static long ctx_new(uint32_t nr, struct aio_ctx **out)
{
	struct mm *mm = current_process()->mm;
	uint32_t n = nr > (uint32_t)ncpus * 4 ? nr : (uint32_t)ncpus * 4;

	n *= 2;
	if (n > 0x10000000U / sizeof(struct io_event))
		return -EINVAL;
	if (!n || nr > aio_max_nr_get())
		return -EAGAIN;
	struct aio_ctx *c = kzalloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	mutex_init(&c->ring_lock, "aio ring");
	uint64_t size = sizeof(struct aio_ring) + sizeof(struct io_event) * ((uint64_t)n + 2);
	c->npages = (size + PAGE_SIZE - 1) / PAGE_SIZE;
	c->nr_events = (uint32_t)((c->npages * PAGE_SIZE - sizeof(struct aio_ring)) /
				  sizeof(struct io_event));
	c->max_reqs = nr;
	c->refs = 2;		// the address space's list and the caller
	long rc = ring_alloc(c);
	if (rc) {
		ctx_free(c);
		return rc;
	}
	long at = vm_map_frames(mm, c->pages, c->npages);
	if (at < 0) {
		ctx_free(c);
		return -ENOMEM;
	}
	c->user_id = (uint64_t)at;
	uint64_t irq = spin_lock_irqsave(&aio_lock);
	if (aio_nr + nr > aio_max_nr || aio_nr + nr < aio_nr) {
		spin_unlock_irqrestore(&aio_lock, irq);
		vm_unmap(mm, c->user_id, c->npages * PAGE_SIZE);
		ctx_free(c);
		return -EAGAIN;
	}
	aio_nr += nr;
	c->id = free_id_locked(mm);
	ring_of(c)->id = c->id;
	c->next = mm->aio;
	mm->aio = c;
	spin_unlock_irqrestore(&aio_lock, irq);
	*out = c;
	return 0;
}

// lookup_ioctx: the id is read from the ring in user memory (an unmapped
// or foreign ring is no context: EINVAL), then must name a live context
// of the caller's address space at that address.  Referenced.
static struct aio_ctx *ctx_lookup(uint64_t ctx_id)
{
	struct mm *mm = current_process()->mm;
	struct aio_ctx *c;
	uint32_t id;

	if (get_user_u32(&id, ctx_id) < 0)
		return NULL;
	uint64_t irq = spin_lock_irqsave(&aio_lock);
	for (c = mm->aio; c; c = c->next)
		if (c->id == id && c->user_id == ctx_id && !c->dead)
			break;
	if (c)
		c->refs++;
	spin_unlock_irqrestore(&aio_lock, irq);
	return c;
}

// Takes r out of the waiting polls (aio_lock held).
static void poll_unlink_locked(struct aio_req *r)
{
	struct aio_req **lists[] = { &polls_pending, &polls_checked };

	for (int i = 0; i < 2; i++)
		for (struct aio_req **pp = lists[i]; *pp; pp = &(*pp)->next)
			if (*pp == r) {
				*pp = r->next;
				return;
			}
}

// Completes a cancelled poll and lets its context go.
static void poll_finish(struct aio_req *r, int64_t res)
{
	struct aio_ctx *c = r->ctx;

	complete(r, res);
	ctx_put(c);
	kfree(r);
}

// Cancels c's waiting polls (all of them, or the one for iocb 'obj'):
// those the aio thread is not checking right now complete here with 0,
// the others when it is done.  The count found.
static int polls_cancel(struct aio_ctx *c, bool all, uint64_t obj)
{
	struct aio_req *done = NULL, *r, *next;
	int found = 0;
	uint64_t irq = spin_lock_irqsave(&aio_lock);

	for (int pass = 0; pass < 2; pass++) {
		for (r = pass ? polls_checked : polls_pending; r; r = next) {
			next = r->next;
			if (r->ctx != c || r->cancelled || (!all && r->obj != obj))
				continue;
			r->cancelled = true;
			found++;
			if (!r->busy) {
				poll_unlink_locked(r);
				r->next = done;
				done = r;
			}
		}
	}
	spin_unlock_irqrestore(&aio_lock, irq);
	for (r = done; r; r = next) {
		next = r->next;
		poll_finish(r, 0);
	}
	// The aio thread may be waiting for nothing now: let it look.
	if (found)
		poll_notify();
	return found;
}

// kill_ioctx: no new lookups, aio-nr gives its share back, getevents
// waiters wake (EINVAL), polls are cancelled, the ring is unmapped when
// asked (io_destroy; at the end of the address space it goes anyway).
// -EINVAL if it was dead already.  Drops the address space's reference.
static int ctx_kill(struct mm *mm, struct aio_ctx *c, bool unmap)
{
	uint64_t irq = spin_lock_irqsave(&aio_lock);

	if (c->dead) {
		spin_unlock_irqrestore(&aio_lock, irq);
		return -EINVAL;
	}
	c->dead_tail = c->tail;
	__atomic_store_n(&c->dead, true, __ATOMIC_RELEASE);
	for (struct aio_ctx **pp = &mm->aio; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	aio_nr -= c->max_reqs;
	wq_wake_all(&c->wq);
	spin_unlock_irqrestore(&aio_lock, irq);
	polls_cancel(c, true, 0);
	if (unmap)
		vm_unmap(mm, c->user_id, c->npages * PAGE_SIZE);
	ctx_put(c);
	return 0;
}

void aio_mm_exit(struct mm *mm)
{
	for (;;) {
		uint64_t irq = spin_lock_irqsave(&aio_lock);
		struct aio_ctx *c = mm->aio;
		if (c)
			c->refs++;
		spin_unlock_irqrestore(&aio_lock, irq);
		if (!c)
			return;
		ctx_kill(mm, c, false);
		ctx_put(c);
	}
}

int aio_ring_moved(struct mm *mm, uint64_t pa, uint64_t to)
{
	int rc = -EINVAL;
	uint64_t irq = spin_lock_irqsave(&aio_lock);

	for (struct aio_ctx *c = mm->aio; c && rc; c = c->next) {
		for (size_t i = 0; i < c->npages && rc; i++) {
			if (c->pages[i] != pa)
				continue;
			rc = 0;
			if (to)
				c->user_id = to;
		}
	}
	spin_unlock_irqrestore(&aio_lock, irq);
	return rc;
}

SYSCALL_DEFINE(SYS_io_setup, io_setup)
{
	uint32_t nr = (uint32_t)args->a[0];
	uint64_t uctxp = args->a[1], old;
	struct aio_ctx *c;

	if (get_user_u64(&old, uctxp) < 0)
		return -EFAULT;
	if (old || nr == 0)
		return -EINVAL;
	long rc = ctx_new(nr, &c);
	if (rc)
		return rc;
	if (put_user_u64(uctxp, c->user_id) < 0) {
		ctx_kill(current_process()->mm, c, true);
		rc = -EFAULT;
	}
	ctx_put(c);
	return rc;
}

// io_destroy waits until every request in flight has completed (the
// kernel must not touch their buffers after it returns), killably.
SYSCALL_DEFINE(SYS_io_destroy, io_destroy)
{
	struct aio_ctx *c = ctx_lookup(args->a[0]);

	if (!c)
		return -EINVAL;
	int rc = ctx_kill(current_process()->mm, c, true);
	if (rc == 0) {
		uint64_t irq = spin_lock_irqsave(&aio_lock);
		while (c->inflight && wq_wait_killable(&c->wq, &aio_lock, WAIT_FOREVER) == 0)
			;
		spin_unlock_irqrestore(&aio_lock, irq);
	}
	ctx_put(c);
	return rc;
}

// ---- reads and writes ----

// ioprio_check_cap for IOCB_FLAG_IOPRIO.
static int ioprio_check(int16_t prio)
{
	int v = prio, class = v >> 13, data = v & 0x1fff;

	switch (class) {
	case IOPRIO_CLASS_RT:
		if (!cred_capable(current_cred(), CAP_SYS_NICE) &&
		    !cred_capable(current_cred(), CAP_SYS_ADMIN))
			return -EPERM;
		// fall through
	case IOPRIO_CLASS_BE:
		return data >= IOPRIO_NR_LEVELS ? -EINVAL : 0;
	case IOPRIO_CLASS_IDLE:
		return 0;
	case IOPRIO_CLASS_NONE:
		return data ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

// Does the file have Linux's read_iter (write_iter)?  Pipes, regular
// files and devices do; directories and the anonymous files other than
// an eventfd's read (signalfd, timerfd, epoll, pidfd: .read only) do not.
static bool has_rw_iter(struct file *f, bool write)
{
	if (f->pipe)
		return true;
	if (!f->vn || f->vn->type == VNODE_DIR)
		return false;
	if (f->vn->type == VNODE_ANON)
		return !write && f->vn->ops && f->vn->ops->anon_name &&
		       !strcmp(f->vn->ops->anon_name, "eventfd");
	return true;
}

// aio_setup_rw: one buffer, or an iovec array (import_iovec's checks),
// the whole cut to MAX_RW_COUNT.  *segs is kmalloc'ed when vectored.
static long get_segments(const struct iocb *cb, bool vectored, struct user_iovec *one,
			 struct user_iovec **segs, uint64_t *count, uint64_t *total)
{
	if (!vectored) {
		one->base = cb->aio_buf;
		one->len = cb->aio_nbytes < MAX_RW_COUNT ? cb->aio_nbytes : MAX_RW_COUNT;
		if (!user_range_ok(one->base, one->len))
			return -EFAULT;
		*segs = one;
		*count = 1;
		*total = one->len;
		return 0;
	}
	uint64_t n = cb->aio_nbytes, sum = 0;
	struct user_iovec *v;
	long rc = n > UIO_MAXIOV ? -EINVAL : user_iovecs_get(cb->aio_buf, (int64_t)n, &v);
	if (rc < 0)
		return rc;
	for (uint64_t i = 0; i < n; i++)
		sum += v[i].len;
	*segs = v;
	*count = n;
	*total = sum;
	return 0;
}

// The transfer itself: at the offset on files that have one (a position
// is never moved), at the stream's own place on pipes and devices;
// segment by segment, stopping at a short one.  The event's result.
static int64_t transfer(struct file *f, bool write, bool append, bool nowait, int64_t pos,
			const struct user_iovec *segs, uint64_t count)
{
	int64_t done = 0;
	long rc = 0;

	for (uint64_t i = 0; i < count; i++) {
		struct iobuf b = iobuf_user(segs[i].base);
		size_t n = segs[i].len;
		if (n == 0)
			continue;
		if (f->pipe && nowait)
			rc = write ? pipe_write_nowait(f, &b, n, true) : pipe_read_nowait(f, &b, n, true);
		else if (write && append)
			rc = file_write_append(f, &b, n);
		else if (file_can_pread(f))
			rc = write ? file_pwrite(f, &b, n, (uint64_t)(pos + done))
				   : file_pread(f, &b, n, (uint64_t)(pos + done));
		else
			rc = write ? file_write(f, &b, n) : file_read(f, &b, n);
		if (rc < 0)
			break;
		done += rc;
		if ((size_t)rc < n)
			break;
		rc = 0;
	}
	if (done)
		return done;
	// There is no restarting one request of a batch: Linux gives EINTR.
	if (rc == -ERESTARTSYS || rc == -ERESTARTNOINTR || rc == -ERESTARTNOHAND)
		rc = -EINTR;
	return rc;
}

// aio_read / aio_write, in Linux's order of checks; 0 once the event is
// in the ring, or the errno io_submit gives for this iocb.
static long submit_rw(struct aio_req *r, const struct iocb *cb, bool write, bool vectored)
{
	struct file *f = r->file;
	struct user_iovec one, *segs;
	uint64_t count, total;

	if (cb->aio_flags & IOCB_FLAG_IOPRIO) {
		int rc = ioprio_check(cb->aio_reqprio);
		if (rc)
			return rc;
	}
	// kiocb_set_rw_flags: NOWAIT needs FMODE_NOWAIT, which of the files
	// here only pipes have in Linux 6.1.
	if (cb->aio_rw_flags & ~RWF_KNOWN)
		return -EOPNOTSUPP;
	bool nowait = cb->aio_rw_flags & RWF_NOWAIT;
	if (nowait && !f->pipe)
		return -EOPNOTSUPP;
	if (write ? !file_writable(f) : !file_readable(f))
		return -EBADF;
	if (!has_rw_iter(f, write))
		return -EINVAL;
	long rc = get_segments(cb, vectored, &one, &segs, &count, &total);
	if (rc)
		return rc;
	// rw_verify_area.
	if (cb->aio_offset < 0 || (int64_t)((uint64_t)cb->aio_offset + total) < 0) {
		if (segs != &one)
			kfree(segs);
		return -EINVAL;
	}
	bool append = write && ((cb->aio_rw_flags & RWF_APPEND) ||
				(f->flags & O_APPEND));
	int64_t res = transfer(f, write, append, nowait, cb->aio_offset, segs, count);
	if (segs != &one)
		kfree(segs);
	complete(r, res);
	return 0;
}

// aio_fsync: only the iocb's descriptor matters; files and directories
// have an fsync (and nothing to flush), pipes and devices none.
static long submit_fsync(struct aio_req *r, const struct iocb *cb)
{
	struct file *f = r->file;

	if (cb->aio_buf || cb->aio_offset || cb->aio_nbytes || cb->aio_rw_flags)
		return -EINVAL;
	if (f->pipe || !f->vn || (f->vn->type != VNODE_REG && f->vn->type != VNODE_DIR))
		return -EINVAL;
	complete(r, 0);
	return 0;
}

// ---- IOCB_CMD_POLL ----

// The file's wake-ups so far with the keys POLLIN and POLLOUT (fs/poll.h),
// read consistently.
static void wake_counts(struct file *f, uint64_t *in, uint64_t *out)
{
	uint64_t all;

	do {
		all = file_poll_events(f, 0);
		*in = file_poll_events(f, POLLIN) - all;
		*out = file_poll_events(f, POLLOUT) - all;
	} while (file_poll_events(f, 0) != all);
}

// The key of Linux's wake-up: a pipe's comes with its RDNORM/WRNORM twin,
// eventfd's and timerfd's come bare.
static uint32_t wake_key(struct file *f, uint32_t key)
{
	if (!f->pipe)
		return key;
	return key == POLLIN ? POLLIN | POLLRDNORM : POLLOUT | POLLWRNORM;
}

// What a waiting poll completes with now, or 0 (aio_poll_wake): a wake-up
// keyed with an event it waits for completes it with that key as it is;
// any other change, with what the file's poll reports of its events.
static uint32_t poll_check(struct aio_req *r)
{
	struct file *f = r->file;
	uint64_t in, out;
	uint32_t res = 0;

	wake_counts(f, &in, &out);
	if (in != r->seen_in && (r->events & wake_key(f, POLLIN)))
		res = wake_key(f, POLLIN);
	else if (out != r->seen_out && (r->events & wake_key(f, POLLOUT)))
		res = wake_key(f, POLLOUT);
	r->seen_in = in;
	r->seen_out = out;
	return res ? res : (uint32_t)file_poll(f) & r->events;
}

// The aio thread: rounds over the waiting polls, each checked without the
// lock (its file's poll may take others); a ready or cancelled one
// completes.  After a round it sleeps until the poll sequence number
// moves (it sampled it before the round, so no change is missed).  It
// ends when nothing waits and no submitter is about to queue.
static void poller(void *arg)
{
	(void)arg;
	uint64_t irq = spin_lock_irqsave(&aio_lock);
	if (poller_running) {
		spin_unlock_irqrestore(&aio_lock, irq);
		return;		// another serves them
	}
	poller_running = true;
	spin_unlock_irqrestore(&aio_lock, irq);
	for (;;) {
		uint64_t seq = poll_seq();
		irq = spin_lock_irqsave(&aio_lock);
		// A new round: everything checked goes to be checked again.
		struct aio_req **tail = &polls_pending;
		while (*tail)
			tail = &(*tail)->next;
		*tail = polls_checked;
		polls_checked = NULL;
		if (!polls_pending && poller_starting == 0) {
			poller_running = false;
			spin_unlock_irqrestore(&aio_lock, irq);
			return;
		}
		while (polls_pending) {
			struct aio_req *r = polls_pending;
			polls_pending = r->next;
			r->busy = true;
			spin_unlock_irqrestore(&aio_lock, irq);
			uint32_t mask = r->cancelled ? 0 : poll_check(r);
			irq = spin_lock_irqsave(&aio_lock);
			r->busy = false;
			if (!mask && !r->cancelled) {
				r->next = polls_checked;
				polls_checked = r;
				continue;
			}
			spin_unlock_irqrestore(&aio_lock, irq);
			poll_finish(r, r->cancelled ? 0 : mask);
			irq = spin_lock_irqsave(&aio_lock);
		}
		spin_unlock_irqrestore(&aio_lock, irq);
		poll_wait_change(seq, WAIT_FOREVER);
	}
}

// Queues r's copy to wait; -EAGAIN when there is no memory for it or its
// thread (Linux's answer when it cannot allocate a request).
static long poll_queue(struct aio_req *r)
{
	struct aio_req *q = kmalloc(sizeof(*q));

	if (!q)
		return -EAGAIN;
	*q = *r;
	uint64_t irq = spin_lock_irqsave(&aio_lock);
	bool start = !poller_running;
	poller_starting++;
	spin_unlock_irqrestore(&aio_lock, irq);
	if (start && !kthread_create("aio poll", poller, NULL, -1)) {
		irq = spin_lock_irqsave(&aio_lock);
		poller_starting--;
		spin_unlock_irqrestore(&aio_lock, irq);
		kfree(q);
		return -EAGAIN;
	}
	irq = spin_lock_irqsave(&aio_lock);
	poller_starting--;
	// Killed meanwhile: its polls were cancelled, so is this one.
	if (q->ctx->dead) {
		spin_unlock_irqrestore(&aio_lock, irq);
		kfree(q);
		complete(r, 0);
		poll_notify();
		return 0;
	}
	q->ctx->refs++;
	q->next = polls_pending;
	polls_pending = q;
	spin_unlock_irqrestore(&aio_lock, irq);
	poll_notify();
	return 0;
}

// aio_poll: the events a u16 can name (plus POLLERR and POLLHUP, always).
// Ready now, it completes at once; a file without a poll method (files,
// directories, /dev/null: always readable and writable) that is not
// ready for what was asked has nothing to wait on: EINVAL.
static long submit_poll(struct aio_req *r, const struct iocb *cb)
{
	struct file *f = r->file;

	if ((uint16_t)cb->aio_buf != cb->aio_buf)
		return -EINVAL;
	if (cb->aio_offset || cb->aio_nbytes || cb->aio_rw_flags)
		return -EINVAL;
	r->events = (uint32_t)cb->aio_buf | POLLERR | POLLHUP;
	// Wake-ups from here on complete it (Linux queues before it looks).
	wake_counts(f, &r->seen_in, &r->seen_out);
	uint32_t mask = (uint32_t)file_poll(f) & r->events;
	if (mask) {
		complete(r, mask);
		return 0;
	}
	if (!f->pipe && !(f->vn && f->vn->ops && f->vn->ops->poll))
		return -EINVAL;
	return poll_queue(r);
}

// ---- io_submit ----

// io_submit_one: the checks before a slot, the slot, the descriptors,
// aio_key, then the operation.  0 once the request is done or waiting.
static long submit_one(struct aio_ctx *c, uint64_t uiocb)
{
	struct iocb cb;
	struct aio_req r = { .ctx = c, .obj = uiocb };
	long rc;
	int err;

	if (copy_from_user(&cb, uiocb, sizeof(cb)) < 0)
		return -EFAULT;
	if (cb.aio_reserved2)
		return -EINVAL;
	if ((int64_t)cb.aio_nbytes < 0)
		return -EINVAL;
	if (!slot_take(c))
		return -EAGAIN;
	r.data = cb.aio_data;
	r.file = fget((int)cb.aio_fildes);
	if (!r.file) {
		rc = -EBADF;
		goto fail;
	}
	if (cb.aio_flags & IOCB_FLAG_RESFD) {
		r.resfd = eventfd_fget((int)cb.aio_resfd, &err);
		if (!r.resfd) {
			rc = err;
			goto fail;
		}
	}
	if (put_user_u32(uiocb + __builtin_offsetof(struct iocb, aio_key), KIOCB_KEY) < 0) {
		rc = -EFAULT;
		goto fail;
	}
	switch (cb.aio_lio_opcode) {
	case IOCB_CMD_PREAD:
		rc = submit_rw(&r, &cb, false, false);
		break;
	case IOCB_CMD_PWRITE:
		rc = submit_rw(&r, &cb, true, false);
		break;
	case IOCB_CMD_PREADV:
		rc = submit_rw(&r, &cb, false, true);
		break;
	case IOCB_CMD_PWRITEV:
		rc = submit_rw(&r, &cb, true, true);
		break;
	case IOCB_CMD_FSYNC:
	case IOCB_CMD_FDSYNC:
		rc = submit_fsync(&r, &cb);
		break;
	case IOCB_CMD_POLL:
		rc = submit_poll(&r, &cb);
		break;
	default:
		rc = -EINVAL;	// IOCB_CMD_NOOP too, as Linux
		break;
	}
	if (rc == 0)
		return 0;
fail:
	if (r.resfd)
		file_put(r.resfd);
	if (r.file)
		file_put(r.file);
	slot_give_back(c);
	return rc;
}

// At most the ring's size in one call; the count submitted, or the first
// iocb's errno.
SYSCALL_DEFINE(SYS_io_submit, io_submit)
{
	long nr = (long)args->a[1], i, rc = 0;
	uint64_t iocbpp = args->a[2];

	if (nr < 0)
		return -EINVAL;
	struct aio_ctx *c = ctx_lookup(args->a[0]);
	if (!c)
		return -EINVAL;
	if (nr > c->nr_events)
		nr = c->nr_events;
	for (i = 0; i < nr; i++) {
		uint64_t uiocb;
		if (get_user_u64(&uiocb, iocbpp + (uint64_t)i * 8) < 0) {
			rc = -EFAULT;
			break;
		}
		rc = submit_one(c, uiocb);
		if (rc)
			break;
	}
	ctx_put(c);
	return i ? i : rc;
}

// Only a waiting poll can be cancelled; it completes with 0 through the
// ring and the call says EINPROGRESS, as Linux.  A request that already
// completed (every other kind) is EINVAL.
SYSCALL_DEFINE(SYS_io_cancel, io_cancel)
{
	uint64_t uiocb = args->a[1];
	uint32_t key;

	if (get_user_u32(&key, uiocb + __builtin_offsetof(struct iocb, aio_key)) < 0)
		return -EFAULT;
	if (key != KIOCB_KEY)
		return -EINVAL;
	struct aio_ctx *c = ctx_lookup(args->a[0]);
	if (!c)
		return -EINVAL;
	long rc = polls_cancel(c, false, uiocb) ? -EINPROGRESS : -EINVAL;
	ctx_put(c);
	return rc;
}

// ---- io_getevents ----

// aio_read_events_ring: events from the user's head to the tail (both
// read from the ring, clamped), copied out page by page; head moves only
// past what was copied.  The count, or -EFAULT.
static long ring_read(struct aio_ctx *c, uint64_t uev, long nr)
{
	struct aio_ring *ring = ring_of(c);
	long got = 0;

	mutex_lock(&c->ring_lock);
	uint32_t head = __atomic_load_n(&ring->head, __ATOMIC_RELAXED);
	uint32_t tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
	// A waiter woken by io_destroy does not see the cancelled polls'
	// events: on Linux they land later, after its wake-up.
	if (__atomic_load_n(&c->dead, __ATOMIC_ACQUIRE))
		tail = c->dead_tail;
	if (head == tail)
		goto out;
	head %= c->nr_events;
	tail %= c->nr_events;
	while (got < nr && head != tail) {
		long avail = (long)((head <= tail ? tail : c->nr_events) - head);
		uint64_t pos = head + EVENTS_OFFSET;
		long in_page = (long)(EVENTS_PER_PAGE - pos % EVENTS_PER_PAGE);
		if (avail > nr - got)
			avail = nr - got;
		if (avail > in_page)
			avail = in_page;
		if (copy_to_user(uev + (uint64_t)got * sizeof(struct io_event), slot_of(c, head),
				 (size_t)avail * sizeof(struct io_event)) < 0) {
			got = -EFAULT;
			goto out;
		}
		got += avail;
		head = (uint32_t)((head + avail) % c->nr_events);
	}
	__atomic_store_n(&ring->head, head, __ATOMIC_RELAXED);
out:
	mutex_unlock(&c->ring_lock);
	return got;
}

// aio_read_events: adds what the ring has to *got (an error or a dead
// context when nothing came: EINVAL for dead); true when the wait is over.
static bool read_events(struct aio_ctx *c, long min_nr, long nr, uint64_t uev, long *got)
{
	long r = ring_read(c, uev + (uint64_t)*got * sizeof(struct io_event), nr - *got);

	if (r > 0)
		*got += r;
	if (__atomic_load_n(&c->dead, __ATOMIC_RELAXED))
		r = -EINVAL;
	if (!*got)
		*got = r;
	return r < 0 || *got >= min_nr;
}

static bool ring_ready_locked(struct aio_ctx *c)
{
	struct aio_ring *ring = ring_of(c);

	return c->dead || __atomic_load_n(&ring->head, __ATOMIC_RELAXED) !=
			  __atomic_load_n(&ring->tail, __ATOMIC_RELAXED);
}

// read_events: until min_nr events came, the relative timeout passed
// (one more look after it, as Linux's hrtimeout wait) or a signal
// arrived.  A zero timeout only looks; a negative one never expires
// (Linux's ktime_add_safe takes now plus it for an overflow).
static long get_events(struct aio_ctx *c, long min_nr, long nr, uint64_t uev, bool timed,
		       int64_t ns)
{
	long got = 0;

	if (read_events(c, min_nr, nr, uev, &got) || (timed && ns == 0))
		return got;
	uint64_t deadline = timed && ns > 0 ? clock_monotonic_ns() + (uint64_t)ns : WAIT_FOREVER;
	for (;;) {
		int w = 0;
		uint64_t irq = spin_lock_irqsave(&aio_lock);
		if (!ring_ready_locked(c))
			w = wq_wait(&c->wq, &aio_lock, deadline, true);
		spin_unlock_irqrestore(&aio_lock, irq);
		if (w == -EINTR)
			break;
		if (read_events(c, min_nr, nr, uev, &got) || w == -ETIMEDOUT)
			break;
	}
	return got;
}

// The timeout as Linux's ktime: seconds past KTIME_SEC_MAX are forever
// (not timed), nothing else is checked.
static int get_timeout(uint64_t uts, bool *timed, int64_t *ns)
{
	struct user_timespec ts;

	*timed = false;
	if (!uts)
		return 0;
	if (copy_from_user(&ts, uts, sizeof(ts)) < 0)
		return -EFAULT;
	if (ts.tv_sec >= KTIME_SEC_MAX)
		return 0;
	*timed = true;
	*ns = (int64_t)((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec);
	return 0;
}

static long do_getevents(uint64_t ctx_id, long min_nr, long nr, uint64_t uev, bool timed,
			 int64_t ns)
{
	struct aio_ctx *c = ctx_lookup(ctx_id);
	long rc = -EINVAL;

	if (!c)
		return -EINVAL;
	if (min_nr <= nr && min_nr >= 0)
		rc = get_events(c, min_nr, nr, uev, timed, ns);
	ctx_put(c);
	return rc;
}

SYSCALL_DEFINE(SYS_io_getevents, io_getevents)
{
	bool timed;
	int64_t ns = 0;

	if (get_timeout(args->a[4], &timed, &ns) < 0)
		return -EFAULT;
	long rc = do_getevents(args->a[0], (long)args->a[1], (long)args->a[2], args->a[3], timed, ns);
	if (rc == 0 && thread_signal_pending(current_thread()))
		rc = -EINTR;
	return rc;
}

struct aio_sigset {
	uint64_t sigmask;		// user pointer, or 0: the mask stays
	uint64_t sigsetsize;
};

// io_getevents with a temporary signal mask, kept until the handler has
// run when a signal interrupted the call (ERESTARTNOHAND), as ppoll.
SYSCALL_DEFINE(SYS_io_pgetevents, io_pgetevents)
{
	struct aio_sigset ks = { 0, 0 };
	bool timed;
	int64_t ns = 0;
	uint64_t mask;

	if (get_timeout(args->a[4], &timed, &ns) < 0)
		return -EFAULT;
	if (args->a[5] && copy_from_user(&ks, args->a[5], sizeof(ks)) < 0)
		return -EFAULT;
	if (ks.sigmask) {
		if (ks.sigsetsize != sizeof(mask))
			return -EINVAL;
		if (copy_from_user(&mask, ks.sigmask, sizeof(mask)) < 0)
			return -EFAULT;
		signal_set_temporary_mask(mask);
	}
	long rc = do_getevents(args->a[0], (long)args->a[1], (long)args->a[2], args->a[3], timed, ns);
	bool interrupted = thread_signal_pending(current_thread());
	if (!interrupted)
		signal_restore_temporary_mask();
	if (interrupted && rc == 0)
		rc = -ERESTARTNOHAND;
	return rc;
}
