// pidfd: descriptors that name a process, as Linux 6.1: pidfd_open (its
// errnos, close-on-exec), poll readable once the process exits,
// waitid(P_PIDFD) (and EAGAIN through a PIDFD_NONBLOCK one),
// pidfd_send_signal (kill semantics, a siginfo's rules, ESRCH once
// reaped), pidfd_getfd, CLONE_PIDFD through clone and clone3 (EFAULT for
// a bad pointer creates no child), fdinfo's Pid line.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#define PIDFD_NONBLOCK O_NONBLOCK
#ifndef SYS_process_mrelease
#define SYS_process_mrelease 448
#endif

static int pidfd_open(pid_t pid, unsigned flags)
{
	return (int)syscall(SYS_pidfd_open, pid, flags);
}

static int pidfd_send_signal(int fd, int sig, siginfo_t *info, unsigned flags)
{
	return (int)syscall(SYS_pidfd_send_signal, fd, sig, info, flags);
}

// A child that waits for its pipe to close, then exits with 'code'.
static pid_t waiting_child(int *release, int code)
{
	int p[2];

	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork_child();
	if (pid == 0) {
		char c;

		close(p[1]);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(code);
	}
	close(p[0]);
	*release = p[1];
	return pid;
}

static bool readable(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 1 && (pfd.revents & POLLIN);
}

static void t_open_poll_waitid(void)
{
	int release;
	pid_t pid = waiting_child(&release, 7);
	int fd = pidfd_open(pid, 0);
	siginfo_t si = { 0 };

	if (!check_ok(fd, "pidfd_open"))
		return;
	check(fcntl(fd, F_GETFD) == FD_CLOEXEC, "close-on-exec");
	check(!readable(fd, 0), "not readable while the child runs");
	close(release);
	check(readable(fd, 5000), "readable once it exited");
	check_ok(waitid(P_PIDFD, fd, &si, WEXITED), "waitid(P_PIDFD)");
	check(si.si_pid == pid && si.si_code == CLD_EXITED && si.si_status == 7, "its exit");
	check(readable(fd, 0), "still readable when reaped");
	check_errno(waitid(P_PIDFD, fd, &si, WEXITED), ECHILD, "reaped: ECHILD");
	check_errno(pidfd_send_signal(fd, SIGTERM, NULL, 0), ESRCH, "reaped: no one to signal");
	close(fd);
}

static volatile pid_t thread_tid;

static void *idle(void *arg)
{
	(void)arg;
	thread_tid = gettid();
	pause();
	return NULL;
}

static bool on_switchyard(void)
{
	struct utsname u;

	return uname(&u) == 0 && strstr(u.version, "Switchyard") != NULL;
}

static void t_open_errors(void)
{
	check_errno(pidfd_open(getpid(), 1), EINVAL, "unknown flags");
	check_errno(pidfd_open(0, 0), EINVAL, "pid 0");
	check_errno(pidfd_open(-1, 0), EINVAL, "pid -1");
	check_errno(pidfd_open(0x3ffffff0, 0), ESRCH, "no such process");
	// Another thread's ID names no process.
	pid_t child = fork_child();
	if (child == 0) {
		pthread_t th;
		pthread_create(&th, NULL, idle, NULL);
		while (!thread_tid)
			usleep(1000);
		int rc = pidfd_open(thread_tid, 0);
		// Linux 6.1: EINVAL (later kernels: ENOENT).
		_exit(rc == -1 && (errno == EINVAL || (!on_switchyard() && errno == ENOENT)) ? 0 : 1);
	}
	check_child_ok(child, "a thread's ID: EINVAL");
	int fd = pidfd_open(getpid(), 0);
	char c;
	check(fd >= 0 && read(fd, &c, 1) == -1 && errno == EINVAL, "read: EINVAL");
	close(fd);
}

static void t_nonblocking_waitid(void)
{
	int release;
	pid_t pid = waiting_child(&release, 0);
	int fd = pidfd_open(pid, PIDFD_NONBLOCK);
	siginfo_t si;

	if (!check_ok(fd, "pidfd_open(PIDFD_NONBLOCK)"))
		return;
	check_errno(waitid(P_PIDFD, fd, &si, WEXITED), EAGAIN, "nothing yet: EAGAIN");
	si.si_pid = -1;
	check_ok(waitid(P_PIDFD, fd, &si, WEXITED | WNOHANG), "with WNOHANG: 0");
	check(si.si_pid == 0, "and nothing reported");
	close(release);
	check(readable(fd, 5000), "readable once it exited");
	check_ok(waitid(P_PIDFD, fd, &si, WEXITED), "then reaped");
	close(fd);
}

static void t_send_signal(void)
{
	int release;
	pid_t pid = waiting_child(&release, 0);
	int fd = pidfd_open(pid, 0), notpidfd = open("/", O_RDONLY);
	siginfo_t si = { 0 };

	// (Linux 6.9 gave meaning to the low flag bits; 6.1 refuses any.)
	check_errno(pidfd_send_signal(fd, SIGTERM, NULL, 1 << 6), EINVAL, "flags");
	check_errno(pidfd_send_signal(notpidfd, SIGTERM, NULL, 0), EBADF, "not a pidfd");
	check_errno(pidfd_send_signal(-1, SIGTERM, NULL, 0), EBADF, "no descriptor");
	check_errno(pidfd_send_signal(fd, 100, NULL, 0), EINVAL, "signal 100");
	check_ok(pidfd_send_signal(fd, 0, NULL, 0), "signal 0: it exists");
	si.si_signo = SIGTERM;
	si.si_code = SI_USER;
	check_errno(pidfd_send_signal(fd, SIGTERM, &si, 0), EPERM,
		    "a siginfo claiming kill() to another process");
	si.si_signo = SIGINT;
	check_errno(pidfd_send_signal(fd, SIGTERM, &si, 0), EINVAL, "si_signo not the signal");
	check_errno(pidfd_send_signal(fd, SIGTERM, (siginfo_t *)8, 0), EFAULT, "a bad siginfo");
	check_ok(pidfd_send_signal(fd, SIGTERM, NULL, 0), "SIGTERM");
	check_ok(waitid(P_PIDFD, fd, &si, WEXITED), "waitid");
	check(si.si_code == CLD_KILLED && si.si_status == SIGTERM, "killed by it");
	close(release);
	close(notpidfd);
	close(fd);
}

// Linux's pidfd_send_signal also takes an open /proc/PID directory (LTP
// pidfd_send_signal01); a thread's /proc/PID/task/TID is no pidfd, and
// waitid takes only real ones.
static void t_send_signal_by_proc_dir(void)
{
	int release;
	pid_t pid = waiting_child(&release, 0);
	char dir[64];
	int fd, task;
	siginfo_t si = { 0 };

	snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	snprintf(dir, sizeof(dir), "/proc/%d/task/%d", (int)pid, (int)pid);
	task = open(dir, O_RDONLY | O_DIRECTORY);
	check(fd >= 0 && task >= 0, "open /proc/PID and its task directory");
	check_errno(pidfd_send_signal(task, SIGTERM, NULL, 0), EBADF, "a task directory: EBADF");
	check_errno(waitid(P_PIDFD, fd, &si, WEXITED | WNOHANG), EBADF,
		    "waitid P_PIDFD of a /proc directory: EBADF");
	check_ok(pidfd_send_signal(fd, 0, NULL, 0), "signal 0 through /proc/PID");
	check_ok(pidfd_send_signal(fd, SIGTERM, NULL, 0), "SIGTERM through /proc/PID");
	check(waitpid(pid, (int *)&si.si_status, 0) == pid && WIFSIGNALED(si.si_status) &&
	      WTERMSIG(si.si_status) == SIGTERM, "killed by it");
	check_errno(pidfd_send_signal(fd, 0, NULL, 0), ESRCH, "reaped: ESRCH");
	close(release);
	close(task);
	close(fd);
}

static volatile int got_value;
static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	got_value = si->si_code == SI_QUEUE ? si->si_value.sival_int : -1;
}

static void t_send_signal_to_self_with_info(void)
{
	struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO };
	int fd = pidfd_open(getpid(), 0);
	siginfo_t si = { 0 };

	sigaction(SIGUSR1, &sa, NULL);
	si.si_signo = SIGUSR1;
	si.si_code = SI_QUEUE;
	si.si_value.sival_int = 99;
	got_value = 0;
	check_ok(pidfd_send_signal(fd, SIGUSR1, &si, 0), "to itself with a siginfo");
	for (int i = 0; i < 100 && !got_value; i++)
		usleep(1000);
	check(got_value == 99, "the handler saw SI_QUEUE and the value");
	signal(SIGUSR1, SIG_DFL);
	close(fd);
}

static int c_other_user(void)
{
	int fd = pidfd_open(getppid(), 0);

	if (drop_to(U1, G1, 0, NULL))
		return 1;
	return c_err(pidfd_send_signal(fd, SIGUSR2, NULL, 0), EPERM, "root's process as uid 1000") ||
	       c_err(syscall(SYS_pidfd_getfd, fd, 0, 0), EPERM, "pidfd_getfd of root's process");
}
static void t_other_user(void) { in_child(c_other_user, "other user"); }

static void t_getfd(void)
{
	int p[2], fd, got;
	char c = 0;

	if (!check_ok(pipe(p), "pipe"))
		return;
	pid_t pid = fork_child();
	if (pid == 0) {
		close(p[0]);
		pause();
		_exit(0);
	}
	close(p[1]);
	// The child's write end: once we hold it, its close is not the last.
	fd = pidfd_open(pid, 0);
	usleep(20000);
	got = (int)syscall(SYS_pidfd_getfd, fd, p[1], 0);
	if (check_ok(got, "pidfd_getfd of the child's write end")) {
		check(fcntl(got, F_GETFD) == FD_CLOEXEC, "close-on-exec");
		check(write(got, "g", 1) == 1 && read(p[0], &c, 1) == 1 && c == 'g', "it is that pipe");
		close(got);
	}
	check_errno(syscall(SYS_pidfd_getfd, fd, 77, 0), EBADF, "a descriptor it does not have");
	check_errno(syscall(SYS_pidfd_getfd, fd, p[1], 1), EINVAL, "flags");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(fd);
	close(p[0]);
}

static void t_fdinfo(void)
{
	char path[64], buf[512];
	int fd = pidfd_open(getpid(), 0);

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	int in = open(path, O_RDONLY);
	ssize_t n = in >= 0 ? read(in, buf, sizeof(buf) - 1) : -1;
	buf[n > 0 ? n : 0] = 0;
	char want[32];
	snprintf(want, sizeof(want), "Pid:\t%d\n", (int)getpid());
	check(strstr(buf, want) != NULL, "fdinfo: Pid:");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	check(strcmp(buf, "anon_inode:[pidfd]") == 0, "the link: anon_inode:[pidfd]");
	close(in);
	close(fd);
}

// clone3 with CLONE_PIDFD: struct clone_args' second field.
struct clone_args_v0 {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

static void t_clone_pidfd(void)
{
	int pidfd = -1, status;
	struct clone_args_v0 ca = { .flags = CLONE_PIDFD, .exit_signal = SIGCHLD };
	siginfo_t si;

	ca.pidfd = (uint64_t)(uintptr_t)&pidfd;
	long pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0)
		_exit(5);
	if (!check_ok(pid, "clone3(CLONE_PIDFD)"))
		return;
	check(pidfd >= 0 && fcntl(pidfd, F_GETFD) == FD_CLOEXEC, "the pidfd, close-on-exec");
	check_ok(waitid(P_PIDFD, pidfd, &si, WEXITED), "waitid on it");
	check(si.si_pid == pid && si.si_status == 5, "the child");
	close(pidfd);
	// A pidfd pointer that cannot be written: EFAULT, and no child.
	ca.pidfd = 8;
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0)
		_exit(0);
	check(pid == -1 && errno == EFAULT, "a bad pidfd pointer: EFAULT");
	check(waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD, "no child was made");
	// Linux 6.1 has no pidfds of threads (6.9 made them): only checked
	// here, where a thread made on the caller's stack would be no test.
	ca.flags = CLONE_PIDFD | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM;
	ca.exit_signal = 0;
	ca.pidfd = (uint64_t)(uintptr_t)&pidfd;
	if (on_switchyard())
		check_errno(syscall(SYS_clone3, &ca, sizeof(ca)), EINVAL,
			    "CLONE_PIDFD with CLONE_THREAD");
	// Legacy clone: the pidfd goes where the parent's TID would.
	check_errno(syscall(SYS_clone, CLONE_PIDFD | CLONE_PARENT_SETTID | SIGCHLD, 0, &pidfd, 0, 0),
		    EINVAL, "clone: CLONE_PIDFD with CLONE_PARENT_SETTID");
	pidfd = -1;
	pid = syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, &pidfd, 0, 0);
	if (pid == 0)
		_exit(6);
	check(pid > 0 && pidfd >= 0, "clone(CLONE_PIDFD): a pidfd in parent_tid");
	if (pidfd >= 0) {
		check_ok(waitid(P_PIDFD, pidfd, &si, WEXITED), "waitid on it");
		check(si.si_status == 6, "the child");
		close(pidfd);
	}
}

static char advised[3 * 4096] __attribute__((aligned(4096)));

// process_madvise: the non-destructive hints over a child's memory
// (its copy of 'advised'), the bytes advised before an unmapped range,
// Linux's order of checks.
static void t_process_madvise(void)
{
	int release;
	pid_t pid = waiting_child(&release, 0);
	int fd = pidfd_open(pid, 0);
	struct iovec one = { advised, 4096 }, two[2] = { { advised, 4096 }, { (void *)4096, 4096 } };

	if (!check_ok(fd, "pidfd_open"))
		return;
	check(syscall(SYS_process_madvise, fd, &one, 1, MADV_COLD, 0) == 4096, "MADV_COLD");
	check(syscall(SYS_process_madvise, fd, &one, 1, MADV_PAGEOUT, 0) == 4096, "MADV_PAGEOUT");
	check(syscall(SYS_process_madvise, fd, &one, 1, MADV_WILLNEED, 0) == 4096, "MADV_WILLNEED");
	check(syscall(SYS_process_madvise, fd, two, 2, MADV_COLD, 0) == 4096,
	      "the bytes before an unmapped range");
	check_errno(syscall(SYS_process_madvise, fd, &two[1], 1, MADV_COLD, 0), ENOMEM,
		    "an unmapped range");
	check_errno(syscall(SYS_process_madvise, fd, &one, 1, MADV_DONTNEED, 0), EINVAL,
		    "a destructive advice");
	check_errno(syscall(SYS_process_madvise, fd, &one, 1, MADV_COLD, 1), EINVAL, "flags");
	check_errno(syscall(SYS_process_madvise, fd, &one, 1025, MADV_COLD, 0), EINVAL,
		    "1025 ranges");
	check_errno(syscall(SYS_process_madvise, 0x7fff, &one, 1, MADV_COLD, 0), EBADF,
		    "no descriptor");
	check_errno(syscall(SYS_process_madvise, release, &one, 1, MADV_COLD, 0), EBADF,
		    "a pipe, not a pidfd");
	check_errno(syscall(SYS_process_madvise, fd, (void *)8, 1, MADV_COLD, 0), EFAULT,
		    "unreadable iovec");
	close(release);
	check_child_ok(pid, "child");
	check_errno(syscall(SYS_process_madvise, fd, &one, 1, MADV_COLD, 0), ESRCH, "reaped");
	close(fd);
}

// Another process of the same user: allowed to inspect, but hints need
// CAP_SYS_NICE (Linux 6.1 asks for it for the caller itself too; later
// kernels not, so the target here is a child).
static int c_madvise_without_cap_sys_nice(void)
{
	struct iovec one = { advised, 4096 };
	int release, fd, bad;

	if (drop_to(U1, G1, 0, 0))
		return 1;
	// Changing the IDs made us undumpable: a child then may not be
	// inspected (EACCES); once dumpable again, it may, and the hint
	// needs CAP_SYS_NICE (EPERM).
	for (int dumpable = 0; dumpable < 2; dumpable++) {
		if (dumpable)
			prctl(PR_SET_DUMPABLE, 1);
		pid_t pid = waiting_child(&release, 0);
		fd = pidfd_open(pid, 0);
		if (c_ok(fd, "pidfd_open"))
			return 1;
		bad = c_err(syscall(SYS_process_madvise, fd, &one, 1, MADV_COLD, 0),
			    dumpable ? EPERM : EACCES,
			    dumpable ? "without CAP_SYS_NICE" : "a process not dumpable");
		close(release);
		close(fd);
		waitpid(pid, 0, 0);
		if (bad)
			return bad;
	}
	return 0;
}

static void t_process_madvise_eperm(void)
{
	if (geteuid() != 0) {
		skip("needs root");
		return;
	}
	in_child(c_madvise_without_cap_sys_nice, "unprivileged");
}

// process_mrelease: EINVAL while the process lives, 0 once it is being
// killed (and its memory is gone then), ESRCH once reaped.
static void t_process_mrelease(void)
{
	int release;
	pid_t pid = waiting_child(&release, 0);
	int fd = pidfd_open(pid, 0);

	if (!check_ok(fd, "pidfd_open"))
		return;
	check_errno(syscall(SYS_process_mrelease, fd, 0), EINVAL, "a live process");
	check_errno(syscall(SYS_process_mrelease, fd, 1), EINVAL, "flags");
	check_errno(syscall(SYS_process_mrelease, release, 0), EBADF, "not a pidfd");
	kill(pid, SIGKILL);
	check_ok(syscall(SYS_process_mrelease, fd, 0), "a process being killed");
	check_killed_by(pid, SIGKILL, "child");
	check_errno(syscall(SYS_process_mrelease, fd, 0), ESRCH, "reaped");
	close(release);
	close(fd);
}

static const struct test_case cases[] = {
	{ "open_poll_waitid", t_open_poll_waitid },
	{ "open_errors", t_open_errors },
	{ "nonblocking_waitid_EAGAIN", t_nonblocking_waitid },
	{ "send_signal", t_send_signal },
	{ "send_signal_by_proc_pid_directory", t_send_signal_by_proc_dir },
	{ "send_signal_to_self_with_info", t_send_signal_to_self_with_info },
	{ "other_user_EPERM", t_other_user },
	{ "getfd", t_getfd },
	{ "fdinfo_and_link", t_fdinfo },
	{ "clone_pidfd", t_clone_pidfd },
	{ "process_madvise", t_process_madvise },
	{ "process_madvise_needs_cap_sys_nice", t_process_madvise_eperm },
	{ "process_mrelease", t_process_mrelease },
};

int main(void)
{
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
