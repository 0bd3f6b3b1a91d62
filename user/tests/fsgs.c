// fsgs: the user FS and GS base registers belong to one thread.  With
// FSGSBASE (AT_HWCAP2 bit 1) a thread changes them without a system call
// (WRFSBASE/WRGSBASE), so the kernel must save the live values when the
// thread leaves the CPU: another process pinned to the same CPU never
// sees them, our own values survive every switch, a forked child starts
// with the values the parent had at fork, and exec starts with both at 0.
// arch_prctl(ARCH_GET_FS/GS) reports the live values.  Every way of
// setting a base (arch_prctl, CLONE_SETTLS of clone and clone3) refuses
// a value at or above TASK_SIZE_MAX (0x7ffffffff000) with EPERM, as
// Linux does.  Linux is the reference: every case passes there (the
// FSGSBASE cases are skipped on CPUs without it).
//
// The FS base is libc's thread pointer: code that runs with a foreign FS
// base uses raw system calls only and puts the real base back before it
// calls into libc again.
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "sysutil.h"

#define ARCH_SET_GS	0x1001
#define ARCH_SET_FS	0x1002
#define ARCH_GET_FS	0x1003
#define ARCH_GET_GS	0x1004
#define HWCAP2_FSGSBASE	(1UL << 1)
#define TASK_SIZE_MAX	0x7ffffffff000UL

#define NO_CANARY __attribute__((noinline, no_stack_protector))

// Values nobody else uses: a leak shows up as one of these in the wrong
// process.
#define PARENT_FS	0x133713370000UL
#define PARENT_GS	0x244824480000UL
#define CHILD_FS	0x355935590000UL
#define CHILD_GS	0x466a466a0000UL

static const char *self_path;

// ---- raw access, usable with any FS base -----------------------------------

static inline uint64_t rdfs(void)
{
	uint64_t v;
	__asm__ volatile("rdfsbase %0" : "=r"(v));
	return v;
}

static inline uint64_t rdgs(void)
{
	uint64_t v;
	__asm__ volatile("rdgsbase %0" : "=r"(v));
	return v;
}

static inline void wrfs(uint64_t v)
{
	__asm__ volatile("wrfsbase %0" : : "r"(v) : "memory");
}

static inline void wrgs(uint64_t v)
{
	__asm__ volatile("wrgsbase %0" : : "r"(v) : "memory");
}

static inline long raw5(long nr, long a, long b, long c, long d, long e)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return r;
}

static inline long raw2(long nr, long a, long b)
{
	return raw5(nr, a, b, 0, 0, 0);
}

// clone or clone3; a child, if one is made, exits at once with status 99
// without touching memory (its FS base may be anything).
static long clone_exiting_child(long nr, long a, long b, long c, long d, long e)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;

	__asm__ volatile("syscall\n\t"
			 "testq %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "movl $60, %%eax\n\t"		// SYS_exit
			 "movl $99, %%edi\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(r)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return r;
}

static int have_fsgsbase(void)
{
	return (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;
}

static int need_fsgsbase(void)
{
	if (have_fsgsbase())
		return 1;
	skip("no FSGSBASE (AT_HWCAP2)");
	return 0;
}

// Back to every CPU after a case pinned itself to one.
static void unpin(void)
{
	cpu_set_t all;

	CPU_ZERO(&all);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &all);
	sched_setaffinity(0, sizeof(all), &all);
}

static uint64_t get_base(int code)
{
	uint64_t v = 0xbad;

	syscall(SYS_arch_prctl, code, &v);
	return v;
}

// ---- arch_prctl --------------------------------------------------------------

static void t_arch_prctl_gs_roundtrip(void)
{
	check_ok(syscall(SYS_arch_prctl, ARCH_SET_GS, PARENT_GS), "ARCH_SET_GS");
	check(get_base(ARCH_GET_GS) == PARENT_GS, "ARCH_GET_GS returns what ARCH_SET_GS set");
	if (have_fsgsbase())
		check(rdgs() == PARENT_GS, "RDGSBASE sees what ARCH_SET_GS set");
	check_ok(syscall(SYS_arch_prctl, ARCH_SET_GS, 0), "ARCH_SET_GS 0");
}

// ARCH_GET_* must report what WR*BASE set, not the kernel's last copy.
NO_CANARY static uint64_t fs_seen_by_arch_prctl(uint64_t value)
{
	uint64_t saved = rdfs(), got = 0;

	wrfs(value);
	raw2(SYS_arch_prctl, ARCH_GET_FS, (long)&got);
	wrfs(saved);
	return got;
}

static void t_get_reports_live_bases(void)
{
	if (!need_fsgsbase())
		return;
	wrgs(PARENT_GS);
	uint64_t gs = get_base(ARCH_GET_GS);
	wrgs(0);
	if (gs != PARENT_GS)
		fail("ARCH_GET_GS after WRGSBASE %#lx: %#lx", PARENT_GS, (unsigned long)gs);
	uint64_t fs = fs_seen_by_arch_prctl(PARENT_FS);
	if (fs != PARENT_FS)
		fail("ARCH_GET_FS after WRFSBASE %#lx: %#lx", PARENT_FS, (unsigned long)fs);
}

// ARCH_SET_FS of the value the kernel last knew must still load it when
// WRFSBASE changed the register meanwhile.
NO_CANARY static uint64_t fs_after_set_to(uint64_t scribble)
{
	uint64_t saved = rdfs(), now;

	wrfs(scribble);
	raw2(SYS_arch_prctl, ARCH_SET_FS, (long)saved);
	now = rdfs();
	wrfs(saved);
	return now ^ saved;	// 0 when ARCH_SET_FS took effect
}

static void t_set_after_wrbase(void)
{
	if (!need_fsgsbase())
		return;
	check(fs_after_set_to(PARENT_FS) == 0, "ARCH_SET_FS after WRFSBASE took effect");
	syscall(SYS_arch_prctl, ARCH_SET_GS, 0);
	wrgs(PARENT_GS);
	syscall(SYS_arch_prctl, ARCH_SET_GS, 0);
	uint64_t gs = rdgs();
	check(gs == 0, "ARCH_SET_GS 0 after WRGSBASE took effect");
	wrgs(0);
}

// ---- context switches ---------------------------------------------------------

struct yield_share {
	volatile long rounds[2];	// sched_yield rounds done by parent, child
	volatile long wrong[2];		// rounds that found a foreign base
	volatile uint64_t seen_fs[2], seen_gs[2];	// the first foreign values
};

// Yields while holding its own FS and GS bases until both sides did
// 'rounds' rounds (or a bound), checking them after every switch.
NO_CANARY static void yield_with_bases(struct yield_share *s, int me, uint64_t fs, uint64_t gs,
				       long rounds)
{
	uint64_t saved = rdfs();
	int other = !me;

	wrfs(fs);
	wrgs(gs);
	for (long i = 0; i < 50 * rounds; i++) {
		if (s->rounds[me] >= rounds && s->rounds[other] >= rounds)
			break;
		raw2(SYS_sched_yield, 0, 0);
		uint64_t f = rdfs(), g = rdgs();
		if (f != fs || g != gs) {
			if (!s->wrong[me]) {
				s->seen_fs[me] = f;
				s->seen_gs[me] = g;
			}
			s->wrong[me]++;
			wrfs(fs);
			wrgs(gs);
		}
		s->rounds[me]++;
	}
	wrfs(saved);
	wrgs(0);
}

static void t_bases_private_across_yield(void)
{
	struct yield_share *s;
	const long rounds = 2000;

	if (!need_fsgsbase())
		return;
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED) {
		fail("mmap: errno=%d", errno);
		return;
	}
	// Both processes on one CPU: every yield switches between them.
	if (pin_self(0) < 0) {
		fail("pin to CPU 0: errno=%d", errno);
		munmap(s, sizeof(*s));
		return;
	}
	pid_t pid = fork_child();
	if (pid == 0) {
		yield_with_bases(s, 1, CHILD_FS, CHILD_GS, rounds);
		_exit(0);
	}
	if (pid > 0) {
		yield_with_bases(s, 0, PARENT_FS, PARENT_GS, rounds);
		check_child_ok(pid, "child");
	}
	for (int i = 0; i < 2; i++)
		if (s->wrong[i])
			fail("%s: %ld of %ld rounds after a yield found FS %#lx GS %#lx",
			     i ? "child" : "parent", s->wrong[i], s->rounds[i],
			     (unsigned long)s->seen_fs[i], (unsigned long)s->seen_gs[i]);
	if (!fail_why[0] && (s->rounds[0] < rounds || s->rounds[1] < rounds))
		fail("only %ld/%ld rounds", s->rounds[0], s->rounds[1]);
	munmap(s, sizeof(*s));
	unpin();
}

// ---- fork ------------------------------------------------------------------------

// Forks with FS = 'fs': returns the FS base the child saw (in *child_fs,
// through shared memory) and the parent's own after the fork.
NO_CANARY static long fork_with_fs(uint64_t fs, volatile uint64_t *child_fs, uint64_t *parent_fs)
{
	uint64_t saved = rdfs();
	long pid;

	wrfs(fs);
	pid = raw2(SYS_fork, 0, 0);
	if (pid == 0) {
		*child_fs = rdfs();
		raw2(SYS_exit, 0, 0);
	}
	*parent_fs = rdfs();
	wrfs(saved);
	return pid;
}

static void t_fork_copies_live_bases(void)
{
	if (!need_fsgsbase())
		return;
	volatile uint64_t *seen = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED) {
		fail("mmap: errno=%d", errno);
		return;
	}
	pin_self(0);

	// GS: the parent changes its own right after the fork, before the
	// child (on the same CPU) first runs.
	wrgs(PARENT_GS);
	pid_t pid = fork_child();
	if (pid == 0)
		_exit(rdgs() == PARENT_GS ? 0 : 1);
	wrgs(CHILD_GS);
	if (pid > 0 && check_child_ok(pid, "child's GS base is the parent's at fork"))
		check(rdgs() == CHILD_GS, "parent's GS base kept");
	wrgs(0);

	uint64_t parent_fs = 0;
	long rc = fork_with_fs(PARENT_FS, seen, &parent_fs);
	if (rc < 0) {
		fail("raw fork: %ld", rc);
	} else {
		reap((pid_t)rc);
		if (seen[0] != PARENT_FS)
			fail("child's FS base %#lx, parent had %#lx", (unsigned long)seen[0], PARENT_FS);
		check(parent_fs == PARENT_FS, "parent's FS base kept across fork");
	}
	munmap((void *)seen, 4096);
	unpin();
}

// ---- exec -------------------------------------------------------------------------

// Child mode after exec: both bases must be 0 (FS as libc set it is not
// 0, so only GS is checked directly; ARCH_GET_GS agrees).
static int exec_child(void)
{
	if (get_base(ARCH_GET_GS) != 0)
		return 2;
	if (have_fsgsbase() && rdgs() != 0)
		return 3;
	return 0;
}

static void exec_with_gs(int with_wrgsbase)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		if (with_wrgsbase)
			wrgs(PARENT_GS);
		else
			syscall(SYS_arch_prctl, ARCH_SET_GS, PARENT_GS);
		execl(self_path, self_path, "--exec-child", (char *)NULL);
		_exit(100 + errno);
	}
	check_child_ok(pid, "GS base is 0 after exec (2: ARCH_GET_GS, 3: RDGSBASE)");
}

static void t_exec_resets_arch_prctl_gs(void)
{
	exec_with_gs(0);
}

static void t_exec_resets_wrgsbase(void)
{
	if (need_fsgsbase())
		exec_with_gs(1);
}

// ---- refusing bases outside the user half ------------------------------------------

static const uint64_t bad_bases[] = {
	TASK_SIZE_MAX, 0x800000000000UL, 0x8000000000000000UL, 0xdead000000000000UL,
	0xffff800000000000UL, 0xffffffff80000000UL, ~0UL,
};
#define NR_BAD_BASES (int)(sizeof(bad_bases) / sizeof(bad_bases[0]))

NO_CANARY static long set_fs_raw(uint64_t value)
{
	uint64_t saved = 0;
	long rc;

	raw2(SYS_arch_prctl, ARCH_GET_FS, (long)&saved);
	rc = raw2(SYS_arch_prctl, ARCH_SET_FS, (long)value);
	if (rc == 0)
		raw2(SYS_arch_prctl, ARCH_SET_FS, (long)saved);
	return rc;
}

static void t_arch_prctl_refuses_bad_bases(void)
{
	for (int i = 0; i < NR_BAD_BASES; i++) {
		long rc = set_fs_raw(bad_bases[i]);
		if (rc != -EPERM)
			fail("ARCH_SET_FS %#lx: %ld, want -EPERM", (unsigned long)bad_bases[i], rc);
		rc = raw2(SYS_arch_prctl, ARCH_SET_GS, (long)bad_bases[i]);
		if (rc != -EPERM)
			fail("ARCH_SET_GS %#lx: %ld, want -EPERM", (unsigned long)bad_bases[i], rc);
	}
	syscall(SYS_arch_prctl, ARCH_SET_GS, 0);
	check(raw2(SYS_arch_prctl, ARCH_SET_GS, (long)(TASK_SIZE_MAX - 4096)) == 0,
	      "ARCH_SET_GS just below TASK_SIZE_MAX");
	syscall(SYS_arch_prctl, ARCH_SET_GS, 0);
}

// Judges one clone/clone3 of a forking child with CLONE_SETTLS 'tls'.
static void judge_clone(const char *what, uint64_t tls, long rc, int want_ok)
{
	if (rc > 0) {
		int status = reap((pid_t)rc);
		if (!want_ok)
			fail("%s tls %#lx made a child (status %#x), want -EPERM", what,
			     (unsigned long)tls, status);
		else if (!WIFEXITED(status) || WEXITSTATUS(status) != 99)
			fail("%s tls %#lx: child status %#x", what, (unsigned long)tls, status);
	} else if (want_ok) {
		fail("%s tls %#lx: %ld, want a child", what, (unsigned long)tls, rc);
	} else if (rc != -EPERM) {
		fail("%s tls %#lx: %ld, want -EPERM", what, (unsigned long)tls, rc);
	}
}

static void t_clone_settls_refuses_bad_bases(void)
{
	for (int i = 0; i < NR_BAD_BASES; i++) {
		long rc = clone_exiting_child(SYS_clone, CLONE_SETTLS | SIGCHLD, 0, 0, 0,
					      (long)bad_bases[i]);
		judge_clone("clone", bad_bases[i], rc, 0);
	}
	long rc = clone_exiting_child(SYS_clone, CLONE_SETTLS | SIGCHLD, 0, 0, 0,
				      (long)(TASK_SIZE_MAX - 4096));
	judge_clone("clone", TASK_SIZE_MAX - 4096, rc, 1);
}

struct clone3_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

static long clone3_tls(uint64_t tls)
{
	struct clone3_args ca;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_SETTLS;
	ca.exit_signal = SIGCHLD;
	ca.tls = tls;
	return clone_exiting_child(435 /* SYS_clone3 */, (long)&ca, sizeof(ca), 0, 0, 0);
}

static void t_clone3_settls_refuses_bad_bases(void)
{
	for (int i = 0; i < NR_BAD_BASES; i++)
		judge_clone("clone3", bad_bases[i], clone3_tls(bad_bases[i]), 0);
	judge_clone("clone3", TASK_SIZE_MAX - 4096, clone3_tls(TASK_SIZE_MAX - 4096), 1);
}

static const struct test_case cases[] = {
	{ "arch_prctl_gs_roundtrip", t_arch_prctl_gs_roundtrip },
	{ "arch_prctl_get_reports_live_bases", t_get_reports_live_bases },
	{ "arch_prctl_set_after_wrbase", t_set_after_wrbase },
	{ "bases_private_across_yield_same_cpu", t_bases_private_across_yield },
	{ "fork_copies_live_bases", t_fork_copies_live_bases },
	{ "exec_resets_arch_prctl_gs", t_exec_resets_arch_prctl_gs },
	{ "exec_resets_wrgsbase_gs", t_exec_resets_wrgsbase },
	{ "arch_prctl_refuses_bad_bases", t_arch_prctl_refuses_bad_bases },
	{ "clone_settls_refuses_bad_bases", t_clone_settls_refuses_bad_bases },
	{ "clone3_settls_refuses_bad_bases", t_clone3_settls_refuses_bad_bases },
};

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--exec-child"))
		return exec_child();
	self_path = "/proc/self/exe";
	(void)argv;
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
