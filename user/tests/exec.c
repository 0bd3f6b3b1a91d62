// exec: execve(2) of Switchyard's Linux ABI.  The program re-executes
// itself (through /proc/self/exe, as busybox does, or through its own path)
// with "--child MODE ..." to run a child mode that checks what it received
// and reports through its exit status: 0 when all is well, otherwise the
// number of the first check that failed.  Linux is the reference: every
// case passes there.
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"

extern char **environ;

// ---- helpers -------------------------------------------------------------------

static const char *self_path;		// argv[0] as this program was started
static char self_dir[PATH_MAX];		// the directory this program lives in

static int make_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, mode);
	size_t len = strlen(text);

	if (fd < 0)
		return fail("create %s: errno=%d", path, errno), -1;
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return fail("write %s: errno=%d", path, errno), -1;
	}
	close(fd);
	// Set the mode explicitly: the umask may have removed bits.
	chmod(path, mode);
	return 0;
}

// The environment every child gets, so child modes can compare against it.
static char *const child_env[] = { "SWITCHYARD_TEST=exec", "EMPTY=",
				   "SPACES=a b  c", NULL };

// Fork, then execve 'path' with argv "exec --child MODE args..." in the
// child.  Returns the child's pid.
static pid_t spawn_mode(const char *path, char *const *argv, char *const *envp)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		execve(path, argv, envp);
		_exit(126);
	}
	return pid;
}

static int run_mode(const char *path, char *const *argv, const char *what)
{
	return check_child_ok(spawn_mode(path, argv, child_env), what);
}

// A long argument exercises argument copying across page boundaries.
static char long_arg[6000];

static void init_long_arg(void)
{
	for (size_t i = 0; i < sizeof(long_arg) - 1; i++)
		long_arg[i] = 'a' + i % 26;
	long_arg[sizeof(long_arg) - 1] = 0;
}

// ---- child modes (run after exec) ----------------------------------------------

static int mode_exit(int argc, char **argv)
{
	return argc > 3 ? atoi(argv[3]) : 0;
}

// argv must arrive exactly as sent by t_argv_intact.
static int mode_argv(int argc, char **argv)
{
	if (argc != 8)
		return 1;
	if (strcmp(argv[3], "one") || strcmp(argv[4], "") ||
	    strcmp(argv[5], "with space") || strcmp(argv[6], "tab\there"))
		return 2;
	if (strcmp(argv[7], long_arg))
		return 3;
	if (argv[8] != NULL)
		return 4;
	return 0;
}

// The environment must be exactly child_env, in order.
static int mode_env(int argc, char **argv)
{
	int n = 0;

	(void)argc;
	(void)argv;
	while (environ[n])
		n++;
	if (n != 3)
		return 10 + n;
	for (int i = 0; i < 3; i++)
		if (strcmp(environ[i], child_env[i]))
			return 20 + i;
	if (strcmp(getenv("SPACES"), "a b  c"))
		return 30;
	return 0;
}

static int mode_no_env(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return environ[0] == NULL ? 0 : 1;
}

// argv[3]: descriptor that must be closed, argv[4]: one that must be open.
static int mode_fds(int argc, char **argv)
{
	if (argc != 5)
		return 1;
	if (fcntl(atoi(argv[3]), F_GETFD) != -1 || errno != EBADF)
		return 2;
	if (fcntl(atoi(argv[4]), F_GETFD) != 0)
		return 3;
	return 0;
}

// Block until the descriptor argv[3] reaches EOF, then exit 0.
static int mode_linger(int argc, char **argv)
{
	char c;

	if (argc != 4)
		return 1;
	while (read(atoi(argv[3]), &c, 1) > 0)
		;
	return 0;
}

// Write our pid into descriptor argv[3].
static int mode_pid(int argc, char **argv)
{
	pid_t me = getpid();

	if (argc != 4)
		return 1;
	return write(atoi(argv[3]), &me, sizeof(me)) == sizeof(me) ? 0 : 2;
}

// Caught signals reset to default across exec; ignored ones stay ignored;
// the blocked mask is inherited.
static int mode_signals(int argc, char **argv)
{
	struct sigaction sa;
	sigset_t mask;

	(void)argc;
	(void)argv;
	if (sigaction(SIGUSR1, NULL, &sa) < 0 || sa.sa_handler != SIG_DFL)
		return 1;
	if (sigaction(SIGUSR2, NULL, &sa) < 0 || sa.sa_handler != SIG_IGN)
		return 2;
	if (sigprocmask(SIG_BLOCK, NULL, &mask) < 0 || !sigismember(&mask, SIGHUP))
		return 3;
	return 0;
}

// AT_EXECFN must be the path given to execve: argv[3].
static int mode_execfn(int argc, char **argv)
{
	const char *fn = (const char *)getauxval(AT_EXECFN);

	if (argc != 4 || !fn)
		return 1;
	return strcmp(fn, argv[3]) ? 2 : 0;
}

static int run_child_mode(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int, char **);
	} modes[] = {
		{ "exit", mode_exit }, { "argv", mode_argv },
		{ "env", mode_env }, { "no-env", mode_no_env },
		{ "fds", mode_fds }, { "linger", mode_linger },
		{ "pid", mode_pid }, { "signals", mode_signals },
		{ "execfn", mode_execfn },
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(argv[2], modes[i].name))
			return modes[i].run(argc, argv);
	return 125;
}

// ---- cases ----------------------------------------------------------------------------

static void t_exec_proc_self_exe(void)
{
	char *argv[] = { "exec", "--child", "exit", "37", NULL };
	pid_t pid = spawn_mode("/proc/self/exe", argv, child_env);
	int status;

	if (pid < 0)
		return;
	status = reap(pid);
	if (status >= 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 37))
		fail_status("child mode exit 37 (126: execve failed)", status);
}

static void t_exec_own_path(void)
{
	char *argv[] = { (char *)self_path, "--child", "exit", "0", NULL };

	if (!strchr(self_path, '/')) {
		skip("argv[0] has no directory");
		return;
	}
	run_mode(self_path, argv, "execve(argv[0])");
}

static void t_argv_intact(void)
{
	char *argv[] = { "exec", "--child", "argv", "one", "", "with space",
			 "tab\there", long_arg, NULL };

	run_mode("/proc/self/exe", argv, "argv (1 count, 2 short, 3 long, 4 end)");
}

static void t_env_intact(void)
{
	char *argv[] = { "exec", "--child", "env", NULL };

	run_mode("/proc/self/exe", argv, "envp (1x count, 2x mismatch)");
}

static void t_empty_env(void)
{
	char *argv[] = { "exec", "--child", "no-env", NULL };
	char *empty[] = { NULL };

	check_child_ok(spawn_mode("/proc/self/exe", argv, empty), "empty envp");
}

static void t_exec_keeps_pid(void)
{
	int p[2];
	char fdarg[16];
	char *argv[] = { "exec", "--child", "pid", fdarg, NULL };
	pid_t pid, reported = 0;

	if (!check_ok(pipe(p), "pipe"))
		return;
	snprintf(fdarg, sizeof(fdarg), "%d", p[1]);
	pid = spawn_mode("/proc/self/exe", argv, child_env);
	close(p[1]);
	check(read(p[0], &reported, sizeof(reported)) == sizeof(reported),
	      "child reported its pid");
	close(p[0]);
	check(reported == pid, "pid unchanged by execve");
	check_child_ok(pid, "child");
}

static void t_enoent(void)
{
	char *argv[] = { "nothing", NULL };

	check_errno(execve("/nonexistent/program", argv, child_env), ENOENT,
		    "execve of a missing file");
	check_errno(execve(scratch("missing"), argv, child_env), ENOENT,
		    "execve of a missing file in an existing directory");
}

static void t_enoexec(void)
{
	const char *p = scratch("notelf");
	char *argv[] = { "notelf", NULL };

	if (make_file(p, "this is plain text, not a program\n", 0755) < 0)
		return;
	check_errno(execve(p, argv, child_env), ENOEXEC, "execve of a text file");
}

static void t_enoexec_bad_elf(void)
{
	const char *p = scratch("badelf");
	char *argv[] = { "badelf", NULL };

	// A valid ELF magic followed by nonsense: a 32-bit class header.
	if (make_file(p, "\177ELF\001\001\001\000garbage-garbage-garbage", 0755) < 0)
		return;
	check_errno(execve(p, argv, child_env), ENOEXEC, "execve of a broken ELF");
}

static void t_eacces(void)
{
	const char *p = scratch("noexec");
	char *argv[] = { "noexec", NULL };

	if (make_file(p, "\177ELF", 0644) < 0)
		return;
	check_errno(execve(p, argv, child_env), EACCES, "execve without x bits");
	check_errno(execve(scratch_dir, argv, child_env), EACCES,
		    "execve of a directory");
}

static void t_failed_exec_keeps_running(void)
{
	char *argv[] = { "x", NULL };
	int before = getpid();

	execve("/nonexistent", argv, child_env);
	check(getpid() == before, "same process after a failed execve");
	check(write(1, "", 0) == 0, "stdout still usable");
}

static void t_cloexec_closed(void)
{
	char closed_arg[16], open_arg[16];
	char *argv[] = { "exec", "--child", "fds", closed_arg, open_arg, NULL };
	int a = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int b = open("/dev/null", O_RDONLY);

	if (!check_ok(a, "open O_CLOEXEC") || !check_ok(b, "open"))
		return;
	snprintf(closed_arg, sizeof(closed_arg), "%d", a);
	snprintf(open_arg, sizeof(open_arg), "%d", b);
	run_mode("/proc/self/exe", argv,
		 "fds (2: O_CLOEXEC fd open, 3: plain fd closed)");
	close(a);
	close(b);
}

static void t_cloexec_fcntl_and_dup(void)
{
	char closed_arg[16], open_arg[16];
	char *argv[] = { "exec", "--child", "fds", closed_arg, open_arg, NULL };
	int a = open("/dev/null", O_RDONLY);
	int b = fcntl(a, F_DUPFD_CLOEXEC, 60);

	// 'a' gets FD_CLOEXEC via F_SETFD; 'b' is then dup2'd without it.
	fcntl(a, F_SETFD, FD_CLOEXEC);
	dup2(b, 61);
	snprintf(closed_arg, sizeof(closed_arg), "%d", b);
	snprintf(open_arg, sizeof(open_arg), "%d", 61);
	run_mode("/proc/self/exe", argv, "F_DUPFD_CLOEXEC fd closed, dup2 copy open");
	snprintf(closed_arg, sizeof(closed_arg), "%d", a);
	run_mode("/proc/self/exe", argv, "F_SETFD FD_CLOEXEC fd closed");
	close(a);
	close(b);
	close(61);
}

static void t_cloexec_pipe_eof(void)
{
	int cloexec_pipe[2], hold[2];
	char fdarg[16];
	char *argv[] = { "exec", "--child", "linger", fdarg, NULL };
	struct pollfd pfd;
	char c;
	pid_t pid;

	// The child must inherit only the read end of 'hold', so that it
	// sees EOF there when the parent closes the write end.
	if (!check_ok(pipe2(cloexec_pipe, O_CLOEXEC), "pipe2") ||
	    !check_ok(pipe2(hold, O_CLOEXEC), "pipe2"))
		return;
	fcntl(hold[0], F_SETFD, 0);
	snprintf(fdarg, sizeof(fdarg), "%d", hold[0]);
	pid = spawn_mode("/proc/self/exe", argv, child_env);
	close(cloexec_pipe[1]);
	close(hold[0]);
	// The exec'd child still runs (it waits on 'hold'), yet the pipe's
	// write end must be gone from it: EOF now.
	pfd = (struct pollfd){ .fd = cloexec_pipe[0], .events = POLLIN };
	check(poll(&pfd, 1, 5000) == 1, "read end ready");
	check(read(cloexec_pipe[0], &c, 1) == 0, "EOF while the exec'd child lives");
	check(waitpid(pid, NULL, WNOHANG) == 0, "child still running");
	close(hold[1]);
	close(cloexec_pipe[0]);
	check_child_ok(pid, "lingering child");
}

// A copy of this program in the scratch directory (mode 0755): a file of
// its own, whose writers and runners the ETXTBSY cases control.
static int copy_self(const char *to)
{
	char buf[65536];
	ssize_t n = -1;
	int in = open("/proc/self/exe", O_RDONLY);
	int out = open(to, O_CREAT | O_TRUNC | O_WRONLY, 0755);

	if (in < 0 || out < 0) {
		fail("copy self to %s: errno %d", to, errno);
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			fail("write %s: errno %d", to, errno);
			n = -1;
			break;
		}
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return in >= 0 && out >= 0 && n == 0 ? 0 : -1;
}

// execve of a file some descriptor has open for writing: ETXTBSY, as
// Linux 6.1 (deny_write_access); once the writer is gone it runs.
static void t_etxtbsy_exec_open_for_write(void)
{
	const char *p = scratch("busy-exec");
	char *argv[] = { "exec", "--child", "exit", "7", NULL };
	int status, w;
	pid_t pid;

	if (copy_self(p) < 0)
		return;
	w = open(p, O_WRONLY);
	if (!check_ok(w, "open the copy O_WRONLY"))
		return;
	pid = fork_child();
	if (pid == 0) {
		execve(p, argv, child_env);
		_exit(errno == ETXTBSY ? 0 : 100);
	}
	check(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "execve fails with ETXTBSY while a descriptor writes the file");
	close(w);
	pid = spawn_mode(p, argv, child_env);
	check(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 7,
	      "runs once the writer closed it");
	unlink(p);
}

// A program being run cannot be opened for writing or truncated
// (ETXTBSY, nothing truncated); reading it is fine; once it has exited
// it can be written again.
static void t_etxtbsy_write_running_program(void)
{
	const char *p = scratch("busy-run");
	int exec_done[2], hold[2];
	char fdarg[16];
	char *argv[] = { "exec", "--child", "linger", fdarg, NULL };
	struct stat before, after;
	char c;
	int fd;
	pid_t pid;

	if (copy_self(p) < 0 || stat(p, &before) < 0)
		return;
	if (!check_ok(pipe2(exec_done, O_CLOEXEC), "pipe2") ||
	    !check_ok(pipe2(hold, O_CLOEXEC), "pipe2"))
		return;
	fcntl(hold[0], F_SETFD, 0);
	snprintf(fdarg, sizeof(fdarg), "%d", hold[0]);
	pid = spawn_mode(p, argv, child_env);
	close(exec_done[1]);
	close(hold[0]);
	// EOF on the close-on-exec pipe: the child runs the copy now.
	check(read(exec_done[0], &c, 1) == 0, "the child has exec'd the copy");
	close(exec_done[0]);
	check_errno(open(p, O_WRONLY), ETXTBSY, "open O_WRONLY of a running program");
	check_errno(open(p, O_RDWR), ETXTBSY, "open O_RDWR of a running program");
	check_errno(open(p, O_WRONLY | O_TRUNC), ETXTBSY, "open O_WRONLY|O_TRUNC of a running program");
	check_errno(truncate(p, 0), ETXTBSY, "truncate of a running program");
	check(stat(p, &after) == 0 && after.st_size == before.st_size, "the program is not truncated");
	fd = open(p, O_RDONLY);
	check(fd >= 0, "open O_RDONLY of a running program works");
	if (fd >= 0)
		close(fd);
	close(hold[1]);
	check_child_ok(pid, "the running copy");
	fd = open(p, O_WRONLY);
	check(fd >= 0, "open O_WRONLY works once the program has exited");
	if (fd >= 0)
		close(fd);
	unlink(p);
}

static void ignore_signal(int sig)
{
	(void)sig;
}

static void t_signals_across_exec(void)
{
	char *argv[] = { "exec", "--child", "signals", NULL };
	pid_t pid = fork_child();

	if (pid == 0) {
		struct sigaction sa;
		sigset_t mask;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = ignore_signal;
		sigaction(SIGUSR1, &sa, NULL);
		signal(SIGUSR2, SIG_IGN);
		sigemptyset(&mask);
		sigaddset(&mask, SIGHUP);
		sigprocmask(SIG_BLOCK, &mask, NULL);
		execve("/proc/self/exe", argv, child_env);
		_exit(126);
	}
	check_child_ok(pid, "1: handler kept, 2: ignore lost, 3: mask lost");
}

static void t_vfork_exec(void)
{
	char *argv[] = { "exec", "--child", "exit", "0", NULL };
	pid_t pid = vfork();

	if (pid == 0) {
		execve("/proc/self/exe", argv, child_env);
		_exit(126);
	}
	if (!check_ok(pid, "vfork"))
		return;
	check_child_ok(pid, "vfork + execve");
}

static void t_posix_spawn(void)
{
	char *argv[] = { "exec", "--child", "exit", "5", NULL };
	pid_t pid;
	int status = 0;
	int rc = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, child_env);

	if (rc != 0) {
		fail("posix_spawn: %d", rc);
		return;
	}
	status = reap(pid);
	if (status >= 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 5))
		fail_status("spawned child exit 5", status);
	// A failed exec is reported by posix_spawn itself.
	check(posix_spawn(&pid, "/nonexistent", NULL, NULL, argv, child_env) == ENOENT,
	      "posix_spawn of a missing file gives ENOENT");
}

static void t_execfn(void)
{
	char *argv[] = { "exec", "--child", "execfn", "/proc/self/exe", NULL };

	run_mode("/proc/self/exe", argv, "AT_EXECFN (1 missing, 2 mismatch)");
}

// Exec a sibling program with stdout on a pipe and check its first line.
static void run_hello(const char *name)
{
	char path[PATH_MAX + 32], out[256] = { 0 };
	char *argv[] = { (char *)name, "arg1", NULL };
	int p[2];
	ssize_t n, got = 0;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", self_dir, name);
	if (access(path, X_OK) < 0) {
		skip("program not installed next to this one");
		return;
	}
	if (!check_ok(pipe(p), "pipe"))
		return;
	pid = fork_child();
	if (pid == 0) {
		dup2(p[1], 1);
		execve(path, argv, child_env);
		_exit(126);
	}
	close(p[1]);
	while (got < (ssize_t)sizeof(out) - 1 &&
	       (n = read(p[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += n;
	close(p[0]);
	check(!strncmp(out, "hello from switchyard\n", 22), "greeting printed");
	check(strstr(out, "arg1") != NULL, "argument echoed");
	check_child_ok(pid, name);
}

static void t_exec_hello_musl(void)
{
	run_hello("hello");
}

static void t_exec_hello_glibc(void)
{
	run_hello("hello-glibc");
}

static void t_exec_hello_static_pie(void)
{
	run_hello("hello-pie");
}

// ---- auxiliary vector ------------------------------------------------------------------------

static void t_auxv_pagesz(void)
{
	check(getauxval(AT_PAGESZ) == 4096, "AT_PAGESZ is 4096");
	check(sysconf(_SC_PAGESIZE) == 4096, "sysconf agrees");
}

static void t_auxv_random(void)
{
	const unsigned char *r = (const unsigned char *)getauxval(AT_RANDOM);
	int nonzero = 0;

	if (!check(r != NULL, "AT_RANDOM present"))
		return;
	for (int i = 0; i < 16; i++)
		nonzero |= r[i];
	check(nonzero, "16 bytes, not all zero");
}

static void t_auxv_phdr(void)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)getauxval(AT_PHDR);
	unsigned long phnum = getauxval(AT_PHNUM);
	unsigned long entry = getauxval(AT_ENTRY);
	unsigned long bias = 0;
	int loads = 0, entry_ok = 0;

	if (!check(ph != NULL, "AT_PHDR present"))
		return;
	check(getauxval(AT_PHENT) == sizeof(Elf64_Phdr), "AT_PHENT is 56");
	if (!check(phnum > 0 && phnum < 64, "AT_PHNUM sane"))
		return;
	for (unsigned long i = 0; i < phnum; i++)
		if (ph[i].p_type == PT_PHDR)
			bias = (unsigned long)ph - ph[i].p_vaddr;
	for (unsigned long i = 0; i < phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		loads++;
		if ((ph[i].p_flags & PF_X) && entry >= bias + ph[i].p_vaddr &&
		    entry < bias + ph[i].p_vaddr + ph[i].p_memsz)
			entry_ok = 1;
	}
	check(loads > 0, "program headers include PT_LOAD");
	check(entry_ok, "AT_ENTRY inside an executable PT_LOAD segment");
}

static void t_auxv_ids(void)
{
	check(getauxval(AT_UID) == 0 && getauxval(AT_EUID) == 0, "AT_UID/AT_EUID 0");
	check(getauxval(AT_GID) == 0 && getauxval(AT_EGID) == 0, "AT_GID/AT_EGID 0");
	check(getauxval(AT_SECURE) == 0, "AT_SECURE 0");
	check(getauxval(AT_HWCAP) != 0, "AT_HWCAP non-zero");
}

static const struct test_case cases[] = {
	{ "exec_proc_self_exe", t_exec_proc_self_exe },
	{ "exec_own_path", t_exec_own_path },
	{ "argv_intact", t_argv_intact },
	{ "envp_intact", t_env_intact },
	{ "empty_envp", t_empty_env },
	{ "exec_keeps_pid", t_exec_keeps_pid },
	{ "exec_missing_enoent", t_enoent },
	{ "exec_text_file_enoexec", t_enoexec },
	{ "exec_broken_elf_enoexec", t_enoexec_bad_elf },
	{ "exec_not_executable_eacces", t_eacces },
	{ "failed_exec_keeps_running", t_failed_exec_keeps_running },
	{ "cloexec_closed_across_exec", t_cloexec_closed },
	{ "cloexec_fcntl_and_dup", t_cloexec_fcntl_and_dup },
	{ "cloexec_pipe_eof", t_cloexec_pipe_eof },
	{ "etxtbsy_exec_open_for_write", t_etxtbsy_exec_open_for_write },
	{ "etxtbsy_write_running_program", t_etxtbsy_write_running_program },
	{ "signals_across_exec", t_signals_across_exec },
	{ "vfork_exec", t_vfork_exec },
	{ "posix_spawn", t_posix_spawn },
	{ "auxv_execfn", t_execfn },
	{ "exec_hello_musl", t_exec_hello_musl },
	{ "exec_hello_glibc", t_exec_hello_glibc },
	{ "exec_hello_static_pie", t_exec_hello_static_pie },
	{ "auxv_pagesz", t_auxv_pagesz },
	{ "auxv_random", t_auxv_random },
	{ "auxv_phdr_entry", t_auxv_phdr },
	{ "auxv_ids_hwcap", t_auxv_ids },
};

// Find the directory this program lives in, for its sibling programs.
static void find_self_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n;
	char *slash;

	if (strchr(self_path, '/')) {
		snprintf(self_dir, sizeof(self_dir), "%s", self_path);
	} else {
		n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
		buf[n > 0 ? n : 0] = 0;
		snprintf(self_dir, sizeof(self_dir), "%s", buf);
	}
	slash = strrchr(self_dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(self_dir, sizeof(self_dir), ".");
}

int main(int argc, char **argv)
{
	init_long_arg();
	if (argc >= 3 && !strcmp(argv[1], "--child"))
		return run_child_mode(argc, argv);
	self_path = argv[0];
	find_self_dir();
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/exec-%d", (int)getpid());
	if (mkdir(scratch_dir, 0755) < 0)
		ktap_diag("cannot create %s: errno %d", scratch_dir, errno);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	unlink(scratch("notelf"));
	unlink(scratch("badelf"));
	unlink(scratch("noexec"));
	rmdir(scratch_dir);
	return ktap_finish();
}
