// signalfd and signalfd4: reading the caller's pending signals of the mask
// as 128-byte struct signalfd_siginfo (as many as fit; EINVAL below 128),
// with the data of kill, tgkill, sigqueue and SIGCHLD; synchronous
// signals first; the thread's own signals and its process's, not another
// thread's; EAGAIN with SFD_NONBLOCK; a blocked read woken by a signal
// sent to the process, and EINTR for a handled signal outside the mask;
// poll readiness and its wake-up; signalfd(fd, ...) replacing the mask
// (EINVAL on another kind of file); SIGKILL and SIGSTOP left out;
// argument errnos; SFD_CLOEXEC; anon_inode:[signalfd] and fdinfo sigmask.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "sysutil.h"
#include "poke.h"

#define SSI sizeof(struct signalfd_siginfo)

static sigset_t set_of(int a, int b)
{
	sigset_t set;

	sigemptyset(&set);
	if (a)
		sigaddset(&set, a);
	if (b)
		sigaddset(&set, b);
	return set;
}

// Blocks the set for the whole process and makes a signalfd on it.
static int sfd_on(sigset_t set, int flags)
{
	sigprocmask(SIG_BLOCK, &set, NULL);
	int fd = signalfd(-1, &set, flags);
	if (fd < 0)
		fail("signalfd: errno=%d", errno);
	return fd;
}

// Clears what the case left pending and unblocks the set.
static void done(int fd, sigset_t set)
{
	struct signalfd_siginfo ssi;
	int flags = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	while (read(fd, &ssi, SSI) > 0)
		;
	close(fd);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void t_reads_kill_and_tgkill(void)
{
	sigset_t set = set_of(SIGUSR1, 0);
	int fd = sfd_on(set, SFD_NONBLOCK);
	struct signalfd_siginfo ssi;

	check_errno(read(fd, &ssi, SSI), EAGAIN, "nothing pending: EAGAIN");
	kill(getpid(), SIGUSR1);
	check(read(fd, &ssi, SSI) == SSI, "one siginfo");
	check(ssi.ssi_signo == SIGUSR1 && ssi.ssi_code == SI_USER, "SIGUSR1 from kill");
	check(ssi.ssi_pid == (uint32_t)getpid() && ssi.ssi_uid == getuid(), "its sender");
	check_errno(read(fd, &ssi, SSI), EAGAIN, "taken: EAGAIN again");
	sigset_t pending;
	sigpending(&pending);
	check(!sigismember(&pending, SIGUSR1), "no longer pending");
	syscall(SYS_tgkill, getpid(), my_tid(), SIGUSR1);
	check(read(fd, &ssi, SSI) == SSI && ssi.ssi_code == SI_TKILL, "tgkill: SI_TKILL");
	done(fd, set);
}

static void t_sigqueue_data(void)
{
	int sig = SIGRTMIN + 1;
	sigset_t set = set_of(sig, 0);
	int fd = sfd_on(set, SFD_NONBLOCK);
	struct signalfd_siginfo ssi[3];
	union sigval v = { .sival_int = 77 };

	sigqueue(getpid(), sig, v);
	v.sival_int = 78;
	sigqueue(getpid(), sig, v);
	check(read(fd, ssi, sizeof(ssi)) == 2 * SSI, "both queued ones in one read");
	check(ssi[0].ssi_code == SI_QUEUE && ssi[0].ssi_int == 77 && ssi[0].ssi_ptr == 77,
	      "the first value");
	check(ssi[1].ssi_int == 78 && (int)ssi[1].ssi_signo == sig, "the second, in order");
	check(ssi[0].ssi_pid == (uint32_t)getpid(), "sender pid");
	done(fd, set);
}

static void t_buffer_sizes(void)
{
	sigset_t set = set_of(SIGUSR2, 0);
	int fd = sfd_on(set, SFD_NONBLOCK);
	char buf[300];

	kill(getpid(), SIGUSR2);
	check_errno(read(fd, buf, SSI - 1), EINVAL, "127 bytes: EINVAL");
	check_errno(read(fd, buf, 0), EINVAL, "0 bytes: EINVAL");
	check(read(fd, buf, sizeof(buf)) == SSI, "300 bytes: one siginfo");
	kill(getpid(), SIGUSR2);
	check_errno(syscall(SYS_read, fd, (void *)8, SSI), EFAULT, "bad buffer: EFAULT");
	check_errno(read(fd, buf, SSI), EAGAIN, "that signal was taken, as on Linux");
	done(fd, set);
}

// Synchronous signals come first, then the lowest number.
static void t_order(void)
{
	sigset_t set = set_of(SIGINT, SIGSEGV);
	int fd = sfd_on(set, SFD_NONBLOCK);
	struct signalfd_siginfo ssi[2];

	kill(getpid(), SIGINT);
	kill(getpid(), SIGSEGV);
	check(read(fd, ssi, sizeof(ssi)) == 2 * SSI, "two");
	check(ssi[0].ssi_signo == SIGSEGV && ssi[1].ssi_signo == SIGINT, "SIGSEGV before SIGINT");
	done(fd, set);
}

static void *thread_reads(void *arg)
{
	struct signalfd_siginfo ssi;
	int fd = *(int *)arg;

	return (void *)(long)(read(fd, &ssi, SSI) == SSI ? (long)ssi.ssi_signo : -errno);
}

static void *kill_later(void *arg)
{
	sleep_ms(30);
	kill(getpid(), (int)(long)arg);
	return NULL;
}

// A signal for another thread is that thread's to read.
static void t_thread_and_process(void)
{
	sigset_t set = set_of(SIGUSR1, 0);
	int fd = sfd_on(set, 0);
	struct signalfd_siginfo ssi;
	pthread_t th;
	void *got;

	// The new thread inherits the blocked mask; it reads blocking.
	pthread_create(&th, NULL, thread_reads, &fd);
	sleep_ms(20);
	pthread_kill(th, SIGUSR1);
	pthread_join(th, &got);
	check((long)got == SIGUSR1, "the target thread read it");
	fcntl(fd, F_SETFL, O_NONBLOCK);
	check_errno(read(fd, &ssi, SSI), EAGAIN, "not the main thread's");
	done(fd, set);
}

static void t_blocking_read(void)
{
	sigset_t set = set_of(SIGUSR2, 0);
	int fd = sfd_on(set, 0);
	struct signalfd_siginfo ssi;
	pthread_t th;

	pthread_create(&th, NULL, kill_later, (void *)(long)SIGUSR2);
	check(read(fd, &ssi, SSI) == SSI && ssi.ssi_signo == SIGUSR2,
	      "a blocked read woken by a signal to the process");
	pthread_join(th, NULL);
	done(fd, set);
}

static void on_urg(int sig) { (void)sig; }

static void t_eintr(void)
{
	sigset_t set = set_of(SIGUSR2, 0);
	int fd = sfd_on(set, 0);
	struct sigaction sa = { .sa_handler = on_urg };		// no SA_RESTART
	struct signalfd_siginfo ssi;
	struct poke poke;

	sigaction(SIGURG, &sa, NULL);
	// To this thread: a process-directed one may be taken by the sender.
	poke_later(&poke, SIGURG);
	check_errno(syscall(SYS_read, fd, &ssi, SSI), EINTR, "a handled signal outside the mask");
	poke_join(&poke);
	signal(SIGURG, SIG_DFL);
	done(fd, set);
}

static void t_poll(void)
{
	sigset_t set = set_of(SIGUSR1, 0);
	int fd = sfd_on(set, SFD_NONBLOCK);
	struct pollfd p = { fd, POLLIN | POLLOUT | POLLRDNORM, 0 };
	pthread_t th;

	check(poll(&p, 1, 0) == 0, "nothing pending: not ready (never POLLOUT)");
	kill(getpid(), SIGUSR1);
	check(poll(&p, 1, 0) == 1 && p.revents == POLLIN, "pending: POLLIN alone");
	struct signalfd_siginfo ssi;
	read(fd, &ssi, SSI);
	check(poll(&p, 1, 0) == 0, "taken: not ready");
	pthread_create(&th, NULL, kill_later, (void *)(long)SIGUSR1);
	check(poll(&p, 1, 5000) == 1 && p.revents == POLLIN, "poll woken by the signal");
	pthread_join(th, NULL);
	done(fd, set);
}

static void t_mask_update(void)
{
	sigset_t set = set_of(SIGUSR1, SIGUSR2), one = set_of(SIGUSR1, 0), two = set_of(SIGUSR2, 0);
	int fd = sfd_on(set, SFD_NONBLOCK);
	struct signalfd_siginfo ssi;
	int efd = eventfd(0, 0);

	check(signalfd(fd, &two, 0) == fd, "signalfd(fd, ...) returns fd");
	kill(getpid(), SIGUSR1);
	check_errno(read(fd, &ssi, SSI), EAGAIN, "SIGUSR1 is out of the mask now");
	kill(getpid(), SIGUSR2);
	check(read(fd, &ssi, SSI) == SSI && ssi.ssi_signo == SIGUSR2, "SIGUSR2 is in");
	check(signalfd(fd, &one, SFD_CLOEXEC) == fd, "back to SIGUSR1");
	check(fcntl(fd, F_GETFD) == 0, "the update's flags are not applied");
	check(read(fd, &ssi, SSI) == SSI && ssi.ssi_signo == SIGUSR1, "the pending SIGUSR1");
	check_errno(signalfd(efd, &one, 0), EINVAL, "an eventfd: EINVAL");
	check_errno(signalfd(0x7fff, &one, 0), EBADF, "a closed descriptor: EBADF");
	check_errno(signalfd(-2, &one, 0), EBADF, "-2: EBADF");
	close(efd);
	done(fd, set);
}

static void t_errors(void)
{
	sigset_t set = set_of(SIGUSR1, 0);

	check_errno(syscall(SYS_signalfd4, -1, &set, 4, 0), EINVAL, "sizemask 4");
	check_errno(syscall(SYS_signalfd4, -1, &set, 16, 0), EINVAL, "sizemask 16");
	check_errno(syscall(SYS_signalfd, -1, &set, 128), EINVAL, "signalfd: sizemask 128");
	check_errno(syscall(SYS_signalfd4, -1, &set, 8, 1), EINVAL, "flag 1");
	check_errno(syscall(SYS_signalfd4, -1, &set, 8, O_RDWR), EINVAL, "O_RDWR");
	check_errno(syscall(SYS_signalfd4, -1, (void *)8, 8, 0), EFAULT, "unreadable mask");
	check_errno(syscall(SYS_signalfd4, -1, (void *)8, 8, 1), EFAULT, "EFAULT before flags");
	int fd = (int)syscall(SYS_signalfd, -1, &set, 8);
	check_ok(fd, "signalfd (282)");
	check(fcntl(fd, F_GETFL) == O_RDWR && fcntl(fd, F_GETFD) == 0, "blocking, no cloexec");
	char c = 0;
	check_errno(write(fd, &c, 1), EINVAL, "write: EINVAL");
	close(fd);
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	check(fcntl(fd, F_GETFD) == FD_CLOEXEC, "SFD_CLOEXEC");
	check(fcntl(fd, F_GETFL) == (O_RDWR | O_NONBLOCK), "SFD_NONBLOCK");
	close(fd);
}

static void t_proc_view(void)
{
	uint64_t raw = (1ULL << (SIGUSR1 - 1)) | (1ULL << (SIGKILL - 1)) | (1ULL << (SIGSTOP - 1));
	int fd = (int)syscall(SYS_signalfd4, -1, &raw, 8, 0);
	char path[64], buf[512];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	check(strcmp(buf, "anon_inode:[signalfd]") == 0, "fd link anon_inode:[signalfd]");
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	int f = open(path, O_RDONLY);
	n = f >= 0 ? read(f, buf, sizeof(buf) - 1) : -1;
	buf[n > 0 ? n : 0] = 0;
	if (f >= 0)
		close(f);
	check(strstr(buf, "\nsigmask:\t0000000000000200\n") != NULL,
	      "fdinfo sigmask: SIGUSR1 alone, SIGKILL and SIGSTOP left out");
	close(fd);
}

static void t_sigchld(void)
{
	sigset_t set = set_of(SIGCHLD, 0);
	int fd = sfd_on(set, 0);
	struct signalfd_siginfo ssi;
	pid_t pid = fork();

	if (pid == 0)
		_exit(3);
	check(read(fd, &ssi, SSI) == SSI && ssi.ssi_signo == SIGCHLD, "SIGCHLD read");
	check(ssi.ssi_code == CLD_EXITED && ssi.ssi_status == 3 && ssi.ssi_pid == (uint32_t)pid,
	      "its code, status and pid");
	waitpid(pid, NULL, 0);
	done(fd, set);
}

static const struct test_case cases[] = {
	{ "reads_kill_and_tgkill", t_reads_kill_and_tgkill },
	{ "sigqueue_data_in_order", t_sigqueue_data },
	{ "buffer_sizes", t_buffer_sizes },
	{ "synchronous_signals_first", t_order },
	{ "thread_signal_is_the_threads", t_thread_and_process },
	{ "blocking_read_woken", t_blocking_read },
	{ "handled_signal_EINTR", t_eintr },
	{ "poll_readiness_and_wakeup", t_poll },
	{ "mask_update", t_mask_update },
	{ "argument_errors_and_flags", t_errors },
	{ "proc_fd_and_fdinfo", t_proc_view },
	{ "sigchld_data", t_sigchld },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
