// leaks: fixed-size results a system call copies to user space carry no
// stale kernel bytes: PR_GET_NAME pads the name with zeros after a long
// name was replaced by a short one and after exec, uname's fields are
// zero-padded, sysinfo's padding is zero, and sigaltstack reports its
// stack_t with zero padding whatever the caller's had.  Result buffers
// are filled with 0xff first so that an untouched byte shows.  Linux is
// the reference: every case passes there.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "testcase.h"

static const char *self_path;

// ---- results with names and padding ------------------------------------------------

// Bytes after the first NUL of a 16-byte name are 0.
static int name_tail_clean(const unsigned char *name)
{
	size_t len = strnlen((const char *)name, 16);

	if (len >= 16)
		return 0;
	for (size_t i = len; i < 16; i++)
		if (name[i])
			return 0;
	return 1;
}

static void t_pr_get_name_no_stale_bytes(void)
{
	unsigned char name[16];

	check_ok(prctl(PR_SET_NAME, "abcdefghijklmno"), "PR_SET_NAME of 15 characters");
	check_ok(prctl(PR_SET_NAME, "ab"), "PR_SET_NAME ab");
	memset(name, 0xff, sizeof(name));
	check_ok(prctl(PR_GET_NAME, name), "PR_GET_NAME");
	if (strcmp((char *)name, "ab"))
		fail("PR_GET_NAME gave '%.16s'", name);
	else if (!name_tail_clean(name))
		fail("bytes after the NUL: %02x %02x %02x %02x ...", name[3], name[4], name[5], name[6]);
	prctl(PR_SET_NAME, "leaks");
}

static int exec_child_name(void)
{
	unsigned char name[16];

	memset(name, 0xff, sizeof(name));
	if (prctl(PR_GET_NAME, name) < 0)
		return 2;
	return name_tail_clean(name) ? 0 : 3;
}

static void t_pr_get_name_after_exec(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		prctl(PR_SET_NAME, "abcdefghijklmno");
		execl(self_path, "leaks", "--exec-child", (char *)NULL);
		_exit(100 + errno);
	}
	check_child_ok(pid, "PR_GET_NAME after exec (3: stale bytes after the NUL)");
}

static void t_uname_zero_padded(void)
{
	struct utsname u;
	const char *fields[] = { u.sysname, u.nodename, u.release, u.version, u.machine,
				 u.domainname };

	memset(&u, 0xff, sizeof(u));
	if (!check_ok(uname(&u), "uname"))
		return;
	for (unsigned i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		size_t len = strnlen(fields[i], sizeof(u.sysname));
		for (size_t j = len; j < sizeof(u.sysname); j++)
			if (fields[i][j]) {
				fail("uname field %u: byte %zu after its NUL is %#x", i, j,
				     (unsigned char)fields[i][j]);
				return;
			}
	}
}

static void t_sysinfo_padding_zero(void)
{
	// struct sysinfo on x86-64: procs (u16) at 80, pad (u16) at 82, 4
	// bytes of alignment, totalhigh, freehigh, mem_unit at 104, then 4
	// bytes to the end (112).
	unsigned char raw[112];

	memset(raw, 0xff, sizeof(raw));
	if (!check_ok(syscall(SYS_sysinfo, raw), "sysinfo"))
		return;
	for (int i = 82; i < 88; i++)
		if (raw[i])
			fail("sysinfo byte %d (padding) is %#x", i, raw[i]);
	for (int i = 108; i < 112; i++)
		if (raw[i])
			fail("sysinfo byte %d (padding) is %#x", i, raw[i]);
}

static void t_sigaltstack_old_clean(void)
{
	static char stack[16384];
	stack_t ss, old;

	memset(&ss, 0xff, sizeof(ss));
	ss.ss_sp = stack;
	ss.ss_size = sizeof(stack);
	ss.ss_flags = 0;
	if (!check_ok(sigaltstack(&ss, NULL), "sigaltstack"))
		return;
	memset(&old, 0xff, sizeof(old));
	check_ok(sigaltstack(NULL, &old), "sigaltstack read back");
	unsigned char *raw = (unsigned char *)&old;
	for (size_t i = offsetof(stack_t, ss_flags) + sizeof(int); i < offsetof(stack_t, ss_size); i++)
		if (raw[i])
			fail("stack_t padding byte %zu is %#x", i, raw[i]);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
}

static const struct test_case cases[] = {
	{ "pr_get_name_no_stale_bytes", t_pr_get_name_no_stale_bytes },
	{ "pr_get_name_after_exec", t_pr_get_name_after_exec },
	{ "uname_zero_padded", t_uname_zero_padded },
	{ "sysinfo_padding_zero", t_sysinfo_padding_zero },
	{ "sigaltstack_old_padding_zero", t_sigaltstack_old_clean },
};

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--exec-child"))
		return exec_child_name();
	(void)argv;
	self_path = "/proc/self/exe";
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
