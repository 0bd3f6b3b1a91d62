// POSIX per-process timers: timer_create, timer_settime, timer_gettime,
// timer_getoverrun, timer_delete, as Linux 6.1's kernel/time/posix-timers.c.
//
// The model is Linux's.  A timer keeps a queue entry for its signal from
// creation on (charged to the user's RLIMIT_SIGPENDING then: EAGAIN when
// there is no room, never a lost signal later).  When it expires its
// signal is queued; a periodic timer is not rearmed until the signal is
// taken (delivered, sigtimedwait, signalfd): then it is moved past the
// present by whole intervals, and the intervals that went by meanwhile
// are the overrun, which the taken siginfo carries in si_overrun and
// timer_getoverrun reports until the next delivery.  Expiring while its
// signal is still queued (after a settime) counts an overrun too.  A
// signal the process ignores is not queued, and a periodic timer then
// runs on by itself (its overruns are never reported), as Linux's.
//
// Expiry: an armed timer on a clock of time (realtime, monotonic, boot
// time and their alarm variants) has a kernel timer of its own
// (include/kernel/ktimer.h; a realtime one follows clock_settime), so it
// fires at its time, never early.  Timers on CPU-time clocks cannot be
// put on a clock of time: they read their clock (kernel/proc/
// cpu_clocks.c: a process's or thread's time as of its last transition,
// at most a tick old) from one polling timer that runs every tick while
// any is armed, so they fire within about two ticks of the clock passing
// the expiry.  All armed timers are on one list (the arithmetic is
// include/kernel/ktime.h, shared with timerfd).
//
// Timer ids are per process, counting up from 0 (kept across exec, not
// reused until the count wraps), as Linux's.  Timers are deleted at exec
// and exit and not inherited by fork.  One lock serves all timers: they
// are few.

#include <kernel/cred.h>
#include <kernel/cputime.h>
#include <kernel/ktime.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/signal.h>
#include <kernel/syscall.h>
#include <kernel/thread.h>
#include <kernel/uaccess.h>
#include <lib/printf.h>
#include <mm/kmalloc.h>
#include <kernel/ktimer.h>
#include <kernel/time.h>
#include <uapi/errno.h>
#include <stddef.h>

#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID	3
#define CLOCK_MONOTONIC_RAW	4
#define CLOCK_REALTIME_COARSE	5
#define CLOCK_MONOTONIC_COARSE	6
#define TIMER_ABSTIME		1

#define SIGEV_SIGNAL		0
#define SIGEV_NONE		1
#define SIGEV_THREAD		2
#define SIGEV_THREAD_ID		4

#define REQUEUE_PENDING		1

// struct sigevent of Linux x86-64 (64 bytes).
struct user_sigevent {
	uint64_t value;
	int32_t signo;
	int32_t notify;
	int32_t tid;			// sigev_notify_thread_id
	int32_t pad[11];
};
_Static_assert(sizeof(struct user_sigevent) == 64, "struct sigevent is 64 bytes");

struct ptimer {
	int id;
	int clockid;
	int notify;			// SIGEV_*
	int tid;			// SIGEV_THREAD_ID: the thread signalled
	struct process *owner;
	struct sigqueue *sigq;		// the signal's preallocated entry
	bool cpu;			// on a CPU-time clock: cpu_clock below
	struct cpu_clock_target cpu_clock;
	// Under ptimer_lock:
	int64_t exp;			// expiry in the clock's ns
	int64_t interval;		// 0: one-shot
	bool mono_base;			// CLOCK_REALTIME set relative: counts on MONOTONIC
	bool armed;			// on the 'armed' list
	struct ktimer kt;		// not a CPU clock: fires it
	int64_t overrun;		// intervals skipped since the last rearm (-1 based)
	int64_t overrun_last;		// what the last delivery reported
	int requeue_pending;		// Linux's it_requeue_pending: odd while fired
	struct ptimer *next_armed;	// on 'armed'
	struct ptimer *next;		// on owner->posix_timers
};

static struct spinlock ptimer_lock = SPINLOCK_INIT("posix_timers");
static struct ptimer *armed;
static void cpu_clock_poll_fn(struct ktimer *kt);
static void ptimer_fn(struct ktimer *kt);
// Runs while a CPU-clock timer is armed.
static struct ktimer cpu_clock_poll = { .fn = cpu_clock_poll_fn };

// The clock's time now; false if it is gone (a CPU clock's process or
// thread ended: it never advances again).
static bool clock_now(const struct ptimer *t, int64_t *now)
{
	if (t->cpu) {
		uint64_t ns;

		if (!cpu_clock_target_read(&t->cpu_clock, &ns))
			return false;
		*now = (int64_t)(ns & INT64_MAX);
		return true;
	}
	*now = ktime_now(t->clockid, t->mono_base);
	return true;
}

// The kernel timer's deadline for t's expiry: realtime ones tagged so
// they move with the clock.
static uint64_t deadline_of(const struct ptimer *t)
{
	uint64_t exp = t->exp > 0 ? (uint64_t)t->exp : 0;

	if (!t->mono_base && (t->clockid == KT_CLOCK_REALTIME || t->clockid == KT_CLOCK_REALTIME_ALARM))
		return exp | DEADLINE_REALTIME;
	return exp;
}

static void arm_locked(struct ptimer *t)
{
	if (t->cpu) {
		if (!ktimer_queued(&cpu_clock_poll))
			ktimer_arm(&cpu_clock_poll, clock_monotonic_ns() + tick_period_ns(), 0);
	} else {
		ktimer_arm(&t->kt, deadline_of(t), 0);
	}
	if (t->armed)
		return;
	t->armed = true;
	t->next_armed = armed;
	armed = t;
}

static void disarm_locked(struct ptimer *t)
{
	if (!t->armed)
		return;
	for (struct ptimer **pp = &armed; *pp; pp = &(*pp)->next_armed) {
		if (*pp == t) {
			*pp = t->next_armed;
			break;
		}
	}
	t->armed = false;
	ktimer_cancel(&t->kt);		// a late expiry finds it disarmed
}

// Sends the signal; true if it was ignored (Linux's posix_timer_event).
static bool send_locked(struct ptimer *t, int sys_private)
{
	bool ignored;

	if (!(t->notify & SIGEV_THREAD_ID))
		return signal_send_timer(t->owner, NULL, t->sigq, sys_private) > 0;
	// A thread named by id: gone (or its id reused elsewhere), nothing
	// is sent and the timer stops, as Linux's send_sigqueue to a dead
	// task.
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	struct thread *th = thread_find(t->tid);

	ignored = th && th->proc == t->owner &&
		  signal_send_timer(t->owner, th, t->sigq, sys_private) > 0;
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return ignored;
}

// Expiry (Linux's posix_timer_fn): off the list, the signal sent; a
// periodic timer whose signal was ignored moves on by itself.
static void fire_locked(struct ptimer *t, int64_t now)
{
	int sys_private = 0;

	disarm_locked(t);
	if (t->interval)
		sys_private = ++t->requeue_pending;
	if (send_locked(t, sys_private) && t->interval) {
		t->overrun += (int64_t)ktime_forward(&t->exp, t->interval, now);
		++t->requeue_pending;
		arm_locked(t);
	}
}

// A timer on a clock of time is due (or was, before a setting that
// cancelled this expiry: then it is no longer armed, or not yet due).
static void ptimer_fn(struct ktimer *kt)
{
	struct ptimer *t = (struct ptimer *)((char *)kt - offsetof(struct ptimer, kt));
	uint64_t flags = spin_lock_irqsave(&ptimer_lock);
	int64_t now;

	if (t->armed && clock_now(t, &now)) {
		if (now >= t->exp)
			fire_locked(t, now);
		else
			ktimer_arm(&t->kt, deadline_of(t), 0);
	}
	spin_unlock_irqrestore(&ptimer_lock, flags);
}

// Every tick while timers on CPU-time clocks are armed.
static void cpu_clock_poll_fn(struct ktimer *kt)
{
	bool any = false;
	uint64_t flags = spin_lock_irqsave(&ptimer_lock);

	for (struct ptimer *t = armed, *next; t; t = next) {
		int64_t now;

		next = t->next_armed;
		if (!t->cpu)
			continue;
		if (clock_now(t, &now) && now >= t->exp)
			fire_locked(t, now);
		any |= t->armed;
	}
	if (any && !ktimer_queued(kt))
		ktimer_arm(kt, clock_monotonic_ns() + tick_period_ns(), 0);
	spin_unlock_irqrestore(&ptimer_lock, flags);
}

static int overrun_int(int64_t last, int64_t base)
{
	int64_t sum = last + base;

	return sum > INT32_MAX ? INT32_MAX : (int)sum;
}

// Linux's posixtimer_rearm, after the signal was taken off.
void posix_timer_rearm(struct ksiginfo *info)
{
	if (!info->timer || !info->sys_private)
		return;
	struct process *p = current_process();
	uint64_t flags = spin_lock_irqsave(&ptimer_lock);
	struct ptimer *t = p->posix_timers;
	int64_t now;

	while (t && t->id != info->timerid)
		t = t->next;
	if (t && t->interval && t->requeue_pending == info->sys_private && clock_now(t, &now)) {
		t->overrun += (int64_t)ktime_forward(&t->exp, t->interval, now);
		arm_locked(t);
		t->overrun_last = t->overrun;
		t->overrun = -1;
		++t->requeue_pending;
		info->overrun = overrun_int(t->overrun_last, info->overrun);
	}
	spin_unlock_irqrestore(&ptimer_lock, flags);
}

// Linux's common_timer_get: the interval and the time left.  A periodic
// timer whose signal is pending (or a SIGEV_NONE one) is moved past the
// present first; one due but not fired shows 1 ns left.
static struct itimerspec64 get_locked(struct ptimer *t)
{
	struct itimerspec64 cur = { ns_timespec64(t->interval), { 0, 0 } };
	bool none = t->notify == SIGEV_NONE;
	int64_t now, left;

	if (!t->interval && !t->armed && !none)
		return cur;
	if (!t->interval && none && !t->exp)
		return cur;
	if (!clock_now(t, &now)) {
		// A CPU clock that stopped for good: the expiry stays ahead.
		return cur;
	}
	if (t->interval && ((t->requeue_pending & REQUEUE_PENDING) || none))
		t->overrun += (int64_t)ktime_forward(&t->exp, t->interval, now);
	left = t->exp - now;
	if (left <= 0) {
		if (!none)
			cur.value.nsec = 1;
	} else {
		cur.value = ns_timespec64(left);
	}
	return cur;
}

static struct ptimer *find_locked(struct process *p, int id)
{
	struct ptimer *t = p->posix_timers;

	while (t && t->id != id)
		t = t->next;
	return t;
}

// Which clocks take timers: -EINVAL for no such clock, -EOPNOTSUPP for
// one without timers (Linux's k_clocks without timer_create).
static int check_clock(int id)
{
	if (id < 0)
		return (id & 7) == 3 ? -EOPNOTSUPP : 0;	// 3: a clock fd (none exist)
	switch (id) {
	case KT_CLOCK_REALTIME:
	case KT_CLOCK_MONOTONIC:
	case CLOCK_PROCESS_CPUTIME_ID:
	case CLOCK_THREAD_CPUTIME_ID:
	case KT_CLOCK_BOOTTIME:
	case KT_CLOCK_REALTIME_ALARM:
	case KT_CLOCK_BOOTTIME_ALARM:
		return 0;
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_MONOTONIC_COARSE:
		return -EOPNOTSUPP;
	default:	// CLOCK_TAI too: no TAI clock here (clock_gettime: EINVAL)
		return -EINVAL;
	}
}

// Linux's good_sigevent.
static bool good_sigevent(const struct user_sigevent *ev)
{
	switch (ev->notify) {
	case SIGEV_SIGNAL | SIGEV_THREAD_ID: {
		uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
		struct thread *th = thread_find(ev->tid);
		bool mine = th && th->proc == current_process();

		spin_unlock_irqrestore(&proc_tree_lock, flags);
		if (!mine)
			return false;
	}
		__attribute__((fallthrough));
	case SIGEV_SIGNAL:
	case SIGEV_THREAD:
		return ev->signo > 0 && ev->signo <= NSIG;
	case SIGEV_NONE:
		return true;
	default:
		return false;
	}
}

// Takes t off its process's list and frees it.  ptimer_lock held.
static void unlink_locked(struct ptimer *t)
{
	disarm_locked(t);
	for (struct ptimer **pp = &t->owner->posix_timers; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
}

// t is off every list: wait out an expiry that may be running.
static void release(struct ptimer *t)
{
	ktimer_cancel_sync(&t->kt);
	sigqueue_free_timer(t->owner, t->sigq);
	kfree(t);
}

SYSCALL_DEFINE(SYS_timer_create, timer_create)
{
	int clockid = (int)args->a[0];
	struct process *p = current_process();
	struct user_sigevent ev;
	struct ptimer *t;
	uint64_t flags;
	int rc;

	if (args->a[1] && copy_from_user(&ev, args->a[1], sizeof(ev)) < 0)
		return -EFAULT;
	if ((rc = check_clock(clockid)) < 0)
		return rc;
	t = kzalloc(sizeof(*t));
	if (!t)
		return -EAGAIN;
	ktimer_init(&t->kt, ptimer_fn);
	t->sigq = sigqueue_alloc_timer(p);
	if (!t->sigq) {
		kfree(t);
		return -EAGAIN;
	}
	// The id is taken now and stays used even if what follows fails.
	flags = spin_lock_irqsave(&ptimer_lock);
	for (;;) {
		t->id = p->posix_timer_next_id;
		p->posix_timer_next_id = t->id == INT32_MAX ? 0 : t->id + 1;
		if (!find_locked(p, t->id))
			break;
	}
	spin_unlock_irqrestore(&ptimer_lock, flags);
	t->clockid = clockid;
	t->owner = p;
	t->overrun = -1;
	t->sigq->info.code = SI_TIMER;
	t->sigq->info.timerid = t->id;
	if (args->a[1]) {
		rc = good_sigevent(&ev) ? 0 : -EINVAL;
		t->notify = ev.notify;
		t->tid = ev.tid;
		t->sigq->info.signo = ev.signo;
		t->sigq->info.value = ev.value;
	} else {
		t->notify = SIGEV_SIGNAL;
		t->sigq->info.signo = SIGALRM;
		t->sigq->info.value = (uint64_t)(uint32_t)t->id;	// sival_int
	}
	if (rc == 0 && copy_to_user(args->a[2], &t->id, sizeof(t->id)) < 0)
		rc = -EFAULT;
	if (rc == 0 && cpu_clock_id(clockid)) {
		t->cpu = true;
		rc = cpu_clock_target(clockid, &t->cpu_clock);
	}
	if (rc == 0 && ktime_is_alarm(clockid) && !cred_capable(current_cred(), CAP_WAKE_ALARM))
		rc = -EPERM;
	if (rc < 0) {
		release(t);
		return rc;
	}
	flags = spin_lock_irqsave(&ptimer_lock);
	t->next = p->posix_timers;
	p->posix_timers = t;
	spin_unlock_irqrestore(&ptimer_lock, flags);
	return 0;
}

SYSCALL_DEFINE(SYS_timer_settime, timer_settime)
{
	int id = (int)args->a[0], tflags = (int)args->a[1];
	struct process *p = current_process();
	struct itimerspec64 nv, ov;
	struct ptimer *t;
	int64_t value, now;
	uint64_t flags;

	if (!args->a[2])
		return -EINVAL;
	if (copy_from_user(&nv, args->a[2], sizeof(nv)) < 0)
		return -EFAULT;
	if (!timespec64_valid(&nv.interval) || !timespec64_valid(&nv.value))
		return -EINVAL;
	flags = spin_lock_irqsave(&ptimer_lock);
	t = find_locked(p, id);
	if (!t) {
		spin_unlock_irqrestore(&ptimer_lock, flags);
		return -EINVAL;
	}
	ov = get_locked(t);
	// Linux's common_timer_set: stopped, a pending signal's rearm
	// forgotten, then armed anew.
	t->interval = 0;
	disarm_locked(t);
	t->requeue_pending = (t->requeue_pending + 2) & ~REQUEUE_PENDING;
	t->overrun_last = 0;
	t->exp = 0;
	value = timespec64_ns(&nv.value);
	if (value) {
		t->interval = timespec64_ns(&nv.interval);
		t->mono_base = t->clockid == KT_CLOCK_REALTIME && !(tflags & TIMER_ABSTIME);
		if (!clock_now(t, &now))
			now = 0;
		t->exp = tflags & TIMER_ABSTIME ? value : ktime_add_safe(now, value);
		if (t->notify != SIGEV_NONE) {
			arm_locked(t);
			if (t->exp <= now)	// already due: fires at once
				fire_locked(t, now);
		}
	}
	spin_unlock_irqrestore(&ptimer_lock, flags);
	// Set already, as on Linux, when the old value cannot be written.
	if (args->a[3] && copy_to_user(args->a[3], &ov, sizeof(ov)) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE(SYS_timer_gettime, timer_gettime)
{
	struct itimerspec64 cur;
	struct ptimer *t;
	uint64_t flags = spin_lock_irqsave(&ptimer_lock);

	t = find_locked(current_process(), (int)args->a[0]);
	if (t)
		cur = get_locked(t);
	spin_unlock_irqrestore(&ptimer_lock, flags);
	if (!t)
		return -EINVAL;
	return copy_to_user(args->a[1], &cur, sizeof(cur)) < 0 ? -EFAULT : 0;
}

SYSCALL_DEFINE(SYS_timer_getoverrun, timer_getoverrun)
{
	struct ptimer *t;
	long rc = -EINVAL;
	uint64_t flags = spin_lock_irqsave(&ptimer_lock);

	t = find_locked(current_process(), (int)args->a[0]);
	if (t)
		rc = overrun_int(t->overrun_last, 0);
	spin_unlock_irqrestore(&ptimer_lock, flags);
	return rc;
}

SYSCALL_DEFINE(SYS_timer_delete, timer_delete)
{
	struct ptimer *t;
	uint64_t flags = spin_lock_irqsave(&ptimer_lock);

	t = find_locked(current_process(), (int)args->a[0]);
	if (t)
		unlink_locked(t);
	spin_unlock_irqrestore(&ptimer_lock, flags);
	if (!t)
		return -EINVAL;
	release(t);
	return 0;
}

// Every timer of p deleted (exec, exit: Linux's exit_itimers).  A signal
// already queued stays pending.
void posix_timers_exit(struct process *p)
{
	for (;;) {
		uint64_t flags = spin_lock_irqsave(&ptimer_lock);
		struct ptimer *t = p->posix_timers;

		if (t)
			unlink_locked(t);
		spin_unlock_irqrestore(&ptimer_lock, flags);
		if (!t)
			return;
		release(t);
	}
}

// /proc/PID/timers, as Linux's show_timer (newest first), of the process
// pid that started at start_ns (0: any): the length written (size when
// it did not fit), or -ESRCH.
long posix_timers_show(int pid, uint64_t start_ns, char *buf, size_t size)
{
	static const char *const how[] = { "signal", "none", "thread" };
	size_t n = 0;
	uint64_t flags = spin_lock_irqsave(&ptimer_lock);
	uint64_t tf = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = process_find(pid);

	if (!p || (start_ns && p->start_ns != start_ns)) {
		spin_unlock_irqrestore(&proc_tree_lock, tf);
		spin_unlock_irqrestore(&ptimer_lock, flags);
		return -ESRCH;
	}
	for (struct ptimer *t = p->posix_timers; t && n < size; t = t->next) {
		int kind = t->notify & ~SIGEV_THREAD_ID;
		bool thread = t->notify & SIGEV_THREAD_ID;

		n += (size_t)ksnprintf(buf + n, size - n,
				       "ID: %d\nsignal: %d/%016lx\nnotify: %s/%s.%d\nClockID: %d\n",
				       t->id, t->sigq->info.signo, t->sigq->info.value,
				       kind >= 0 && kind <= 2 ? how[kind] : "?", thread ? "tid" : "pid",
				       thread ? t->tid : p->pid, t->clockid);
		if (n >= size)
			n = size;
	}
	spin_unlock_irqrestore(&proc_tree_lock, tf);
	spin_unlock_irqrestore(&ptimer_lock, flags);
	return (long)n;
}
