// kcmp(2): which kernel objects two processes share, as clone's flags and
// fork made them (KCMP_FILE, VM, FILES, FS, SIGHAND, IO, SYSVSEM), the
// ordering answer (0 equal, 1 or 2 for two different objects, consistent
// both ways), and Linux's errnos: ESRCH, EBADF, EINVAL for an unknown
// type, EPERM for another user's process.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"

#define KCMP_FILE	0
#define KCMP_VM		1
#define KCMP_FILES	2
#define KCMP_FS		3
#define KCMP_SIGHAND	4
#define KCMP_IO		5
#define KCMP_SYSVSEM	6
#define KCMP_TYPES	8

static long kcmp(pid_t a, pid_t b, int type, unsigned long i1, unsigned long i2)
{
	return syscall(SYS_kcmp, a, b, type, i1, i2);
}

// A child that waits until its end of 'hold' is closed; made with clone
// and 'flags'.
static char stack[64 * 1024] __attribute__((aligned(16)));
static int hold[2];

static int wait_for_parent(void *arg)
{
	char c;

	(void)arg;
	close(hold[1]);
	while (read(hold[0], &c, 1) < 0 && errno == EINTR)
		;
	return 0;
}

static pid_t start_child(int flags)
{
	if (pipe(hold) < 0)
		return fail("pipe"), -1;
	pid_t pid = clone(wait_for_parent, stack + sizeof(stack), flags | SIGCHLD, NULL);
	if (pid < 0)
		fail("clone %#x: errno %d", flags, errno);
	return pid;
}

static void end_child(pid_t pid)
{
	close(hold[1]);
	close(hold[0]);
	if (pid > 0)
		check_child_ok(pid, "child");
}

static void t_fork_shares_nothing_but_files(void)
{
	pid_t me = getpid(), pid = start_child(0);
	long r;

	if (pid < 0)
		return;
	// The same open file behind descriptor 0, different tables and mm.
	check(kcmp(me, pid, KCMP_FILE, hold[0], hold[0]) == 0, "KCMP_FILE: fork shares open files");
	r = kcmp(me, pid, KCMP_FILE, hold[0], 1);
	check(r == 1 || r == 2, "KCMP_FILE: two different files are ordered");
	check(kcmp(pid, me, KCMP_FILE, 1, hold[0]) == 3 - r, "the order reversed");
	check(kcmp(me, pid, KCMP_VM, 0, 0) > 0, "KCMP_VM: fork copies the address space");
	check(kcmp(me, pid, KCMP_FILES, 0, 0) > 0, "KCMP_FILES: fork copies the table");
	check(kcmp(me, pid, KCMP_FS, 0, 0) > 0, "KCMP_FS: fork copies the view");
	check(kcmp(me, pid, KCMP_SIGHAND, 0, 0) > 0, "KCMP_SIGHAND: fork copies the handlers");
	check(kcmp(me, me, KCMP_VM, 0, 0) == 0, "KCMP_VM: a process with itself");
	end_child(pid);
}

static void shares(int flag, int type, const char *what)
{
	pid_t pid = start_child(flag);

	if (pid < 0)
		return;
	if (kcmp(getpid(), pid, type, 0, 0) != 0)
		fail("%s: rc=%ld errno=%d", what, kcmp(getpid(), pid, type, 0, 0), errno);
	end_child(pid);
}

static void t_clone_vm(void) { shares(CLONE_VM, KCMP_VM, "CLONE_VM shares the address space"); }
static void t_clone_files(void) { shares(CLONE_FILES, KCMP_FILES, "CLONE_FILES shares the table"); }
static void t_clone_fs(void) { shares(CLONE_FS, KCMP_FS, "CLONE_FS shares the view"); }
static void t_clone_io(void) { shares(CLONE_IO, KCMP_IO, "CLONE_IO shares the I/O context"); }
static void t_clone_sysvsem(void) { shares(CLONE_SYSVSEM, KCMP_SYSVSEM, "CLONE_SYSVSEM"); }

static void t_errors(void)
{
	pid_t me = getpid();

	check_errno(kcmp(me, 0x7ffffff0, KCMP_VM, 0, 0), ESRCH, "no such process");
	check_errno(kcmp(-1, me, KCMP_VM, 0, 0), ESRCH, "pid -1");
	check_errno(kcmp(me, me, KCMP_TYPES, 0, 0), EINVAL, "type KCMP_TYPES");
	check_errno(kcmp(me, me, -1, 0, 0), EINVAL, "type -1");
	check_errno(kcmp(me, me, KCMP_FILE, 0, 9999), EBADF, "a closed descriptor");
	check_errno(kcmp(me, me, KCMP_FILE, 9999, 0), EBADF, "a closed first descriptor");
}

// Another user's process: EPERM; one's own after dropping to that user is
// fine.
static int c_other_user(void)
{
	pid_t parent = getppid();

	if (drop_to(U1, G1, 0, NULL))
		return 1;
	if (c_err(kcmp(getpid(), parent, KCMP_VM, 0, 0), EPERM, "root's process as uid 1000"))
		return 1;
	return c_eq(kcmp(getpid(), getpid(), KCMP_VM, 0, 0), 0, "its own process");
}

static void t_other_user(void) { in_child(c_other_user, "other user"); }

static const struct test_case cases[] = {
	{ "fork_shares_open_files_only", t_fork_shares_nothing_but_files },
	{ "clone_vm", t_clone_vm },
	{ "clone_files", t_clone_files },
	{ "clone_fs", t_clone_fs },
	{ "clone_io", t_clone_io },
	{ "clone_sysvsem", t_clone_sysvsem },
	{ "errors", t_errors },
	{ "other_user_EPERM", t_other_user },
};

int main(void)
{
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
