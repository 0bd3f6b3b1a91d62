// syslog(2) (klogctl): the kernel log's size, lines in syslog's form
// ("<level>[seconds.micros] text"), a user fault's message appearing in
// it, READ_CLEAR and CLEAR starting the next READ_ALL after it, the
// destructive READ taking part of a line and counting down SIZE_UNREAD,
// the console switches, Linux's errnos (EINVAL, EFAULT) and, for an
// unprivileged caller, EPERM for everything but READ_ALL and SIZE_BUFFER
// (those too when /proc/sys/kernel/dmesg_restrict is 1).
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"
#include "sysutil.h"

#define READ		2
#define READ_ALL	3
#define READ_CLEAR	4
#define CLEAR		5
#define CONSOLE_OFF	6
#define CONSOLE_ON	7
#define CONSOLE_LEVEL	8
#define SIZE_UNREAD	9
#define SIZE_BUFFER	10

static char logbuf[1 << 20];
static volatile uintptr_t bad_address = 8;	// unmapped; volatile keeps the compiler out

static long sys_log(int type, void *buf, long len)
{
	return syscall(SYS_syslog, type, buf, len);
}

// The whole log as READ_ALL gives it, NUL-terminated; its length or -1.
static long read_all(void)
{
	long n = sys_log(READ_ALL, logbuf, sizeof(logbuf) - 1);

	if (n >= 0)
		logbuf[n] = 0;
	return n;
}

static void t_sizes(void)
{
	check(sys_log(SIZE_BUFFER, 0, 0) >= 4096, "SIZE_BUFFER is a buffer's size");
	check_ok(sys_log(SIZE_UNREAD, 0, 0), "SIZE_UNREAD");
}

// Every line: "<" digits ">" then "[" seconds "." micros "] ".
static int line_ok(const char *l)
{
	const char *p = l;

	if (*p++ != '<' || *p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p++ != '>' || *p++ != '[')
		return 0;
	while (*p == ' ')
		p++;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p++ != '.')
		return 0;
	for (int i = 0; i < 6; i++)
		if (*p < '0' || *p++ > '9')
			return 0;
	return *p == ']';
}

static void t_read_all_format(void)
{
	long n = read_all();
	int lines = 0;

	if (!check_ok(n, "READ_ALL"))
		return;
	for (char *l = logbuf; *l; lines++) {
		char *nl = strchr(l, '\n');
		if (!nl) {
			fail("the last line has no newline");
			return;
		}
		*nl = 0;
		if (!line_ok(l)) {
			fail("line %d not in syslog form: %.60s", lines, l);
			return;
		}
		l = nl + 1;
	}
	check(n == 0 || lines > 0, "whole lines");
}

// A child dies of SIGSEGV; the kernel logs "NAME[PID]: segfault at".
static pid_t logged_fault(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		volatile int *bad = (volatile int *)(uintptr_t)bad_address;
		*bad = 1;
		_exit(0);
	}
	if (pid > 0 && !check_killed_by(pid, SIGSEGV, "child"))
		return -1;
	return pid;
}

static int log_has_fault_of(pid_t pid)
{
	char want[32];

	snprintf(want, sizeof(want), "[%d]: segfault at", (int)pid);
	return read_all() >= 0 && strstr(logbuf, want) != NULL;
}

static void t_fault_logged(void)
{
	pid_t pid = logged_fault();

	if (pid > 0)
		check(log_has_fault_of(pid), "the segfault line is in the log");
}

static void t_clear(void)
{
	pid_t pid = logged_fault();

	if (pid <= 0)
		return;
	check(sys_log(READ_CLEAR, logbuf, sizeof(logbuf)) > 0, "READ_CLEAR gives the log");
	check(!log_has_fault_of(pid), "READ_ALL starts after it");
	pid = logged_fault();
	if (pid <= 0)
		return;
	check(log_has_fault_of(pid), "a new line is there");
	check_ok(sys_log(CLEAR, 0, 0), "CLEAR");
	check(!log_has_fault_of(pid), "gone after CLEAR");
	check(sys_log(SIZE_BUFFER, 0, 0) > 0, "the buffer stays");
}

static void t_destructive_read(void)
{
	char small[10];

	if (logged_fault() <= 0)
		return;
	long unread = sys_log(SIZE_UNREAD, 0, 0);
	if (unread < 20) {
		skip("nothing unread (another reader takes the log)");
		return;
	}
	check(sys_log(READ, small, sizeof(small)) == sizeof(small), "READ gives part of a line");
	long now = sys_log(SIZE_UNREAD, 0, 0);
	check(now < unread, "SIZE_UNREAD counts down");
}

static void t_errors(void)
{
	check_errno(sys_log(READ_ALL, 0, 100), EINVAL, "READ_ALL to NULL");
	check_errno(sys_log(READ_ALL, logbuf, -1), EINVAL, "negative length");
	check(sys_log(READ_ALL, logbuf, 0) == 0, "length 0");
	check_errno(sys_log(READ_ALL, (void *)-4096L, 100), EFAULT, "kernel address");
	check_errno(sys_log(READ, 0, 10), EINVAL, "READ to NULL");
	check(sys_log(READ, logbuf, 0) == 0, "READ of 0 bytes");
	check_errno(sys_log(11, 0, 0), EINVAL, "action 11");
	check_errno(sys_log(-1, 0, 0), EINVAL, "action -1");
	check_errno(sys_log(CONSOLE_LEVEL, 0, 0), EINVAL, "console level 0");
	check_errno(sys_log(CONSOLE_LEVEL, 0, 9), EINVAL, "console level 9");
	check_ok(sys_log(0, 0, 0), "CLOSE");
	check_ok(sys_log(1, 0, 0), "OPEN");
	check_ok(sys_log(CONSOLE_OFF, 0, 0), "CONSOLE_OFF");
	check_ok(sys_log(CONSOLE_ON, 0, 0), "CONSOLE_ON restores the level");
}

static int restrict_on;

static int c_unprivileged(void)
{
	int bad = 0;

	if (drop_to(U1, G1, 0, 0))
		return 1;
	if (restrict_on) {
		bad |= c_err(sys_log(READ_ALL, logbuf, 100), EPERM, "READ_ALL restricted");
		bad |= c_err(sys_log(SIZE_BUFFER, 0, 0), EPERM, "SIZE_BUFFER restricted");
	} else {
		bad |= c_ok(sys_log(READ_ALL, logbuf, 100), "READ_ALL is anyone's");
		bad |= c_ok(sys_log(SIZE_BUFFER, 0, 0), "SIZE_BUFFER is anyone's");
	}
	bad |= c_err(sys_log(READ, logbuf, 100), EPERM, "READ");
	bad |= c_err(sys_log(CLEAR, 0, 0), EPERM, "CLEAR");
	bad |= c_err(sys_log(SIZE_UNREAD, 0, 0), EPERM, "SIZE_UNREAD");
	bad |= c_err(sys_log(CONSOLE_OFF, 0, 0), EPERM, "CONSOLE_OFF");
	bad |= c_err(sys_log(11, 0, 0), EPERM, "an unknown action: the permission first");
	return bad;
}

static void t_unprivileged(void)
{
	char text[16];

	if (read_file("/proc/sys/kernel/dmesg_restrict", text, sizeof(text)) <= 0) {
		fail("no /proc/sys/kernel/dmesg_restrict");
		return;
	}
	restrict_on = atoi(text);
	in_child(c_unprivileged, "unprivileged");
}

static const struct test_case cases[] = {
	{ "sizes", t_sizes },
	{ "read_all_lines_in_syslog_form", t_read_all_format },
	{ "user_fault_is_logged", t_fault_logged },
	{ "read_clear_and_clear", t_clear },
	{ "destructive_read", t_destructive_read },
	{ "errors", t_errors },
	{ "unprivileged_and_dmesg_restrict", t_unprivileged },
};

int main(void)
{
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root\n");
		return 0;
	}
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
