// Host tests of kernel/proc/exec_stack.c, the builder of a new program's
// initial stack.  Each built stack is read back from *sp the way a libc's
// start code reads it, and every pointer is checked to land inside the
// buffer on the right bytes.  The layout is also compared with what the
// host Linux gives a real static program (run without address
// randomization), down to the byte.
#define _DEFAULT_SOURCE		// mkdtemp, popen
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proc/exec_stack.h>
#include <uapi/auxv.h>
#include <uapi/errno.h>

#include "ktap.h"

static const uint8_t random_bytes[16] = {
	0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
};

// A stack under test: the buffer stands for [top - size, top).
struct stack {
	uint8_t *buf;
	size_t size;
	uint64_t top;
	uint64_t sp;
};

static bool in_range(const struct stack *s, uint64_t addr, uint64_t len)
{
	uint64_t base = s->top - s->size;
	return addr >= base && addr <= s->top && len <= s->top - addr;
}

static uint64_t word_at(const struct stack *s, uint64_t addr)
{
	uint64_t v = 0;

	if (in_range(s, addr, 8))
		memcpy(&v, s->buf + (addr - (s->top - s->size)), 8);
	return v;
}

// The string at 'addr', if it lies wholly in the stack, else NULL.
static const char *string_at(const struct stack *s, uint64_t addr)
{
	if (!in_range(s, addr, 1))
		return NULL;
	const char *p = (const char *)s->buf + (addr - (s->top - s->size));
	if (memchr(p, 0, s->top - addr) == NULL)
		return NULL;
	return p;
}

static bool fail(const char *why)
{
	printf("# %s\n", why);
	return false;
}

static bool same_u64(const char *what, uint64_t got, uint64_t want)
{
	if (got != want)
		printf("# %s: builder %#llx, Linux %#llx\n", what,
		       (unsigned long long)got, (unsigned long long)want);
	return got == want;
}

// Builds a stack for 'a' in a buffer of exactly 'size' bytes (so ASan
// sees any write outside it) filled with 0xa5 to show untouched bytes.
static int build(const struct exec_stack_args *a, size_t size, uint64_t top,
		 struct stack *s)
{
	s->buf = malloc(size ? size : 1);
	s->size = size;
	s->top = top;
	s->sp = 0;
	memset(s->buf, 0xa5, size);
	return exec_stack_build(s->buf, size, top, a, &s->sp);
}

// Reads the stack back as libc start code does and checks everything the
// builder promises.
static bool parse_back(const struct stack *s, const struct exec_stack_args *a)
{
	uint64_t p = s->sp;

	if (p % 16 != 0)
		return fail("sp is not 16-byte aligned");
	if (!in_range(s, p, 8))
		return fail("sp outside the buffer");
	for (uint64_t q = s->top - s->size; q < s->sp; q++)
		if (s->buf[q - (s->top - s->size)] != 0xa5)
			return fail("a byte below sp was written");
	if (word_at(s, p) != (uint64_t)a->argc)
		return fail("argc");
	p += 8;

	// argv then envp: pointers to equal strings, laid out contiguously
	// in memory in this order, each followed by a NULL pointer.
	uint64_t next_string = 0;
	for (int pass = 0; pass < 2; pass++) {
		const char *const *v = pass == 0 ? a->argv : a->envp;
		int n = pass == 0 ? a->argc : a->envc;
		for (int i = 0; i < n; i++, p += 8) {
			uint64_t addr = word_at(s, p);
			const char *str = string_at(s, addr);
			if (str == NULL || strcmp(str, v[i]) != 0)
				return fail(pass ? "envp string" : "argv string");
			if (next_string != 0 && addr != next_string)
				return fail("strings are not contiguous");
			next_string = addr + strlen(str) + 1;
		}
		if (!in_range(s, p, 8) || word_at(s, p) != 0)
			return fail(pass ? "envp NULL" : "argv NULL");
		p += 8;
	}

	// The auxiliary vector: the caller's pairs in order, then AT_RANDOM,
	// AT_EXECFN (if any), AT_PLATFORM, AT_NULL.
	for (int i = 0; i < a->nauxv; i++, p += 16)
		if (word_at(s, p) != a->auxv[i][0] ||
		    word_at(s, p + 8) != a->auxv[i][1])
			return fail("caller auxv pair");
	if (word_at(s, p) != AT_RANDOM)
		return fail("AT_RANDOM missing");
	uint64_t random_addr = word_at(s, p + 8);
	if (!in_range(s, random_addr, 16) ||
	    memcmp(s->buf + (random_addr - (s->top - s->size)), a->random16,
		   16) != 0)
		return fail("AT_RANDOM bytes");
	p += 16;
	if (a->execfn != NULL) {
		const char *fn = string_at(s, word_at(s, p + 8));
		if (word_at(s, p) != AT_EXECFN || fn == NULL ||
		    strcmp(fn, a->execfn) != 0)
			return fail("AT_EXECFN");
		if (next_string != 0 && word_at(s, p + 8) != next_string)
			return fail("execfn does not follow the strings");
		if (word_at(s, p + 8) + strlen(fn) + 1 + 8 != s->top)
			return fail("execfn is not right below the top word");
		p += 16;
	}
	const char *platform = string_at(s, word_at(s, p + 8));
	if (word_at(s, p) != AT_PLATFORM || platform == NULL ||
	    strcmp(platform, "x86_64") != 0)
		return fail("AT_PLATFORM");
	if (word_at(s, p + 8) != random_addr + 16)
		return fail("platform string does not follow the random bytes");
	p += 16;
	if (word_at(s, p) != AT_NULL || word_at(s, p + 8) != 0)
		return fail("AT_NULL");
	if (p + 16 > random_addr)
		return fail("auxv overlaps the random bytes");
	if (word_at(s, s->top - 8) != 0)
		return fail("top word is not zero");
	return true;
}

static void init_args(struct exec_stack_args *a, const char *const *argv,
		      int argc, const char *const *envp, int envc)
{
	memset(a, 0, sizeof(*a));
	a->argv = argv;
	a->argc = argc;
	a->envp = envp;
	a->envc = envc;
	a->execfn = argc > 0 ? argv[0] : "/bin/prog";
	a->random16 = random_bytes;
	static const uint64_t pairs[][2] = {
		{ AT_PHDR, 0x400040 }, { AT_PHENT, 56 }, { AT_PHNUM, 9 },
		{ AT_PAGESZ, 4096 }, { AT_ENTRY, 0x401000 }, { AT_BASE, 0 },
		{ AT_FLAGS, 0 }, { AT_UID, 0 }, { AT_EUID, 0 }, { AT_GID, 0 },
		{ AT_EGID, 0 }, { AT_SECURE, 0 }, { AT_HWCAP, 0x178bfbff },
		{ AT_HWCAP2, 2 }, { AT_CLKTCK, 100 }, { AT_MINSIGSTKSZ, 0x6f0 },
	};
	a->nauxv = (int)(sizeof(pairs) / sizeof(pairs[0]));
	memcpy(a->auxv, pairs, sizeof(pairs));
}

#define TOP	0x00007ffffffff000ULL

// Builds and parses back; 'name' is the KTAP description.
static void check_layout(const char *name, const struct exec_stack_args *a,
			 size_t size, uint64_t top)
{
	struct stack s;
	int r = build(a, size, top, &s);

	if (r != 0)
		printf("# exec_stack_build returned %d\n", r);
	ktap_ok(r == 0 && parse_back(&s, a), name);
	free(s.buf);
}

static void test_layouts(void)
{
	struct exec_stack_args a;
	static const char *const argv1[] = { "/bin/sh", "-c", "echo hi" };
	static const char *const envp1[] = { "PATH=/bin", "HOME=/", "TERM=vt100" };

	init_args(&a, argv1, 3, envp1, 3);
	check_layout("three args, three variables", &a, 8192, TOP);

	init_args(&a, NULL, 0, envp1, 3);
	check_layout("empty argv", &a, 8192, TOP);

	init_args(&a, argv1, 3, NULL, 0);
	check_layout("empty envp", &a, 8192, TOP);

	init_args(&a, NULL, 0, NULL, 0);
	a.nauxv = 0;
	check_layout("nothing at all: only the builder's auxv", &a, 4096, TOP);

	init_args(&a, argv1, 3, envp1, 3);
	a.execfn = NULL;
	check_layout("no execfn: no AT_EXECFN", &a, 8192, TOP);

	// Odd and even counts, with tops of every alignment, shift the
	// padding around.
	bool ok = true;
	for (int argc = 0; argc <= 3; argc++)
		for (int envc = 0; envc <= 3; envc++)
			for (uint64_t t = 0; t < 16; t++) {
				struct stack s;
				init_args(&a, argv1, argc, envp1, envc);
				a.nauxv = (argc + envc + (int)t) % 17;
				ok &= build(&a, 4096, TOP - t, &s) == 0 &&
				      parse_back(&s, &a);
				free(s.buf);
			}
	ktap_ok(ok, "every parity of counts and alignment of top");
}

static void test_many_and_long(void)
{
	enum { MANY = 5000 };
	static char strings[MANY][24];
	static const char *ptrs[MANY];
	struct exec_stack_args a;

	for (int i = 0; i < MANY; i++) {
		snprintf(strings[i], sizeof(strings[i]), "arg-%d", i);
		ptrs[i] = strings[i];
	}
	init_args(&a, ptrs, MANY, ptrs, MANY / 2);
	check_layout("5000 args and 2500 variables", &a, 256 * 1024, TOP);

	// 100 KiB strings, and an empty one between them.
	size_t len = 100 * 1024;
	char *big = malloc(len + 1);
	memset(big, 'x', len);
	big[len] = 0;
	const char *argv[] = { big, "", big };
	const char *envp[] = { "", big };
	init_args(&a, argv, 3, envp, 2);
	a.execfn = big;
	check_layout("100 KiB strings and empty strings", &a, 1024 * 1024, TOP);
	free(big);
}

// The smallest size that fits must be exact: one byte less is -E2BIG.
static void test_too_small(void)
{
	static const char *const argv1[] = { "/bin/true", "a", "bc" };
	static const char *const envp1[] = { "X=1" };
	struct exec_stack_args a;
	struct stack s;
	size_t fit = 0;

	init_args(&a, argv1, 3, envp1, 1);
	for (size_t size = 4096; size > 0; size--) {
		int r = build(&a, size, TOP, &s);
		free(s.buf);
		if (r != 0)
			break;
		fit = size;
	}
	bool ok = fit > 0;
	ok &= build(&a, fit, TOP, &s) == 0 && parse_back(&s, &a) &&
	      s.sp == TOP - fit;
	free(s.buf);
	for (size_t size = 0; size < fit; size++) {
		ok &= build(&a, size, TOP, &s) == -E2BIG;
		free(s.buf);
	}
	printf("# smallest stack: %zu bytes\n", fit);
	ktap_ok(ok, "E2BIG for every size below the smallest that fits");

	// A single huge string alone overflows the buffer.
	char *big = malloc(70000);
	memset(big, 'y', 69999);
	big[69999] = 0;
	const char *argv2[] = { big };
	init_args(&a, argv2, 1, NULL, 0);
	ok = build(&a, 65536, TOP, &s) == -E2BIG;
	free(s.buf);
	ktap_ok(ok, "E2BIG for a string larger than the buffer");
	free(big);
}

static void test_invalid(void)
{
	static const char *const argv1[] = { "a", NULL };
	struct exec_stack_args a;
	struct stack s;
	bool ok = true;

	init_args(&a, argv1, 1, NULL, 0);
	a.argc = -1;
	ok &= build(&a, 4096, TOP, &s) == -EINVAL;
	free(s.buf);
	init_args(&a, argv1, 2, NULL, 0);	// argv[1] is NULL
	ok &= build(&a, 4096, TOP, &s) == -EINVAL;
	free(s.buf);
	init_args(&a, argv1, 1, NULL, 1);	// envp NULL with envc 1
	ok &= build(&a, 4096, TOP, &s) == -EINVAL;
	free(s.buf);
	init_args(&a, argv1, 1, NULL, 0);
	a.nauxv = 33;
	ok &= build(&a, 4096, TOP, &s) == -EINVAL;
	free(s.buf);
	init_args(&a, argv1, 1, NULL, 0);
	a.random16 = NULL;
	ok &= build(&a, 4096, TOP, &s) == -EINVAL;
	free(s.buf);
	init_args(&a, argv1, 1, NULL, 0);
	ok &= build(&a, 4096, 4000, &s) == -EINVAL;	// below address 0
	free(s.buf);
	ktap_ok(ok, "EINVAL for malformed arguments");
}

// ---- Comparison with Linux -------------------------------------------------

// Prints the program's own entry stack: sp and argc, each argv and envp
// pointer, and the auxv pairs.
static const char dumper[] =
	"#include <stdio.h>\n"
	"int main(int argc, char **argv, char **envp) {\n"
	"	unsigned long *sp = (unsigned long *)argv - 1;\n"
	"	printf(\"sp %lx %lu\\n\", (unsigned long)sp, sp[0]);\n"
	"	for (int i = 0; i < argc; i++)\n"
	"		printf(\"argv %lx\\n\", (unsigned long)argv[i]);\n"
	"	char **e = envp;\n"
	"	while (*e)\n"
	"		printf(\"envp %lx\\n\", (unsigned long)*e++);\n"
	"	for (unsigned long *x = (unsigned long *)(e + 1);; x += 2) {\n"
	"		printf(\"aux %lu %lx\\n\", x[0], x[1]);\n"
	"		if (x[0] == 0)\n"
	"			break;\n"
	"	}\n"
	"	return 0;\n"
	"}\n";

struct linux_view {
	uint64_t sp, argc, argv[8], envp[8], aux[64][2];
	int nargv, nenvp, naux;
};

static bool run_dumper(const char *cmd, struct linux_view *v)
{
	char line[256];
	unsigned long long x, y;
	FILE *p = popen(cmd, "r");

	memset(v, 0, sizeof(*v));
	if (p == NULL)
		return false;
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "sp %llx %llu", &x, &y) == 2)
			v->sp = x, v->argc = y;
		else if (sscanf(line, "argv %llx", &x) == 1 && v->nargv < 8)
			v->argv[v->nargv++] = x;
		else if (sscanf(line, "envp %llx", &x) == 1 && v->nenvp < 8)
			v->envp[v->nenvp++] = x;
		else if (sscanf(line, "aux %llu %llx", &x, &y) == 2 &&
			 v->naux < 64) {
			v->aux[v->naux][0] = x;
			v->aux[v->naux++][1] = y;
		}
	}
	return pclose(p) == 0 && v->sp != 0 && v->naux > 0;
}

static uint64_t linux_aux(const struct linux_view *v, uint64_t type)
{
	for (int i = 0; i < v->naux; i++)
		if (v->aux[i][0] == type)
			return v->aux[i][1];
	return 0;
}

// Gives the builder what Linux gave the dumper (the same strings, the
// same number of auxv pairs, the same top) and expects the same
// addresses everywhere.
static bool compare_with_linux(const struct linux_view *v,
			       const char *const *argv, int argc,
			       const char *const *envp, int envc)
{
	struct exec_stack_args a;
	struct stack s;

	init_args(&a, argv, argc, envp, envc);
	a.nauxv = 0;
	for (int i = 0; i < v->naux; i++) {
		uint64_t t = v->aux[i][0];
		if (t == AT_RANDOM || t == AT_EXECFN || t == AT_PLATFORM ||
		    t == AT_NULL)
			continue;
		if (a.nauxv == EXEC_STACK_MAX_AUXV)
			return fail("Linux gave more auxv pairs than we take");
		a.auxv[a.nauxv][0] = t;
		a.auxv[a.nauxv++][1] = v->aux[i][1];
	}
	uint64_t execfn = linux_aux(v, AT_EXECFN);
	uint64_t top = execfn + strlen(a.execfn) + 1 + 8;
	if (top % 4096 != 0)
		return fail("Linux's stack top is not where expected");
	bool ok = build(&a, 16384, top, &s) == 0 && parse_back(&s, &a);
	ok = ok && same_u64("sp", s.sp, v->sp);
	ok = ok && same_u64("argc", word_at(&s, s.sp), v->argc);
	for (int i = 0; ok && i < argc; i++)
		ok = same_u64("argv[i]", word_at(&s, s.sp + 8 + 8 * i),
			      v->argv[i]);
	for (int i = 0; ok && i < envc; i++)
		ok = same_u64("envp[i]",
			      word_at(&s, s.sp + 16 + 8 * (argc + i)),
			      v->envp[i]);
	uint64_t aux = s.sp + 8 * (argc + envc + 3);
	uint64_t random_addr = 0, platform = 0, fn = 0;
	for (; word_at(&s, aux) != AT_NULL; aux += 16) {
		if (word_at(&s, aux) == AT_RANDOM)
			random_addr = word_at(&s, aux + 8);
		if (word_at(&s, aux) == AT_PLATFORM)
			platform = word_at(&s, aux + 8);
		if (word_at(&s, aux) == AT_EXECFN)
			fn = word_at(&s, aux + 8);
	}
	ok = ok && same_u64("AT_RANDOM", random_addr, linux_aux(v, AT_RANDOM));
	ok = ok && same_u64("AT_PLATFORM", platform, linux_aux(v, AT_PLATFORM));
	ok = ok && same_u64("AT_EXECFN", fn, execfn);
	free(s.buf);
	return ok;
}

struct linux_case {
	const char *name;
	const char *args;	// after argv[0], space-separated
	const char *env;	// NAME=value words, space-separated
	const char *argv[4];	// argv after argv[0], as the builder gets it
	int nargs;
	const char *envp[4];
	int envc;
};

static const struct linux_case linux_cases[] = {
	{ "two args, two variables", "x yy", "A=1 BB=22",
	  { "x", "yy" }, 2, { "A=1", "BB=22" }, 2 },
	{ "no args, no variables", "", "", { 0 }, 0, { 0 }, 0 },
	{ "three args, one variable", "one two three", "LONGER_NAME=some-value",
	  { "one", "two", "three" }, 3, { "LONGER_NAME=some-value" }, 1 },
};
#define NLINUX (int)(sizeof(linux_cases) / sizeof(linux_cases[0]))

static void test_against_linux(void)
{
	char dir[] = "/tmp/switchyard-stack-XXXXXX";
	char path[128], cmd[512], name[160];
	bool built = false;
	FILE *f;

	if (mkdtemp(dir) != NULL) {
		snprintf(path, sizeof(path), "%s/dump.c", dir);
		if ((f = fopen(path, "w")) != NULL) {
			fputs(dumper, f);
			fclose(f);
			snprintf(cmd, sizeof(cmd),
				 "musl-gcc -static -O1 -o %s/dump %s >/dev/null 2>&1 || "
				 "gcc -static -O1 -o %s/dump %s >/dev/null 2>&1",
				 dir, path, dir, path);
			built = system(cmd) == 0;
		}
	}
	snprintf(path, sizeof(path), "%s/dump", dir);
	for (int i = 0; i < NLINUX; i++) {
		const struct linux_case *c = &linux_cases[i];
		struct linux_view v;
		const char *argv[5] = { path };

		snprintf(name, sizeof(name), "same layout as Linux: %s", c->name);
		// No address randomization (setarch -R), so the layout only
		// depends on the strings and the auxv count.
		snprintf(cmd, sizeof(cmd),
			 "env -i %s /usr/bin/setarch -R %s %s 2>/dev/null",
			 c->env, path, c->args);
		if (!built || !run_dumper(cmd, &v)) {
			ktap_n++;
			printf("ok %d %s # SKIP cannot run a static program "
			       "without ASLR\n", ktap_n, name);
			continue;
		}
		for (int k = 0; k < c->nargs; k++)
			argv[k + 1] = c->argv[k];
		ktap_ok(compare_with_linux(&v, argv, c->nargs + 1, c->envp,
					   c->envc), name);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
}

int main(void)
{
	ktap_plan(6 + 2 + 2 + 1 + NLINUX);
	test_layouts();
	test_many_and_long();
	test_too_small();
	test_invalid();
	test_against_linux();
	return ktap_exit();
}
