// The CPU-time clocks and timers: CLOCK_PROCESS_CPUTIME_ID,
// CLOCK_THREAD_CPUTIME_ID and the clock ids of other processes and
// threads (clock_gettime, clock_getres, clock_nanosleep), and the
// process's ITIMER_VIRTUAL and ITIMER_PROF (setitimer, getitimer; the
// tick fires them, kernel/proc/cputime.c).
//
// Clock ids as Linux encodes them (clock_getcpuclockid,
// pthread_getcpuclockid): a negative id holds ~pid << 3, bit 2 for a
// thread's clock and in bits 0-1 what it counts: 0 PROF (user + system),
// 1 VIRT (user), 2 SCHED (run time: user + system here).  pid 0 means
// the caller.  A thread's clock must be one of the caller's threads.

#include <kernel/cputime.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/thread.h>
#include <kernel/cpu.h>
#include <kernel/time.h>
#include <kernel/wait.h>
#include <kernel/uaccess.h>
#include <uapi/errno.h>

#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID	3
#define TIMER_ABSTIME		1

#define CPUCLOCK_PROF		0
#define CPUCLOCK_VIRT		1
#define CPUCLOCK_SCHED		2
#define CPUCLOCK_MAX		3
#define CPUCLOCK_PERTHREAD	4

#define NSEC 1000000000ULL

bool cpu_clock_id(int id)
{
	return id < 0 || id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID;
}

// The id of the caller's own process or thread run-time clock.
static int self_clock(int id)
{
	int c = (int)(~0u << 3) | CPUCLOCK_SCHED;	// pid 0

	return id == CLOCK_THREAD_CPUTIME_ID ? c | CPUCLOCK_PERTHREAD : c;
}

// Reads CPU clock 'id' (a negative one, normalized) in ns; -EINVAL for a
// clock that does not exist.  'gettime': a process clock may also name
// the caller by its thread id (Linux allows that for reading only).
static int read_clock(int id, bool gettime, uint64_t *ns)
{
	int which = id & 3, pid = ~(id >> 3);
	bool thread = id & CPUCLOCK_PERTHREAD;
	struct thread *me = current_thread();
	uint64_t user, sys;
	int rc = 0;

	if (which >= CPUCLOCK_MAX)
		return -EINVAL;
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	if (thread) {
		struct thread *t = pid ? thread_find(pid) : me;
		if (t && t->proc == me->proc)
			acct_thread_times(t, &user, &sys);
		else
			rc = -EINVAL;
	} else {
		struct process *p = pid ? process_find(pid) : me->proc;
		if (!p && gettime && pid == me->tid)
			p = me->proc;
		if (p)
			acct_process_times(p, &user, &sys);
		else
			rc = -EINVAL;
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	if (rc == 0)
		*ns = which == CPUCLOCK_VIRT ? user : user + sys;
	return rc;
}

int cpu_clock_target(int id, struct cpu_clock_target *tgt)
{
	struct thread *me = current_thread();
	int rc = 0;

	if (id >= 0)
		id = self_clock(id);
	int which = id & 3, pid = ~(id >> 3);
	bool thread = id & CPUCLOCK_PERTHREAD;

	if (which >= CPUCLOCK_MAX)
		return -EINVAL;
	*tgt = (struct cpu_clock_target){ .thread = thread, .virt = which == CPUCLOCK_VIRT,
					  .owner = me->proc };
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	if (thread) {
		struct thread *t = pid ? thread_find(pid) : me;
		if (t && t->proc == me->proc)
			tgt->id = t->tid;
		else
			rc = -EINVAL;
	} else {
		struct process *p = pid ? process_find(pid) : me->proc;
		if (p) {
			tgt->id = p->pid;
			tgt->start_ns = acct_start_ns(p);
		} else {
			rc = -EINVAL;
		}
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return rc;
}

bool cpu_clock_target_read(const struct cpu_clock_target *tgt, uint64_t *ns)
{
	uint64_t user, sys;
	bool found = false;
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);

	if (tgt->thread) {
		struct thread *t = thread_find(tgt->id);
		if (t && t->proc == tgt->owner && !t->acct.gone) {
			acct_thread_times(t, &user, &sys);
			found = true;
		}
	} else {
		struct process *p = process_find(tgt->id);
		if (p && acct_start_ns(p) == tgt->start_ns) {
			acct_process_times(p, &user, &sys);
			found = true;
		}
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	if (found)
		*ns = tgt->virt ? user : user + sys;
	return found;
}

int cpu_clock_read(int id, uint64_t *ns)
{
	return read_clock(id < 0 ? id : self_clock(id), true, ns);
}

// The run-time clocks count every cycle; PROF and VIRT are what the
// tick-driven timers see, as on Linux.
int cpu_clock_res(int id, uint64_t *ns)
{
	uint64_t unused;
	int rc = read_clock(id < 0 ? id : self_clock(id), false, &unused);

	if (rc < 0)
		return rc;
	*ns = id >= 0 || (id & 3) == CPUCLOCK_SCHED ? 1 : (NSEC + timer_hz - 1) / timer_hz;
	return 0;
}

// clock_nanosleep on a CPU clock: sleeps until the clock reaches the
// deadline.  The clock advances at most ncpus_online times as fast as
// the wall clock, so a wall-clock sleep of what is left divided by that
// never overshoots by more than a tick; then the clock is read again.
// As Linux: CLOCK_THREAD_CPUTIME_ID has no sleep (EOPNOTSUPP; libc says
// EINVAL), and neither has the caller's own thread clock by id (EINVAL):
// it would never advance.
long cpu_clock_nanosleep(int id, int flags, uint64_t ureq, uint64_t urem)
{
	uint64_t req, now;
	int pid = ~(id >> 3);

	if (id == CLOCK_THREAD_CPUTIME_ID || (id < 0 && (id & 7) == 3))
		return -EOPNOTSUPP;	// no sleep on these, as Linux (3: clock fds)
	int r = get_timespec_ns(ureq, &req);
	if (r < 0)
		return r;
	if (id < 0 && (id & CPUCLOCK_PERTHREAD) && (pid == 0 || pid == current_thread()->tid))
		return -EINVAL;
	if (id >= 0)
		id = self_clock(id);
	if ((r = read_clock(id, false, &now)) < 0)
		return r;
	uint64_t deadline = flags & TIMER_ABSTIME ? req : now + req;
	uint64_t tick = NSEC / timer_hz;
	while (now < deadline) {
		uint64_t wall = (deadline - now) / (uint64_t)ncpus_online;
		wall = wall > tick ? wall : tick;
		r = wq_wait(0, 0, clock_monotonic_ns() + wall, true);
		// The clock's owner gone (reaped, exited): the clock stops, and
		// as on Linux only a signal ends the sleep.
		if (r != -EINTR && read_clock(id, false, &now) < 0) {
			while (wq_wait(0, 0, WAIT_FOREVER, true) != -EINTR)
				;
			return -EINTR;
		}
		if (r == -EINTR) {
			if (!(flags & TIMER_ABSTIME) && urem) {
				struct { int64_t sec, nsec; } ts;
				uint64_t left = deadline > now ? deadline - now : 0;
				ts.sec = (int64_t)(left / NSEC);
				ts.nsec = (int64_t)(left % NSEC);
				if (copy_to_user(urem, &ts, sizeof(ts)) < 0)
					return -EFAULT;
			}
			return -EINTR;
		}
	}
	return 0;
}

// ---- ITIMER_VIRTUAL and ITIMER_PROF ----

#define ITIMER_VIRTUAL	1

// What the timer counts: user time (VIRTUAL) or user + system (PROF).
static uint64_t itimer_clock(struct process *p, int which)
{
	uint64_t user, sys;

	acct_process_times(p, &user, &sys);
	return which == ITIMER_VIRTUAL ? user : user + sys;
}

// Time left on an armed timer at process time 'now'.  One that is due
// but has not fired yet (the tick fires it) has a tick left, as on Linux.
static uint64_t left(uint64_t expires, uint64_t now)
{
	if (!expires)
		return 0;
	return expires > now ? expires - now : NSEC / timer_hz;
}

// Sets (value, interval in ns; value 0 disarms) and reports p's
// ITIMER_VIRTUAL or ITIMER_PROF.
void cpu_itimer_swap(struct process *p, int which, uint64_t value, uint64_t interval,
		     uint64_t *old_value, uint64_t *old_interval)
{
	uint64_t now = itimer_clock(p, which);
	uint64_t *expires = which == ITIMER_VIRTUAL ? &p->acct.virt_expires : &p->acct.prof_expires;
	uint64_t *incr = which == ITIMER_VIRTUAL ? &p->acct.virt_interval : &p->acct.prof_interval;
	uint64_t flags = spin_lock_irqsave(&p->lock);

	*old_value = left(*expires, now);
	*old_interval = *incr;
	*expires = value ? now + value : 0;
	*incr = interval;
	spin_unlock_irqrestore(&p->lock, flags);
	if (value)
		tick_process_changed(p);	// the ticks of its CPUs fire it
}

void cpu_itimer_get(struct process *p, int which, uint64_t *value, uint64_t *interval)
{
	uint64_t now = itimer_clock(p, which);
	uint64_t flags = spin_lock_irqsave(&p->lock);

	if (which == ITIMER_VIRTUAL) {
		*value = left(p->acct.virt_expires, now);
		*interval = p->acct.virt_interval;
	} else {
		*value = left(p->acct.prof_expires, now);
		*interval = p->acct.prof_interval;
	}
	spin_unlock_irqrestore(&p->lock, flags);
}
