// locks: POSIX record locks (fcntl F_SETLK, F_SETLKW, F_GETLK), open-file-
// description locks (F_OFD_*) and flock(2), as Linux keeps them: two
// processes contend for a range (EAGAIN, F_GETLK naming the holder),
// read locks share, ranges split and merge, closing any descriptor of
// the file drops the process's POSIX locks, exit drops them, F_SETLKW
// waits and is interrupted by a handled signal (EINTR), a wait that would
// close a cycle is EDEADLK, OFD and flock locks belong to the open file,
// flock and fcntl locks do not see each other, and the argument errnos.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procstatus.h"
#include "testcase.h"

static char path[64];

static int open_file(int flags)
{
	return open(path, flags | O_CREAT, 0644);
}

static int set(int fd, int cmd, int type, off_t start, off_t len)
{
	struct flock fl = { .l_type = (short)type, .l_whence = SEEK_SET, .l_start = start,
			    .l_len = len };

	return fcntl(fd, cmd, &fl);
}

// F_GETLK (or F_OFD_GETLK) of a write lock on the range: the holder's
// lock in *out, l_type F_UNLCK when none.
static int query(int fd, int cmd, off_t start, off_t len, struct flock *out)
{
	*out = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = start,
			       .l_len = len };
	return fcntl(fd, cmd, out);
}

// Runs fn in a child (its own process, so its POSIX locks are another
// owner's) and gives its exit code, or -1.
static int in_other_process(int (*fn)(void))
{
	pid_t pid = fork_child();
	int status;

	if (pid == 0)
		_exit(fn());
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int child_sees_write_locked(void)
{
	int fd = open_file(O_RDWR);
	struct flock fl;

	if (set(fd, F_SETLK, F_WRLCK, 0, 10) != -1 || (errno != EAGAIN && errno != EACCES))
		return 1;
	if (query(fd, F_GETLK, 5, 1, &fl) < 0 || fl.l_type != F_WRLCK || fl.l_pid != getppid() ||
	    fl.l_start != 0 || fl.l_len != 10 || fl.l_whence != SEEK_SET)
		return 2;
	if (query(fd, F_GETLK, 10, 5, &fl) < 0 || fl.l_type != F_UNLCK)
		return 3;		// past the parent's range: free
	if (set(fd, F_SETLK, F_WRLCK, 10, 5) != 0)
		return 4;
	return 0;
}

static void t_two_processes_contend(void)
{
	int fd = open_file(O_RDWR);

	check_ok(set(fd, F_SETLK, F_WRLCK, 0, 10), "write-lock bytes 0..9");
	check(in_other_process(child_sees_write_locked) == 0,
	      "the other process: EAGAIN (1), F_GETLK names us (2), free beyond (3, 4)");
	close(fd);
}

static int child_read_locks(void)
{
	int fd = open_file(O_RDWR);

	if (set(fd, F_SETLK, F_RDLCK, 0, 0) != 0)
		return 1;		// read locks share
	if (set(fd, F_SETLK, F_WRLCK, 0, 0) != -1 || errno != EAGAIN)
		return 2;
	return 0;
}

static void t_read_locks_share(void)
{
	int fd = open_file(O_RDWR);

	check_ok(set(fd, F_SETLK, F_RDLCK, 0, 0), "read-lock the whole file");
	check(in_other_process(child_read_locks) == 0, "another reader (1), no writer (2)");
	close(fd);
}

static int child_checks_split(void)
{
	int fd = open_file(O_RDWR);
	struct flock fl;

	if (query(fd, F_GETLK, 40, 20, &fl) < 0 || fl.l_type != F_UNLCK)
		return 1;		// the hole
	if (query(fd, F_GETLK, 30, 20, &fl) < 0 || fl.l_type != F_WRLCK || fl.l_start != 0 ||
	    fl.l_len != 40)
		return 2;		// the left part
	if (query(fd, F_GETLK, 50, 100, &fl) < 0 || fl.l_type != F_WRLCK || fl.l_start != 60 ||
	    fl.l_len != 41)
		return 3;		// the right part
	if (query(fd, F_GETLK, 200, 1, &fl) < 0 || fl.l_type != F_RDLCK || fl.l_start != 200 ||
	    fl.l_len != 0)
		return 4;		// two read locks merged, to the end
	return 0;
}

static void t_split_and_merge(void)
{
	int fd = open_file(O_RDWR);

	check_ok(set(fd, F_SETLK, F_WRLCK, 0, 101), "write-lock 0..100");
	check_ok(set(fd, F_SETLK, F_UNLCK, 40, 20), "unlock 40..59");
	check_ok(set(fd, F_SETLK, F_RDLCK, 200, 50), "read-lock 200..249");
	check_ok(set(fd, F_SETLK, F_RDLCK, 250, 0), "read-lock 250 on");
	check(in_other_process(child_checks_split) == 0,
	      "hole (1), left (2), right (3), merged reads (4)");
	close(fd);
}

static int child_sees_lowest_first(void)
{
	int fd = open_file(O_RDWR);
	struct flock fl;

	if (query(fd, F_GETLK, 0, 0, &fl) < 0 || fl.l_type != F_RDLCK || fl.l_start != 1 ||
	    fl.l_len != 5)
		return 1;		// of the two, the one that starts first
	if (query(fd, F_GETLK, 6, 0, &fl) < 0 || fl.l_type != F_WRLCK || fl.l_start != 10)
		return 2;
	return 0;
}

// Linux keeps an owner's locks in order of start and F_GETLK names the
// first that conflicts, whatever order they were set in (LTP fcntl11).
static void t_getlk_names_the_lowest(void)
{
	int fd = open_file(O_RDWR);

	check_ok(set(fd, F_SETLK, F_WRLCK, 10, 5), "write-lock 10..14");
	check_ok(set(fd, F_SETLK, F_RDLCK, 1, 5), "then read-lock 1..5");
	check(in_other_process(child_sees_lowest_first) == 0,
	      "F_GETLK of everything: the read lock at 1 (1), from 6: the write lock (2)");
	set(fd, F_SETLK, F_UNLCK, 0, 0);
	close(fd);
}

static int child_can_lock(void)
{
	int fd = open_file(O_RDWR);

	return set(fd, F_SETLK, F_WRLCK, 0, 0) == 0 ? 0 : 1;
}

// POSIX's rule: closing any descriptor of the file drops the process's
// locks on it.
static void t_close_any_descriptor_drops(void)
{
	int fd = open_file(O_RDWR), other = open_file(O_RDONLY);

	check_ok(set(fd, F_SETLK, F_WRLCK, 0, 0), "lock through one descriptor");
	check(in_other_process(child_can_lock) == 1, "held");
	close(other);
	check(in_other_process(child_can_lock) == 0, "gone when another descriptor closed");
	close(fd);
}

static int child_locks_and_exits(void)
{
	int fd = open_file(O_RDWR);

	return set(fd, F_SETLK, F_WRLCK, 0, 0) == 0 ? 0 : 1;	// exit drops it
}

static void t_exit_drops(void)
{
	int fd = open_file(O_RDWR);

	check(in_other_process(child_locks_and_exits) == 0, "the child locked");
	check_ok(set(fd, F_SETLK, F_WRLCK, 0, 0), "free after its exit");
	close(fd);
}

static int wait_pipe[2];

static int child_waits(void)
{
	int fd = open_file(O_RDWR);
	struct timespec a, b;

	if (write(wait_pipe[1], "w", 1) != 1)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (set(fd, F_SETLKW, F_WRLCK, 0, 0) != 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &b);
	long ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	return ms >= 40 ? 0 : 3;
}

static void t_setlkw_waits(void)
{
	int fd = open_file(O_RDWR);
	char c;
	pid_t pid;
	int status;

	if (pipe(wait_pipe) < 0)
		return (void)fail("pipe");
	check_ok(set(fd, F_SETLK, F_WRLCK, 0, 0), "lock");
	pid = fork_child();
	if (pid == 0)
		_exit(child_waits());
	if (read(wait_pipe[0], &c, 1) != 1)
		fail("the child did not start");
	usleep(100000);
	check_ok(set(fd, F_SETLK, F_UNLCK, 0, 0), "unlock");
	if (waitpid(pid, &status, 0) == pid)
		check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the child waited (3) and then got the lock (2)");
	close(wait_pipe[0]);
	close(wait_pipe[1]);
	close(fd);
}

// A waiter sleeps until the lock that blocks it changes: the holder's
// work on other ranges (200 locks and unlocks) wakes it not once, as on
// Linux, where a blocked request waits on the one lock in its way.
static int child_waits_quietly(void)
{
	int fd = open_file(O_RDWR);

	if (write(wait_pipe[1], "w", 1) != 1)
		return 1;
	return set(fd, F_SETLKW, F_WRLCK, 0, 10) == 0 ? 0 : 2;
}

// The child's state letter and voluntary switches, from /proc.
static int proc_status(pid_t pid, char *state, long *nvcsw)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	return proc_status_read(path, state, nvcsw);
}

static void t_setlkw_sleeps_through_other_ranges(void)
{
	int fd = open_file(O_RDWR);
	long before = -1, after = -1;
	char c, state = '?';
	pid_t pid;
	int status;

	if (pipe(wait_pipe) < 0)
		return (void)fail("pipe");
	check_ok(set(fd, F_SETLK, F_WRLCK, 0, 10), "lock [0, 10)");
	pid = fork_child();
	if (pid == 0)
		_exit(child_waits_quietly());
	if (read(wait_pipe[0], &c, 1) != 1)
		fail("the child did not start");
	for (int i = 0; i < 5000 && (proc_status(pid, &state, &before) < 0 || state != 'S'); i++)
		usleep(1000);
	usleep(20000);
	proc_status(pid, &state, &before);
	for (int i = 0; i < 100; i++) {
		set(fd, F_SETLK, F_WRLCK, 1000 + 20 * i, 10);
		set(fd, F_SETLK, F_UNLCK, 1000 + 20 * i, 10);
	}
	usleep(20000);
	if (proc_status(pid, &state, &after) == 0 && after != before)
		fail("the waiter woke %ld times while its range stayed locked", after - before);
	check_ok(set(fd, F_SETLK, F_UNLCK, 0, 10), "unlock [0, 10)");
	if (waitpid(pid, &status, 0) == pid)
		check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child got the lock");
	close(wait_pipe[0]);
	close(wait_pipe[1]);
	close(fd);
}

static void on_alarm(int sig) { (void)sig; }

static int child_interrupted(void)
{
	int fd = open_file(O_RDWR);
	struct sigaction sa = { .sa_handler = on_alarm };	// no SA_RESTART
	struct itimerval it = { .it_value = { 0, 50000 } };

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	if (set(fd, F_SETLKW, F_WRLCK, 0, 0) != -1 || errno != EINTR)
		return 1;
	return 0;
}

static void t_setlkw_eintr(void)
{
	int fd = open_file(O_RDWR);

	check_ok(set(fd, F_SETLK, F_WRLCK, 0, 0), "lock");
	check(in_other_process(child_interrupted) == 0, "F_SETLKW interrupted: EINTR");
	close(fd);
}

// We hold byte 0, the child byte 1; the child waits for byte 0; our wait
// for byte 1 would close the cycle.
static void t_deadlock(void)
{
	int fd = open_file(O_RDWR), to_parent[2];
	char c;
	pid_t pid;

	if (pipe(to_parent) < 0)
		return (void)fail("pipe");
	check_ok(set(fd, F_SETLK, F_WRLCK, 0, 1), "lock byte 0");
	pid = fork_child();
	if (pid == 0) {
		int cfd = open_file(O_RDWR);

		if (set(cfd, F_SETLK, F_WRLCK, 1, 1) != 0 || write(to_parent[1], "x", 1) != 1)
			_exit(1);
		_exit(set(cfd, F_SETLKW, F_WRLCK, 0, 1) == 0 ? 0 : 2);	// waits for us
	}
	if (read(to_parent[0], &c, 1) != 1)
		fail("the child did not lock");
	usleep(100000);		// let it block
	check_errno(set(fd, F_SETLKW, F_WRLCK, 1, 1), EDEADLK, "a wait closing the cycle");
	set(fd, F_SETLK, F_UNLCK, 0, 0);
	check_child_ok(pid, "the child got byte 0 after we let go");
	close(to_parent[0]);
	close(to_parent[1]);
	close(fd);
}

static void t_errors(void)
{
	int ro = open_file(O_RDONLY), wo = open_file(O_WRONLY);
	struct flock fl = { .l_type = F_RDLCK, .l_whence = 7 };

	check_errno(set(ro, F_SETLK, F_WRLCK, 0, 0), EBADF, "write lock on a read-only descriptor");
	check_errno(set(wo, F_SETLK, F_RDLCK, 0, 0), EBADF, "read lock on a write-only descriptor");
	check_errno(set(ro, F_SETLK, 7, 0, 0), EINVAL, "lock type 7");
	check_errno(fcntl(ro, F_SETLK, &fl), EINVAL, "whence 7");
	check_errno(set(ro, F_GETLK, F_UNLCK, 0, 0), EINVAL, "F_GETLK of F_UNLCK");
	check_errno(set(ro, F_SETLK, F_RDLCK, -1, 0), EINVAL, "a negative start");
	check_errno(set(ro, F_SETLK, F_RDLCK, 5, -10), EINVAL, "a length reaching below 0");
	check_errno(set(ro, F_SETLK, F_RDLCK, 0x7fffffffffffffffLL, 2), EOVERFLOW, "past OFFSET_MAX");
	check_errno(fcntl(ro, F_SETLK, (void *)8), EFAULT, "an unreadable struct flock");
	check_ok(set(ro, F_SETLK, F_RDLCK, 10, -5), "a negative length: the bytes before");
	close(ro);
	close(wo);
}

// ---- OFD locks ----

static void t_ofd_locks(void)
{
	int a = open_file(O_RDWR), b = open_file(O_RDWR), dup_a;
	struct flock fl;

	check_ok(set(a, F_OFD_SETLK, F_WRLCK, 0, 10), "OFD lock through the first open");
	check_errno(set(b, F_OFD_SETLK, F_WRLCK, 0, 10), EAGAIN,
		    "another open of the same process is another owner");
	check_errno(set(b, F_SETLK, F_WRLCK, 0, 10), EAGAIN, "and a POSIX lock conflicts with it");
	check(query(b, F_OFD_GETLK, 0, 1, &fl) == 0 && fl.l_type == F_WRLCK && fl.l_pid == -1,
	      "F_OFD_GETLK: pid -1");
	fl = (struct flock){ .l_type = F_RDLCK, .l_pid = 1 };
	check_errno(fcntl(a, F_OFD_SETLK, &fl), EINVAL, "l_pid not 0");
	dup_a = dup(a);
	close(a);
	check_errno(set(b, F_OFD_SETLK, F_WRLCK, 0, 10), EAGAIN, "kept while a duplicate is open");
	close(dup_a);
	check_ok(set(b, F_OFD_SETLK, F_WRLCK, 0, 10), "gone with the description's last descriptor");
	close(b);
}

static void t_posix_same_process_no_conflict(void)
{
	int a = open_file(O_RDWR), b = open_file(O_RDWR);

	check_ok(set(a, F_SETLK, F_WRLCK, 0, 10), "POSIX lock through one open");
	check_ok(set(b, F_SETLK, F_WRLCK, 0, 10), "the same process through another: its own");
	close(a);
	close(b);
}

// ---- flock ----

static int child_flock_inherited(void)
{
	// The descriptor inherited from the parent is the same description.
	return flock(50, LOCK_EX | LOCK_NB) == 0 ? 0 : 1;
}

static void t_flock(void)
{
	int a = open_file(O_RDONLY), b = open_file(O_RDONLY);

	check_ok(flock(a, LOCK_EX), "LOCK_EX");
	check_errno(flock(b, LOCK_EX | LOCK_NB), EWOULDBLOCK, "another description: EWOULDBLOCK");
	check_errno(flock(b, LOCK_SH | LOCK_NB), EWOULDBLOCK, "not even shared");
	check_ok(set(b, F_SETLK, F_RDLCK, 0, 0), "fcntl locks do not see flock locks");
	if (dup2(a, 50) == 50) {
		check(in_other_process(child_flock_inherited) == 0, "a child's inherited descriptor owns it");
		close(50);
	}
	check_ok(flock(a, LOCK_SH), "converted to shared");
	check_ok(flock(b, LOCK_SH | LOCK_NB), "now another shared one fits");
	check_ok(flock(a, LOCK_UN), "LOCK_UN");
	check_ok(flock(b, LOCK_UN), "LOCK_UN");
	check_errno(flock(a, 0), EINVAL, "no operation");
	check_errno(flock(a, LOCK_SH | LOCK_EX), EINVAL, "two operations");
	check_errno(flock(-1, LOCK_SH), EBADF, "a bad descriptor");
	close(a);
	close(b);
}

static const struct test_case cases[] = {
	{ "two_processes_contend_EAGAIN_and_getlk", t_two_processes_contend },
	{ "read_locks_share", t_read_locks_share },
	{ "ranges_split_and_merge", t_split_and_merge },
	{ "getlk_names_the_lowest_conflicting_lock", t_getlk_names_the_lowest },
	{ "closing_any_descriptor_drops_posix_locks", t_close_any_descriptor_drops },
	{ "exit_drops_posix_locks", t_exit_drops },
	{ "setlkw_waits_for_the_holder", t_setlkw_waits },
	{ "setlkw_sleeps_through_other_ranges", t_setlkw_sleeps_through_other_ranges },
	{ "setlkw_interrupted_EINTR", t_setlkw_eintr },
	{ "deadlock_EDEADLK", t_deadlock },
	{ "argument_errors", t_errors },
	{ "ofd_locks_belong_to_the_open_file", t_ofd_locks },
	{ "posix_locks_of_one_process_never_conflict", t_posix_same_process_no_conflict },
	{ "flock", t_flock },
};

int main(void)
{
	snprintf(path, sizeof(path), "/tmp/locks-%d", (int)getpid());
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	unlink(path);
	return ktap_finish();
}
