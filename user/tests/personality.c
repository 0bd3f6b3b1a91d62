// personality(2): every execution domain and flag reads back as set, the
// query value changes nothing, a child inherits it, and what it changes:
// PER_LINUX32 makes uname report i686, UNAME26 a 2.6 release,
// STICKY_TIMEOUTS keeps select, pselect6 and ppoll from writing the time
// left back (which they do without it; the C library may hide that, so
// the system calls are made directly), READ_IMPLIES_EXEC makes a readable
// mapping executable at mmap and mprotect (/proc/self/maps shows it).
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "testcase.h"

#define QUERY 0xffffffffUL

static long pers(unsigned long p)
{
	return syscall(SYS_personality, p);
}

static void t_values_read_back(void)
{
	static const unsigned long values[] = {
		PER_LINUX, PER_LINUX_32BIT, PER_SVR4, PER_SVR3, PER_SCOSVR3, PER_OSR5,
		PER_WYSEV386, PER_ISCR4, PER_BSD, PER_XENIX, PER_LINUX32, PER_IRIX32,
		PER_IRIXN32, PER_IRIX64, PER_RISCOS, PER_SOLARIS, PER_UW7, PER_OSF4, PER_HPUX,
		PER_LINUX | ADDR_NO_RANDOMIZE | READ_IMPLIES_EXEC | WHOLE_SECONDS,
	};
	long old = pers(QUERY);

	check(old == PER_LINUX, "PER_LINUX at start");
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		pers(values[i]);
		if (pers(QUERY) != (long)values[i])
			fail("personality %#lx read back as %#lx", values[i], pers(QUERY));
	}
	check(pers(PER_LINUX) == (long)values[sizeof(values) / sizeof(values[0]) - 1],
	      "the previous value returned");
	check(pers(QUERY) == PER_LINUX, "back to PER_LINUX");
}

static void t_inherited(void)
{
	pid_t pid;

	pers(PER_LINUX | STICKY_TIMEOUTS);
	pid = fork_child();
	if (pid == 0)
		_exit(pers(QUERY) == (PER_LINUX | STICKY_TIMEOUTS) ? 0 : 1);
	pers(PER_LINUX);
	check_child_ok(pid, "a child inherits the personality");
}

static void t_linux32_uname(void)
{
	struct utsname u;

	pers(PER_LINUX32);
	uname(&u);
	pers(PER_LINUX);
	check(strcmp(u.machine, UTS_MACHINE32) == 0, "PER_LINUX32: machine " UTS_MACHINE32);
	uname(&u);
	check(strcmp(u.machine, UTS_MACHINE) == 0, "PER_LINUX: machine " UTS_MACHINE);
}

static void t_uname26(void)
{
	struct utsname u, old;

	uname(&old);
	pers(PER_LINUX | UNAME26);
	uname(&u);
	pers(PER_LINUX);
	check(strncmp(u.release, "2.6.", 4) == 0, "UNAME26: a 2.6 release");
	// 6.x.y-rest becomes 2.6.(60+x)-rest.
	const char *dot = strchr(old.release, '.');
	char want[80];
	if (old.release[0] == '6' && dot) {
		const char *rest = dot + 1;
		int minor = atoi(rest);
		while (*rest == '.' || (*rest >= '0' && *rest <= '9'))
			rest++;
		snprintf(want, sizeof(want), "2.6.%d%s", 60 + minor, rest);
		check(strcmp(u.release, want) == 0, "UNAME26: 2.6.(60 + minor) and the rest");
	}
}

static void t_select_writes_back(void)
{
	struct timeval tv = { 0, 20000 };
	struct timespec ts = { 0, 20000000 };
	struct pollfd pfd = { .fd = -1 };

	pers(PER_LINUX);
	check_ok(syscall(SYS_select, 0, NULL, NULL, NULL, &tv), "select");
	check(tv.tv_sec == 0 && tv.tv_usec < 20000, "select writes the time left back");
	check_ok(syscall(SYS_pselect6, 0, NULL, NULL, NULL, &ts, NULL), "pselect6");
	check(ts.tv_nsec < 20000000, "pselect6 writes the time left back");
	ts.tv_nsec = 20000000;
	check_ok(syscall(SYS_ppoll, &pfd, 1, &ts, NULL, 8), "ppoll");
	check(ts.tv_nsec < 20000000, "ppoll writes the time left back");
}

static void t_sticky_timeouts(void)
{
	struct timeval tv = { 0, 20000 };
	struct timespec ts = { 0, 20000000 };
	struct pollfd pfd = { .fd = -1 };

	pers(PER_LINUX | STICKY_TIMEOUTS);
	check_ok(syscall(SYS_select, 0, NULL, NULL, NULL, &tv), "select");
	check_ok(syscall(SYS_pselect6, 0, NULL, NULL, NULL, &ts, NULL), "pselect6");
	check(ts.tv_nsec == 20000000, "pselect6 leaves the timeout");
	check_ok(syscall(SYS_ppoll, &pfd, 1, &ts, NULL, 8), "ppoll");
	pers(PER_LINUX);
	check(tv.tv_sec == 0 && tv.tv_usec == 20000, "select leaves the timeout");
	check(ts.tv_nsec == 20000000, "ppoll leaves the timeout");
}

// The permissions /proc/self/maps shows for the mapping at p ("r-xp"...),
// into perms[5]; 0 or -1.
static int maps_perms(void *p, char *perms)
{
	char line[512];
	unsigned long lo, hi, a = (unsigned long)p;
	FILE *f = fopen("/proc/self/maps", "r");
	int rc = -1;

	if (!f)
		return -1;
	while (rc && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 && lo <= a && a < hi)
			rc = 0;
	fclose(f);
	return rc;
}

static void t_read_implies_exec(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char perms[5];

	pers(PER_LINUX | READ_IMPLIES_EXEC);
	char *r = mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *w = mmap(NULL, (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *n = mmap(NULL, (size_t)page, PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int rc = mprotect(w, (size_t)page, PROT_READ | PROT_WRITE);
	pers(PER_LINUX);
	char *plain = mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED || w == MAP_FAILED || n == MAP_FAILED || plain == MAP_FAILED || rc) {
		fail("mmap or mprotect failed: errno %d", errno);
		return;
	}
	if (maps_perms(r, perms) || strcmp(perms, "r-xp"))
		fail("mmap(PROT_READ) with READ_IMPLIES_EXEC: %s, want r-xp", perms);
	else if (maps_perms(w, perms) || strcmp(perms, "rwxp"))
		fail("mprotect(PROT_READ | PROT_WRITE) with READ_IMPLIES_EXEC: %s, want rwxp", perms);
	else if (maps_perms(n, perms) || strcmp(perms, "-w-p"))
		fail("mmap(PROT_WRITE) with READ_IMPLIES_EXEC: %s, want -w-p (not readable)", perms);
	else if (maps_perms(plain, perms) || strcmp(perms, "r--p"))
		fail("mmap(PROT_READ) without it: %s, want r--p", perms);
	munmap(r, (size_t)page);
	munmap(w, (size_t)page);
	munmap(n, (size_t)page);
	munmap(plain, (size_t)page);
}

static const struct test_case cases[] = {
	{ "values_read_back", t_values_read_back },
	{ "inherited_by_fork", t_inherited },
	{ "linux32_uname_i686", t_linux32_uname },
	{ "uname26_release", t_uname26 },
	{ "select_pselect_ppoll_write_back", t_select_writes_back },
	{ "sticky_timeouts", t_sticky_timeouts },
	{ "read_implies_exec_at_mmap_and_mprotect", t_read_implies_exec },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
