// Helpers of the credential and permission tests (creds.c, perms.c):
// a case runs its checks in a forked child that drops privileges, and the
// child's first failed check reaches the parent's KTAP line through a
// shared page.
#ifndef USER_PRIVDROP_H
#define USER_PRIVDROP_H

#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testcase.h"

// The unprivileged users and groups the tests become.
#define U1 1000
#define U2 2000
#define G1 1000
#define G2 2000
#define GX 500		// a supplementary group

static char *child_why;		// shared with the children (MAP_SHARED)

static inline void privdrop_init(void)
{
	child_why = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (child_why == MAP_FAILED)
		child_why = NULL;
}

// In a child: records the first failure; returns 1 so that a check
// reads 'if (cfail(...)) return 1' or 'bad |= cfail(...)'.
static inline int cfail(const char *fmt, ...)
{
	va_list ap;

	if (child_why && !child_why[0]) {
		va_start(ap, fmt);
		vsnprintf(child_why, 256, fmt, ap);
		va_end(ap);
	}
	return 1;
}

// 0 if the call succeeded, else 1 with the reason recorded.
static inline int c_ok(long rc, const char *what)
{
	if (rc >= 0)
		return 0;
	return cfail("%s: rc=%ld errno=%d (%s)", what, rc, errno, strerror(errno));
}

// 0 if the call failed with 'want', else 1 with the reason recorded.
static inline int c_err(long rc, int want, const char *what)
{
	if (rc == -1 && errno == want)
		return 0;
	return cfail("%s: rc=%ld errno=%d, want errno=%d", what, rc, rc == -1 ? errno : 0, want);
}

static inline int c_eq(long got, long want, const char *what)
{
	if (got == want)
		return 0;
	return cfail("%s: got %ld (%#lx), want %ld (%#lx)", what, got, got, want, want);
}

// Becomes uid/gid with the given supplementary groups (real, effective
// and saved IDs alike): 0 or 1 with the reason recorded.
static inline int drop_to(uid_t uid, gid_t gid, int ngroups, const gid_t *groups)
{
	if (c_ok(setgroups(ngroups, groups), "setgroups"))
		return 1;
	if (c_ok(setresgid(gid, gid, gid), "setresgid"))
		return 1;
	return c_ok(setresuid(uid, uid, uid), "setresuid");
}

// Runs fn in a forked child and judges its exit status; the child's
// reason (if any) becomes the case's.
static inline void in_child(int (*fn)(void), const char *what)
{
	pid_t pid;
	int status;

	if (child_why)
		child_why[0] = 0;
	pid = fork_child();
	if (pid == 0)
		_exit(fn() ? 1 : 0);
	status = reap_child(pid);
	if (status < 0)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	if (child_why && child_why[0])
		fail("%s", child_why);
	else
		fail_status(what, status);
}

#endif
