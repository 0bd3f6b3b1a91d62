// cputime: CPU-time accounting as programs see it — getrusage (SELF,
// CHILDREN, THREAD), times, the CPU-time clocks (the process's, the
// thread's, another thread's or process's by id; bad ids), clock_nanosleep
// on a CPU clock, ITIMER_VIRTUAL and ITIMER_PROF, RLIMIT_CPU, and
// /proc/stat and /proc/uptime.  Only relations that hold however fast or
// loaded the machine is: CPU time never exceeds elapsed time (times the
// threads), clocks never go back, a syscall loop accrues system time, a
// sleeper accrues almost none, children count only once reaped.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"
#include "sysutil.h"

#define MS 1000000LL
#define SLACK_NS (30 * MS)	// clock granularity (Linux: a tick), rounding

// Linux's CPU clock id encoding (clock_getcpuclockid, pthread_getcpuclockid).
#define CPUCLOCK_PROF 0
#define CPUCLOCK_VIRT 1
#define CPUCLOCK_SCHED 2
static clockid_t process_clock(pid_t pid, int which) { return (clockid_t)((~(unsigned)pid << 3) | (unsigned)which); }
static clockid_t thread_clock(pid_t tid, int which) { return process_clock(tid, which) | 4; }

static long long tv_ns(struct timeval tv) { return tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL; }

static long long usage_ns(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru) < 0) {
		fail("getrusage(%d): errno %d", who, errno);
		return 0;
	}
	return tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
}

static long long clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0) {
		fail("clock_gettime(%d): errno %d", (int)id, errno);
		return 0;
	}
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// Spins in user mode for 'ms' of wall-clock time.
static void spin_ms(long ms)
{
	long long end = now_ns(CLOCK_MONOTONIC) + ms * MS;
	volatile unsigned long x = 0;

	while (now_ns(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
}

// Spins until this thread's own clock shows 'ms' of CPU time, or 'limit_ms'
// of wall time passes.
static void burn_cpu_ms(long ms, long limit_ms)
{
	long long start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	long long end = now_ns(CLOCK_MONOTONIC) + limit_ms * MS;
	volatile unsigned long x = 0;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - start < ms * MS && now_ns(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
}

// ---- getrusage ----

static void t_busy_self(void)
{
	struct rusage a, b;
	long long t0 = now_ns(CLOCK_MONOTONIC);

	getrusage(RUSAGE_SELF, &a);
	spin_ms(300);
	getrusage(RUSAGE_SELF, &b);
	long long elapsed = now_ns(CLOCK_MONOTONIC) - t0;
	long long du = tv_ns(b.ru_utime) - tv_ns(a.ru_utime);
	long long ds = tv_ns(b.ru_stime) - tv_ns(a.ru_stime);
	check(du > 0, "a 300 ms spin accrued no user time");
	check(ds >= 0 && du >= 0, "times went back");
	if (du + ds > elapsed + SLACK_NS)
		fail("user %lld + sys %lld ns exceeds elapsed %lld ns", du, ds, elapsed);
}

static void t_monotonic(void)
{
	long long last_p = 0, last_t = 0, last_r = 0;

	for (int i = 0; i < 2000; i++) {
		long long p = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		long long t = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		long long r = usage_ns(RUSAGE_SELF);
		if (p < last_p || t < last_t || r < last_r) {
			fail("went back at %d: process %lld<%lld thread %lld<%lld rusage %lld<%lld", i,
			     p, last_p, t, last_t, r, last_r);
			return;
		}
		last_p = p;
		last_t = t;
		last_r = r;
	}
	check(last_t <= last_p + SLACK_NS, "thread clock ahead of the process clock");
}

static void t_syscalls_system_time(void)
{
	struct rusage a, b;
	long long end = now_ns(CLOCK_MONOTONIC) + 300 * MS;
	char buf[4096];
	int fd = open("/dev/zero", O_RDONLY);

	if (!check_ok(fd, "open /dev/zero"))
		return;
	getrusage(RUSAGE_SELF, &a);
	while (now_ns(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 100; i++)
			if (read(fd, buf, sizeof(buf)) < 0)
				break;
	getrusage(RUSAGE_SELF, &b);
	close(fd);
	check(tv_ns(b.ru_stime) > tv_ns(a.ru_stime), "a syscall loop accrued no system time");
}

// A sleep of 300 ms costs its thread almost no CPU time.  Time the host
// takes the (virtual) CPU away while the thread is in the kernel is
// charged to it, as on any kernel without steal-time accounting, so a
// loaded host may inflate one try: the best of three must be small (a
// kernel that charged the sleep would show 300 ms every time).
static long long sleep_cost(clockid_t clock, int rusage_who)
{
	long long best = -1;

	for (int i = 0; i < 3; i++) {
		long long c0 = clock_ns(clock), r0 = usage_ns(rusage_who);
		sleep_ms(300);
		long long c = clock_ns(clock) - c0, r = usage_ns(rusage_who) - r0;
		long long worst = c > r ? c : r;
		if (best < 0 || worst < best)
			best = worst;
		if (best <= 50 * MS)
			break;
	}
	return best;
}

static void t_sleeper_accrues_none(void)
{
	long long cost = sleep_cost(CLOCK_THREAD_CPUTIME_ID, RUSAGE_THREAD);

	if (cost > 50 * MS)
		fail("sleeping 300 ms took %lld ns of thread CPU time (best of 3)", cost);
}

static atomic_int spinner_stop;
static atomic_llong spinner_own;	// the spinner's own clock, as it last read it
static atomic_int spinner_tid;

static void *spinner(void *arg)
{
	(void)arg;
	atomic_store(&spinner_tid, my_tid());
	while (!atomic_load(&spinner_stop)) {
		volatile unsigned long x = 0;
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
		atomic_store(&spinner_own, clock_ns(CLOCK_THREAD_CPUTIME_ID));
	}
	return NULL;
}

static int start_spinner(pthread_t *th)
{
	atomic_store(&spinner_stop, 0);
	atomic_store(&spinner_own, 0);
	atomic_store(&spinner_tid, 0);
	if (pthread_create(th, NULL, spinner, NULL) != 0)
		return fail("pthread_create");
	while (!atomic_load(&spinner_tid))
		sched_yield();
	return 1;
}

static void stop_spinner(pthread_t th)
{
	atomic_store(&spinner_stop, 1);
	pthread_join(th, NULL);
}

// RUSAGE_THREAD is the caller's alone; RUSAGE_SELF has every thread's,
// and a thread that has exited stays counted.
static void t_thread_vs_self(void)
{
	pthread_t th;

	if (!start_spinner(&th))
		return;
	long long mine = sleep_cost(CLOCK_THREAD_CPUTIME_ID, RUSAGE_THREAD);
	stop_spinner(th);
	long long own = atomic_load(&spinner_own);
	long long self = usage_ns(RUSAGE_SELF);
	check(own > 0, "the spinner's clock did not advance");
	if (mine > 50 * MS)
		fail("RUSAGE_THREAD of a sleeper grew by %lld ns in 300 ms (best of 3)", mine);
	if (self < own)
		fail("RUSAGE_SELF %lld ns below the exited spinner's own %lld ns", self, own);
	long long proc = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (proc + 1000 < own)
		fail("process clock %lld ns below the exited spinner's %lld ns", proc, own);
}

// Two spinning threads: the process's time may exceed wall time, but
// never the threads times wall time.
static void t_threads_bound(void)
{
	pthread_t th;
	long long p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	long long t0 = now_ns(CLOCK_MONOTONIC);

	if (!start_spinner(&th))
		return;
	spin_ms(200);
	stop_spinner(th);
	long long elapsed = now_ns(CLOCK_MONOTONIC) - t0;
	long long dp = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - p0;
	check(dp > 0, "two spinning threads accrued nothing");
	if (dp > 2 * elapsed + SLACK_NS)
		fail("2 threads: %lld ns of CPU in %lld ns", dp, elapsed);
}

static void t_children(void)
{
	struct rusage before, zombie, after, from_wait;
	int status;

	getrusage(RUSAGE_CHILDREN, &before);
	pid_t pid = fork_child();
	if (pid == 0) {
		spin_ms(200);
		_exit(0);
	}
	// A zombie not yet reaped does not count.
	siginfo_t si;
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0) {
		fail("waitid WNOWAIT: errno %d", errno);
		return;
	}
	getrusage(RUSAGE_CHILDREN, &zombie);
	if (tv_ns(zombie.ru_utime) + tv_ns(zombie.ru_stime) !=
	    tv_ns(before.ru_utime) + tv_ns(before.ru_stime))
		fail("an unreaped child's time counted already");
	if (wait4(pid, &status, 0, &from_wait) != pid) {
		fail("wait4: errno %d", errno);
		return;
	}
	getrusage(RUSAGE_CHILDREN, &after);
	long long grew = tv_ns(after.ru_utime) + tv_ns(after.ru_stime) -
			 tv_ns(before.ru_utime) - tv_ns(before.ru_stime);
	long long reported = tv_ns(from_wait.ru_utime) + tv_ns(from_wait.ru_stime);
	check(reported > 0, "wait4's rusage shows no time for a 200 ms spin");
	check(grew > 0, "RUSAGE_CHILDREN did not grow after the reap");
	if (grew + 2000 < reported || grew > reported + 2000)
		fail("RUSAGE_CHILDREN grew by %lld ns, wait4 reported %lld ns", grew, reported);
	check(from_wait.ru_minflt > 0, "wait4's rusage shows no page faults");
}

// waitid's fifth argument (the raw system call's) gets the child's rusage.
static void t_waitid_rusage(void)
{
	struct rusage ru;
	siginfo_t si;

	memset(&ru, 0, sizeof(ru));
	pid_t pid = fork_child();
	if (pid == 0) {
		burn_cpu_ms(50, 5000);
		_exit(0);
	}
	if (syscall(SYS_waitid, P_PID, (long)pid, &si, WEXITED, &ru) != 0) {
		fail("waitid: errno %d", errno);
		return;
	}
	check(si.si_pid == pid, "waitid's siginfo");
	if (tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime) < 50 * MS)
		fail("waitid's rusage: %lld ns for a child that burnt 50 ms",
		     tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime));
}

// A grandchild's time reaches us through the child that reaped it.
static void t_grandchildren(void)
{
	int fds[2];
	long long seen = 0;

	if (!check_ok(pipe(fds), "pipe"))
		return;
	long long before = usage_ns(RUSAGE_CHILDREN);
	pid_t pid = fork_child();
	if (pid == 0) {
		pid_t g = fork();
		if (g == 0) {
			spin_ms(200);
			_exit(0);
		}
		waitpid(g, NULL, 0);
		long long got = usage_ns(RUSAGE_CHILDREN);
		if (write(fds[1], &got, sizeof(got)) != sizeof(got))
			_exit(2);
		_exit(got > 0 ? 0 : 3);
	}
	close(fds[1]);
	if (read(fds[0], &seen, sizeof(seen)) != sizeof(seen))
		fail("no report from the child");
	close(fds[0]);
	if (!check_child_ok(pid, "child (3: its RUSAGE_CHILDREN was 0)"))
		return;
	long long grew = usage_ns(RUSAGE_CHILDREN) - before;
	if (grew < seen)
		fail("RUSAGE_CHILDREN grew by %lld ns, less than the grandchild's %lld", grew, seen);
}

static void t_getrusage_errors(void)
{
	struct rusage ru;

	check_errno(getrusage(2, &ru), EINVAL, "getrusage(2)");
	check_errno(getrusage(-2, &ru), EINVAL, "getrusage(-2)");
	check_errno(syscall(SYS_getrusage, RUSAGE_SELF, (void *)8), EFAULT, "getrusage(bad pointer)");
	check_errno(syscall(SYS_times, (void *)8), EFAULT, "times(bad pointer)");
}

// Page faults and the peak resident size: 4 MiB touched a page at a time.
static void t_faults_and_maxrss(void)
{
	struct rusage a, b;
	size_t len = 4 << 20;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED) {
		fail("mmap");
		return;
	}
	madvise(m, len, MADV_NOHUGEPAGE);	// one fault per page on Linux too
	getrusage(RUSAGE_SELF, &a);
	for (size_t i = 0; i < len; i += 4096)
		m[i] = 1;
	getrusage(RUSAGE_SELF, &b);
	munmap(m, len);
	if (b.ru_minflt - a.ru_minflt < 1024)
		fail("1024 pages touched, ru_minflt grew by %ld", b.ru_minflt - a.ru_minflt);
	check(b.ru_majflt == a.ru_majflt, "a major fault without I/O");
	// Linux's RSS counters lag by up to 64 pages a thread.
	if (b.ru_maxrss < 3072)
		fail("ru_maxrss %ld KB after touching 4096 KB", b.ru_maxrss);
}

static void t_context_switches(void)
{
	struct rusage a, b;

	getrusage(RUSAGE_THREAD, &a);
	for (int i = 0; i < 10; i++)
		sleep_ms(2);
	getrusage(RUSAGE_THREAD, &b);
	if (b.ru_nvcsw - a.ru_nvcsw < 10)
		fail("10 sleeps, ru_nvcsw grew by %ld", b.ru_nvcsw - a.ru_nvcsw);
	check(b.ru_nivcsw >= a.ru_nivcsw, "ru_nivcsw went back");
}

// ---- times ----

static void t_times(void)
{
	struct tms a, b;
	clock_t r0 = times(&a);
	long hz = sysconf(_SC_CLK_TCK);

	check(hz == 100, "USER_HZ is not 100");
	spin_ms(300);
	clock_t r1 = times(&b);
	sleep_ms(100);
	clock_t r2 = times(NULL);
	check(r1 >= r0 && r2 >= r1 + 9, "times' return value did not follow 100 ms of sleep");
	check(b.tms_utime >= a.tms_utime && b.tms_stime >= a.tms_stime, "tms went back");
	long long ticks = (long long)(b.tms_utime - a.tms_utime + b.tms_stime - a.tms_stime);
	if (ticks * 10 * MS > (long long)(r1 - r0 + 2) * 10 * MS)
		fail("%lld ticks of CPU in %ld ticks", ticks, (long)(r1 - r0));
	long long ru = usage_ns(RUSAGE_SELF);
	if ((long long)(b.tms_utime + b.tms_stime) * 10 * MS > ru + 3 * 10 * MS)
		fail("tms %ld ticks, getrusage %lld ns", (long)(b.tms_utime + b.tms_stime), ru);
	// Children: 0 until one is reaped.
	clock_t c0 = a.tms_cutime + a.tms_cstime;
	pid_t pid = fork_child();
	if (pid == 0) {
		burn_cpu_ms(100, 5000);
		_exit(0);
	}
	check_child_ok(pid, "child");
	times(&b);
	check(b.tms_cutime + b.tms_cstime >= c0, "tms_cutime went back");
	check(b.tms_cutime + b.tms_cstime > c0, "a child's 100 ms of CPU did not reach tms_cutime");
}

// ---- CPU clocks ----

static void t_clock_ids(void)
{
	pthread_t th;
	clockid_t mine, other;
	struct timespec ts;

	check(clock_getcpuclockid(0, &mine) == 0, "clock_getcpuclockid(0)");
	check(clock_getcpuclockid(getpid(), &mine) == 0, "clock_getcpuclockid(getpid())");
	check(mine == process_clock(getpid(), CPUCLOCK_SCHED), "clock_getcpuclockid's encoding");
	check(clock_ns(mine) > 0, "own process clock by id");
	if (!start_spinner(&th))
		return;
	check(pthread_getcpuclockid(th, &other) == 0, "pthread_getcpuclockid");
	check(other == thread_clock(atomic_load(&spinner_tid), CPUCLOCK_SCHED),
	      "pthread_getcpuclockid's encoding");
	long long a = clock_ns(other);
	spin_ms(100);
	long long b = clock_ns(other);
	long long virt = clock_ns(thread_clock(atomic_load(&spinner_tid), CPUCLOCK_VIRT));
	long long prof = clock_ns(thread_clock(atomic_load(&spinner_tid), CPUCLOCK_PROF));
	stop_spinner(th);
	check(b >= a, "another thread's clock went back");
	check(b > 0, "a spinning thread's clock is 0");
	check(virt <= prof + 1000, "VIRT (user) ahead of PROF (user+system)");
	check(clock_ns(thread_clock(0, CPUCLOCK_SCHED)) > 0, "thread clock of tid 0 (the caller)");
	check(clock_ns(thread_clock(my_tid(), CPUCLOCK_VIRT)) > 0, "own thread VIRT clock");
	check(clock_ns(process_clock(0, CPUCLOCK_PROF)) > 0, "process PROF clock of pid 0");
	// Resolutions: run time to the ns; PROF and VIRT what the timers see.
	check(clock_getres(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0 && ts.tv_sec == 0 && ts.tv_nsec == 1,
	      "CLOCK_PROCESS_CPUTIME_ID resolution 1 ns");
	check(clock_getres(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 && ts.tv_sec == 0 && ts.tv_nsec == 1,
	      "CLOCK_THREAD_CPUTIME_ID resolution 1 ns");
	check(clock_getres(process_clock(0, CPUCLOCK_PROF), &ts) == 0 && ts.tv_nsec > 0,
	      "PROF clock resolution");
}

static void t_clock_bad_ids(void)
{
	struct timespec ts;
	clockid_t id;
	pid_t child = fork_child();

	if (child == 0) {
		pause();
		_exit(0);
	}
	// Another process's threads are not ours to read.
	check_errno(clock_gettime(thread_clock(child, CPUCLOCK_SCHED), &ts), EINVAL,
		    "another process's thread clock");
	check(clock_gettime(process_clock(child, CPUCLOCK_SCHED), &ts) == 0,
	      "another process's clock");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	// The reaped child's pid names no process any more.
	check_errno(clock_gettime(process_clock(child, CPUCLOCK_SCHED), &ts), EINVAL,
		    "a reaped process's clock");
	// glibc turns the kernel's EINVAL into ESRCH, musl passes it on.
	int r = clock_getcpuclockid(child, &id);
	check(r == ESRCH || r == EINVAL, "clock_getcpuclockid of a gone pid");
	check_errno(clock_gettime(process_clock(0, 3), &ts), EINVAL, "process clock kind 3");
	check_errno(clock_gettime(thread_clock(0, 3), &ts), EINVAL, "thread clock kind 3");
	check_errno(clock_getres(thread_clock(child, CPUCLOCK_SCHED), &ts), EINVAL,
		    "clock_getres of a gone thread");
	check_errno(syscall(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, (void *)8), EFAULT,
		    "clock_gettime to a bad pointer");
}

// clock_nanosleep on the process's clock wakes once the other thread has
// burnt that much; the thread clocks: as Linux.
static void t_clock_nanosleep(void)
{
	pthread_t th;
	struct timespec req = { 0, 100 * MS };

	check_errno(syscall(SYS_clock_nanosleep, CLOCK_THREAD_CPUTIME_ID, 0, &req, NULL), EOPNOTSUPP,
		    "clock_nanosleep(CLOCK_THREAD_CPUTIME_ID)");
	check_errno(syscall(SYS_clock_nanosleep, thread_clock(0, CPUCLOCK_SCHED), 0, &req, NULL),
		    EINVAL, "clock_nanosleep on the own thread's clock");
	check_errno(syscall(SYS_clock_nanosleep, thread_clock(my_tid(), CPUCLOCK_SCHED), 0, &req,
			    NULL), EINVAL, "clock_nanosleep on the own thread's clock by tid");
	if (!start_spinner(&th))
		return;
	long long p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	int rc = clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID, 0, &req, NULL);
	long long p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	clockid_t other = thread_clock(atomic_load(&spinner_tid), CPUCLOCK_SCHED);
	long long o0 = clock_ns(other);
	struct timespec abs = { (o0 + 50 * MS) / 1000000000LL, (o0 + 50 * MS) % 1000000000LL };
	int rc2 = clock_nanosleep(other, TIMER_ABSTIME, &abs, NULL);
	long long o1 = clock_ns(other);
	stop_spinner(th);
	check(rc == 0, "clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID, 100 ms)");
	if (p1 - p0 < 100 * MS)
		fail("woke after %lld ns of process CPU time, wanted 100 ms", p1 - p0);
	check(rc2 == 0, "clock_nanosleep on another thread's clock, TIMER_ABSTIME");
	if (o1 < o0 + 50 * MS)
		fail("woke with the other thread's clock at +%lld ns, wanted +50 ms", o1 - o0);
}

// ---- interval timers ----

static volatile sig_atomic_t vtalrms, profs;

static void on_timer(int sig)
{
	if (sig == SIGVTALRM)
		vtalrms++;
	else
		profs++;
}

static void t_itimer_virtual(void)
{
	struct itimerval v = { { 0, 20000 }, { 0, 20000 } }, now, off = { { 0, 0 }, { 0, 0 } };

	signal(SIGVTALRM, on_timer);
	vtalrms = 0;
	check_ok(setitimer(ITIMER_VIRTUAL, &v, NULL), "setitimer(ITIMER_VIRTUAL)");
	check_ok(getitimer(ITIMER_VIRTUAL, &now), "getitimer");
	check(now.it_interval.tv_sec == 0 && now.it_interval.tv_usec == 20000, "interval kept");
	check(now.it_value.tv_sec == 0 && now.it_value.tv_usec > 0 && now.it_value.tv_usec <= 30000,
	      "value left");
	long long end = now_ns(CLOCK_MONOTONIC) + 10000 * MS;
	while (vtalrms < 3 && now_ns(CLOCK_MONOTONIC) < end)
		spin_ms(5);
	setitimer(ITIMER_VIRTUAL, &off, &now);
	check(vtalrms >= 3, "no three SIGVTALRMs in 10 s of spinning");
	check(now.it_interval.tv_usec == 20000, "old value's interval");
	// Sleeping is not user time: a timer does not run down while asleep.
	struct itimerval one = { { 0, 0 }, { 0, 100000 } };
	vtalrms = 0;
	setitimer(ITIMER_VIRTUAL, &one, NULL);
	sleep_ms(300);
	getitimer(ITIMER_VIRTUAL, &now);
	setitimer(ITIMER_VIRTUAL, &off, NULL);
	check(vtalrms == 0, "SIGVTALRM while asleep");
	if (now.it_value.tv_usec < 50000)
		fail("100 ms ITIMER_VIRTUAL down to %ld us after a 300 ms sleep", (long)now.it_value.tv_usec);
	signal(SIGVTALRM, SIG_DFL);
}

static void t_itimer_prof(void)
{
	struct itimerval v = { { 0, 20000 }, { 0, 20000 } }, off = { { 0, 0 }, { 0, 0 } };
	int fd = open("/dev/zero", O_RDONLY);
	char buf[4096];

	if (!check_ok(fd, "open /dev/zero"))
		return;
	signal(SIGPROF, on_timer);
	profs = 0;
	check_ok(setitimer(ITIMER_PROF, &v, NULL), "setitimer(ITIMER_PROF)");
	long long end = now_ns(CLOCK_MONOTONIC) + 10000 * MS;
	while (profs < 3 && now_ns(CLOCK_MONOTONIC) < end)
		if (read(fd, buf, sizeof(buf)) < 0 && errno != EINTR)
			break;
	setitimer(ITIMER_PROF, &off, NULL);
	close(fd);
	check(profs >= 3, "no three SIGPROFs in 10 s of system calls");
	signal(SIGPROF, SIG_DFL);
}

// fork does not pass the CPU timers on; exec would keep them.
static void t_itimer_not_inherited(void)
{
	struct itimerval v = { { 0, 0 }, { 5, 0 } }, off = { { 0, 0 }, { 0, 0 } };

	setitimer(ITIMER_VIRTUAL, &v, NULL);
	setitimer(ITIMER_PROF, &v, NULL);
	pid_t pid = fork_child();
	if (pid == 0) {
		struct itimerval a, b;
		getitimer(ITIMER_VIRTUAL, &a);
		getitimer(ITIMER_PROF, &b);
		_exit(a.it_value.tv_sec || a.it_value.tv_usec || b.it_value.tv_sec || b.it_value.tv_usec);
	}
	check_child_ok(pid, "child (1: a CPU timer was inherited)");
	setitimer(ITIMER_VIRTUAL, &off, NULL);
	setitimer(ITIMER_PROF, &off, NULL);
}

// RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL at the hard one.
static volatile sig_atomic_t xcpus;
static void on_xcpu(int sig) { (void)sig; xcpus++; }

static void t_rlimit_cpu(void)
{
	int fds[2];

	if (!check_ok(pipe(fds), "pipe"))
		return;
	pid_t pid = fork_child();
	if (pid == 0) {
		struct rlimit rl = { 1, 2 };
		close(fds[0]);
		signal(SIGXCPU, on_xcpu);
		if (setrlimit(RLIMIT_CPU, &rl) < 0)
			_exit(2);
		for (;;) {
			burn_cpu_ms(10, 15000);
			if (xcpus) {
				char c = 'x';
				if (write(fds[1], &c, 1) != 1)
					_exit(3);
				xcpus = 0;
			}
		}
	}
	close(fds[1]);
	int status;
	char c;
	long n = read(fds[0], &c, 1);
	waitpid(pid, &status, 0);
	close(fds[0]);
	check(n == 1, "no SIGXCPU at the soft limit");
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		fail("child not killed by SIGKILL at the hard limit: status %#x", status);
}

// ---- /proc/stat and /proc/uptime ----

struct stat_file {
	long long cpu[10];
	int ncpu_lines;
	long long intr, ctxt, btime, processes, running, blocked;
	int have;		// bit per line kind found
};

static int parse_stat(struct stat_file *s)
{
	static char buf[65536];

	memset(s, 0, sizeof(*s));
	if (read_file("/proc/stat", buf, sizeof(buf)) < 0)
		return fail("open /proc/stat: errno %d", errno);
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, "cpu ", 4) == 0) {
			int n = sscanf(line + 4, "%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld",
				       &s->cpu[0], &s->cpu[1], &s->cpu[2], &s->cpu[3], &s->cpu[4],
				       &s->cpu[5], &s->cpu[6], &s->cpu[7], &s->cpu[8], &s->cpu[9]);
			if (n != 10)
				return fail("cpu line has %d numbers: %s", n, line);
			s->have |= 1;
		} else if (strncmp(line, "cpu", 3) == 0) {
			int id;
			long long v[10];
			if (sscanf(line, "cpu%d %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", &id,
				   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
				   &v[9]) != 11)
				return fail("bad line: %s", line);
			s->ncpu_lines++;
		} else if (sscanf(line, "intr %lld", &s->intr) == 1) {
			s->have |= 2;
		} else if (sscanf(line, "ctxt %lld", &s->ctxt) == 1) {
			s->have |= 4;
		} else if (sscanf(line, "btime %lld", &s->btime) == 1) {
			s->have |= 8;
		} else if (sscanf(line, "processes %lld", &s->processes) == 1) {
			s->have |= 16;
		} else if (sscanf(line, "procs_running %lld", &s->running) == 1) {
			s->have |= 32;
		} else if (sscanf(line, "procs_blocked %lld", &s->blocked) == 1) {
			s->have |= 64;
		} else if (strncmp(line, "softirq ", 8) == 0) {
			s->have |= 128;
		}
	}
	if (s->have != 255)
		return fail("/proc/stat lacks lines (found mask %#x)", s->have);
	return 1;
}

static void t_proc_stat(void)
{
	struct stat_file a, b;

	if (!parse_stat(&a))
		return;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	if (a.ncpu_lines != online)
		fail("%d cpuN lines, %ld CPUs online", a.ncpu_lines, online);
	check(a.running >= 1, "procs_running counts no one (we run)");
	time_t boot = time(NULL) - (time_t)(now_ns(CLOCK_BOOTTIME) / 1000000000LL);
	if (a.btime < boot - 2 || a.btime > boot + 2)
		fail("btime %lld, now - uptime %lld", a.btime, (long long)boot);
	pid_t pid = fork_child();
	if (pid == 0)
		_exit(0);
	check_child_ok(pid, "child");
	spin_ms(100);
	for (int i = 0; i < 5; i++)
		sleep_ms(10);
	if (!parse_stat(&b))
		return;
	long long sum_a = 0, sum_b = 0;
	for (int i = 0; i < 10; i++) {
		sum_a += a.cpu[i];
		sum_b += b.cpu[i];
		if (b.cpu[i] < a.cpu[i])
			fail("cpu column %d went back", i);
	}
	check(sum_b > sum_a, "the cpu line did not grow in 150 ms");
	check(b.ctxt > a.ctxt, "ctxt did not grow over 5 sleeps");
	check(b.processes > a.processes, "processes did not grow over a fork");
	check(b.intr >= a.intr, "intr went back");
}

static void t_proc_uptime(void)
{
	char buf[128];
	double up0, idle0, up1, idle1;

	if (read_file("/proc/uptime", buf, sizeof(buf)) < 0) {
		fail("open /proc/uptime: errno %d", errno);
		return;
	}
	if (sscanf(buf, "%lf %lf", &up0, &idle0) != 2) {
		fail("/proc/uptime: %s", buf);
		return;
	}
	sleep_ms(200);
	read_file("/proc/uptime", buf, sizeof(buf));
	sscanf(buf, "%lf %lf", &up1, &idle1);
	check(up1 >= up0 + 0.19, "uptime did not follow a 200 ms sleep");
	check(idle1 >= idle0 && idle0 >= 0, "idle time went back");
	double mono = (double)now_ns(CLOCK_BOOTTIME) / 1e9;
	check(up1 <= mono + 0.02 && up1 >= mono - 1, "uptime disagrees with CLOCK_BOOTTIME");
}

static const struct test_case cases[] = {
	{ "getrusage_busy_loop_bounded_by_elapsed", t_busy_self },
	{ "cpu_clocks_and_getrusage_monotonic", t_monotonic },
	{ "syscall_loop_accrues_system_time", t_syscalls_system_time },
	{ "sleeper_accrues_almost_nothing", t_sleeper_accrues_none },
	{ "rusage_thread_vs_self", t_thread_vs_self },
	{ "two_threads_bounded_by_twice_elapsed", t_threads_bound },
	{ "rusage_children_only_after_wait", t_children },
	{ "rusage_children_include_grandchildren", t_grandchildren },
	{ "waitid_rusage", t_waitid_rusage },
	{ "getrusage_times_errors", t_getrusage_errors },
	{ "minflt_and_maxrss", t_faults_and_maxrss },
	{ "voluntary_switches_counted", t_context_switches },
	{ "times_ticks_and_children", t_times },
	{ "cpu_clock_ids", t_clock_ids },
	{ "cpu_clock_bad_ids", t_clock_bad_ids },
	{ "clock_nanosleep_cpu_clocks", t_clock_nanosleep },
	{ "itimer_virtual_sigvtalrm", t_itimer_virtual },
	{ "itimer_prof_sigprof", t_itimer_prof },
	{ "cpu_itimers_not_inherited_by_fork", t_itimer_not_inherited },
	{ "rlimit_cpu_sigxcpu_then_sigkill", t_rlimit_cpu },
	{ "proc_stat_layout_and_growth", t_proc_stat },
	{ "proc_uptime", t_proc_uptime },
};

int main(void)
{
	run_cases(cases, (int)(sizeof(cases) / sizeof(cases[0])));
	return 0;
}
