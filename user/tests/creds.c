// creds: user and group IDs, supplementary groups and capabilities.
//
// The set*id rule table (who may become whom, with Linux's errnos),
// setfsuid/setfsgid, setgroups/getgroups, capget/capset and how
// capabilities follow uid 0, inheritance by fork and exec, setuid and
// setgid programs, and kill() between users.  Every case changes IDs in
// a forked child, so the program must start as root (it does under init
// and on the Linux host, where it is run as root).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"

#define CAP_V1 0x19980330
#define CAP_V3 0x20080522
#define CAP_CHOWN 0
#define CAP_DAC_OVERRIDE 1
#define CAP_KILL 5
#define CAP_SETGID 6
#define CAP_SETUID 7
#define CAP_SETPCAP 8

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_IS_SET 1
#define PR_CAP_AMBIENT_RAISE 2
#define PR_CAP_AMBIENT_LOWER 3
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#define SECBIT_KEEP_CAPS 0x10
#define SECBIT_KEEP_CAPS_LOCKED 0x20

struct cap_header {
	uint32_t version;
	int pid;
};

struct cap_data {
	uint32_t effective, permitted, inheritable;
};

static char self_path[PATH_MAX];

static long capget_raw(struct cap_header *h, struct cap_data *d)
{
	return syscall(SYS_capget, h, d);
}

// The caller's effective and permitted sets (64 bits each), or -1.
static int caps_now(uint64_t *eff, uint64_t *perm)
{
	struct cap_header h = { CAP_V3, 0 };
	struct cap_data d[2];

	if (capget_raw(&h, d) < 0)
		return -1;
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*perm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	return 0;
}

static int has_cap(int cap)
{
	uint64_t eff = 0, perm = 0;

	return caps_now(&eff, &perm) == 0 && ((eff >> cap) & 1);
}

// 0 if getresuid (user) or getresgid gives r/e/s, and setfs*id(-1) fs.
static int ids_are(int user, unsigned r, unsigned e, unsigned s, unsigned fs)
{
	unsigned gr, ge, gs;
	long gfs;

	if (user ? getresuid(&gr, &ge, &gs) : getresgid(&gr, &ge, &gs))
		return cfail("getres%sid failed: errno=%d", user ? "u" : "g", errno);
	gfs = user ? setfsuid(-1) : setfsgid(-1);
	if (gr != r || ge != e || gs != s || gfs != (long)fs)
		return cfail("%s IDs %u/%u/%u fs %ld, want %u/%u/%u fs %u", user ? "user" : "group",
			     gr, ge, gs, gfs, r, e, s, fs);
	return 0;
}

// ---- IDs at the start ----

static int c_root_start(void)
{
	if (getuid() != 0 || geteuid() != 0 || getgid() != 0 || getegid() != 0)
		return cfail("not root: %d %d %d %d", getuid(), geteuid(), getgid(), getegid());
	return ids_are(1, 0, 0, 0, 0) || ids_are(0, 0, 0, 0, 0) ||
	       c_eq(has_cap(CAP_SETUID), 1, "CAP_SETUID") || c_eq(has_cap(CAP_CHOWN), 1, "CAP_CHOWN");
}
static void t_root_start(void) { in_child(c_root_start, "root"); }

// ---- setuid ----

static int c_setuid_root(void)
{
	uint64_t eff = 0, perm = 0;

	if (c_ok(setuid(U1), "setuid(U1)") || ids_are(1, U1, U1, U1, U1))
		return 1;
	if (caps_now(&eff, &perm) || eff || perm)
		return cfail("caps after leaving root: eff %#llx perm %#llx",
			     (unsigned long long)eff, (unsigned long long)perm);
	return c_err(setuid(0), EPERM, "setuid(0) back");
}
static void t_setuid_root(void) { in_child(c_setuid_root, "setuid"); }

static int c_setuid_minus1(void)
{
	return c_err(syscall(SYS_setuid, -1), EINVAL, "setuid(-1)") ||
	       c_err(syscall(SYS_setgid, -1), EINVAL, "setgid(-1)");
}
static void t_setuid_minus1(void) { in_child(c_setuid_minus1, "setuid(-1)"); }

// Unprivileged setuid: only to the real or saved uid, and it changes the
// effective uid alone.
static int c_setuid_unpriv(void)
{
	if (c_ok(setresuid(U1, U2, 3000), "setresuid"))
		return 1;
	if (c_err(setuid(U2), EPERM, "setuid(euid) neither real nor saved"))
		return 1;
	if (c_ok(setuid(3000), "setuid(saved)") || ids_are(1, U1, 3000, 3000, 3000))
		return 1;
	if (c_ok(setuid(U1), "setuid(real)") || ids_are(1, U1, U1, 3000, U1))
		return 1;
	return c_err(setuid(4000), EPERM, "setuid(other)");
}
static void t_setuid_unpriv(void) { in_child(c_setuid_unpriv, "setuid unprivileged"); }

// seteuid away from 0 keeps the permitted set; back to 0 restores it.
static int c_seteuid_temporary(void)
{
	uint64_t eff = 0, perm = 0;

	if (c_ok(seteuid(U1), "seteuid(U1)") || ids_are(1, 0, U1, 0, U1))
		return 1;
	if (caps_now(&eff, &perm) || eff || !((perm >> CAP_SETUID) & 1))
		return cfail("caps with euid U1: eff %#llx perm %#llx", (unsigned long long)eff,
			     (unsigned long long)perm);
	if (c_ok(seteuid(0), "seteuid(0)") || ids_are(1, 0, 0, 0, 0))
		return 1;
	if (caps_now(&eff, &perm) || eff != perm)
		return cfail("caps back at euid 0: eff %#llx perm %#llx", (unsigned long long)eff,
			     (unsigned long long)perm);
	return 0;
}
static void t_seteuid_temporary(void) { in_child(c_seteuid_temporary, "seteuid"); }

// ---- setreuid ----

static int c_setreuid(void)
{
	// Root: any pair; the saved uid follows the new effective one.
	if (c_ok(setreuid(U1, U2), "setreuid(U1,U2)") || ids_are(1, U1, U2, U2, U2))
		return 1;
	// Unprivileged: real from real or effective, effective from any.
	if (c_ok(setreuid(U2, -1), "setreuid(euid,-1)") || ids_are(1, U2, U2, U2, U2))
		return 1;
	if (c_err(setreuid(-1, 3000), EPERM, "setreuid(-1,other)"))
		return 1;
	return c_err(setreuid(3000, -1), EPERM, "setreuid(other,-1)");
}
static void t_setreuid(void) { in_child(c_setreuid, "setreuid"); }

// Setting only the effective uid to the real one leaves the saved uid.
static int c_setreuid_saved(void)
{
	if (c_ok(setresuid(U1, U2, 3000), "setresuid"))
		return 1;
	if (c_ok(setreuid(-1, U1), "setreuid(-1,ruid)") || ids_are(1, U1, U1, 3000, U1))
		return 1;
	if (c_ok(setreuid(-1, 3000), "setreuid(-1,suid)") || ids_are(1, U1, 3000, 3000, 3000))
		return 1;
	return 0;
}
static void t_setreuid_saved(void) { in_child(c_setreuid_saved, "setreuid saved"); }

// ---- setresuid ----

static int c_setresuid(void)
{
	if (c_ok(setresuid(U1, U2, 3000), "setresuid root") || ids_are(1, U1, U2, 3000, U2))
		return 1;
	// Unprivileged: any permutation of the three, -1 keeps one.
	if (c_ok(setresuid(3000, U1, U2), "permutation") || ids_are(1, 3000, U1, U2, U1))
		return 1;
	if (c_ok(setresuid(-1, -1, 3000), "keep two") || ids_are(1, 3000, U1, 3000, U1))
		return 1;
	if (c_err(setresuid(4000, -1, -1), EPERM, "new real"))
		return 1;
	if (c_err(setresuid(-1, -1, 4000), EPERM, "new saved"))
		return 1;
	return c_ok(setresuid(-1, -1, -1), "all -1");
}
static void t_setresuid(void) { in_child(c_setresuid, "setresuid"); }

// ---- group IDs: same rules with CAP_SETGID ----

static int c_setgid_family(void)
{
	if (c_ok(setresgid(G1, G2, 3000), "setresgid root") || ids_are(0, G1, G2, 3000, G2))
		return 1;
	if (c_ok(setregid(G2, -1), "setregid(egid,-1)") || ids_are(0, G2, G2, G2, G2))
		return 1;
	if (c_ok(setgid(G1), "setgid as root") || ids_are(0, G1, G1, G1, G1))
		return 1;
	if (c_ok(setresuid(U1, U1, U1), "setresuid"))
		return 1;
	if (c_err(setgid(G2), EPERM, "setgid(other) unprivileged"))
		return 1;
	if (c_err(setregid(G2, -1), EPERM, "setregid(other)"))
		return 1;
	if (c_err(setresgid(-1, G2, -1), EPERM, "setresgid(other)"))
		return 1;
	return c_ok(setresgid(G1, G1, G1), "setresgid(own)");
}
static void t_setgid_family(void) { in_child(c_setgid_family, "setgid"); }

// ---- setfsuid / setfsgid ----

static int c_setfsuid(void)
{
	if (c_eq(setfsuid(1234), 0, "setfsuid(1234) returns the old fsuid") ||
	    c_eq(setfsuid(-1), 1234, "fsuid now"))
		return 1;
	// Leaving fsuid 0 drops the file capabilities from the effective set
	// and keeps the others.
	if (c_eq(has_cap(CAP_DAC_OVERRIDE), 0, "CAP_DAC_OVERRIDE at fsuid 1234") ||
	    c_eq(has_cap(CAP_CHOWN), 0, "CAP_CHOWN at fsuid 1234") ||
	    c_eq(has_cap(CAP_SETUID), 1, "CAP_SETUID at fsuid 1234"))
		return 1;
	if (c_eq(setfsuid(0), 1234, "setfsuid(0)") || c_eq(has_cap(CAP_DAC_OVERRIDE), 1, "back"))
		return 1;
	if (c_ok(setresuid(U1, U1, U1), "setresuid"))
		return 1;
	// Unprivileged: only its own IDs; the call still returns the old one.
	if (c_eq(setfsuid(U2), U1, "setfsuid(other)") || c_eq(setfsuid(-1), U1, "unchanged"))
		return 1;
	if (c_eq(setfsgid(G2), 0, "setfsgid(other) unprivileged") ||
	    c_eq(setfsgid(-1), 0, "fsgid unchanged"))
		return 1;
	return 0;
}
static void t_setfsuid(void) { in_child(c_setfsuid, "setfsuid"); }

// ---- supplementary groups ----

// glibc declares the buffer sizes of these calls (attribute access), and
// the bad sizes and pointers passed on purpose would fail the build.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
static int c_groups(void)
{
	gid_t set[3] = { 30, 10, 20 }, got[8];
	int n;

	if (c_ok(setgroups(3, set), "setgroups"))
		return 1;
	n = getgroups(0, NULL);
	if (c_eq(n, 3, "getgroups(0)"))
		return 1;
	if (c_eq(getgroups(8, got), 3, "getgroups(8)"))
		return 1;
	if (got[0] != 10 || got[1] != 20 || got[2] != 30)
		return cfail("groups %u %u %u, want sorted 10 20 30", got[0], got[1], got[2]);
	if (c_err(getgroups(2, got), EINVAL, "getgroups(too small)"))
		return 1;
	if (c_err(getgroups(-1, got), EINVAL, "getgroups(-1)"))
		return 1;
	if (c_err(syscall(SYS_setgroups, 65537L, set), EINVAL, "setgroups(65537)"))
		return 1;
	if (c_err(syscall(SYS_setgroups, 2L, (void *)8), EFAULT, "setgroups(bad pointer)"))
		return 1;
	if (c_ok(setgroups(0, NULL), "setgroups(0)") || c_eq(getgroups(0, NULL), 0, "empty"))
		return 1;
	if (c_ok(setresuid(U1, U1, U1), "setresuid"))
		return 1;
	return c_err(setgroups(1, set), EPERM, "setgroups unprivileged") ||
	       c_err(syscall(SYS_setgroups, 65537L, set), EPERM, "EPERM before EINVAL");
}
#pragma GCC diagnostic pop
static void t_groups(void) { in_child(c_groups, "groups"); }

// ---- capget / capset ----

static int c_capget(void)
{
	struct cap_header h = { CAP_V3, 0 };
	struct cap_data d[2];

	if (c_ok(capget_raw(&h, NULL), "version query"))
		return 1;
	h.version = 0x12345678;
	if (c_err(capget_raw(&h, d), EINVAL, "bad version") || c_eq(h.version, CAP_V3, "written back"))
		return 1;
	h.version = 0x12345678;
	if (c_ok(capget_raw(&h, NULL), "bad version, no data") ||
	    c_eq(h.version, CAP_V3, "written back too"))
		return 1;
	h = (struct cap_header){ CAP_V3, -1 };
	if (c_err(capget_raw(&h, d), EINVAL, "pid -1"))
		return 1;
	h = (struct cap_header){ CAP_V3, 999999 };
	if (c_err(capget_raw(&h, d), ESRCH, "no such pid"))
		return 1;
	h = (struct cap_header){ CAP_V1, getppid() };
	if (c_ok(capget_raw(&h, d), "v1 of the parent") || c_eq((d[0].effective >> CAP_SETUID) & 1, 1, "parent's CAP_SETUID"))
		return 1;
	return c_err(syscall(SYS_capget, (void *)8, d), EFAULT, "bad header");
}
static void t_capget(void) { in_child(c_capget, "capget"); }

static int c_capset(void)
{
	struct cap_header h = { CAP_V3, 0 };
	struct cap_data d[2];
	int fd;

	if (c_ok(capget_raw(&h, d), "capget"))
		return 1;
	// Dropping CAP_CHOWN from the effective set: root cannot give a file
	// away any more.
	d[0].effective &= ~(1u << CAP_CHOWN);
	if (c_ok(syscall(SYS_capset, &h, d), "capset drop CAP_CHOWN"))
		return 1;
	fd = open(scratch("capset"), O_CREAT | O_WRONLY, 0600);
	if (c_ok(fd, "create"))
		return 1;
	close(fd);
	if (c_err(chown(scratch("capset"), U1, -1), EPERM, "chown without CAP_CHOWN"))
		return 1;
	unlink(scratch("capset"));
	// Effective beyond permitted, or permitted growing: EPERM.
	d[0].permitted &= ~(1u << CAP_KILL);
	d[0].effective |= 1u << CAP_KILL;
	if (c_err(syscall(SYS_capset, &h, d), EPERM, "effective not in permitted"))
		return 1;
	d[0].effective &= ~(1u << CAP_KILL);
	if (c_ok(syscall(SYS_capset, &h, d), "drop CAP_KILL from permitted"))
		return 1;
	d[0].permitted |= 1u << CAP_KILL;
	if (c_err(syscall(SYS_capset, &h, d), EPERM, "permitted grows"))
		return 1;
	h.pid = getppid();
	if (c_err(syscall(SYS_capset, &h, d), EPERM, "another process"))
		return 1;
	h = (struct cap_header){ 1, 0 };
	return c_err(syscall(SYS_capset, &h, d), EINVAL, "bad version") ||
	       c_eq(h.version, CAP_V3, "version written back");
}
static void t_capset(void) { in_child(c_capset, "capset"); }

// ---- inheritance ----

static int c_fork_inherits(void)
{
	gid_t g = GX;
	pid_t pid;
	int status;

	if (drop_to(U1, G1, 1, &g))
		return 1;
	pid = fork();
	if (pid == 0) {
		gid_t got[2];

		_exit(getuid() == U1 && geteuid() == U1 && getgid() == G1 &&
		      getgroups(2, got) == 1 && got[0] == GX ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid || status != 0)
		return cfail("the grandchild did not see the IDs (status %#x)", status);
	return 0;
}
static void t_fork_inherits(void) { in_child(c_fork_inherits, "fork"); }

// The program itself, run again with "ids R E S G E S SECURE": exits 0
// when its IDs and AT_SECURE are those.
static int check_ids_mode(char **argv)
{
	unsigned want[7], r, e, s, gr, ge, gs;

	for (int i = 0; i < 7; i++)
		want[i] = (unsigned)strtoul(argv[2 + i], NULL, 10);
	getresuid(&r, &e, &s);
	getresgid(&gr, &ge, &gs);
	if (r != want[0] || e != want[1] || s != want[2] || gr != want[3] || ge != want[4] ||
	    gs != want[5] || getauxval(AT_SECURE) != want[6]) {
		printf("# ids %u %u %u / %u %u %u secure %lu\n", r, e, s, gr, ge, gs,
		       getauxval(AT_SECURE));
		return 1;
	}
	return 0;
}

static int run_self(const char *path, const char *const want[7])
{
	char *argv[10] = { (char *)path, "ids" };
	pid_t pid;
	int status;

	for (int i = 0; i < 7; i++)
		argv[2 + i] = (char *)want[i];
	pid = fork();
	if (pid == 0) {
		execv(path, argv);
		_exit(99);
	}
	if (waitpid(pid, &status, 0) != pid)
		return cfail("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return cfail("exec of %s: status %#x", path, status);
	return 0;
}

static int c_exec_keeps(void)
{
	const char *want[7] = { "1000", "1000", "1000", "1000", "1000", "1000", "0" };

	if (drop_to(U1, G1, 0, NULL))
		return 1;
	return run_self(scratch("plain"), want);
}
static void t_exec_keeps(void) { in_child(c_exec_keeps, "exec"); }

// Exec sets the saved IDs to the effective ones.
static int c_exec_saved(void)
{
	const char *want[7] = { "1000", "2000", "2000", "0", "0", "0", "1" };

	if (c_ok(setresuid(U1, U2, 3000), "setresuid"))
		return 1;
	return run_self(scratch("plain"), want);
}
static void t_exec_saved(void) { in_child(c_exec_saved, "exec saved"); }

// A copy of this program, owned by uid:gid with mode bits 'mode' (the
// children exec copies: the original's directory may not be searchable
// for other users).
static int make_copy(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
	char buf[65536];
	int in = open(self_path, O_RDONLY), out;
	ssize_t n;

	if (c_ok(in, "open self"))
		return 1;
	out = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0700);
	if (c_ok(out, "create copy"))
		return 1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			return cfail("write copy");
	close(in);
	close(out);
	return c_ok(chown(path, uid, gid), "chown copy") || c_ok(chmod(path, mode), "chmod copy");
}

static int c_exec_setuid(void)
{
	const char *suid[7] = { "1000", "2000", "2000", "1000", "1000", "1000", "1" };
	const char *sgid[7] = { "1000", "1000", "1000", "1000", "2000", "2000", "1" };
	const char *sgid_nox[7] = { "1000", "1000", "1000", "1000", "1000", "1000", "0" };
	int bad;

	if (make_copy(scratch("suid"), 04755, U2, G2) || make_copy(scratch("sgid"), 02755, U2, G2) ||
	    make_copy(scratch("sgidnox"), 02705, U2, G2))
		return 1;
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	bad = run_self(scratch("suid"), suid) || run_self(scratch("sgid"), sgid) ||
	      run_self(scratch("sgidnox"), sgid_nox);
	return bad;
}
static void t_exec_setuid(void)
{
	in_child(c_exec_setuid, "setuid exec");
	unlink(scratch("suid"));
	unlink(scratch("sgid"));
	unlink(scratch("sgidnox"));
}

// With PR_SET_NO_NEW_PRIVS the set-id bits give nothing: the program
// runs with its caller's IDs and without AT_SECURE.
static int c_exec_setuid_nnp(void)
{
	const char *same[7] = { "1000", "1000", "1000", "1000", "1000", "1000", "0" };

	if (make_copy(scratch("suidnnp"), 04755, U2, G2))
		return 1;
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	if (c_ok(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS"))
		return 1;
	return run_self(scratch("suidnnp"), same);
}
static void t_exec_setuid_nnp(void)
{
	in_child(c_exec_setuid_nnp, "setuid exec with no_new_privs");
	unlink(scratch("suidnnp"));
}

// PR_SET_KEEPCAPS: leaving uid 0 keeps the permitted set (not the
// effective one); without it both go.
static int c_keepcaps(void)
{
	uint64_t eff = 1, perm = 0;

	if (prctl(PR_SET_KEEPCAPS, 2, 0, 0, 0) != -1 || errno != EINVAL)
		return cfail("PR_SET_KEEPCAPS 2: want EINVAL");
	if (c_eq(prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0), 0, "keepcaps at start") ||
	    c_ok(prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0), "PR_SET_KEEPCAPS 1") ||
	    c_eq(prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0), 1, "keepcaps after set"))
		return 1;
	if (c_ok(syscall(SYS_setresuid, (long)U1, (long)U1, (long)U1), "setresuid(U1)"))
		return 1;
	if (caps_now(&eff, &perm))
		return 1;
	if (eff != 0 || perm == 0)
		return cfail("with keepcaps: eff %#llx (want 0), perm %#llx (want kept)",
			     (unsigned long long)eff, (unsigned long long)perm);
	return 0;
}
static void t_keepcaps(void) { in_child(c_keepcaps, "keepcaps"); }

// Root's exec of a program keeps uid 0 with every capability; a
// non-root exec has none, even with a permitted set before.
static int c_exec_caps(void)
{
	uint64_t eff = 0, perm = 0;
	pid_t pid;
	int status;

	if (c_ok(setresuid(U1, U1, 0), "setresuid(U1,U1,0)"))
		return 1;
	if (caps_now(&eff, &perm) || !perm)
		return cfail("saved uid 0 keeps the permitted set: perm %#llx", (unsigned long long)perm);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "creds", "caps", NULL };

		execv(scratch("plain"), argv);
		_exit(99);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return cfail("after exec the caps were not empty (status %#x)", status);
	return 0;
}
static void t_exec_caps(void) { in_child(c_exec_caps, "exec caps"); }

// ---- the bounding and ambient sets, securebits ----

// The caller's inheritable set becomes inh (effective and permitted kept).
static int set_inheritable(uint64_t inh)
{
	struct cap_header h = { CAP_V3, 0 };
	struct cap_data d[2];

	if (capget_raw(&h, d) < 0)
		return -1;
	d[0].inheritable = (uint32_t)inh;
	d[1].inheritable = (uint32_t)(inh >> 32);
	return (int)syscall(SYS_capset, &h, d);
}

// Runs the copy of this program with 'mode' and gives its exit status.
static int run_mode(const char *mode)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		char *argv[] = { "creds", (char *)mode, NULL };

		execv(scratch("plain"), argv);
		_exit(99);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int c_bounding(void)
{
	if (c_eq(prctl(PR_CAPBSET_READ, CAP_KILL, 0, 0, 0), 1, "CAP_KILL in the bounding set") ||
	    c_err(prctl(PR_CAPBSET_READ, 99, 0, 0, 0), EINVAL, "read capability 99") ||
	    c_err(prctl(PR_CAPBSET_DROP, 99, 0, 0, 0), EINVAL, "drop capability 99") ||
	    c_ok(prctl(PR_CAPBSET_DROP, CAP_KILL, 0, 0, 0), "drop CAP_KILL") ||
	    c_eq(prctl(PR_CAPBSET_READ, CAP_KILL, 0, 0, 0), 0, "CAP_KILL dropped"))
		return 1;
	// A capability outside the bounding set cannot become inheritable
	// (LTP capset02), though the caller still has it.
	if (c_err(set_inheritable(1ULL << CAP_KILL), EPERM, "inheritable CAP_KILL") ||
	    c_eq(has_cap(CAP_KILL), 1, "CAP_KILL still effective"))
		return 1;
	// An exec by root no longer gets it.
	if (c_eq(run_mode("nokill"), 0, "exec after the drop has no CAP_KILL"))
		return 1;
	// Without CAP_SETPCAP: EPERM before the number is looked at.
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	return c_err(prctl(PR_CAPBSET_DROP, 99, 0, 0, 0), EPERM, "drop as uid 1000") ||
	       c_eq(prctl(PR_CAPBSET_READ, CAP_CHOWN, 0, 0, 0), 1, "read as uid 1000");
}
static void t_bounding(void) { in_child(c_bounding, "bounding set"); }

static long ambient(int op, long cap)
{
	return prctl(PR_CAP_AMBIENT, op, cap, 0, 0);
}

static int c_ambient(void)
{
	if (c_eq(ambient(PR_CAP_AMBIENT_IS_SET, CAP_CHOWN), 0, "none at start") ||
	    c_err(ambient(PR_CAP_AMBIENT_RAISE, CAP_CHOWN), EPERM, "raise without inheritable") ||
	    c_err(ambient(PR_CAP_AMBIENT_IS_SET, 99), EINVAL, "capability 99") ||
	    c_err(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 1, 0, 0), EINVAL,
		  "CLEAR_ALL with an argument") ||
	    c_err(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 1, 0), EINVAL,
		  "IS_SET with a fourth argument") ||
	    c_err(ambient(9, CAP_CHOWN), EINVAL, "operation 9"))
		return 1;
	if (c_ok(set_inheritable(1ULL << CAP_CHOWN), "inheritable CAP_CHOWN") ||
	    c_ok(ambient(PR_CAP_AMBIENT_RAISE, CAP_CHOWN), "raise CAP_CHOWN") ||
	    c_eq(ambient(PR_CAP_AMBIENT_IS_SET, CAP_CHOWN), 1, "raised") ||
	    c_ok(ambient(PR_CAP_AMBIENT_LOWER, CAP_CHOWN), "lower") ||
	    c_eq(ambient(PR_CAP_AMBIENT_IS_SET, CAP_CHOWN), 0, "lowered") ||
	    c_ok(ambient(PR_CAP_AMBIENT_RAISE, CAP_CHOWN), "raise again") ||
	    c_ok(set_inheritable(0), "inheritable emptied") ||
	    c_eq(ambient(PR_CAP_AMBIENT_IS_SET, CAP_CHOWN), 0, "gone with the inheritable bit") ||
	    c_ok(set_inheritable(1ULL << CAP_CHOWN), "inheritable CAP_CHOWN again") ||
	    c_ok(ambient(PR_CAP_AMBIENT_RAISE, CAP_CHOWN), "raise a third time") ||
	    c_ok(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear all") ||
	    c_eq(ambient(PR_CAP_AMBIENT_IS_SET, CAP_CHOWN), 0, "cleared"))
		return 1;
	// What ambient capabilities are for: a non-root program keeps them
	// across exec.  Leaving uid 0 clears the set (even with keepcaps), so
	// it is raised again as uid 1000.
	if (c_ok(ambient(PR_CAP_AMBIENT_RAISE, CAP_CHOWN), "raise before setresuid") ||
	    c_ok(prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0), "keepcaps") ||
	    c_ok(setresuid(U1, U1, U1), "setresuid(U1)") ||
	    c_eq(ambient(PR_CAP_AMBIENT_IS_SET, CAP_CHOWN), 0, "setresuid clears the set") ||
	    c_ok(ambient(PR_CAP_AMBIENT_RAISE, CAP_CHOWN), "raise as uid 1000"))
		return 1;
	return c_eq(run_mode("chown-only"), 0, "exec as uid 1000 keeps CAP_CHOWN only");
}
static void t_ambient(void) { in_child(c_ambient, "ambient"); }

static int c_securebits(void)
{
	if (c_eq(prctl(PR_GET_SECUREBITS, 0, 0, 0, 0), 0, "none at start") ||
	    c_ok(prctl(PR_SET_SECUREBITS, SECBIT_KEEP_CAPS, 0, 0, 0), "set KEEP_CAPS") ||
	    c_eq(prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0), 1, "PR_GET_KEEPCAPS sees it") ||
	    c_ok(prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0), "PR_SET_KEEPCAPS 0") ||
	    c_eq(prctl(PR_GET_SECUREBITS, 0, 0, 0, 0), 0, "and securebits sees that") ||
	    c_err(prctl(PR_SET_SECUREBITS, 0x10000, 0, 0, 0), EPERM, "an unknown bit") ||
	    c_ok(prctl(PR_SET_SECUREBITS, SECBIT_KEEP_CAPS | SECBIT_KEEP_CAPS_LOCKED, 0, 0, 0),
		 "lock KEEP_CAPS on") ||
	    c_err(prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0), EPERM, "PR_SET_KEEPCAPS when locked") ||
	    c_err(prctl(PR_SET_SECUREBITS, SECBIT_KEEP_CAPS_LOCKED, 0, 0, 0), EPERM,
		  "a locked bit changed") ||
	    c_err(prctl(PR_SET_SECUREBITS, SECBIT_KEEP_CAPS, 0, 0, 0), EPERM, "a lock released"))
		return 1;
	// Exec clears KEEP_CAPS (its lock stays); unprivileged callers: EPERM.
	if (c_eq(run_mode("securebits"), 0, "after exec only the lock is left") ||
	    drop_to(U1, G1, 0, NULL))
		return 1;
	return c_err(prctl(PR_SET_SECUREBITS, SECBIT_KEEP_CAPS | SECBIT_KEEP_CAPS_LOCKED, 0, 0, 0),
		     EPERM, "set as uid 1000");
}
static void t_securebits(void) { in_child(c_securebits, "securebits"); }

// Without CAP_SYS_RESOURCE a hard limit can only come down, and another
// user's limits are out of reach (prlimit: EPERM); one's own are not.
static int c_rlimits(void)
{
	struct rlimit rl = { 64, 128 }, got;
	pid_t parent = getppid();

	if (c_ok(setrlimit(RLIMIT_NOFILE, &rl), "lower RLIMIT_NOFILE as root") ||
	    drop_to(U1, G1, 0, NULL))
		return 1;
	rl.rlim_max = 256;
	if (c_err(setrlimit(RLIMIT_NOFILE, &rl), EPERM, "raise the hard limit as uid 1000"))
		return 1;
	rl.rlim_max = 100;
	if (c_ok(setrlimit(RLIMIT_NOFILE, &rl), "lower it as uid 1000") ||
	    c_ok(getrlimit(RLIMIT_NOFILE, &got), "getrlimit") || c_eq((long)got.rlim_max, 100, "max"))
		return 1;
	if (c_err(prlimit(parent, RLIMIT_NOFILE, NULL, &got), EPERM, "read root's limits") ||
	    c_ok(prlimit(getpid(), RLIMIT_NOFILE, NULL, &got), "read its own by pid"))
		return 1;
	return 0;
}
static void t_rlimits(void) { in_child(c_rlimits, "rlimits"); }

// The exec'd copy's checks (main: "creds MODE").
static int exec_mode(const char *mode)
{
	uint64_t eff = 0, perm = 0;

	if (caps_now(&eff, &perm))
		return 2;
	if (!strcmp(mode, "caps"))
		return eff == 0 && perm == 0 ? 0 : 1;
	if (!strcmp(mode, "nokill"))
		return !((perm >> CAP_KILL) & 1) && ((perm >> CAP_CHOWN) & 1) ? 0 : 1;
	if (!strcmp(mode, "chown-only"))
		return eff == 1ULL << CAP_CHOWN && perm == 1ULL << CAP_CHOWN &&
			       prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 0, 0) == 1 ? 0 : 1;
	if (!strcmp(mode, "securebits"))
		return prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) == SECBIT_KEEP_CAPS_LOCKED ? 0 : 1;
	return 3;
}

// ---- credentials belong to threads ----

static void *raw_setresuid_thread(void *arg)
{
	(void)arg;
	if (syscall(SYS_setresuid, (long)U1, (long)U1, (long)U1) != 0)
		return (void *)1;
	return syscall(SYS_getuid) == U1 ? NULL : (void *)2;
}

// The raw system call changes only the calling thread (libc's setuid
// would change them all).
static int c_per_thread(void)
{
	pthread_t t;
	void *r;

	if (pthread_create(&t, NULL, raw_setresuid_thread, NULL) != 0)
		return cfail("pthread_create");
	pthread_join(t, &r);
	if (r)
		return cfail("the thread's raw setresuid: %ld", (long)r);
	return c_eq(syscall(SYS_getuid), 0, "the main thread's uid") ||
	       c_eq(syscall(SYS_geteuid), 0, "the main thread's euid");
}
static void t_per_thread(void) { in_child(c_per_thread, "per thread"); }

// ---- kill between users ----

static int c_kill_users(void)
{
	pid_t victim;
	int bad = 0, ready[2];
	char c;

	if (c_ok(pipe(ready), "pipe"))
		return 1;
	victim = fork();
	if (victim == 0) {
		if (setresuid(U1, U1, U1) < 0)
			_exit(2);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		pause();
		_exit(0);
	}
	if (c_ok(victim, "fork") || c_eq(read(ready[0], &c, 1), 1, "victim ready"))
		return 1;
	pid_t killer = fork();
	if (killer == 0) {
		// U2 may not signal U1's process, not even with signal 0;
		// SIGCONT within the session is allowed.  (The saved uid U1
		// does not count.)
		if (setresuid(U2, U2, U1) < 0)
			_exit(2);
		if (kill(victim, 0) != -1 || errno != EPERM)
			_exit(3);
		if (kill(victim, SIGTERM) != -1 || errno != EPERM)
			_exit(4);
		if (kill(victim, SIGCONT) != 0)
			_exit(5);
		if (kill(999999, 0) != -1 || errno != ESRCH)
			_exit(6);
		// A user whose real uid matches may.
		if (setresuid(U1, -1, -1) < 0 || kill(victim, 0) != 0)
			_exit(7);
		_exit(0);
	}
	int status;
	if (waitpid(killer, &status, 0) != killer || status != 0)
		bad = cfail("killer: status %#x", status);
	kill(victim, SIGKILL);
	waitpid(victim, &status, 0);
	return bad;
}
static void t_kill_users(void) { in_child(c_kill_users, "kill"); }

// kill() of a process group where nobody may be signalled: EPERM.
static int c_kill_group_eperm(void)
{
	pid_t victim;
	int status, bad = 0;

	victim = fork();
	if (victim == 0) {
		setpgid(0, 0);
		pause();
		_exit(0);
	}
	if (c_ok(victim, "fork"))
		return 1;
	setpgid(victim, victim);
	pid_t killer = fork();
	if (killer == 0) {
		if (setresuid(U2, U2, U2) < 0)
			_exit(2);
		if (kill(-victim, SIGTERM) != -1 || errno != EPERM)
			_exit(3);
		_exit(0);
	}
	if (waitpid(killer, &status, 0) != killer || status != 0)
		bad = cfail("killer: status %#x", status);
	kill(victim, SIGKILL);
	waitpid(victim, &status, 0);
	return bad;
}
static void t_kill_group_eperm(void) { in_child(c_kill_group_eperm, "kill group"); }

static const struct test_case cases[] = {
	{ "starts_as_root_with_capabilities", t_root_start },
	{ "setuid_from_root_sets_all_and_drops_caps", t_setuid_root },
	{ "setuid_setgid_minus_one_EINVAL", t_setuid_minus1 },
	{ "setuid_unprivileged_rules_EPERM", t_setuid_unpriv },
	{ "seteuid_keeps_permitted_caps", t_seteuid_temporary },
	{ "setreuid_rules_EPERM", t_setreuid },
	{ "setreuid_saved_uid", t_setreuid_saved },
	{ "setresuid_rules_EPERM", t_setresuid },
	{ "setgid_family_rules_EPERM", t_setgid_family },
	{ "setfsuid_setfsgid", t_setfsuid },
	{ "setgroups_getgroups", t_groups },
	{ "capget_versions_and_errors", t_capget },
	{ "capset_rules", t_capset },
	{ "fork_inherits_credentials", t_fork_inherits },
	{ "exec_keeps_credentials", t_exec_keeps },
	{ "exec_sets_saved_ids", t_exec_saved },
	{ "exec_setuid_setgid_bits", t_exec_setuid },
	{ "exec_setuid_ignored_with_no_new_privs", t_exec_setuid_nnp },
	{ "exec_by_non_root_has_no_caps", t_exec_caps },
	{ "keepcaps_keeps_permitted_set", t_keepcaps },
	{ "bounding_set_read_drop_and_exec", t_bounding },
	{ "ambient_set_rules_and_exec", t_ambient },
	{ "securebits_locks_and_exec", t_securebits },
	{ "rlimits_hard_raise_and_other_user_EPERM", t_rlimits },
	{ "raw_setresuid_changes_only_its_thread", t_per_thread },
	{ "kill_between_users_EPERM", t_kill_users },
	{ "kill_group_nobody_allowed_EPERM", t_kill_group_eperm },
};

int main(int argc, char **argv)
{
	if (argc == 9 && !strcmp(argv[1], "ids"))
		return check_ids_mode(argv);
	if (argc == 2 && strcmp(argv[1], "ids"))
		return exec_mode(argv[1]);
	if (readlink("/proc/self/exe", self_path, sizeof(self_path) - 1) < 0)
		snprintf(self_path, sizeof(self_path), "%s", argv[0]);
	privdrop_init();
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/creds-%d", (int)getpid());
	mkdir(scratch_dir, 0755);
	if (make_copy(scratch("plain"), 0755, 0, 0)) {
		printf("Bail out! cannot copy %s: %s\n", self_path, child_why ? child_why : "");
		return 1;
	}
	run_cases(cases, (int)(sizeof(cases) / sizeof(cases[0])));
	unlink(scratch("plain"));
	rmdir(scratch_dir);
	return ktap_finish();
}
