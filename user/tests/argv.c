// argv: arguments and environment reach a new program byte for byte, up
// to Linux's limits.  The program executes itself (/proc/self/exe) with
// "--child COUNT" followed by the vector to check; the child compares
// what it got with the same vector built again and exits 0 if it matches.
// Limits as Linux: one string of MAX_ARG_STRLEN (131072) bytes with its
// NUL is E2BIG, one byte less is not; all strings and their pointers
// beyond a quarter of RLIMIT_STACK are E2BIG; an empty argv arrives as
// one empty string.
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "testcase.h"

#define MAX_ARG_STRLEN	131072
#define BIG		120000

static const char *const odd[] = {
	"", "two\nlines\n", "'single' \"double\" `back` $dollar \\slash",
	"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x82", " leading and trailing ", "\t\r\x01\x7f\xff",
	"", "--child", "a=b",
};
#define NODD (int)(sizeof(odd) / sizeof(odd[0]))

// The vector of kind 'k' with n big strings: built the same way in the
// parent and the child.
static char *big_string(int i, size_t len)
{
	char *s = malloc(len + 1);
	if (!s)
		return NULL;
	for (size_t j = 0; j < len; j++)
		s[j] = (char)('a' + (i + j) % 26);
	s[len] = 0;
	return s;
}

// Execs itself with argv = self "--child" KIND ARGS... and envp; returns
// the child's wait status or 256 + execve's errno.
static int exec_self(char **args, int nargs, char **envp, struct rlimit *stack)
{
	pid_t pid = fork_child();
	if (pid == 0) {
		char **argv = calloc((size_t)nargs + 1, sizeof(char *));
		for (int i = 0; argv && i < nargs; i++)
			argv[i] = args[i];
		if (stack)
			setrlimit(RLIMIT_STACK, stack);
		execve("/proc/self/exe", argv, envp);
		_exit(100 + errno);
	}
	int status = reap(pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) >= 100)
		return 256 + WEXITSTATUS(status) - 100;
	return status;
}

static struct rlimit stack_8m = { 8 << 20, RLIM_INFINITY };

static void t_odd_bytes(void)
{
	char *args[3 + NODD];
	args[0] = "argv";
	args[1] = "--child";
	args[2] = "odd";
	for (int i = 0; i < NODD; i++)
		args[3 + i] = (char *)odd[i];
	char *envp[] = { "E1=multi\nline", "E2=", "=odd", "E3=caf\xc3\xa9", NULL };
	int st = exec_self(args, 3 + NODD, envp, &stack_8m);
	if (st != 0)
		fail("child status %#x", st);
}

// n strings of len bytes each.
static int exec_big(int n, size_t len, struct rlimit *stack)
{
	char **args = calloc((size_t)n + 4, sizeof(char *));
	char kind[64], lenarg[32];
	snprintf(kind, sizeof(kind), "big");
	snprintf(lenarg, sizeof(lenarg), "%zu", len);
	args[0] = "argv";
	args[1] = "--child";
	args[2] = kind;
	args[3] = lenarg;
	for (int i = 0; i < n; i++)
		args[4 + i] = big_string(i, len);
	char *envp[] = { NULL };
	int st = exec_self(args, 4 + n, envp, stack);
	for (int i = 0; i < n; i++)
		free(args[4 + i]);
	free(args);
	return st;
}

static void t_longest_string(void)
{
	int st = exec_big(1, MAX_ARG_STRLEN - 1, &stack_8m);
	if (st != 0)
		fail("%d-byte argument: status %#x", MAX_ARG_STRLEN - 1, st);
}

static void t_string_too_long(void)
{
	int st = exec_big(1, MAX_ARG_STRLEN, &stack_8m);
	if (st != 256 + E2BIG)
		fail("%d-byte argument: status %#x, want E2BIG", MAX_ARG_STRLEN, st);
}

static void t_total_under_limit(void)
{
	// 1.4 MB: under a quarter of 8 MiB.
	int st = exec_big(12, BIG, &stack_8m);
	if (st != 0)
		fail("12 x %d bytes: status %#x", BIG, st);
}

static void t_total_over_limit(void)
{
	// 2.4 MB: over a quarter of 8 MiB.
	int st = exec_big(20, BIG, &stack_8m);
	if (st != 256 + E2BIG)
		fail("20 x %d bytes: status %#x, want E2BIG", BIG, st);
}

static void t_limit_follows_rlimit_stack(void)
{
	// RLIMIT_STACK 1 MiB: at most 256 KiB of arguments.
	struct rlimit small = { 1 << 20, RLIM_INFINITY };
	int st = exec_big(3, BIG, &small);
	if (st != 256 + E2BIG)
		fail("3 x %d bytes under a 1 MiB stack: status %#x, want E2BIG", BIG, st);
	st = exec_big(2, BIG, &small);
	if (st != 0)
		fail("2 x %d bytes under a 1 MiB stack: status %#x", BIG, st);
}

static void t_many_strings(void)
{
	// 20000 one-byte strings: more than an old fixed table would hold.
	int st = exec_big(20000, 1, &stack_8m);
	if (st != 0)
		fail("20000 arguments: status %#x", st);
}

static void t_empty_argv(void)
{
	pid_t pid = fork_child();
	if (pid == 0) {
		char *argv[] = { NULL };
		char *envp[] = { "ARGV_EMPTY_CHECK=1", NULL };
		execve("/proc/self/exe", argv, envp);
		_exit(100 + errno);
	}
	check_exit_code(pid, 42, "empty argv: child sees argc 1, argv[0] \"\"");
}

static const struct test_case cases[] = {
	{ "odd_bytes_exact", t_odd_bytes },
	{ "longest_string", t_longest_string },
	{ "string_too_long_e2big", t_string_too_long },
	{ "total_under_limit", t_total_under_limit },
	{ "total_over_limit_e2big", t_total_over_limit },
	{ "limit_follows_rlimit_stack", t_limit_follows_rlimit_stack },
	{ "many_strings", t_many_strings },
	{ "empty_argv_gets_empty_string", t_empty_argv },
};

// ---- the child ----

static int child_odd(int argc, char **argv, char **envp)
{
	const char *want_env[] = { "E1=multi\nline", "E2=", "=odd", "E3=caf\xc3\xa9" };

	if (argc != 3 + NODD)
		return 1;
	for (int i = 0; i < NODD; i++)
		if (strcmp(argv[3 + i], odd[i]) != 0)
			return 10 + i;
	for (int i = 0; i < 4; i++)
		if (!envp[i] || strcmp(envp[i], want_env[i]) != 0)
			return 30 + i;
	return envp[4] ? 2 : 0;
}

static int child_big(int argc, char **argv)
{
	size_t len = strtoul(argv[3], NULL, 10);

	for (int i = 4; i < argc; i++) {
		char *want = big_string(i - 4, len);
		if (!want || strcmp(argv[i], want) != 0)
			return 3;
		free(want);
	}
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	if (getenv("ARGV_EMPTY_CHECK"))
		return argc == 1 && argv[0] && argv[0][0] == 0 && !argv[1] ? 42 : 1;
	if (argc >= 3 && strcmp(argv[1], "--child") == 0)
		return strcmp(argv[2], "odd") == 0 ? child_odd(argc, argv, envp)
						   : child_big(argc, argv);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
