// timerfd_create, timerfd_settime, timerfd_gettime: a timer whose
// expirations are read from a descriptor, as Linux's.
//
// The model is Linux's hrtimer one: an armed ("running") timer fires once
// when its clock passes the expiry, counting one tick; a periodic timer is
// moved past the present (hrtimer_forward: every period that went by
// counts) only when the ticks are read or the time is asked for, and then
// runs again.  Firing happens from the timer's kernel timer (include/
// kernel/ktimer.h), at its time, and whenever the timer is looked at, so
// a read, poll or gettime never sees a stale state.
//
// CLOCK_REALTIME is the monotonic clock plus an offset that
// clock_settime and settimeofday move.  An absolute realtime timer's
// kernel timer follows the change; with
// TFD_TIMER_CANCEL_ON_SET it is cancelled instead, as Linux's: the
// readers wake and the next read is ECANCELED.  The _ALARM clocks behave
// as their plain ones (nothing suspends), behind CAP_WAKE_ALARM as on
// Linux.

#include <fs/anon.h>
#include <fs/fcntl.h>
#include <fs/fs_syscall.h>
#include <fs/poll.h>
#include <fs/timerfd.h>
#include <kernel/cred.h>
#include <kernel/ktime.h>
#include <kernel/ktimer.h>
#include <kernel/syscall.h>
#include <kernel/time.h>
#include <kernel/uaccess.h>
#include <kernel/wait.h>
#include <lib/printf.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>
#include <uapi/ioctls.h>
#include <stddef.h>

#define CLOCK_REALTIME		KT_CLOCK_REALTIME
#define CLOCK_MONOTONIC		KT_CLOCK_MONOTONIC
#define CLOCK_BOOTTIME		KT_CLOCK_BOOTTIME
#define CLOCK_REALTIME_ALARM	KT_CLOCK_REALTIME_ALARM
#define CLOCK_BOOTTIME_ALARM	KT_CLOCK_BOOTTIME_ALARM

#define TFD_TIMER_ABSTIME	(1 << 0)
#define TFD_TIMER_CANCEL_ON_SET	(1 << 1)
#define TFD_SETTIME_FLAGS	(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)
#define TFD_NONBLOCK		O_NONBLOCK
#define TFD_CLOEXEC		O_CLOEXEC

#define NSEC		KT_NSEC

struct timerfd {
	int clockid;
	// Under timerfd_lock:
	int64_t exp;		// expiry, in the clock's ns (0: never set)
	int64_t interval;	// 0: one-shot
	bool running;		// armed, not fired yet: 'kt' is armed
	bool expired;		// fired since the last read (a period to forward)
	uint64_t ticks;		// expirations not read yet
	int settime_flags;
	bool mono_base;		// CLOCK_REALTIME set relative: counts on MONOTONIC
	struct wait_queue wq;	// readers
	struct ktimer kt;	// fires it while running
	struct poll_events events;	// fs/poll.h: expirations, TFD_IOC_SET_TICKS
	// TFD_TIMER_CANCEL_ON_SET on an absolute realtime setting: on the
	// 'cancelable' list; 'moffs' is the clock's offset it last saw, or
	// KTIME_MAX once a clock change cancelled it (Linux's fields).
	bool might_cancel;
	int64_t moffs;
	struct timerfd *cancel_next;
};

// One lock for every timerfd: they are few.
static struct spinlock timerfd_lock = SPINLOCK_INIT("timerfd");
static struct timerfd *cancelable;

static bool is_alarm(const struct timerfd *t)
{
	return ktime_is_alarm(t->clockid);
}

static int64_t clock_now(const struct timerfd *t)
{
	return ktime_now(t->clockid, t->mono_base);
}

// The kernel timer's deadline: realtime expiries tagged so that they
// follow the clock.
static uint64_t deadline_of(const struct timerfd *t)
{
	uint64_t exp = t->exp > 0 ? (uint64_t)t->exp : 0;

	if (!t->mono_base && (t->clockid == CLOCK_REALTIME || t->clockid == CLOCK_REALTIME_ALARM))
		return exp | DEADLINE_REALTIME;
	return exp;
}

static void start_locked(struct timerfd *t)
{
	ktimer_arm(&t->kt, deadline_of(t), 0);
	t->running = true;
}

static void stop_locked(struct timerfd *t)
{
	t->running = false;
	ktimer_cancel(&t->kt);		// a late expiry finds it stopped
}

// The hrtimer callback: one tick, readers woken.  True if it fired.
static bool fire_locked(struct timerfd *t)
{
	if (!t->running || t->exp > clock_now(t))
		return false;
	stop_locked(t);
	t->expired = true;
	t->ticks++;
	wq_wake_all(&t->wq);
	poll_event(&t->events, POLLIN);
	return true;
}

// Linux's timerfd_setup_cancel: an absolute realtime setting with
// TFD_TIMER_CANCEL_ON_SET may be cancelled by a clock change.
static void setup_cancel_locked(struct timerfd *t, int flags)
{
	bool want = (t->clockid == CLOCK_REALTIME || t->clockid == CLOCK_REALTIME_ALARM) &&
		    (flags & TFD_TIMER_ABSTIME) && (flags & TFD_TIMER_CANCEL_ON_SET);

	if (want && !t->might_cancel) {
		t->might_cancel = true;
		t->cancel_next = cancelable;
		cancelable = t;
	} else if (!want && t->might_cancel) {
		for (struct timerfd **pp = &cancelable; *pp; pp = &(*pp)->cancel_next) {
			if (*pp == t) {
				*pp = t->cancel_next;
				break;
			}
		}
		t->might_cancel = false;
	}
}

// Linux's timerfd_canceled: true once after a clock change cancelled it.
static bool canceled_locked(struct timerfd *t)
{
	if (!t->might_cancel || t->moffs != KTIME_MAX)
		return false;
	t->moffs = clock_realtime_offset();
	return true;
}

void timerfd_clock_was_set(void)
{
	int64_t moffs = clock_realtime_offset();
	bool any = false;
	uint64_t flags = spin_lock_irqsave(&timerfd_lock);

	for (struct timerfd *t = cancelable; t; t = t->cancel_next) {
		if (t->moffs != moffs) {
			t->moffs = KTIME_MAX;
			t->ticks++;
			wq_wake_all(&t->wq);
			poll_event(&t->events, POLLIN);
			any = true;
		}
	}
	spin_unlock_irqrestore(&timerfd_lock, flags);
	if (any)
		poll_notify();
}

// hrtimer_forward to now: the expiries the move past the present covers.
static uint64_t forward_locked(struct timerfd *t)
{
	return ktime_forward(&t->exp, t->interval, clock_now(t));
}

// A periodic timer that fired runs again from its next period; the
// periods it skipped count as ticks (read and gettime do this).
static void rearm_locked(struct timerfd *t)
{
	if (t->expired && t->interval) {
		t->ticks += forward_locked(t) - 1;
		start_locked(t);
	}
	t->expired = false;
}

static int64_t remaining_locked(struct timerfd *t)
{
	int64_t left = t->exp - clock_now(t);

	return left > 0 ? left : 0;
}

// The kernel timer: fire (or, if the expiry was moved later meanwhile,
// wait for the new one).
static void timerfd_fn(struct ktimer *kt)
{
	struct timerfd *t = (struct timerfd *)((char *)kt - offsetof(struct timerfd, kt));
	uint64_t flags = spin_lock_irqsave(&timerfd_lock);
	bool fired = fire_locked(t);

	if (!fired && t->running)
		ktimer_arm(&t->kt, deadline_of(t), 0);
	spin_unlock_irqrestore(&timerfd_lock, flags);
	if (fired)
		poll_notify();
}

static long timerfd_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			 size_t n)
{
	struct timerfd *t = vn->priv;
	uint64_t ticks = 0, flags;
	long rc = 0;

	(void)off;
	if (n < sizeof(ticks))
		return -EINVAL;
	flags = spin_lock_irqsave(&timerfd_lock);
	fire_locked(t);
	// The tick (or a poller) fires the timer and wakes us.
	while (!t->ticks && rc == 0) {
		if (f->flags & O_NONBLOCK)
			rc = -EAGAIN;
		else if (wq_wait(&t->wq, &timerfd_lock, WAIT_FOREVER, true))
			rc = -ERESTARTSYS;
		fire_locked(t);
	}
	// After a clock change the ticks mean nothing and the timer is not
	// rearmed: the caller must look at the clock again (Linux).
	if (canceled_locked(t)) {
		t->ticks = 0;
		t->expired = false;
		rc = -ECANCELED;
	}
	if (t->ticks) {
		rearm_locked(t);
		ticks = t->ticks;
		t->ticks = 0;
	}
	spin_unlock_irqrestore(&timerfd_lock, flags);
	if (!ticks)
		return rc;
	return iobuf_put(b, 0, &ticks, sizeof(ticks)) < 0 ? -EFAULT : (long)sizeof(ticks);
}

static int timerfd_poll(struct vnode *vn)
{
	struct timerfd *t = vn->priv;
	uint64_t flags = spin_lock_irqsave(&timerfd_lock);
	int mask;

	fire_locked(t);
	mask = t->ticks ? POLLIN : 0;
	spin_unlock_irqrestore(&timerfd_lock, flags);
	return mask;
}

// A due expiry is fired here as in timerfd_poll, so that the count read
// before the readiness already includes the expiry that readiness shows.
static uint64_t timerfd_poll_events(struct vnode *vn, uint32_t interest)
{
	struct timerfd *t = vn->priv;
	uint64_t flags = spin_lock_irqsave(&timerfd_lock);
	uint64_t events;

	fire_locked(t);
	events = poll_events_for(&t->events, interest);
	spin_unlock_irqrestore(&timerfd_lock, flags);
	return events;
}

// TFD_IOC_SET_TICKS (CONFIG_CHECKPOINT_RESTORE, which Debian's 6.1 has):
// the count of unread expirations becomes the argument.
static long timerfd_ioctl(struct vnode *vn, struct file *f, unsigned cmd, uint64_t arg)
{
	struct timerfd *t = vn->priv;
	uint64_t ticks, flags;

	(void)f;
	if (cmd != TFD_IOC_SET_TICKS)
		return -ENOTTY;
	if (copy_from_user(&ticks, arg, sizeof(ticks)) < 0)
		return -EFAULT;
	if (!ticks)
		return -EINVAL;
	flags = spin_lock_irqsave(&timerfd_lock);
	t->ticks = ticks;
	wq_wake_all(&t->wq);
	poll_event(&t->events, POLLIN);
	spin_unlock_irqrestore(&timerfd_lock, flags);
	poll_notify();
	return 0;
}

static void timerfd_fdinfo(struct vnode *vn, char *buf, size_t size)
{
	struct timerfd *t = vn->priv;
	uint64_t flags = spin_lock_irqsave(&timerfd_lock);
	int64_t left, interval = t->interval;

	fire_locked(t);
	left = remaining_locked(t);
	ksnprintf(buf, size,
		  "clockid: %d\nticks: %lu\nsettime flags: 0%o\nit_value: (%ld, %ld)\n"
		  "it_interval: (%ld, %ld)\n",
		  t->clockid, t->ticks, (unsigned)t->settime_flags, left / NSEC, left % NSEC,
		  interval / NSEC, interval % NSEC);
	spin_unlock_irqrestore(&timerfd_lock, flags);
}

static void timerfd_release(struct vnode *vn)
{
	struct timerfd *t = vn->priv;
	uint64_t flags = spin_lock_irqsave(&timerfd_lock);

	if (t->running)
		stop_locked(t);
	setup_cancel_locked(t, 0);
	spin_unlock_irqrestore(&timerfd_lock, flags);
	ktimer_cancel_sync(&t->kt);
	kfree(t);
}

static const struct vnode_ops timerfd_ops = {
	.read = timerfd_read,
	.poll = timerfd_poll,
	.poll_events = timerfd_poll_events,
	.ioctl = timerfd_ioctl,
	.open = anon_open,
	.release = timerfd_release,
	.fdinfo = timerfd_fdinfo,
	.anon_name = "timerfd",
};

SYSCALL_DEFINE(SYS_timerfd_create, timerfd_create)
{
	int clockid = (int)args->a[0], flags = (int)args->a[1];
	struct timerfd *t;
	struct file *f;

	if ((flags & ~(TFD_NONBLOCK | TFD_CLOEXEC)) ||
	    (clockid != CLOCK_REALTIME && clockid != CLOCK_MONOTONIC && clockid != CLOCK_BOOTTIME &&
	     clockid != CLOCK_REALTIME_ALARM && clockid != CLOCK_BOOTTIME_ALARM))
		return -EINVAL;
	if ((clockid == CLOCK_REALTIME_ALARM || clockid == CLOCK_BOOTTIME_ALARM) &&
	    !cred_capable(current_cred(), CAP_WAKE_ALARM))
		return -EPERM;
	t = kzalloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	ktimer_init(&t->kt, timerfd_fn);
	t->clockid = clockid;
	t->moffs = clock_realtime_offset();
	f = anon_file_new(&timerfd_ops, t, (uint32_t)flags);
	if (!f) {
		kfree(t);
		return -ENOMEM;
	}
	return anon_install(f, (uint32_t)flags);
}

// The timer behind fd: -EBADF, or -EINVAL for another kind of file; the
// caller drops *fp.
static int timerfd_get(int fd, struct file **fp, struct timerfd **tp)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	*tp = anon_priv(f, &timerfd_ops);
	if (!*tp) {
		file_put(f);
		return -EINVAL;
	}
	*fp = f;
	return 0;
}

// The current setting, after the time is asked for (a fired periodic
// timer moves on, as gettime does on Linux).
static struct itimerspec64 current_value_locked(struct timerfd *t)
{
	fire_locked(t);
	if (t->expired && t->interval)
		rearm_locked(t);
	return (struct itimerspec64){ ns_timespec64(t->interval), ns_timespec64(remaining_locked(t)) };
}

// Linux's timerfd_setup: the new setting, ticks forgotten.
static void setup_locked(struct timerfd *t, int flags, const struct itimerspec64 *v)
{
	int64_t value = timespec64_ns(&v->value);

	setup_cancel_locked(t, flags);
	if (t->running)
		stop_locked(t);
	t->expired = false;
	t->ticks = 0;
	t->interval = timespec64_ns(&v->interval);
	t->mono_base = t->clockid == CLOCK_REALTIME && !(flags & TFD_TIMER_ABSTIME);
	t->exp = value;
	if (value) {
		if (!(flags & TFD_TIMER_ABSTIME))
			t->exp = ktime_add_safe(clock_now(t), value);
		start_locked(t);
		fire_locked(t);		// an expiry already past fires at once
	}
	t->settime_flags = flags & TFD_SETTIME_FLAGS;
	wq_wake_all(&t->wq);
}

SYSCALL_DEFINE(SYS_timerfd_settime, timerfd_settime)
{
	int fd = (int)args->a[0], flags = (int)args->a[1];
	struct itimerspec64 nv, ov;
	struct timerfd *t;
	struct file *f;
	uint64_t irq;
	int rc;

	if (copy_from_user(&nv, args->a[2], sizeof(nv)) < 0)
		return -EFAULT;
	if ((flags & ~TFD_SETTIME_FLAGS) || !timespec64_valid(&nv.value) || !timespec64_valid(&nv.interval))
		return -EINVAL;
	rc = timerfd_get(fd, &f, &t);
	if (rc)
		return rc;
	if (is_alarm(t) && !cred_capable(current_cred(), CAP_WAKE_ALARM)) {
		file_put(f);
		return -EPERM;
	}
	irq = spin_lock_irqsave(&timerfd_lock);
	fire_locked(t);
	if (t->expired && t->interval)
		forward_locked(t);	// the old value is the next period's
	ov = (struct itimerspec64){ ns_timespec64(t->interval), ns_timespec64(remaining_locked(t)) };
	setup_locked(t, flags, &nv);
	spin_unlock_irqrestore(&timerfd_lock, irq);
	file_put(f);
	poll_notify();
	// Set already, as on Linux, when the old value cannot be written.
	if (args->a[3] && copy_to_user(args->a[3], &ov, sizeof(ov)) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE(SYS_timerfd_gettime, timerfd_gettime)
{
	struct itimerspec64 cur;
	struct timerfd *t;
	struct file *f;
	uint64_t irq;
	int rc = timerfd_get((int)args->a[0], &f, &t);

	if (rc)
		return rc;
	irq = spin_lock_irqsave(&timerfd_lock);
	cur = current_value_locked(t);
	spin_unlock_irqrestore(&timerfd_lock, irq);
	file_put(f);
	return copy_to_user(args->a[1], &cur, sizeof(cur)) < 0 ? -EFAULT : 0;
}
