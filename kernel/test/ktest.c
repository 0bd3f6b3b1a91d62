// The in-kernel test runner.  test=all runs every test except those that
// must panic; test=SUITE or test=SUITE.NAME (comma-separated) picks some;
// an expected-panic test runs only when named exactly.

#include <kernel/ktest.h>
#include <kernel/boot.h>
#include <kernel/console.h>
#include <kernel/panic.h>
#include <lib/string.h>

extern const struct ktest ktests_start[], ktests_end[];

static char selector_buf[CMDLINE_WORD_MAX];
static const char *selector;
static const char *failure_file;
static int failure_line;
static const char *failure_what;

static int set_test(const char *value)
{
	if (!value || !*value)
		return -1;
	strlcpy(selector_buf, value, sizeof(selector_buf));
	selector = selector_buf;
	return 0;
}
BOOT_OPTION(test, "run in-kernel tests: all, none, SUITE or SUITE.NAME[,...]", set_test);

void ktest_failed(const char *file, int line, const char *what)
{
	failure_file = file;
	failure_line = line;
	failure_what = what;
}

// Does one comma-separated item of the selector match this test?
static bool item_matches(const char *item, size_t len, const struct ktest *t)
{
	size_t slen = strlen(t->suite);

	if (len == 3 && !strncmp(item, "all", 3))
		return !t->expect_panic;
	if (len == slen && !strncmp(item, t->suite, slen))
		return !t->expect_panic;
	return len == slen + 1 + strlen(t->name) && !strncmp(item, t->suite, slen) &&
	       item[slen] == '.' && !strncmp(item + slen + 1, t->name, len - slen - 1);
}

static bool selected(const struct ktest *t)
{
	const char *p = selector;

	while (p && *p) {
		const char *end = p;
		while (*end && *end != ',' && *end != ' ')
			end++;
		if (item_matches(p, end - p, t))
			return true;
		if (*end != ',')
			break;
		p = end + 1;
	}
	return false;
}

// Set by ktest_skip() in the running test.
static const char *skip_why;

void ktest_skip(const char *why)
{
	skip_why = why;
}

void ktest_run_selected(void)
{
	int n = 0, i = 0;

	if (!selector || !strcmp(selector, "none"))
		return;
	for (const struct ktest *t = ktests_start; t < ktests_end; t++)
		n += selected(t);
	kprintf("KTAP version 1\n# kernel tests: %s\n1..%d\n", selector, n);
	for (const struct ktest *t = ktests_start; t < ktests_end; t++) {
		if (!selected(t))
			continue;
		i++;
		failure_what = 0;
		skip_why = 0;
		bool ok = t->fn();
		if (t->expect_panic) {
			kprintf("not ok %d %s.%s # expected a panic, test returned\n", i, t->suite, t->name);
			continue;
		}
		if (ok && skip_why)
			kprintf("ok %d %s.%s # SKIP %s\n", i, t->suite, t->name, skip_why);
		else if (ok)
			kprintf("ok %d %s.%s\n", i, t->suite, t->name);
		else if (failure_what)
			kprintf("not ok %d %s.%s # %s:%d: %s\n", i, t->suite, t->name,
				failure_file, failure_line, failure_what);
		else
			kprintf("not ok %d %s.%s\n", i, t->suite, t->name);
	}
}
