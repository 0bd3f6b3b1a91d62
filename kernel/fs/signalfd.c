// signalfd and signalfd4: a descriptor that reads the caller's pending
// signals of a mask as struct signalfd_siginfo, as Linux's.  The signals
// are the reader's (its thread's, then its process's), whoever created
// the descriptor; readiness is the poller's own in the same way.  Readers
// and pollers sleep on the global poll queue, which every signal sent
// notifies (kernel/proc/signal.c), so no wake-up is lost.

#include <fs/anon.h>
#include <fs/fcntl.h>
#include <fs/fs_syscall.h>
#include <fs/poll.h>
#include <kernel/process.h>
#include <kernel/signal.h>
#include <kernel/syscall.h>
#include <kernel/thread.h>
#include <kernel/uaccess.h>
#include <kernel/wait.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define SFD_NONBLOCK	O_NONBLOCK
#define SFD_CLOEXEC	O_CLOEXEC
// SIGKILL and SIGSTOP are never read through a signalfd.
#define UNREADABLE	(sigmask_of(SIGKILL) | sigmask_of(SIGSTOP))

struct signalfd {
	uint64_t mask;		// atomic: signalfd() on the descriptor replaces it
	struct poll_events events;	// fs/poll.h: mask changes (signals: sighand's)
};

// Linux's struct signalfd_siginfo.
struct signalfd_siginfo {
	uint32_t ssi_signo;
	int32_t ssi_errno;
	int32_t ssi_code;
	uint32_t ssi_pid;
	uint32_t ssi_uid;
	int32_t ssi_fd;
	uint32_t ssi_tid;
	uint32_t ssi_band;
	uint32_t ssi_overrun;
	uint32_t ssi_trapno;
	int32_t ssi_status;
	int32_t ssi_int;
	uint64_t ssi_ptr;
	uint64_t ssi_utime;
	uint64_t ssi_stime;
	uint64_t ssi_addr;
	uint16_t ssi_addr_lsb;
	uint16_t pad2;
	int32_t ssi_syscall;
	uint64_t ssi_call_addr;
	uint32_t ssi_arch;
	uint8_t pad[28];
};

_Static_assert(sizeof(struct signalfd_siginfo) == 128, "signalfd_siginfo is 128 bytes");

static uint64_t mask_of(struct vnode *vn)
{
	struct signalfd *s = vn->priv;

	return __atomic_load_n(&s->mask, __ATOMIC_RELAXED);
}

// From the siginfo_t a handler would get, field by field as Linux's
// signalfd_copyinfo picks them for each layout.
static void to_ssi(struct signalfd_siginfo *ssi, const struct ksiginfo *info)
{
	struct user_siginfo si;
	uint64_t raw[4];

	siginfo_to_user(&si, info);
	memcpy(raw, si.u.raw, sizeof(raw));
	memset(ssi, 0, sizeof(*ssi));
	ssi->ssi_signo = (uint32_t)si.si_signo;
	ssi->ssi_errno = si.si_errno;
	ssi->ssi_code = si.si_code;
	bool fault = si.si_code > 0 && si.si_code != SI_KERNEL &&
		     (si.si_signo == SIGSEGV || si.si_signo == SIGBUS || si.si_signo == SIGILL ||
		      si.si_signo == SIGFPE || si.si_signo == SIGTRAP);
	if (fault) {
		ssi->ssi_addr = si.u.addr;
		return;
	}
	if (info->poll) {					// SIL_POLL
		ssi->ssi_band = (uint32_t)info->band;
		ssi->ssi_fd = info->fd;
		return;
	}
	if (si.si_code == SI_TIMER && info->timer) {		// signalfd_copyinfo's SIL_TIMER
		ssi->ssi_tid = (uint32_t)info->timerid;
		ssi->ssi_overrun = (uint32_t)info->overrun;
		ssi->ssi_ptr = info->value;
		ssi->ssi_int = (int32_t)info->value;
		return;
	}
	ssi->ssi_pid = (uint32_t)si.u.kill.pid;
	ssi->ssi_uid = si.u.kill.uid;
	if (si.si_signo == SIGCHLD && si.si_code > 0 && si.si_code < SI_KERNEL) {
		ssi->ssi_status = si.u.kill.status;
		ssi->ssi_utime = raw[2];	// si_utime, si_stime after si_status
		ssi->ssi_stime = raw[3];
	} else if (si.si_code < 0) {		// sigqueue, tkill: the value
		memcpy(&ssi->ssi_ptr, si.u.raw + 8, 8);
		ssi->ssi_int = (int32_t)ssi->ssi_ptr;
	}
}

// The next signal of the mask pending for the caller, taken off.
static int take(uint64_t mask, struct ksiginfo *info)
{
	struct thread *t = current_thread();
	struct sighand *sh = t->proc->sighand;
	uint64_t flags = spin_lock_irqsave(&sh->lock);
	int sig = signal_take_one_of(t, mask, info);

	spin_unlock_irqrestore(&sh->lock, flags);
	if (sig)
		posix_timer_rearm(info);	// a periodic timer runs again
	return sig;
}

// One signal, waiting for it unless 'nonblock': 0 with *info, -EAGAIN,
// or -ERESTARTSYS when a signal to handle (or a stop) comes first.  The
// poll sequence is sampled before looking, so a signal sent after the
// look makes the sleep return at once.
static int take_waiting(struct vnode *vn, bool nonblock, struct ksiginfo *info)
{
	for (;;) {
		uint64_t seq = poll_seq();

		if (take(mask_of(vn), info))
			return 0;
		if (nonblock)
			return -EAGAIN;
		if (thread_signal_pending(current_thread()))
			return -ERESTARTSYS;
		poll_wait_change(seq, WAIT_FOREVER);
	}
}

static long signalfd_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			  size_t n)
{
	size_t count = n / sizeof(struct signalfd_siginfo), done = 0;
	bool nonblock = f->flags & O_NONBLOCK;
	long rc = 0;

	(void)off;
	if (count == 0)
		return -EINVAL;
	// As many as fit; only the first may wait.
	for (; done < count; done++, nonblock = true) {
		struct signalfd_siginfo ssi;
		struct ksiginfo info;

		rc = take_waiting(vn, nonblock, &info);
		if (rc)
			break;
		to_ssi(&ssi, &info);
		if (iobuf_put(b, done * sizeof(ssi), &ssi, sizeof(ssi)) < 0) {
			rc = -EFAULT;	// that signal is lost, as on Linux
			break;
		}
	}
	return done ? (long)(done * sizeof(struct signalfd_siginfo)) : rc;
}

static int signalfd_poll(struct vnode *vn)
{
	struct thread *t = current_thread();
	struct process *p = t->proc;

	// A kernel thread polling (aio's IOCB_CMD_POLL, as Linux's kworker)
	// has no signals.
	if (!p)
		return 0;
	uint64_t flags = sighand_lock(p);
	bool ready = ((t->sig_pending | p->sig_pending) & mask_of(vn)) != 0;

	spin_unlock_irqrestore(&p->sighand->lock, flags);
	return ready ? POLLIN : 0;
}

// As signalfd_poll, for the reader's process: a signal sent to it is an
// event of each of its signalfds (Linux wakes sighand's signalfd queue).
static uint64_t signalfd_poll_events(struct vnode *vn, uint32_t events)
{
	struct signalfd *s = vn->priv;
	struct sighand *sh = current_thread()->proc->sighand;

	return poll_events_for(&s->events, events) + poll_events_for(&sh->poll_events, events);
}

static void signalfd_fdinfo(struct vnode *vn, char *buf, size_t size)
{
	ksnprintf(buf, size, "sigmask:\t%016lx\n", mask_of(vn));
}

static void signalfd_release(struct vnode *vn)
{
	kfree(vn->priv);
}

static const struct vnode_ops signalfd_ops = {
	.read = signalfd_read,
	.poll = signalfd_poll,
	.poll_events = signalfd_poll_events,
	.open = anon_open,
	.release = signalfd_release,
	.fdinfo = signalfd_fdinfo,
	.anon_name = "signalfd",
};

static long signalfd_create(uint64_t mask, int flags)
{
	struct signalfd *s = kzalloc(sizeof(*s));
	struct file *f;

	if (!s)
		return -ENOMEM;
	s->mask = mask;
	f = anon_file_new(&signalfd_ops, s, (uint32_t)flags);
	if (!f) {
		kfree(s);
		return -ENOMEM;
	}
	return anon_install(f, (uint32_t)flags);
}

// signalfd(fd, ...) on an existing signalfd: its new mask, for readers
// already waiting too.  The flags are not applied, as on Linux.
static long signalfd_update(int fd, uint64_t mask)
{
	struct file *f = fget(fd);
	struct signalfd *s;

	if (!f)
		return -EBADF;
	s = anon_priv(f, &signalfd_ops);
	if (s) {
		__atomic_store_n(&s->mask, mask, __ATOMIC_RELAXED);
		poll_event(&s->events, 0);
		poll_notify();
	}
	file_put(f);
	return s ? fd : -EINVAL;
}

static long do_signalfd4(int fd, uint64_t umask, size_t sizemask, int flags)
{
	uint64_t mask;

	if (sizemask != sizeof(mask))
		return -EINVAL;
	if (copy_from_user(&mask, umask, sizeof(mask)) < 0)
		return -EFAULT;
	if (flags & ~(SFD_NONBLOCK | SFD_CLOEXEC))
		return -EINVAL;
	mask &= ~UNREADABLE;
	return fd == -1 ? signalfd_create(mask, flags) : signalfd_update(fd, mask);
}

SYSCALL_DEFINE(SYS_signalfd, signalfd)
{
	return do_signalfd4((int)args->a[0], args->a[1], args->a[2], 0);
}

SYSCALL_DEFINE(SYS_signalfd4, signalfd4)
{
	return do_signalfd4((int)args->a[0], args->a[1], args->a[2], (int)args->a[3]);
}
