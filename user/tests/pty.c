// pty: pseudo-terminals as Linux's devpts gives them.  posix_openpt,
// grantpt, unlockpt and ptsname; a locked slave refuses to open; the line
// discipline (canonical lines, erase and kill, ^D, echo, ONLCR, raw mode,
// ISIG characters signalling the foreground group); window size with
// SIGWINCH; a slave as controlling terminal (acquired on open by a
// session leader, TIOCSCTTY, TIOCNOTTY, TIOCGSID, tcgetpgrp/tcsetpgrp and
// their errnos); background jobs stopped by SIGTTIN on reads and by
// SIGTTOU on writes with TOSTOP and on tcsetpgrp, EIO where Linux gives
// it; the master's close hanging up the slave (SIGHUP to the session
// leader, EOF, EIO) and the slave's close giving the master EIO and
// POLLHUP; openpty and login_tty as script(1) uses them; vhangup.  Every case
// passes on Linux.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <pty.h>
#include <utmp.h>
#include <unistd.h>

#include "sysutil.h"
#include "testcase.h"

// ---- helpers -----------------------------------------------------------------

// The master of the case's pair: children close their copy, or it would
// never be closed.
static int cur_master = -1;


// A new pair: *master, and the slave's name in 'name'; the slave unlocked.
static int new_pty(int *master, char *name, size_t size, bool unlock)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);

	cur_master = m;
	if (m < 0)
		return fail("posix_openpt: errno=%d", errno), -1;
	if (grantpt(m) < 0 || (unlock && unlockpt(m) < 0)) {
		close(m);
		return fail("grantpt/unlockpt: errno=%d", errno), -1;
	}
	if (ptsname_r(m, name, size) != 0) {
		close(m);
		return fail("ptsname_r: errno=%d", errno), -1;
	}
	*master = m;
	return 0;
}

// Opens the slave of a new pair (O_NOCTTY).
static int new_pair(int *master, int *slave)
{
	char name[64];

	if (new_pty(master, name, sizeof(name), true) < 0)
		return -1;
	*slave = open(name, O_RDWR | O_NOCTTY);
	if (*slave < 0) {
		close(*master);
		return fail("open %s: errno=%d", name, errno), -1;
	}
	return 0;
}

// Reads what is there within timeout_ms (at least one byte, then what
// follows without waiting long).  Returns the count, 0 on timeout.
static ssize_t read_some(int fd, char *buf, size_t size, int timeout_ms)
{
	size_t got = 0;
	struct pollfd p = { fd, POLLIN, 0 };

	while (got < size - 1 && poll(&p, 1, got ? 50 : timeout_ms) == 1 && (p.revents & POLLIN)) {
		ssize_t r = read(fd, buf + got, size - 1 - got);
		if (r <= 0)
			break;
		got += r;
	}
	buf[got] = 0;
	return got;
}

static int check_read(int fd, const char *want, const char *what)
{
	char buf[256];

	read_some(fd, buf, sizeof(buf), 2000);
	if (strcmp(buf, want) != 0)
		return fail("%s: got \"%s\"", what, buf);
	return 1;
}

// ---- opening -----------------------------------------------------------------

static void t_open_unlock(void)
{
	char name[64];
	int m, n = -1;

	if (new_pty(&m, name, sizeof(name), false) < 0)
		return;
	check(strncmp(name, "/dev/pts/", 9) == 0, "ptsname is /dev/pts/N");
	check_ok(ioctl(m, TIOCGPTN, &n), "TIOCGPTN");
	check(n == atoi(name + 9), "TIOCGPTN matches ptsname");
	struct stat st;
	check(stat(name, &st) == 0 && S_ISCHR(st.st_mode), "the slave is a character device");
	check_errno(open(name, O_RDWR | O_NOCTTY), EIO, "locked slave");
	int lock = 0;
	check_ok(ioctl(m, TIOCGPTLCK, &lock), "TIOCGPTLCK");
	check(lock == 1, "locked at first");
	check_ok(unlockpt(m), "unlockpt");
	int s = open(name, O_RDWR | O_NOCTTY);
	check(s >= 0, "the unlocked slave opens");
	check(isatty(m) && isatty(s), "both are terminals");
	int m2, s2;
	if (new_pair(&m2, &s2) == 0) {
		int n2 = -1;
		ioctl(m2, TIOCGPTN, &n2);
		check(n2 != n, "a second pair gets another number");
		close(s2);
		close(m2);
	}
	if (s >= 0)
		close(s);
	close(m);
	check_errno(open(name, O_RDWR | O_NOCTTY), ENOENT, "the name goes with the pair");
}

// ---- the line discipline ------------------------------------------------------

static void t_canonical_echo(void)
{
	int m, s;
	char buf[64];

	if (new_pair(&m, &s) < 0)
		return;
	write(m, "hello\n", 6);
	check(read(s, buf, sizeof(buf)) == 6 && memcmp(buf, "hello\n", 6) == 0, "a line");
	check_read(m, "hello\r\n", "echo with ONLCR");
	// A partial line is not readable yet.
	fcntl(s, F_SETFL, O_NONBLOCK);
	write(m, "ab", 2);
	check_errno(read(s, buf, sizeof(buf)), EAGAIN, "a partial line");
	write(m, "x\177c\n", 4);	// erase the x
	fcntl(s, F_SETFL, 0);
	ssize_t r = read(s, buf, sizeof(buf));
	check(r == 4 && memcmp(buf, "abc\n", 4) == 0, "VERASE");
	read_some(m, buf, sizeof(buf), 500);
	write(m, "junk\025ok\n", 8);	// ^U kills the line
	r = read(s, buf, sizeof(buf));
	check(r == 3 && memcmp(buf, "ok\n", 3) == 0, "VKILL");
	read_some(m, buf, sizeof(buf), 500);
	// Two lines: one per read.
	write(m, "one\ntwo\n", 8);
	check(read(s, buf, sizeof(buf)) == 4, "first line alone");
	check(read(s, buf, sizeof(buf)) == 4 && memcmp(buf, "two\n", 4) == 0, "second line");
	read_some(m, buf, sizeof(buf), 500);
	// ^D on an empty line: end of file once.
	write(m, "\004", 1);
	check(read(s, buf, sizeof(buf)) == 0, "^D: EOF");
	write(m, "zz\004", 3);	// ^D after text: the text, no newline
	check(read(s, buf, sizeof(buf)) == 2, "^D pushes a partial line");
	close(s);
	close(m);
}

static void t_output_onlcr(void)
{
	int m, s;
	struct termios t;

	if (new_pair(&m, &s) < 0)
		return;
	write(s, "a\nb\n", 4);
	check_read(m, "a\r\nb\r\n", "ONLCR");
	tcgetattr(s, &t);
	t.c_oflag &= ~OPOST;
	tcsetattr(s, TCSANOW, &t);
	write(s, "c\n", 2);
	check_read(m, "c\n", "without OPOST");
	close(s);
	close(m);
}

static void t_raw_mode(void)
{
	int m, s;
	struct termios t;
	char buf[16];

	if (new_pair(&m, &s) < 0)
		return;
	tcgetattr(s, &t);
	cfmakeraw(&t);
	check_ok(tcsetattr(s, TCSANOW, &t), "cfmakeraw");
	struct termios back;
	tcgetattr(m, &back);
	check(!(back.c_lflag & (ICANON | ECHO)), "the master sees the slave's settings");
	write(m, "q", 1);
	check(read(s, buf, sizeof(buf)) == 1 && buf[0] == 'q', "one byte at once");
	write(m, "\003\r", 2);	// no ISIG, no ICRNL
	check(read(s, buf, sizeof(buf)) == 2 && buf[0] == 3 && buf[1] == '\r', "bytes as they are");
	fcntl(m, F_SETFL, O_NONBLOCK);
	check_errno(read(m, buf, sizeof(buf)), EAGAIN, "no echo");
	close(s);
	close(m);
}

static void t_fionread(void)
{
	int m, s, n = -1;

	if (new_pair(&m, &s) < 0)
		return;
	write(m, "abc\n", 4);
	usleep(10000);
	check(ioctl(s, FIONREAD, &n) == 0 && n == 4, "FIONREAD on the slave");
	check(ioctl(m, FIONREAD, &n) == 0 && n == 5, "FIONREAD on the master (echo)");
	tcflush(s, TCIFLUSH);
	check(ioctl(s, FIONREAD, &n) == 0 && n == 0, "TCIFLUSH");
	close(s);
	close(m);
}

// ---- controlling terminal and signals ----------------------------------------

// A child that makes a session, opens the slave (acquiring it), runs
// fn(slave fd) and exits with its result.
static pid_t fork_session(const char *name, int (*fn)(int), int ready_fd)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		close(cur_master);
		if (setsid() < 0)
			_exit(90);
		int s = open(name, O_RDWR);	// no O_NOCTTY: it becomes ours
		if (s < 0)
			_exit(91);
		if (ready_fd >= 0)
			write(ready_fd, "r", 1);
		_exit(fn(s));
	}
	return pid;
}

static int ctty_checks(int s)
{
	pid_t sid = -1;

	if (tcgetpgrp(s) != getpid())
		return 1;
	if (ioctl(s, TIOCGSID, &sid) < 0 || sid != getpid())
		return 2;
	if (tcgetsid(s) != getpid())
		return 3;
	int fd = open("/dev/tty", O_RDWR);	// our terminal, by its other name
	if (fd < 0 || tcgetpgrp(fd) != getpid())
		return 4;
	close(fd);
	if (ioctl(s, TIOCSCTTY, 0) != 0)	// already ours: fine
		return 5;
	if (tcsetpgrp(s, 999999) != -1 || errno != ESRCH)
		return 6;
	if (tcsetpgrp(s, -1) != -1 || errno != EINVAL)
		return 7;
	if (tcsetpgrp(s, getpgid(getppid())) != -1 || errno != EPERM)
		return 8;	// a group of another session
	// A child is not a session leader: TIOCSCTTY is EPERM for it.
	pid_t c = fork();
	if (c == 0) {
		if (ioctl(s, TIOCSCTTY, 0) != -1 || errno != EPERM)
			_exit(1);
		if (ioctl(s, TIOCNOTTY) != 0)	// a member gives it up alone
			_exit(2);
		if (tcgetpgrp(s) != -1 || errno != ENOTTY)
			_exit(3);
		_exit(0);
	}
	int st;
	waitpid(c, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 10 + (WIFEXITED(st) ? WEXITSTATUS(st) : 9);
	if (tcgetpgrp(s) != getpid())
		return 20;	// still ours
	signal(SIGHUP, SIG_IGN);
	if (ioctl(s, TIOCNOTTY) != 0)
		return 21;
	if (tcgetpgrp(s) != -1 || errno != ENOTTY)
		return 22;
	if (ioctl(s, TIOCSCTTY, 0) != 0)	// and back
		return 23;
	return 0;
}

static void t_controlling_tty(void)
{
	char name[64];
	int m;

	if (new_pty(&m, name, sizeof(name), true) < 0)
		return;
	int s = open(name, O_RDWR);
	check(s >= 0, "open the slave");
	check_errno(tcgetpgrp(s), ENOTTY, "not our controlling terminal");
	check_errno(ioctl(s, TIOCNOTTY), ENOTTY, "TIOCNOTTY of another terminal");
	close(s);
	pid_t pid = fork_session(name, ctty_checks, -1);
	check_child_ok(pid, "session leader: acquired on open, tcgetpgrp, TIOCGSID, /dev/tty (4), errnos");
	pid = fork_child();
	if (pid == 0) {
		close(m);
		setsid();
		if (open("/dev/tty", O_RDWR) != -1 || errno != ENXIO)
			_exit(1);
		int fd = open(name, O_RDWR | O_NOCTTY);	// O_NOCTTY: not acquired
		if (fd < 0 || tcgetpgrp(fd) != -1 || errno != ENOTTY)
			_exit(2);
		if (ioctl(fd, TIOCSCTTY, 0) != 0 || tcgetpgrp(fd) != getpid())
			_exit(3);		// TIOCSCTTY acquires it
		_exit(0);
	}
	check_child_ok(pid, "no terminal: /dev/tty ENXIO (1), O_NOCTTY (2), TIOCSCTTY (3)");
	close(m);
}

// The session leader's group is orphaned (its parent is in another
// session), so ^Z's SIGTSTP would be discarded at its default action:
// caught, it says it came.
static void on_tstp(int sig) { (void)sig; _exit(42); }

static int wait_for_signal(int s)
{
	(void)s;
	for (;;)
		pause();
	return 0;
}

static void t_isig(void)
{
	static const struct { char c; int sig; } chars[] = {
		{ 3, SIGINT }, { 034, SIGQUIT }, { 032, SIGTSTP },
	};
	char name[64];
	int m, q[2];

	if (pipe(q) < 0)
		return (void)fail("pipe: errno=%d", errno);
	for (unsigned i = 0; i < sizeof(chars) / sizeof(chars[0]); i++) {
		if (new_pty(&m, name, sizeof(name), true) < 0)
			return;
		signal(SIGTSTP, on_tstp);	// the child has it before it says it is ready
		pid_t pid = fork_session(name, wait_for_signal, q[1]);
		signal(SIGTSTP, SIG_DFL);
		char c;
		read(q[0], &c, 1);
		write(m, &chars[i].c, 1);
		if (chars[i].sig == SIGTSTP) {
			check_exit_code(pid, 42, "^Z sends SIGTSTP to the foreground group");
		} else {
			int st = reap_child(pid);
			check(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == chars[i].sig,
			      "the character signals the foreground group");
		}
		char buf[16];
		read_some(m, buf, sizeof(buf), 500);
		char want[3] = { '^', (char)(chars[i].c + '@'), 0 };
		check(strcmp(buf, want) == 0, "echoed as ^X");
		close(m);
	}
	close(q[0]);
	close(q[1]);
}

static volatile sig_atomic_t winch;
static void on_winch(int sig) { (void)sig; winch = 1; }

static int winch_child(int s)
{
	struct winsize ws;

	for (int i = 0; i < 500 && !winch; i++)
		usleep(10000);
	if (!winch)
		return 1;
	if (ioctl(s, TIOCGWINSZ, &ws) < 0 || ws.ws_row != 33 || ws.ws_col != 101)
		return 2;
	return 0;
}

static void t_winsize(void)
{
	char name[64];
	int m, q[2];

	if (pipe(q) < 0 || new_pty(&m, name, sizeof(name), true) < 0)
		return;
	signal(SIGWINCH, on_winch);	// inherited by the child
	pid_t pid = fork_session(name, winch_child, q[1]);
	signal(SIGWINCH, SIG_DFL);
	char c;
	read(q[0], &c, 1);
	struct winsize ws = { .ws_row = 33, .ws_col = 101 };
	check_ok(ioctl(m, TIOCSWINSZ, &ws), "TIOCSWINSZ on the master");
	check_child_ok(pid, "SIGWINCH (1) and the new size (2)");
	close(m);
	close(q[0]);
	close(q[1]);
}

// ---- background jobs -----------------------------------------------------------

// In the session of the terminal 's': a child in a group of its own (so
// in the background) does 'op'; returns how it ended as a code.
enum { OP_READ, OP_WRITE, OP_TCSETPGRP, OP_TCSETATTR };

static int bg_op(int s, int op, int sigaction_how)
{
	pid_t c = fork();

	if (c == 0) {
		setpgid(0, 0);
		int sig = op == OP_READ ? SIGTTIN : SIGTTOU;
		signal(sig, SIG_DFL);
		if (sigaction_how == 1)
			signal(sig, SIG_IGN);
		if (sigaction_how == 2) {
			sigset_t set;
			sigemptyset(&set);
			sigaddset(&set, sig);
			sigprocmask(SIG_BLOCK, &set, NULL);
		}
		char buf[4];
		struct termios t;
		long r = 0;
		switch (op) {
		case OP_READ: r = read(s, buf, 1); break;
		case OP_WRITE: r = write(s, "w", 1); break;
		case OP_TCSETPGRP: r = tcsetpgrp(s, getpgrp()); break;
		case OP_TCSETATTR: tcgetattr(s, &t); r = tcsetattr(s, TCSANOW, &t); break;
		}
		_exit(r < 0 ? (errno == EIO ? 50 : 51) : 0);
	}
	setpgid(c, c);
	int st;
	if (waitpid(c, &st, WUNTRACED) != c)
		return 99;
	if (WIFSTOPPED(st)) {
		int sig = WSTOPSIG(st);
		kill(c, SIGKILL);
		waitpid(c, &st, 0);
		return 100 + sig;	// stopped by sig
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 98;
}

static int background_checks(int s)
{
	struct termios t;

	signal(SIGTTOU, SIG_IGN);	// the leader itself changes settings freely
	if (bg_op(s, OP_READ, 0) != 100 + SIGTTIN)
		return 1;
	if (bg_op(s, OP_READ, 1) != 50)
		return 2;		// SIGTTIN ignored: EIO
	if (bg_op(s, OP_READ, 2) != 50)
		return 3;		// blocked: EIO
	if (bg_op(s, OP_WRITE, 0) != 0)
		return 4;		// no TOSTOP: writes go through
	tcgetattr(s, &t);
	t.c_lflag |= TOSTOP;
	tcsetattr(s, TCSANOW, &t);
	if (bg_op(s, OP_WRITE, 0) != 100 + SIGTTOU)
		return 5;
	if (bg_op(s, OP_WRITE, 1) != 0)
		return 6;		// SIGTTOU ignored: the write goes through
	if (bg_op(s, OP_TCSETPGRP, 0) != 100 + SIGTTOU)
		return 7;
	if (bg_op(s, OP_TCSETPGRP, 2) != 0)
		return 8;		// blocked: allowed (the job takes the terminal)
	if (tcsetpgrp(s, getpgrp()) != 0)
		return 9;		// take it back (SIGTTOU ignored)
	if (bg_op(s, OP_TCSETATTR, 0) != 100 + SIGTTOU)
		return 10;
	return 0;
}

static void t_background_jobs(void)
{
	char name[64];
	int m;

	if (new_pty(&m, name, sizeof(name), true) < 0)
		return;
	pid_t pid = fork_session(name, background_checks, -1);
	check_child_ok(pid, "SIGTTIN (1), EIO (2, 3), TOSTOP (4, 5, 6), tcsetpgrp (7, 8), tcsetattr (10)");
	close(m);
}

// A background read in an orphaned group: EIO instead of a stop.
static void t_orphaned_read_eio(void)
{
	char name[64];
	int m, q[2];

	if (pipe(q) < 0 || new_pty(&m, name, sizeof(name), true) < 0)
		return;
	pid_t pid = fork_child();
	if (pid == 0) {
		close(m);
		if (setsid() < 0)
			_exit(90);
		int s = open(name, O_RDWR);
		if (s < 0)
			_exit(91);
		pid_t c = fork();
		if (c == 0) {
			pid_t g = fork();
			if (g == 0) {
				setpgid(0, 0);
				usleep(200000);	// its parent is gone by then
				char b;
				long r = read(s, &b, 1);
				char out = r < 0 && errno == EIO ? 'E' : 'x';
				write(q[1], &out, 1);
				_exit(0);
			}
			_exit(0);
		}
		waitpid(c, NULL, 0);
		sleep(2);
		_exit(0);
	}
	char c = 0;
	struct pollfd p = { q[0], POLLIN, 0 };
	check(poll(&p, 1, 5000) == 1 && read(q[0], &c, 1) == 1 && c == 'E',
	      "a background read in an orphaned group: EIO");
	kill(pid, SIGKILL);
	reap_child(pid);
	close(m);
	close(q[0]);
	close(q[1]);
}

// ---- hang-ups -------------------------------------------------------------------

static int hup_fd;
static void on_hup(int sig) { (void)sig; write(hup_fd, "H", 1); }

static void t_master_close(void)
{
	char name[64];
	int m, q[2], r[2];

	if (pipe(q) < 0 || pipe(r) < 0 || new_pty(&m, name, sizeof(name), true) < 0)
		return;
	pid_t pid = fork_child();
	if (pid == 0) {
		close(m);
		hup_fd = q[1];
		signal(SIGHUP, on_hup);
		if (setsid() < 0)
			_exit(90);
		int s = open(name, O_RDWR);
		if (s < 0)
			_exit(91);
		write(r[1], "r", 1);
		char buf[8];
		// A read asleep when the hang-up comes fails with EIO; reads
		// after it find the end of file.
		long n = read(s, buf, sizeof(buf));
		if (n != -1 || errno != EIO)
			_exit(1);
		if (read(s, buf, sizeof(buf)) != 0)
			_exit(1);
		if (write(s, "x", 1) != -1 || errno != EIO)
			_exit(2);
		struct pollfd p = { s, POLLIN, 0 };
		if (poll(&p, 1, 0) != 1 || !(p.revents & POLLHUP))
			_exit(3);
		if (tcgetpgrp(s) != -1)
			_exit(4);	// no longer our controlling terminal
		if (ioctl(s, TIOCSCTTY, 0) != -1 || errno != EIO)
			_exit(5);	// nor can it be again
		_exit(0);
	}
	char c;
	read(r[0], &c, 1);
	usleep(50000);
	close(m);
	struct pollfd p = { q[0], POLLIN, 0 };
	check(poll(&p, 1, 5000) == 1 && read(q[0], &c, 1) == 1 && c == 'H',
	      "the session leader gets SIGHUP");
	check_child_ok(pid, "read EIO then 0 (1), write EIO (2), POLLHUP (3), ctty gone (4), TIOCSCTTY EIO (5)");
	close(q[0]); close(q[1]); close(r[0]); close(r[1]);
}

static void t_slave_close(void)
{
	int m, s;
	char buf[8];

	if (new_pair(&m, &s) < 0)
		return;
	write(s, "bye", 3);
	close(s);
	check(read(m, buf, sizeof(buf)) == 3, "what was written is still read");
	check_errno(read(m, buf, sizeof(buf)), EIO, "then EIO");
	struct pollfd p = { m, POLLIN, 0 };
	check(poll(&p, 1, 0) == 1 && (p.revents & POLLHUP), "POLLHUP");
	close(m);
}

// script(1)'s way: openpty, then a child that makes the slave its
// terminal (login_tty: setsid, TIOCSCTTY, stdin/out/err) and execs a
// program; the parent reads what it prints from the master until the
// slave is gone (EIO).
static void t_openpty_script(void)
{
	int m, s;
	char name[64];

	if (openpty(&m, &s, name, NULL, NULL) < 0)
		return (void)fail("openpty: errno=%d", errno);
	check(strncmp(name, "/dev/pts/", 9) == 0, "openpty names the slave");
	pid_t pid = fork_child();
	if (pid == 0) {
		close(m);
		if (login_tty(s) < 0)
			_exit(90);
		execl("/proc/self/exe", "pty", "--tty-report", (char *)NULL);
		_exit(127);
	}
	close(s);
	char buf[256];
	size_t got = 0;
	for (;;) {
		ssize_t r = read(m, buf + got, sizeof(buf) - 1 - got);
		if (r <= 0) {
			check(r < 0 && errno == EIO, "EIO once the program is gone");
			break;
		}
		got += r;
	}
	buf[got] = 0;
	check(strcmp(buf, "tty ok\r\n") == 0, "the program's output, with ONLCR");
	check_child_ok(pid, "child");
	close(m);
}

// --tty-report: run under openpty_script's login_tty.
static int tty_report(void)
{
	bool ok = isatty(0) && isatty(1) && tcgetpgrp(0) == getpgrp() && getsid(0) == getpid();
	printf("tty %s\n", ok ? "ok" : "wrong");
	return 0;
}

// vhangup: a session leader with the slave as its controlling terminal
// (ignoring SIGHUP, as login does) hangs it up; its old descriptors are
// dead (EOF, EIO), the session has no terminal any more, and the slave
// opened again works and can become the controlling terminal again.
static volatile sig_atomic_t got_hup;
static void on_vhup(int sig) { (void)sig; got_hup = 1; }

static void t_vhangup(void)
{
	char name[64], c;
	int m;

	if (new_pty(&m, name, sizeof(name), true) < 0)
		return;
	pid_t pid = fork_child();
	if (pid == 0) {
		struct winsize ws;
		struct sigaction sa = { .sa_handler = on_vhup };

		close(m);
		sigaction(SIGHUP, &sa, NULL);
		setsid();
		int s = open(name, O_RDWR);		// acquired: a session leader
		if (s < 0 || tcgetpgrp(s) != getpid())
			_exit(1);
		if (vhangup() != 0)
			_exit(2);
		if (!got_hup)
			_exit(3);			// the leader got SIGHUP
		if (read(s, &c, 1) != 0)
			_exit(4);			// end of file
		if (write(s, "x", 1) != -1 || errno != EIO)
			_exit(5);
		if (ioctl(s, TIOCGWINSZ, &ws) != -1 || errno != EIO)
			_exit(6);
		if (open("/dev/tty", O_RDWR) != -1 || errno != ENXIO)
			_exit(7);			// no controlling terminal
		int again = open(name, O_RDWR);
		if (again < 0 || tcgetpgrp(again) != getpid())
			_exit(8);			// usable, and acquired again
		if (write(again, "ok", 2) != 2)
			_exit(9);
		_exit(0);
	}
	check_child_ok(pid, "vhangup: 0 (2), SIGHUP (3), EOF (4), EIO (5, 6), no ctty (7), reopened (8, 9)");
	char buf[8] = { 0 };
	check(read(m, buf, sizeof(buf)) >= 2 && strstr(buf, "ok"), "the reopened slave's output");
	close(m);
}

static void t_vhangup_rules(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		setsid();		// no controlling terminal: nothing to do
		if (vhangup() != 0)
			_exit(1);
		if (setresuid(1000, 1000, 1000) != 0)
			_exit(2);
		if (vhangup() != -1 || errno != EPERM)
			_exit(3);
		_exit(0);
	}
	check_child_ok(pid, "without a terminal 0 (1); unprivileged EPERM (3)");
}

static const struct test_case cases[] = {
	{ "open_unlock", t_open_unlock },
	{ "canonical_echo", t_canonical_echo },
	{ "output_onlcr", t_output_onlcr },
	{ "raw_mode", t_raw_mode },
	{ "fionread", t_fionread },
	{ "controlling_tty", t_controlling_tty },
	{ "isig", t_isig },
	{ "winsize", t_winsize },
	{ "background_jobs", t_background_jobs },
	{ "orphaned_read_eio", t_orphaned_read_eio },
	{ "master_close", t_master_close },
	{ "slave_close", t_slave_close },
	{ "openpty_script", t_openpty_script },
	{ "vhangup_kills_open_files_not_the_terminal", t_vhangup },
	{ "vhangup_rules", t_vhangup_rules },
};

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--tty-report") == 0)
		return tty_report();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
