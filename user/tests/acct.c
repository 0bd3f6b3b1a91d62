// acct(2), BSD process accounting (as root): while on, each process that
// ends appends a 64-byte struct acct_v3 to the file (version 3, its
// pid and parent, uid, command name, exit status, AFORK for a child that
// did not exec, AXSIG for one killed by a signal); acct(NULL) stops it;
// Linux's errnos (EPERM without CAP_SYS_PACCT, EACCES for a file that is
// not regular, EISDIR, ENOENT, EFAULT).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"

#define AFORK	0x01
#define AXSIG	0x10

struct acct_v3 {
	char ac_flag, ac_version;
	uint16_t ac_tty;
	uint32_t ac_exitcode, ac_uid, ac_gid, ac_pid, ac_ppid, ac_btime, ac_etime;
	uint16_t ac_utime, ac_stime, ac_mem, ac_io, ac_rw, ac_minflt, ac_majflt, ac_swaps;
	char ac_comm[16];
};

static long acct_on(const char *path)
{
	return syscall(SYS_acct, path);
}

static const struct acct_v3 *find(const struct acct_v3 *r, long n, pid_t pid)
{
	for (long i = 0; i < n; i++)
		if (r[i].ac_pid == (uint32_t)pid)
			return &r[i];
	return NULL;
}

static void t_records(void)
{
	const char *path = scratch("pacct");
	static struct acct_v3 recs[256];
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);

	if (!check_ok(fd, "create the file"))
		return;
	close(fd);
	prctl(PR_SET_NAME, "acct-parent");
	if (acct_on(path) < 0) {
		if (errno == ENOSYS)
			skip("no BSD process accounting in this kernel");
		else
			fail("acct: errno=%d", errno);
		return;
	}
	pid_t a = fork_child();
	if (a == 0)
		_exit(3);
	pid_t b = fork_child();
	if (b == 0) {
		pause();
		_exit(0);
	}
	check_exit_code(a, 3, "first child");
	kill(b, SIGTERM);
	check_killed_by(b, SIGTERM, "second child");
	check_ok(acct_on(NULL), "acct(NULL)");
	pid_t c = fork_child();
	if (c == 0)
		_exit(0);
	check_child_ok(c, "third child");
	fd = open(path, O_RDONLY);
	long n = fd < 0 ? -1 : read(fd, recs, sizeof(recs));
	close(fd);
	if (!check(n > 0 && n % 64 == 0, "whole 64-byte records"))
		return;
	n /= 64;
	const struct acct_v3 *ra = find(recs, n, a), *rb = find(recs, n, b);
	if (!check(ra && rb, "a record for each child while on"))
		return;
	check(!find(recs, n, c), "none after acct(NULL)");
	check(ra->ac_version == 3, "version 3");
	check(ra->ac_ppid == (uint32_t)getpid(), "the parent's pid");
	check(ra->ac_uid == 0 && ra->ac_gid == 0, "root's IDs");
	check(ra->ac_exitcode == 3 << 8, "exit status 3");
	check(ra->ac_flag & AFORK, "AFORK: no exec");
	check(!(ra->ac_flag & AXSIG), "not killed");
	check(!strcmp(ra->ac_comm, "acct-parent"), "the command name");
	check(rb->ac_exitcode == SIGTERM, "killed by SIGTERM");
	check(rb->ac_flag & AXSIG, "AXSIG");
	unlink(path);
}

static int c_unprivileged(void)
{
	if (drop_to(U1, G1, 0, 0))
		return 1;
	return c_err(acct_on(NULL), EPERM, "acct(NULL) without CAP_SYS_PACCT") |
	       c_err(acct_on("/tmp"), EPERM, "before the path is looked at");
}

static void t_errors(void)
{
	if (syscall(SYS_acct, NULL) < 0 && errno == ENOSYS) {
		skip("no BSD process accounting in this kernel");
		return;
	}
	const char *missing = scratch("missing");

	check_ok(acct_on(NULL), "off when off");
	check_errno(acct_on("/dev/null"), EACCES, "not a regular file");
	check_errno(acct_on(missing), ENOENT, "no such file");
	check_errno(acct_on(scratch_dir), EISDIR, "a directory");
	check_errno(acct_on((const char *)8), EFAULT, "bad pointer");
	in_child(c_unprivileged, "unprivileged");
}

static const struct test_case cases[] = {
	{ "records_of_ended_processes", t_records },
	{ "errors", t_errors },
};

int main(void)
{
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root\n");
		return 0;
	}
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/acct-%d", (int)getpid());
	if (mkdir(scratch_dir, 0755) < 0)
		ktap_diag("cannot create %s: errno %d", scratch_dir, errno);
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	syscall(SYS_acct, NULL);	// never left on
	rmdir(scratch_dir);
	return ktap_finish();
}
