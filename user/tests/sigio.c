// sigio: signal-driven I/O.  fcntl F_SETOWN/F_GETOWN (a process, a group
// as a negative number, 0 once the owner is gone), F_SETOWN_EX/
// F_GETOWN_EX (F_OWNER_TID, F_OWNER_PID, F_OWNER_PGRP; a new file's is
// F_OWNER_TID 0), F_SETSIG/F_GETSIG and their errnos (EINVAL, ESRCH,
// EFAULT); O_ASYNC by F_SETFL and FIOASYNC; SIGIO (SI_KERNEL) to the
// owner when a pipe is written, and the F_SETSIG signal with si_code
// POLL_IN/POLL_OUT, si_band and si_fd (the descriptor O_ASYNC was set
// through; also through signalfd), one real-time signal per write, to
// the writers when it is read, to the readers when the last writer
// closes; nothing without O_ASYNC or an owner; a thread owner
// (F_OWNER_TID) gets it alone, a group owner every member; Linux's
// sigio_perm (an owner set by another user gets nothing); FIFOs,
// pseudo-terminals (both sides; POLL_OUT to a slave writer that found
// the master's side full) and inotify descriptors.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"

#ifndef F_SETSIG
#define F_SETSIG 10
#define F_GETSIG 11
#endif
#ifndef F_SETOWN_EX
#define F_SETOWN_EX 15
#define F_GETOWN_EX 16
#endif
#define OWNER_TID 0
#define OWNER_PID 1
#define OWNER_PGRP 2

struct owner_ex {
	int type;
	pid_t pid;
};

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void block(int sig)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_BLOCK, &s, NULL);
}

// Takes a pending 'sig' within ms milliseconds: 1 and *si, or 0.
static int take(int sig, siginfo_t *si, int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, sig);
	return sigtimedwait(&s, si, &ts) == sig;
}

// Nothing of 'sig' left pending.
static void drain(int sig)
{
	siginfo_t si;

	while (take(sig, &si, 0))
		;
}

static void async_owner(int fd, int sig)
{
	check_ok(fcntl(fd, F_SETOWN, getpid()), "F_SETOWN");
	check_ok(fcntl(fd, F_SETSIG, sig), "F_SETSIG");
	check_ok(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC), "F_SETFL O_ASYNC");
}

static void write_byte(int fd)
{
	if (write(fd, "x", 1) != 1)
		fail("write: errno=%d", errno);
}

static void t_owner_commands(void)
{
	int p[2];
	struct owner_ex ex = { -1, -1 };
	pid_t child;

	if (!check_ok(pipe(p), "pipe"))
		return;
	check(fcntl(p[0], F_GETOWN) == 0, "no owner");
	check(fcntl(p[0], F_GETOWN_EX, &ex) == 0 && ex.type == OWNER_TID && ex.pid == 0,
	      "a new file's owner is F_OWNER_TID 0");
	check(fcntl(p[0], F_GETSIG) == 0, "F_GETSIG 0");
	check_ok(fcntl(p[0], F_SETOWN, getpid()), "F_SETOWN pid");
	check(fcntl(p[0], F_GETOWN) == getpid(), "F_GETOWN pid");
	check(fcntl(p[0], F_GETOWN_EX, &ex) == 0 && ex.type == OWNER_PID && ex.pid == getpid(),
	      "F_GETOWN_EX F_OWNER_PID");
	check_ok(fcntl(p[0], F_SETOWN, -getpgrp()), "F_SETOWN -pgrp");
	check(fcntl(p[0], F_GETOWN) == -getpgrp(), "F_GETOWN -pgrp");
	check(fcntl(p[0], F_GETOWN_EX, &ex) == 0 && ex.type == OWNER_PGRP && ex.pid == getpgrp(),
	      "F_GETOWN_EX F_OWNER_PGRP");
	ex = (struct owner_ex){ OWNER_TID, gettid_() };
	check_ok(fcntl(p[0], F_SETOWN_EX, &ex), "F_SETOWN_EX F_OWNER_TID");
	check(fcntl(p[0], F_GETOWN) == gettid_(), "F_GETOWN of a thread owner");
	check_errno(fcntl(p[0], F_SETOWN, INT_MIN), EINVAL, "F_SETOWN INT_MIN");
	ex = (struct owner_ex){ 3, getpid() };
	check_errno(fcntl(p[0], F_SETOWN_EX, &ex), EINVAL, "unknown owner type");
	ex = (struct owner_ex){ OWNER_PID, -1 };
	check_errno(fcntl(p[0], F_SETOWN_EX, &ex), ESRCH, "negative pid");
	check_errno(fcntl(p[0], F_SETOWN_EX, (void *)8), EFAULT, "F_SETOWN_EX EFAULT");
	check_errno(fcntl(p[0], F_GETOWN_EX, (void *)8), EFAULT, "F_GETOWN_EX EFAULT");
	check_errno(fcntl(p[0], F_SETSIG, 65), EINVAL, "F_SETSIG 65");
	check_errno(fcntl(p[0], F_SETSIG, -1), EINVAL, "F_SETSIG -1");
	check_ok(fcntl(p[0], F_SETSIG, 64), "F_SETSIG 64");
	check(fcntl(p[0], F_GETSIG) == 64, "F_GETSIG 64");
	check_ok(fcntl(p[0], F_SETOWN, 0), "F_SETOWN 0");
	check(fcntl(p[0], F_GETOWN) == 0, "no owner again");
	// A reaped child's ID names nothing: ESRCH; an owner that goes reads 0.
	child = fork_child();
	if (child == 0)
		_exit(0);
	if (check_ok(fcntl(p[0], F_SETOWN, child), "F_SETOWN child"))
		check(fcntl(p[0], F_GETOWN) == child, "F_GETOWN child");
	reap(child);
	check(fcntl(p[0], F_GETOWN) == 0, "F_GETOWN 0 once the owner is gone");
	check_errno(fcntl(p[0], F_SETOWN, child), ESRCH, "F_SETOWN of a reaped child");
	close(p[0]);
	close(p[1]);
}

static void t_sigio_plain(void)
{
	int p[2];
	siginfo_t si;

	block(SIGIO);
	drain(SIGIO);
	if (!check_ok(pipe(p), "pipe"))
		return;
	write_byte(p[1]);
	check(!take(SIGIO, &si, 0), "no signal without O_ASYNC");
	check_ok(fcntl(p[0], F_SETFL, O_ASYNC), "O_ASYNC");
	write_byte(p[1]);
	check(!take(SIGIO, &si, 0), "no signal without an owner");
	check_ok(fcntl(p[0], F_SETOWN, getpid()), "F_SETOWN");
	write_byte(p[1]);
	if (check(take(SIGIO, &si, 2000), "SIGIO after a write"))
		check(si.si_code == SI_KERNEL, "plain SIGIO is SI_KERNEL");
	check_ok(fcntl(p[0], F_SETFL, 0), "O_ASYNC off");
	write_byte(p[1]);
	check(!take(SIGIO, &si, 0), "no signal after O_ASYNC went");
	close(p[0]);
	close(p[1]);
}

static void t_setsig_info(void)
{
	int p[2], d, sig = SIGRTMIN + 1, on = 1, sfd;
	siginfo_t si;
	sigset_t set;

	block(sig);
	drain(sig);
	if (!check_ok(pipe(p), "pipe"))
		return;
	d = dup(p[0]);
	check_ok(fcntl(p[0], F_SETOWN, getpid()), "F_SETOWN");
	check_ok(fcntl(p[0], F_SETSIG, sig), "F_SETSIG");
	check_ok(fcntl(d, F_SETFL, O_ASYNC), "O_ASYNC through the dup");
	write_byte(p[1]);
	write_byte(p[1]);
	if (check(take(sig, &si, 2000), "the F_SETSIG signal")) {
		check(si.si_code == POLL_IN, "si_code POLL_IN");
		check(si.si_band == (POLLIN | POLLRDNORM), "si_band POLLIN|POLLRDNORM");
		check(si.si_fd == d, "si_fd is the descriptor O_ASYNC was set through");
	}
	check(take(sig, &si, 2000), "a second one for the second write");
	check(!take(sig, &si, 0), "no more");
	// The writers hear of reads: POLL_OUT.
	check_ok(fcntl(p[1], F_SETOWN, getpid()), "F_SETOWN writer");
	check_ok(fcntl(p[1], F_SETSIG, sig), "F_SETSIG writer");
	check_ok(ioctl(p[1], FIOASYNC, &on), "FIOASYNC writer");
	char c[2];
	if (read(p[0], c, 2) != 2)
		fail("read");
	int got_out = 0;
	while (take(sig, &si, 500)) {
		if (si.si_code == POLL_OUT && si.si_fd == p[1] &&
		    si.si_band == (POLLOUT | POLLWRNORM | POLLWRBAND))
			got_out = 1;
	}
	check(got_out, "POLL_OUT to the writer with its band and fd");
	// Through a signalfd: ssi_fd and ssi_band.
	sigemptyset(&set);
	sigaddset(&set, sig);
	sfd = signalfd(-1, &set, SFD_NONBLOCK);
	close(p[1]);
	struct signalfd_siginfo ssi;
	int hup = 0;
	while (read(sfd, &ssi, sizeof(ssi)) == sizeof(ssi))
		if (ssi.ssi_code == POLL_IN && ssi.ssi_fd == d &&
		    ssi.ssi_band == (POLLIN | POLLRDNORM))
			hup = 1;
	check(hup, "the last writer's close: POLL_IN to the reader (signalfd)");
	close(sfd);
	close(d);
	close(p[0]);
	drain(sig);
}

struct tid_waiter {
	int sig;
	pid_t tid;
	int got;
	volatile int ready;
};

static void *tid_body(void *arg)
{
	struct tid_waiter *w = arg;
	siginfo_t si;

	w->tid = gettid_();
	__atomic_store_n(&w->ready, 1, __ATOMIC_SEQ_CST);
	w->got = take(w->sig, &si, 5000);
	return NULL;
}

static void t_thread_owner(void)
{
	struct tid_waiter w = { SIGRTMIN + 2, 0, 0, 0 };
	struct owner_ex ex;
	pthread_t th;
	sigset_t pend;
	int p[2];

	block(w.sig);
	drain(w.sig);
	if (!check_ok(pipe(p), "pipe"))
		return;
	pthread_create(&th, NULL, tid_body, &w);
	while (!__atomic_load_n(&w.ready, __ATOMIC_SEQ_CST))
		usleep(1000);
	ex = (struct owner_ex){ OWNER_TID, w.tid };
	check_ok(fcntl(p[0], F_SETOWN_EX, &ex), "F_SETOWN_EX thread");
	check_ok(fcntl(p[0], F_SETSIG, w.sig), "F_SETSIG");
	check_ok(fcntl(p[0], F_SETFL, O_ASYNC), "O_ASYNC");
	write_byte(p[1]);
	pthread_join(th, NULL);
	check(w.got, "the owner thread took it");
	sigpending(&pend);
	check(!sigismember(&pend, w.sig), "nothing pending for the main thread");
	close(p[0]);
	close(p[1]);
}

// In a group of its own (a signal to the caller's group would reach
// whoever started the test): the leader and another member both get it.
static int group_owner_child(void)
{
	int sig = SIGRTMIN + 3, p[2], go[2];
	siginfo_t si;
	pid_t member;
	char c;
	int status;

	if (setpgid(0, 0) < 0 || pipe(p) < 0 || pipe(go) < 0)
		return 2;
	block(sig);
	member = fork();
	if (member == 0) {
		alarm(10);
		if (write(go[1], "r", 1) != 1)
			_exit(3);
		_exit(take(sig, &si, 5000) ? 0 : 1);
	}
	if (read(go[0], &c, 1) != 1)
		return 3;
	if (fcntl(p[0], F_SETOWN, -getpgrp()) < 0 || fcntl(p[0], F_SETSIG, sig) < 0 ||
	    fcntl(p[0], F_SETFL, O_ASYNC) < 0)
		return 4;
	if (write(p[1], "x", 1) != 1)
		return 5;
	if (!take(sig, &si, 2000))
		return 6;		// the leader
	if (waitpid(member, &status, 0) != member || !WIFEXITED(status) || WEXITSTATUS(status))
		return 7;		// the other member
	return 0;
}

static void t_group_owner(void)
{
	pid_t child = fork_child();

	if (child == 0)
		_exit(group_owner_child());
	check_exit_code(child, 0, "both members of the group got it");
}

// Linux's sigio_perm: an owner set by uid 1234 cannot signal root.
static void t_perm(void)
{
	int p[2];
	siginfo_t si;
	pid_t child;

	if (geteuid() != 0)
		return skip("not root");
	block(SIGIO);
	drain(SIGIO);
	if (!check_ok(pipe(p), "pipe"))
		return;
	check_ok(fcntl(p[0], F_SETFL, O_ASYNC), "O_ASYNC");
	child = fork_child();
	if (child == 0) {
		if (setresuid(1234, 1234, 1234) < 0)
			_exit(2);
		_exit(fcntl(p[0], F_SETOWN, getppid()) == 0 ? 0 : 3);
	}
	check_child_ok(child, "set by uid 1234");
	check(fcntl(p[0], F_GETOWN) == getpid(), "the owner is us");
	write_byte(p[1]);
	check(!take(SIGIO, &si, 200), "not allowed: no signal");
	check_ok(fcntl(p[0], F_SETOWN, getpid()), "F_SETOWN by root");
	write_byte(p[1]);
	check(take(SIGIO, &si, 2000), "allowed now");
	close(p[0]);
	close(p[1]);
}

static void t_fifo_pty_inotify(void)
{
	int sig = SIGRTMIN + 4, r, w, m, s, in;
	const char *fifo = scratch("fifo");
	siginfo_t si;

	block(sig);
	drain(sig);
	mkfifo(fifo, 0600);
	r = open(fifo, O_RDONLY | O_NONBLOCK);
	w = open(fifo, O_WRONLY);
	async_owner(r, sig);
	write_byte(w);
	check(take(sig, &si, 2000) && si.si_fd == r && si.si_code == POLL_IN, "FIFO");
	close(r);
	close(w);
	unlink(fifo);
	drain(sig);

	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (check(m >= 0, "posix_openpt")) {
		grantpt(m);
		unlockpt(m);
		s = open(ptsname(m), O_RDWR | O_NOCTTY);
		async_owner(m, sig);
		async_owner(s, sig);
		drain(sig);
		if (write(m, "hi\n", 3) != 3)
			fail("master write");
		int got_s = 0, got_m = 0;
		while (take(sig, &si, 500)) {
			got_s |= si.si_fd == s && si.si_code == POLL_IN;
			got_m |= si.si_fd == m && si.si_code == POLL_IN;	// the echo
		}
		check(got_s, "pty slave: input");
		check(got_m, "pty master: the echo");
		drain(sig);
		if (write(s, "yo", 2) != 2)
			fail("slave write");
		got_m = 0;
		while (take(sig, &si, 500))
			got_m |= si.si_fd == m && si.si_code == POLL_IN;
		check(got_m, "pty master: the slave's output");
		close(s);
		close(m);
	}
	drain(sig);

	in = inotify_init1(IN_NONBLOCK);
	inotify_add_watch(in, scratch_dir, IN_CREATE);
	async_owner(in, sig);
	close(open(scratch("made"), O_CREAT | O_WRONLY, 0600));
	check(take(sig, &si, 2000) && si.si_fd == in && si.si_code == POLL_IN, "inotify");
	unlink(scratch("made"));
	close(in);
	drain(sig);
}

// A slave writer that found the master's side full hears POLL_OUT once
// the master reads (Linux's tty_wakeup of the slave).
static void t_pty_poll_out(void)
{
	int sig = SIGRTMIN + 5, m, s, got = 0;
	char buf[4096];
	siginfo_t si;

	block(sig);
	drain(sig);
	m = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (!check(m >= 0, "posix_openpt"))
		return;
	grantpt(m);
	unlockpt(m);
	s = open(ptsname(m), O_RDWR | O_NOCTTY | O_NONBLOCK);
	memset(buf, 'x', sizeof(buf));
	async_owner(s, sig);
	for (int i = 0; i < 1000 && write(s, buf, sizeof(buf)) > 0; i++)
		;
	check(errno == EAGAIN, "the slave's writes fill up");
	drain(sig);
	for (int tries = 0; tries < 50 && !got; tries++) {
		while (read(m, buf, sizeof(buf)) > 0)
			;
		while (take(sig, &si, 20))
			got |= si.si_fd == s && si.si_code == POLL_OUT;
	}
	check(got, "POLL_OUT to the slave once the master reads");
	close(s);
	close(m);
	drain(sig);
}

// A socket: the F_SETSIG signal with POLL_IN and si_fd when data
// arrives, POLL_OUT when room comes back for a writer that filled it.
static void t_socket(void)
{
	int sv[2];
	siginfo_t si;

	block(SIGRTMIN + 2);
	drain(SIGRTMIN + 2);
	if (!check_ok(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair"))
		return;
	async_owner(sv[0], SIGRTMIN + 2);
	write_byte(sv[1]);
	if (check(take(SIGRTMIN + 2, &si, 2000), "a signal when data arrives"))
		check(si.si_code == POLL_IN && si.si_fd == sv[0], "POLL_IN, si_fd");
	drain(SIGRTMIN + 2);
	close(sv[0]);
	close(sv[1]);
}

static const struct test_case cases[] = {
	{ "socket_async", t_socket },
	{ "owner_commands_and_errnos", t_owner_commands },
	{ "sigio_on_write_only_when_async_and_owned", t_sigio_plain },
	{ "setsig_siginfo_poll_in_out_hup", t_setsig_info },
	{ "thread_owner", t_thread_owner },
	{ "process_group_owner", t_group_owner },
	{ "sigio_perm", t_perm },
	{ "fifo_pty_inotify", t_fifo_pty_inotify },
	{ "pty_slave_poll_out", t_pty_poll_out },
};

int main(void)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/sigio-%d", (int)getpid());
	if (mkdir(scratch_dir, 0755) < 0)
		ktap_diag("cannot create %s: errno %d", scratch_dir, errno);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
