// ioprio_set/ioprio_get: the stored priority (0, class none, until a
// thread sets one), the effective one a group query reports (best effort
// at nice 0's level 4), inheritance by fork and threads, CLONE_IO
// sharing only once the parent has a context, user and group targets,
// and Linux's checks (class, level, real-time needs CAP_SYS_NICE,
// another user's process EPERM, ESRCH, EINVAL).  Every case runs in a
// child so the runner's own priority is never changed.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"

#define WHO_PROCESS	1
#define WHO_PGRP	2
#define WHO_USER	3
#define PRIO(class, level)	(((class) << 13) | (level))
#define RT	1
#define BE	2
#define IDLE	3
#define KCMP_IO	5

static long io_set(int which, int who, int prio)
{
	return syscall(SYS_ioprio_set, which, who, prio);
}

static long io_get(int which, int who)
{
	return syscall(SYS_ioprio_get, which, who);
}

static int c_default_and_set(void)
{
	int bad = 0;

	bad |= c_eq(io_get(WHO_PROCESS, 0), 0, "a fresh process stores class none");
	bad |= c_eq(io_get(WHO_PROCESS, getpid()), 0, "the same by its pid");
	bad |= c_ok(setpgid(0, 0), "own process group");
	bad |= c_eq(io_get(WHO_PGRP, 0), PRIO(BE, 4), "the group reports best effort 4");
	bad |= c_ok(io_set(WHO_PROCESS, 0, PRIO(BE, 7)), "set best effort 7");
	bad |= c_eq(io_get(WHO_PROCESS, 0), PRIO(BE, 7), "reads back");
	bad |= c_ok(io_set(WHO_PROCESS, 0, PRIO(IDLE, 0)), "set idle");
	bad |= c_eq(io_get(WHO_PGRP, 0), PRIO(IDLE, 0), "the group reports idle");
	bad |= c_ok(io_set(WHO_PROCESS, 0, PRIO(RT, 2)), "root may set real-time");
	bad |= c_eq(io_get(WHO_PROCESS, 0), PRIO(RT, 2), "real-time reads back");
	bad |= c_ok(io_set(WHO_PROCESS, 0, 0), "back to class none");
	bad |= c_eq(io_get(WHO_PROCESS, 0), 0, "none again");
	// Class none follows the CPU priority: the level from nice, the
	// class from the policy.
	bad |= c_ok(syscall(SYS_setpriority, 0, 0, 10), "nice 10");
	bad |= c_eq(io_get(WHO_PGRP, 0), PRIO(BE, 6), "nice 10 is best effort 6");
	struct sched_param sp = { 0 };
	bad |= c_ok(syscall(SYS_sched_setscheduler, 0, SCHED_IDLE, &sp), "SCHED_IDLE");
	bad |= c_eq(io_get(WHO_PGRP, 0), PRIO(IDLE, 6), "SCHED_IDLE is class idle");
	sp.sched_priority = 1;
	bad |= c_ok(syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &sp), "SCHED_FIFO");
	bad |= c_eq(io_get(WHO_PGRP, 0), PRIO(RT, 6), "SCHED_FIFO is class real-time");
	return bad;
}

static void t_default_and_set(void)
{
	in_child(c_default_and_set, "default and set");
}

static int c_errors(void)
{
	int bad = 0;

	bad |= c_err(io_set(WHO_PROCESS, 0, PRIO(4, 0)), EINVAL, "class 4");
	bad |= c_err(io_set(WHO_PROCESS, 0, PRIO(7, 0)), EINVAL, "class 7");
	bad |= c_err(io_set(WHO_PROCESS, 0, PRIO(0, 1)), EINVAL, "class none with a level");
	bad |= c_err(io_set(0, 0, PRIO(BE, 1)), EINVAL, "which 0");
	bad |= c_err(io_set(4, 0, PRIO(BE, 1)), EINVAL, "which 4");
	bad |= c_err(io_get(0, 0), EINVAL, "get which 0");
	bad |= c_err(io_set(WHO_PROCESS, 0x7ffffff0, PRIO(BE, 1)), ESRCH, "no such thread");
	bad |= c_err(io_get(WHO_PROCESS, -5), ESRCH, "negative id");
	bad |= c_err(io_get(WHO_PGRP, 0x7ffffff0), ESRCH, "no such group");
	// The class is checked before the target.
	bad |= c_err(io_set(WHO_PROCESS, 0x7ffffff0, PRIO(5, 0)), EINVAL, "class before target");
	return bad;
}

static void t_errors(void)
{
	in_child(c_errors, "errors");
}

static int child_reports(int want)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(io_get(WHO_PROCESS, 0) == want ? 0 : 1);
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 :
		cfail("forked child does not have %#x", want);
}

static void *thread_sets(void *arg)
{
	long *out = arg;

	out[0] = io_get(WHO_PROCESS, 0);
	out[1] = io_set(WHO_PROCESS, 0, PRIO(BE, 1));
	return 0;
}

static int c_inherited(void)
{
	int bad = 0;
	pthread_t th;
	long got[2] = { -1, -1 };

	bad |= c_ok(io_set(WHO_PROCESS, 0, PRIO(BE, 6)), "set");
	bad |= child_reports(PRIO(BE, 6));
	// A thread (no CLONE_IO) has a copy: its own set leaves ours alone.
	if (pthread_create(&th, 0, thread_sets, got) != 0)
		return cfail("pthread_create");
	pthread_join(th, 0);
	bad |= c_eq(got[0], PRIO(BE, 6), "the thread starts with a copy");
	bad |= c_eq(got[1], 0, "the thread sets its own");
	bad |= c_eq(io_get(WHO_PROCESS, 0), PRIO(BE, 6), "ours is unchanged");
	return bad;
}

static void t_inherited(void)
{
	in_child(c_inherited, "inherited");
}

// A CLONE_IO child: 0 in the child, its pid in the parent.
static long clone_io(void)
{
	return syscall(SYS_clone, CLONE_IO | SIGCHLD, 0, 0, 0, 0);
}

static int c_clone_io(void)
{
	int bad = 0, status;
	int *shared = (int *)child_why + 200;	// past the reason text

	// Without a context yet there is nothing to share: the child's set
	// stays its own.
	long pid = clone_io();
	if (pid == 0)
		_exit(io_set(WHO_PROCESS, 0, PRIO(BE, 2)) == 0 ? 0 : 1);
	waitpid((pid_t)pid, &status, 0);
	bad |= c_eq(io_get(WHO_PROCESS, 0), 0, "no context: nothing shared");
	// With one, the child shares it: its set is ours.
	bad |= c_ok(io_set(WHO_PROCESS, 0, PRIO(BE, 5)), "set");
	shared[0] = 0;
	pid = clone_io();
	if (pid == 0) {
		shared[0] = (int)io_get(WHO_PROCESS, 0);
		_exit(io_set(WHO_PROCESS, 0, PRIO(IDLE, 0)) == 0 ? 0 : 1);
	}
	waitpid((pid_t)pid, &status, 0);
	bad |= c_eq(shared[0], PRIO(BE, 5), "the CLONE_IO child sees ours");
	bad |= c_eq(io_get(WHO_PROCESS, 0), PRIO(IDLE, 0), "its set is ours");
	// kcmp's KCMP_IO: one context with a CLONE_IO child, two with fork.
	int hold[2];
	if (pipe(hold) < 0)
		return cfail("pipe");
	for (int with_io = 0; with_io < 2; with_io++) {
		char c;
		pid = with_io ? clone_io() : fork();
		if (pid == 0) {
			close(hold[1]);
			_exit(read(hold[0], &c, 1) == 0 ? 0 : 1);
		}
		long r = syscall(SYS_kcmp, getpid(), pid, KCMP_IO, 0, 0);
		bad |= with_io ? c_eq(r, 0, "KCMP_IO: CLONE_IO shares the context") :
			(r == 1 || r == 2 ? 0 : cfail("KCMP_IO after fork: %ld, want 1 or 2", r));
		if (with_io)
			close(hold[1]);
		else
			kill((pid_t)pid, SIGKILL);
		waitpid((pid_t)pid, &status, 0);
	}
	close(hold[0]);
	return bad;
}

static void t_clone_io(void)
{
	if (!child_why) {
		skip("no shared page");
		return;
	}
	in_child(c_clone_io, "CLONE_IO");
}

static int c_unprivileged(void)
{
	int bad = 0;
	pid_t other = getppid();	// the runner, still root

	if (drop_to(U1, G1, 0, 0))
		return 1;
	bad |= c_err(io_set(WHO_PROCESS, 0, PRIO(RT, 0)), EPERM, "real-time without CAP_SYS_NICE");
	bad |= c_ok(io_set(WHO_PROCESS, 0, PRIO(BE, 3)), "best effort is anyone's");
	bad |= c_ok(io_set(WHO_PROCESS, 0, PRIO(IDLE, 0)), "idle is anyone's");
	bad |= c_err(io_set(WHO_PROCESS, other, PRIO(BE, 3)), EPERM, "another user's process");
	bad |= c_ok(io_get(WHO_PROCESS, other), "reading another's is allowed");
	// WHO_USER: every thread of the user, here just this one.
	bad |= c_ok(io_set(WHO_USER, U1, PRIO(BE, 1)), "set for the user");
	bad |= c_eq(io_get(WHO_PROCESS, 0), PRIO(BE, 1), "this thread got it");
	bad |= c_eq(io_get(WHO_USER, U1), PRIO(BE, 1), "the user reports it");
	bad |= c_eq(io_get(WHO_USER, 0), PRIO(BE, 1), "user 0 means the caller's");
	bad |= c_err(io_get(WHO_USER, 4242), ESRCH, "a user with no threads");
	return bad;
}

static void t_unprivileged(void)
{
	in_child(c_unprivileged, "unprivileged");
}

static const struct test_case cases[] = {
	{ "default_set_and_group_value", t_default_and_set },
	{ "errors", t_errors },
	{ "inherited_by_fork_and_threads", t_inherited },
	{ "clone_io_shares_a_context", t_clone_io },
	{ "unprivileged_rules_and_user_target", t_unprivileged },
};

int main(void)
{
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root\n");
		return 0;
	}
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
