// init: PID 1 of Switchyard.
//
// The host runner chooses what a boot is for through init's arguments
// (the words after "--" on the kernel command line):
//
//	--tests [NAME...]	run the test programs in /tests (all, or the
//				named ones), then the shell scripts there
//	--bench [--ncpu N] [--mech LIST] [--seconds S] [--no-pipebench]
//	        [--no-mbbench]	run the benchmark matrix and let each program
//				print its RESULT lines
//	--run PROGRAM ARGS...	run one program; exit with its status
//	--exit			exit at once (boots that only test the kernel)
//	(nothing)		print a banner and run /bin/sh
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

// Start argv[0] in a child process.  Returns the child's pid or -1.
static pid_t start_program(char *const argv[])
{
	pid_t pid = fork();

	if (pid < 0) {
		say("# init: fork for %s failed: %s", argv[0], strerror(errno));
		return -1;
	}
	if (pid == 0) {
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
	status = run_and_wait(argv);
	report_status(name, status);
}

// --tests: every executable in the tests directory in sorted order, then
// every shell script there (through busybox, so no #! support is needed).
static int run_tests(char **only, int nonly)
{
	char *names[MAX_PROGRAMS];
	int n = find_programs(tests_dir, names, MAX_PROGRAMS);
	char path[256];

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

// The benchmark matrix.  Every context-switch mechanism in both thread and
// process mode, on one CPU and across two, with the partners using no
// vector registers, SSE or AVX once at the start (the seed's case: a
// thread that used the facility once), or SSE or AVX every round.  Each
// run prints its own RESULT line; the kernel's facility policy is chosen
// on the kernel command line (./switchyard bench --policy).
static const char *const ctxsw_mechs[] = { "pipe", "futex", "yield" };
static const char *const ctxsw_modes[] = { "thread", "process" };
static const char *const ctxsw_cpus[] = { "0,0", "0,1" };
static const struct { const char *vec; bool once; } ctxsw_vecs[] = {
	{ "none", false }, { "sse", true }, { "sse", false }, { "avx", true }, { "avx", false },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

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
}

// How many CPUs to plan for: the runner's hint, else what the kernel says.
static int count_cpus(int hint)
{
	long n;

	if (hint > 0)
		return hint;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
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
		run_bench(args);
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
		run_bench(args);
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
	report_status("mbbench", run_and_wait(args));
}

// --bench [--ncpu N] [--mech LIST] [--seconds S] [--no-pipebench] [--no-mbbench]
static int run_benchmarks(int argc, char **argv)
{
	int hint = 0;
	const char *mechs = NULL, *seconds = "2";
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
		else
			say("# init: --bench: ignoring %s", argv[i]);
	}
	int ncpu = count_cpus(hint);
	say("# init: benchmarks on %d CPU%s", ncpu, ncpu == 1 ? "" : "s");
	run_ctxsw_matrix(ncpu, mechs, seconds);
	if (pipebench)
		run_pipebench(ncpu);
	if (mbbench)
		run_mbbench(ncpu);
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
	status = run_and_wait(args);
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
	return shell_status(run_and_wait(args));
}

int main(int argc, char **argv)
{
	tests_dir = env_or("SWITCHYARD_TESTS_DIR", tests_dir);
	bench_dir = env_or("SWITCHYARD_BENCH_DIR", bench_dir);
	sysstat_path = env_or("SWITCHYARD_SYSSTAT", sysstat_path);
	busybox_path = env_or("SWITCHYARD_BUSYBOX", busybox_path);
	// Programs find busybox applets through PATH; the kernel may start
	// init with an empty environment.
	setenv("PATH", "/bin:/tools", 0);
	setenv("HOME", "/", 0);

	if (argc < 2)
		return run_shell();
	if (strcmp(argv[1], "--tests") == 0)
		return run_tests(argv + 2, argc - 2);
	if (strcmp(argv[1], "--bench") == 0)
		return run_benchmarks(argc - 2, argv + 2);
	if (strcmp(argv[1], "--run") == 0)
		return run_one(argc - 2, argv + 2);
	if (strcmp(argv[1], "--exit") == 0)
		return 0;
	say("# init: unknown option %s", argv[1]);
	return 2;
}
