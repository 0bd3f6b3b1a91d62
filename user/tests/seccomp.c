// seccomp: strict mode (read, write and exit only; anything else ends the
// thread with SIGKILL), filters (classic BPF over struct seccomp_data:
// the call's number, its ABI, its arguments), every action (ERRNO with
// its value clamped at 4095, TRAP's SIGSYS and its siginfo, KILL_THREAD
// and KILL_PROCESS, LOG and ALLOW, TRACE and USER_NOTIF failing with
// ENOSYS without a tracer or listener), the most restrictive of several
// filters winning, inheritance by fork and threads, TSYNC, what
// /proc/self/status and PR_GET_SECCOMP show, and the checks of a program
// and of the call (EINVAL, EFAULT, EACCES without no_new_privs or
// CAP_SYS_ADMIN).  Every case runs in a child: a filter never goes away.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch.h"
#include "testcase.h"
#include "privdrop.h"
#include "sysutil.h"

#define SECCOMP_SET_MODE_STRICT		0
#define SECCOMP_SET_MODE_FILTER		1
#define SECCOMP_GET_ACTION_AVAIL	2
#define SECCOMP_GET_NOTIF_SIZES		3
#define FLAG_TSYNC			1
#define FLAG_NEW_LISTENER		8
#define RET_KILL_PROCESS	0x80000000U
#define RET_KILL_THREAD		0x00000000U
#define RET_TRAP		0x00030000U
#define RET_ERRNO		0x00050000U
#define RET_USER_NOTIF		0x7fc00000U
#define RET_TRACE		0x7ff00000U
#define RET_LOG			0x7ffc0000U
#define RET_ALLOW		0x7fff0000U
#define SYS_SECCOMP_CODE	1

struct insn { uint16_t code; uint8_t jt, jf; uint32_t k; };
struct fprog { unsigned short len; struct insn *filter; };

#define LD_ABS(k)	((struct insn){ 0x20, 0, 0, (k) })	// A = data[k]
#define JEQ(k, t, f)	((struct insn){ 0x15, (t), (f), (k) })
#define RET(k)		((struct insn){ 0x06, 0, 0, (k) })
#define OFF_NR		0
#define OFF_ARCH	4
#define OFF_ARG0	16

static int on_switchyard;

static long sc(unsigned op, unsigned flags, void *args)
{
	return syscall(SYS_seccomp, op, flags, args);
}

static long install(struct insn *p, unsigned short n, unsigned flags)
{
	struct fprog fp = { n, p };

	return sc(SECCOMP_SET_MODE_FILTER, flags, &fp);
}

// One call answered by 'action'; the rest allowed.
static long only(long nr, uint32_t action)
{
	struct insn p[] = { LD_ABS(OFF_NR), JEQ((uint32_t)nr, 0, 1), RET(action), RET(RET_ALLOW) };

	return install(p, 4, 0);
}

static int nnp(void)
{
	return c_ok(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS");
}

// Runs fn in a child; it must exit 0, or die of 'sig' when sig != 0.
static void child_case(int (*fn)(void), int sig, const char *what)
{
	if (child_why)
		child_why[0] = 0;
	pid_t pid = fork_child();
	if (pid == 0)
		_exit(fn() ? 1 : 0);
	int status = reap_child(pid);
	if (status < 0)
		return;
	if (sig ? WIFSIGNALED(status) && WTERMSIG(status) == sig :
		  WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	if (child_why && child_why[0])
		fail("%s", child_why);
	else
		fail_status(what, status);
}

static int c_strict_write_ok(void)
{
	if (prctl(PR_SET_SECCOMP, 1, 0, 0, 0) != 0)
		return cfail("PR_SET_SECCOMP strict");
	if (write(1, "", 0) != 0)
		syscall(SYS_exit, 2);
	syscall(SYS_exit, 0);	// exit, not exit_group: allowed
	return 1;
}

static int c_strict_getpid_kills(void)
{
	if (prctl(PR_SET_SECCOMP, 1, 0, 0, 0) != 0)
		return cfail("PR_SET_SECCOMP strict");
	syscall(SYS_getpid);
	syscall(SYS_exit, 0);
	return 1;
}

static void t_strict(void)
{
	child_case(c_strict_write_ok, 0, "write and exit allowed");
	child_case(c_strict_getpid_kills, SIGKILL, "getpid kills");
}

static int c_errno(void)
{
	int bad = nnp();

	bad |= c_ok(only(SYS_getppid, RET_ERRNO | 1234), "install");
	bad |= c_err(syscall(SYS_getppid), 1234, "getppid gets errno 1234");
	bad |= c_ok(only(SYS_getppid, RET_ERRNO | 5000), "a second filter");
	bad |= c_err(syscall(SYS_getppid), 4095, "the lower value wins; clamped at 4095");
	bad |= c_ok(syscall(SYS_getpid), "other calls go through");
	bad |= c_eq(prctl(PR_GET_SECCOMP, 0, 0, 0, 0), 2, "PR_GET_SECCOMP");
	char status[4096];
	if (read_file("/proc/self/status", status, sizeof(status)) > 0) {
		bad |= strstr(status, "NoNewPrivs:\t1\n") ? 0 : cfail("status NoNewPrivs");
		bad |= strstr(status, "Seccomp:\t2\n") ? 0 : cfail("status Seccomp");
		bad |= strstr(status, "Seccomp_filters:\t2\n") ? 0 : cfail("status Seccomp_filters");
	}
	pid_t pid = fork();
	if (pid == 0)
		_exit(syscall(SYS_getppid) == -1 && errno == 4095 ? 0 : 1);
	int st;
	waitpid(pid, &st, 0);
	bad |= WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : cfail("a forked child has the filters");
	return bad;
}

static void t_errno(void) { child_case(c_errno, 0, "errno"); }

// The data a filter sees: the ABI and the arguments.
static int c_data(void)
{
	struct insn p[] = {
		LD_ABS(OFF_ARCH), JEQ(AUDIT_ARCH_SELF, 1, 0), RET(RET_KILL_PROCESS),
		LD_ABS(OFF_NR), JEQ(SYS_close, 0, 3),
		LD_ABS(OFF_ARG0), JEQ(9999, 0, 1), RET(RET_ERRNO | 77),
		RET(RET_ALLOW),
	};
	int bad = nnp();

	bad |= c_ok(install(p, sizeof(p) / sizeof(p[0]), 0), "install");
	bad |= c_err(close(9999), 77, "close(9999) matched on its argument");
	bad |= c_err(close(9998), EBADF, "close(9998) went through");
	return bad;
}

static void t_data(void) { child_case(c_data, 0, "data"); }

static volatile int sys_code, sys_nr, sys_errno;
static volatile unsigned sys_arch;
static volatile uintptr_t sys_addr;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)uc;
	sys_code = si->si_code;
	sys_nr = si->si_syscall;
	sys_arch = si->si_arch;
	sys_errno = si->si_errno;
	sys_addr = (uintptr_t)si->si_call_addr;
}

static int c_trap(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };
	int bad = nnp();

	sigaction(SIGSYS, &sa, 0);
	bad |= c_ok(only(SYS_getppid, RET_TRAP | 42), "install");
	syscall(SYS_getppid);
	bad |= c_eq(sys_code, SYS_SECCOMP_CODE, "si_code SYS_SECCOMP");
	bad |= c_eq(sys_nr, SYS_getppid, "si_syscall");
	bad |= c_eq(sys_arch, AUDIT_ARCH_SELF, "si_arch");
	bad |= c_eq(sys_errno, 42, "si_errno is the data");
	bad |= sys_addr ? 0 : cfail("si_call_addr");
	return bad;
}

static void t_trap(void) { child_case(c_trap, 0, "trap"); }

static int c_kill_process(void)
{
	if (nnp() || only(SYS_getppid, RET_KILL_PROCESS) < 0)
		return cfail("install");
	syscall(SYS_getppid);
	return cfail("still alive");
}

static int c_kill_thread_alone(void)
{
	if (nnp() || only(SYS_getppid, RET_KILL_THREAD) < 0)
		return cfail("install");
	syscall(SYS_getppid);
	return cfail("still alive");
}

static void *thread_dies(void *arg)
{
	(void)arg;
	syscall(SYS_getppid);
	*(volatile int *)arg = 1;	// never reached
	return 0;
}

static int c_kill_thread(void)
{
	static volatile int reached;
	pthread_t th;

	if (nnp() || only(SYS_getppid, RET_KILL_THREAD) < 0)
		return cfail("install");
	if (pthread_create(&th, 0, thread_dies, (void *)&reached) != 0)
		return cfail("pthread_create");
	sleep_ms(300);
	return reached ? cfail("the thread went on") : 0;
}

static void t_kill(void)
{
	child_case(c_kill_process, SIGSYS, "KILL_PROCESS");
	child_case(c_kill_thread_alone, SIGSYS, "KILL_THREAD of the only thread");
	child_case(c_kill_thread, 0, "KILL_THREAD of one thread of two");
}

static int c_other_actions(void)
{
	int bad = nnp();

	bad |= c_ok(only(SYS_getppid, RET_LOG), "LOG");
	bad |= c_ok(syscall(SYS_getppid), "LOG lets it through");
	bad |= c_ok(only(SYS_getpgrp, RET_TRACE), "TRACE");
	bad |= c_err(syscall(SYS_getpgrp), ENOSYS, "TRACE without a tracer");
	bad |= c_ok(only(SYS_getsid, RET_USER_NOTIF), "USER_NOTIF");
	bad |= c_err(syscall(SYS_getsid, 0), ENOSYS, "USER_NOTIF without a listener");
	bad |= c_ok(only(SYS_getppid, RET_ERRNO | 3), "ERRNO after LOG");
	bad |= c_err(syscall(SYS_getppid), 3, "ERRNO wins over LOG");
	return bad;
}

static void t_other_actions(void) { child_case(c_other_actions, 0, "actions"); }

static volatile long thread_result, thread_errno;

static void *thread_calls(void *arg)
{
	(void)arg;
	sleep_ms(200);
	thread_result = syscall(SYS_getppid);
	thread_errno = errno;
	return 0;
}

static void *thread_own_filter(void *arg)
{
	(void)arg;
	only(SYS_getpgrp, RET_ERRNO | 9);
	sleep_ms(500);
	return 0;
}

static int c_tsync(void)
{
	pthread_t th;
	int bad = nnp();

	if (pthread_create(&th, 0, thread_calls, 0) != 0)
		return cfail("pthread_create");
	struct insn p[] = { LD_ABS(OFF_NR), JEQ(SYS_getppid, 0, 1), RET(RET_ERRNO | 11),
			    RET(RET_ALLOW) };
	bad |= c_eq(install(p, 4, FLAG_TSYNC), 0, "TSYNC");
	pthread_join(th, 0);
	bad |= c_eq(thread_result, -1, "the other thread got the filter");
	bad |= c_eq(thread_errno, 11, "with its errno");
	// A thread with a filter of its own cannot be synchronized: its ID.
	if (pthread_create(&th, 0, thread_own_filter, 0) != 0)
		return cfail("pthread_create");
	sleep_ms(200);
	long r = install(p, 4, FLAG_TSYNC);
	bad |= r > 0 ? 0 : cfail("TSYNC with a diverged thread: %ld, want its ID", r);
	pthread_join(th, 0);
	return bad;
}

static void t_tsync(void) { child_case(c_tsync, 0, "tsync"); }

static int c_program_checks(void)
{
	struct insn ok[] = { RET(RET_ALLOW) };
	struct insn mod[] = { { 0x94, 0, 0, 3 }, RET(RET_ALLOW) };		// A %= 3
	struct insn far[] = { JEQ(0, 5, 0), RET(RET_ALLOW) };
	struct insn off65[] = { LD_ABS(65), RET(RET_ALLOW) };
	struct insn off2[] = { LD_ABS(2), RET(RET_ALLOW) };
	struct insn noret[] = { LD_ABS(0), LD_ABS(0) };
	struct insn unset[] = { { 0x60, 0, 0, 0 }, RET(RET_ALLOW) };	// A = M[0]
	struct insn div0[] = { { 0x34, 0, 0, 0 }, RET(RET_ALLOW) };	// A /= 0
	struct insn shl32[] = { { 0x64, 0, 0, 32 }, RET(RET_ALLOW) };	// A <<= 32
	// A = ALLOW; M[3] = A; A = 0; A = M[3]; return A.
	struct insn st_ld[] = { { 0x00, 0, 0, RET_ALLOW }, { 0x02, 0, 0, 3 }, { 0x00, 0, 0, 0 },
				{ 0x60, 0, 0, 3 }, { 0x16, 0, 0, 0 } };
	struct fprog bad_ptr = { 1, (struct insn *)8 }, null_ptr = { 1, 0 };
	int bad = nnp();

	bad |= c_err(install(ok, 0, 0), EINVAL, "length 0");
	bad |= c_err(install(ok, 4097, 0), EINVAL, "4097 instructions");
	bad |= c_err(install(mod, 2, 0), EINVAL, "BPF_MOD is not seccomp's");
	bad |= c_err(install(far, 2, 0), EINVAL, "a jump past the end");
	bad |= c_err(install(off65, 2, 0), EINVAL, "a load past seccomp_data");
	bad |= c_err(install(off2, 2, 0), EINVAL, "an unaligned load");
	bad |= c_err(install(noret, 2, 0), EINVAL, "no return at the end");
	bad |= c_err(install(unset, 2, 0), EINVAL, "a scratch word read before written");
	bad |= c_err(install(div0, 2, 0), EINVAL, "division by a constant 0");
	bad |= c_err(install(shl32, 2, 0), EINVAL, "a shift by 32");
	bad |= c_err(sc(SECCOMP_SET_MODE_FILTER, 0, &bad_ptr), EFAULT, "unreadable program");
	bad |= c_err(sc(SECCOMP_SET_MODE_FILTER, 0, &null_ptr), EINVAL, "a NULL program");
	bad |= c_err(sc(SECCOMP_SET_MODE_FILTER, 0, (void *)8), EFAULT, "unreadable sock_fprog");
	bad |= c_err(install(ok, 1, 0x40), EINVAL, "unknown flag");
	bad |= c_err(sc(SECCOMP_SET_MODE_STRICT, 1, 0), EINVAL, "strict with flags");
	bad |= c_err(sc(SECCOMP_SET_MODE_STRICT, 0, ok), EINVAL, "strict with arguments");
	bad |= c_err(sc(4, 0, 0), EINVAL, "operation 4");
	bad |= c_err(prctl(PR_SET_SECCOMP, 3, 0, 0, 0), EINVAL, "PR_SET_SECCOMP mode 3");
	bad |= c_ok(install(st_ld, 5, 0), "a scratch word written, then read");
	bad |= c_err(sc(SECCOMP_SET_MODE_STRICT, 0, 0), EINVAL, "strict once filtering");
	return bad;
}

static void t_program_checks(void) { child_case(c_program_checks, 0, "checks"); }

static int c_needs_nnp(void)
{
	struct insn ok[] = { RET(RET_ALLOW) };

	if (drop_to(U1, G1, 0, 0))
		return 1;
	return c_err(install(ok, 1, 0), EACCES, "without no_new_privs or CAP_SYS_ADMIN") |
	       nnp() | c_ok(install(ok, 1, 0), "with no_new_privs");
}

static void t_needs_nnp(void)
{
	if (geteuid() != 0) {
		skip("needs root");
		return;
	}
	in_child(c_needs_nnp, "unprivileged");
}

static void t_queries(void)
{
	uint32_t a = RET_ALLOW, unknown = 0x12340000, notif = RET_USER_NOTIF;
	uint16_t sizes[3] = { 0 };

	check_ok(sc(SECCOMP_GET_ACTION_AVAIL, 0, &a), "ALLOW available");
	a = RET_KILL_PROCESS;
	check_ok(sc(SECCOMP_GET_ACTION_AVAIL, 0, &a), "KILL_PROCESS available");
	check_errno(sc(SECCOMP_GET_ACTION_AVAIL, 0, &unknown), EOPNOTSUPP, "an unknown action");
	long r = sc(SECCOMP_GET_ACTION_AVAIL, 0, &notif);
	if (on_switchyard)
		check_errno(r, EOPNOTSUPP, "USER_NOTIF: no listeners on Switchyard");
	check_errno(sc(SECCOMP_GET_ACTION_AVAIL, 1, &a), EINVAL, "flags");
	check_errno(sc(SECCOMP_GET_ACTION_AVAIL, 0, (void *)8), EFAULT, "bad pointer");
	check_ok(sc(SECCOMP_GET_NOTIF_SIZES, 0, sizes), "GET_NOTIF_SIZES");
	check(sizes[0] == 80 && sizes[1] == 24 && sizes[2] == 64, "80, 24, 64");
	check(prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0, "PR_GET_SECCOMP: none");
}

static const struct test_case cases[] = {
	{ "strict_mode", t_strict },
	{ "filter_errno_fork_status", t_errno },
	{ "filter_sees_arch_and_args", t_data },
	{ "trap_sigsys_siginfo", t_trap },
	{ "kill_process_and_thread", t_kill },
	{ "log_trace_user_notif", t_other_actions },
	{ "tsync", t_tsync },
	{ "program_and_call_checks", t_program_checks },
	{ "eacces_without_no_new_privs", t_needs_nnp },
	{ "action_avail_and_notif_sizes", t_queries },
};

int main(void)
{
	struct utsname u;

	on_switchyard = uname(&u) == 0 && strstr(u.version, "Switchyard");
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
