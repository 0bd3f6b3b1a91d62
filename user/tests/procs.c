// procs: process life cycle and basic process queries of Switchyard's
// Linux ABI: fork, vfork (and the killable vfork wait, also with
// CLONE_THREAD), wait4/waitid status encoding, children reaped
// automatically, kill with default actions, exit versus exit_group, orphan reparenting, identity, clocks,
// sleeping, getrandom and resource limits.  Linux is the reference: every
// case passes there.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "sysutil.h"
#include "testcase.h"

// ---- helpers -----------------------------------------------------------------

// A child that waits to be killed.  pause() returns only for a caught
// signal, and this child catches none, so the loop is a safety net.
static pid_t fork_sleeper(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

// Run 'body' in a fresh child, which has no children of its own: cases
// that wait for "any child" must not meet strays that an earlier failed
// case left behind.  The child sends back its failure reason, if any.
static void run_isolated(void (*body)(void))
{
	int p[2];
	pid_t pid;
	char why[sizeof(fail_why)] = { 0 };

	if (!check_ok(pipe(p), "pipe"))
		return;
	pid = fork_child();
	if (pid == 0) {
		close(p[0]);
		body();
		write(p[1], fail_why, strlen(fail_why));
		_exit(0);
	}
	close(p[1]);
	if (pid > 0 && read(p[0], why, sizeof(why) - 1) > 0)
		fail("%s", why);
	close(p[0]);
	check_child_ok(pid, "isolated case");
}

// Wait up to 'ms' milliseconds for 'pid' to end; 1 with its status if it
// did, 0 if it is still there (a hung or unkillable process must fail the
// case, not stall it).
static int wait_bounded(pid_t pid, int *status, int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR)
			return 0;
		sleep_ms(10);
	}
	return 0;
}

// Wait up to 'ms' milliseconds for something to read on 'fd'.
static int readable_within(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 1;
}

#define CLONE_STACK_SIZE (64 * 1024)

// ---- fork and vfork -----------------------------------------------------------

static void t_fork_exit_status(void)
{
	pid_t pid = fork_child();

	if (pid == 0)
		_exit(7);
	check(pid > 0, "fork returns the child's pid");
	check_exit_code(pid, 7, "child");
}

static void t_fork_identity(void)
{
	int p[2];
	pid_t pid, ids[2] = { 0, 0 };

	if (!check_ok(pipe(p), "pipe"))
		return;
	pid = fork_child();
	if (pid == 0) {
		pid_t mine[2] = { getpid(), getppid() };

		_exit(write(p[1], mine, sizeof(mine)) == sizeof(mine) ? 0 : 1);
	}
	close(p[1]);
	check(read(p[0], ids, sizeof(ids)) == sizeof(ids), "read child's ids");
	close(p[0]);
	check(ids[0] == pid, "child's getpid equals fork's return value");
	check(ids[1] == getpid(), "child's getppid equals parent's getpid");
	check(pid != getpid(), "child pid differs from parent");
	check_child_ok(pid, "child");
}

static void t_fork_memory_is_copied(void)
{
	static volatile int value = 1;
	pid_t pid = fork_child();

	if (pid == 0) {
		value = 2;
		_exit(value == 2 ? 0 : 1);
	}
	check_child_ok(pid, "child");
	check(value == 1, "parent's copy untouched by the child's write");
}

static void t_vfork(void)
{
	static volatile int shared_mark;
	pid_t pid;

	shared_mark = 0;
	pid = vfork();
	if (pid == 0) {
		// The child borrows the parent's memory until it exits.
		shared_mark = 42;
		_exit(3);
	}
	if (!check_ok(pid, "vfork"))
		return;
	check(shared_mark == 42, "child ran first, in the parent's memory");
	check_exit_code(pid, 3, "vfork child");
}

// ---- vfork waits that must stay killable --------------------------------------------------

// A vfork child that never lets its parent go: it sends its pid, then
// waits (bounded) until it has a new parent, says so and sleeps on.
struct vfork_sleeper {
	int fd;
	pid_t parent;
};

static int vfork_sleeper_body(void *arg)
{
	struct vfork_sleeper *s = arg;
	pid_t me = getpid();
	char reparented = 'R';

	alarm(CHILD_TIMEOUT);
	write(s->fd, &me, sizeof(me));
	for (int i = 0; i < 1500 && getppid() == s->parent; i++)
		sleep_ms(10);
	write(s->fd, &reparented, 1);
	for (;;)
		pause();
	return 0;
}

// SIGKILL ends a parent waiting for its vfork child at once (Linux's vfork
// wait is killable), and so does any signal whose default action kills;
// the child lives on and is given to init.
static void vfork_parent_killed_by(int sig)
{
	int p[2], status = 0;
	pid_t parent, child = 0;
	char c = 0;

	if (!check_ok(pipe(p), "pipe"))
		return;
	parent = fork_child();
	if (parent == 0) {
		struct vfork_sleeper s = { p[1], getpid() };
		char *stack = malloc(CLONE_STACK_SIZE);

		close(p[0]);
		if (stack)
			clone(vfork_sleeper_body, stack + CLONE_STACK_SIZE,
			      CLONE_VM | CLONE_VFORK | SIGCHLD, &s);
		_exit(1);	// only once the child is done with our memory
	}
	close(p[1]);
	if (parent < 0 || !check(read(p[0], &child, sizeof(child)) == sizeof(child),
				 "vfork child sent its pid")) {
		close(p[0]);
		if (parent > 0)
			kill(parent, SIGKILL), reap(parent);
		return;
	}
	sleep_ms(20);		// let the parent fall asleep in vfork
	kill(parent, sig);
	if (!wait_bounded(parent, &status, 10000)) {
		fail("vfork parent still there 10 s after signal %d", sig);
		kill(child, SIGKILL);	// lets it go, so it can die
		reap(parent);
		close(p[0]);
		return;
	}
	if (!WIFSIGNALED(status) || WTERMSIG(status) != sig)
		fail_status("vfork parent", status);
	check(readable_within(p[0], 10000) && read(p[0], &c, 1) == 1 && c == 'R',
	      "vfork child lives on with a new parent");
	check_ok(kill(child, 0), "vfork child still exists");
	kill(child, SIGKILL);
	close(p[0]);
}

static void t_vfork_parent_killable(void)
{
	vfork_parent_killed_by(SIGKILL);
}

static void t_vfork_parent_sigterm(void)
{
	vfork_parent_killed_by(SIGTERM);
}

// clone(CLONE_VFORK | CLONE_THREAD): as on Linux, the calling thread waits
// until the new thread exits, then clone returns its tid.
#define VFORK_THREAD_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
			    CLONE_THREAD | CLONE_SYSVSEM | CLONE_VFORK)

static atomic_int vfork_thread_mark;

static int vfork_thread_exits(void *arg)
{
	(void)arg;
	sleep_ms(50);
	atomic_store(&vfork_thread_mark, 1);
	return 0;	// musl's clone ends the thread with SYS_exit
}

static void t_vfork_thread_waits(void)
{
	int status = 0;
	pid_t pid = fork_child();

	if (pid == 0) {
		char *stack = malloc(CLONE_STACK_SIZE);
		int tid;

		atomic_store(&vfork_thread_mark, 0);
		if (!stack)
			_exit(4);
		tid = clone(vfork_thread_exits, stack + CLONE_STACK_SIZE, VFORK_THREAD_FLAGS, NULL);
		if (tid <= 0)
			_exit(2);
		_exit(atomic_load(&vfork_thread_mark) == 1 ? 0 : 3);
	}
	if (pid < 0)
		return;
	if (!wait_bounded(pid, &status, 10000)) {
		fail("clone(CLONE_VFORK|CLONE_THREAD) still not back after 10 s");
		kill(pid, SIGKILL);
		if (!wait_bounded(pid, &status, 5000))
			fail("... and the process survives SIGKILL");
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_status("CLONE_VFORK|CLONE_THREAD (3: returned before the thread exited)", status);
}

// The new thread never exits: SIGKILL must still end the process.
static int vfork_thread_sleeps(void *arg)
{
	int fd = *(int *)arg;
	char c = 'S';

	write(fd, &c, 1);
	for (;;)
		pause();
	return 0;
}

static void t_vfork_thread_killable(void)
{
	int p[2], status = 0;
	pid_t pid;
	char c = 0;

	if (!check_ok(pipe(p), "pipe"))
		return;
	pid = fork_child();
	if (pid == 0) {
		char *stack = malloc(CLONE_STACK_SIZE);

		close(p[0]);
		if (stack)
			clone(vfork_thread_sleeps, stack + CLONE_STACK_SIZE, VFORK_THREAD_FLAGS, &p[1]);
		_exit(2);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return;
	}
	check(readable_within(p[0], 10000) && read(p[0], &c, 1) == 1, "thread started");
	close(p[0]);
	sleep_ms(20);
	kill(pid, SIGKILL);
	if (!wait_bounded(pid, &status, 10000)) {
		fail("process in clone(CLONE_VFORK|CLONE_THREAD) survived SIGKILL for 10 s");
		return;
	}
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		fail_status("killed in CLONE_VFORK|CLONE_THREAD", status);
}

// The new thread execs: the process becomes the new program (the thread
// waiting in clone goes with the old one, as every other thread does).
static int vfork_thread_execs(void *arg)
{
	char *argv[] = { "sh", "-c", "exit 5", NULL };
	char *envp[] = { NULL };

	(void)arg;
	execve("/bin/sh", argv, envp);
	syscall(SYS_exit_group, 6);
	return 0;
}

static void t_vfork_thread_exec(void)
{
	int status = 0;
	pid_t pid = fork_child();

	if (pid == 0) {
		char *stack = malloc(CLONE_STACK_SIZE);

		if (stack)
			clone(vfork_thread_execs, stack + CLONE_STACK_SIZE, VFORK_THREAD_FLAGS, NULL);
		_exit(2);
	}
	if (pid < 0)
		return;
	if (!wait_bounded(pid, &status, 10000)) {
		fail("exec from a CLONE_VFORK|CLONE_THREAD thread did not finish in 10 s");
		kill(pid, SIGKILL);
		if (!wait_bounded(pid, &status, 5000))
			fail("... and the process survives SIGKILL");
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 5)
		fail_status("exec'd program (5 expected; 6: exec failed)", status);
}

static void t_gettid(void)
{
	check(getpid() > 0, "getpid positive");
	check(syscall(SYS_gettid) == getpid(), "gettid of the main thread is the pid");
	check(getppid() > 0 || getpid() == 1, "getppid positive");
	check(syscall(SYS_set_tid_address, NULL) == getpid(),
	      "set_tid_address returns the tid");
}

// ---- wait --------------------------------------------------------------------------

static void t_wait4_exit_codes(void)
{
	static const int codes[] = { 0, 1, 127, 255 };

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		struct rusage ru;
		int status = -1;
		pid_t pid = fork_child();

		if (pid == 0)
			_exit(codes[i]);
		if (pid < 0)
			return;
		if (wait4(pid, &status, 0, &ru) != pid) {
			fail("wait4: errno=%d", errno);
			return;
		}
		// Linux's encoding: exit code in bits 8-15, low byte zero.
		if (status != codes[i] << 8) {
			fail("exit(%d) gave status %#x", codes[i], status);
			return;
		}
	}
}

static void t_wait4_null_status(void)
{
	pid_t pid = fork_child();

	if (pid == 0)
		_exit(0);
	check(wait4(pid, NULL, 0, NULL) == pid, "wait4 with NULL status");
}

static void wait_any(void)
{
	pid_t a = fork_child(), b, got1, got2;
	int s1 = 0, s2 = 0;

	if (a == 0)
		_exit(11);
	b = fork_child();
	if (b == 0)
		_exit(12);
	got1 = waitpid(-1, &s1, 0);
	got2 = waitpid(-1, &s2, 0);
	check((got1 == a && got2 == b) || (got1 == b && got2 == a),
	      "waitpid(-1) reaps both children");
	check(WEXITSTATUS(got1 == a ? s1 : s2) == 11 &&
	      WEXITSTATUS(got1 == a ? s2 : s1) == 12, "statuses belong to the right child");
}

static void t_wait_nohang(void)
{
	int go[2], status = 0;
	pid_t pid;
	char c = 0;

	if (!check_ok(pipe(go), "pipe"))
		return;
	pid = fork_child();
	if (pid == 0) {
		close(go[1]);
		read(go[0], &c, 1);
		_exit(5);
	}
	close(go[0]);
	check(waitpid(pid, &status, WNOHANG) == 0, "WNOHANG with a running child gives 0");
	close(go[1]);
	check_exit_code(pid, 5, "child");
}

static void wait_echild(void)
{
	int status;

	check_errno(waitpid(-1, &status, 0), ECHILD, "waitpid(-1) without children");
	check_errno(waitpid(getpid(), &status, 0), ECHILD, "waitpid(self)");
	check_errno(waitpid(-1, &status, WNOHANG), ECHILD, "WNOHANG without children");
}

static void t_wait_any(void)
{
	run_isolated(wait_any);
}

static void t_wait_echild(void)
{
	run_isolated(wait_echild);
}

// ---- children reaped automatically ----------------------------------------------------

static void on_alarm_interrupt(int sig)
{
	(void)sig;
}

// wait() with every child reaped automatically: it sleeps until the last
// child is gone, then fails with ECHILD.  SIGALRM (no SA_RESTART) cuts a
// wait that would hang.
static void wait_for_autoreaped_child(void)
{
	struct sigaction sa;
	int status;
	pid_t pid = fork_child();

	if (pid == 0) {
		sleep_ms(50);
		_exit(0);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm_interrupt;
	sigaction(SIGALRM, &sa, NULL);
	alarm(10);
	check_errno(wait(&status), ECHILD, "wait() once the auto-reaped child has exited");
	alarm(0);
	check_errno(kill(pid, 0), ESRCH, "the child left no zombie");
}

static void wait_sigchld_ignored(void)
{
	signal(SIGCHLD, SIG_IGN);
	wait_for_autoreaped_child();
}

static void t_wait_sigchld_ignored(void)
{
	run_isolated(wait_sigchld_ignored);
}

static volatile sig_atomic_t sigchld_seen;

static void on_sigchld(int sig)
{
	(void)sig;
	sigchld_seen++;
}

// SA_NOCLDWAIT with a handler: no zombies, but SIGCHLD is still sent.
static void wait_sa_nocldwait(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_NOCLDWAIT | SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);
	sigchld_seen = 0;
	wait_for_autoreaped_child();
	check(sigchld_seen == 1, "SIGCHLD handler ran once");
}

static void t_wait_sa_nocldwait(void)
{
	run_isolated(wait_sa_nocldwait);
}

// Only children that report with SIGCHLD are reaped automatically: one
// whose exit signal is 0 stays a zombie for wait (with __WALL).
static void wait_exit_signal_zero(void)
{
	int status = 0;
	pid_t pid;

	signal(SIGCHLD, SIG_IGN);
	fflush(stdout);
	pid = (pid_t)syscall(SYS_clone, 0UL, 0UL, 0UL, 0UL, 0UL);
	if (pid == 0)
		_exit(4);
	if (!check_ok(pid, "clone with exit signal 0"))
		return;
	check(waitpid(pid, &status, __WALL) == pid, "waitpid(__WALL) finds the child");
	check(WIFEXITED(status) && WEXITSTATUS(status) == 4, "its status");
}

static void t_wait_exit_signal_zero(void)
{
	run_isolated(wait_exit_signal_zero);
}

// Linux's eligible_child: a plain wait sees only the children that report
// with SIGCHLD, __WCLONE only the others ("clone" children: another exit
// signal, or none), __WALL both; __WNOTHREAD those the calling thread
// made (here: all of them).
static void wait_clone_children(void)
{
	int status = 0;
	pid_t plain, quiet;

	fflush(stdout);
	quiet = (pid_t)syscall(SYS_clone, (unsigned long)SIGUSR2, 0UL, 0UL, 0UL, 0UL);
	if (quiet == 0)
		_exit(5);
	plain = fork();
	if (plain == 0)
		_exit(6);
	if (!check_ok(quiet, "clone with exit signal SIGUSR2") || !check_ok(plain, "fork"))
		return;
	signal(SIGUSR2, SIG_IGN);
	// Both gone before anything is waited for (a zombie each).
	usleep(100000);
	check(waitpid(-1, &status, 0) == plain, "a plain wait finds only the SIGCHLD child");
	check(WIFEXITED(status) && WEXITSTATUS(status) == 6, "its status");
	check(waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD,
	      "then no child for a plain wait (ECHILD)");
	check(waitpid(-1, &status, __WCLONE | __WNOTHREAD) == quiet, "__WCLONE finds the other");
	check(WIFEXITED(status) && WEXITSTATUS(status) == 5, "its status");
	check(waitpid(-1, &status, __WCLONE | WNOHANG) == -1 && errno == ECHILD,
	      "then none for __WCLONE either");
}

static void t_wait_clone_children(void)
{
	run_isolated(wait_clone_children);
}

// A clone child that loses its parent reports to its new one with
// SIGCHLD, as a plain child (Linux's reparent_leader): a subreaper's
// plain wait finds it.
static void wait_reparented_clone_child(void)
{
	int status = 0, p[2];
	pid_t orphan = 0;

	if (!check_ok(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "PR_SET_CHILD_SUBREAPER") ||
	    !check_ok(pipe(p), "pipe"))
		return;
	fflush(stdout);
	pid_t mid = fork();
	if (mid == 0) {
		pid_t g = (pid_t)syscall(SYS_clone, 0UL, 0UL, 0UL, 0UL, 0UL);	// exit signal 0
		if (g == 0) {
			usleep(200000);
			_exit(7);
		}
		write(p[1], &g, sizeof(g));
		_exit(g > 0 ? 0 : 1);
	}
	if (!check_ok(mid, "fork") || !check(read(p[0], &orphan, sizeof(orphan)) == sizeof(orphan), "its pid"))
		return;
	check(waitpid(mid, &status, 0) == mid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the middle child");
	check(waitpid(-1, &status, 0) == orphan, "a plain wait finds the orphaned clone child");
	check(WIFEXITED(status) && WEXITSTATUS(status) == 7, "its status");
	close(p[0]);
	close(p[1]);
}

static void t_wait_reparented_clone_child(void)
{
	run_isolated(wait_reparented_clone_child);
}

static void t_waitid_exited(void)
{
	siginfo_t info;
	pid_t pid = fork_child();

	if (pid == 0)
		_exit(9);
	memset(&info, 0, sizeof(info));
	if (!check_ok(waitid(P_PID, pid, &info, WEXITED), "waitid"))
		return;
	check(info.si_signo == SIGCHLD, "si_signo SIGCHLD");
	check(info.si_code == CLD_EXITED, "si_code CLD_EXITED");
	check(info.si_pid == pid, "si_pid");
	check(info.si_status == 9, "si_status is the exit code");
}

static void t_waitid_killed(void)
{
	siginfo_t info;
	pid_t pid = fork_sleeper();

	if (pid < 0)
		return;
	kill(pid, SIGKILL);
	memset(&info, 0, sizeof(info));
	if (!check_ok(waitid(P_PID, pid, &info, WEXITED), "waitid"))
		return;
	check(info.si_code == CLD_KILLED, "si_code CLD_KILLED");
	check(info.si_status == SIGKILL, "si_status is the signal");
}

static void many_children(void)
{
	enum { N = 50 };
	pid_t pids[N];
	int seen[N] = { 0 };
	int reaped = 0, status;

	for (int i = 0; i < N; i++) {
		pids[i] = fork_child();
		if (pids[i] == 0)
			_exit(i + 1);
		if (pids[i] < 0)
			break;
	}
	for (;;) {
		pid_t got = waitpid(-1, &status, 0);

		if (got < 0)
			break;
		reaped++;
		for (int i = 0; i < N; i++)
			if (pids[i] == got && WIFEXITED(status) &&
			    WEXITSTATUS(status) == i + 1)
				seen[i]++;
	}
	check(errno == ECHILD, "waitpid ends with ECHILD");
	check(reaped == N, "reaped 50 children");
	for (int i = 0; i < N; i++)
		if (seen[i] != 1) {
			fail("child %d (pid %d) not reaped with its status", i, (int)pids[i]);
			break;
		}
}

static void t_many_children(void)
{
	run_isolated(many_children);
}

static void t_zombie_until_reaped(void)
{
	int status;
	pid_t pid = fork_child();

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return;
	sleep_ms(20);
	check_ok(kill(pid, 0), "an unreaped child still exists for kill(pid, 0)");
	check(waitpid(pid, &status, 0) == pid, "reap");
	check_errno(kill(pid, 0), ESRCH, "gone once reaped");
}

// ---- signals with default actions ----------------------------------------------------

static void t_kill_sigkill(void)
{
	pid_t pid = fork_sleeper();

	if (pid < 0)
		return;
	check_ok(kill(pid, SIGKILL), "kill");
	check_killed_by(pid, SIGKILL, "SIGKILL");
}

// SIGKILL ends a process whose thread runs user code on another CPU
// without a pause: that CPU, running one thread, has no tick to bring
// it into the kernel, so the kill must interrupt it (Linux's
// kick_process).  Before, such a thread ran on until some interrupt came
// (the fuzzer saw 10 to 60 s).  Liveness, not speed: 20 s is the bound.
static volatile int spinner_ready;

static void *spin_on(void *arg)
{
	pin_self(*(int *)arg);
	spinner_ready = 1;
	for (;;)
		;
	return NULL;
}

static void t_kill_spinning_thread(void)
{
	int cpus[CPU_SETSIZE], n = usable_cpus(cpus);

	if (n < 2) {
		skip("needs two CPUs");
		return;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		static int cpu;
		pthread_t th;
		cpu = cpus[1];
		pin_self(cpus[0]);
		if (pthread_create(&th, NULL, spin_on, &cpu) != 0)
			_exit(1);
		while (!spinner_ready)
			;
		for (;;)
			pause();
	}
	if (!check_ok(pid, "fork"))
		return;
	// Nothing of ours on the spinner's CPU either: it is alone there.
	cpu_set_t old;
	sched_getaffinity(0, sizeof(old), &old);
	pin_self(cpus[0]);
	sleep_ms(300);		// the spinner alone on its CPU, the tick stopped
	check_ok(kill(pid, SIGKILL), "kill");
	int status = 0;
	pid_t got = 0;
	for (int ms = 0; ms < 20000 && (got = waitpid(pid, &status, WNOHANG)) == 0; ms += 10)
		sleep_ms(10);
	if (got == pid)
		check(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "killed by SIGKILL");
	else
		check(0, "ended within 20 s");
	sched_setaffinity(0, sizeof(old), &old);
	if (got != pid)
		waitpid(pid, &status, 0);	// our move off CPU 0 may end it now
}

static void t_kill_sigterm(void)
{
	pid_t pid = fork_sleeper();

	if (pid < 0)
		return;
	check_ok(kill(pid, SIGTERM), "kill");
	check_killed_by(pid, SIGTERM, "SIGTERM");
}

static void t_kill_blocked_in_read(void)
{
	int p[2];
	pid_t pid;

	if (!check_ok(pipe(p), "pipe"))
		return;
	pid = fork_child();
	if (pid == 0) {
		char c;

		close(p[1]);
		read(p[0], &c, 1);
		_exit(0);
	}
	close(p[0]);
	sleep_ms(30);
	kill(pid, SIGKILL);
	check_killed_by(pid, SIGKILL, "killed while blocked in read");
	close(p[1]);
}

static void t_kill_errors(void)
{
	check_ok(kill(getpid(), 0), "kill(self, 0)");
	check_errno(kill(getpid(), 1000), EINVAL, "bad signal number");
	check_errno(kill(0x3ffffff0, 0), ESRCH, "no such process");
}

static volatile sig_atomic_t usr1_seen;

static void on_usr1(int sig)
{
	usr1_seen = sig;
}

static void t_kill_self_handler(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	usr1_seen = 0;
	if (!check_ok(sigaction(SIGUSR1, &sa, &old), "sigaction"))
		return;
	check_ok(kill(getpid(), SIGUSR1), "kill(self, SIGUSR1)");
	// A signal sent to oneself is delivered before kill returns.
	check(usr1_seen == SIGUSR1, "handler ran");
	sigaction(SIGUSR1, &old, NULL);
}

// ---- exit and exit_group ---------------------------------------------------------------

static void t_exit_syscalls(void)
{
	pid_t pid = fork_child();

	if (pid == 0)
		syscall(SYS_exit, 21);
	check_exit_code(pid, 21, "SYS_exit of a single-threaded process");
	pid = fork_child();
	if (pid == 0)
		syscall(SYS_exit_group, 22);
	check_exit_code(pid, 22, "SYS_exit_group");
	pid = fork_child();
	if (pid == 0)
		exit(23);
	check_exit_code(pid, 23, "exit(3)");
}

static void *thread_exit_only(void *arg)
{
	(void)arg;
	syscall(SYS_exit, 77);
	return NULL;
}

static void *thread_exit_group(void *arg)
{
	(void)arg;
	syscall(SYS_exit_group, 66);
	return NULL;
}

static void t_exit_vs_exit_group_threads(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		pthread_t t;

		// SYS_exit ends only the calling thread.
		if (pthread_create(&t, NULL, thread_exit_only, NULL) != 0)
			_exit(1);
		sleep_ms(50);
		_exit(0);
	}
	check_exit_code(pid, 0, "thread's SYS_exit left the process running");
	pid = fork_child();
	if (pid == 0) {
		pthread_t t;

		// SYS_exit_group from any thread ends the whole process.
		if (pthread_create(&t, NULL, thread_exit_group, NULL) != 0)
			_exit(1);
		for (int i = 0; i < 1000; i++)
			sleep_ms(10);
		_exit(2);
	}
	check_exit_code(pid, 66, "thread's exit_group ended the process");
}

// ---- orphans ---------------------------------------------------------------------------

static void t_orphan_reparented(void)
{
	int p[2];
	pid_t child, report[2] = { 0, 0 };

	if (!check_ok(pipe(p), "pipe"))
		return;
	child = fork_child();
	if (child == 0) {
		pid_t me = getpid(), grandchild = fork();

		if (grandchild == 0) {
			pid_t parent = getppid();

			// Wait (bounded) for the middle child to exit and for
			// the kernel to hand this process to init.
			for (int i = 0; i < 500 && parent == me; i++) {
				sleep_ms(10);
				parent = getppid();
			}
			report[0] = me;
			report[1] = parent;
			write(p[1], report, sizeof(report));
			_exit(0);
		}
		_exit(grandchild > 0 ? 0 : 1);
	}
	close(p[1]);
	check_child_ok(child, "middle child");
	check(read(p[0], report, sizeof(report)) == sizeof(report),
	      "grandchild reported");
	close(p[0]);
	if (report[1] != 1)
		fail("orphan's getppid became %d, want 1", (int)report[1]);
}

// ---- process groups --------------------------------------------------------------------

static void t_pgid_and_session(void)
{
	pid_t pid = fork_child();

	check(getpgrp() > 0, "getpgrp positive");
	check(getsid(0) > 0, "getsid positive");
	if (pid == 0) {
		if (setpgid(0, 0) < 0 || getpgrp() != getpid())
			_exit(1);
		if (setsid() >= 0)
			_exit(2);	// a group leader cannot start a session
		_exit(0);
	}
	check_child_ok(pid, "setpgid (1), setsid refused to a group leader (2)");
	pid = fork_child();
	if (pid == 0) {
		if (setsid() != getpid() || getsid(0) != getpid() ||
		    getpgrp() != getpid())
			_exit(1);
		_exit(0);
	}
	check_child_ok(pid, "setsid in a fresh child");
}

// ---- identity and system information ---------------------------------------------------

static void t_uname(void)
{
	struct utsname u;

	if (!check_ok(uname(&u), "uname"))
		return;
	check(u.sysname[0] != 0, "sysname non-empty");
	check(u.release[0] != 0, "release non-empty");
	check(!strcmp(u.machine, UTS_MACHINE), "machine " UTS_MACHINE);
}

static void t_ids_are_root(void)
{
	check(getuid() == 0, "getuid 0");
	check(geteuid() == 0, "geteuid 0");
	check(getgid() == 0, "getgid 0");
	check(getegid() == 0, "getegid 0");
}

// Two processes on one CPU: each sched_yield lets the other one run (the
// yielder goes behind it), so the other's counter moves between two of
// the parent's yields nearly every time.  A yield that returned at once
// would leave it still until a preemption.
static void t_sched_yield(void)
{
	volatile int *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cpu_set_t before, one;
	int cpu = sched_getcpu(), moved = 0;
	pid_t pid;

	if (!check(shared != MAP_FAILED, "mmap") ||
	    !check(sched_getaffinity(0, sizeof(before), &before) == 0, "sched_getaffinity"))
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (!check(sched_setaffinity(0, sizeof(one), &one) == 0, "pin to one CPU"))
		return;
	pid = fork_child();
	if (pid == 0) {
		while (!shared[1]) {
			__atomic_add_fetch(&shared[0], 1, __ATOMIC_RELAXED);
			sched_yield();
		}
		_exit(0);
	}
	for (int i = 0; i < 100000 && pid > 0 && shared[0] == 0; i++)
		sched_yield();
	for (int i = 0; i < 200 && pid > 0; i++) {
		int seen = shared[0];

		check(sched_yield() == 0, "sched_yield returns 0");
		moved += shared[0] != seen;
	}
	shared[1] = 1;
	if (pid > 0)
		check_child_ok(pid, "the yielding child");
	sched_setaffinity(0, sizeof(before), &before);
	munmap((void *)shared, 4096);
	if (moved < 180)
		fail("the other process ran after %d of 200 yields", moved);
}

// ---- time ---------------------------------------------------------------------------------

static void t_clock_monotonic(void)
{
	int64_t prev = now_ns(CLOCK_MONOTONIC), start = prev;
	int backwards = 0;

	for (int i = 0; i < 1000; i++) {
		int64_t t = now_ns(CLOCK_MONOTONIC);

		backwards |= t < prev;
		prev = t;
	}
	check(!backwards, "never goes backwards");
	sleep_ms(5);
	check(now_ns(CLOCK_MONOTONIC) > start, "advances across a sleep");
	check(start > 0, "positive");
}

static void t_clock_getres(void)
{
	struct timespec res = { 99, 99 };

	check_ok(clock_getres(CLOCK_MONOTONIC, &res), "clock_getres");
	check(res.tv_sec == 0 && res.tv_nsec > 0 && res.tv_nsec <= 10000000,
	      "resolution between 1 ns and 10 ms");
	check_errno(syscall(SYS_clock_gettime, 1234, &res), EINVAL,
		    "clock_gettime of an unknown clock");
}

static void t_realtime_agrees(void)
{
	struct timeval tv;
	struct timespec ts;
	time_t t;

	check_ok(gettimeofday(&tv, NULL), "gettimeofday");
	check_ok(clock_gettime(CLOCK_REALTIME, &ts), "clock_gettime(REALTIME)");
	t = time(NULL);
	check(tv.tv_usec >= 0 && tv.tv_usec < 1000000, "tv_usec in range");
	check(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000, "tv_nsec in range");
	check(llabs((long long)ts.tv_sec - (long long)tv.tv_sec) <= 2,
	      "clock_gettime and gettimeofday agree");
	check(llabs((long long)t - (long long)ts.tv_sec) <= 2,
	      "time and clock_gettime agree");
	check(syscall(SYS_time, NULL) >= t, "raw time syscall");
}

static void t_nanosleep(void)
{
	struct timespec req = { 0, 10 * 1000000L }, rem = { 0, 0 };
	int64_t start = now_ns(CLOCK_MONOTONIC), waited;

	check_ok(nanosleep(&req, &rem), "nanosleep 10 ms");
	waited = now_ns(CLOCK_MONOTONIC) - start;
	// Only a lower bound: emulation may oversleep by any amount.
	if (waited < 10 * 1000000LL)
		fail("slept %lld ns, asked for 10 ms", (long long)waited);
}

static void t_nanosleep_einval(void)
{
	struct timespec bad = { 0, 1000000000L };

	check_errno(nanosleep(&bad, NULL), EINVAL, "tv_nsec = 1e9");
	bad = (struct timespec){ -1, 0 };
	check_errno(nanosleep(&bad, NULL), EINVAL, "negative tv_sec");
}

static void t_clock_nanosleep(void)
{
	struct timespec deadline;
	int64_t start = now_ns(CLOCK_MONOTONIC);

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_nsec += 10 * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	check(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == 0,
	      "absolute clock_nanosleep");
	check(now_ns(CLOCK_MONOTONIC) - start >= 10 * 1000000LL, "reached the deadline");
}

// ---- randomness and limits ----------------------------------------------------------------

static void t_getrandom(void)
{
	unsigned char a[64], b[64];
	int nonzero = 0;

	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	check(syscall(SYS_getrandom, a, sizeof(a), 0) == sizeof(a), "64 bytes");
	check(syscall(SYS_getrandom, b, sizeof(b), GRND_NONBLOCK) == sizeof(b),
	      "64 bytes, GRND_NONBLOCK");
	for (size_t i = 0; i < sizeof(a); i++)
		nonzero |= a[i];
	check(nonzero, "not all zero");
	check(memcmp(a, b, sizeof(a)) != 0, "two draws differ");
	check_errno(syscall(SYS_getrandom, a, sizeof(a), 0x100), EINVAL,
		    "unknown flag");
}

static void t_rlimits(void)
{
	struct rlimit r = { 0, 0 }, old = { 0, 0 };

	if (check_ok(getrlimit(RLIMIT_STACK, &r), "getrlimit(RLIMIT_STACK)"))
		check(r.rlim_cur > 0 && r.rlim_cur <= r.rlim_max, "stack limit sane");
	if (check_ok(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &old),
		     "prlimit64(RLIMIT_NOFILE) read"))
		check(old.rlim_cur >= 64, "at least 64 descriptors");
	check_ok(syscall(SYS_prlimit64, 0, RLIMIT_STACK, NULL, &r),
		 "prlimit64(RLIMIT_STACK) read");
	check_errno(syscall(SYS_prlimit64, 0, 1000, NULL, &r), EINVAL,
		    "unknown resource");
}

// umask belongs to the process: a child inherits it, and changing it in
// the child leaves the parent's alone.
static void t_umask_per_process(void)
{
	mode_t old = umask(027);
	pid_t pid = fork_child();

	if (pid == 0) {
		mode_t inherited = umask(077);
		_exit(inherited == 027 && umask(077) == 077 ? 0 : 1);
	}
	check_child_ok(pid, "child saw the inherited mask");
	check(umask(old) == 027, "parent's mask unchanged by the child");
}

static const struct test_case cases[] = {
	{ "fork_exit_status", t_fork_exit_status },
	{ "umask_per_process", t_umask_per_process },
	{ "fork_identity", t_fork_identity },
	{ "fork_memory_is_copied", t_fork_memory_is_copied },
	{ "vfork", t_vfork },
	{ "vfork_parent_killable", t_vfork_parent_killable },
	{ "vfork_parent_sigterm", t_vfork_parent_sigterm },
	{ "vfork_thread_waits_for_exit", t_vfork_thread_waits },
	{ "vfork_thread_killable", t_vfork_thread_killable },
	{ "vfork_thread_exec", t_vfork_thread_exec },
	{ "getpid_gettid_getppid", t_gettid },
	{ "wait4_exit_codes", t_wait4_exit_codes },
	{ "wait4_null_status", t_wait4_null_status },
	{ "waitpid_any", t_wait_any },
	{ "waitpid_wnohang", t_wait_nohang },
	{ "waitpid_echild", t_wait_echild },
	{ "wait_echild_sigchld_ignored", t_wait_sigchld_ignored },
	{ "wait_echild_sa_nocldwait", t_wait_sa_nocldwait },
	{ "exit_signal_0_not_autoreaped", t_wait_exit_signal_zero },
	{ "wait_plain_wclone_wall", t_wait_clone_children },
	{ "reparented_clone_child_reports_sigchld", t_wait_reparented_clone_child },
	{ "waitid_exited", t_waitid_exited },
	{ "waitid_killed", t_waitid_killed },
	{ "many_children_50", t_many_children },
	{ "zombie_until_reaped", t_zombie_until_reaped },
	{ "kill_sigkill", t_kill_sigkill },
	{ "kill_thread_spinning_elsewhere", t_kill_spinning_thread },
	{ "kill_sigterm", t_kill_sigterm },
	{ "kill_blocked_in_read", t_kill_blocked_in_read },
	{ "kill_errors", t_kill_errors },
	{ "kill_self_handler", t_kill_self_handler },
	{ "exit_and_exit_group", t_exit_syscalls },
	{ "exit_vs_exit_group_threads", t_exit_vs_exit_group_threads },
	{ "orphan_reparented_to_init", t_orphan_reparented },
	{ "pgid_and_session", t_pgid_and_session },
	{ "uname", t_uname },
	{ "ids_are_root", t_ids_are_root },
	{ "sched_yield", t_sched_yield },
	{ "clock_monotonic", t_clock_monotonic },
	{ "clock_getres", t_clock_getres },
	{ "realtime_clocks_agree", t_realtime_agrees },
	{ "nanosleep_10ms", t_nanosleep },
	{ "nanosleep_einval", t_nanosleep_einval },
	{ "clock_nanosleep_abstime", t_clock_nanosleep },
	{ "getrandom", t_getrandom },
	{ "rlimits", t_rlimits },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
