// Signal-driven I/O (see fs/sigio.h), as Linux 6.1's fs/fcntl.c.
//
// Every file with O_ASYNC has one entry on a single list (Linux keeps a
// list per object; a program has a handful of such files, and the list
// is empty otherwise, which the drivers' calls check first).  An owner
// is kept as Linux's struct pid is seen from user space: a number, and
// for a thread or process the start time of its process, so that a
// number used again later is not the owner any more (F_GETOWN gives 0,
// no signal goes to the newcomer).
//
// Locking: fasync_lock, then a file's lock (its owner), then
// proc_tree_lock, the credentials and the sighand locks of the targets.

#include <fs/fcntl.h>
#include <fs/file.h>
#include <fs/poll.h>
#include <fs/fs_syscall.h>
#include <fs/sigio.h>
#include <fs/vnode.h>
#include <kernel/cred.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/thread.h>
#include <kernel/uaccess.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>
#include <uapi/signal.h>

#define F_OWNER_TID	0
#define F_OWNER_PID	1
#define F_OWNER_PGRP	2
#define SI_SIGIO	(-5)

struct fasync_entry {
	struct fasync_entry *next;
	struct file *f;
	const void *key;
	unsigned which;		// FASYNC_READERS, FASYNC_WRITERS
	int fd;
};

static struct spinlock fasync_lock = SPINLOCK_INIT("fasync");
static struct fasync_entry *entries;
int sigio_entries;		// entries in the list (sigio_any)

// ---- owners ----

// Does the ID name anything Linux has a struct pid for: a thread, a
// process, a process group or a session?  proc_tree_lock held.
struct id_search {
	int id;
	bool found;
};

static void match_group(struct process *p, void *arg)
{
	struct id_search *s = arg;

	if (p->pgid == s->id || p->sid == s->id)
		s->found = true;
}

static bool id_in_use_locked(int id)
{
	struct id_search s = { id, thread_find(id) != NULL };

	if (!s.found)
		process_for_each_locked(match_group, &s);
	return s.found;
}

static void match_pgrp(struct process *p, void *arg)
{
	struct id_search *s = arg;

	if (p->pgid == s->id && !p->zombie)
		s->found = true;
}

// The process of a thread or process owner, if it is still the one that
// was named.  proc_tree_lock held.
static struct process *owner_process_locked(const struct fown *o, struct thread **t)
{
	struct thread *th = thread_find(o->id);

	*t = th;
	if (!th || !th->proc || th->proc->start_ns != o->start_ns)
		return NULL;
	return th->proc;
}

// F_GETOWN's and F_GETOWN_EX's ID: 0 once the owner is gone (Linux's
// pid_task of its type: a process owner is seen only by its leader's ID).
static int owner_id_now(const struct fown *o)
{
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	struct thread *t;
	struct process *p;
	int id = 0;

	if (o->id && o->type == F_OWNER_PGRP) {
		struct id_search s = { o->id, false };

		process_for_each_locked(match_pgrp, &s);
		id = s.found ? o->id : 0;
	} else if (o->id && (p = owner_process_locked(o, &t)) != NULL) {
		if (o->type == F_OWNER_TID || p->pid == o->id)
			id = o->id;
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return id;
}

// Linux's f_modown: the owner, and the caller's uid and euid for
// sigio_perm.  ESRCH for an ID nothing has.
static long set_owner(struct file *f, int type, int id)
{
	const struct cred *c = current_cred();
	struct fown o = { .type = type, .id = id, .uid = c->uid, .euid = c->euid };
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	struct thread *t = id > 0 ? thread_find(id) : NULL;
	bool known = id == 0 || (id > 0 && id_in_use_locked(id));

	if (t && t->proc)
		o.start_ns = t->proc->start_ns;
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	if (!known)
		return -ESRCH;
	flags = spin_lock_irqsave(&f->lock);
	o.signum = f->owner.signum;
	f->owner = o;
	spin_unlock_irqrestore(&f->lock, flags);
	return 0;
}

static struct fown owner_of(struct file *f)
{
	uint64_t flags = spin_lock_irqsave(&f->lock);
	struct fown o = f->owner;

	spin_unlock_irqrestore(&f->lock, flags);
	return o;
}

struct owner_ex {
	int32_t type;
	int32_t pid;
};

long sigio_fcntl(struct file *f, int cmd, uint64_t arg)
{
	struct owner_ex ex;
	struct fown o;
	int who = (int)arg;
	uint64_t flags;

	switch (cmd) {
	case F_SETOWN:
		if (who == INT32_MIN)
			return -EINVAL;		// -who would overflow
		return who < 0 ? set_owner(f, F_OWNER_PGRP, -who) : set_owner(f, F_OWNER_PID, who);
	case F_GETOWN:
		o = owner_of(f);
		who = owner_id_now(&o);
		return o.type == F_OWNER_PGRP ? -who : who;
	case F_SETOWN_EX:
		if (copy_from_user(&ex, arg, sizeof(ex)) < 0)
			return -EFAULT;
		if (ex.type != F_OWNER_TID && ex.type != F_OWNER_PID && ex.type != F_OWNER_PGRP)
			return -EINVAL;
		if (ex.pid < 0)
			return -ESRCH;		// no struct pid has a negative number
		return set_owner(f, ex.type, ex.pid);
	case F_GETOWN_EX:
		o = owner_of(f);
		ex.type = o.type;	// a fresh file's is F_OWNER_TID, as Linux's zeroed owner
		ex.pid = owner_id_now(&o);
		return copy_to_user(arg, &ex, sizeof(ex)) < 0 ? -EFAULT : 0;
	case F_SETSIG:
		// Linux's valid_signal of the int argument: 0 (plain SIGIO) to 64.
		if (who < 0 || who > NSIG)
			return -EINVAL;
		flags = spin_lock_irqsave(&f->lock);
		f->owner.signum = who;
		spin_unlock_irqrestore(&f->lock, flags);
		return 0;
	default:	// F_GETSIG
		return owner_of(f).signum;
	}
}

// ---- sending ----

// Linux's sigio_perm: the setter was root, or one of its uid and euid is
// the target's uid or saved uid.
static bool sigio_perm(struct process *p, const struct fown *o)
{
	struct cred *c = cred_of(p);
	bool ok = o->euid == 0 || o->euid == c->suid || o->euid == c->uid ||
		  o->uid == c->suid || o->uid == c->uid;

	cred_put(c);
	return ok;
}

// Linux's band_table: what poll would report, for si_band.
static int64_t band_of(int reason)
{
	switch (reason) {
	case POLL_IN:
		return POLLIN | POLLRDNORM;
	case POLL_OUT:
		return POLLOUT | POLLWRNORM | POLLWRBAND;
	default:	// POLL_HUP
		return POLLHUP | POLLERR;
	}
}

// Signals whose si_codes mean something else: F_SETSIG's signal gets
// SI_SIGIO there instead of POLL_*, as Linux's sig_specific_sicodes.
static bool specific_codes(int sig)
{
	return sig == SIGILL || sig == SIGFPE || sig == SIGSEGV || sig == SIGBUS ||
	       sig == SIGTRAP || sig == SIGCHLD || sig == SIGSYS;
}

static int send_one(struct process *p, struct thread *t, int sig, const struct ksiginfo *info)
{
	return t ? signal_send_thread(t, sig, info) : signal_send_process(p, sig, info);
}

// Linux's send_sigio_to_task: the F_SETSIG signal with its siginfo, or
// plain SIGIO (also when a real-time one cannot be queued).
static void send_to(struct process *p, struct thread *t, const struct fown *o, int fd, int reason)
{
	struct ksiginfo plain = { .signo = SIGIO, .code = SI_KERNEL };

	if (!sigio_perm(p, o))
		return;
	if (o->signum) {
		struct ksiginfo info = {
			.signo = o->signum,
			.code = specific_codes(o->signum) ? SI_SIGIO : reason,
			.poll = true,
			.band = band_of(reason),
			.fd = fd,
		};

		if (send_one(p, t, o->signum, &info) == 0)
			return;
	}
	send_one(p, t, SIGIO, &plain);
}

struct pgrp_send {
	const struct fown *o;
	int fd, reason;
};

static void send_pgrp_member(struct process *p, void *arg)
{
	struct pgrp_send *s = arg;

	if (p->pgid == s->o->id && !p->zombie)
		send_to(p, NULL, s->o, s->fd, s->reason);
}

// Linux's send_sigio.
static void send_sigio(struct file *f, int fd, int reason)
{
	struct fown o = owner_of(f);
	struct pgrp_send s = { &o, fd, reason };
	struct thread *t;
	struct process *p;
	uint64_t flags;

	if (!o.id)
		return;
	flags = spin_lock_irqsave(&proc_tree_lock);
	if (o.type == F_OWNER_PGRP)
		process_for_each_locked(send_pgrp_member, &s);
	else if ((p = owner_process_locked(&o, &t)) != NULL && !p->zombie)
		send_to(p, o.type == F_OWNER_TID ? t : NULL, &o, fd, reason);
	spin_unlock_irqrestore(&proc_tree_lock, flags);
}

void sigio_notify_entries(const void *key, unsigned which, int reason)
{
	uint64_t flags;

	flags = spin_lock_irqsave(&fasync_lock);
	for (struct fasync_entry *e = entries; e; e = e->next)
		if (e->key == key && (e->which & which))
			send_sigio(e->f, e->fd, reason);
	spin_unlock_irqrestore(&fasync_lock, flags);
}

// ---- the async files ----

// What f's notifications come from: its pipe (as a reader, a writer or
// both), its terminal, or its vnode (an inotify group's).
static const void *key_of(struct file *f, unsigned *which)
{
	if (f->pipe) {
		*which = (f->pipe_reader ? FASYNC_READERS : 0) | (f->pipe_writer ? FASYNC_WRITERS : 0);
		return f->pipe;
	}
	*which = FASYNC_READERS | FASYNC_WRITERS;
	if (f->vn->ops && f->vn->ops->tty)
		return f->vn->ops->tty(f->vn);
	return f->vn;
}

static struct fasync_entry *unlink_entry_locked(struct file *f)
{
	for (struct fasync_entry **pp = &entries; *pp; pp = &(*pp)->next) {
		struct fasync_entry *e = *pp;

		if (e->f == f) {
			*pp = e->next;
			__atomic_sub_fetch(&sigio_entries, 1, __ATOMIC_RELAXED);
			return e;
		}
	}
	return NULL;
}

int fasync_set(struct file *f, int fd, bool on)
{
	struct fasync_entry *fresh = on ? kzalloc(sizeof(*fresh)) : NULL, *old = NULL, *e;
	uint64_t flags;

	if (on && !fresh)
		return -ENOMEM;
	flags = spin_lock_irqsave(&fasync_lock);
	for (e = entries; e && e->f != f; e = e->next)
		;
	if (on && e) {
		e->fd = fd;		// Linux's fasync_insert_entry: the newest descriptor
	} else if (on) {
		fresh->f = f;
		fresh->fd = fd;
		fresh->key = key_of(f, &fresh->which);
		fresh->next = entries;
		entries = fresh;
		fresh = NULL;
		__atomic_add_fetch(&sigio_entries, 1, __ATOMIC_RELAXED);
	} else {
		old = unlink_entry_locked(f);
	}
	// The flag goes with the entry, as Linux's fasync_helper sets it.
	uint64_t fflags = spin_lock_irqsave(&f->lock);
	f->flags = on ? f->flags | O_ASYNC : f->flags & ~O_ASYNC;
	spin_unlock_irqrestore(&f->lock, fflags);
	spin_unlock_irqrestore(&fasync_lock, flags);
	kfree(fresh);
	kfree(old);
	return 0;
}

void fasync_file_gone(struct file *f)
{
	uint64_t flags = spin_lock_irqsave(&fasync_lock);
	struct fasync_entry *e = unlink_entry_locked(f);

	spin_unlock_irqrestore(&fasync_lock, flags);
	kfree(e);
}
