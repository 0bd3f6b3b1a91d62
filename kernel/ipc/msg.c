// System V message queues: msgget, msgsnd, msgrcv, msgctl, with Linux's
// limits (msgmax 8192, msgmnb 16384, msgmni 32000), identifiers, checks in
// its order, and blocking rules.  One lock guards every queue: senders
// and receivers copy the text to and from user memory outside it.

#include <stddef.h>

#include <kernel/ipc.h>
#include <kernel/cred.h>
#include <kernel/process.h>
#include <kernel/spinlock.h>
#include <kernel/syscall.h>
#include <kernel/time.h>
#include <kernel/uaccess.h>
#include <kernel/wait.h>
#include <fs/procfs.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>


#define MSG_NOERROR	010000
#define MSG_EXCEPT	020000
#define MSG_COPY	040000

#define MSG_STAT	11
#define MSG_INFO	12
#define MSG_STAT_ANY	13

struct msg {
	struct msg *next;
	int64_t type;
	size_t size;
	char text[];
};

struct msg_queue {
	struct ipc_perm_k perm;		// its identifier and place in 'queues'
	struct msg *head;
	uint64_t qnum, cbytes, qbytes;
	int64_t stime, rtime, ctime;	// seconds of the wall clock
	int lspid, lrpid;
	bool removed;
	struct wait_queue wq;		// senders waiting for room, receivers for a message
	int sleepers;			// on wq: a removed queue is freed by the last
};

static struct spinlock msg_lock = SPINLOCK_INIT("msg queues");
static struct ipc_table queues = { .next_id_limit = IPC_MSG_NEXT_ID };

// ---- the table ----

static struct msg_queue *queue_of(struct ipc_perm_k *p)
{
	return p ? (struct msg_queue *)((char *)p - offsetof(struct msg_queue, perm)) : NULL;
}

static struct msg_queue *by_id_locked(int id)
{
	return queue_of(ipc_find_id(&queues, id));
}

// Sleeps on q's queue (msg_lock held, dropped meanwhile); a queue removed
// meanwhile is freed by its last sleeper, whose *freed is then set.
// 0 or -ERESTARTNOHAND.
static int sleep_on_queue(struct msg_queue *q, bool *freed)
{
	int rc;

	q->sleepers++;
	rc = wq_wait(&q->wq, &msg_lock, WAIT_FOREVER, true);
	q->sleepers--;
	*freed = q->removed && q->sleepers == 0;
	if (*freed)
		kfree(q);	// kfree takes no lock of ours
	return rc ? -ERESTARTNOHAND : 0;
}

// ---- msgget ----

SYSCALL_DEFINE(SYS_msgget, msgget)
{
	int32_t key = (int32_t)args->a[0];
	int flags = (int)args->a[1];
	struct msg_queue *made = kzalloc(sizeof(*made)), *q;
	uint64_t irq;
	long rc;

	if (!made)
		return -ENOMEM;
	irq = spin_lock_irqsave(&msg_lock);
	q = key == IPC_PRIVATE ? NULL : queue_of(ipc_find_key(&queues, key));
	if (q) {
		if ((flags & IPC_CREAT) && (flags & IPC_EXCL))
			rc = -EEXIST;
		else
			rc = ipc_permitted(&q->perm, flags) ? -EACCES : q->perm.id;
	} else if (key != IPC_PRIVATE && !(flags & IPC_CREAT)) {
		rc = -ENOENT;
	} else if (queues.count >= ipc_limit(IPC_MSGMNI)) {
		rc = -ENOSPC;
	} else {
		ipc_perm_init(&made->perm, key, flags);
		made->qbytes = (uint64_t)ipc_limit(IPC_MSGMNB);
		made->ctime = ipc_now();
		rc = ipc_insert(&queues, &made->perm);
		if (rc == 0) {
			rc = made->perm.id;
			made = NULL;
		}
	}
	spin_unlock_irqrestore(&msg_lock, irq);
	kfree(made);
	return rc;
}

// ---- msgsnd ----

SYSCALL_DEFINE(SYS_msgsnd, msgsnd)
{
	int id = (int)args->a[0];
	uint64_t umsg = args->a[1];
	int64_t size = (int64_t)args->a[2];
	int flags = (int)args->a[3];
	struct msg_queue *q;
	struct msg *m;
	int64_t type;
	uint64_t irq;
	long rc = 0;

	if (copy_from_user(&type, umsg, sizeof(type)) < 0)
		return -EFAULT;
	if (size > ipc_limit(IPC_MSGMAX) || size < 0 || id < 0)
		return -EINVAL;
	if (type < 1)
		return -EINVAL;
	m = kmalloc(sizeof(*m) + (size_t)size);
	if (!m)
		return -ENOMEM;
	m->type = type;
	m->size = (size_t)size;
	m->next = NULL;
	if (copy_from_user(m->text, umsg + sizeof(type), (size_t)size) < 0) {
		kfree(m);
		return -EFAULT;
	}
	irq = spin_lock_irqsave(&msg_lock);
	q = by_id_locked(id);
	if (!q)
		rc = -EINVAL;
	else if (ipc_permitted(&q->perm, 0222))
		rc = -EACCES;
	while (rc == 0) {
		bool freed = false;

		if (q->removed) {
			rc = -EIDRM;
			break;
		}
		if (q->cbytes + m->size <= q->qbytes && q->qnum + 1 <= q->qbytes)
			break;
		if (flags & IPC_NOWAIT) {
			rc = -EAGAIN;
			break;
		}
		rc = sleep_on_queue(q, &freed);
		if (freed) {
			rc = -EIDRM;
			break;
		}
	}
	if (rc == 0) {
		struct msg **tail = &q->head;

		while (*tail)
			tail = &(*tail)->next;
		*tail = m;
		m = NULL;
		q->qnum++;
		q->cbytes += (uint64_t)size;
		q->lspid = current_process()->pid;
		q->stime = ipc_now();
		wq_wake_all(&q->wq);
	}
	spin_unlock_irqrestore(&msg_lock, irq);
	kfree(m);
	return rc;
}

// ---- msgrcv ----

enum search { SEARCH_ANY, SEARCH_EQUAL, SEARCH_NOTEQUAL, SEARCH_LESSEQUAL, SEARCH_NUMBER };

// The message msgrcv takes (Linux's find_msg); *link is where it hangs.
static struct msg **find_msg_locked(struct msg_queue *q, int64_t type, enum search how)
{
	struct msg **best = NULL;
	int64_t n = 0;

	for (struct msg **pm = &q->head; *pm; pm = &(*pm)->next, n++) {
		struct msg *m = *pm;

		switch (how) {
		case SEARCH_ANY:
			return pm;
		case SEARCH_EQUAL:
			if (m->type == type)
				return pm;
			break;
		case SEARCH_NOTEQUAL:
			if (m->type != type)
				return pm;
			break;
		case SEARCH_LESSEQUAL:
			// The lowest type not above 'type', the first of its kind.
			if (m->type <= type && (!best || m->type < (*best)->type))
				best = pm;
			break;
		case SEARCH_NUMBER:
			if (n == type)
				return pm;
			break;
		}
	}
	return best;
}

SYSCALL_DEFINE(SYS_msgrcv, msgrcv)
{
	int id = (int)args->a[0];
	uint64_t umsg = args->a[1];
	int64_t bufsz = (int64_t)args->a[2], type = (int64_t)args->a[3];
	int flags = (int)args->a[4];
	enum search how = SEARCH_ANY;
	struct msg_queue *q;
	struct msg *m = NULL, *copy = NULL;
	size_t copy_room = 0;
	uint64_t irq;
	long rc = 0;

	if (id < 0 || bufsz < 0)
		return -EINVAL;
	if (flags & MSG_COPY) {
		// A copy of the message at index 'type', left in the queue.
		if ((flags & MSG_EXCEPT) || !(flags & IPC_NOWAIT))
			return -EINVAL;
		how = SEARCH_NUMBER;
		// Room for bufsz bytes, or the largest message allowed now.
		int msgmax = ipc_limit(IPC_MSGMAX);

		copy_room = (size_t)(bufsz < msgmax ? bufsz : msgmax);
		copy = kmalloc(sizeof(*copy) + copy_room);
		if (!copy)
			return -ENOMEM;
	} else if (type < 0) {
		how = SEARCH_LESSEQUAL;
		type = type == INT64_MIN ? INT64_MAX : -type;
	} else if (type > 0) {
		how = (flags & MSG_EXCEPT) ? SEARCH_NOTEQUAL : SEARCH_EQUAL;
	}
	irq = spin_lock_irqsave(&msg_lock);
	q = by_id_locked(id);
	if (!q)
		rc = -EINVAL;
	else if (ipc_permitted(&q->perm, 0444))
		rc = -EACCES;
	while (rc == 0) {
		struct msg **pm;

		if (q->removed) {
			rc = -EIDRM;
			break;
		}
		pm = find_msg_locked(q, type, how);
		if (pm) {
			if ((int64_t)(*pm)->size > bufsz && !(flags & MSG_NOERROR)) {
				rc = -E2BIG;
				break;
			}
			if (copy && (*pm)->size > copy_room) {
				// Linux's copy_msg: a copy is whole or EINVAL,
				// MSG_NOERROR or not.
				rc = -EINVAL;
				break;
			}
			if (copy) {
				copy->type = (*pm)->type;
				copy->size = (*pm)->size;
				memcpy(copy->text, (*pm)->text, (*pm)->size);
				m = copy;
				copy = NULL;
				break;
			}
			m = *pm;
			*pm = m->next;
			q->qnum--;
			q->cbytes -= m->size;
			q->lrpid = current_process()->pid;
			q->rtime = ipc_now();
			wq_wake_all(&q->wq);	// room for senders
			break;
		}
		if (flags & IPC_NOWAIT) {
			rc = -ENOMSG;
			break;
		}
		bool freed = false;
		rc = sleep_on_queue(q, &freed);
		if (freed) {
			rc = -EIDRM;
			break;
		}
	}
	spin_unlock_irqrestore(&msg_lock, irq);
	kfree(copy);
	if (rc)
		return rc;
	// Out of the lock: the message is ours now (lost if the copy fails,
	// as on Linux).
	size_t n = m->size < (size_t)bufsz ? m->size : (size_t)bufsz;
	if (copy_to_user(umsg, &m->type, sizeof(m->type)) < 0 ||
	    copy_to_user(umsg + sizeof(m->type), m->text, n) < 0)
		rc = -EFAULT;
	kfree(m);
	return rc ? rc : (long)n;
}

// ---- msgctl ----


// struct msginfo.
struct user_msginfo {
	int32_t msgpool, msgmap, msgmax, msgmnb, msgmni, msgssz, msgtql;
	uint16_t msgseg;
};

static void stat_locked(const struct msg_queue *q, struct user_msqid64_ds *ds)
{
	memset(ds, 0, sizeof(*ds));
	ipc_perm_to_user(&q->perm, &ds->perm);
	ds->stime = q->stime;
	ds->rtime = q->rtime;
	ds->ctime = q->ctime;
	ds->cbytes = q->cbytes;
	ds->qnum = q->qnum;
	ds->qbytes = q->qbytes;
	ds->lspid = q->lspid;
	ds->lrpid = q->lrpid;
}

// IPC_INFO (the limits) and MSG_INFO (what is in use): the highest slot
// in use, as Linux answers.
static long msg_info(int cmd, uint64_t ubuf)
{
	int msgmnb = ipc_limit(IPC_MSGMNB), msgmni = ipc_limit(IPC_MSGMNI);
	struct user_msginfo mi = { .msgmax = ipc_limit(IPC_MSGMAX), .msgmnb = msgmnb,
				   .msgmni = msgmni, .msgssz = 16, .msgseg = 0xffff };
	uint64_t irq = spin_lock_irqsave(&msg_lock);
	int top = ipc_top_slot(&queues);

	mi.msgpool = (int)((int64_t)msgmni * msgmnb / 1024);
	mi.msgmap = mi.msgtql = msgmnb;
	if (cmd == MSG_INFO) {
		mi.msgpool = queues.count;
		mi.msgmap = mi.msgtql = 0;
		for (struct ipc_perm_k *p = queues.head; p; p = p->next) {
			mi.msgmap += (int32_t)queue_of(p)->qnum;
			mi.msgtql += (int32_t)queue_of(p)->cbytes;
		}
	}
	spin_unlock_irqrestore(&msg_lock, irq);
	return copy_to_user(ubuf, &mi, sizeof(mi)) < 0 ? -EFAULT : top;
}

static void remove_locked(struct msg_queue *q)
{
	ipc_remove(&queues, &q->perm);
	q->removed = true;
	while (q->head) {
		struct msg *m = q->head;

		q->head = m->next;
		kfree(m);
	}
	wq_wake_all(&q->wq);		// waiters see EIDRM
}

SYSCALL_DEFINE(SYS_msgctl, msgctl)
{
	int id = (int)args->a[0], cmd = (int)args->a[1] & ~IPC_64;
	uint64_t ubuf = args->a[2];
	struct user_msqid64_ds ds;
	struct msg_queue *q, *dead = NULL;
	uint64_t irq;
	long rc = 0;

	if (id < 0 || cmd < 0)
		return -EINVAL;
	if (cmd == IPC_INFO || cmd == MSG_INFO)
		return msg_info(cmd, ubuf);
	if (cmd == IPC_SET && copy_from_user(&ds, ubuf, sizeof(ds)) < 0)
		return -EFAULT;
	irq = spin_lock_irqsave(&msg_lock);
	// MSG_STAT takes a slot, and as Linux's ipcid_to_idx an identifier's
	// sequence bits are ignored: an identifier names its own slot.
	if (cmd == MSG_STAT || cmd == MSG_STAT_ANY)
		q = queue_of(ipc_find_slot(&queues, id));
	else
		q = by_id_locked(id);
	if (!q) {
		rc = -EINVAL;
	} else if (cmd == IPC_STAT || cmd == MSG_STAT || cmd == MSG_STAT_ANY) {
		if (cmd != MSG_STAT_ANY && ipc_permitted(&q->perm, 0444))
			rc = -EACCES;
		else
			stat_locked(q, &ds);
		rc = rc ? rc : cmd == IPC_STAT ? 0 : q->perm.id;
	} else if (cmd == IPC_SET || cmd == IPC_RMID) {
		if (!ipc_owner_or_admin(&q->perm))
			rc = -EPERM;
		else if (cmd == IPC_RMID) {
			remove_locked(q);
			// Sleepers on it wake and see EIDRM; the last frees it.
			if (q->sleepers == 0)
				dead = q;
		} else if (ds.qbytes > (uint64_t)ipc_limit(IPC_MSGMNB) &&
			   !cred_capable(current_cred(), CAP_SYS_RESOURCE)) {
			rc = -EPERM;
		} else {
			ipc_perm_from_user(&q->perm, &ds.perm);
			q->qbytes = ds.qbytes;
			q->ctime = ipc_now();
			wq_wake_all(&q->wq);	// maybe room now
		}
	} else {
		rc = -EINVAL;
	}
	spin_unlock_irqrestore(&msg_lock, irq);
	kfree(dead);
	if (rc >= 0 && (cmd == IPC_STAT || cmd == MSG_STAT || cmd == MSG_STAT_ANY) &&
	    copy_to_user(ubuf, &ds, sizeof(ds)) < 0)
		return -EFAULT;
	return rc;
}

// ---- /proc/sysvipc/msg ----

#define PROC_HEADER "       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  " \
		    "cuid  cgid      stime      rtime      ctime\n"
#define PROC_LINE_MAX 160

// A line per queue in order of slot, Linux's columns and widths.
static size_t proc_render(char *buf, size_t size)
{
	uint64_t irq = spin_lock_irqsave(&msg_lock);
	size_t len = kappendf(buf, size, 0, "%s", PROC_HEADER);

	for (struct ipc_perm_k *p = queues.head; p; p = p->next) {
		struct msg_queue *q = queue_of(p);

		len = kappendf(buf, size, len,
			       "%10d %10d  %4o  %10lu %10lu %5u %5u %5u %5u %5u %5u %10lu %10lu %10lu\n",
			       p->key, p->id, p->mode, q->cbytes, q->qnum, q->lspid, q->lrpid,
			       p->uid, p->gid, p->cuid, p->cgid, (uint64_t)q->stime,
			       (uint64_t)q->rtime, (uint64_t)q->ctime);
	}
	spin_unlock_irqrestore(&msg_lock, irq);
	return len;
}

static long proc_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	// Room for the queues there are now and some made meanwhile (more
	// are cut off, as a read racing msgget may miss them on Linux).
	size_t size = sizeof(PROC_HEADER) + (size_t)(__atomic_load_n(&queues.count,
						     __ATOMIC_RELAXED) + 16) * PROC_LINE_MAX;

	(void)vn;
	(void)f;
	return procfs_text_read(proc_render, size, off, b, n);
}

const struct vnode_ops msg_proc_ops = { .read = proc_read };
