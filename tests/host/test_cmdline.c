// Host tests of kernel/lib/cmdline.c: the boot command line parser and
// parse_u64 (which lives in cmdline.c; see include/lib/string.h).
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <lib/cmdline.h>
#include <lib/printf.h>
#include <lib/string.h>
#include "ktap.h"

// Every setter call is appended here as "name=value;" or "name;", so a
// test can check which setters ran, in which order, with which values.
static char calls[2048];

static void record(const char *name, const char *value)
{
	size_t used = strlen(calls);

	if (value)
		snprintf(calls + used, sizeof(calls) - used, "%s=%s;", name,
			 value);
	else
		snprintf(calls + used, sizeof(calls) - used, "%s;", name);
}

// fpu=eager|lazy|xfd, a value is required.
static int set_fpu(const char *value)
{
	if (value == NULL || (strcmp(value, "eager") != 0 &&
			      strcmp(value, "lazy") != 0 &&
			      strcmp(value, "xfd") != 0))
		return -1;
	record("fpu", value);
	return 0;
}

// test=anything, or bare.
static int set_test(const char *value)
{
	record("test", value);
	return 0;
}

// smp_debug, smp_debug=0 or smp_debug=1.
static int set_smp_debug(const char *value)
{
	uint64_t v = 1;

	if (value != NULL && (!parse_u64(value, 10, &v) || v > 1))
		return -1;
	record("smp_debug", value);
	return 0;
}

// ncpus=1..64, any base parse_u64 accepts.
static int set_ncpus(const char *value)
{
	uint64_t v;

	if (!parse_u64(value, 0, &v) || v < 1 || v > 64)
		return -1;
	record("ncpus", value);
	return 0;
}

static const struct boot_option options[] = {
	{ "fpu", "extended state policy: eager, lazy or xfd", set_fpu },
	{ "test", "run in-kernel tests: test=SUITE[.NAME]", set_test },
	{ "smp_debug", "trace AP bring-up", set_smp_debug },
	{ "ncpus", "number of CPUs to start (1..64)", set_ncpus },
};
#define NOPTIONS (sizeof(options) / sizeof(options[0]))

struct parse_case {
	const char *name;
	const char *cmdline;
	int ret;		// expected return value
	const char *calls;	// expected setter calls
	const char *rest;	// expected *rest, NULL for none
	const char *err;	// expected error message, "" on success
};

static const struct parse_case parse_cases[] = {
	{ "empty line", "", 0, "", NULL, "" },
	{ "only whitespace", "  \t \n ", 0, "", NULL, "" },
	{ "one option", "fpu=lazy", 0, "fpu=lazy;", NULL, "" },
	{ "option without value", "smp_debug", 0, "smp_debug;", NULL, "" },
	{ "extra spaces", "   fpu=lazy    smp_debug   ", 0,
	  "fpu=lazy;smp_debug;", NULL, "" },
	{ "tabs and newlines separate", "smp_debug=1\ttest=x\nfpu=xfd\r\n", 0,
	  "smp_debug=1;test=x;fpu=xfd;", NULL, "" },
	{ "quoted value", "test=\"a b\" fpu=eager", 0,
	  "test=a b;fpu=eager;", NULL, "" },
	{ "quoted whole word", "\"test=a  b\"", 0, "test=a  b;", NULL, "" },
	{ "quotes inside a word", "test=a\"b c\"d", 0, "test=ab cd;", NULL,
	  "" },
	{ "empty quoted value", "test=\"\"", 0, "test=;", NULL, "" },
	{ "empty value", "test=", 0, "test=;", NULL, "" },
	{ "value containing '='", "test=a=b", 0, "test=a=b;", NULL, "" },
	{ "repeated option, in order", "fpu=lazy fpu=eager fpu=xfd", 0,
	  "fpu=lazy;fpu=eager;fpu=xfd;", NULL, "" },
	{ "rest after --", "fpu=lazy -- init  arg1 arg2", 0, "fpu=lazy;",
	  "init  arg1 arg2", "" },
	{ "-- alone", "--", 0, "", "", "" },
	{ "-- at the end", "fpu=lazy --   ", 0, "fpu=lazy;", "", "" },
	{ "nothing parsed after --", "-- fpu=bogus nonsense", 0, "",
	  "fpu=bogus nonsense", "" },
	{ "only the first -- counts", "test -- a -- b", 0, "test;",
	  "a -- b", "" },
	{ "--x is not the marker", "fpu=lazy --x", -1, "fpu=lazy;", NULL,
	  "unknown boot option '--x'" },
	{ "quoted -- is not the marker", "\"--\" x", -1, "", NULL,
	  "unknown boot option '--'" },
	{ "unknown option", "foo", -1, "", NULL, "unknown boot option 'foo'" },
	{ "unknown option with value", "foo=bar", -1, "", NULL,
	  "unknown boot option 'foo'" },
	{ "empty name", "=x", -1, "", NULL, "unknown boot option ''" },
	{ "names match exactly", "fp=lazy", -1, "", NULL,
	  "unknown boot option 'fp'" },
	{ "rejected value", "fpu=x", -1, "", NULL,
	  "invalid value 'x' for boot option 'fpu'" },
	{ "rejected missing value", "fpu", -1, "", NULL,
	  "boot option 'fpu' needs a value" },
	{ "stops at the first error", "fpu=lazy bogus fpu=eager", -1,
	  "fpu=lazy;", NULL, "unknown boot option 'bogus'" },
	{ "error before -- leaves rest NULL", "bogus -- init", -1, "", NULL,
	  "unknown boot option 'bogus'" },
	{ "unterminated quote", "test=\"a b", -1, "", NULL,
	  "unterminated quote in boot option 'test=a b'" },
	{ "unterminated quote after good words", "smp_debug test=\"", -1,
	  "smp_debug;", NULL, "unterminated quote in boot option 'test='" },
	{ "numeric value in hex", "ncpus=0x10", 0, "ncpus=0x10;", NULL, "" },
	{ "numeric value overflowing", "ncpus=99999999999999999999999", -1,
	  "", NULL,
	  "invalid value '99999999999999999999999' for boot option 'ncpus'" },
};
#define NPARSE_CASES (sizeof(parse_cases) / sizeof(parse_cases[0]))

static bool same_rest(const char *got, const char *want)
{
	if (got == NULL || want == NULL)
		return got == want;
	return strcmp(got, want) == 0;
}

static void run_parse_case(const struct parse_case *c)
{
	char copy[1024];
	char err[256];
	const char *rest = (const char *)1;	// must be overwritten
	char name[160];

	calls[0] = '\0';
	memset(err, 'Z', sizeof(err));
	snprintf(copy, sizeof(copy), "%s", c->cmdline);
	int ret = cmdline_parse(copy, options, NOPTIONS, &rest, err,
				sizeof(err));

	bool ok = true;
	if (ret != c->ret) {
		printf("# returned %d, want %d\n", ret, c->ret);
		ok = false;
	}
	if (strcmp(calls, c->calls) != 0) {
		printf("# setter calls \"%s\", want \"%s\"\n", calls,
		       c->calls);
		ok = false;
	}
	if (!same_rest(rest, c->rest)) {
		printf("# rest \"%s\", want \"%s\"\n",
		       rest ? rest : "(NULL)", c->rest ? c->rest : "(NULL)");
		ok = false;
	}
	// The rest must point into the caller's string, not a copy.
	if (rest != NULL && (rest < copy || rest > copy + strlen(copy))) {
		printf("# rest does not point into the command line\n");
		ok = false;
	}
	if (strcmp(err, c->err) != 0) {
		printf("# error \"%.255s\", want \"%s\"\n", err, c->err);
		ok = false;
	}
	if (strcmp(copy, c->cmdline) != 0) {
		printf("# the command line was modified\n");
		ok = false;
	}
	snprintf(name, sizeof(name), "parse: %s", c->name);
	ktap_ok(ok, name);
}

// A word of CMDLINE_WORD_MAX - 1 bytes fits; one more byte does not.
static void test_word_length(void)
{
	static char line[600];
	char err[128];
	int n;

	// "test=" + 250 'a' = 255 bytes.
	n = snprintf(line, sizeof(line), "test=");
	memset(line + n, 'a', 250);
	line[n + 250] = '\0';
	calls[0] = '\0';
	ktap_ok(cmdline_parse(line, options, NOPTIONS, NULL, err,
			      sizeof(err)) == 0 && strlen(calls) == 255 + 1,
		"parse: word of 255 bytes is accepted");

	// Quotes do not count towards the length.
	n = snprintf(line, sizeof(line), "\"test=");
	memset(line + n, 'a', 250);
	snprintf(line + n + 250, sizeof(line) - n - 250, "\"");
	calls[0] = '\0';
	ktap_ok(cmdline_parse(line, options, NOPTIONS, NULL, err,
			      sizeof(err)) == 0 && strlen(calls) == 255 + 1,
		"parse: quotes do not count towards the word length");

	n = snprintf(line, sizeof(line), "smp_debug test=");
	memset(line + n, 'b', 251);
	line[n + 251] = '\0';
	calls[0] = '\0';
	int ret = cmdline_parse(line, options, NOPTIONS, NULL, err,
				sizeof(err));
	if (ret == 0 || strncmp(err, "boot option too long", 20) != 0)
		printf("# returned %d, error \"%s\"\n", ret, err);
	ktap_ok(ret == -1 && strncmp(err, "boot option too long", 20) == 0 &&
		strstr(err, "test=bbbb") != NULL &&
		strcmp(calls, "smp_debug;") == 0,
		"parse: word of 256 bytes is rejected as too long");

	// Far longer than the buffer: still a clean error, no overrun.
	memset(line, 'c', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	ret = cmdline_parse(line, options, NOPTIONS, NULL, err, sizeof(err));
	ktap_ok(ret == -1 && strncmp(err, "boot option too long", 20) == 0,
		"parse: very long word is rejected");
}

// The parser copes with missing output pointers and small error buffers.
static void test_optional_outputs(void)
{
	char err[8];
	const char *rest;

	ktap_ok(cmdline_parse("bogus", options, NOPTIONS, NULL, NULL, 0) == -1,
		"parse: NULL err and rest are allowed");
	ktap_ok(cmdline_parse("bogus", options, NOPTIONS, NULL, err,
			      sizeof(err)) == -1 &&
		strcmp(err, "unknown") == 0,
		"parse: error message is truncated to errlen");
	ktap_ok(cmdline_parse(NULL, options, NOPTIONS, &rest, err,
			      sizeof(err)) == 0 && rest == NULL,
		"parse: NULL command line is empty");
	ktap_ok(cmdline_parse("fpu=lazy", NULL, 0, &rest, err,
			      sizeof(err)) == -1,
		"parse: empty option table rejects everything");
}

static void test_help(void)
{
	char buf[512];
	char small[10];
	const char *want =
		"  fpu          extended state policy: eager, lazy or xfd\n"
		"  test         run in-kernel tests: test=SUITE[.NAME]\n"
		"  smp_debug    trace AP bring-up\n"
		"  ncpus        number of CPUs to start (1..64)\n";
	int n = cmdline_help(options, NOPTIONS, buf, sizeof(buf));

	if (strcmp(buf, want) != 0)
		printf("# got:\n%s", buf);
	ktap_ok(n == (int)strlen(want) && strcmp(buf, want) == 0,
		"help: one line per option");
	n = cmdline_help(options, NOPTIONS, small, sizeof(small));
	ktap_ok(n == (int)strlen(want) && strcmp(small, "  fpu    ") == 0,
		"help: truncated, still returns the full length");
	ktap_ok(cmdline_help(options, NOPTIONS, NULL, 0) == (int)strlen(want),
		"help: size 0 only measures");
}

struct u64_case {
	const char *s;
	int base;
	bool ok;
	uint64_t value;
};

static const struct u64_case u64_cases[] = {
	{ "0", 0, true, 0 },
	{ "0", 10, true, 0 },
	{ "123", 10, true, 123 },
	{ "123", 0, true, 123 },
	{ "0x1f", 0, true, 31 },
	{ "0X1F", 0, true, 31 },
	{ "017", 0, true, 15 },
	{ "00", 0, true, 0 },
	{ "017", 10, true, 17 },
	{ "ff", 16, true, 255 },
	{ "0xff", 16, true, 255 },
	{ "101", 2, true, 5 },
	{ "zZ", 36, true, 35 * 36 + 35 },
	{ "18446744073709551615", 10, true, UINT64_MAX },
	{ "0xffffffffffffffff", 0, true, UINT64_MAX },
	{ "01777777777777777777777", 0, true, UINT64_MAX },
	{ "00000000000000000000000000042", 10, true, 42 },
	{ "18446744073709551616", 10, false, 0 },
	{ "99999999999999999999", 10, false, 0 },
	{ "0x10000000000000000", 0, false, 0 },
	{ "02000000000000000000000", 0, false, 0 },
	{ "", 0, false, 0 },
	{ "", 10, false, 0 },
	{ "0x", 0, false, 0 },
	{ "0x", 16, false, 0 },
	{ "08", 0, false, 0 },
	{ "12a", 10, false, 0 },
	{ "0x1g", 0, false, 0 },
	{ "2", 2, false, 0 },
	{ "-1", 0, false, 0 },
	{ "+1", 0, false, 0 },
	{ " 1", 10, false, 0 },
	{ "1 ", 10, false, 0 },
	{ "1", 1, false, 0 },
	{ "1", 37, false, 0 },
	{ "1", -1, false, 0 },
	{ "0x12", 10, false, 0 },
};
#define NU64_CASES (sizeof(u64_cases) / sizeof(u64_cases[0]))

static void run_u64_case(const struct u64_case *c)
{
	const uint64_t untouched = 0x5555aaaa5555aaaaull;
	uint64_t v = untouched;
	char name[96];

	bool ok = parse_u64(c->s, c->base, &v);
	bool pass = ok == c->ok && v == (c->ok ? c->value : untouched);
	if (!pass)
		printf("# returned %d with %llu\n", ok, (unsigned long long)v);
	snprintf(name, sizeof(name), "parse_u64: \"%s\" base %d %s", c->s,
		 c->base, c->ok ? "parses" : "is rejected");
	ktap_ok(pass, name);
}

int main(void)
{
	uint64_t v = 7;

	ktap_plan((int)(NPARSE_CASES + NU64_CASES) + 4 + 4 + 3 + 1);
	for (size_t i = 0; i < NPARSE_CASES; i++)
		run_parse_case(&parse_cases[i]);
	test_word_length();
	test_optional_outputs();
	test_help();
	for (size_t i = 0; i < NU64_CASES; i++)
		run_u64_case(&u64_cases[i]);
	ktap_ok(!parse_u64(NULL, 0, &v) && v == 7,
		"parse_u64: NULL string is rejected");
	return ktap_exit();
}
