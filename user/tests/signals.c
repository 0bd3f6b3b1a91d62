// signals: delivery, masks, handler flags, faults and sigreturn.
//
// Cases that end a process (default actions, SA_RESETHAND) run in a forked
// child and the parent reads the wait status.  Cases that need a signal to
// arrive while the caller sleeps in the kernel get it from a child process,
// so no test depends on threads unless it is about threads.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "ktap.h"
#include "sysutil.h"
#include "watchdog.h"

#define WATCHDOG_SECONDS 120
#define NR_CASES 28

static int install(int sig, void (*handler)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

static int install_info(int sig, void (*handler)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = flags | SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

static void set_blocked(int sig, int block)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

static int is_blocked(int sig)
{
	sigset_t cur;

	sigprocmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, sig);
}

// Run 'body' in a child and return its wait status.
static int status_of_child(void (*body)(void))
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		alarm(30);
		body();
		_exit(100);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

// A child that sends 'sig' to its parent after 'delay_ms', then (when
// 'pipe_fd' >= 0) writes one byte to that pipe after another delay.
static pid_t spawn_sender(int sig, long delay_ms, int pipe_fd)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid == 0) {
		sleep_ms(delay_ms);
		kill(parent, sig);
		if (pipe_fd >= 0) {
			sleep_ms(delay_ms);
			if (write(pipe_fd, "x", 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	return pid;
}

static void reap(pid_t pid)
{
	int status;

	waitpid(pid, &status, 0);
}

static volatile sig_atomic_t hits;

static void count_hit(int sig)
{
	(void)sig;
	hits++;
}

// ---- sigaction install and query ----

static void test_sigaction_query(void)
{
	struct sigaction sa, old;
	int ok;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = count_hit;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	ok = sigaction(SIGUSR1, &sa, NULL) == 0;
	memset(&old, 0, sizeof(old));
	ok = ok && sigaction(SIGUSR1, NULL, &old) == 0;
	ok = ok && old.sa_handler == count_hit && (old.sa_flags & SA_RESTART) &&
	     sigismember(&old.sa_mask, SIGUSR2) && !sigismember(&old.sa_mask, SIGTERM);
	// Replace and get the previous one back in the same call.
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	ok = ok && sigaction(SIGUSR1, &sa, &old) == 0 && old.sa_handler == count_hit;
	ok = ok && sigaction(SIGUSR1, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
	// SIGKILL and SIGSTOP cannot be caught; bad numbers are refused.
	sa.sa_handler = count_hit;
	ok = ok && sigaction(SIGKILL, &sa, NULL) == -1 && errno == EINVAL;
	ok = ok && sigaction(SIGSTOP, &sa, NULL) == -1 && errno == EINVAL;
	ok = ok && sigaction(0, &sa, NULL) == -1 && errno == EINVAL;
	ok = ok && sigaction(65, &sa, NULL) == -1 && errno == EINVAL;
	install(SIGUSR1, SIG_DFL, 0);
	ktap_result(ok, "sigaction_install_query");
}

// ---- SA_SIGINFO ----

static siginfo_t last_info;
static volatile sig_atomic_t info_hits;

static void record_info(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	last_info = *si;
	info_hits++;
}

static void test_siginfo_kill(void)
{
	int ok;

	install_info(SIGUSR1, record_info, 0);
	info_hits = 0;
	kill(getpid(), SIGUSR1);
	ok = info_hits == 1 && last_info.si_signo == SIGUSR1 && last_info.si_code == SI_USER &&
	     last_info.si_pid == getpid() && last_info.si_uid == getuid();
	if (!ok)
		ktap_diag("hits %d signo %d code %d pid %d", (int)info_hits, last_info.si_signo,
			  last_info.si_code, (int)last_info.si_pid);
	install(SIGUSR1, SIG_DFL, 0);
	ktap_result(ok, "sa_siginfo_kill");
}

static void test_siginfo_tkill_and_queue(void)
{
	union sigval value = { .sival_int = 12345 };
	int ok;

	install_info(SIGUSR2, record_info, 0);
	info_hits = 0;
	syscall(SYS_tgkill, getpid(), my_tid(), SIGUSR2);
	// The handler wrote last_info behind the compiler's back.
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ok = info_hits == 1 && last_info.si_code == SI_TKILL && last_info.si_pid == getpid();
	if (!ok)
		ktap_diag("tgkill: hits %d code %d pid %d", (int)info_hits, last_info.si_code,
			  (int)last_info.si_pid);
	sigqueue(getpid(), SIGUSR2, value);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ok = ok && info_hits == 2 && last_info.si_code == SI_QUEUE &&
	     last_info.si_value.sival_int == 12345 && last_info.si_pid == getpid();
	if (!ok)
		ktap_diag("hits %d code %d value %d pid %d", (int)info_hits, last_info.si_code,
			  last_info.si_value.sival_int, (int)last_info.si_pid);
	install(SIGUSR2, SIG_DFL, 0);
	ktap_result(ok, "sa_siginfo_tkill_sigqueue");
}

// ---- SA_RESTART ----

static volatile sig_atomic_t in_read;
static volatile sig_atomic_t early_signal;

static void note_hit(int sig)
{
	(void)sig;
	if (!in_read)
		early_signal = 1;
	hits++;
}

// One attempt: returns read()'s result (errno in *err), or -2 when the
// signal came before read() started and the attempt proves nothing.
static long read_with_signal(int flags, long delay_ms, int *err)
{
	int fds[2];
	char c;
	long rc;
	pid_t pid;

	if (pipe(fds) != 0)
		return -3;
	install(SIGUSR1, note_hit, flags);
	hits = 0;
	early_signal = 0;
	in_read = 0;
	pid = spawn_sender(SIGUSR1, delay_ms, fds[1]);
	in_read = 1;
	rc = read(fds[0], &c, 1);
	*err = errno;
	in_read = 0;
	if (rc < 0 && read(fds[0], &c, 1) != 1)
		rc = -3;
	reap(pid);
	close(fds[0]);
	close(fds[1]);
	install(SIGUSR1, SIG_DFL, 0);
	if (early_signal)
		return -2;
	return hits == 1 ? rc : -4;
}

static void test_sa_restart(void)
{
	long with = -2, without = -2;
	int err_with = 0, err_without = 0;

	// Retry with longer delays if the sender was faster than we were.
	for (long delay = 50; delay <= 1600 && with == -2; delay *= 2)
		with = read_with_signal(SA_RESTART, delay, &err_with);
	for (long delay = 50; delay <= 1600 && without == -2; delay *= 2)
		without = read_with_signal(0, delay, &err_without);
	if (with != 1 || without != -1)
		ktap_diag("read with SA_RESTART %ld, without %ld (errno %d)", with, without, err_without);
	ktap_result(with == 1, "sa_restart_read_restarted");
	ktap_result(without == -1 && err_without == EINTR, "no_sa_restart_read_eintr");
}

// ---- SA_NODEFER ----

static volatile sig_atomic_t depth, max_depth, nodefer_hits;

static void reentrant_handler(int sig)
{
	depth++;
	if (depth > max_depth)
		max_depth = depth;
	nodefer_hits++;
	if (nodefer_hits == 1)
		raise(sig);
	depth--;
}

static void test_sa_nodefer(void)
{
	int deferred_ok, nodefer_ok;

	depth = max_depth = nodefer_hits = 0;
	install(SIGUSR1, reentrant_handler, 0);
	raise(SIGUSR1);
	// Without SA_NODEFER the second signal waits for the first handler.
	deferred_ok = nodefer_hits == 2 && max_depth == 1;
	depth = max_depth = nodefer_hits = 0;
	install(SIGUSR1, reentrant_handler, SA_NODEFER);
	raise(SIGUSR1);
	nodefer_ok = nodefer_hits == 2 && max_depth == 2;
	install(SIGUSR1, SIG_DFL, 0);
	ktap_result(deferred_ok && nodefer_ok, "sa_nodefer_reentry");
}

// ---- SA_RESETHAND ----

static int resethand_pipe;

static void resethand_handler(int sig)
{
	(void)sig;
	if (write(resethand_pipe, "h", 1) != 1)
		_exit(11);
}

static void resethand_child(void)
{
	struct sigaction old;

	install(SIGUSR1, resethand_handler, SA_RESETHAND);
	raise(SIGUSR1);
	if (sigaction(SIGUSR1, NULL, &old) != 0 || old.sa_handler != SIG_DFL)
		_exit(10);
	raise(SIGUSR1);
}

static void test_sa_resethand(void)
{
	int fds[2], status;
	char c = 0;

	if (pipe(fds) != 0) {
		ktap_result(0, "sa_resethand # pipe failed");
		return;
	}
	resethand_pipe = fds[1];
	status = status_of_child(resethand_child);
	close(fds[1]);
	if (read(fds[0], &c, 1) != 1)
		c = 0;
	close(fds[0]);
	ktap_result(c == 'h' && WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1, "sa_resethand");
}

// ---- SA_ONSTACK ----

static char *alt_base;
static size_t alt_size;
static volatile uintptr_t handler_stack_addr;
static volatile int handler_saw_onstack;

static void stack_probe(int sig)
{
	volatile char here;
	stack_t now;

	(void)sig;
	handler_stack_addr = (uintptr_t)&here;
	handler_saw_onstack = sigaltstack(NULL, &now) == 0 && (now.ss_flags & SS_ONSTACK);
}

static int on_alt_stack(uintptr_t addr)
{
	return addr >= (uintptr_t)alt_base && addr < (uintptr_t)alt_base + alt_size;
}

static void test_sa_onstack(void)
{
	stack_t ss, old;
	int ok;

	alt_size = 64 * 1024;
	alt_base = malloc(alt_size);
	ss.ss_sp = alt_base;
	ss.ss_size = alt_size;
	ss.ss_flags = 0;
	ok = sigaltstack(&ss, NULL) == 0;
	ok = ok && sigaltstack(NULL, &old) == 0 && old.ss_sp == alt_base && old.ss_size == alt_size &&
	     !(old.ss_flags & SS_DISABLE);
	install(SIGUSR1, stack_probe, SA_ONSTACK);
	raise(SIGUSR1);
	ok = ok && on_alt_stack(handler_stack_addr) && handler_saw_onstack;
	// Without SA_ONSTACK the handler stays on the normal stack.
	install(SIGUSR1, stack_probe, 0);
	raise(SIGUSR1);
	ok = ok && !on_alt_stack(handler_stack_addr) && !handler_saw_onstack;
	ss.ss_flags = SS_DISABLE;
	ok = ok && sigaltstack(&ss, NULL) == 0;
	ok = ok && sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE);
	install(SIGUSR1, SIG_DFL, 0);
	free(alt_base);
	ktap_result(ok, "sa_onstack_sigaltstack");
}

// ---- sigprocmask, sigpending ----

static void test_mask_pending(void)
{
	sigset_t pending;
	int ok;

	install(SIGUSR1, count_hit, 0);
	hits = 0;
	set_blocked(SIGUSR1, 1);
	raise(SIGUSR1);
	raise(SIGUSR1);
	ok = hits == 0 && sigpending(&pending) == 0 && sigismember(&pending, SIGUSR1);
	// Unblocking delivers before sigprocmask returns; a standard signal
	// sent twice while blocked is delivered once.
	set_blocked(SIGUSR1, 0);
	ok = ok && hits == 1 && sigpending(&pending) == 0 && !sigismember(&pending, SIGUSR1);
	install(SIGUSR1, SIG_DFL, 0);
	ktap_result(ok, "sigprocmask_sigpending_delivery");
}

static void test_rt_queued(void)
{
	int sig = SIGRTMIN + 1;
	union sigval v = { .sival_int = 0 };
	int ok;

	install(sig, count_hit, 0);
	hits = 0;
	set_blocked(sig, 1);
	for (int i = 0; i < 3; i++)
		sigqueue(getpid(), sig, v);
	ok = hits == 0;
	set_blocked(sig, 0);
	// Real-time signals queue: three sent, three delivered.
	ok = ok && hits == 3;
	install(sig, SIG_DFL, 0);
	ktap_result(ok, "rt_signals_queue");
}

// ---- sigsuspend ----

static void test_sigsuspend(void)
{
	sigset_t empty;
	pid_t pid;
	int rc, err;

	install(SIGUSR1, count_hit, 0);
	hits = 0;
	set_blocked(SIGUSR1, 1);
	pid = spawn_sender(SIGUSR1, 20, -1);
	sigemptyset(&empty);
	rc = sigsuspend(&empty);
	err = errno;
	// The old mask is back once sigsuspend returns.
	int still_blocked = is_blocked(SIGUSR1);
	set_blocked(SIGUSR1, 0);
	reap(pid);
	install(SIGUSR1, SIG_DFL, 0);
	ktap_result(rc == -1 && err == EINTR && hits == 1 && still_blocked, "sigsuspend");
}

// ---- nested handlers ----

static char trace[16];
static volatile int trace_len;

static void trace_add(char c)
{
	if (trace_len < (int)sizeof(trace) - 1)
		trace[trace_len++] = c;
}

static void outer_handler(int sig)
{
	(void)sig;
	trace_add('1');
	// While in the handler its own signal is blocked.
	if (!is_blocked(SIGUSR1))
		trace_add('!');
	raise(SIGUSR2);
	trace_add('y');
}

static void inner_handler(int sig)
{
	(void)sig;
	trace_add('2');
	trace_add('x');
}

// ppoll with a signal mask: the signal blocked outside is let in only
// while ppoll waits, and blocked again after.
static void test_ppoll_mask(void)
{
	sigset_t during;
	struct timespec ts = { 5, 0 };
	pid_t pid;
	int rc, err;

	install(SIGUSR1, count_hit, 0);
	hits = 0;
	set_blocked(SIGUSR1, 1);
	pid = spawn_sender(SIGUSR1, 20, -1);
	sigemptyset(&during);
	rc = ppoll(NULL, 0, &ts, &during);
	err = errno;
	int still_blocked = is_blocked(SIGUSR1);
	set_blocked(SIGUSR1, 0);
	reap(pid);
	install(SIGUSR1, SIG_DFL, 0);
	ktap_result(rc == -1 && err == EINTR && hits == 1 && still_blocked, "ppoll_signal_mask");
}

static void test_nested_handlers(void)
{
	struct sigaction sa;
	int nested_ok, masked_ok;

	memset(trace, 0, sizeof(trace));
	trace_len = 0;
	install(SIGUSR1, outer_handler, 0);
	install(SIGUSR2, inner_handler, 0);
	raise(SIGUSR1);
	nested_ok = strcmp(trace, "12xy") == 0 && !is_blocked(SIGUSR1);
	if (!nested_ok)
		ktap_diag("nested trace '%s'", trace);
	// With SIGUSR2 in sa_mask the inner handler waits for the outer one.
	memset(trace, 0, sizeof(trace));
	trace_len = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = outer_handler;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	masked_ok = strcmp(trace, "1y2x") == 0;
	if (!masked_ok)
		ktap_diag("masked trace '%s'", trace);
	install(SIGUSR1, SIG_DFL, 0);
	install(SIGUSR2, SIG_DFL, 0);
	ktap_result(nested_ok && masked_ok, "nested_handlers_and_sa_mask");
}

// ---- SIGCHLD ----

static void test_sigchld(void)
{
	sigset_t empty;
	pid_t pid;
	int ok;

	install_info(SIGCHLD, record_info, 0);
	info_hits = 0;
	set_blocked(SIGCHLD, 1);
	pid = fork();
	if (pid == 0)
		_exit(3);
	sigemptyset(&empty);
	while (info_hits == 0)
		sigsuspend(&empty);
	set_blocked(SIGCHLD, 0);
	ok = last_info.si_signo == SIGCHLD && last_info.si_code == CLD_EXITED &&
	     last_info.si_pid == pid && last_info.si_status == 3;
	reap(pid);
	install(SIGCHLD, SIG_DFL, 0);
	ktap_result(ok, "sigchld_on_child_exit");
}

// ---- signals aimed at threads ----

static atomic_int handled_by;
static atomic_int threads_stop;

struct target {
	pthread_t thread;
	atomic_int tid;
	int unblock;
};

static void record_tid(int sig)
{
	(void)sig;
	atomic_store(&handled_by, my_tid());
}

static void *target_body(void *arg)
{
	struct target *t = arg;

	if (t->unblock)
		set_blocked(SIGUSR1, 0);
	atomic_store(&t->tid, my_tid());
	while (!atomic_load(&threads_stop))
		sleep_ms(1);
	return NULL;
}

static int wait_handled(void)
{
	for (int i = 0; i < 5000 && atomic_load(&handled_by) == 0; i++)
		sleep_ms(1);
	return atomic_exchange(&handled_by, 0);
}

static void test_thread_directed(void)
{
	struct target t[3] = { { .unblock = 0 }, { .unblock = 1 }, { .unblock = 1 } };
	int to_b, to_c, to_process;

	install(SIGUSR1, record_tid, 0);
	atomic_store(&handled_by, 0);
	atomic_store(&threads_stop, 0);
	// Threads inherit the blocked mask; t[1] and t[2] unblock it.
	set_blocked(SIGUSR1, 1);
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i].thread, NULL, target_body, &t[i]);
	for (int i = 0; i < 3; i++)
		while (atomic_load(&t[i].tid) == 0)
			sleep_ms(1);
	syscall(SYS_tgkill, getpid(), atomic_load(&t[1].tid), SIGUSR1);
	to_b = wait_handled();
	syscall(SYS_tkill, atomic_load(&t[2].tid), SIGUSR1);
	to_c = wait_handled();
	// A process-directed signal goes to a thread that does not block it.
	kill(getpid(), SIGUSR1);
	to_process = wait_handled();
	atomic_store(&threads_stop, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i].thread, NULL);
	set_blocked(SIGUSR1, 0);
	install(SIGUSR1, SIG_DFL, 0);
	ktap_result(to_b == t[1].tid, "tgkill_reaches_thread");
	ktap_result(to_c == t[2].tid, "tkill_reaches_thread");
	ktap_result(to_process == t[1].tid || to_process == t[2].tid, "kill_picks_unblocked_thread");
}

// ---- default actions ----

static void raise_sigterm(void)
{
	raise(SIGTERM);
}

static void kill_self(void)
{
	kill(getpid(), SIGKILL);
	sleep_ms(1000);
}

static void touch_null(void)
{
	*(volatile int *)0 = 1;
}

static void ignored_sigterm(void)
{
	install(SIGTERM, SIG_IGN, 0);
	raise(SIGTERM);
	// SIGCHLD's default action is to ignore it.
	raise(SIGCHLD);
	_exit(42);
}

static void blocked_then_exec_like_exit(void)
{
	// A blocked fatal signal stays pending and kills once unblocked.
	set_blocked(SIGUSR2, 1);
	raise(SIGUSR2);
	set_blocked(SIGUSR2, 0);
	_exit(43);
}

static void test_default_actions(void)
{
	int s_term = status_of_child(raise_sigterm);
	int s_kill = status_of_child(kill_self);
	int s_segv = status_of_child(touch_null);
	int s_ign = status_of_child(ignored_sigterm);
	int s_usr2 = status_of_child(blocked_then_exec_like_exit);

	ktap_result(WIFSIGNALED(s_term) && WTERMSIG(s_term) == SIGTERM, "default_sigterm_terminates");
	ktap_result(WIFSIGNALED(s_kill) && WTERMSIG(s_kill) == SIGKILL, "sigkill_terminates");
	ktap_result(WIFSIGNALED(s_segv) && WTERMSIG(s_segv) == SIGSEGV, "default_sigsegv_terminates");
	ktap_result(WIFEXITED(s_ign) && WEXITSTATUS(s_ign) == 42, "ignored_sigterm_and_sigchld");
	ktap_result(WIFSIGNALED(s_usr2) && WTERMSIG(s_usr2) == SIGUSR2, "pending_fatal_on_unblock");
}

// ---- SIGALRM from an interval timer ----

static void alarm_child(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 30000 } };

	install(SIGALRM, count_hit, 0);
	hits = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	if (pause() != -1 || errno != EINTR || hits != 1)
		_exit(1);
	// Now let the default action end us.
	install(SIGALRM, SIG_DFL, 0);
	setitimer(ITIMER_REAL, &it, NULL);
	for (;;)
		pause();
}

static void test_sigalrm(void)
{
	int status = status_of_child(alarm_child);

	ktap_result(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM, "sigalrm_handler_then_default");
}

// ---- faults: SIGSEGV, SIGFPE, SIGILL ----

static sigjmp_buf fault_jump;
static siginfo_t fault_info;

static void fault_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	fault_info = *si;
	siglongjmp(fault_jump, 1);
}

static int fault_read(volatile char *addr)
{
	memset(&fault_info, 0, sizeof(fault_info));
	if (sigsetjmp(fault_jump, 1) == 0) {
		(void)*addr;
		return 0;
	}
	return 1;
}

static void test_sigsegv_siginfo(void)
{
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int ok;

	install_info(SIGSEGV, fault_handler, 0);
	mprotect(page, 4096, PROT_NONE);
	munmap(page + 4096, 4096);
	// Twice each: siglongjmp must restore the mask so SIGSEGV works again.
	ok = fault_read(page + 123) && fault_info.si_signo == SIGSEGV &&
	     fault_info.si_addr == page + 123 && fault_info.si_code == SEGV_ACCERR;
	ok = ok && fault_read(page + 7) && fault_info.si_addr == page + 7;
	ok = ok && fault_read(page + 4096 + 64) && fault_info.si_addr == page + 4096 + 64 &&
	     fault_info.si_code == SEGV_MAPERR;
	ok = ok && !is_blocked(SIGSEGV);
	if (!ok)
		ktap_diag("si_addr %p (page %p) code %d", fault_info.si_addr, (void *)page, fault_info.si_code);
	munmap(page, 4096);
	install(SIGSEGV, SIG_DFL, 0);
	ktap_result(ok, "sigsegv_si_addr_siglongjmp");
}

static void test_sigfpe(void)
{
	volatile int num = 1, den = 0, result = 0;
	int caught;

#if !defined(__x86_64__)
	// Only x86 traps on an integer division by zero.
	ktap_skip("sigfpe_integer_divide", "integer division does not trap here");
	return;
#endif
	install_info(SIGFPE, fault_handler, 0);
	memset(&fault_info, 0, sizeof(fault_info));
	caught = 0;
	if (sigsetjmp(fault_jump, 1) == 0)
		result = num / den;
	else
		caught = 1;
	(void)result;
	install(SIGFPE, SIG_DFL, 0);
	ktap_result(caught && fault_info.si_signo == SIGFPE && fault_info.si_code == FPE_INTDIV,
		    "sigfpe_integer_divide");
}

// ---- SIGILL, and sigreturn restoring (and honouring edits to) registers ----

#if defined(__x86_64__)

enum { R_RAX, R_RBX, R_RCX, R_RDX, R_RSI, R_RDI, R_R8, R_R9, R_R10, R_R11, R_R12, R_R13,
       R_R14, R_R15, NR_SAVED };

__attribute__((used)) static uint64_t regs_in[NR_SAVED], regs_out[NR_SAVED];
__attribute__((used)) static uint64_t flags_out;
__attribute__((used)) static uintptr_t ud2_site;
static volatile int sigill_ok;

#define R12_FROM_HANDLER 0x1234567887654321ULL

static void sigill_handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	greg_t *g = uc->uc_mcontext.gregs;

	(void)sig;
	sigill_ok = si->si_signo == SIGILL && si->si_code == ILL_ILLOPN &&
		    (uintptr_t)si->si_addr == ud2_site && (uintptr_t)g[REG_RIP] == ud2_site &&
		    (uint64_t)g[REG_RBX] == regs_in[R_RBX] && (uint64_t)g[REG_R15] == regs_in[R_R15];
	// Clobber every general register the kernel must restore...
	__asm__ volatile("movq $-1, %%rax\n\tmovq $-1, %%rbx\n\tmovq $-1, %%rcx\n\t"
			 "movq $-1, %%rdx\n\tmovq $-1, %%rsi\n\tmovq $-1, %%rdi\n\t"
			 "movq $-1, %%r8\n\tmovq $-1, %%r9\n\tmovq $-1, %%r10\n\t"
			 "movq $-1, %%r11\n\tmovq $-1, %%r12\n\tmovq $-1, %%r13\n\t"
			 "movq $-1, %%r14\n\tmovq $-1, %%r15\n\tclc"
			 ::: "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
			 "r12", "r13", "r14", "r15", "cc", "memory");
	// ...and change two in the saved context: sigreturn must honour them.
	g[REG_R12] = (greg_t)R12_FROM_HANDLER;
	g[REG_RIP] += 2;	// skip the ud2
}

static void run_ud2_with_patterns(void)
{
	__asm__ volatile(
		"leaq 1f(%%rip), %%rax\n\t"
		"movq %%rax, ud2_site(%%rip)\n\t"
		"movq regs_in+0(%%rip), %%rax\n\t"
		"movq regs_in+8(%%rip), %%rbx\n\t"
		"movq regs_in+16(%%rip), %%rcx\n\t"
		"movq regs_in+24(%%rip), %%rdx\n\t"
		"movq regs_in+32(%%rip), %%rsi\n\t"
		"movq regs_in+40(%%rip), %%rdi\n\t"
		"movq regs_in+48(%%rip), %%r8\n\t"
		"movq regs_in+56(%%rip), %%r9\n\t"
		"movq regs_in+64(%%rip), %%r10\n\t"
		"movq regs_in+72(%%rip), %%r11\n\t"
		"movq regs_in+80(%%rip), %%r12\n\t"
		"movq regs_in+88(%%rip), %%r13\n\t"
		"movq regs_in+96(%%rip), %%r14\n\t"
		"movq regs_in+104(%%rip), %%r15\n\t"
		"stc\n\t"
		"1: ud2\n\t"
		"movq %%rax, regs_out+0(%%rip)\n\t"
		"movq %%rbx, regs_out+8(%%rip)\n\t"
		"movq %%rcx, regs_out+16(%%rip)\n\t"
		"movq %%rdx, regs_out+24(%%rip)\n\t"
		"movq %%rsi, regs_out+32(%%rip)\n\t"
		"movq %%rdi, regs_out+40(%%rip)\n\t"
		"movq %%r8, regs_out+48(%%rip)\n\t"
		"movq %%r9, regs_out+56(%%rip)\n\t"
		"movq %%r10, regs_out+64(%%rip)\n\t"
		"movq %%r11, regs_out+72(%%rip)\n\t"
		"movq %%r12, regs_out+80(%%rip)\n\t"
		"movq %%r13, regs_out+88(%%rip)\n\t"
		"movq %%r14, regs_out+96(%%rip)\n\t"
		"movq %%r15, regs_out+104(%%rip)\n\t"
		"pushfq\n\t"
		"popq %%rax\n\t"
		"movq %%rax, flags_out(%%rip)\n\t"
		::: "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12",
		"r13", "r14", "r15", "cc", "memory");
}

static void test_sigill_sigreturn(void)
{
	int regs_ok = 1;

	for (int i = 0; i < NR_SAVED; i++)
		regs_in[i] = 0x0101010101010101ULL * (uint64_t)(i + 1) ^ 0x8000000000000000ULL;
	install_info(SIGILL, sigill_handler, 0);
	sigill_ok = 0;
	run_ud2_with_patterns();
	install(SIGILL, SIG_DFL, 0);
	for (int i = 0; i < NR_SAVED; i++) {
		uint64_t want = i == R_R12 ? R12_FROM_HANDLER : regs_in[i];

		if (regs_out[i] != want) {
			ktap_diag("register %d: got %#llx want %#llx", i, (unsigned long long)regs_out[i],
				  (unsigned long long)want);
			regs_ok = 0;
		}
	}
	ktap_result(sigill_ok, "sigill_siginfo_and_context");
	ktap_result(regs_ok && (flags_out & 1), "sigreturn_restores_registers");
}
#else
// The registers, the ud2 and the saved context are x86-64's.
static void test_sigill_sigreturn(void)
{
	ktap_skip("sigill_siginfo_and_context", "x86-64 only");
	ktap_skip("sigreturn_restores_registers", "x86-64 only");
}
#endif

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	start_watchdog("signals", WATCHDOG_SECONDS);
	ktap_plan(NR_CASES);

	test_sigaction_query();
	test_siginfo_kill();
	test_siginfo_tkill_and_queue();
	test_sa_restart();
	test_sa_nodefer();
	test_sa_resethand();
	test_sa_onstack();
	test_mask_pending();
	test_rt_queued();
	test_sigsuspend();
	test_ppoll_mask();
	test_nested_handlers();
	test_sigchld();
	test_thread_directed();
	test_default_actions();
	test_sigalrm();
	test_sigsegv_siginfo();
	test_sigfpe();
	test_sigill_sigreturn();
	finish_watchdog();
	return ktap_finish();
}
