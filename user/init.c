// init: PID 1 of Switchyard.
//
// The host runner chooses what a boot is for through init's arguments
// (the words after "--" on the kernel command line):
//
//	--tests [NAME...]	run the test programs in /tests (all, or the
//				named ones), then the shell scripts there
//	--soak SECONDS [NAME...] run the tests of --tests again and again,
//				starting no new round after SECONDS
//	--bench [--ncpu N] [--mech LIST] [--seconds S] [--no-pipebench]
//	        [--no-mbbench] [--only GROUP,...] [--policies LIST [--rounds R]]
//				run the benchmark matrix and let each program
//				print its RESULT lines (with --policies: each
//				run R times under each policy in turn, the
//				policy changed at run time)
//	--run PROGRAM ARGS...	run one program; exit with its status
//	--run-file FILE		the same, with PROGRAM and ARGS read from FILE:
//				their count in decimal and a newline, then each
//				one followed by a NUL (so that they arrive byte
//				for byte; the host runner writes it)
//	--exit			exit at once (boots that only test the kernel)
//	(nothing)		print a banner and run /bin/sh
//
// --program-timeout S (before --tests or --soak) kills a test program
// still running after S seconds (runs with fault injection, where a test
// whose helper could not start may wait for it until its own watchdog).
//
// Any of them may follow --check-memory: init then takes a memory
// snapshot (/proc/switchyard/memstat) before the task, and afterwards
// switches allocation-failure injection off, kills what is left, empties
// /tmp, /dev/shm and /dev/mqueue (naming what it removes outside /tmp) and
// executes itself anew as "/init --memory-final STATUS LEFT SNAPSHOT STARTED":
// that fresh init runs /tests/hello, takes a second snapshot and reports
// both checks as KTAP ("# init: checks"); after a failed memory check it
// names the files changed since STARTED, the usual culprit, and (booted
// with kmalloc_trace) the heap objects left by who allocated them.  A fresh image on both sides
// means init's own memory is the same in both snapshots, so they can be
// compared exactly (user/lib/memstat.h says what must match); its exit
// status is the task's.
//
// init mounts nothing.  It reaps every orphan while it waits for its own
// child, so zombies never pile up under PID 1.  Messages start with
// "# init:" so the KTAP summariser reads them as diagnostics; it also
// reads "# init: running PATH" to name the results that follow.
//
// The directories are overridable by environment variables so the same
// binary can be tried on the host: SWITCHYARD_TESTS_DIR, SWITCHYARD_BENCH_DIR,
// SWITCHYARD_SYSSTAT and SWITCHYARD_BUSYBOX.

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "memstat.h"

#define MAX_PROGRAMS	256
#define MAX_ARGS	32

extern char **environ;

static const char *tests_dir = "/tests";
static const char *bench_dir = "/bench";
static const char *sysstat_path = "/tools/sysstat";
static const char *busybox_path = "/bin/busybox";

// Console output goes through write(2) at once: nothing may sit in a stdio
// buffer when init forks, or the child would print it a second time.
static void say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	for (int done = 0; done < n;) {
		ssize_t w = write(STDOUT_FILENO, line + done, n - done);
		if (w <= 0 && errno != EINTR)
			return;
		if (w > 0)
			done += w;
	}
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static const char *env_or(const char *name, const char *fallback)
{
	const char *value = getenv(name);

	return value && *value ? value : fallback;
}

// Whether the program gets a session of its own with the console as its
// controlling terminal, as a getty gives a login shell (--run and the
// shell: a shell's job control needs it; the test programs do not).
static bool give_console;

// Start argv[0] in a child process.  Returns the child's pid or -1.
static pid_t start_program(char *const argv[])
{
	pid_t pid = fork();

	if (pid < 0) {
		say("# init: fork for %s failed: %s", argv[0], strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (give_console && setsid() > 0)
			ioctl(0, TIOCSCTTY, 0);
		execve(argv[0], argv, environ);
		say("# init: cannot run %s: %s", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

// Wait for one child, reaping any orphan that was re-parented to init in
// the meantime.  Returns the wait status, or -1 if the child is lost.
static int wait_for(pid_t child)
{
	int status;

	for (;;) {
		pid_t pid = waitpid(-1, &status, 0);
		if (pid == child)
			return status;
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0) {
			say("# init: waiting for pid %d failed: %s", (int)child,
			    strerror(errno));
			return -1;
		}
		// Some other process ended: an orphan of an earlier program.
	}
}

// A status in the form a shell reports it: exit code or 128 + signal.
static int shell_status(int status)
{
	if (status == -1)
		return 255;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

// Tell the summariser about a program that did not end cleanly; the KTAP
// lines it printed carry the individual results.
static void report_status(const char *name, int status)
{
	if (status == -1)
		say("# init: %s exited with status 255", name);
	else if (WIFSIGNALED(status))
		say("# init: %s killed by signal %d", name, WTERMSIG(status));
	else if (WEXITSTATUS(status) != 0)
		say("# init: %s exited with status %d", name, WEXITSTATUS(status));
}

// Run a program to completion; returns its wait status (-1 if lost).
static int run_and_wait(char *const argv[])
{
	pid_t pid = start_program(argv);

	if (pid < 0)
		return -1;
	return wait_for(pid);
}

static int program_timeout;		// seconds, 0: none (--program-timeout)
static volatile sig_atomic_t alarm_rang;

static void on_alarm(int sig)
{
	(void)sig;
	alarm_rang = 1;
}

// run_and_wait, but a program still running after program_timeout
// seconds is killed (it then reports "killed by signal 9").
static int run_limited(char *const argv[], const char *name)
{
	struct sigaction sa;
	pid_t pid;
	int status;

	if (program_timeout <= 0)
		return run_and_wait(argv);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	// no SA_RESTART: waitpid returns EINTR
	sigaction(SIGALRM, &sa, NULL);
	pid = start_program(argv);
	if (pid < 0)
		return -1;
	alarm_rang = 0;
	alarm(program_timeout);
	for (;;) {
		pid_t got = waitpid(-1, &status, 0);
		if (got == pid)
			break;
		if (got < 0 && errno == EINTR && alarm_rang) {
			say("# init: %s still running after %d s: killed", name, program_timeout);
			kill(pid, SIGKILL);
			alarm_rang = 0;
			continue;
		}
		if (got < 0 && errno != EINTR) {
			status = -1;
			break;
		}
	}
	alarm(0);
	return status;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

// Collect the names of the programs in 'dir': executables first (skipping
// scripts and hidden files), sorted; returns how many were found.  When the
// directory cannot be listed, fall back to the ".list" manifest that
// mkinitrd.sh writes, so a kernel without getdents64 still runs its tests.
static int list_directory(const char *dir, char **names, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	errno = 0;
	while (n < max && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		names[n] = strdup(e->d_name);
		if (names[n])
			n++;
	}
	if (errno != 0 && n == 0) {
		closedir(d);
		return -1;
	}
	closedir(d);
	return n;
}

static int read_manifest(const char *dir, char **names, int max)
{
	char path[256], buf[8192];
	int fd, n = 0;
	ssize_t len;
	char *line, *save;

	snprintf(path, sizeof(path), "%s/.list", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len < 0)
		return -1;
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		names[n] = strdup(line);
		if (names[n])
			n++;
	}
	return n;
}

static int find_programs(const char *dir, char **names, int max)
{
	int n = list_directory(dir, names, max);

	if (n <= 0) {
		int m = read_manifest(dir, names, max);
		if (m > 0) {
			say("# init: cannot list %s, using %s/.list", dir, dir);
			n = m;
		}
	}
	if (n < 0) {
		say("# init: cannot open %s: %s", dir, strerror(errno));
		return 0;
	}
	qsort(names, n, sizeof(names[0]), compare_names);
	return n;
}

// Is 'path' a file we may execute?  A kernel without stat(2) would answer
// ENOSYS; then trust the name and let execve decide.
static bool is_executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOSYS;
	return S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

// Was this program named on the command line (or were none named)?
static bool selected(const char *name, char **only, int nonly)
{
	if (nonly == 0)
		return true;
	for (int i = 0; i < nonly; i++)
		if (strcmp(only[i], name) == 0)
			return true;
	return false;
}

// Run one test program or script and report a bad ending.
static void run_test(const char *dir, const char *name, bool script)
{
	char path[256];
	char *argv[4];
	int status;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	say("# init: running %s", path);
	if (script) {
		argv[0] = (char *)busybox_path;
		argv[1] = "sh";
		argv[2] = path;
		argv[3] = NULL;
	} else {
		argv[0] = path;
		argv[1] = NULL;
	}
	status = run_limited(argv, name);
	report_status(name, status);
}

// --tests: every executable in the tests directory in sorted order, then
// every shell script there (through busybox, so no #! support is needed).
static int run_tests(char **only, int nonly)
{
	static char *names[MAX_PROGRAMS];
	static int n = -1;
	char path[256];

	// Listed once: a soak runs the same programs every round.
	if (n < 0)
		n = find_programs(tests_dir, names, MAX_PROGRAMS);

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", tests_dir, names[i]);
		if (ends_with(names[i], ".sh") || !selected(names[i], only, nonly))
			continue;
		if (is_executable(path))
			run_test(tests_dir, names[i], false);
	}
	for (int i = 0; i < n; i++) {
		if (ends_with(names[i], ".sh") && selected(names[i], only, nonly))
			run_test(tests_dir, names[i], true);
	}
	say("# init: tests done");
	return 0;
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

// --soak SECONDS [NAME...]: rounds of --tests until the time is up.  Each
// round prints its results like a --tests boot (the summariser counts
// them all) and a line of memory figures, to watch for growth.
static int run_soak(int argc, char **argv)
{
	struct timespec start;
	struct memstat m;
	int seconds = argc > 0 ? atoi(argv[0]) : 0;
	int round = 0;

	if (seconds <= 0) {
		say("# init: --soak needs a number of seconds");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (seconds_since(&start) < seconds) {
		round++;
		say("# init: soak round %d at %.0f s", round, seconds_since(&start));
		run_tests(argv + 1, argc - 1);
		if (memstat_read(&m) == 0)
			say("# init: after round %d: pages_used %ld pages_pinned %ld processes %ld",
			    round, memstat_get(&m, "pages_used"), memstat_get(&m, "pages_pinned"),
			    memstat_get(&m, "processes"));
	}
	say("# init: soak done: %d rounds in %.0f s", round, seconds_since(&start));
	return 0;
}

// The benchmark matrix.  Every context-switch mechanism in both thread and
// process mode, on one CPU and across two, with the partners using no
// vector registers, a register class once at the start (the seed's case:
// a thread that used the facility once), or every round.  The classes
// are the arch's: SSE and AVX on x86-64; FP, VMX and TM (a TM SPR read)
// on ppc64.  Each run prints its own RESULT line; the kernel's facility
// policy is chosen on the kernel command line (./switchyard bench --policy).
static const char *const ctxsw_mechs[] = { "pipe", "futex", "yield" };
static const char *const ctxsw_modes[] = { "thread", "process" };
static const char *const ctxsw_cpus[] = { "0,0", "0,1" };
static const struct { const char *vec; bool once; } ctxsw_vecs[] = {
	{ "none", false },
#if defined(__powerpc64__)
	{ "fp", true }, { "vmx", true }, { "vmx", false }, { "tm", true }, { "tm", false },
#else
	{ "sse", true }, { "sse", false }, { "avx", true }, { "avx", false },
#endif
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

// Benchmark programs that failed: --bench exits 1 when there were any.
static int bench_failures;

// --policies LIST --rounds R: every run is made R times under each policy
// in turn, the policy changed at run time, so policies are compared
// within one boot (a boot's own speed varies by more than the policies
// differ under TCG).  Without --policies each run is made once.
static const char *bench_policies;
static int bench_rounds = 1;

// Run one benchmark, with sysstat in front when present so the counter
// deltas of the run print beside its RESULT line.
static void run_bench(char **args)
{
	char *argv[MAX_ARGS];
	int argc = 0;
	int status;

	if (access(sysstat_path, X_OK) == 0)
		argv[argc++] = (char *)sysstat_path;
	for (int i = 0; args[i] && argc < MAX_ARGS - 1; i++)
		argv[argc++] = args[i];
	argv[argc] = NULL;
	status = run_and_wait(argv);
	report_status(base_name(args[0]), status);
	if (status != 0)
		bench_failures++;
}

static bool set_policy(const char *name, size_t len)
{
	char cmd[64];
	int fd = open("/proc/switchyard/facilities", O_WRONLY);
	int n = snprintf(cmd, sizeof(cmd), "policy %.*s\n", (int)len, name);
	bool ok = fd >= 0 && write(fd, cmd, (size_t)n) == n;

	if (fd >= 0)
		close(fd);
	if (!ok)
		say("# init: cannot set the policy %.*s: %s", (int)len, name, strerror(errno));
	return ok;
}

// One benchmark run, or R rounds of it under each policy of --policies.
static void run_compared(char **args)
{
	if (!bench_policies) {
		run_bench(args);
		return;
	}
	for (int r = 0; r < bench_rounds; r++) {
		for (const char *p = bench_policies; *p;) {
			size_t len = strcspn(p, ",");
			if (set_policy(p, len))
				run_bench(args);
			else
				bench_failures++;
			p += len;
			if (*p == ',')
				p++;
		}
	}
}

// How many CPUs to plan for: the runner's hint, but no more than the
// kernel has online (a guest kernel may not have brought them all up),
// else what the kernel says.
static int count_cpus(int hint)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		n = 1;
	if (hint > n) {
		say("# init: %d CPUs asked for, %ld online: planning for %ld", hint, n, n);
		return (int)n;
	}
	return hint > 0 ? hint : (int)n;
}

// Is 'word' in the comma-separated 'list' (NULL: everything is)?
static bool listed(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p;) {
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == 0))
			return true;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return list == NULL;
}

static void run_ctxsw_matrix(int ncpu, const char *mechs, const char *seconds)
{
	char program[256], mech[32], cpus[32], vec[32], secs[16];
	char *args[14];

	snprintf(program, sizeof(program), "%s/ctxsw", bench_dir);
	if (access(program, X_OK) != 0) {
		say("# init: %s is missing, skipped", program);
		return;
	}
	snprintf(secs, sizeof(secs), "%s", seconds);
	for (size_t m = 0; m < NELEM(ctxsw_mechs); m++)
	for (size_t o = 0; o < NELEM(ctxsw_modes); o++)
	for (size_t c = 0; c < NELEM(ctxsw_cpus); c++)
	for (size_t v = 0; v < NELEM(ctxsw_vecs); v++) {
		// Cross-CPU runs need a second CPU, and yielding only
		// switches between partners that share one.
		if (c > 0 && (ncpu < 2 || strcmp(ctxsw_mechs[m], "yield") == 0))
			continue;
		if (!listed(mechs, ctxsw_mechs[m]))
			continue;
		int n = 0;
		snprintf(mech, sizeof(mech), "%s", ctxsw_mechs[m]);
		snprintf(cpus, sizeof(cpus), "%s", ctxsw_cpus[c]);
		snprintf(vec, sizeof(vec), "%s", ctxsw_vecs[v].vec);
		args[n++] = program;
		args[n++] = "-m";
		args[n++] = mech;
		if (o == 1)
			args[n++] = "-p";
		args[n++] = "-c";
		args[n++] = cpus;
		args[n++] = "-v";
		args[n++] = vec;
		if (ctxsw_vecs[v].once)
			args[n++] = "-o";
		args[n++] = "-d";
		args[n++] = secs;
		args[n] = NULL;
		run_compared(args);
	}
}

// Pipe round trips: threads and processes, on one CPU and across two.
static void run_pipebench(int ncpu)
{
	static char *const variants[][4] = {
		{ "-c", "0,0", NULL, NULL },
		{ "-c", "0,0", "-T", NULL },
		{ "-c", "0,1", NULL, NULL },
		{ "-c", "0,1", "-T", NULL },
	};
	char program[256];

	snprintf(program, sizeof(program), "%s/pipebench", bench_dir);
	if (access(program, X_OK) != 0) {
		say("# init: %s is missing, skipped", program);
		return;
	}
	for (size_t v = 0; v < NELEM(variants); v++) {
		char *args[6] = { program };
		if (v >= 2 && ncpu < 2)
			continue;
		for (int i = 0; i < 4 && variants[v][i]; i++)
			args[i + 1] = variants[v][i];
		run_compared(args);
	}
}

// membarrier(2): latency of each command under load and the cost of
// SYNC_CORE registration (mbbench prints many RESULT lines with its own
// counters, so no sysstat around it).
static void run_mbbench(int ncpu)
{
	char program[256], n[16];

	snprintf(program, sizeof(program), "%s/mbbench", bench_dir);
	if (access(program, X_OK) != 0) {
		say("# init: %s is missing, skipped", program);
		return;
	}
	snprintf(n, sizeof(n), "%d", ncpu);
	char *args[] = { program, "-n", n, NULL };
	int status = run_and_wait(args);
	report_status("mbbench", status);
	if (status != 0)
		bench_failures++;
}

// A benchmark that prints many RESULT lines of its own (no sysstat around
// it: its counter totals would be pinned to the last line), run once per
// boot as mbbench: timers and scheduling do not depend on the policy.
static void run_plain(const char *name, char **args)
{
	char program[256];

	snprintf(program, sizeof(program), "%s/%s", bench_dir, name);
	if (access(program, X_OK) != 0) {
		say("# init: %s is missing, skipped", program);
		return;
	}
	args[0] = program;
	int status = run_and_wait(args);
	report_status(name, status);
	if (status != 0)
		bench_failures++;
}

// Issue 12's scheduler and time benchmarks: timeouts against what was
// asked, wake-up latency, CPU shares by nice level.  Their two-CPU cases
// need CPU 1.  Each fairbench scenario runs for --seconds.
static void run_sched_time(int ncpu, const char *only, const char *seconds)
{
	char secs[16];
	char *timer[] = { NULL, NULL };
	char *wake_one[] = { NULL, "-m", "same", NULL };
	char *wake[] = { NULL, NULL };
	char *fair_one[] = { NULL, "-d", secs, "-s", "pinned05,fifo", NULL };
	char *fair[] = { NULL, "-d", secs, NULL };

	snprintf(secs, sizeof(secs), "%s", seconds);

	if (listed(only, "timer"))
		run_plain("timerbench", timer);
	if (listed(only, "wake"))
		run_plain("wakebench", ncpu < 2 ? wake_one : wake);
	if (listed(only, "fair"))
		run_plain("fairbench", ncpu < 2 ? fair_one : fair);
}

// Linux's powerpc context_switch.c (ppc64le; bench/cswitch says SKIP
// where it was not built): whole seconds, as it counts them.
static void run_cswitch(int ncpu, const char *seconds)
{
	char n[16], s[16];
	char *args[] = { NULL, "-n", n, "-s", s, NULL };

	snprintf(n, sizeof(n), "%d", ncpu);
	snprintf(s, sizeof(s), "%d", (int)(atof(seconds) + 0.999));
	run_plain("cswitch", args);
}

// The groups --only can name, in the order they run.
static const char *const bench_groups[] = { "ctxsw", "pipe", "mb", "timer", "wake", "fair", "proc", "fs",
					    "perf", "cswitch" };

// Every name of an --only list must be a group.
static bool groups_valid(const char *list)
{
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		bool known = false;
		for (size_t g = 0; g < NELEM(bench_groups); g++)
			known |= strlen(bench_groups[g]) == len &&
				 strncmp(p, bench_groups[g], len) == 0;
		if (!known)
			return false;
		p += len;
		if (*p == ',')
			p++;
	}
	return true;
}

// --bench [--ncpu N] [--mech LIST] [--seconds S] [--no-pipebench] [--no-mbbench]
//	   [--only GROUP,...] [--policies LIST [--rounds R]]
// --only runs just the named groups (ctxsw, pipe, mb, timer, wake, fair, proc, fs,
// perf, cswitch).
static int run_benchmarks(int argc, char **argv)
{
	int hint = 0;
	const char *mechs = NULL, *seconds = "2", *only = NULL;
	bool pipebench = true, mbbench = true;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--ncpu") == 0 && i + 1 < argc)
			hint = atoi(argv[++i]);
		else if (strcmp(argv[i], "--mech") == 0 && i + 1 < argc)
			mechs = argv[++i];
		else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			seconds = argv[++i];
		else if (strcmp(argv[i], "--no-pipebench") == 0)
			pipebench = false;
		else if (strcmp(argv[i], "--no-mbbench") == 0)
			mbbench = false;
		else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
			only = argv[++i];
		else if (strcmp(argv[i], "--policies") == 0 && i + 1 < argc)
			bench_policies = argv[++i];
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			bench_rounds = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
		else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
			only = argv[++i];
		else
			say("# init: --bench: ignoring %s", argv[i]);
	}
	if (only && !groups_valid(only)) {
		say("# init: --bench: --only wants groups of ctxsw,pipe,mb,timer,wake,fair,proc,fs,"
		    "perf,cswitch, not %s", only);
		return 2;
	}
	int ncpu = count_cpus(hint);
	say("# init: benchmarks on %d CPU%s", ncpu, ncpu == 1 ? "" : "s");
	if (listed(only, "ctxsw"))
		run_ctxsw_matrix(ncpu, mechs, seconds);
	if (pipebench && listed(only, "pipe"))
		run_pipebench(ncpu);
	if (mbbench && listed(only, "mb"))
		run_mbbench(ncpu);
	run_sched_time(ncpu, only, seconds);
	// procbench twice: from a small parent, then from one with a big
	// file mapping resident (a shell's text), which fork must handle.
	static char *small_parent[] = { NULL, NULL };
	static char *big_parent[] = { NULL, "-m", "fork,forkexec", "-M", "/bin/busybox", NULL };
	static char *fs_args[] = { NULL, NULL };
	static char *perf_args[] = { NULL, NULL };
	if (listed(only, "proc")) {
		run_plain("procbench", small_parent);
		run_plain("procbench", big_parent);
	}
	if (listed(only, "fs"))
		run_plain("fsbench", fs_args);
	// Linux's own benchmarks, unmodified: perf bench sched (x86-64, when
	// the runner packed Debian's perf) and, on ppc64le, the powerpc
	// selftests' context_switch.c.
	if (listed(only, "perf"))
		run_plain("perfbench", perf_args);
	if (listed(only, "cswitch"))
		run_cswitch(ncpu, seconds);
	if (bench_failures) {
		say("# init: benchmarks done, %d failed", bench_failures);
		return 1;
	}
	say("# init: benchmarks done");
	return 0;
}

// --run PROGRAM ARGS...: init's status becomes the program's, so the host
// runner can pass it on as its own exit status.
static int run_one(int argc, char **argv)
{
	char *args[MAX_ARGS];
	int status;

	if (argc < 1) {
		say("# init: --run needs a program");
		return 2;
	}
	if (argc > MAX_ARGS - 1)
		argc = MAX_ARGS - 1;
	for (int i = 0; i < argc; i++)
		args[i] = argv[i];
	args[argc] = NULL;
	give_console = true;
	status = run_and_wait(args);
	report_status(base_name(args[0]), status);
	return shell_status(status);
}

// Reads all of 'path' into a new NUL-terminated buffer; its size in *len.
static char *read_whole(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;

	if (fd < 0 || fstat(fd, &st) < 0 || !(buf = malloc((size_t)st.st_size + 1))) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = 0;
	*len = got;
	return buf;
}

// --run-file FILE: the vector comes from FILE ("COUNT\n" then COUNT
// NUL-terminated strings, nothing after them).
static int run_file(const char *path)
{
	size_t len;
	char *buf = read_whole(path, &len);
	char *end, **args;

	if (!buf) {
		say("# init: cannot read %s: %s", path, strerror(errno));
		return 2;
	}
	long count = strtol(buf, &end, 10);
	if (end == buf || *end != '\n' || count < 1 || count > (long)len) {
		say("# init: %s: no argument count", path);
		return 2;
	}
	args = calloc((size_t)count + 1, sizeof(char *));
	char *p = end + 1;
	for (long i = 0; args && i < count; i++) {
		char *nul = memchr(p, 0, (size_t)(buf + len - p));
		if (!nul || p >= buf + len) {
			say("# init: %s: %ld arguments announced, fewer found", path, count);
			return 2;
		}
		args[i] = p;
		p = nul + 1;
	}
	if (!args || p != buf + len) {
		say("# init: %s: %s", path, args ? "data after the arguments" : "out of memory");
		return 2;
	}
	int status = run_and_wait(args);
	report_status(base_name(args[0]), status);
	return shell_status(status);
}

// No arguments: a shell on the console, if there is one.
static int run_shell(void)
{
	char *args[] = { "/bin/sh", NULL };

	say("Switchyard init: no task given; starting /bin/sh");
	say("(the host runner passes --tests, --bench or --run PROGRAM)");
	if (access(args[0], X_OK) != 0) {
		say("# init: /bin/sh is missing");
		return 0;
	}
	give_console = true;
	return shell_status(run_and_wait(args));
}

// ---- --check-memory ----

#define FRESH_PROGRAM	"hello"
#define SNAPSHOT_MAX	1024

// Makes the pages of init that the memory snapshots see the same in both
// inits: the whole image (code is faulted in on first use, and the two
// run different code before their snapshots), and every stack page from
// the top down to 64 KiB below the page of the highest string the kernel
// put there, whatever the lengths of argv (which differ between the two).
static void touch_memory(char **argv)
{
	memstat_touch_segments();

	uintptr_t top = (uintptr_t)getauxval(AT_EXECFN);

	for (char **p = argv; *p; p++)
		if ((uintptr_t)*p > top)
			top = (uintptr_t)*p;
	for (char **p = environ; *p; p++)
		if ((uintptr_t)*p > top)
			top = (uintptr_t)*p;
	uintptr_t low = (top & ~(uintptr_t)4095) - 64 * 1024;
	volatile char here;
	uintptr_t sp = (uintptr_t)&here;
	if (sp <= low + 16 * 1024 || sp > top)
		return;		// not on the usual stack: nothing sensible to do
	// An array reaching below 'low'; then one byte in each page from
	// 'low' up, all inside the array.
	volatile char *area = __builtin_alloca(sp - low + 8192);
	if ((uintptr_t)area > low)
		return;
	for (uintptr_t a = low; a + 4096 < sp; a += 4096)
		area[a - (uintptr_t)area] = 0;
}

// Runs the fresh program quietly; returns its wait status (-1: lost).
static int run_fresh_program(void)
{
	char path[256];
	char *args[] = { path, NULL };
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", tests_dir, FRESH_PROGRAM);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execve(path, args, environ);
		_exit(127);
	}
	return wait_for(pid);
}

// The same steps in both inits, first thing in main: touch memory,
// run the fresh program, take the snapshot.
static int memory_probe(char **argv, struct memstat *m, int *fresh_status)
{
	touch_memory(argv);
	*fresh_status = run_fresh_program();
	return memstat_read(m);
}

// When the run began (CLOCK_REALTIME, in ns), handed to the fresh init:
// the files changed since then are the ones a failed memory check names.
static long long run_started;

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st; (void)type;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

// The same, naming what it removes: outside /tmp nothing should be left.
static int remove_entry_loudly(const char *path, const struct stat *st, int type,
			       struct FTW *ftw)
{
	if (ftw->level > 0)
		say("# init: removing %s, left behind by the run", path);
	return remove_entry(path, st, type, ftw);
}

// The files the run made or changed, named in a failed memory check.
static char changed_names[512];

static int name_if_changed(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	long long changed = (long long)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec;
	size_t len = strlen(changed_names);

	(void)type; (void)ftw;
	if (changed <= run_started || S_ISDIR(st->st_mode))
		return 0;
	say("# init: changed during the run: %s (%lld bytes)", path, (long long)st->st_size);
	if (len + strlen(path) + 3 < sizeof(changed_names))
		snprintf(changed_names + len, sizeof(changed_names) - len, "%s%s",
			 len ? ", " : "", path);
	return 0;
}

// After a failed memory check: the files the run left, which is what
// a leaked inode or page most often turns out to be.  /proc and /sys
// are made up on each read and are skipped.
static void name_changed_files(void)
{
	DIR *root = opendir("/");
	struct dirent *de;

	if (root == NULL)
		return;
	while ((de = readdir(root)) != NULL) {
		char path[300];
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, "proc") == 0 || strcmp(de->d_name, "sys") == 0)
			continue;
		snprintf(path, sizeof(path), "/%s", de->d_name);
		nftw(path, name_if_changed, 16, FTW_PHYS);
	}
	closedir(root);
}

// With the kmalloc_trace boot option: from here on, the heap objects
// still live are listed by who allocated them.
static void init_kmalloc_live_mark(void)
{
	if (kmalloc_live_mark() < 0 && access(KMALLOC_LIVE_PATH, F_OK) == 0)
		say("# init: cannot mark %s: %s", KMALLOC_LIVE_PATH, strerror(errno));
}

// After a failed memory check: the heap objects allocated during the run
// and still live, by caller, when the kernel records them.
static void kmalloc_live_show(void)
{
	static char text[8192];
	long n = kmalloc_live_read(text, sizeof(text));

	if (n < 0)
		return;
	if (n == 0) {
		say("# init: boot with kmalloc_trace to see who allocated what is left");
		return;
	}
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		say("# init: kmalloc_live: %s", line);
}

static void memory_final_exec(int status, const struct memstat *base)
{
	static char snapshot[SNAPSHOT_MAX], code[16], left_text[16], started_text[24];
	int fd = open("/proc/switchyard/fail_alloc", O_WRONLY);
	int left = 0;

	if (fd >= 0) {
		if (write(fd, "off", 3) != 3)
			say("# init: cannot switch fail_alloc off: %s", strerror(errno));
		close(fd);
	}
	if (kill(-1, SIGKILL) == 0)
		say("# init: killed the processes left behind");
	for (int waited = 0;; waited++) {
		pid_t pid = waitpid(-1, NULL, WNOHANG);
		if (pid > 0)
			continue;
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;		// ECHILD: none left
		if (waited >= 1000) {
			left = 1;	// still there after 10 s of SIGKILL
			say("# init: processes still alive 10 s after SIGKILL");
			break;
		}
		usleep(10000);
	}
	nftw("/tmp", remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	// POSIX shared memory and message queues outlive their makers as
	// files do; tests clean them up, so what is left is named.
	nftw("/dev/shm", remove_entry_loudly, 16, FTW_DEPTH | FTW_PHYS);
	nftw("/dev/mqueue", remove_entry_loudly, 16, FTW_DEPTH | FTW_PHYS);
	memstat_encode(base, snapshot, sizeof(snapshot));
	snprintf(code, sizeof(code), "%d", status);
	snprintf(left_text, sizeof(left_text), "%d", left);
	snprintf(started_text, sizeof(started_text), "%lld", run_started);
	char *args[] = { "/init", "--memory-final", code, left_text, snapshot, started_text,
			 NULL };
	execve("/init", args, environ);
	say("# init: cannot execute /init for the memory check: %s", strerror(errno));
}

// "/init --memory-final STATUS LEFT SNAPSHOT STARTED": the checks, then STATUS.
static int memory_final(char **argv, int argc, char **all_argv)
{
	struct memstat base = { 0 }, now;
	static char why[2048];
	int fresh;

	if (argc < 4) {
		say("# init: --memory-final needs STATUS LEFT SNAPSHOT STARTED");
		return 2;
	}
	int probe = memory_probe(all_argv, &now, &fresh);
	memstat_parse(&base, argv[2], ',', '=');
	say("# init: checks");
	say("KTAP version 1");
	say("1..3");
	if (fresh != -1 && WIFEXITED(fresh) && WEXITSTATUS(fresh) == 0)
		say("ok 1 fresh_program_runs");
	else
		say("not ok 1 fresh_program_runs # %s/%s: status %#x", tests_dir, FRESH_PROGRAM, fresh);
	if (atoi(argv[1]))
		say("not ok 2 processes_end_on_sigkill # some were alive 10 s after kill(-1, SIGKILL)");
	else
		say("ok 2 processes_end_on_sigkill");
	int differ = probe < 0 ? -1 : memstat_compare(&base, &now, why, sizeof(why));
	if (differ > 0)
		differ = memstat_settle(&base, &now, 5, why, sizeof(why));
	if (differ < 0 || base.n == 0)
		say("ok 3 memory_returned # SKIP no memory statistics (%s)", MEMSTAT_PATH);
	else if (differ == 0)
		say("ok 3 memory_returned");
	else {
		run_started = atoll(argv[3]);
		kmalloc_live_show();
		name_changed_files();
		if (changed_names[0])
			say("not ok 3 memory_returned # %s; files the run left: %s", why,
			    changed_names);
		else
			say("not ok 3 memory_returned # %s", why);
	}
	say("# init: memory now: pages_used %ld pages_pinned %ld (baseline %ld)",
	    memstat_get(&now, "pages_used"), memstat_get(&now, "pages_pinned"),
	    memstat_get(&base, "pages_pinned"));
	return atoi(argv[0]);
}

static int run_task(int argc, char **argv)
{
	// Linux hands init the kernel parameters it does not know (nokaslr,
	// which only its decompressor reads, for ./switchyard profile) before
	// the words after "--": they are not init's.
	while (argc > 0 && strncmp(argv[0], "--", 2) != 0) {
		say("# init: ignoring the kernel's word %s", argv[0]);
		argc--;
		argv++;
	}
	if (argc >= 2 && strcmp(argv[0], "--program-timeout") == 0) {
		program_timeout = atoi(argv[1]);
		argc -= 2;
		argv += 2;
	}
	if (argc < 1)
		return run_shell();
	if (strcmp(argv[0], "--tests") == 0)
		return run_tests(argv + 1, argc - 1);
	if (strcmp(argv[0], "--soak") == 0)
		return run_soak(argc - 1, argv + 1);
	if (strcmp(argv[0], "--bench") == 0)
		return run_benchmarks(argc - 1, argv + 1);
	if (strcmp(argv[0], "--run") == 0)
		return run_one(argc - 1, argv + 1);
	if (strcmp(argv[0], "--run-file") == 0 && argc >= 2)
		return run_file(argv[1]);
	if (strcmp(argv[0], "--exit") == 0)
		return 0;
	say("# init: unknown option %s", argv[0]);
	return 2;
}

int main(int argc, char **argv)
{
	struct memstat base;
	int fresh;

	tests_dir = env_or("SWITCHYARD_TESTS_DIR", tests_dir);
	// Before anything else that might allocate: the snapshot must see
	// the same init in the first and the fresh image.
	if (argc >= 2 && strcmp(argv[1], "--memory-final") == 0)
		return memory_final(argv + 2, argc - 2, argv);
	bool check_memory = argc >= 2 && strcmp(argv[1], "--check-memory") == 0;
	if (check_memory) {
		if (memory_probe(argv, &base, &fresh) < 0)
			say("# init: no memory statistics: %s", strerror(errno));
		if (fresh == -1 || !WIFEXITED(fresh) || WEXITSTATUS(fresh) != 0)
			say("# init: %s/%s did not run: status %#x", tests_dir, FRESH_PROGRAM, fresh);
		init_kmalloc_live_mark();
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		run_started = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
		argc--;
		argv++;
	}
	bench_dir = env_or("SWITCHYARD_BENCH_DIR", bench_dir);
	sysstat_path = env_or("SWITCHYARD_SYSSTAT", sysstat_path);
	busybox_path = env_or("SWITCHYARD_BUSYBOX", busybox_path);
	// Programs find busybox applets through PATH; the kernel may start
	// init with an empty environment.
	setenv("PATH", "/bin:/sbin:/usr/bin:/usr/sbin:/tools", 0);
	setenv("HOME", "/", 0);

	int status = run_task(argc - 1, argv + 1);
	if (check_memory)
		memory_final_exec(status, &base);
	return status;
}
