// POSIX message queues: mq_open, mq_unlink, mq_timedsend,
// mq_timedreceive, mq_notify and mq_getsetattr, as Linux 6.1's
// ipc/mqueue.c.  A queue is a regular file of /dev/mqueue (Linux's
// mqueue file system, mounted there by distributions): listed, stat'ed
// and unlinked like one, read() giving its status line, alive while it
// has a name or an open file.  Messages go out highest priority first,
// in order within a priority.  A sender finding a receiver asleep hands
// its message over directly, and a receiver making room takes the first
// sleeping sender's message into the queue, as Linux's pipelined
// operations, so a woken sleeper never loses its turn.  One lock guards
// every queue; the text is copied from and to user memory outside it.

#include <stddef.h>

#include <fs/fcntl.h>
#include <fs/file.h>
#include <fs/fs_syscall.h>
#include <fs/poll.h>
#include <fs/vfs.h>
#include <fs/vnode.h>
#include <kernel/cred.h>
#include <kernel/ktime.h>
#include <kernel/mqueue.h>
#include <kernel/proc_internal.h>
#include <kernel/process.h>
#include <kernel/sched.h>
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

#define MQ_PRIO_MAX		32768
#define HARD_MSGMAX		65536
#define HARD_MSGSIZEMAX		(16 * 1024 * 1024)
#define MIN_MSGMAX		1
#define MIN_MSGSIZEMAX		128
#define FILENT_SIZE		80	// a queue file's st_size, as Linux's
#define NOTIFY_COOKIE_LEN	32	// SIGEV_THREAD's netlink cookie
// What RLIMIT_MSGQUEUE charges per possible message beyond its text:
// Linux's sizeof(struct msg_msg) and sizeof(struct posix_msg_tree_node)
// on x86-64.
#define MSG_MSG_SIZE		48
#define TREE_NODE_SIZE		48
#define RLIMIT_MSGQUEUE_INDEX	12

#define SIGEV_SIGNAL		0
#define SIGEV_NONE		1
#define SIGEV_THREAD		2
#define SI_MESGQ		(-3)

// struct mq_attr of the x86-64 ABI.
struct user_mq_attr {
	int64_t mq_flags, mq_maxmsg, mq_msgsize, mq_curmsgs;
	int64_t reserved[4];
};

// struct sigevent of the x86-64 ABI (64 bytes).
struct user_sigevent {
	uint64_t value;
	int32_t signo;
	int32_t notify;
	uint8_t rest[48];
};

struct mq_msg {
	struct mq_msg *next;
	unsigned prio;
	size_t size;
	char text[];
};

// The messages of one priority, oldest first; the queue keeps these
// highest priority first (Linux's tree nodes, so a queue of many
// messages of few priorities inserts in a few steps).
struct mq_prio {
	struct mq_prio *next;
	unsigned prio;
	struct mq_msg *head, *tail;
};

// A sender or receiver asleep on a queue, on its own wait queue so that
// the one whose turn it is is woken.  'msg' is the sender's message, or
// the one handed to the receiver; 'ready' says the operation is done.
struct mq_waiter {
	struct mq_waiter *next;
	struct wait_queue wq;
	struct mq_msg *msg;
	int prio;		// its thread's, as /proc's: lower goes first
	bool ready;
};

struct mqueue {
	int64_t maxmsg, msgsize, curmsgs;
	uint64_t qsize;				// bytes of text queued
	struct mq_prio *prios;
	struct mq_waiter *senders, *receivers;	// in turn (waiter_add)
	// The registration of mq_notify: the process (0: none), how, and
	// the exec it was made in (a program exec'ed since is not told).
	int notify_pid;
	int notify_how, notify_signo;
	uint64_t notify_value, notify_exec_id;
	// RLIMIT_MSGQUEUE: whose count the queue is in, and how much.
	uint32_t charged_uid;
	uint64_t charged;
	struct poll_events events;
};

// The bytes each user's queues take, for RLIMIT_MSGQUEUE (Linux's
// ucounts, by real user ID).
struct mq_user {
	struct mq_user *next;
	uint32_t uid;
	uint64_t bytes;
};

static struct spinlock mq_lock = SPINLOCK_INIT("mqueue");
static struct mq_user *users;		// under mq_lock
static int nqueues;			// under mq_lock: live queues, unlinked ones too
static struct vnode *mq_dir;		// /dev/mqueue, referenced for good

static int limits[MQ_NLIMITS] = {
	[MQ_QUEUES_MAX] = 256,
	[MQ_MSG_MAX] = 10,
	[MQ_MSGSIZE_MAX] = 8192,
	[MQ_MSG_DEFAULT] = 10,
	[MQ_MSGSIZE_DEFAULT] = 8192,
};

int mq_limit(enum mq_limit which)
{
	return __atomic_load_n(&limits[which], __ATOMIC_RELAXED);
}

int mq_set_limit(enum mq_limit which, int64_t value)
{
	int64_t lo = 0, hi = INT32_MAX;

	if (which == MQ_MSG_MAX || which == MQ_MSG_DEFAULT) {
		lo = MIN_MSGMAX;
		hi = HARD_MSGMAX;
	} else if (which == MQ_MSGSIZE_MAX || which == MQ_MSGSIZE_DEFAULT) {
		lo = MIN_MSGSIZEMAX;
		hi = HARD_MSGSIZEMAX;
	}
	if (value < lo || value > hi)
		return -EINVAL;
	__atomic_store_n(&limits[which], (int)value, __ATOMIC_RELAXED);
	return 0;
}

static const struct vnode_ops mq_ops;

static struct mqueue *queue_of_file(const struct file *f)
{
	if (!f || !f->vn || f->vn->ops != &mq_ops)
		return NULL;
	return f->vn->priv;
}

// ---- messages ----

// Adds m behind the others of its priority, with 'spare' (if not NULL,
// taken: *spare cleared) for a priority the queue has no message of.
// -ENOMEM when a new priority finds no memory.
static int insert_locked(struct mqueue *q, struct mq_msg *m, struct mq_prio **spare)
{
	struct mq_prio **pp = &q->prios, *node;

	while (*pp && (*pp)->prio > m->prio)
		pp = &(*pp)->next;
	node = *pp;
	if (!node || node->prio != m->prio) {
		if (spare && *spare) {
			node = *spare;
			*spare = NULL;
		} else if (!(node = kmalloc(sizeof(*node)))) {
			return -ENOMEM;
		}
		node->prio = m->prio;
		node->head = node->tail = NULL;
		node->next = *pp;
		*pp = node;
	}
	m->next = NULL;
	if (node->tail)
		node->tail->next = m;
	else
		node->head = m;
	node->tail = m;
	q->curmsgs++;
	q->qsize += m->size;
	return 0;
}

// The first message of the highest priority, taken off; NULL if none.
static struct mq_msg *take_locked(struct mqueue *q)
{
	struct mq_prio *node = q->prios;
	struct mq_msg *m;

	if (!node)
		return NULL;
	m = node->head;
	node->head = m->next;
	if (!node->head) {
		q->prios = node->next;
		kfree(node);
	}
	q->curmsgs--;
	q->qsize -= m->size;
	return m;
}

// ---- sleeping ----

// Linux serves sleepers by scheduling priority (its task->prio: real
// time above the others, then nice), then in the order they came
// (ipc/mqueue.c's wq_add): w goes after every sleeper of its priority or
// a higher one.
static void waiter_add(struct mq_waiter **list, struct mq_waiter *w)
{
	w->prio = sched_stat_prio(current_thread());
	while (*list && (*list)->prio <= w->prio)
		list = &(*list)->next;
	w->next = *list;
	*list = w;
}

static void waiter_remove(struct mq_waiter **list, struct mq_waiter *w)
{
	for (; *list; list = &(*list)->next) {
		if (*list == w) {
			*list = w->next;
			return;
		}
	}
}

// The first sleeper of a list, its turn done: off the list and woken.
static void waiter_done(struct mq_waiter **list)
{
	struct mq_waiter *w = *list;

	*list = w->next;
	w->ready = true;
	wq_wake_all(&w->wq);
}

// The deadline of an absolute CLOCK_REALTIME time in ns, on the realtime
// clock so that it follows clock_settime (wait.h's DEADLINE_REALTIME);
// 0 (WAIT_FOREVER) for none, -1 when it has passed.
static int64_t deadline_of(const int64_t *abs_ns)
{
	if (!abs_ns)
		return WAIT_FOREVER;
	if (*abs_ns <= (int64_t)clock_realtime_ns())
		return -1;
	return *abs_ns;
}

// Sleeps on 'list' until its turn is done (0), the deadline passes
// (-ETIMEDOUT) or a signal comes (-ERESTARTSYS: the calls restart with
// SA_RESTART, as Linux's).  mq_lock held, dropped meanwhile.
static int wait_turn(struct mq_waiter **list, struct mq_waiter *w, int64_t deadline)
{
	int rc = 0;

	if (deadline < 0)
		return -ETIMEDOUT;
	w->wq.head = NULL;
	w->ready = false;
	waiter_add(list, w);
	while (!w->ready && rc == 0)
		rc = wq_wait(&w->wq, &mq_lock,
			     deadline ? (uint64_t)deadline | DEADLINE_REALTIME : WAIT_FOREVER, true);
	if (w->ready)
		return 0;
	waiter_remove(list, w);
	return rc == -EINTR ? -ERESTARTSYS : rc;
}

// ---- notification ----

// A signal mq_notify asked for, sent once mq_lock is dropped.
struct mq_signal {
	int pid, signo;
	uint64_t value, exec_id;
};

static void notify_remove_locked(struct mqueue *q)
{
	q->notify_pid = 0;
}

// A message went into an empty queue nobody waited on: the registered
// process is told and its registration ends (Linux's __do_notify).
static void notify_locked(struct mqueue *q, struct mq_signal *out)
{
	if (q->notify_pid && q->curmsgs == 1) {
		// A signal number 0 is accepted by mq_notify and sends nothing.
		if (q->notify_how == SIGEV_SIGNAL && q->notify_signo)
			*out = (struct mq_signal){ q->notify_pid, q->notify_signo, q->notify_value,
						   q->notify_exec_id };
		notify_remove_locked(q);
	}
	poll_event(&q->events, 0);
}

// SI_MESGQ with the sender's process and real user ID, past the
// permission checks of kill (the kernel sends it), unless the owner has
// exec'ed another program since.
static void notify_send(const struct mq_signal *s)
{
	struct ksiginfo info = { .signo = s->signo, .code = SI_MESGQ, .value = s->value,
				 .pid = current_process()->pid, .uid = (int)current_cred()->uid };
	uint64_t irq;
	struct process *p;

	if (!s->pid)
		return;
	irq = spin_lock_irqsave(&proc_tree_lock);
	p = process_find(s->pid);
	if (p && !p->zombie && p->exec_id == s->exec_id)
		signal_send_process(p, s->signo, &info);
	spin_unlock_irqrestore(&proc_tree_lock, irq);
}

// ---- the queue's file ----

// A queue's file times follow its use, as Linux's: a message in or out
// changes all three, a status read, a registration or a flag change the
// access and change times.
static void touch(struct vnode *vn, bool modified)
{
	uint64_t now = fs_now_ns(), irq = spin_lock_irqsave(&vn->lock);

	vn->atime_ns = vn->ctime_ns = now;
	if (modified)
		vn->mtime_ns = now;
	spin_unlock_irqrestore(&vn->lock, irq);
}

static long mq_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	struct mqueue *q = vn->priv;
	char text[FILENT_SIZE];
	uint64_t irq;
	size_t len;

	(void)f;
	irq = spin_lock_irqsave(&mq_lock);
	ksnprintf(text, sizeof(text), "QSIZE:%-10lu NOTIFY:%-5d SIGNO:%-5d NOTIFY_PID:%-6d\n",
		  q->qsize, q->notify_pid ? q->notify_how : 0,
		  q->notify_pid && q->notify_how == SIGEV_SIGNAL ? q->notify_signo : 0,
		  q->notify_pid);
	spin_unlock_irqrestore(&mq_lock, irq);
	len = strlen(text);
	if (off >= len || n == 0)
		return 0;
	if (n > len - off)
		n = len - off;
	if (iobuf_put(b, 0, text + off, n) < 0)
		return -EFAULT;
	touch(vn, false);
	return (long)n;
}

static int mq_poll(struct vnode *vn)
{
	struct mqueue *q = vn->priv;
	uint64_t irq = spin_lock_irqsave(&mq_lock);
	int mask = 0;

	if (q->curmsgs)
		mask |= POLLIN | POLLRDNORM;
	if (q->curmsgs < q->maxmsg)
		mask |= POLLOUT | POLLWRNORM;
	spin_unlock_irqrestore(&mq_lock, irq);
	return mask;
}

static uint64_t mq_poll_events(struct vnode *vn, uint32_t events)
{
	struct mqueue *q = vn->priv;

	return poll_events_for(&q->events, events);
}

// Every close of a descriptor by the registered process ends its
// registration (Linux's mqueue_flush_file).
static void mq_flush(struct vnode *vn, struct file *f)
{
	struct mqueue *q = vn->priv;
	int me = current_process() ? current_process()->pid : 0;
	uint64_t irq = spin_lock_irqsave(&mq_lock);

	(void)f;
	if (me && q->notify_pid == me)
		notify_remove_locked(q);
	spin_unlock_irqrestore(&mq_lock, irq);
}

static struct mq_user *user_find_locked(uint32_t uid)
{
	for (struct mq_user *u = users; u; u = u->next)
		if (u->uid == uid)
			return u;
	return NULL;
}

static void uncharge_locked(uint32_t uid, uint64_t bytes)
{
	for (struct mq_user **pu = &users; *pu; pu = &(*pu)->next) {
		struct mq_user *u = *pu;

		if (u->uid != uid)
			continue;
		u->bytes -= bytes;
		if (u->bytes == 0) {
			*pu = u->next;
			kfree(u);
		}
		return;
	}
}

// The last name and file are gone: the messages go, and the user's
// RLIMIT_MSGQUEUE count and the queue count get their share back.
static void mq_release(struct vnode *vn)
{
	struct mqueue *q = vn->priv;
	struct mq_msg *m;
	uint64_t irq;

	while ((m = take_locked(q)))		// nobody else can see q now
		kfree(m);
	irq = spin_lock_irqsave(&mq_lock);
	uncharge_locked(q->charged_uid, q->charged);
	nqueues--;
	spin_unlock_irqrestore(&mq_lock, irq);
	kfree(q);
}

static const struct vnode_ops mq_ops = {
	.read = mq_read,
	.poll = mq_poll,
	.poll_events = mq_poll_events,
	.flush = mq_flush,
	.release = mq_release,
};

// ---- mq_open, mq_unlink ----

// A queue name as Linux's getname and lookup_one_len take it (the C
// library has dropped the leading slash): *name a new buffer for kfree.
static long user_queue_name(uint64_t uname, char **name)
{
	long len = user_path(uname, name);

	if (len < 0)
		return len;
	if (len == 0)
		len = -ENOENT;
	else if (strchr(*name, '/') || !strcmp(*name, ".") || !strcmp(*name, ".."))
		len = -EACCES;
	else if (len > NAME_MAX)
		len = -ENAMETOOLONG;
	if (len < 0)
		kfree(*name);
	return len;
}

// The attributes of a new queue: checked (Linux's mqueue_get_inode) and
// what they cost against RLIMIT_MSGQUEUE.  0 or -EINVAL.
static int new_attr(const struct user_mq_attr *attr, struct mqueue *q, uint64_t *cost)
{
	bool resource = cred_capable(current_cred(), CAP_SYS_RESOURCE);
	int64_t maxmsg, msgsize;

	maxmsg = mq_limit(MQ_MSG_DEFAULT) < mq_limit(MQ_MSG_MAX) ? mq_limit(MQ_MSG_DEFAULT)
								  : mq_limit(MQ_MSG_MAX);
	msgsize = mq_limit(MQ_MSGSIZE_DEFAULT) < mq_limit(MQ_MSGSIZE_MAX)
			  ? mq_limit(MQ_MSGSIZE_DEFAULT) : mq_limit(MQ_MSGSIZE_MAX);
	if (attr) {
		maxmsg = attr->mq_maxmsg;
		msgsize = attr->mq_msgsize;
	}
	if (maxmsg <= 0 || msgsize <= 0)
		return -EINVAL;
	if (resource ? maxmsg > HARD_MSGMAX || msgsize > HARD_MSGSIZEMAX
		     : maxmsg > mq_limit(MQ_MSG_MAX) || msgsize > mq_limit(MQ_MSGSIZE_MAX))
		return -EINVAL;
	q->maxmsg = maxmsg;
	q->msgsize = msgsize;
	*cost = (uint64_t)maxmsg * (uint64_t)msgsize + (uint64_t)maxmsg * MSG_MSG_SIZE +
		(uint64_t)(maxmsg < MQ_PRIO_MAX ? maxmsg : MQ_PRIO_MAX) * TREE_NODE_SIZE;
	return 0;
}

// Counts a new queue and charges its user (mq_lock held), in Linux's
// order: ENOSPC past queues_max, then EMFILE past RLIMIT_MSGQUEUE.
// 'spare' is a user entry taken (cleared) if the user has none.
static int charge_locked(struct mqueue *q, uint64_t cost, struct mq_user **spare)
{
	const struct cred *c = current_cred();
	uint64_t limit = current_process()->rlimits[RLIMIT_MSGQUEUE_INDEX].cur;
	struct mq_user *u;

	u = user_find_locked(c->uid);
	if (u ? u->bytes + cost > limit : cost > limit)
		return -EMFILE;
	if (!u) {
		u = *spare;
		*spare = NULL;
		u->uid = c->uid;
		u->bytes = 0;
		u->next = users;
		users = u;
	}
	u->bytes += cost;
	q->charged_uid = c->uid;
	q->charged = cost;
	nqueues++;
	return 0;
}

// Makes the queue 'name' in /dev/mqueue (vfs_tree_lock held): 0 and *out
// its vnode with a reference.  The caller's vn, q and spare are taken
// over on success.
static int create_locked(const char *name, size_t len, uint32_t mode,
			 const struct user_mq_attr *attr, struct vnode *vn, struct mqueue *q,
			 struct mq_user **spare)
{
	const struct cred *c = current_cred();
	uint64_t cost, irq;
	int rc;

	rc = vnode_permission(c, mq_dir, MAY_WRITE | MAY_EXEC);
	if (rc)
		return rc;
	irq = spin_lock_irqsave(&mq_lock);
	if (nqueues >= mq_limit(MQ_QUEUES_MAX) && !cred_capable(c, CAP_SYS_RESOURCE))
		rc = -ENOSPC;
	else if ((rc = new_attr(attr, q, &cost)) == 0)
		rc = charge_locked(q, cost, spare);
	spin_unlock_irqrestore(&mq_lock, irq);
	if (rc)
		return rc;
	vn->mode = (vn->mode & ~07777u) | (mode & 07777 & ~current_umask());
	vn->uid = c->fsuid;
	vn->gid = c->fsgid;
	vn->size = FILENT_SIZE;
	vn->ops = &mq_ops;
	vn->priv = q;
	rc = dir_add(mq_dir, name, len, vn);
	if (rc) {
		// Not visible to anybody yet: undo by hand, the caller frees.
		vn->ops = NULL;
		vn->priv = NULL;
		irq = spin_lock_irqsave(&mq_lock);
		uncharge_locked(q->charged_uid, q->charged);
		nqueues--;
		spin_unlock_irqrestore(&mq_lock, irq);
	}
	return rc;
}

// Linux's prepare_open on an existing queue: EEXIST, EINVAL for the
// access mode 3, EACCES from its mode.
static int may_open_existing(struct vnode *vn, int oflag)
{
	static const int acc_mask[3] = { MAY_READ, MAY_WRITE, MAY_READ | MAY_WRITE };

	if ((oflag & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		return -EEXIST;
	if ((oflag & O_ACCMODE) == O_ACCMODE)
		return -EINVAL;
	return vnode_permission(current_cred(), vn, acc_mask[oflag & O_ACCMODE]);
}

// Finds or makes the queue: *out referenced.
static int open_queue(const char *name, size_t len, int oflag, uint32_t mode,
		      const struct user_mq_attr *attr, struct vnode **out)
{
	struct vnode *vn = vnode_alloc(VNODE_REG, 0);
	struct mqueue *q = kzalloc(sizeof(*q));
	struct mq_user *spare = kzalloc(sizeof(*spare));
	struct dirent_node *d;
	uint64_t irq;
	int rc;

	if (!vn || !q || !spare) {
		rc = -ENOMEM;
		goto out;
	}
	irq = spin_lock_irqsave(&vfs_tree_lock);
	d = dir_find(mq_dir, name, len);
	if ((rc = vnode_permission(current_cred(), mq_dir, MAY_EXEC))) {
		;	// the lookup needs search permission, as Linux's
	} else if (d && d->vn->ops != &mq_ops) {
		rc = -EACCES;		// cannot happen: /dev/mqueue takes no other names
	} else if (d) {
		rc = may_open_existing(d->vn, oflag);
		if (rc == 0) {
			d->vn->refcount++;
			*out = d->vn;
		}
	} else if (!(oflag & O_CREAT)) {
		rc = -ENOENT;
	} else {
		rc = create_locked(name, len, mode, attr, vn, q, &spare);
		if (rc == 0) {
			*out = vn;	// the reference vnode_alloc gave
			vn = NULL;
			q = NULL;
		}
	}
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
out:
	vnode_put(vn);
	kfree(q);
	kfree(spare);
	return rc;
}

SYSCALL_DEFINE(SYS_mq_open, mq_open)
{
	int oflag = (int)args->a[1];
	uint32_t mode = (uint16_t)args->a[2];	// umode_t
	struct user_mq_attr attr;
	struct vnode *vn = NULL;
	struct file *f;
	char *name;
	long len;
	int rc;

	if (args->a[3] && copy_from_user(&attr, args->a[3], sizeof(attr)) < 0)
		return -EFAULT;
	len = user_queue_name(args->a[0], &name);
	if (len == -EACCES || len == -ENAMETOOLONG) {
		// Linux finds these at the lookup, after the descriptor.
		int fd_rc = fd_prepare(current_fdtable(), 0);

		return fd_rc < 0 ? fd_rc : len;
	}
	if (len < 0)
		return len;
	rc = fd_prepare(current_fdtable(), 0);
	if (rc == 0)
		rc = open_queue(name, (size_t)len, oflag, mode, args->a[3] ? &attr : NULL, &vn);
	kfree(name);
	if (rc)
		return rc;
	f = file_new_vnode(vn, (uint32_t)oflag & ~(uint32_t)O_CLOEXEC);
	if (!f) {
		vnode_put(vn);
		return -ENOMEM;
	}
	// Queue descriptors are always close-on-exec, as Linux makes them.
	rc = fd_install(current_fdtable(), f, 0, true);
	file_put(f);
	return rc;
}

SYSCALL_DEFINE(SYS_mq_unlink, mq_unlink)
{
	struct dirent_node *d;
	struct vnode *vn = NULL;
	char *name;
	long len = user_queue_name(args->a[0], &name);
	uint64_t irq;
	int rc;

	if (len < 0)
		return len;
	irq = spin_lock_irqsave(&vfs_tree_lock);
	d = dir_find(mq_dir, name, (size_t)len);
	if ((rc = vnode_permission(current_cred(), mq_dir, MAY_EXEC)))
		;	// the lookup needs search permission, as Linux's
	else if (!d)
		rc = -ENOENT;
	else
		rc = cred_may_delete(current_cred(), mq_dir, d->vn);	// sticky: EPERM
	if (rc == 0) {
		vn = d->vn;
		vn->refcount++;		// freed, if it was the last, below
		dir_remove(mq_dir, d);
	}
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
	kfree(name);
	vnode_put(vn);
	return rc;
}

// ---- mq_timedsend, mq_timedreceive ----

// The absolute timeout of a call, checked at entry as Linux's
// prepare_timeout: *abs_ns, or -EFAULT, -EINVAL.
static int user_timeout(uint64_t uts, int64_t *abs_ns)
{
	struct timespec64 ts;

	if (copy_from_user(&ts, uts, sizeof(ts)) < 0)
		return -EFAULT;
	if (!timespec64_valid(&ts))
		return -EINVAL;
	*abs_ns = timespec64_ns(&ts);
	return 0;
}

// The queue of 'fd' with the file referenced in *fp: -EBADF for anything
// else or without the access 'need_write' names.
static struct mqueue *queue_for(int fd, struct file **fp, bool need_write)
{
	struct file *f = fget(fd);
	struct mqueue *q = queue_of_file(f);

	if (q && (need_write ? file_writable(f) : file_readable(f))) {
		*fp = f;
		return q;
	}
	if (f)
		file_put(f);
	return NULL;
}

SYSCALL_DEFINE(SYS_mq_timedsend, mq_timedsend)
{
	size_t len = (size_t)args->a[2];
	unsigned prio = (unsigned)args->a[3];
	int64_t abs_ns, deadline;
	struct mq_signal sig = { 0 };
	struct mq_prio *spare = NULL;
	bool touched = false;
	struct mq_waiter w;
	struct mqueue *q;
	struct mq_msg *m;
	struct file *f;
	uint64_t irq;
	long rc = 0;

	if (args->a[4] && (rc = user_timeout(args->a[4], &abs_ns)) < 0)
		return rc;
	if (prio >= MQ_PRIO_MAX)
		return -EINVAL;
	q = queue_for((int)args->a[0], &f, true);
	if (!q)
		return -EBADF;
	if (len > (size_t)q->msgsize) {
		file_put(f);
		return -EMSGSIZE;
	}
	m = kmalloc(sizeof(*m) + len);
	spare = kmalloc(sizeof(*spare));
	if (!m || !spare) {
		rc = -ENOMEM;
		goto out;
	}
	if (copy_from_user(m->text, args->a[1], len) < 0) {
		rc = -EFAULT;
		goto out;
	}
	m->prio = prio;
	m->size = len;
	deadline = deadline_of(args->a[4] ? &abs_ns : NULL);
	irq = spin_lock_irqsave(&mq_lock);
	if (q->curmsgs == q->maxmsg) {
		if (f->flags & O_NONBLOCK) {
			rc = -EAGAIN;
		} else {
			w.msg = m;
			rc = wait_turn(&q->senders, &w, deadline);
			if (rc == 0)
				m = NULL;	// a receiver put it in the queue
		}
	} else if (q->receivers) {
		q->receivers->msg = m;
		m = NULL;
		waiter_done(&q->receivers);
		touched = true;
	} else if ((rc = insert_locked(q, m, &spare)) == 0) {
		m = NULL;
		notify_locked(q, &sig);
		touched = true;
	}
	spin_unlock_irqrestore(&mq_lock, irq);
	if (touched) {
		touch(f->vn, true);
		poll_notify();		// poll and select sleepers look again
	}
	notify_send(&sig);
out:
	kfree(m);
	kfree(spare);
	file_put(f);
	return rc;
}

SYSCALL_DEFINE(SYS_mq_timedreceive, mq_timedreceive)
{
	size_t len = (size_t)args->a[2];
	uint64_t uprio = args->a[3];
	int64_t abs_ns, deadline;
	struct mq_prio *spare;
	struct mq_waiter w;
	struct mq_msg *m = NULL;
	bool touched = false;
	struct mqueue *q;
	struct file *f;
	uint64_t irq;
	long rc = 0;

	if (args->a[4] && (rc = user_timeout(args->a[4], &abs_ns)) < 0)
		return rc;
	q = queue_for((int)args->a[0], &f, false);
	if (!q)
		return -EBADF;
	if (len < (size_t)q->msgsize) {
		file_put(f);
		return -EMSGSIZE;
	}
	// For the sleeping sender's message this call may take in.
	spare = kmalloc(sizeof(*spare));
	deadline = deadline_of(args->a[4] ? &abs_ns : NULL);
	irq = spin_lock_irqsave(&mq_lock);
	if (q->curmsgs == 0) {
		if (f->flags & O_NONBLOCK) {
			rc = -EAGAIN;
		} else {
			w.msg = NULL;
			rc = wait_turn(&q->receivers, &w, deadline);
			m = w.msg;
		}
	} else {
		m = take_locked(q);
		touched = true;
		// Room now: the first sleeping sender's message goes in (if
		// memory for a new priority fails, that sender sleeps on).
		if (q->senders && insert_locked(q, q->senders->msg, &spare) == 0)
			waiter_done(&q->senders);
		else if (!q->senders)
			poll_event(&q->events, 0);
	}
	spin_unlock_irqrestore(&mq_lock, irq);
	kfree(spare);
	if (touched) {
		touch(f->vn, true);
		poll_notify();
	}
	if (rc == 0) {
		// Taken already, as Linux: a bad buffer loses the message.
		rc = (long)m->size;
		if ((uprio && put_user_u32(uprio, m->prio) < 0) ||
		    copy_to_user(args->a[1], m->text, m->size) < 0)
			rc = -EFAULT;
		kfree(m);
	}
	file_put(f);
	return rc;
}

// ---- mq_notify, mq_getsetattr ----

// SIGEV_THREAD asks for a netlink socket (the descriptor in sigev_signo)
// to get a cookie: there are no sockets here, so it fails as Linux's
// netlink_getsockbyfilp does for a descriptor that is not one.
static int thread_notification(const struct user_sigevent *ev)
{
	char cookie[NOTIFY_COOKIE_LEN];
	struct file *f;

	if (copy_from_user(cookie, ev->value, sizeof(cookie)) < 0)
		return -EFAULT;
	f = fget(ev->signo);
	if (!f)
		return -EBADF;
	file_put(f);
	return -ENOTSOCK;
}

SYSCALL_DEFINE(SYS_mq_notify, mq_notify)
{
	struct process *me = current_process();
	bool changed = false;
	struct user_sigevent ev;
	struct mqueue *q;
	struct file *f;
	uint64_t irq;
	long rc = 0;

	if (args->a[1]) {
		if (copy_from_user(&ev, args->a[1], sizeof(ev)) < 0)
			return -EFAULT;
		if (ev.notify != SIGEV_NONE && ev.notify != SIGEV_SIGNAL &&
		    ev.notify != SIGEV_THREAD)
			return -EINVAL;
		if (ev.notify == SIGEV_SIGNAL && (uint32_t)ev.signo > NSIG)
			return -EINVAL;
		if (ev.notify == SIGEV_THREAD)
			return thread_notification(&ev);
	}
	f = fget((int)args->a[0]);
	q = queue_of_file(f);
	if (!q) {
		if (f)
			file_put(f);
		return -EBADF;
	}
	irq = spin_lock_irqsave(&mq_lock);
	if (!args->a[1]) {
		// Only the registered process unregisters; anyone else: 0.
		changed = q->notify_pid == me->pid;
		if (changed)
			notify_remove_locked(q);
	} else if (q->notify_pid) {
		rc = -EBUSY;
	} else {
		q->notify_pid = me->pid;
		q->notify_how = ev.notify;
		q->notify_signo = ev.signo;
		q->notify_value = ev.value;
		q->notify_exec_id = me->exec_id;
		changed = true;
	}
	spin_unlock_irqrestore(&mq_lock, irq);
	if (changed)
		touch(f->vn, false);
	file_put(f);
	return rc;
}

SYSCALL_DEFINE(SYS_mq_getsetattr, mq_getsetattr)
{
	struct user_mq_attr new, old;
	struct mqueue *q;
	struct file *f;
	uint64_t irq;

	if (args->a[1] && copy_from_user(&new, args->a[1], sizeof(new)) < 0)
		return -EFAULT;
	if (args->a[1] && (new.mq_flags & ~(int64_t)O_NONBLOCK))
		return -EINVAL;
	f = fget((int)args->a[0]);
	q = queue_of_file(f);
	if (!q) {
		if (f)
			file_put(f);
		return -EBADF;
	}
	memset(&old, 0, sizeof(old));
	irq = spin_lock_irqsave(&mq_lock);
	old.mq_maxmsg = q->maxmsg;
	old.mq_msgsize = q->msgsize;
	old.mq_curmsgs = q->curmsgs;
	spin_unlock_irqrestore(&mq_lock, irq);
	irq = spin_lock_irqsave(&f->lock);
	old.mq_flags = f->flags & O_NONBLOCK;
	if (args->a[1])
		f->flags = (f->flags & ~(uint32_t)O_NONBLOCK) | (uint32_t)(new.mq_flags & O_NONBLOCK);
	spin_unlock_irqrestore(&f->lock, irq);
	if (args->a[1])
		touch(f->vn, false);
	file_put(f);
	if (args->a[2] && copy_to_user(args->a[2], &old, sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

// ---- boot ----

// /dev/mqueue: anyone may make queues there, only their owners remove
// them (sticky, as Linux's mqueue root).  Names come only from mq_open:
// other ways of making one (open with O_CREAT, mkdir, mknod, link,
// rename) get EPERM; unlink works as mq_unlink.
int mqueue_init(void)
{
	int rc = vfs_mkdir_p("/dev/mqueue", &mq_dir);

	if (rc)
		return rc;
	mq_dir->mode = S_IFDIR | 01777;
	mq_dir->refuse_new = EPERM;
	return 0;
}
