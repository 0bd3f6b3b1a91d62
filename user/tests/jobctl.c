// jobctl: job control as Linux does it.  Stop and continue of whole
// processes (also with several threads), wait4/waitid with WUNTRACED,
// WSTOPPED, WCONTINUED, WNOWAIT, WNOHANG and WEXITED and their status
// encodings, SIGCHLD's si_code and si_status for every event and
// SA_NOCLDSTOP, SIGCONT discarding pending stop signals and the other way
// round, SIGKILL of a stopped process, the core-dump bit, stop signals of
// a terminal ignored in an orphaned process group, SIGHUP and SIGCONT to
// a group orphaned with a stopped member, and the setpgid/setsid/getpgid/
// getsid rules with their errnos.  Every case passes on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sysutil.h"
#include "testcase.h"

static char self_path[256];

// ---- helpers -----------------------------------------------------------------

// A child in a process group of its own, so that the group is not
// orphaned (our parent may be init, in our group: then ours is) and the
// terminal's stop signals stop it.
static pid_t fork_own_group(void)
{
	pid_t pid = fork_child();

	if (pid == 0)
		setpgid(0, 0);
	else if (pid > 0)
		setpgid(pid, pid);	// whoever comes first
	return pid;
}

// Such a child that sleeps until it is signalled.
static pid_t fork_pauser(void)
{
	pid_t pid = fork_own_group();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

// waitpid that retries EINTR.
static pid_t wait_for(pid_t pid, int *status, int options)
{
	pid_t r;

	do
		r = waitpid(pid, status, options);
	while (r < 0 && errno == EINTR);
	return r;
}

// The child must report a stop by 'sig' to waitpid(WUNTRACED).
static int check_stopped(pid_t pid, int sig, const char *what)
{
	int status = 0;
	pid_t r = wait_for(pid, &status, WUNTRACED);

	if (r != pid)
		return fail("%s: waitpid rc=%d errno=%d", what, (int)r, errno);
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != sig || status != ((sig << 8) | 0x7f))
		return fail("%s: status %#x", what, status);
	return 1;
}

static int check_continued(pid_t pid, const char *what)
{
	int status = 0;
	pid_t r = wait_for(pid, &status, WCONTINUED);

	if (r != pid)
		return fail("%s: waitpid rc=%d errno=%d", what, (int)r, errno);
	if (!WIFCONTINUED(status) || status != 0xffff)
		return fail("%s: status %#x", what, status);
	return 1;
}

// SIGCHLDs as a handler records them (a SIGCHLD coalesces while pending,
// so the cases make one event at a time and wait for it).
static siginfo_t chld_log[16];
static atomic_int chld_count;
static int chld_taken;

static void on_chld(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)uc;
	int n = atomic_load(&chld_count);
	if (n < 16) {
		chld_log[n] = *si;
		atomic_store(&chld_count, n + 1);
	}
}

// Catches SIGCHLD (flags: SA_NOCLDSTOP or 0), or goes back to the default.
static void catch_sigchld(bool on, int flags)
{
	struct sigaction sa = { .sa_flags = SA_SIGINFO | SA_RESTART | flags };

	sa.sa_sigaction = on_chld;
	if (!on)
		sa = (struct sigaction){ .sa_handler = SIG_DFL };
	atomic_store(&chld_count, 0);
	chld_taken = 0;
	sigaction(SIGCHLD, &sa, NULL);
}

// The next SIGCHLD within timeout_ms; its siginfo in *si.  0 or -1.
static int next_sigchld(siginfo_t *si, int timeout_ms)
{
	for (int waited = 0; atomic_load(&chld_count) <= chld_taken; waited++) {
		if (waited >= timeout_ms)
			return -1;
		usleep(1000);
	}
	*si = chld_log[chld_taken++];
	return 0;
}

static int check_sigchld(pid_t pid, int code, int status, const char *what)
{
	siginfo_t si;

	if (next_sigchld(&si, 5000) < 0)
		return fail("%s: no SIGCHLD", what);
	if (si.si_pid != pid || si.si_code != code || si.si_status != status)
		return fail("%s: pid %d code %d status %d, want %d %d %d", what, si.si_pid,
			    si.si_code, si.si_status, (int)pid, code, status);
	return 1;
}

// ---- stop and continue ---------------------------------------------------

static void t_stop_cont_wait(void)
{
	pid_t pid = fork_pauser();
	int status;

	if (pid < 0)
		return;
	check_ok(kill(pid, SIGSTOP), "kill SIGSTOP");
	check_stopped(pid, SIGSTOP, "stopped");
	// One report per stop.
	check(wait_for(pid, &status, WUNTRACED | WNOHANG) == 0, "the stop is reported once");
	check_ok(kill(pid, SIGSTOP), "SIGSTOP to a stopped process");
	check(wait_for(pid, &status, WUNTRACED | WNOHANG) == 0, "and no second report");
	check_ok(kill(pid, SIGCONT), "kill SIGCONT");
	check_continued(pid, "continued");
	check(wait_for(pid, &status, WCONTINUED | WNOHANG) == 0, "the continue is reported once");
	// Without WUNTRACED a stop is not a wait event.
	check_ok(kill(pid, SIGTSTP), "kill SIGTSTP");
	usleep(100000);
	check(wait_for(pid, &status, WNOHANG) == 0, "a stop is no event without WUNTRACED");
	check_stopped(pid, SIGTSTP, "stopped by SIGTSTP");
	kill(pid, SIGKILL);
	check_killed_by(pid, SIGKILL, "SIGKILL ends a stopped process");
}

static void t_stop_signals_each(void)
{
	static const int sigs[] = { SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU };

	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		pid_t pid = fork_pauser();

		if (pid < 0)
			return;
		check_ok(kill(pid, sigs[i]), "kill");
		check_stopped(pid, sigs[i], "stopped by the signal");
		check_ok(kill(pid, SIGCONT), "SIGCONT");
		check_continued(pid, "continued");
		kill(pid, SIGKILL);
		check_killed_by(pid, SIGKILL, "killed");
	}
}

// Threads that count in shared memory while they run.
static _Atomic long *counters;

static void *count_thread(void *arg)
{
	_Atomic long *c = arg;

	for (;;)
		atomic_fetch_add(c, 1);
	return NULL;
}

static void *sleep_thread(void *arg)
{
	_Atomic long *c = arg;

	for (;;) {
		usleep(1000);
		atomic_fetch_add(c, 1);
	}
	return NULL;
}

static bool all_move(int n)
{
	long before[8];

	for (int i = 0; i < n; i++)
		before[i] = atomic_load(&counters[i]);
	for (int tries = 0; tries < 200; tries++) {
		usleep(10000);
		bool all = true;
		for (int i = 0; i < n; i++)
			all = all && atomic_load(&counters[i]) != before[i];
		if (all)
			return true;
	}
	return false;
}

static void t_stop_threads(void)
{
	const int n = 4;	// two spinners, one sleeper, the main thread

	counters = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counters == MAP_FAILED)
		return (void)fail("mmap: errno=%d", errno);
	pid_t pid = fork_own_group();
	if (pid == 0) {
		pthread_t t;
		pthread_create(&t, NULL, count_thread, (void *)&counters[0]);
		pthread_create(&t, NULL, count_thread, (void *)&counters[1]);
		pthread_create(&t, NULL, sleep_thread, (void *)&counters[2]);
		sleep_thread((void *)&counters[3]);
	}
	if (pid < 0)
		goto out;
	check(all_move(n), "every thread runs");
	check_ok(kill(pid, SIGSTOP), "kill SIGSTOP");
	check_stopped(pid, SIGSTOP, "stopped");
	long snap[4];
	for (int i = 0; i < n; i++)
		snap[i] = atomic_load(&counters[i]);
	usleep(200000);
	for (int i = 0; i < n; i++)
		if (atomic_load(&counters[i]) != snap[i])
			fail("thread %d ran while stopped", i);
	check_ok(kill(pid, SIGCONT), "SIGCONT");
	check_continued(pid, "continued");
	check(all_move(n), "every thread runs again");
	// A thread-directed stop stops the whole process too.
	check_ok(syscall(SYS_tgkill, pid, pid, SIGTSTP), "tgkill SIGTSTP");
	check_stopped(pid, SIGTSTP, "stopped by tgkill");
	for (int i = 0; i < n; i++)
		snap[i] = atomic_load(&counters[i]);
	usleep(100000);
	for (int i = 0; i < n; i++)
		if (atomic_load(&counters[i]) != snap[i])
			fail("thread %d ran while stopped by tgkill", i);
	kill(pid, SIGKILL);
	check_killed_by(pid, SIGKILL, "SIGKILL ends the stopped threads");
out:
	munmap((void *)counters, 4096);
}

// A stop in the middle of a blocking call: the call goes on after SIGCONT
// (it is restarted, not failed with EINTR).
static void t_stop_restarts_read(void)
{
	int p[2], q[2];

	if (pipe(p) < 0 || pipe(q) < 0)
		return (void)fail("pipe: errno=%d", errno);
	pid_t pid = fork_child();
	if (pid == 0) {
		char c;
		ssize_t r = read(p[0], &c, 1);
		char out = r == 1 ? c : errno == EINTR ? 'I' : 'E';
		write(q[1], &out, 1);
		_exit(0);
	}
	if (pid < 0)
		return;
	usleep(50000);
	kill(pid, SIGSTOP);
	check_stopped(pid, SIGSTOP, "stopped in read");
	kill(pid, SIGCONT);
	check_continued(pid, "continued");
	usleep(50000);
	write(p[1], "x", 1);
	char c = 0;
	check(read(q[0], &c, 1) == 1 && c == 'x', "the read went on and got the byte");
	check_child_ok(pid, "child");
	close(p[0]); close(p[1]); close(q[0]); close(q[1]);
}

// ---- SIGCHLD --------------------------------------------------------------

static void t_sigchld_codes(void)
{
	catch_sigchld(true, 0);
	pid_t pid = fork_pauser();
	if (pid < 0)
		goto out;
	kill(pid, SIGSTOP);
	check_sigchld(pid, CLD_STOPPED, SIGSTOP, "stop");
	check_stopped(pid, SIGSTOP, "stopped");
	kill(pid, SIGCONT);
	check_sigchld(pid, CLD_CONTINUED, SIGCONT, "continue");
	check_continued(pid, "continued");
	kill(pid, SIGTERM);
	check_sigchld(pid, CLD_KILLED, SIGTERM, "killed");
	check_killed_by(pid, SIGTERM, "killed");

	pid = fork_child();
	if (pid == 0)
		_exit(7);
	if (pid < 0)
		goto out;
	check_sigchld(pid, CLD_EXITED, 7, "exit");
	check_exit_code(pid, 7, "exit code");
out:
	catch_sigchld(false, 0);
}

static void t_sa_nocldstop(void)
{
	siginfo_t si;

	catch_sigchld(true, SA_NOCLDSTOP);
	pid_t pid = fork_pauser();
	if (pid < 0)
		goto out;
	kill(pid, SIGSTOP);
	check_stopped(pid, SIGSTOP, "wait still sees the stop");
	check(next_sigchld(&si, 200) < 0, "no SIGCHLD for the stop");
	kill(pid, SIGCONT);
	check_continued(pid, "wait still sees the continue");
	check(next_sigchld(&si, 200) < 0, "no SIGCHLD for the continue");
	kill(pid, SIGKILL);
	check_sigchld(pid, CLD_KILLED, SIGKILL, "the exit is still signalled");
	check_killed_by(pid, SIGKILL, "killed");
out:
	catch_sigchld(false, 0);
}

// ---- waitid -------------------------------------------------------------

static int check_waitid(idtype_t type, id_t id, int options, pid_t pid, int code, int status,
			const char *what)
{
	siginfo_t si;
	int r;

	memset(&si, 0xff, sizeof(si));
	do
		r = waitid(type, id, &si, options);
	while (r < 0 && errno == EINTR);
	if (r != 0)
		return fail("%s: waitid errno=%d", what, errno);
	if (si.si_signo != SIGCHLD || si.si_pid != pid || si.si_code != code ||
	    si.si_status != status)
		return fail("%s: signo %d pid %d code %d status %d", what, si.si_signo, si.si_pid,
			    si.si_code, si.si_status);
	return 1;
}

static void t_waitid_flags(void)
{
	siginfo_t si;
	pid_t pid = fork_pauser();

	if (pid < 0)
		return;
	check_errno(waitid(P_PID, pid, &si, 0), EINVAL, "no event asked for");
	check_errno(waitid(P_PID, pid, &si, WNOHANG | 0x100000), EINVAL, "unknown flag");
	check_errno(wait4(pid, NULL, WNOWAIT, NULL), EINVAL, "wait4 takes no WNOWAIT");
	memset(&si, 0xff, sizeof(si));
	check(waitid(P_PID, pid, &si, WSTOPPED | WNOHANG) == 0 && si.si_pid == 0,
	      "WNOHANG, nothing to report: si_pid 0");
	kill(pid, SIGSTOP);
	check_waitid(P_PID, pid, WSTOPPED | WNOWAIT, pid, CLD_STOPPED, SIGSTOP, "WNOWAIT stop");
	check_waitid(P_PID, pid, WSTOPPED, pid, CLD_STOPPED, SIGSTOP, "the stop is still there");
	memset(&si, 0xff, sizeof(si));
	check(waitid(P_PID, pid, &si, WSTOPPED | WNOHANG) == 0 && si.si_pid == 0,
	      "and then taken");
	kill(pid, SIGCONT);
	check_waitid(P_ALL, 0, WCONTINUED | WNOWAIT, pid, CLD_CONTINUED, SIGCONT, "WNOWAIT continue");
	check_waitid(P_PGID, pid, WCONTINUED, pid, CLD_CONTINUED, SIGCONT, "continue by group");
	memset(&si, 0xff, sizeof(si));
	check(waitid(P_PID, pid, &si, WEXITED | WSTOPPED | WCONTINUED | WNOHANG) == 0 &&
	      si.si_pid == 0, "nothing more to report");
	kill(pid, SIGKILL);
	check_waitid(P_PID, pid, WEXITED | WNOWAIT, pid, CLD_KILLED, SIGKILL, "WNOWAIT exit");
	check_waitid(P_PID, pid, WEXITED, pid, CLD_KILLED, SIGKILL, "exit reaped");
	check_errno(waitid(P_PID, pid, &si, WEXITED | WNOHANG), ECHILD, "gone");

	// P_PGID names one group, whatever its number (1 included).
	pid = fork_pauser();
	if (pid < 0)
		return;
	int other = getpgrp() == 1 ? 2 : 1;
	check_errno(waitid(P_PGID, other, &si, WEXITED | WNOHANG), ECHILD, "another group");
	check_errno(waitid(P_PGID, getpgrp(), &si, WEXITED | WNOHANG), ECHILD, "our group");
	memset(&si, 0xff, sizeof(si));
	check(waitid(P_PGID, pid, &si, WEXITED | WNOHANG) == 0 && si.si_pid == 0, "its group");
	kill(pid, SIGKILL);
	check_waitid(P_PGID, pid, WEXITED, pid, CLD_KILLED, SIGKILL, "reaped by its group");
}

// waitpid with only WUNTRACED or WCONTINUED still reports exits.
static void t_wait4_mixed(void)
{
	int status = 0;
	pid_t pid = fork_pauser();

	if (pid < 0)
		return;
	kill(pid, SIGSTOP);
	check(wait_for(pid, &status, WCONTINUED | WNOHANG) == 0 || status != 0xffff,
	      "a stop is no continue event");
	check_stopped(pid, SIGSTOP, "stopped");
	kill(pid, SIGKILL);
	check(wait_for(pid, &status, WUNTRACED | WCONTINUED) == pid && WIFSIGNALED(status) &&
	      WTERMSIG(status) == SIGKILL, "the exit is reported with WUNTRACED|WCONTINUED");
}

// ---- pending stop and continue signals --------------------------------------

// The children block the signals, tell the parent, wait for its word on
// a pipe, then exit with what sigpending says.
static void t_cont_discards_stop(void)
{
	int ready[2], go[2];

	if (pipe(ready) < 0 || pipe(go) < 0)
		return (void)fail("pipe: errno=%d", errno);
	pid_t pid = fork_child();
	if (pid == 0) {
		sigset_t set, pend;
		char c;
		sigemptyset(&set);
		sigaddset(&set, SIGTSTP);
		sigaddset(&set, SIGTTIN);
		sigprocmask(SIG_BLOCK, &set, NULL);
		write(ready[1], "r", 1);
		read(go[0], &c, 1);
		sigpending(&pend);
		_exit((sigismember(&pend, SIGTSTP) ? 1 : 0) | (sigismember(&pend, SIGTTIN) ? 2 : 0));
	}
	if (pid < 0)
		return;
	char c;
	read(ready[0], &c, 1);
	kill(pid, SIGTSTP);
	kill(pid, SIGTTIN);
	kill(pid, SIGCONT);
	write(go[1], "g", 1);
	check_exit_code(pid, 0, "SIGCONT discarded the blocked SIGTSTP and SIGTTIN");
	close(ready[0]); close(ready[1]); close(go[0]); close(go[1]);
}

static void on_cont(int sig) { (void)sig; }

static void t_stop_discards_cont(void)
{
	int ready[2], go[2];

	if (pipe(ready) < 0 || pipe(go) < 0)
		return (void)fail("pipe: errno=%d", errno);
	pid_t pid = fork_child();
	if (pid == 0) {
		sigset_t set, pend;
		char c;
		signal(SIGCONT, on_cont);
		sigemptyset(&set);
		sigaddset(&set, SIGCONT);
		sigaddset(&set, SIGTSTP);
		sigprocmask(SIG_BLOCK, &set, NULL);
		write(ready[1], "r", 1);
		read(go[0], &c, 1);
		sigpending(&pend);
		_exit((sigismember(&pend, SIGCONT) ? 1 : 0) | (sigismember(&pend, SIGTSTP) ? 0 : 2));
	}
	if (pid < 0)
		return;
	char c;
	read(ready[0], &c, 1);
	kill(pid, SIGCONT);
	kill(pid, SIGTSTP);
	write(go[1], "g", 1);
	check_exit_code(pid, 0, "SIGTSTP discarded the pending SIGCONT (1), stays pending (2)");
	close(ready[0]); close(ready[1]); close(go[0]); close(go[1]);
}

// A SIGCONT handler runs after the continue.
static void t_cont_handler(void)
{
	int q[2];

	if (pipe(q) < 0)
		return (void)fail("pipe: errno=%d", errno);
	pid_t pid = fork_child();
	if (pid == 0) {
		sigset_t none, cont;
		signal(SIGCONT, on_cont);
		sigemptyset(&none);
		sigemptyset(&cont);
		sigaddset(&cont, SIGCONT);
		sigprocmask(SIG_BLOCK, &cont, NULL);	// taken only in sigsuspend
		write(q[1], "r", 1);
		sigsuspend(&none);	// returns for the SIGCONT handler
		_exit(3);
	}
	if (pid < 0)
		return;
	char c;
	read(q[0], &c, 1);
	kill(pid, SIGSTOP);
	check_stopped(pid, SIGSTOP, "stopped");
	kill(pid, SIGCONT);	// (its exit may come before we look for the continue)
	check_exit_code(pid, 3, "the handler ran and sigsuspend returned");
	close(q[0]); close(q[1]);
}

// ---- core dumps -------------------------------------------------------------

static void t_core_bit(void)
{
	// Without RLIMIT_CORE no core is dumped and the bit is clear.
	pid_t pid = fork_child();
	if (pid == 0) {
		struct rlimit rl = { 0, RLIM_INFINITY };
		setrlimit(RLIMIT_CORE, &rl);
		raise(SIGQUIT);
		_exit(1);
	}
	if (pid < 0)
		return;
	int status = reap_child(pid);
	check(WIFSIGNALED(status) && WTERMSIG(status) == SIGQUIT && !WCOREDUMP(status),
	      "no core bit with RLIMIT_CORE 0");

	// With one, the bit is set and waitid says CLD_DUMPED.  (Linux writes
	// a file named by core_pattern; it goes in a scratch directory.)
	char dir[128];
	snprintf(dir, sizeof(dir), "%s", scratch("core"));
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return (void)fail("mkdir: errno=%d", errno);
	pid = fork_child();
	if (pid == 0) {
		struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
		if (chdir(dir) < 0)
			_exit(2);
		setrlimit(RLIMIT_CORE, &rl);
		raise(SIGSEGV);
		_exit(1);
	}
	if (pid < 0)
		return;
	check_waitid(P_PID, pid, WEXITED | WNOWAIT, pid, CLD_DUMPED, SIGSEGV, "CLD_DUMPED");
	status = reap_child(pid);
	check(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV && WCOREDUMP(status) &&
	      (status & 0xff) == (0x80 | SIGSEGV), "the core bit");
	char core[160];
	snprintf(core, sizeof(core), "%s/core", dir);
	unlink(core);
	snprintf(core, sizeof(core), "%s/core.%d", dir, (int)pid);
	unlink(core);
	rmdir(dir);
}

// ---- orphaned process groups ------------------------------------------------

// In an orphaned group the terminal's stop signals at their default action
// are discarded; SIGSTOP still stops.
static void t_orphaned_ignores_tstp(void)
{
	int q[2];

	if (pipe(q) < 0)
		return (void)fail("pipe: errno=%d", errno);
	pid_t pid = fork_child();
	if (pid == 0) {
		if (setsid() < 0)	// a new session: the group is orphaned
			_exit(2);
		raise(SIGTSTP);
		raise(SIGTTIN);
		raise(SIGTTOU);
		write(q[1], "a", 1);	// still running
		raise(SIGSTOP);
		write(q[1], "b", 1);
		_exit(0);
	}
	if (pid < 0)
		return;
	char c = 0;
	check(read(q[0], &c, 1) == 1 && c == 'a', "TSTP, TTIN and TTOU did not stop it");
	check_stopped(pid, SIGSTOP, "SIGSTOP stops it");
	kill(pid, SIGCONT);
	check(read(q[0], &c, 1) == 1 && c == 'b', "continued");
	check_child_ok(pid, "child");
	close(q[0]); close(q[1]);
}

static int hup_fd = -1;

static void on_hup(int sig)
{
	(void)sig;
	write(hup_fd, "H", 1);
}

// A group becomes orphaned with a stopped member when the member's parent
// (the only link to another group of the session) exits: SIGHUP, SIGCONT.
static void t_orphaned_pgrp_sighup(void)
{
	int q[2];

	if (pipe(q) < 0)
		return (void)fail("pipe: errno=%d", errno);
	pid_t a = fork_child();
	if (a == 0) {
		setpgid(0, 0);			// group A, in our session
		pid_t b = fork();
		if (b == 0) {
			hup_fd = q[1];
			signal(SIGHUP, on_hup);
			raise(SIGSTOP);
			write(q[1], "C", 1);	// continued
			_exit(0);
		}
		int st;
		if (b < 0 || waitpid(b, &st, WUNTRACED) != b || !WIFSTOPPED(st))
			_exit(2);
		_exit(0);			// group A is orphaned now
	}
	if (a < 0)
		return;
	check_child_ok(a, "the middle process");
	char buf[2] = { 0, 0 };
	struct pollfd pfd = { q[0], POLLIN, 0 };
	check(poll(&pfd, 1, 5000) == 1 && read(q[0], &buf[0], 1) == 1 && buf[0] == 'H',
	      "SIGHUP handled");
	check(poll(&pfd, 1, 5000) == 1 && read(q[0], &buf[1], 1) == 1 && buf[1] == 'C',
	      "and continued");
	close(q[0]); close(q[1]);
}

// ---- process groups and sessions ----------------------------------------------

static void t_setpgid_errors(void)
{
	check_errno(setpgid(0, -1), EINVAL, "negative pgid");
	check_errno(setpgid(getppid(), 0), ESRCH, "the parent is not ours to move");

	pid_t gone = fork_child();
	if (gone == 0)
		_exit(0);
	reap_child(gone);
	check_errno(setpgid(gone, 0), ESRCH, "no such process");
	check_errno(getpgid(gone), ESRCH, "getpgid of no process");
	check_errno(getsid(gone), ESRCH, "getsid of no process");

	// A child in another session: EPERM.
	int q[2];
	if (pipe(q) < 0)
		return (void)fail("pipe: errno=%d", errno);
	pid_t pid = fork_child();
	if (pid == 0) {
		setsid();
		write(q[1], "s", 1);
		for (;;)
			pause();
	}
	if (pid < 0)
		return;
	char c;
	read(q[0], &c, 1);
	check_errno(setpgid(pid, pid), EPERM, "a child in another session");
	check(getsid(pid) == pid && getpgid(pid) == pid, "getsid/getpgid of the child");
	check_errno(setpgid(0, pid), EPERM, "a group of another session");
	kill(pid, SIGKILL);
	reap_child(pid);

	// A child that has exec'd: EACCES.
	pid = fork_child();
	if (pid == 0) {
		execl(self_path, self_path, "--pause", (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		return;
	// Until the exec is done the call succeeds; poll for the change.
	int r = 0;
	for (int i = 0; i < 500; i++) {
		r = setpgid(pid, pid);
		if (r < 0)
			break;
		usleep(10000);
	}
	check_errno(r, EACCES, "a child after exec");
	kill(pid, SIGKILL);
	reap_child(pid);

	// Session leaders cannot move; groups must exist.
	pid = fork_child();
	if (pid == 0) {
		if (setsid() < 0)
			_exit(1);
		if (setpgid(0, 0) != -1 || errno != EPERM)
			_exit(2);
		if (setpgid(0, getpid()) != -1 || errno != EPERM)
			_exit(3);
		_exit(0);
	}
	check_child_ok(pid, "session leader: setpgid EPERM (2, 3)");
	pid = fork_child();
	if (pid == 0) {
		if (setpgid(0, gone) != -1 || errno != EPERM)
			_exit(1);
		if (setpgid(0, 0) < 0 || getpgrp() != getpid())
			_exit(2);
		if (setpgid(0, getpgid(getppid())) < 0 || getpgrp() != getpgid(getppid()))
			_exit(3);	// back into the parent's group
		_exit(0);
	}
	check_child_ok(pid, "no such group EPERM (1), own group (2), back (3)");
	close(q[0]); close(q[1]);
}

static void t_setpgid_child(void)
{
	int q[2];

	if (pipe(q) < 0)
		return (void)fail("pipe: errno=%d", errno);
	pid_t pid = fork_child();
	if (pid == 0) {
		char c;
		read(q[0], &c, 1);
		_exit(getpgrp() == getpid() ? 0 : 1);
	}
	if (pid < 0)
		return;
	check_ok(setpgid(pid, 0), "the parent puts its child in a new group");
	check(getpgid(pid) == pid, "getpgid of the child");
	check(getsid(pid) == getsid(0), "same session");
	// Killing the group reaches the child, not us.
	pid_t pid2 = fork_child();
	if (pid2 == 0) {
		for (;;)
			pause();
	}
	check_ok(setpgid(pid2, pid), "a second child joins that group");
	check_ok(kill(-pid, SIGSTOP), "stop the group");
	check_stopped(pid2, SIGSTOP, "the second child stopped");
	check_stopped(pid, SIGSTOP, "the first child stopped");
	check_ok(kill(-pid, SIGCONT), "continue the group");
	check_continued(pid2, "continued");
	kill(pid2, SIGKILL);
	check_killed_by(pid2, SIGKILL, "second child");
	write(q[1], "x", 1);
	check_child_ok(pid, "the child is its group's leader");
	close(q[0]); close(q[1]);
}

static void t_setsid_rules(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		if (setpgid(0, 0) < 0)
			_exit(1);
		if (setsid() != -1 || errno != EPERM)
			_exit(2);	// a group leader
		_exit(0);
	}
	check_child_ok(pid, "setsid of a group leader: EPERM");

	// A group with the caller's ID still exists (a member remains): EPERM.
	pid = fork_child();
	if (pid == 0) {
		pid_t parent_group = getpgrp();
		if (setpgid(0, 0) < 0)
			_exit(1);
		pid_t m = fork();
		if (m == 0) {
			for (;;)
				pause();
		}
		if (setpgid(0, parent_group) < 0)	// leave the group to its member
			_exit(2);
		int r = setsid(), e = errno;
		kill(m, SIGKILL);
		waitpid(m, NULL, 0);
		if (r != -1 || e != EPERM)
			_exit(3);
		if (setsid() != getpid())		// the group is gone (reaped)
			_exit(4);
		_exit(0);
	}
	check_child_ok(pid, "setsid while the group lives: EPERM (3), then allowed (4)");

	pid = fork_child();
	if (pid == 0) {
		if (setsid() != getpid() || getsid(0) != getpid() || getpgrp() != getpid())
			_exit(1);
		if (getsid(getppid()) == getpid())
			_exit(2);
		_exit(0);
	}
	check_child_ok(pid, "setsid in a fresh child");
}

static void on_usr1(int sig) { (void)sig; }

// A stop and continue with no handler to run do not end sigsuspend or
// pause (Linux restarts them); a caught signal then does.
static void t_stop_keeps_sigsuspend(void)
{
	int q[2];

	if (pipe(q) < 0)
		return (void)fail("pipe: errno=%d", errno);
	pid_t pid = fork_own_group();
	if (pid == 0) {
		sigset_t none, usr1;
		signal(SIGUSR1, on_usr1);
		sigemptyset(&none);
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		write(q[1], "r", 1);
		sigsuspend(&none);
		char c = 'S';
		write(q[1], &c, 1);
		_exit(0);
	}
	if (pid < 0)
		return;
	char c;
	read(q[0], &c, 1);
	usleep(50000);
	kill(pid, SIGSTOP);
	check_stopped(pid, SIGSTOP, "stopped");
	kill(pid, SIGCONT);
	check_continued(pid, "continued");
	usleep(100000);
	struct pollfd p = { q[0], POLLIN, 0 };
	check(poll(&p, 1, 0) == 0, "sigsuspend goes on after the continue");
	kill(pid, SIGUSR1);
	check(poll(&p, 1, 5000) == 1 && read(q[0], &c, 1) == 1 && c == 'S', "SIGUSR1 ends it");
	check_child_ok(pid, "child");
	close(q[0]);
	close(q[1]);
}

static const struct test_case cases[] = {
	{ "stop_cont_wait", t_stop_cont_wait },
	{ "stop_signals_each", t_stop_signals_each },
	{ "stop_threads", t_stop_threads },
	{ "stop_restarts_read", t_stop_restarts_read },
	{ "sigchld_codes", t_sigchld_codes },
	{ "sa_nocldstop", t_sa_nocldstop },
	{ "waitid_flags", t_waitid_flags },
	{ "wait4_mixed", t_wait4_mixed },
	{ "cont_discards_stop", t_cont_discards_stop },
	{ "stop_discards_cont", t_stop_discards_cont },
	{ "cont_handler", t_cont_handler },
	{ "stop_keeps_sigsuspend", t_stop_keeps_sigsuspend },
	{ "core_bit", t_core_bit },
	{ "orphaned_ignores_tstp", t_orphaned_ignores_tstp },
	{ "orphaned_pgrp_sighup", t_orphaned_pgrp_sighup },
	{ "setpgid_errors", t_setpgid_errors },
	{ "setpgid_child", t_setpgid_child },
	{ "setsid_rules", t_setsid_rules },
};

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--pause") == 0) {
		for (;;)
			pause();
	}
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	if (n < 0)
		snprintf(self_path, sizeof(self_path), "%s", argv[0]);
	else
		self_path[n] = 0;
	// The core-dump case makes a directory: in /tmp, which init empties
	// after the run, never in / (where one left by a case that ended
	// early, say under fault injection, stayed for good).
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/jobctl-%d", (int)getpid());
	if (mkdir(scratch_dir, 0755) < 0)
		ktap_diag("cannot create %s: errno %d", scratch_dir, errno);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
