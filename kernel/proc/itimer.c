// Interval timers: ITIMER_REAL (setitimer, getitimer, alarm) sends SIGALRM
// to the process when it expires, from a kernel timer of the process's
// own (include/kernel/ktimer.h).
// ITIMER_VIRTUAL and ITIMER_PROF count the process's CPU time instead
// (kernel/proc/cpu_clocks.c); the tick of a CPU running the process
// fires them.

#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/uaccess.h>
#include <kernel/time.h>
#include <kernel/cpu.h>
#include <kernel/cputime.h>
#include <kernel/ktimer.h>
#include <uapi/errno.h>
#include <stddef.h>

#define ITIMER_REAL	0
#define ITIMER_VIRTUAL	1
#define ITIMER_PROF	2

#define USEC 1000ULL
#define SEC 1000000000ULL

struct timeval64 {
	int64_t sec, usec;
};

struct itimerval64 {
	struct timeval64 interval, value;
};

static struct spinlock itimer_lock = SPINLOCK_INIT("itimer");

// The timer's function, on the CPU that armed it.  Under the lock the
// timer is still wanted only if armed and due (a setitimer that raced
// with it has re-armed or disarmed it, and cancelled this expiry).
static void itimer_fn(struct ktimer *kt)
{
	struct process *p = (struct process *)((char *)kt - offsetof(struct process, itimer_timer));
	uint64_t flags = spin_lock_irqsave(&itimer_lock);
	uint64_t now = clock_monotonic_ns();

	if (!p->itimer_armed || p->itimer_deadline > now) {
		spin_unlock_irqrestore(&itimer_lock, flags);
		return;
	}
	if (p->itimer_interval) {
		p->itimer_deadline = now + p->itimer_interval;
		ktimer_arm(&p->itimer_timer, p->itimer_deadline, 0);
	} else {
		p->itimer_armed = false;
	}
	struct ksiginfo info = { .signo = SIGALRM, .code = SI_KERNEL };
	signal_send_process(p, SIGALRM, &info);
	spin_unlock_irqrestore(&itimer_lock, flags);
}

void itimer_init(struct process *p)
{
	ktimer_init(&p->itimer_timer, itimer_fn);
}

// Disarms p's timer (exit), and waits out an expiry running elsewhere:
// the process may be freed next.
void itimer_cancel(struct process *p)
{
	uint64_t flags = spin_lock_irqsave(&itimer_lock);
	p->itimer_armed = false;
	spin_unlock_irqrestore(&itimer_lock, flags);
	ktimer_cancel_sync(&p->itimer_timer);
}

// Longer than any timer can run (292 years), as Linux's KTIME_MAX: a
// larger value saturates here instead of wrapping into a short one, and
// now + NEVER cannot overflow.
#define NEVER ((uint64_t)INT64_MAX)

// A valid (non-negative, usec < 10^6) timeval in ns, saturated at NEVER.
static uint64_t tv_ns(const struct timeval64 *tv)
{
	if ((uint64_t)tv->sec >= NEVER / SEC)
		return NEVER;
	return (uint64_t)tv->sec * SEC + (uint64_t)tv->usec * USEC;
}

static struct timeval64 ns_tv(uint64_t ns)
{
	return (struct timeval64){ (int64_t)(ns / SEC), (int64_t)(ns % SEC / USEC) };
}

// Sets (new_value) and reports (old) the process's real timer.
static void itimer_swap(struct process *p, uint64_t value, uint64_t interval,
			uint64_t *old_value, uint64_t *old_interval)
{
	uint64_t now = clock_monotonic_ns();
	uint64_t flags = spin_lock_irqsave(&itimer_lock);

	*old_value = p->itimer_armed && p->itimer_deadline > now ? p->itimer_deadline - now : 0;
	if (p->itimer_armed && !*old_value)
		*old_value = 1;
	*old_interval = p->itimer_interval;
	p->itimer_armed = false;
	ktimer_cancel(&p->itimer_timer);
	p->itimer_interval = interval;
	if (value) {
		p->itimer_deadline = now + value > now ? now + value : NEVER;
		p->itimer_armed = true;
		ktimer_arm(&p->itimer_timer, p->itimer_deadline, 0);
	}
	spin_unlock_irqrestore(&itimer_lock, flags);
}

SYSCALL_DEFINE(SYS_setitimer, setitimer)
{
	struct itimerval64 nv = { 0 }, ov;
	uint64_t old_value, old_interval;

	int which = (int)args->a[0];

	if (which < ITIMER_REAL || which > ITIMER_PROF)
		return -EINVAL;
	if (args->a[1] && copy_from_user(&nv, args->a[1], sizeof(nv)) < 0)
		return -EFAULT;
	if (nv.value.usec < 0 || nv.value.usec >= 1000000 || nv.interval.usec < 0 ||
	    nv.interval.usec >= 1000000 || nv.value.sec < 0 || nv.interval.sec < 0)
		return -EINVAL;
	if (which == ITIMER_REAL)
		itimer_swap(current_process(), tv_ns(&nv.value), tv_ns(&nv.interval), &old_value,
			    &old_interval);
	else
		cpu_itimer_swap(current_process(), which, tv_ns(&nv.value), tv_ns(&nv.interval),
				&old_value, &old_interval);
	ov.value = ns_tv(old_value);
	ov.interval = ns_tv(old_interval);
	if (args->a[2] && copy_to_user(args->a[2], &ov, sizeof(ov)) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE(SYS_getitimer, getitimer)
{
	struct process *p = current_process();
	struct itimerval64 ov = { 0 };

	if ((int)args->a[0] < 0 || (int)args->a[0] > ITIMER_PROF)
		return -EINVAL;
	if ((int)args->a[0] == ITIMER_REAL) {
		uint64_t now = clock_monotonic_ns();
		uint64_t flags = spin_lock_irqsave(&itimer_lock);
		if (p->itimer_armed)
			ov.value = ns_tv(p->itimer_deadline > now ? p->itimer_deadline - now : 1);
		ov.interval = ns_tv(p->itimer_interval);
		spin_unlock_irqrestore(&itimer_lock, flags);
	} else {
		uint64_t value, interval;
		cpu_itimer_get(p, (int)args->a[0], &value, &interval);
		ov.value = ns_tv(value);
		ov.interval = ns_tv(interval);
	}
	return copy_to_user(args->a[1], &ov, sizeof(ov)) < 0 ? -EFAULT : 0;
}

SYSCALL_DEFINE(SYS_alarm, alarm)
{
	uint64_t old_value, old_interval;

	// alarm(unsigned int seconds): the upper half of the register is not
	// part of the value; 2^32 - 1 seconds fit in ns.
	itimer_swap(current_process(), (uint64_t)(uint32_t)args->a[0] * SEC, 0, &old_value,
		    &old_interval);
	// Whole seconds left, rounded up as Linux does.
	return (long)((old_value + SEC - 1) / SEC);
}
