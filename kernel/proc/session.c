// Process groups, sessions and controlling terminals: getpgid, getpgrp,
// getsid, setpgid, setsid, and the job-control side of a terminal
// (include/kernel/tty.h).
//
// Locking: pgid, sid, ctty of every process and the session and
// foreground group of every terminal are under proc_tree_lock.

#include <kernel/cred.h>
#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/thread.h>
#include <kernel/tty.h>
#include <kernel/uaccess.h>
#include <fs/file.h>
#include <fs/vfs.h>
#include <uapi/errno.h>
#include <uapi/signal.h>

static struct process *process_or_self(int pid)
{
	return pid == 0 ? current_process() : process_find(pid);
}

SYSCALL_DEFINE(SYS_getpgid, getpgid)
{
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = process_or_self((int)args->a[0]);
	long r = p ? p->pgid : -ESRCH;
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return r;
}

SYSCALL_DEFINE(SYS_getpgrp, getpgrp)
{
	(void)args;
	return __atomic_load_n(&current_process()->pgid, __ATOMIC_RELAXED);
}

SYSCALL_DEFINE(SYS_getsid, getsid)
{
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = process_or_self((int)args->a[0]);
	long r = p ? p->sid : -ESRCH;
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return r;
}

struct group_search {
	int pgid, sid;
	bool found, other_session;
};

static void group_search_fn(struct process *p, void *arg)
{
	struct group_search *g = arg;

	if (p->pgid != g->pgid)		// zombies count, as on Linux
		return;
	g->found = true;
	if (p->sid != g->sid)
		g->other_session = true;
}

// Is there a process group 'pgid'; is it in session 'sid'?
static void group_find(struct group_search *g)
{
	process_for_each_locked(group_search_fn, g);
}

// Linux's order of checks: ESRCH (no such process, or neither the caller
// nor its child), EPERM (a child in another session), EACCES (a child
// that has exec'd), EPERM (a session leader), EPERM (no such group in the
// caller's session).
static long setpgid_locked(struct process *me, int pid, int pgid)
{
	struct process *p = process_or_self(pid);

	if (!p || p->zombie)
		return -ESRCH;
	if (p != me) {
		if (p->parent != me)
			return -ESRCH;
		if (p->sid != me->sid)
			return -EPERM;
		if (p->did_exec)
			return -EACCES;
	}
	if (p->pid == p->sid)
		return -EPERM;
	if (pgid == 0)
		pgid = p->pid;
	if (pgid != p->pid) {
		struct group_search g = { pgid, me->sid, false, false };

		group_find(&g);
		if (!g.found || g.other_session)
			return -EPERM;
	}
	p->pgid = pgid;
	return 0;
}

SYSCALL_DEFINE(SYS_setpgid, setpgid)
{
	int pid = (int)args->a[0], pgid = (int)args->a[1];

	if (pgid < 0)
		return -EINVAL;
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	long r = setpgid_locked(current_process(), pid, pgid);
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return r;
}

// A new session, without a controlling terminal.  EPERM when a process
// group with the caller's ID exists (the caller leads one, or did and a
// member remains).
SYSCALL_DEFINE(SYS_setsid, setsid)
{
	(void)args;
	struct process *me = current_process();
	struct group_search g = { me->pid, 0, false, false };
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	long r;

	group_find(&g);
	if (g.found) {
		r = -EPERM;
	} else {
		me->sid = me->pgid = me->pid;
		me->ctty = 0;
		r = me->sid;
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return r;
}

// ---- Controlling terminals ----

struct ctty_set {
	int sid;
	struct tty *tty;
};

static void ctty_set_fn(struct process *p, void *arg)
{
	struct ctty_set *c = arg;

	if (p->sid == c->sid)
		p->ctty = c->tty;
}

// Gives session sid the terminal tty (or none).  proc_tree_lock held.
static void session_set_ctty(int sid, struct tty *tty)
{
	struct ctty_set c = { sid, tty };

	process_for_each_locked(ctty_set_fn, &c);
}

// The session leader makes tty its controlling terminal.  proc_tree_lock held.
static void acquire_locked(struct process *me, struct tty *tty)
{
	session_set_ctty(me->sid, tty);
	tty->session = me->sid;
	tty->fg_pgrp = me->pgid;
}

void tty_open_ctty(struct tty *tty)
{
	struct process *me = current_process();
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);

	if (me->pid == me->sid && !me->ctty && !tty->session && !tty->hung_up)
		acquire_locked(me, tty);
	spin_unlock_irqrestore(&proc_tree_lock, flags);
}

// Takes the terminal from the session that has it: SIGHUP and SIGCONT
// to its foreground group, as when its leader exits.  proc_tree_lock held.
static void hangup_session_locked(struct tty *tty)
{
	if (tty->fg_pgrp) {
		signal_send_pgrp_locked(tty->fg_pgrp, SIGHUP);
		signal_send_pgrp_locked(tty->fg_pgrp, SIGCONT);
	}
	if (tty->session)
		session_set_ctty(tty->session, 0);
	tty->session = 0;
	tty->fg_pgrp = 0;
}

// A hang-up takes the terminal from its session: SIGHUP and SIGCONT to
// the leader, and no process keeps it as its controlling terminal (Linux's
// tty_signal_session_leader).  proc_tree_lock held.
static void hangup_leader_locked(struct tty *tty)
{
	struct process *leader = tty->session ? process_find(tty->session) : 0;

	if (leader && !leader->zombie) {
		struct ksiginfo info = { .signo = SIGHUP, .code = SI_KERNEL };
		signal_send_process(leader, SIGHUP, &info);
		info.signo = SIGCONT;
		signal_send_process(leader, SIGCONT, &info);
	}
	if (tty->session)
		session_set_ctty(tty->session, 0);
	tty->session = 0;
	tty->fg_pgrp = 0;
}

void tty_hangup(struct tty *tty)
{
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);

	hangup_leader_locked(tty);
	// A slave being opened at this moment must not make it a
	// controlling terminal afterwards: the pty goes away.
	tty->hung_up = true;
	spin_unlock_irqrestore(&proc_tree_lock, flags);
}

// ---- vhangup ----

static void hang_up_file(struct file *f, void *tty)
{
	struct vnode *vn = f->vn;

	if (vn && vn->ops && vn->ops->tty && vn->ops->tty(vn) == tty)
		__atomic_store_n(&f->hung_up, true, __ATOMIC_RELEASE);
}

static void hang_up_files_of(struct process *p, void *tty)
{
	spin_lock(&p->lock);	// p->fdt and the threads' own tables change under it
	if (p->fdt)
		fdtable_for_each(p->fdt, hang_up_file, tty);
	for (struct thread *t = p->threads; t; t = t->proc_next)
		if (t->own_fdt)
			fdtable_for_each(t->own_fdt, hang_up_file, tty);
	spin_unlock(&p->lock);
}

// vhangup(2): the caller's controlling terminal hangs up as if its line
// dropped: the session loses it (its leader gets SIGHUP and SIGCONT) and
// every file open on it, in any process, is dead for good (reads see end
// of file, writes and ioctls EIO).  The terminal itself lives on: opened
// again, it works and can become a controlling terminal again, which is
// what login programs rely on.  Without a controlling terminal nothing
// happens; without CAP_SYS_TTY_CONFIG, EPERM.
SYSCALL_DEFINE(SYS_vhangup, vhangup)
{
	struct process *me = current_process();
	uint64_t flags;

	(void)args;
	if (!cred_capable(current_cred(), CAP_SYS_TTY_CONFIG))
		return -EPERM;
	flags = spin_lock_irqsave(&proc_tree_lock);
	struct tty *tty = me->ctty;
	if (tty) {
		process_for_each_locked(hang_up_files_of, tty);
		hangup_leader_locked(tty);
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return 0;
}

int tty_ctty_get(struct tty **ttyp, struct vnode **vnp)
{
	struct process *me = current_process();
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	struct tty *tty = me->ctty;

	*ttyp = tty;
	*vnp = tty ? tty->vn : 0;
	if (*vnp)
		vnode_get(*vnp);	// the terminal may hang up once we let go
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return tty ? 0 : -ENXIO;
}

// A session leader that exits takes its terminal's session away.
// proc_tree_lock held.
void session_leader_exit(struct process *p)
{
	struct tty *tty = p->ctty;

	if (p->pid != p->sid || !tty || tty->session != p->sid)
		return;
	hangup_session_locked(tty);
}

static bool sig_ignored_or_blocked(int sig)
{
	struct thread *t = current_thread();
	uint64_t h = __atomic_load_n(&t->proc->sighand->action[sig].handler, __ATOMIC_RELAXED);

	return h == SIG_IGN || (t->sig_blocked & sigmask_of(sig));
}

// Linux's __tty_check_change: a background process of the terminal's
// session is stopped (its group gets sig) or refused.
static long check_job(struct tty *tty, int sig)
{
	struct process *me = current_process();
	long r = 0;
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);

	if (me->ctty != tty || !tty->fg_pgrp || me->pgid == tty->fg_pgrp)
		goto out;
	if (sig_ignored_or_blocked(sig)) {
		if (sig == SIGTTIN)
			r = -EIO;
	} else if (pgrp_orphaned_locked(me->pgid, 0)) {
		r = -EIO;
	} else {
		signal_send_pgrp_locked(me->pgid, sig);
		r = -ERESTARTSYS;
	}
out:
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return r;
}

long tty_check_read(struct tty *tty)
{
	return check_job(tty, SIGTTIN);
}

long tty_check_change(struct tty *tty)
{
	return check_job(tty, SIGTTOU);
}

// TIOCSCTTY: only a session leader without a terminal; a terminal of
// another session only for root with arg 1 (everyone is root here).
static long ioctl_sctty(struct process *me, struct tty *tty, uint64_t arg)
{
	if (tty->hung_up)
		return -EIO;
	if (me->pid == me->sid && me->ctty == tty)
		return 0;
	if (me->pid != me->sid || me->ctty)
		return -EPERM;
	if (tty->session) {
		if (arg != 1)
			return -EPERM;
		hangup_session_locked(tty);
	}
	acquire_locked(me, tty);
	return 0;
}

// TIOCNOTTY: the caller gives up its terminal; a session leader takes it
// from the whole session (SIGHUP and SIGCONT to the foreground group).
static long ioctl_notty(struct process *me, struct tty *tty)
{
	if (me->ctty != tty)
		return -ENOTTY;
	if (me->pid == me->sid)
		hangup_session_locked(tty);
	else
		me->ctty = 0;
	return 0;
}

static long ioctl_spgrp(struct process *me, struct tty *tty, int pgrp)
{
	struct group_search g = { pgrp, me->sid, false, false };

	if (me->ctty != tty || tty->session != me->sid)
		return -ENOTTY;
	if (pgrp < 0)
		return -EINVAL;
	group_find(&g);
	if (!g.found)
		return -ESRCH;
	if (g.other_session)
		return -EPERM;
	tty->fg_pgrp = pgrp;
	return 0;
}

long tty_ioctl_job(struct tty *tty, unsigned cmd, uint64_t arg)
{
	struct process *me = current_process();
	uint32_t v = 0;
	long r;

	if (cmd == TIOCSPGRP) {
		// A background caller is stopped first, as Linux does.
		r = tty_check_change(tty);
		if (r)
			return r;
		if (get_user_u32(&v, arg) < 0)
			return -EFAULT;
	}
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	switch (cmd) {
	case TIOCSCTTY: r = ioctl_sctty(me, tty, arg); break;
	case TIOCNOTTY: r = ioctl_notty(me, tty); break;
	case TIOCSPGRP: r = ioctl_spgrp(me, tty, (int)v); break;
	case TIOCGPGRP:
		r = me->ctty == tty ? 0 : -ENOTTY;
		v = (uint32_t)tty->fg_pgrp;
		break;
	case TIOCGSID:
		r = me->ctty == tty && tty->session ? 0 : -ENOTTY;
		v = (uint32_t)tty->session;
		break;
	default: r = -ENOTTY; break;
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	if (r == 0 && (cmd == TIOCGPGRP || cmd == TIOCGSID) && put_user_u32(arg, v) < 0)
		return -EFAULT;
	return r;
}

void tty_signal_fg(struct tty *tty, int sig, int fallback)
{
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	int pgrp = tty->session ? tty->fg_pgrp : fallback;

	if (pgrp)
		signal_send_pgrp_locked(pgrp, sig);
	spin_unlock_irqrestore(&proc_tree_lock, flags);
}
