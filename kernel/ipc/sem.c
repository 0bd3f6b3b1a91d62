// System V semaphores: semget, semop, semtimedop, semctl, with Linux's
// limits (semmsl 32000, semopm 500, semvmx 32767, semmni 32000), the
// all-or-nothing rule of an operation array, SEM_UNDO (adjustments undone
// at exit, the list shared by CLONE_SYSVSEM), and Linux's errnos in its
// order.  One lock guards every set; waiters sleep on their set's queue
// and look again after any change to it.

#include <stddef.h>

#include <kernel/ipc.h>
#include <kernel/cred.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
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
#include <uapi/time.h>

#define SEMMSL		32000		// semaphores in a set, at most (the sysctl's ceiling)
#define SEMVMX		32767		// the largest value
#define SEMAEM		SEMVMX		// the largest adjustment

#define SEM_UNDO	0x1000

#define GETPID		11
#define GETVAL		12
#define GETALL		13
#define GETNCNT		14
#define GETZCNT		15
#define SETVAL		16
#define SETALL		17
#define SEM_STAT	18
#define SEM_INFO	19
#define SEM_STAT_ANY	20

struct semaphore_k {
	int val, pid;
	int ncnt, zcnt;			// waiters for an increase, for zero
};

struct sem_set {
	struct ipc_perm_k perm;		// its identifier and place in 'sets'
	int nsems;
	struct semaphore_k *sems;
	int64_t otime, ctime;
	bool removed;
	int sleepers;			// on wq: a removed set is freed by the last
	struct wait_queue wq;
};

// One process's (or CLONE_SYSVSEM group's) adjustments of one set.
struct sem_undo {
	struct sem_undo *next;
	int semid, nsems;
	short adj[];
};

struct sem_undo_list {
	int refcount;			// processes sharing it (CLONE_SYSVSEM)
	struct sem_undo *head;
};

struct user_sembuf {
	uint16_t sem_num;
	int16_t sem_op;
	int16_t sem_flg;
};

static struct spinlock sem_lock = SPINLOCK_INIT("semaphores");
static struct ipc_table sets = { .next_id_limit = IPC_SEM_NEXT_ID };

static struct sem_set *set_of(struct ipc_perm_k *p)
{
	return p ? (struct sem_set *)((char *)p - offsetof(struct sem_set, perm)) : NULL;
}

static struct sem_set *by_id_locked(int id)
{
	return set_of(ipc_find_id(&sets, id));
}

// Semaphores in all sets, against semmns.  sem_lock held.
static int64_t sems_in_use_locked(void)
{
	int64_t n = 0;

	for (struct ipc_perm_k *p = sets.head; p; p = p->next)
		n += set_of(p)->nsems;
	return n;
}

// ---- semget ----

SYSCALL_DEFINE(SYS_semget, semget)
{
	int32_t key = (int32_t)args->a[0];
	int nsems = (int)args->a[1], flags = (int)args->a[2];
	struct sem_set *made = NULL, *s = NULL;
	uint64_t irq;
	long rc;

	if (nsems < 0 || nsems > ipc_limit(IPC_SEMMSL))
		return -EINVAL;
	if (nsems > 0) {
		made = kzalloc(sizeof(*made));
		if (made && !(made->sems = kzalloc((size_t)nsems * sizeof(made->sems[0])))) {
			kfree(made);
			made = NULL;
		}
		if (!made)
			return -ENOMEM;
		made->nsems = nsems;
	}
	irq = spin_lock_irqsave(&sem_lock);
	if (key != IPC_PRIVATE)
		s = set_of(ipc_find_key(&sets, key));
	if (s) {
		if ((flags & IPC_CREAT) && (flags & IPC_EXCL))
			rc = -EEXIST;
		else if (ipc_permitted(&s->perm, flags))
			rc = -EACCES;
		else
			rc = nsems > s->nsems ? -EINVAL : s->perm.id;
	} else if (key != IPC_PRIVATE && !(flags & IPC_CREAT)) {
		rc = -ENOENT;
	} else if (!made) {
		rc = -EINVAL;		// a new set needs at least one semaphore
	} else if (sets.count >= ipc_limit(IPC_SEMMNI) ||
		   sems_in_use_locked() + nsems > ipc_limit(IPC_SEMMNS)) {
		rc = -ENOSPC;
	} else {
		ipc_perm_init(&made->perm, key, flags);
		made->ctime = ipc_now();
		rc = ipc_insert(&sets, &made->perm);
		if (rc == 0) {
			rc = made->perm.id;
			made = NULL;
		}
	}
	spin_unlock_irqrestore(&sem_lock, irq);
	if (made)
		kfree(made->sems);
	kfree(made);
	return rc;
}

// ---- SEM_UNDO ----

// The caller's adjustments for set 'id' (made if 'make'), under sem_lock;
// 'fresh' is a preallocated entry of the right size, taken if used.
static struct sem_undo *undo_of_locked(struct sem_undo_list *ul, struct sem_set *s,
				       struct sem_undo **fresh)
{
	for (struct sem_undo *u = ul->head; u; u = u->next)
		if (u->semid == s->perm.id)
			return u;
	if (!*fresh)
		return NULL;
	struct sem_undo *u = *fresh;
	*fresh = NULL;
	u->semid = s->perm.id;
	u->nsems = s->nsems;
	memset(u->adj, 0, (size_t)s->nsems * sizeof(u->adj[0]));
	u->next = ul->head;
	ul->head = u;
	return u;
}

// The caller's list, made on first use (it lives with the process).
static struct sem_undo_list *undo_list(void)
{
	struct process *p = current_process();

	if (!p->sem_undo) {
		struct sem_undo_list *ul = kzalloc(sizeof(*ul));

		if (!ul)
			return NULL;
		ul->refcount = 1;
		if (__atomic_compare_exchange_n(&p->sem_undo, &(struct sem_undo_list *){ NULL }, ul,
						false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) == false)
			kfree(ul);	// another thread made it first
	}
	return p->sem_undo;
}

int sem_undo_fork(struct process *child, bool share)
{
	struct sem_undo_list *ul;

	if (!share)
		return 0;		// a child's adjustments start empty
	ul = undo_list();		// the caller's, made if need be
	if (!ul)
		return -ENOMEM;
	__atomic_add_fetch(&ul->refcount, 1, __ATOMIC_RELAXED);
	child->sem_undo = ul;
	return 0;
}

// A process's last thread is gone: if it was the list's last user, its
// adjustments are applied (clamped to 0..SEMVMX, as Linux) and waiters
// woken.
void sem_exit(struct process *p)
{
	struct sem_undo_list *ul = p->sem_undo;
	uint64_t irq;

	p->sem_undo = NULL;
	if (!ul || __atomic_sub_fetch(&ul->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	irq = spin_lock_irqsave(&sem_lock);
	while (ul->head) {
		struct sem_undo *u = ul->head;
		struct sem_set *s = by_id_locked(u->semid);

		ul->head = u->next;
		for (int i = 0; s && i < u->nsems && i < s->nsems; i++) {
			int v = s->sems[i].val + u->adj[i];

			if (!u->adj[i])
				continue;
			s->sems[i].val = v < 0 ? 0 : v > SEMVMX ? SEMVMX : v;
			s->sems[i].pid = p->pid;
		}
		if (s)
			wq_wake_all(&s->wq);
		kfree(u);
	}
	spin_unlock_irqrestore(&sem_lock, irq);
	kfree(ul);
}

// SETVAL and SETALL clear every process's adjustments of the values they
// set.  The lists are not reachable from the set, so this walks the
// processes.  sem_lock held.
struct clear_adj { int semid, semnum; };

static void clear_adj_fn(struct process *p, void *arg);

// sem_lock held; proc_tree_lock is taken inside it (never the other way).
static void clear_adjustments_locked(int semid, int semnum)
{
	struct clear_adj c = { semid, semnum };
	uint64_t irq = spin_lock_irqsave(&proc_tree_lock);

	process_for_each_locked(clear_adj_fn, &c);
	spin_unlock_irqrestore(&proc_tree_lock, irq);
}

static void clear_adj_fn(struct process *p, void *arg)
{
	struct clear_adj *c = arg;

	if (!p->sem_undo)
		return;
	for (struct sem_undo *u = p->sem_undo->head; u; u = u->next) {
		if (u->semid != c->semid)
			continue;
		for (int i = 0; i < u->nsems; i++)
			if (c->semnum < 0 || c->semnum == i)
				u->adj[i] = 0;
	}
}

// ---- semop and semtimedop ----

// Tries the whole array: applied (0), would wait (1: *blocker the
// operation), or -ERANGE/-EAGAIN.  Nothing changes unless all of it can.
static int try_ops(struct sem_set *s, const struct user_sembuf *ops, int n,
		   const struct user_sembuf **blocker)
{
	for (int i = 0; i < n; i++) {
		int v = s->sems[ops[i].sem_num].val;

		// What the earlier operations on the same semaphore did.
		for (int j = 0; j < i; j++)
			if (ops[j].sem_num == ops[i].sem_num)
				v += ops[j].sem_op;
		if (ops[i].sem_op > 0 && v + ops[i].sem_op > SEMVMX)
			return -ERANGE;
		if ((ops[i].sem_op < 0 && v + ops[i].sem_op < 0) || (ops[i].sem_op == 0 && v != 0)) {
			*blocker = &ops[i];
			return (ops[i].sem_flg & IPC_NOWAIT) ? -EAGAIN : 1;
		}
	}
	return 0;
}

static void apply_ops(struct sem_set *s, const struct user_sembuf *ops, int n, struct sem_undo *u)
{
	int pid = current_process()->pid;

	for (int i = 0; i < n; i++) {
		s->sems[ops[i].sem_num].val += ops[i].sem_op;
		s->sems[ops[i].sem_num].pid = pid;
		if ((ops[i].sem_flg & SEM_UNDO) && u)
			u->adj[ops[i].sem_num] = (short)(u->adj[ops[i].sem_num] - ops[i].sem_op);
	}
	s->otime = ipc_now();
	wq_wake_all(&s->wq);
}

// An entry for set 'id', as large as the set, made before taking sem_lock
// (a set's size never changes); NULL without memory.  For an unknown set
// a small one: the lookup under the lock says EINVAL.
static struct sem_undo *undo_entry_for(int id)
{
	uint64_t irq = spin_lock_irqsave(&sem_lock);
	struct sem_set *s = by_id_locked(id);
	int n = s ? s->nsems : 1;

	spin_unlock_irqrestore(&sem_lock, irq);
	return kmalloc(sizeof(struct sem_undo) + (size_t)n * sizeof(short));
}

static long do_semop(int id, uint64_t usops, int64_t nsops, uint64_t utimeout)
{
	struct user_sembuf *ops;
	struct sem_undo_list *ul = NULL;
	struct sem_undo *fresh = NULL, *u = NULL;
	uint64_t deadline = WAIT_FOREVER, irq;
	bool undo = false, alter = false;
	unsigned max_num = 0;
	struct sem_set *s;
	long rc = 0;

	if (nsops < 1 || id < 0)
		return -EINVAL;
	if (nsops > ipc_limit(IPC_SEMOPM))
		return -E2BIG;
	ops = kmalloc((size_t)nsops * sizeof(*ops));
	if (!ops)
		return -ENOMEM;
	if (copy_from_user(ops, usops, (size_t)nsops * sizeof(*ops)) < 0) {
		kfree(ops);
		return -EFAULT;
	}
	if (utimeout) {
		struct user_timespec ts;

		if (copy_from_user(&ts, utimeout, sizeof(ts)) < 0)
			rc = -EFAULT;
		else if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
			rc = -EINVAL;
		else
			deadline = clock_monotonic_ns() + (uint64_t)ts.tv_sec * 1000000000ULL +
				   (uint64_t)ts.tv_nsec;
	}
	for (int64_t i = 0; i < nsops; i++) {
		if (ops[i].sem_num > max_num)
			max_num = ops[i].sem_num;
		undo |= ops[i].sem_flg & SEM_UNDO;
		alter |= ops[i].sem_op != 0;
	}
	if (rc == 0 && undo && !(ul = undo_list()))
		rc = -ENOMEM;
	if (rc == 0 && undo && !(fresh = undo_entry_for(id)))
		rc = -ENOMEM;
	irq = spin_lock_irqsave(&sem_lock);
	s = rc ? NULL : by_id_locked(id);
	if (rc == 0 && !s)
		rc = -EINVAL;
	else if (rc == 0 && max_num >= (unsigned)s->nsems)
		rc = -EFBIG;
	else if (rc == 0 && ipc_permitted(&s->perm, alter ? 0222 : 0444))
		rc = -EACCES;
	if (rc == 0 && undo && !(u = undo_of_locked(ul, s, &fresh)))
		rc = -ENOMEM;
	while (rc == 0) {
		const struct user_sembuf *blocker = NULL;
		int r = try_ops(s, ops, (int)nsops, &blocker);

		if (r <= 0) {
			if (r == 0)
				apply_ops(s, ops, (int)nsops, u);
			rc = r;
			break;
		}
		// Wait for a change of the set, counted as Linux counts waiters.
		struct semaphore_k *k = &s->sems[blocker->sem_num];
		bool for_zero = blocker->sem_op == 0;

		if (for_zero)
			k->zcnt++;
		else
			k->ncnt++;
		s->sleepers++;
		int w = wq_wait(&s->wq, &sem_lock, deadline, true);
		s->sleepers--;
		if (for_zero)
			k->zcnt--;
		else
			k->ncnt--;
		if (s->removed) {
			if (s->sleepers == 0) {
				kfree(s->sems);
				kfree(s);
			}
			rc = -EIDRM;
		} else if (w == -ETIMEDOUT) {
			rc = -EAGAIN;
		} else if (w) {
			rc = -ERESTARTNOHAND;
		}
	}
	spin_unlock_irqrestore(&sem_lock, irq);
	kfree(fresh);
	kfree(ops);
	return rc;
}

// ppc64 has no semop of its own (its libc calls semtimedop).
#ifdef SYS_semop
SYSCALL_DEFINE(SYS_semop, semop)
{
	return do_semop((int)args->a[0], args->a[1], (int64_t)args->a[2], 0);
}
#endif

SYSCALL_DEFINE(SYS_semtimedop, semtimedop)
{
	return do_semop((int)args->a[0], args->a[1], (int64_t)args->a[2], args->a[3]);
}

// ---- semctl ----


struct user_seminfo {
	int32_t semmap, semmni, semmns, semmnu, semmsl, semopm, semume, semusz, semvmx, semaem;
};

static long sem_info(int cmd, uint64_t ubuf)
{
	// The sysctl's four from the limits, the rest Linux's constants.
	struct user_seminfo si = { .semmap = 1024000000, .semmni = ipc_limit(IPC_SEMMNI),
				   .semmns = ipc_limit(IPC_SEMMNS), .semmnu = 1024000000,
				   .semmsl = ipc_limit(IPC_SEMMSL), .semopm = ipc_limit(IPC_SEMOPM),
				   .semume = 500, .semusz = 16, .semvmx = SEMVMX, .semaem = SEMAEM };
	uint64_t irq = spin_lock_irqsave(&sem_lock);
	int top = ipc_top_slot(&sets);

	if (cmd == SEM_INFO) {
		si.semusz = sets.count;
		si.semaem = 0;
		for (struct ipc_perm_k *p = sets.head; p; p = p->next)
			si.semaem += set_of(p)->nsems;
	}
	spin_unlock_irqrestore(&sem_lock, irq);
	return copy_to_user(ubuf, &si, sizeof(si)) < 0 ? -EFAULT : top;
}

static void stat_locked(const struct sem_set *s, struct user_semid64_ds *ds)
{
	memset(ds, 0, sizeof(*ds));
	ipc_perm_to_user(&s->perm, &ds->perm);
	ds->otime = s->otime;
	ds->ctime = s->ctime;
	ds->nsems = (uint64_t)s->nsems;
}

static void remove_locked(struct sem_set *s)
{
	ipc_remove(&sets, &s->perm);
	s->removed = true;
	wq_wake_all(&s->wq);		// sleepers see EIDRM; the last frees it
}

// SETALL's values, copied in before the lock (at most SEMMSL of them).
static long set_all(int id, uint64_t uarray)
{
	uint16_t *vals = kmalloc(SEMMSL * sizeof(uint16_t));
	struct sem_set *s;
	uint64_t irq;
	long rc = 0;
	int n;

	if (!vals)
		return -ENOMEM;
	irq = spin_lock_irqsave(&sem_lock);
	s = by_id_locked(id);
	n = s ? s->nsems : 0;
	spin_unlock_irqrestore(&sem_lock, irq);
	if (!s)
		rc = -EINVAL;
	else if (copy_from_user(vals, uarray, (size_t)n * sizeof(uint16_t)) < 0)
		rc = -EFAULT;
	for (int i = 0; rc == 0 && i < n; i++)
		if (vals[i] > SEMVMX)
			rc = -ERANGE;
	if (rc == 0) {
		irq = spin_lock_irqsave(&sem_lock);
		s = by_id_locked(id);
		if (!s || s->nsems != n)
			rc = -EIDRM;
		else if (ipc_permitted(&s->perm, 0222))
			rc = -EACCES;
		else {
			for (int i = 0; i < n; i++) {
				s->sems[i].val = vals[i];
				s->sems[i].pid = current_process()->pid;
			}
			clear_adjustments_locked(id, -1);
			s->ctime = ipc_now();
			wq_wake_all(&s->wq);
		}
		spin_unlock_irqrestore(&sem_lock, irq);
	}
	kfree(vals);
	return rc;
}

static long get_all(int id, uint64_t uarray)
{
	uint16_t *vals = kmalloc(SEMMSL * sizeof(uint16_t));
	struct sem_set *s;
	uint64_t irq;
	long rc = 0;
	int n = 0;

	if (!vals)
		return -ENOMEM;
	irq = spin_lock_irqsave(&sem_lock);
	s = by_id_locked(id);
	if (!s)
		rc = -EINVAL;
	else if (ipc_permitted(&s->perm, 0444))
		rc = -EACCES;
	else {
		n = s->nsems;
		for (int i = 0; i < n; i++)
			vals[i] = (uint16_t)s->sems[i].val;
	}
	spin_unlock_irqrestore(&sem_lock, irq);
	if (rc == 0 && copy_to_user(uarray, vals, (size_t)n * sizeof(uint16_t)) < 0)
		rc = -EFAULT;
	kfree(vals);
	return rc;
}

SYSCALL_DEFINE(SYS_semctl, semctl)
{
	int id = (int)args->a[0], semnum = (int)args->a[1], cmd = (int)args->a[2] & ~IPC_64;
	uint64_t arg = args->a[3];
	struct user_semid64_ds ds;
	struct sem_set *s, *dead = NULL;
	uint64_t irq;
	long rc = 0;

	if (id < 0)
		return -EINVAL;
	switch (cmd) {
	case IPC_INFO:
	case SEM_INFO:
		return sem_info(cmd, arg);
	case GETALL:
		return get_all(id, arg);
	case SETALL:
		return set_all(id, arg);
	case IPC_SET:
		if (copy_from_user(&ds, arg, sizeof(ds)) < 0)
			return -EFAULT;
		break;
	case IPC_STAT: case SEM_STAT: case SEM_STAT_ANY: case IPC_RMID:
	case GETVAL: case GETPID: case GETNCNT: case GETZCNT: case SETVAL:
		break;
	default:
		return -EINVAL;
	}
	irq = spin_lock_irqsave(&sem_lock);
	// SEM_STAT takes a slot, and as Linux's ipcid_to_idx an identifier's
	// sequence bits are ignored: an identifier names its own slot.
	if (cmd == SEM_STAT || cmd == SEM_STAT_ANY)
		s = set_of(ipc_find_slot(&sets, id));
	else
		s = by_id_locked(id);
	if (!s) {
		rc = -EINVAL;
	} else if (cmd == IPC_RMID || cmd == IPC_SET) {
		if (!ipc_owner_or_admin(&s->perm)) {
			rc = -EPERM;
		} else if (cmd == IPC_RMID) {
			remove_locked(s);
			if (s->sleepers == 0)
				dead = s;
		} else {
			ipc_perm_from_user(&s->perm, &ds.perm);
			s->ctime = ipc_now();
		}
	} else if (cmd == IPC_STAT || cmd == SEM_STAT || cmd == SEM_STAT_ANY) {
		if (cmd != SEM_STAT_ANY && ipc_permitted(&s->perm, 0444))
			rc = -EACCES;
		else {
			stat_locked(s, &ds);
			rc = cmd == IPC_STAT ? 0 : s->perm.id;
		}
	} else if (semnum < 0 || semnum >= s->nsems) {
		rc = -EINVAL;
	} else if (ipc_permitted(&s->perm, cmd == SETVAL ? 0222 : 0444)) {
		rc = -EACCES;
	} else if (cmd == SETVAL) {
		int v = (int)arg;	// union semun's int, passed by value

		if (v < 0 || v > SEMVMX) {
			rc = -ERANGE;
		} else {
			s->sems[semnum].val = v;
			s->sems[semnum].pid = current_process()->pid;
			clear_adjustments_locked(id, semnum);
			s->ctime = ipc_now();
			wq_wake_all(&s->wq);
		}
	} else {
		struct semaphore_k *k = &s->sems[semnum];

		rc = cmd == GETVAL ? k->val : cmd == GETPID ? k->pid : cmd == GETNCNT ? k->ncnt : k->zcnt;
	}
	spin_unlock_irqrestore(&sem_lock, irq);
	if (dead) {
		kfree(dead->sems);
		kfree(dead);
	}
	if (rc >= 0 && (cmd == IPC_STAT || cmd == SEM_STAT || cmd == SEM_STAT_ANY) &&
	    copy_to_user(arg, &ds, sizeof(ds)) < 0)
		return -EFAULT;
	return rc;
}

// ---- /proc/sysvipc/sem ----

#define PROC_HEADER "       key      semid perms      nsems   uid   gid  cuid  cgid      otime " \
		    "     ctime\n"
#define PROC_LINE_MAX 112

// A line per set in order of slot, Linux's columns and widths.
static size_t proc_render(char *buf, size_t size)
{
	uint64_t irq = spin_lock_irqsave(&sem_lock);
	size_t len = kappendf(buf, size, 0, "%s", PROC_HEADER);

	for (struct ipc_perm_k *p = sets.head; p; p = p->next) {
		struct sem_set *s = set_of(p);

		len = kappendf(buf, size, len, "%10d %10d  %4o %10u %5u %5u %5u %5u %10lu %10lu\n",
			       p->key, p->id, p->mode, (unsigned)s->nsems, p->uid, p->gid, p->cuid,
			       p->cgid, (uint64_t)s->otime, (uint64_t)s->ctime);
	}
	spin_unlock_irqrestore(&sem_lock, irq);
	return len;
}

static long proc_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	size_t size = sizeof(PROC_HEADER) + (size_t)(__atomic_load_n(&sets.count,
						     __ATOMIC_RELAXED) + 16) * PROC_LINE_MAX;

	(void)vn;
	(void)f;
	return procfs_text_read(proc_render, size, off, b, n);
}

const struct vnode_ops sem_proc_ops = { .read = proc_read };
