// A process's view of the file tree: chroot (absolute paths and ".."
// stop at the new root, the cwd stays where it was and getcwd shows it
// as "(unreachable)", /proc/self/root and cwd follow, Linux's errnos and
// their order, EPERM without CAP_SYS_CHROOT) and clone's CLONE_FS (the
// cwd, the root and the umask shared with a child process, or copied
// without it), and unshare(2).  Each case runs in a child: a chroot is
// for good.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"
#include "sysutil.h"

#define JAIL "/tmp/fsview-jail"

// The jail: JAIL/inner/file holding "jailed", and JAIL/locked (mode 0,
// not searchable by others).
static int make_jail(void)
{
	int fd;

	mkdir(JAIL, 0755);
	mkdir(JAIL "/inner", 0755);
	mkdir(JAIL "/locked", 0700);
	chmod(JAIL "/locked", 0700);
	unlink(JAIL "/loop");
	if (symlink("loop", JAIL "/loop") < 0 && errno != EEXIST)
		return fail("symlink: errno %d", errno);
	fd = open(JAIL "/inner/file", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail("create the jail's file: errno %d", errno);
	if (write(fd, "jailed", 6) != 6)
		fail("write the jail's file");
	close(fd);
	return 1;
}

static int c_inside(void)
{
	char buf[PATH_MAX];

	if (c_ok(chdir(JAIL), "chdir to the jail") || c_ok(chroot("."), "chroot(\".\")"))
		return 1;
	if (c_eq(read_file("/inner/file", buf, sizeof(buf)), 6, "read /inner/file") ||
	    c_eq(strcmp(buf, "jailed"), 0, "the jail's file"))
		return 1;
	// ".." at the root stays there.
	if (c_eq(read_file("/../../inner/file", buf, sizeof(buf)), 6, "/../../inner/file"))
		return 1;
	if (c_ok(chdir("/inner/../.."), "chdir up past the root") ||
	    !getcwd(buf, sizeof(buf)) || c_eq(strcmp(buf, "/"), 0, "getcwd at the new root"))
		return cfail("getcwd at the root: '%s'", buf);
	if (c_ok(chdir("/inner"), "chdir /inner") || !getcwd(buf, sizeof(buf)) ||
	    c_eq(strcmp(buf, "/inner"), 0, "getcwd in the jail"))
		return cfail("getcwd in the jail: '%s'", buf);
	// Outside paths are gone.
	if (c_err(access("/tmp", F_OK), ENOENT, "/tmp from the jail"))
		return 1;
	return 0;
}

static int c_cwd_outside(void)
{
	char buf[PATH_MAX];

	// chroot without chdir: the cwd stays outside, and the system call
	// says so (C libraries turn the answer into ENOENT).
	if (c_ok(chdir("/tmp"), "chdir /tmp") || c_ok(chroot(JAIL), "chroot"))
		return 1;
	if (syscall(SYS_getcwd, buf, sizeof(buf)) < 0)
		return cfail("getcwd: errno %d", errno);
	if (c_eq(strcmp(buf, "(unreachable)/tmp"), 0, "getcwd outside the root"))
		return cfail("getcwd outside the root: '%s'", buf);
	// Relative paths still work from there.
	if (c_ok(access("fsview-jail/inner/file", F_OK), "a relative path from outside"))
		return 1;
	if (c_ok(chdir("/"), "chdir /") || !getcwd(buf, sizeof(buf)) ||
	    c_eq(strcmp(buf, "/"), 0, "getcwd after chdir /"))
		return 1;
	return c_eq(read_file("/inner/file", buf, sizeof(buf)), 6, "/inner/file after chdir /");
}

static int c_proc_links(void)
{
	char buf[PATH_MAX];
	ssize_t n;

	// Read before the chroot, since /proc stays outside: the process's
	// own root, seen from outside its jail, is the jail's path.
	if (c_ok(chroot(JAIL), "chroot"))
		return 1;
	n = readlink("/proc/self/root", buf, sizeof(buf) - 1);
	if (n >= 0)
		return cfail("/proc is outside the jail, yet /proc/self/root read");
	return 0;
}

// The parent reads its child's /proc/PID/root while the child sits in
// the jail.
static void t_proc_root_of_jailed(void)
{
	int to_parent[2], to_child[2];
	char path[64], buf[PATH_MAX], c = 0;
	ssize_t n;
	pid_t pid;

	if (!make_jail() || pipe(to_parent) < 0 || pipe(to_child) < 0)
		return (void)fail("setup");
	pid = fork_child();
	if (pid == 0) {
		close(to_parent[0]);
		close(to_child[1]);
		if (chroot(JAIL) < 0 || chdir("/inner") < 0)
			_exit(1);
		if (write(to_parent[1], "r", 1) != 1 || read(to_child[0], &c, 1) != 1)
			_exit(2);
		_exit(0);
	}
	if (pid < 0)
		return;
	close(to_parent[1]);
	close(to_child[0]);
	if (read(to_parent[0], &c, 1) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
		n = readlink(path, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = 0;
		check(n > 0 && strcmp(buf, JAIL) == 0, "/proc/PID/root is the jail");
		snprintf(path, sizeof(path), "/proc/%d/cwd", (int)pid);
		n = readlink(path, buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = 0;
		check(n > 0 && strcmp(buf, JAIL "/inner") == 0, "/proc/PID/cwd inside the jail");
		// The link leads into the jail.
		snprintf(path, sizeof(path), "/proc/%d/root/inner/file", (int)pid);
		check(access(path, R_OK) == 0, "/proc/PID/root/inner/file opens");
	} else {
		fail("the child did not get into the jail");
	}
	if (write(to_child[1], "g", 1) != 1)
		fail("wake the child");
	check_child_ok(pid, "jailed child");
	close(to_parent[0]);
	close(to_child[1]);
}

static int c_errors(void)
{
	char longname[PATH_MAX + 10];

	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	if (c_err(chroot("/nonexistent-dir"), ENOENT, "a missing directory") ||
	    c_err(chroot(JAIL "/inner/file"), ENOTDIR, "a file") ||
	    c_err(chroot(longname), ENAMETOOLONG, "a name past PATH_MAX") ||
	    c_err(chroot(JAIL "/loop"), ELOOP, "a symlink loop") ||
	    c_err(chroot((const char *)8), EFAULT, "a bad pointer") ||
	    c_err(chroot(""), ENOENT, "an empty path"))
		return 1;
	return 0;
}

// Unprivileged: EPERM for a directory it may enter, but the lookup's and
// the search check's errnos come first.
static int c_unprivileged(void)
{
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	if (c_err(chroot(JAIL), EPERM, "chroot as uid 1000") ||
	    c_err(chroot(JAIL "/locked"), EACCES, "a directory it may not search") ||
	    c_err(chroot("/nonexistent-dir"), ENOENT, "a missing directory"))
		return 1;
	return 0;
}

static void t_inside(void) { if (make_jail()) in_child(c_inside, "inside"); }
static void t_cwd_outside(void) { if (make_jail()) in_child(c_cwd_outside, "cwd outside"); }
static void t_proc_links(void) { if (make_jail()) in_child(c_proc_links, "proc links"); }
static void t_errors(void) { if (make_jail()) in_child(c_errors, "errors"); }
static void t_unprivileged(void) { if (make_jail()) in_child(c_unprivileged, "unprivileged"); }

// ---- CLONE_FS -----------------------------------------------------------

static char child_stack[64 * 1024] __attribute__((aligned(16)));

static int chdir_and_umask(void *arg)
{
	(void)arg;
	if (chdir(JAIL "/inner") < 0)
		return 1;
	umask(077);
	return 0;
}

// A child made with 'flags' changes its cwd and umask; does the parent
// see it?
static void clone_changes(int flags, bool shared)
{
	char before[PATH_MAX], after[PATH_MAX];
	mode_t old = umask(022), now;
	int status;
	pid_t pid;

	if (!make_jail() || !getcwd(before, sizeof(before)))
		return (void)fail("setup");
	pid = clone(chdir_and_umask, child_stack + sizeof(child_stack), flags | SIGCHLD, NULL);
	if (pid < 0)
		return (void)fail("clone: errno %d", errno);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		fail("the child failed");
	if (!getcwd(after, sizeof(after)))
		fail("getcwd");
	now = umask(old);
	if (shared) {
		check(strcmp(after, JAIL "/inner") == 0, "the child's chdir is the parent's");
		check(now == 077, "the child's umask is the parent's");
	} else {
		check(strcmp(after, before) == 0, "the parent's cwd is its own");
		check(now == 022, "the parent's umask is its own");
	}
	if (chdir(before) < 0)
		fail("chdir back");
}

static void t_clone_fs_shares(void) { clone_changes(CLONE_FS, true); }
static void t_clone_without_fs_copies(void) { clone_changes(0, false); }

static int chroot_child(void *arg)
{
	(void)arg;
	return chroot(JAIL) < 0;
}

// A chroot in a CLONE_FS child is the parent's too: check in a grandchild
// so this program keeps its root.
static int c_clone_fs_chroot(void)
{
	char buf[16];
	int status;
	pid_t pid = clone(chroot_child, child_stack + sizeof(child_stack), CLONE_FS | SIGCHLD, NULL);

	if (pid < 0)
		return cfail("clone: errno %d", errno);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return cfail("the child's chroot failed");
	return c_eq(read_file("/inner/file", buf, sizeof(buf)), 6, "the parent is in the jail");
}

static void t_clone_fs_chroot(void) { if (make_jail()) in_child(c_clone_fs_chroot, "chroot"); }

// ---- unshare ----

static int unshare_fs_child(void *arg)
{
	(void)arg;
	// Shares the parent's view until it unshares it.
	if (unshare(CLONE_FS) < 0)
		return 1;
	return chdir(JAIL "/inner") < 0 ? 2 : 0;
}

static void t_unshare_fs(void)
{
	char before[PATH_MAX], after[PATH_MAX];
	int status;

	if (!make_jail() || !getcwd(before, sizeof(before)))
		return (void)fail("setup");
	pid_t pid = clone(unshare_fs_child, child_stack + sizeof(child_stack), CLONE_FS | SIGCHLD,
			  NULL);
	if (pid < 0)
		return (void)fail("clone: errno %d", errno);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return (void)fail("child status %#x", status);
	check(getcwd(after, sizeof(after)) && strcmp(after, before) == 0,
	      "the child's chdir after unshare(CLONE_FS) stays its own");
}

static int unshare_files_child(void *arg)
{
	int fd = *(int *)arg;

	if (unshare(CLONE_FILES) < 0)
		return 1;
	return close(fd) < 0 ? 2 : 0;
}

static void t_unshare_files(void)
{
	int fd = open("/", O_RDONLY), status;

	if (fd < 0)
		return (void)fail("open");
	pid_t pid = clone(unshare_files_child, child_stack + sizeof(child_stack),
			  CLONE_FILES | SIGCHLD, &fd);
	if (pid < 0)
		return (void)fail("clone: errno %d", errno);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return (void)fail("child status %#x", status);
	check(fcntl(fd, F_GETFD) >= 0, "the child's close after unshare(CLONE_FILES) is its own");
	close(fd);
}

static int exec_true(void *arg)
{
	char *argv[] = { "true", NULL };

	(void)arg;
	execv("/bin/true", argv);
	return 99;
}

// A child sharing the table (CLONE_FILES) execs: its exec gets a table of
// its own first, so close-on-exec closes nothing of the parent's.
static void t_exec_unshares_files(void)
{
	int fd = open("/", O_RDONLY | O_CLOEXEC), status;

	if (fd < 0)
		return (void)fail("open");
	pid_t pid = clone(exec_true, child_stack + sizeof(child_stack), CLONE_FILES | SIGCHLD, NULL);
	if (pid < 0)
		return (void)fail("clone: errno %d", errno);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		fail("the child's exec: status %#x", status);
	check(fcntl(fd, F_GETFD) == FD_CLOEXEC, "the parent's close-on-exec descriptor survives");
	close(fd);
}

// ---- threads with their own table and view ----

static volatile int thread_done, thread_status;
static int thread_fd;

// A thread made without CLONE_FILES and CLONE_FS (LTP clone08's
// CLONE_THREAD case): its close and chdir are its own.  Raw system
// calls only: it shares its parent's TLS.
static int lone_thread(void *arg)
{
	(void)arg;
	long bad = syscall(SYS_close, thread_fd) != 0 || syscall(SYS_chdir, JAIL "/inner") != 0;
	thread_status = (int)bad;
	__atomic_store_n(&thread_done, 1, __ATOMIC_RELEASE);
	syscall(SYS_exit, 0);
	return 0;
}

static void t_thread_without_files_and_fs(void)
{
	static char tstack[64 * 1024] __attribute__((aligned(16)));
	char before[PATH_MAX], after[PATH_MAX];

	if (!make_jail() || !getcwd(before, sizeof(before)))
		return (void)fail("setup");
	thread_fd = open("/", O_RDONLY);
	thread_done = 0;
	int tid = clone(lone_thread, tstack + sizeof(tstack),
			CLONE_VM | CLONE_SIGHAND | CLONE_THREAD, NULL);
	if (tid < 0)
		return (void)fail("clone(CLONE_THREAD without CLONE_FILES, CLONE_FS): errno %d", errno);
	for (int i = 0; i < 20000 && !__atomic_load_n(&thread_done, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	usleep(10000);		// let it finish exiting
	check(thread_done && thread_status == 0, "the thread's close and chdir worked");
	check(fcntl(thread_fd, F_GETFD) >= 0, "its close left our descriptor");
	check(getcwd(after, sizeof(after)) && strcmp(after, before) == 0, "its chdir left our cwd");
	close(thread_fd);
}

static void *unsharing_thread(void *arg)
{
	int fd = *(int *)arg;

	if (unshare(CLONE_FILES | CLONE_FS) < 0)
		return (void *)1;
	if (close(fd) < 0 || chdir(JAIL "/inner") < 0)
		return (void *)2;
	return NULL;
}

// unshare in one thread of several: only that thread's table and view.
static void t_unshare_in_a_thread(void)
{
	char before[PATH_MAX], after[PATH_MAX];
	pthread_t th;
	void *rv = (void *)9;
	int fd = open("/", O_RDONLY);

	if (!make_jail() || fd < 0 || !getcwd(before, sizeof(before)))
		return (void)fail("setup");
	pthread_create(&th, NULL, unsharing_thread, &fd);
	pthread_join(th, &rv);
	check(rv == NULL, "the thread unshared, closed and moved");
	check(fcntl(fd, F_GETFD) >= 0, "its close left our descriptor");
	check(getcwd(after, sizeof(after)) && strcmp(after, before) == 0, "its chdir left our cwd");
	close(fd);
}

static bool on_switchyard(void)
{
	struct utsname u;

	return uname(&u) == 0 && strstr(u.version, "Switchyard") != NULL;
}

static void *idle_thread(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static int c_unshare_rules(void)
{
	pthread_t th;

	if (c_ok(unshare(0), "nothing") || c_ok(unshare(CLONE_FS | CLONE_FILES), "unshared already") ||
	    c_ok(unshare(CLONE_SYSVSEM), "CLONE_SYSVSEM") ||
	    c_ok(unshare(CLONE_VM | CLONE_SIGHAND | CLONE_THREAD), "single-threaded, not shared") ||
	    c_err(unshare(0x1000), EINVAL, "an unknown flag (CLONE_PTRACE)"))
		return 1;
	// No namespaces here: EINVAL, as Linux built without them.
	if (on_switchyard() && c_err(unshare(CLONE_NEWUTS), EINVAL, "CLONE_NEWUTS"))
		return 1;
	if (c_ok(pthread_create(&th, NULL, idle_thread, NULL) ? -1 : 0, "a second thread"))
		return 1;
	return c_err(unshare(CLONE_VM), EINVAL, "CLONE_VM with two threads") ||
	       c_err(unshare(CLONE_THREAD), EINVAL, "CLONE_THREAD with two threads");
}
static void t_unshare_rules(void) { in_child(c_unshare_rules, "unshare rules"); }

static const struct test_case cases[] = {
	{ "chroot_paths_stay_inside", t_inside },
	{ "chroot_cwd_outside_unreachable", t_cwd_outside },
	{ "chroot_proc_outside_the_jail", t_proc_links },
	{ "proc_pid_root_and_cwd_of_jailed", t_proc_root_of_jailed },
	{ "chroot_errors", t_errors },
	{ "chroot_unprivileged_EPERM_after_lookup", t_unprivileged },
	{ "clone_fs_shares_cwd_and_umask", t_clone_fs_shares },
	{ "clone_without_fs_copies", t_clone_without_fs_copies },
	{ "clone_fs_shares_root", t_clone_fs_chroot },
	{ "unshare_fs", t_unshare_fs },
	{ "unshare_files", t_unshare_files },
	{ "unshare_rules", t_unshare_rules },
	{ "exec_unshares_files", t_exec_unshares_files },
	{ "thread_without_clone_files_and_fs", t_thread_without_files_and_fs },
	{ "unshare_in_one_thread_of_several", t_unshare_in_a_thread },
};

int main(void)
{
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
