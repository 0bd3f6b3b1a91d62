// dynexec: dynamically linked executables.  Runs ../dyn/dynhello (built
// with the host's gcc and glibc, started through its interpreter; it
// checks its auxv and dlopens ../dyn/libdynplug.so), then copies of it
// whose PT_INTERP names a missing file, a text file, a file without an
// execute bit, a directory, or is not NUL-terminated: ENOENT, ELIBBAD (EIO
// for a file shorter than an ELF header), EACCES, EACCES and ENOEXEC, as
// Linux.
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "testcase.h"

static char dyn_dir[PATH_MAX - 64];

static const char *dyn(const char *name)
{
	static char ring[4][PATH_MAX];
	static int next;
	char *p = ring[next++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", dyn_dir, name);
	return p;
}

static int have_helper(void)
{
	if (access(dyn("dynhello"), X_OK) == 0)
		return 1;
	skip("no dyn/dynhello next to the tests (host gcc missing at build time)");
	return 0;
}

// Runs argv[0] with stdout into buf; returns the wait status, or 256 +
// errno if execve failed.
static int run(char *const argv[], char *buf, size_t len)
{
	int fds[2];

	if (pipe(fds) < 0)
		return -1;
	pid_t pid = fork_child();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execv(argv[0], argv);
		_exit(100 + errno);
	}
	close(fds[1]);
	size_t got = 0;
	ssize_t n;
	while (got + 1 < len && (n = read(fds[0], buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = 0;
	close(fds[0]);
	int status = reap(pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) >= 100)
		return 256 + WEXITSTATUS(status) - 100;
	return status;
}

static void t_runs_dynamic(void)
{
	char out[128];

	if (!have_helper())
		return;
	char *argv[] = { (char *)dyn("dynhello"), (char *)dyn("libdynplug.so"), "x", NULL };
	int st = run(argv, out, sizeof(out));
	if (st != 0) {
		fail("dynhello: status %#x (exit codes are named in dyn/dynhello.c)", st);
		return;
	}
	check(strcmp(out, "dynhello ok 3\n") == 0, "dynhello's output");
}

// Copies dynhello to 'to' with its PT_INTERP string replaced by 'interp'
// (NUL-padded), or, with interp NULL, filled without a NUL.
static int patched_copy(const char *to, const char *interp)
{
	int in = open(dyn("dynhello"), O_RDONLY);
	struct stat st;
	if (in < 0 || fstat(in, &st) < 0)
		return fail("open dynhello: errno %d", errno);
	unsigned char *img = malloc((size_t)st.st_size);
	if (!img || read(in, img, (size_t)st.st_size) != st.st_size) {
		close(in);
		free(img);
		return fail("read dynhello");
	}
	close(in);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	int done = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (Elf64_Phdr *)(img + eh->e_phoff + (size_t)i * eh->e_phentsize);
		if (ph->p_type != PT_INTERP)
			continue;
		char *s = (char *)img + ph->p_offset;
		if (interp && strlen(interp) + 1 > ph->p_filesz) {
			free(img);
			return fail("interpreter path %s too long to patch in", interp);
		}
		memset(s, interp ? 0 : 'x', ph->p_filesz);
		if (interp)
			memcpy(s, interp, strlen(interp));
		done = 1;
		break;
	}
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	int ok = out >= 0 && write(out, img, (size_t)st.st_size) == st.st_size;
	if (out >= 0)
		close(out);
	free(img);
	if (!done)
		return fail("dynhello has no PT_INTERP");
	return ok ? 1 : fail("write %s: errno %d", to, errno);
}

static void exec_fails(const char *interp, int want, const char *what)
{
	char out[64];

	if (!have_helper() || !patched_copy(scratch("prog"), interp))
		return;
	char *argv[] = { (char *)scratch("prog"), (char *)dyn("libdynplug.so"), NULL };
	int st = run(argv, out, sizeof(out));
	if (st != 256 + want)
		fail("%s: status %#x, want execve errno %d", what, st, want);
	unlink(scratch("prog"));
}

static void t_missing_interp(void)
{
	exec_fails("/nonexistent/ld.so", ENOENT, "missing interpreter");
}

// A text file as interpreter: ELIBBAD, or EIO if it is shorter than an
// ELF header (Linux's read of the header comes up short).
static void interp_text(size_t len, int want)
{
	char text[100];
	memset(text, '#', sizeof(text));
	int fd = open(scratch("i"), O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		fail("make the text interpreter");
		return;
	}
	close(fd);
	exec_fails(scratch("i"), want, "text file as interpreter");
	unlink(scratch("i"));
}

static void t_interp_not_elf(void)
{
	interp_text(100, ELIBBAD);
}

static void t_interp_short(void)
{
	interp_text(20, EIO);
}

static void t_interp_not_executable(void)
{
	// A copy of a real ELF, so only the missing x bit is wrong.
	if (!have_helper() || !patched_copy(scratch("i"), "/nonexistent"))
		return;
	chmod(scratch("i"), 0644);
	exec_fails(scratch("i"), EACCES, "interpreter without x bit");
	unlink(scratch("i"));
}

static void t_interp_directory(void)
{
	exec_fails("/tmp", EACCES, "directory as interpreter");
}

static void t_interp_unterminated(void)
{
	exec_fails(NULL, ENOEXEC, "PT_INTERP without a NUL");
}

static const struct test_case cases[] = {
	{ "dynamic_program_runs_and_dlopens", t_runs_dynamic },
	{ "missing_interpreter_enoent", t_missing_interp },
	{ "interpreter_not_elf_elibbad", t_interp_not_elf },
	{ "interpreter_shorter_than_header_eio", t_interp_short },
	{ "interpreter_not_executable_eacces", t_interp_not_executable },
	{ "interpreter_directory_eacces", t_interp_directory },
	{ "interpreter_unterminated_enoexec", t_interp_unterminated },
};

int main(void)
{
	char self[PATH_MAX - 128];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	self[n > 0 ? n : 0] = 0;
	char *slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	snprintf(dyn_dir, sizeof(dyn_dir), "%s/../dyn", self);
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/dynexec-%d", (int)getpid());
	if (mkdir(scratch_dir, 0755) < 0)
		ktap_diag("cannot create %s: errno %d", scratch_dir, errno);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
