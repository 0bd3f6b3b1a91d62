// clone3: argument checks in Linux's order and with its errnos (struct
// size, unknown and reused flags, exit_signal, stack and stack_size,
// set_tid and set_tid_size), and set_tid choosing the child's PID.
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "testcase.h"

struct clone_args_v2 {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

#define CLONE_PARENT_F	0x00008000ULL
#define CLONE_THREAD_F	0x00010000ULL
#define CLONE_SIGHAND_F	0x00000800ULL
#define CLONE_VM_F	0x00000100ULL
#define CLONE_DETACHED_F 0x00400000ULL

// clone3 in a way that survives success: a child exits at once with 5.
static long clone3_raw(void *ca, size_t size)
{
	long rc = syscall(SYS_clone3, ca, size);
	if (rc == 0)
		_exit(5);
	if (rc > 0) {
		int st;
		waitpid((pid_t)rc, &st, 0);
	}
	return rc;
}

static long call(struct clone_args_v2 *ca)
{
	return clone3_raw(ca, sizeof(*ca));
}

static void t_size(void)
{
	static unsigned char big[4096 + 64];
	struct clone_args_v2 *ca = (struct clone_args_v2 *)big;

	memset(big, 0, sizeof(big));
	ca->exit_signal = SIGCHLD;
	check_errno(clone3_raw(ca, 0), EINVAL, "size 0");
	check_errno(clone3_raw(ca, 63), EINVAL, "size 63");
	check_errno(clone3_raw(ca, 4097), E2BIG, "size 4097");
	big[100] = 1;
	check_errno(clone3_raw(ca, 128), E2BIG, "a non-zero byte beyond the known struct");
	big[100] = 0;
	long pid = clone3_raw(ca, 128);
	check(pid > 0, "a longer struct with zeros beyond ours works");
	pid = clone3_raw(ca, 64);
	check(pid > 0, "the first version's 64 bytes work");
	check_errno(clone3_raw((void *)8, 64), EFAULT, "a bad struct pointer");
}

static void t_flags(void)
{
	struct clone_args_v2 ca = { .exit_signal = SIGCHLD };

	ca.flags = 1ULL << 40;
	check_errno(call(&ca), EINVAL, "an unknown high flag");
	ca.flags = SIGCHLD;
	check_errno(call(&ca), EINVAL, "CSIGNAL bits in flags");
	ca.flags = CLONE_DETACHED_F;
	check_errno(call(&ca), EINVAL, "CLONE_DETACHED");
}

static void t_exit_signal(void)
{
	struct clone_args_v2 ca = { 0 };

	ca.exit_signal = 65;
	check_errno(call(&ca), EINVAL, "exit_signal 65");
	ca.exit_signal = (1ULL << 32) | SIGCHLD;
	check_errno(call(&ca), EINVAL, "exit_signal with high bits");
	ca.exit_signal = SIGCHLD;
	ca.flags = CLONE_PARENT_F;
	check_errno(call(&ca), EINVAL, "CLONE_PARENT with an exit signal");
	ca.flags = CLONE_THREAD_F | CLONE_SIGHAND_F | CLONE_VM_F;
	check_errno(call(&ca), EINVAL, "CLONE_THREAD with an exit signal");
}

static void t_stack(void)
{
	struct clone_args_v2 ca = { .exit_signal = SIGCHLD };
	static char stack[8192];

	ca.stack = (uint64_t)(uintptr_t)stack;
	check_errno(call(&ca), EINVAL, "a stack without a size");
	ca.stack = 0;
	ca.stack_size = sizeof(stack);
	check_errno(call(&ca), EINVAL, "a size without a stack");
	ca.stack = 0xffff800000000000ULL;
	check_errno(call(&ca), EINVAL, "a stack in the kernel half");
}

// A PID nothing holds: from 'start' down.
static pid_t free_pid(pid_t start)
{
	for (pid_t p = start; p > 300; p--)
		if (kill(p, 0) < 0 && errno == ESRCH)
			return p;
	return 0;
}

static void t_set_tid_errors(void)
{
	struct clone_args_v2 ca = { .exit_signal = SIGCHLD };
	int32_t tids[40];

	ca.set_tid_size = 1;
	check_errno(call(&ca), EINVAL, "set_tid_size without set_tid");
	ca.set_tid = (uint64_t)(uintptr_t)tids;
	ca.set_tid_size = 0;
	check_errno(call(&ca), EINVAL, "set_tid without set_tid_size");
	ca.set_tid_size = 33;
	check_errno(call(&ca), EINVAL, "set_tid_size 33");
	ca.set_tid = 8;
	ca.set_tid_size = 1;
	check_errno(call(&ca), EFAULT, "set_tid unreadable");
	ca.set_tid = (uint64_t)(uintptr_t)tids;
	tids[0] = tids[1] = free_pid(3000);
	ca.set_tid_size = 2;
	check_errno(call(&ca), EINVAL, "two levels in the initial PID namespace");
	ca.set_tid_size = 1;
	tids[0] = 0;
	check_errno(call(&ca), EINVAL, "PID 0");
	tids[0] = -1;
	check_errno(call(&ca), EINVAL, "PID -1");
	tids[0] = 0x7fffffff;
	check_errno(call(&ca), EINVAL, "a PID past pid_max");
	tids[0] = getpid();
	check_errno(call(&ca), EEXIST, "the caller's own PID");
	tids[0] = 1;
	check_errno(call(&ca), EEXIST, "PID 1");
}

static void t_set_tid_works(void)
{
	struct clone_args_v2 ca = { .exit_signal = SIGCHLD };
	int32_t tid = free_pid(3000);

	if (!tid) {
		fail("no free PID below 3000");
		return;
	}
	ca.set_tid = (uint64_t)(uintptr_t)&tid;
	ca.set_tid_size = 1;
	long pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0)
		_exit(getpid() == tid ? 0 : 1);
	if (pid < 0) {
		fail("clone3 with set_tid %d: errno %d", tid, errno);
		return;
	}
	check(pid == tid, "the child has the PID asked for");
	check_child_ok((pid_t)pid, "the child sees it too");
}

// Choosing a PID needs CAP_CHECKPOINT_RESTORE (or CAP_SYS_ADMIN):
// EPERM for anyone else, after the range check (EINVAL first).
static void t_set_tid_unprivileged(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		struct clone_args_v2 ca = { .exit_signal = SIGCHLD };
		int32_t tid = free_pid(3000);

		if (setuid(65534) < 0)
			_exit(1);
		ca.set_tid = (uint64_t)(uintptr_t)&tid;
		ca.set_tid_size = 1;
		long r = syscall(SYS_clone3, &ca, sizeof(ca));
		if (r == 0)
			_exit(0);
		if (r > 0 || errno != EPERM)
			_exit(2);
		tid = 0;
		if (syscall(SYS_clone3, &ca, sizeof(ca)) != -1 || errno != EINVAL)
			_exit(3);
		_exit(0);
	}
	check_child_ok(pid, "unprivileged set_tid (1 setuid, 2 not EPERM, 3 PID 0 not EINVAL)");
}

static const struct test_case cases[] = {
	{ "size", t_size },
	{ "flags", t_flags },
	{ "exit_signal", t_exit_signal },
	{ "stack", t_stack },
	{ "set_tid_errors", t_set_tid_errors },
	{ "set_tid_chooses_pid", t_set_tid_works },
	{ "set_tid_unprivileged_EPERM", t_set_tid_unprivileged },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
