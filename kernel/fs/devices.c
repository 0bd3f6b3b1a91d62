// /dev: the character devices null, zero, full, random/urandom and the
// console; the links fd, stdin, stdout, stderr; the directory shm.
//
// The console's output goes straight to console_write.  Its input is a
// ring buffer filled from the UART's interrupt (console_poll_input; a
// timer polls it where the interrupt cannot be routed)
// and read through a small line discipline: canonical mode (the default)
// hands out whole lines and handles erase and end-of-file; echo follows
// the ECHO flag that TCSETS controls, as busybox's line editor expects.

#include <fs/sigio.h>
#include <fs/dev.h>
#include <kernel/arch.h>
#include <fs/vfs.h>
#include <fs/file.h>
#include <fs/fcntl.h>
#include <fs/poll.h>
#include <kernel/console.h>
#include <kernel/process.h>
#include <kernel/random.h>
#include <kernel/tty.h>
#include <kernel/ktimer.h>
#include <kernel/time.h>
#include <kernel/uaccess.h>
#include <kernel/wait.h>
#include <kernel/time.h>
#include <lib/string.h>
#include <uapi/errno.h>
#include <uapi/termios.h>

#define CHUNK 256

// ---- null, zero, full, random ----

static long null_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f; (void)off; (void)b; (void)n;
	return 0;
}

static long null_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f; (void)off; (void)b;
	return n;
}

static long zero_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f; (void)off;
	if (iobuf_zero(b, 0, n) < 0)
		return -EFAULT;
	return n;
}

static long full_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f; (void)off; (void)b;
	return n ? -ENOSPC : 0;
}

// Both read the kernel's one generator (kernel/random.c), as on Linux
// since 5.18 where they differ in nothing; writes stir the data into it.
static long random_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	uint8_t bytes[CHUNK];
	size_t done = 0;

	(void)vn; (void)f; (void)off;
	while (done < n) {
		size_t chunk = n - done < CHUNK ? n - done : CHUNK;

		random_bytes(bytes, chunk);
		if (iobuf_put(b, done, bytes, chunk) < 0) {
			memset(bytes, 0, sizeof(bytes));
			return done ? (long)done : -EFAULT;
		}
		done += chunk;
	}
	memset(bytes, 0, sizeof(bytes));
	return done;
}

static long random_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	uint8_t bytes[CHUNK];
	size_t done = 0;

	(void)vn; (void)f; (void)off;
	while (done < n) {
		size_t chunk = n - done < CHUNK ? n - done : CHUNK;

		if (iobuf_get(b, done, bytes, chunk) < 0)
			return done ? (long)done : -EFAULT;
		random_mix(bytes, chunk);
		done += chunk;
	}
	return done;
}

static const struct vnode_ops null_ops = { .read = null_read, .write = null_write };
static const struct vnode_ops zero_ops = { .read = zero_read, .write = null_write,
					   .maps_anonymous = true };
static const struct vnode_ops full_ops = { .read = zero_read, .write = full_write };
static const struct vnode_ops random_ops = { .read = random_read, .write = random_write };

// ---- the console ----

#define INPUT_SIZE 4096

static struct {
	struct spinlock lock;		// everything below; taken from the tick
	struct wait_queue read_wq;
	char buf[INPUT_SIZE];
	size_t head, count;		// the ring
	size_t ready;			// bytes readers may take (whole lines in canonical mode)
	int eofs;			// ^D on an empty line: reads that return 0
	struct kernel_termios termios;
	struct kernel_winsize winsize;
	struct tty tty;			// session and foreground group (kernel/proc/session.c)
	struct poll_events events;	// fs/poll.h: all without a key, as pty.c's
} con = {
	.lock = SPINLOCK_INIT("console input"),
	.termios = {
		.c_iflag = ICRNL | IXON,
		.c_oflag = OPOST | ONLCR,
		.c_cflag = 0000277,	// B38400 | CS8 | CREAD | HUPCL
		.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE | IEXTEN,
		.c_cc = TERMIOS_INIT_CC,
	},
	.winsize = { 24, 80, 0, 0 },
};

static bool canonical(void)
{
	return con.termios.c_lflag & ICANON;
}

// One input byte (con.lock held).  Returns what to echo in *echo.
static size_t input_byte(char c, char *echo)
{
	size_t n = 0;

	if (c == '\r' && (con.termios.c_iflag & ICRNL))
		c = '\n';
	if (canonical()) {
		if ((uint8_t)c == con.termios.c_cc[VERASE] || c == '\b') {
			if (con.count > con.ready) {
				con.count--;
				memcpy(echo, "\b \b", 3);
				n = 3;
			}
			goto out;
		}
		if ((uint8_t)c == con.termios.c_cc[VEOF]) {
			if (con.count == con.ready)
				con.eofs++;
			con.ready = con.count;		// the partial line, without ^D
			goto out;
		}
	}
	if (con.count == INPUT_SIZE)
		goto out;			// full: drop, as a tty does
	con.buf[(con.head + con.count) % INPUT_SIZE] = c;
	con.count++;
	if (!canonical() || c == '\n' || con.count == INPUT_SIZE)
		con.ready = con.count;
	echo[0] = c;
	n = 1;
out:
	if (!(con.termios.c_lflag & ECHO))
		n = 0;
	return n;
}

static void console_input(const char *s, size_t len)
{
	char echo[CHUNK * 3];
	size_t n = 0;
	int sig = 0;
	uint64_t flags = spin_lock_irqsave(&con.lock);
	size_t ready_before = con.ready;
	int eofs_before = con.eofs;

	for (size_t i = 0; i < len && n + 3 <= sizeof(echo); i++) {
		int si = tty_signal_char(&con.termios, s[i]);
		if (si) {
			sig = si;
			echo[n++] = '^';
			echo[n++] = (char)((uint8_t)s[i] + '@');	// ^C, ^\, ^Z
			echo[n++] = '\n';
			continue;
		}
		n += input_byte(s[i], echo + n);
	}
	// Something a reader can take now arrived (a line, or any byte out
	// of canonical mode): Linux's n_tty signals the async files then.
	bool readable = con.ready > ready_before || con.eofs > eofs_before;

	if (con.ready || con.eofs)
		wq_wake_all(&con.read_wq);
	spin_unlock_irqrestore(&con.lock, flags);
	if (n)
		console_write(echo, n);
	if (sig)
		tty_signal_fg(&con.tty, sig, 1);
	poll_event(&con.events, 0);
	poll_notify();
	if (readable)
		sigio_notify(&con.tty, FASYNC_READERS, POLL_IN);
}

// Everything the device holds: its interrupt is an edge, and a byte left
// behind would raise no other.
void console_poll_input(void)
{
	char bytes[64];
	size_t n;
	int c;

	do {
		n = 0;
		while (n < sizeof(bytes) && (c = arch_console_getc()) >= 0)
			bytes[n++] = (char)c;
		if (n)
			console_input(bytes, n);
	} while (n == sizeof(bytes));
}

static void input_poll_fn(struct ktimer *kt)
{
	console_poll_input();
	ktimer_arm(kt, clock_monotonic_ns() + tick_period_ns(), 0);
}

static struct ktimer input_poll = { .fn = input_poll_fn };

void console_input_start(void)
{
	if (arch_console_enable_rx_interrupt())
		return;
	kprintf("console: no input interrupt: input polled every tick\n");
	ktimer_arm(&input_poll, clock_monotonic_ns() + tick_period_ns(), 0);
}

void console_inject(const char *s, unsigned long n)
{
	while (n) {
		size_t chunk = n < CHUNK ? n : CHUNK;
		console_input(s, chunk);
		s += chunk;
		n -= chunk;
	}
}

static long console_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	char bounce[CHUNK];
	size_t got = 0;
	uint64_t flags;
	int rc = 0;

	(void)vn; (void)off;
	// A background job reading its terminal is stopped (SIGTTIN).
	rc = tty_check_read(&con.tty);
	if (rc)
		return rc;
	if (n == 0)
		return 0;
	if (n > sizeof(bounce))
		n = sizeof(bounce);
	flags = spin_lock_irqsave(&con.lock);
	while (con.ready == 0 && con.eofs == 0) {
		if (f && (f->flags & O_NONBLOCK)) {
			rc = -EAGAIN;
			break;
		}
		rc = wq_wait(&con.read_wq, &con.lock, WAIT_FOREVER, true);
		if (rc) {
			rc = -ERESTARTSYS;
			break;
		}
	}
	if (rc == 0 && con.ready == 0) {
		con.eofs--;			// ^D on an empty line: end of file
	} else if (rc == 0) {
		while (got < n && con.ready) {
			char c = con.buf[con.head];

			bounce[got++] = c;
			con.head = (con.head + 1) % INPUT_SIZE;
			con.count--;
			con.ready--;
			if (c == '\n' && canonical())
				break;		// one line per read
		}
	}
	spin_unlock_irqrestore(&con.lock, flags);
	if (rc)
		return rc;
	if (got && iobuf_put(b, 0, bounce, got) < 0)
		return -EFAULT;
	return got;
}

static long console_write_op(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	char bounce[CHUNK];
	size_t done = 0;

	(void)vn; (void)f; (void)off;
	// With TOSTOP a background job writing is stopped (SIGTTOU).
	if (__atomic_load_n(&con.termios.c_lflag, __ATOMIC_RELAXED) & TOSTOP) {
		long rc = tty_check_change(&con.tty);
		if (rc)
			return rc;
	}
	while (done < n) {
		size_t chunk = n - done < CHUNK ? n - done : CHUNK;

		if (iobuf_get(b, done, bounce, chunk) < 0)
			return done ? (long)done : -EFAULT;
		console_write(bounce, chunk);
		done += chunk;
	}
	return done;
}

static int console_poll(struct vnode *vn)
{
	int mask = POLLOUT | POLLWRNORM;

	(void)vn;
	if (__atomic_load_n(&con.ready, __ATOMIC_RELAXED) || __atomic_load_n(&con.eofs, __ATOMIC_RELAXED))
		mask |= POLLIN | POLLRDNORM;
	return mask;
}

static long console_ioctl(struct vnode *vn, struct file *f, unsigned cmd, uint64_t arg)
{
	struct kernel_termios tio;
	struct kernel_winsize ws;
	uint64_t flags;

	(void)vn; (void)f;
	switch (cmd) {
	case TCGETS:
		flags = spin_lock_irqsave(&con.lock);
		tio = con.termios;
		spin_unlock_irqrestore(&con.lock, flags);
		return copy_to_user(arg, &tio, sizeof(tio));
	case TCSETS:
	case TCSETSW:
	case TCSETSF: {
		long rc = tty_check_change(&con.tty);	// SIGTTOU for a background job
		if (rc)
			return rc;
		if (copy_from_user(&tio, arg, sizeof(tio)) < 0)
			return -EFAULT;
		flags = spin_lock_irqsave(&con.lock);
		con.termios = tio;
		if (cmd == TCSETSF) {
			con.head = con.count = con.ready = 0;
			con.eofs = 0;
		}
		// Leaving canonical mode makes a partial line readable.
		if (!canonical())
			con.ready = con.count;
		spin_unlock_irqrestore(&con.lock, flags);
		poll_event(&con.events, 0);
		poll_notify();
		return 0;
	}
	case TIOCGWINSZ:
		flags = spin_lock_irqsave(&con.lock);
		ws = con.winsize;
		spin_unlock_irqrestore(&con.lock, flags);
		return copy_to_user(arg, &ws, sizeof(ws));
	case TIOCSWINSZ:
		if (copy_from_user(&ws, arg, sizeof(ws)) < 0)
			return -EFAULT;
		flags = spin_lock_irqsave(&con.lock);
		bool changed = memcmp(&con.winsize, &ws, sizeof(ws)) != 0;
		con.winsize = ws;
		spin_unlock_irqrestore(&con.lock, flags);
		if (changed)		// as Linux: the foreground group learns of it
			tty_signal_fg(&con.tty, SIGWINCH, 0);
		return 0;
	case TIOCGPGRP:
	case TIOCSPGRP:
	case TIOCGSID:
	case TIOCSCTTY:
	case TIOCNOTTY:
		return tty_ioctl_job(&con.tty, cmd, arg);
	case FIONREAD:
		return put_user_u32(arg, (uint32_t)__atomic_load_n(&con.ready, __ATOMIC_RELAXED));
	case TIOCOUTQ:
		return put_user_u32(arg, 0);
	case TCFLSH:
		if (arg > TCIOFLUSH)
			return -EINVAL;
		if (arg == TCIFLUSH || arg == TCIOFLUSH) {
			flags = spin_lock_irqsave(&con.lock);
			con.head = con.count = con.ready = 0;
			spin_unlock_irqrestore(&con.lock, flags);
		}
		return 0;
	case TCXONC:
		// Output is never suspended, so only "resume" is exact; the
		// actions that would stop a direction are refused.
		if (arg == TCOON || arg == TCION)
			return 0;
		return -EINVAL;
	case TCSBRK:
		return 0;
	default:
		return -ENOTTY;
	}
}

static uint64_t console_poll_events(struct vnode *vn, uint32_t events)
{
	(void)vn;
	return poll_events_for(&con.events, events);
}

static struct tty *console_tty(struct vnode *vn)
{
	(void)vn;
	return &con.tty;
}

static const struct vnode_ops console_ops = {
	.read = console_read,
	.write = console_write_op,
	.poll = console_poll,
	.poll_events = console_poll_events,
	.ioctl = console_ioctl,
	.tty = console_tty,
	.stream = true,
};

// /dev/tty is the opener's controlling terminal (ENXIO without one): the
// console itself, or another terminal's node (a pty's slave).
static int devtty_open(struct vnode **vnp, uint32_t flags)
{
	struct tty *tty;
	struct vnode *vn;
	int rc = tty_ctty_get(&tty, &vn);

	if (rc < 0 || !vn)
		return rc;
	if (vn->ops && vn->ops->open) {
		rc = vn->ops->open(&vn, flags | O_NOCTTY);
		if (rc < 0) {
			vnode_put(vn);
			return rc;
		}
	}
	vnode_put(*vnp);
	*vnp = vn;
	return 0;
}

static const struct vnode_ops devtty_ops = {
	.read = console_read,
	.write = console_write_op,
	.poll = console_poll,
	.poll_events = console_poll_events,
	.ioctl = console_ioctl,
	.open = devtty_open,
	.tty = console_tty,	// opened while the console was the terminal
	.stream = true,
};

// ---- /dev ----

#define MAX_DEVICES 16

struct device {
	uint64_t rdev;
	const struct vnode_ops *ops;
};

static struct device devices[MAX_DEVICES];
static int ndevices;

// Boot time only, before any process can mknod.
void dev_register(uint64_t rdev, const struct vnode_ops *ops)
{
	if (ndevices < MAX_DEVICES && !dev_ops(rdev))
		devices[ndevices++] = (struct device){ rdev, ops };
}

const struct vnode_ops *dev_ops(uint64_t rdev)
{
	for (int i = 0; i < ndevices; i++)
		if (devices[i].rdev == rdev)
			return devices[i].ops;
	return NULL;
}

static int add_device(const char *name, const struct vnode_ops *ops, uint32_t major,
		      uint32_t minor, uint32_t perm)
{
	struct vnode *vn = vnode_alloc(VNODE_CHR, perm);
	int rc;

	if (!vn)
		return -ENOMEM;
	vn->ops = ops;
	vn->rdev = (major << 8) | minor;
	dev_register(vn->rdev, ops);
	rc = vfs_add_node("/dev", name, vn);
	vnode_put(vn);		// the directory entry keeps it
	return rc == -EEXIST ? 0 : rc;
}

// The links udev and Linux's devtmpfs setup make in /dev.
static int add_link(const char *name, const char *target)
{
	struct vnode *dev;
	int rc = vfs_lookup("/dev", true, &dev);

	if (rc)
		return rc;
	rc = vfs_create(dev, name, VNODE_SYMLINK, 0777, target, NULL);
	vnode_put(dev);
	return rc == -EEXIST ? 0 : rc;
}

// /dev/shm, where shm_open(3) puts its files: a directory anyone may
// create files in and only their owners remove (sticky), as the tmpfs
// Linux systems mount there.  Its files live in memory like all others.
static int add_shm(void)
{
	struct vnode *shm;
	int rc = vfs_mkdir_p("/dev/shm", &shm);

	if (rc)
		return rc;
	shm->mode = S_IFDIR | 01777;
	vnode_put(shm);
	return 0;
}

int devices_init(void)
{
	int rc = 0;

	rc |= add_device("null", &null_ops, 1, 3, 0666);
	rc |= add_device("zero", &zero_ops, 1, 5, 0666);
	rc |= add_device("full", &full_ops, 1, 7, 0666);
	rc |= add_device("random", &random_ops, 1, 8, 0666);
	rc |= add_device("urandom", &random_ops, 1, 9, 0666);
	rc |= add_device("tty", &devtty_ops, 5, 0, 0666);
	rc |= add_device("console", &console_ops, 5, 1, 0600);
	rc |= add_link("fd", "/proc/self/fd");
	rc |= add_link("stdin", "/proc/self/fd/0");
	rc |= add_link("stdout", "/proc/self/fd/1");
	rc |= add_link("stderr", "/proc/self/fd/2");
	rc |= add_shm();
	rc |= pty_init();
	return rc ? -ENOMEM : 0;
}
