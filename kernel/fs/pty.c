// Pseudo-terminals: /dev/ptmx and /dev/pts/N, as Linux's devpts with the
// Unix98 interface (TIOCGPTN, TIOCSPTLCK; glibc's and musl's grantpt,
// unlockpt and ptsname use nothing else).
//
// Every open of /dev/ptmx makes a pair: the master is that open file (its
// vnode is a fresh one, not /dev/ptmx), the slave appears as /dev/pts/N,
// locked until the master unlocks it.  What the master writes goes
// through the slave's line discipline (canonical or raw, echo, ISIG
// characters signalling the slave's foreground group) into the slave's
// input; what the slave writes goes, with output processing (ONLCR), to
// the master.  When the master closes, the slave is hung up: its session
// leader gets SIGHUP and SIGCONT, the session loses it as controlling
// terminal, reads give 0 and writes EIO; the name goes away.  When every
// slave descriptor is closed, the master reads EIO and polls POLLHUP.
//
// Locking: pty->lock guards the buffers, termios, winsize and the open
// counts; the job-control state (pty->tty) is proc_tree_lock's.

#include <fs/sigio.h>
#include <fs/vfs.h>
#include <fs/file.h>
#include <fs/fcntl.h>
#include <fs/poll.h>
#include <fs/iobuf.h>
#include <kernel/process.h>
#include <kernel/tty.h>
#include <fs/dev.h>
#include <kernel/uaccess.h>
#include <kernel/wait.h>
#include <lib/string.h>
#include <lib/printf.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>
#include <uapi/signal.h>
#include <uapi/termios.h>

#define PTY_MAX		64
#define PTY_BUF		4096
#define CHUNK		256


// A ring of bytes.
struct ring {
	char buf[PTY_BUF];
	size_t head, count;
};

static bool ring_put(struct ring *r, char c)
{
	if (r->count == PTY_BUF)
		return false;
	r->buf[(r->head + r->count) % PTY_BUF] = c;
	r->count++;
	return true;
}

static char ring_take(struct ring *r)
{
	char c = r->buf[r->head];

	r->head = (r->head + 1) % PTY_BUF;
	r->count--;
	return c;
}

struct pty {
	int index;
	struct spinlock lock;
	struct wait_queue wq;		// readers and writers of both sides
	struct ring in;			// the slave's input (from the master)
	size_t ready;			// bytes of 'in' the slave may read (whole lines in canonical mode)
	int eofs;			// ^D on an empty line: slave reads that return 0
	struct ring out;		// the master's input (slave output and echo)
	struct kernel_termios termios;
	struct kernel_winsize winsize;
	bool locked;			// TIOCSPTLCK: the slave cannot be opened
	int slave_opens;		// open slave files
	bool slave_opened;		// ever: then no slave open means hang-up for the master
	// fs/poll.h: both sides' wake-ups, all without a key (Linux's tty
	// layer keys some; here every change reaches every item).
	struct poll_events events;
	bool master_closed;
	// A slave writer found the master's input full: its next read tells
	// the slave's async files POLL_OUT (Linux's TTY_DO_WRITE_WAKEUP).
	bool write_wakeup;
	struct vnode *master_vn, *slave_vn;
	struct tty tty;
};

// A reader or writer of f that cannot go on yet: -EAGAIN if f is
// non-blocking, else sleeps until the other side changes something (0)
// or a signal comes (-ERESTARTSYS).  p->lock held, dropped while asleep.
static long pty_wait(struct pty *p, struct file *f)
{
	if (f->flags & O_NONBLOCK)
		return -EAGAIN;
	if (wq_wait(&p->wq, &p->lock, WAIT_FOREVER, true))
		return -ERESTARTSYS;
	return 0;
}

static struct spinlock pty_table_lock = SPINLOCK_INIT("pty table");
static struct pty *ptys[PTY_MAX];
static struct vnode *pts_dir;

static const struct kernel_termios default_termios = {
	.c_iflag = ICRNL | IXON,
	.c_oflag = OPOST | ONLCR,
	.c_cflag = 0000277,	// B38400 | CS8 | CREAD | HUPCL
	.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
	.c_cc = TERMIOS_INIT_CC,
};

static bool canonical(struct pty *p)
{
	return p->termios.c_lflag & ICANON;
}

// Echo goes where the slave's output goes: to the master.  pty->lock held.
static void echo_char(struct pty *p, char c)
{
	if (!(p->termios.c_lflag & ECHO)) {
		if (c == '\n' && (p->termios.c_lflag & ECHONL) && canonical(p))
			ring_put(&p->out, '\n');
		return;
	}
	if ((p->termios.c_lflag & ECHOCTL) && (uint8_t)c < 32 && c != '\n' && c != '\t') {
		ring_put(&p->out, '^');
		ring_put(&p->out, (char)(c + '@'));
		return;
	}
	if (c == '\n' && (p->termios.c_oflag & OPOST) && (p->termios.c_oflag & ONLCR))
		ring_put(&p->out, '\r');
	ring_put(&p->out, c);
}

// One byte from the master into the slave's input.  Returns the signal
// it stands for, or 0.  pty->lock held.
static int input_byte(struct pty *p, char c)
{
	int sig = tty_signal_char(&p->termios, c);

	if (sig) {
		// As Linux: the pending input goes (unless NOFLSH), the
		// character echoes as ^C.
		if (!(p->termios.c_lflag & NOFLSH)) {
			p->in.head = p->in.count = p->ready = 0;
			p->eofs = 0;
		}
		echo_char(p, c);
		return sig;
	}
	if (c == '\r' && (p->termios.c_iflag & IGNCR))
		return 0;
	if (c == '\r' && (p->termios.c_iflag & ICRNL))
		c = '\n';
	else if (c == '\n' && (p->termios.c_iflag & INLCR))
		c = '\r';
	if (canonical(p)) {
		const uint8_t *cc = p->termios.c_cc;
		if ((uint8_t)c == cc[VERASE]) {
			if (p->in.count > p->ready) {
				p->in.count--;
				if (p->termios.c_lflag & ECHO) {
					ring_put(&p->out, '\b');
					ring_put(&p->out, ' ');
					ring_put(&p->out, '\b');
				}
			}
			return 0;
		}
		if ((uint8_t)c == cc[VKILL]) {
			p->in.count = p->ready;
			echo_char(p, '\n');
			return 0;
		}
		if ((uint8_t)c == cc[VEOF]) {
			if (p->in.count == p->ready)
				p->eofs++;
			p->ready = p->in.count;
			return 0;
		}
	}
	if (!ring_put(&p->in, c))
		return 0;			// full: dropped, as a tty does
	if (!canonical(p) || c == '\n')
		p->ready = p->in.count;
	echo_char(p, c);
	return 0;
}

// ---- the master ----

static struct pty *pty_of(struct vnode *vn)
{
	return vn->priv;
}

static long master_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	struct pty *p = pty_of(vn);
	char bounce[CHUNK];
	size_t got = 0;
	long rc = 0;

	(void)off;
	if (n > sizeof(bounce))
		n = sizeof(bounce);
	uint64_t flags = spin_lock_irqsave(&p->lock);
	while (p->out.count == 0) {
		if (p->slave_opened && p->slave_opens == 0) {
			rc = -EIO;		// hung up: no slave left
			break;
		}
		if ((rc = pty_wait(p, f)) < 0)
			break;
	}
	while (rc == 0 && got < n && p->out.count)
		bounce[got++] = ring_take(&p->out);
	bool wakeup = got && p->write_wakeup;

	if (got) {
		wq_wake_all(&p->wq);
		poll_event(&p->events, 0);
		p->write_wakeup = false;
	}
	spin_unlock_irqrestore(&p->lock, flags);
	if (got)
		poll_notify();
	if (wakeup)
		sigio_notify(&p->tty, FASYNC_WRITERS, POLL_OUT);
	if (rc && !got)
		return rc;
	if (n && iobuf_put(b, 0, bounce, got) < 0)
		return -EFAULT;
	return got;
}

static long master_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	struct pty *p = pty_of(vn);
	char bounce[CHUNK];
	size_t done = 0;

	(void)f; (void)off;
	while (done < n) {
		size_t chunk = n - done < CHUNK ? n - done : CHUNK;
		int sigs[CHUNK], nsig = 0;

		if (iobuf_get(b, done, bounce, chunk) < 0)
			return done ? (long)done : -EFAULT;
		uint64_t flags = spin_lock_irqsave(&p->lock);
		size_t ready_before = p->ready, out_before = p->out.count;
		int eofs_before = p->eofs;

		for (size_t i = 0; i < chunk; i++) {
			int sig = input_byte(p, bounce[i]);
			if (sig)
				sigs[nsig++] = sig;
		}
		// A line (or, raw, any byte) the slave can read now, and echo
		// for the master.
		bool readable = p->ready > ready_before || p->eofs > eofs_before;
		bool echoed = p->out.count > out_before;

		wq_wake_all(&p->wq);
		spin_unlock_irqrestore(&p->lock, flags);
		for (int i = 0; i < nsig; i++)
			tty_signal_fg(&p->tty, sigs[i], 0);
		// Their async files hear of it (Linux's n_tty on each side).
		if (readable)
			sigio_notify(&p->tty, FASYNC_READERS, POLL_IN);
		if (echoed)
			sigio_notify(p->master_vn, FASYNC_READERS, POLL_IN);
		done += chunk;
	}
	poll_event(&p->events, 0);
	poll_notify();
	return done;
}

static int master_poll(struct vnode *vn)
{
	struct pty *p = pty_of(vn);
	int mask = 0;
	uint64_t flags = spin_lock_irqsave(&p->lock);

	if (p->out.count)
		mask |= POLLIN | POLLRDNORM;
	if (p->in.count < PTY_BUF)
		mask |= POLLOUT | POLLWRNORM;
	if (p->slave_opened && p->slave_opens == 0)
		mask |= POLLHUP;
	spin_unlock_irqrestore(&p->lock, flags);
	return mask;
}

static long termios_ioctl(struct pty *p, unsigned cmd, uint64_t arg, bool slave);

static long master_ioctl(struct vnode *vn, struct file *f, unsigned cmd, uint64_t arg)
{
	struct pty *p = pty_of(vn);
	uint32_t v;

	(void)f;
	switch (cmd) {
	case TIOCGPTN:
		return put_user_u32(arg, (uint32_t)p->index);
	case TIOCSPTLCK:
		if (get_user_u32(&v, arg) < 0)
			return -EFAULT;
		__atomic_store_n(&p->locked, v != 0, __ATOMIC_RELAXED);
		return 0;
	case TIOCGPTLCK:
		return put_user_u32(arg, __atomic_load_n(&p->locked, __ATOMIC_RELAXED));
	default:
		return termios_ioctl(p, cmd, arg, false);
	}
}

static void master_release(struct vnode *vn, struct file *f);

static uint64_t pty_poll_events(struct vnode *vn, uint32_t events)
{
	struct pty *p = pty_of(vn);

	return p ? poll_events_for(&p->events, events) : 0;
}

static const struct vnode_ops master_ops = {
	.read = master_read,
	.write = master_write,
	.poll = master_poll,
	.poll_events = pty_poll_events,
	.ioctl = master_ioctl,
	.close = master_release,
	.stream = true,
};

// ---- the slave ----

static long slave_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	struct pty *p = pty_of(vn);
	char bounce[CHUNK];
	size_t got = 0;
	long rc;

	(void)off;
	rc = tty_check_read(&p->tty);	// SIGTTIN for a background job
	if (rc)
		return rc;
	if (n == 0)
		return 0;
	if (n > sizeof(bounce))
		n = sizeof(bounce);
	uint64_t flags = spin_lock_irqsave(&p->lock);
	// After a hang-up reads find the end of file; one asleep when it
	// comes fails with EIO (as Linux).
	bool hung_up = p->master_closed;
	while (p->ready == 0 && p->eofs == 0 && !hung_up) {
		if (p->master_closed) {
			rc = -EIO;
			break;
		}
		if ((rc = pty_wait(p, f)) < 0)
			break;
	}
	if (rc == 0 && p->ready == 0 && p->eofs) {
		p->eofs--;			// ^D on an empty line: end of file
	} else if (rc == 0) {
		while (got < n && p->ready) {
			char c = ring_take(&p->in);
			p->ready--;
			bounce[got++] = c;
			if (c == '\n' && canonical(p))
				break;		// one line per read
		}
	}
	if (got)
		wq_wake_all(&p->wq);
	spin_unlock_irqrestore(&p->lock, flags);
	if (rc)
		return rc;
	if (got && iobuf_put(b, 0, bounce, got) < 0)
		return -EFAULT;
	return got;		// 0 after a hang-up
}

static long slave_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	struct pty *p = pty_of(vn);
	char bounce[CHUNK];
	size_t done = 0;
	long rc = 0;

	(void)off;
	if (__atomic_load_n(&p->termios.c_lflag, __ATOMIC_RELAXED) & TOSTOP) {
		rc = tty_check_change(&p->tty);	// SIGTTOU for a background job
		if (rc)
			return rc;
	}
	while (done < n && rc == 0) {
		size_t chunk = n - done < CHUNK ? n - done : CHUNK;
		size_t i = 0;

		if (iobuf_get(b, done, bounce, chunk) < 0)
			return done ? (long)done : -EFAULT;
		uint64_t flags = spin_lock_irqsave(&p->lock);
		while (i < chunk) {
			if (p->master_closed) {
				rc = -EIO;
				break;
			}
			bool crlf = bounce[i] == '\n' && (p->termios.c_oflag & OPOST) &&
				    (p->termios.c_oflag & ONLCR);
			if (p->out.count + (crlf ? 2 : 1) <= PTY_BUF) {
				if (crlf)
					ring_put(&p->out, '\r');
				ring_put(&p->out, bounce[i++]);
				continue;
			}
			// Full: wait for the master to read.
			wq_wake_all(&p->wq);
			p->write_wakeup = true;
			if (done + i > 0 && (f->flags & O_NONBLOCK))
				break;
			if ((rc = pty_wait(p, f)) < 0)
				break;
		}
		wq_wake_all(&p->wq);
		spin_unlock_irqrestore(&p->lock, flags);
		if (i)
			sigio_notify(p->master_vn, FASYNC_READERS, POLL_IN);
		done += i;
		if (i < chunk)
			break;
	}
	poll_event(&p->events, 0);
	poll_notify();
	return done ? (long)done : rc;
}

static int slave_poll(struct vnode *vn)
{
	struct pty *p = pty_of(vn);
	int mask = 0;
	uint64_t flags = spin_lock_irqsave(&p->lock);

	if (p->ready || p->eofs)
		mask |= POLLIN | POLLRDNORM;
	if (p->out.count < PTY_BUF)
		mask |= POLLOUT | POLLWRNORM;
	if (p->master_closed)
		mask = POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM | POLLHUP | POLLERR;
	spin_unlock_irqrestore(&p->lock, flags);
	return mask;
}

static long slave_ioctl(struct vnode *vn, struct file *f, unsigned cmd, uint64_t arg)
{
	(void)f;
	switch (cmd) {
	case TIOCGPGRP:
	case TIOCSPGRP:
	case TIOCGSID:
	case TIOCSCTTY:
	case TIOCNOTTY:
		return tty_ioctl_job(&pty_of(vn)->tty, cmd, arg);
	default:
		return termios_ioctl(pty_of(vn), cmd, arg, true);
	}
}

static int slave_open(struct vnode **vnp, uint32_t flags);
static void slave_release(struct vnode *vn, struct file *f);

// The slave is the terminal (NULL once the pair is gone).
static struct tty *slave_tty(struct vnode *vn)
{
	struct pty *p = pty_of(vn);

	return p ? &p->tty : NULL;
}

static const struct vnode_ops slave_ops = {
	.read = slave_read,
	.write = slave_write,
	.poll = slave_poll,
	.poll_events = pty_poll_events,
	.ioctl = slave_ioctl,
	.open = slave_open,
	.close = slave_release,
	.tty = slave_tty,
	.stream = true,
};

// ---- settings, shared by both sides ----

static long termios_ioctl(struct pty *p, unsigned cmd, uint64_t arg, bool slave)
{
	struct kernel_termios tio;
	struct kernel_winsize ws;
	uint64_t flags;
	long rc;

	switch (cmd) {
	case TCGETS:
		flags = spin_lock_irqsave(&p->lock);
		tio = p->termios;
		spin_unlock_irqrestore(&p->lock, flags);
		return copy_to_user(arg, &tio, sizeof(tio));
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
		if (slave && (rc = tty_check_change(&p->tty)) != 0)
			return rc;
		if (copy_from_user(&tio, arg, sizeof(tio)) < 0)
			return -EFAULT;
		flags = spin_lock_irqsave(&p->lock);
		p->termios = tio;
		if (cmd == TCSETSF) {
			p->in.head = p->in.count = p->ready = 0;
			p->eofs = 0;
		}
		if (!canonical(p))
			p->ready = p->in.count;	// a partial line becomes readable
		wq_wake_all(&p->wq);
		poll_event(&p->events, 0);
		spin_unlock_irqrestore(&p->lock, flags);
		poll_notify();
		return 0;
	case TIOCGWINSZ:
		flags = spin_lock_irqsave(&p->lock);
		ws = p->winsize;
		spin_unlock_irqrestore(&p->lock, flags);
		return copy_to_user(arg, &ws, sizeof(ws));
	case TIOCSWINSZ: {
		if (copy_from_user(&ws, arg, sizeof(ws)) < 0)
			return -EFAULT;
		flags = spin_lock_irqsave(&p->lock);
		bool changed = memcmp(&p->winsize, &ws, sizeof(ws)) != 0;
		p->winsize = ws;
		spin_unlock_irqrestore(&p->lock, flags);
		if (changed)
			tty_signal_fg(&p->tty, SIGWINCH, 0);
		return 0;
	}
	case FIONREAD:
		flags = spin_lock_irqsave(&p->lock);
		rc = slave ? (long)p->ready : (long)p->out.count;
		spin_unlock_irqrestore(&p->lock, flags);
		return put_user_u32(arg, (uint32_t)rc);
	case TIOCOUTQ:
		flags = spin_lock_irqsave(&p->lock);
		rc = slave ? (long)p->out.count : 0;
		spin_unlock_irqrestore(&p->lock, flags);
		return put_user_u32(arg, (uint32_t)rc);
	case TCFLSH:
		if (arg > TCIOFLUSH)
			return -EINVAL;
		flags = spin_lock_irqsave(&p->lock);
		// The slave's input queue is the master's output and the
		// other way round.
		if (arg == TCIOFLUSH || (arg == TCIFLUSH) == slave) {
			p->in.head = p->in.count = p->ready = 0;
			p->eofs = 0;
		}
		if (arg == TCIOFLUSH || (arg == TCOFLUSH) == slave)
			p->out.head = p->out.count = 0;
		wq_wake_all(&p->wq);
		spin_unlock_irqrestore(&p->lock, flags);
		return 0;
	case TCSBRK:
		return 0;		// output is never held back
	case TIOCGPGRP:
		return tty_ioctl_job(&p->tty, cmd, arg);
	default:
		return -ENOTTY;
	}
}

// ---- opening and closing ----

// Frees the pair once both sides are gone.  pty_table_lock held.
static void maybe_free_locked(struct pty *p)
{
	if (!p->master_closed || p->slave_opens)
		return;
	ptys[p->index] = 0;
	p->slave_vn->priv = 0;		// the name is gone already; stale lookups fail
	vnode_put(p->slave_vn);
	kfree(p);
}

static int slave_open(struct vnode **vnp, uint32_t flags)
{
	struct vnode *vn = *vnp;
	uint64_t irq = spin_lock_irqsave(&pty_table_lock);
	struct pty *p = vn->priv;
	int rc = 0;

	if (!p || p->master_closed) {
		rc = -EIO;
	} else if (p->locked) {
		rc = -EIO;		// not unlocked yet (unlockpt)
	} else {
		uint64_t f = spin_lock_irqsave(&p->lock);
		p->slave_opens++;
		p->slave_opened = true;
		spin_unlock_irqrestore(&p->lock, f);
	}
	spin_unlock_irqrestore(&pty_table_lock, irq);
	if (rc == 0 && !(flags & O_NOCTTY))
		tty_open_ctty(&p->tty);
	return rc;
}

static void slave_release(struct vnode *vn, struct file *f)
{
	uint64_t irq = spin_lock_irqsave(&pty_table_lock);
	struct pty *p = vn->priv;

	(void)f;
	if (p) {
		uint64_t fl = spin_lock_irqsave(&p->lock);
		p->slave_opens--;
		wq_wake_all(&p->wq);
		poll_event(&p->events, 0);
		spin_unlock_irqrestore(&p->lock, fl);
		maybe_free_locked(p);
	}
	spin_unlock_irqrestore(&pty_table_lock, irq);
	poll_notify();
}

static void master_release(struct vnode *vn, struct file *f)
{
	struct pty *p = vn->priv;
	char name[16];

	(void)f;
	// The slave hangs up: its session loses it.
	tty_hangup(&p->tty);
	ksnprintf(name, sizeof(name), "%d", p->index);
	vfs_unlink(pts_dir, name, false);
	uint64_t irq = spin_lock_irqsave(&pty_table_lock);
	uint64_t fl = spin_lock_irqsave(&p->lock);
	p->master_closed = true;
	wq_wake_all(&p->wq);
	poll_event(&p->events, 0);
	spin_unlock_irqrestore(&p->lock, fl);
	vn->priv = 0;
	maybe_free_locked(p);
	spin_unlock_irqrestore(&pty_table_lock, irq);
	poll_notify();
}

// Opening /dev/ptmx: a new pair; the file gets the master's vnode.
static int ptmx_open(struct vnode **vnp, uint32_t flags)
{
	struct pty *p = kzalloc(sizeof(*p));
	struct vnode *m = vnode_alloc(VNODE_CHR, 0666);
	struct vnode *s = vnode_alloc(VNODE_CHR, 0620);
	char name[16];
	int rc = -ENOSPC;

	(void)flags;
	if (!p || !m || !s) {
		rc = -ENOMEM;
		goto fail;
	}
	spin_init(&p->lock, "pty");
	p->termios = default_termios;
	p->locked = true;
	p->master_vn = m;
	p->slave_vn = s;
	m->ops = &master_ops;
	m->rdev = (5 << 8) | 2;
	m->priv = p;
	s->ops = &slave_ops;
	s->priv = p;
	p->tty.vn = s;
	uint64_t irq = spin_lock_irqsave(&pty_table_lock);
	for (int i = 0; i < PTY_MAX; i++) {
		if (!ptys[i]) {
			ptys[i] = p;
			p->index = i;
			rc = 0;
			break;
		}
	}
	spin_unlock_irqrestore(&pty_table_lock, irq);
	if (rc)
		goto fail;
	s->rdev = (136 << 8) | (uint64_t)p->index;
	ksnprintf(name, sizeof(name), "%d", p->index);
	rc = vfs_add_node("/dev/pts", name, s);	// the directory has its own reference
	if (rc < 0) {
		irq = spin_lock_irqsave(&pty_table_lock);
		ptys[p->index] = 0;
		spin_unlock_irqrestore(&pty_table_lock, irq);
		goto fail;
	}
	vnode_put(*vnp);		// /dev/ptmx itself
	*vnp = m;
	return 0;
fail:
	if (m)
		vnode_put(m);
	if (s)
		vnode_put(s);
	kfree(p);
	return rc;
}

static const struct vnode_ops ptmx_ops = {
	.open = ptmx_open,
	.stream = true,
};

int pty_init(void)
{
	struct vnode *vn = vnode_alloc(VNODE_CHR, 0666);
	int rc;

	if (!vn)
		return -ENOMEM;
	vn->ops = &ptmx_ops;
	vn->rdev = (5 << 8) | 2;
	dev_register(vn->rdev, &ptmx_ops);
	rc = vfs_add_node("/dev", "ptmx", vn);
	vnode_put(vn);
	if (rc < 0 && rc != -EEXIST)
		return rc;
	return vfs_mkdir_p("/dev/pts", &pts_dir);
}
