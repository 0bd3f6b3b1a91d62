// Host tests of kernel/lib/printf.c: the kernel's output must match the
// host C library's snprintf byte for byte over hand-picked, generated and
// random formats, including truncation and size 0.
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lib/printf.h>
#include "ktap.h"

// Failures are counted per test case; only the first few are shown.
static int checks;
static int failures;

static void start_case(void)
{
	checks = 0;
	failures = 0;
}

static void failed(const char *fmt, const char *what, const char *got,
		   const char *want)
{
	if (++failures <= 5)
		printf("# format \"%s\": %s: got \"%s\", want \"%s\"\n",
		       fmt, what, got, want);
}

// Formats with kvsnprintf and with the host's vsnprintf and compares text
// and return value, then repeats at buffer sizes that cut the output.
// Each truncated buffer is malloc'd at exactly its size so ASan sees any
// byte written past it.
static void vcheck(const char *fmt, va_list ap)
{
	static char want[8192];
	static char got[8192];
	va_list a;

	checks++;
	va_copy(a, ap);
	int wn = vsnprintf(want, sizeof(want), fmt, a);
	va_end(a);
	va_copy(a, ap);
	int gn = kvsnprintf(got, sizeof(got), fmt, a);
	va_end(a);
	if (wn != gn || strcmp(want, got) != 0) {
		failed(fmt, "full buffer", got, want);
		return;
	}

	size_t sizes[] = { 0, 1, 2, (size_t)wn / 2, (size_t)wn,
			   (size_t)wn + 1 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t size = sizes[i];
		char *buf = size ? malloc(size) : NULL;
		va_copy(a, ap);
		gn = kvsnprintf(buf, size, fmt, a);
		va_end(a);
		bool ok = gn == wn;
		if (size > 0) {
			size_t kept = (size_t)wn < size ? (size_t)wn : size - 1;
			ok = ok && strlen(buf) == kept &&
			     memcmp(buf, want, kept) == 0;
		}
		if (!ok) {
			char what[64];
			snprintf(what, sizeof(what), "size %zu, returned %d",
				 size, gn);
			failed(fmt, what, buf ? buf : "(no buffer)", want);
		}
		free(buf);
	}
}

static void check(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vcheck(fmt, ap);
	va_end(ap);
}

// For output the host libc cannot serve as reference for.
__attribute__((format(printf, 2, 3)))
static void expect(const char *want, const char *fmt, ...)
{
	char got[256];
	va_list ap;

	checks++;
	va_start(ap, fmt);
	int n = kvsnprintf(got, sizeof(got), fmt, ap);
	va_end(ap);
	if (n != (int)strlen(want) || strcmp(got, want) != 0)
		failed(fmt, "expected", got, want);
}

static int finish_case(const char *name)
{
	if (failures)
		printf("# %s: %d of %d checks failed\n", name, failures,
		       checks);
	return ktap_ok(failures == 0 && checks > 0, name);
}

static void test_plain_text(void)
{
	start_case();
	check("");
	check("hello, world");
	check("100%%");
	check("%%d%%");
	check("a%%b%%%%c");
	check("tab\there\nnewline");
	finish_case("plain_text_and_percent");
}

// Readable cases first, so a failure here is easy to understand.
static void test_handpicked(void)
{
	start_case();
	check("%d", 0);
	check("%d", 42);
	check("%d", -42);
	check("%d", INT32_MAX);
	check("%d", INT32_MIN);
	check("%i", -7);
	check("%5d|%-5d|%05d", 42, 42, 42);
	check("%+d % d %+d % d", 5, 5, -5, -5);
	check("%+ d|% +d", 3, 3);
	check("%-05d|", -3);
	check("%.3d|%.0d|%.0d|%5.0d|", 7, 0, 1, 0);
	check("%08.3d|%-8.3d|%+.3d", -7, 7, 7);
	check("%u", 4000000000u);
	check("%x %X %#x %#X", 0xbeefu, 0xbeefu, 0xbeefu, 0xbeefu);
	check("%#x|%#.0x|%#5x|%#05x|%#-8x|", 0u, 0u, 0u, 1u, 255u);
	check("%#010x|%#.4x|%#10.4x", 0x1234u, 0x12u, 0x12u);
	check("%o %#o %#o %#.0o %.0o", 8u, 8u, 0u, 0u, 0u);
	check("%#.3o|%#5o|%#-5o|%#05o", 8u, 8u, 8u, 8u);
	check("%lu %ld %lx", 18446744073709551615ul, -9223372036854775807l - 1,
	      0xfeedfacecafebeeful);
	check("%llu %lld %llo", 18446744073709551615ull,
	      -9223372036854775807ll - 1, 01777777777777777777777ull);
	check("%hhd %hhu %hhx", 200, 300, -1);
	check("%hd %hu %hx", 40000, 70000, -1);
	check("%zu %zx %td %jd %ju", (size_t)123456789, (size_t)0xabc,
	      (ptrdiff_t)-5, (intmax_t)-9000000000, (uintmax_t)1 << 63);
	check("%s|%10s|%-10s|%.2s|%10.2s|%-10.2s|", "abc", "abc", "abc",
	      "abc", "abc", "abc");
	check("%s|%.0s|%5s|", "", "abc", "");
	check("%c%c%c|%3c|%-3c|", 'a', 'b', 'c', 'x', 'y');
	check("%c", 0xff);
	check("%p %p", (void *)0x1234, (void *)0xffffffff81000000ul);
	check("%20p|%-20p|", (void *)0xdead, (void *)0xdead);
	check("%p|%10p|%-10p|", (void *)0, (void *)0, (void *)0);
	check("%d %s %c %x %%", 1, "two", '3', 4u);
	check("%1000d|", 5);
	check("%.300d|", -5);
	finish_case("handpicked_formats");
}

static const long long signed_values[] = {
	0, 1, -1, 7, -7, 9, 10, 99, 100, -100, 12345, -12345, 32767,
	-32768, 65535, 2147483647, -2147483647 - 1, 4294967295ll,
	1234567890123ll, -1234567890123ll, 9223372036854775807ll,
	-9223372036854775807ll - 1,
};
#define NSIGNED (sizeof(signed_values) / sizeof(signed_values[0]))

// Builds "%<flags><width>.<prec>[ll]<conv>" for every combination of the
// five flags with a few widths and precisions.
static void generated_formats(const char *length, char conv, bool sixty_four)
{
	static const char *flag_chars = "-0+ #";
	static const int widths[] = { -1, 1, 4, 12, 25 };
	static const int precisions[] = { -1, 0, 1, 3, 15, 24 };
	char fmt[64];

	for (int flags = 0; flags < 32; flags++)
	for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
	for (size_t p = 0; p < sizeof(precisions) / sizeof(precisions[0]); p++) {
		char *f = fmt;
		*f++ = '%';
		for (int i = 0; i < 5; i++)
			if (flags & (1 << i))
				*f++ = flag_chars[i];
		if (widths[w] >= 0)
			f += sprintf(f, "%d", widths[w]);
		if (precisions[p] >= 0)
			f += sprintf(f, ".%d", precisions[p]);
		sprintf(f, "%s%c", length, conv);

		for (size_t v = 0; v < NSIGNED; v++) {
			long long x = signed_values[v];
			bool is_signed = conv == 'd' || conv == 'i';
			if (sixty_four && is_signed)
				check(fmt, x);
			else if (sixty_four)
				check(fmt, (unsigned long long)x);
			else if (is_signed)
				check(fmt, (int)x);
			else
				check(fmt, (unsigned int)x);
		}
	}
}

static void test_generated(void)
{
	static const char convs[] = "diuxXo";

	for (int i = 0; convs[i]; i++) {
		char name[64];
		start_case();
		generated_formats("", convs[i], false);
		generated_formats("ll", convs[i], true);
		snprintf(name, sizeof(name), "generated_flags_width_precision_%c",
			 convs[i]);
		finish_case(name);
	}
}

static void test_strings_generated(void)
{
	static const char *strs[] = { "", "a", "hello", "a longer string!" };
	static const char *fmts[] = {
		"%s", "%0s", "%1s", "%8s", "%-8s", "%.0s", "%.1s", "%.5s",
		"%.40s", "%3.1s", "%-3.1s", "%20.10s", "%-20.10s", "%-1s",
		"[%s]", "%s%s",
	};

	start_case();
	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
		for (size_t s = 0; s < sizeof(strs) / sizeof(strs[0]); s++)
			check(fmts[f], strs[s], strs[s]);
	// A precision lets the argument be an unterminated array.
	char unterminated[3] = { 'x', 'y', 'z' };
	check("%.3s|%.2s", unterminated, unterminated);
	finish_case("strings_and_precision");
}

static void test_star(void)
{
	start_case();
	check("%*d|", 6, 42);
	check("%*d|", -6, 42);
	check("%-*d|", -6, 42);
	check("%.*d|", 4, 42);
	check("%.*d|", -4, 42);
	check("%.*d|", 0, 0);
	check("%*.*d|", 8, 4, -42);
	check("%*.*x|", -8, 4, 42u);
	check("%0*d|", 6, -42);
	check("%0*.*d|", 6, -1, -42);
	check("%*s|%-*s|%.*s|", 5, "ab", 5, "ab", 1, "ab");
	check("%*c|", -3, 'q');
	check("%*.*s|", 0, 0, "gone");
	finish_case("star_width_and_precision");
}

// Read through a volatile so the compiler cannot see (and warn) that the
// %s argument is NULL; that is exactly the case under test.
static const char *volatile null_string;

static void test_null_and_nil(void)
{
	start_case();
	expect("(null)", "%s", null_string);
	expect("  (null)|", "%8s|", null_string);
	expect("(null)  |", "%-8s|", null_string);
	expect("(null)", "%.6s", null_string);
	expect("|", "%.3s|", null_string);
	expect("(nil)", "%p", (void *)NULL);
	expect("   (nil)|", "%8p|", (void *)NULL);
	expect("(nil)   |", "%-8p|", (void *)NULL);
	expect("0x1", "%p", (void *)1);
	finish_case("null_string_and_nil_pointer");
}

// Malformed directives are printed as-is rather than eating arguments.
static void test_unknown(void)
{
	static const char *fmts[] = { "%y", "abc%", "%5", "%-08.3", "%ll",
				      "%q%d" };
	static const char *wants[] = { "%y", "abc%", "%5", "%-08.3", "%ll",
				       "%q7" };
	char got[64];

	start_case();
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		checks++;
		// Non-literal formats: the compiler cannot object to them.
		int n = ksnprintf(got, sizeof(got), fmts[i], 7);
		if (n != (int)strlen(wants[i]) || strcmp(got, wants[i]) != 0)
			failed(fmts[i], "unknown directive", got, wants[i]);
	}
	finish_case("unknown_directive_printed_verbatim");
}

static void test_truncation(void)
{
	char buf[8];

	start_case();
	memset(buf, 'Z', sizeof(buf));
	checks++;
	if (ksnprintf(buf, 0, "%d", 12345) != 5 || buf[0] != 'Z')
		failed("%d", "size 0 must not write", buf, "Z...");
	checks++;
	if (ksnprintf(NULL, 0, "%s-%d", "abc", 42) != 6)
		failed("%s-%d", "NULL buffer, size 0", "?", "6");
	checks++;
	if (ksnprintf(buf, 1, "%d", 12345) != 5 || buf[0] != '\0' ||
	    buf[1] != 'Z')
		failed("%d", "size 1", buf, "");
	checks++;
	if (ksnprintf(buf, 4, "%s", "abcdef") != 6 || strcmp(buf, "abc") != 0 ||
	    buf[4] != 'Z')
		failed("%s", "size 4", buf, "abc");
	checks++;
	if (ksnprintf(buf, sizeof(buf), "1234567") != 7 ||
	    strcmp(buf, "1234567") != 0)
		failed("1234567", "exact fit", buf, "1234567");
	finish_case("truncation_and_size_zero");
}

struct counting_sink {
	size_t count;
	unsigned checksum;
};

static void counting_out(void *arg, char c)
{
	struct counting_sink *s = arg;

	s->count++;
	s->checksum = s->checksum * 31 + (unsigned char)c;
}

static int call_kvformat(struct counting_sink *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = kvformat(counting_out, s, fmt, ap);
	va_end(ap);
	return n;
}

// kvformat reports exactly the characters it hands the sink, with no
// length limit of its own.
static void test_kvformat_sink(void)
{
	struct counting_sink s = { 0, 0 };

	start_case();
	checks++;
	int n = call_kvformat(&s, "%5000d|%s", 1, "tail");
	if (n != 5005 || s.count != 5005)
		failed("%5000d|%s", "count", "?", "5005");
	finish_case("kvformat_counts_what_it_emits");
}

// A small deterministic generator, so a failure reproduces.
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

// A random value biased towards interesting magnitudes and edges.
static uint64_t random_value(void)
{
	switch (rng() % 4) {
	case 0:
		return rng() % 20;
	case 1:
		return rng() >> (rng() % 64);
	case 2:
		return (uint64_t)0 - (rng() % 1000);
	default:
		return rng();
	}
}

// Calls check() with the star arguments in front of the value; the value
// is passed with exactly the type the length modifier names.
#define CHECK_WITH_STARS(value)						\
	do {								\
		if (nstars == 0)					\
			check(fmt, value);				\
		else if (nstars == 1)					\
			check(fmt, star[0], value);			\
		else							\
			check(fmt, star[0], star[1], value);		\
	} while (0)

static void random_check(const char *fmt, int nstars, const int *star,
			 const char *length, bool is_signed, uint64_t v)
{
	if (strcmp(length, "") == 0 || strcmp(length, "h") == 0 ||
	    strcmp(length, "hh") == 0) {
		if (is_signed)
			CHECK_WITH_STARS((int)v);
		else
			CHECK_WITH_STARS((unsigned int)v);
	} else if (strcmp(length, "l") == 0) {
		if (is_signed)
			CHECK_WITH_STARS((long)v);
		else
			CHECK_WITH_STARS((unsigned long)v);
	} else if (strcmp(length, "ll") == 0) {
		if (is_signed)
			CHECK_WITH_STARS((long long)v);
		else
			CHECK_WITH_STARS((unsigned long long)v);
	} else if (strcmp(length, "z") == 0) {
		if (is_signed)
			CHECK_WITH_STARS((long)v);	// ssize_t here
		else
			CHECK_WITH_STARS((size_t)v);
	} else if (strcmp(length, "t") == 0) {
		CHECK_WITH_STARS((ptrdiff_t)v);
	} else {
		if (is_signed)
			CHECK_WITH_STARS((intmax_t)v);
		else
			CHECK_WITH_STARS((uintmax_t)v);
	}
}

static void test_random(void)
{
	static const char *lengths[] = { "", "hh", "h", "l", "ll", "z", "t",
					 "j" };
	static const char convs[] = "diuxXo";
	static const char flag_chars[] = "-0+ #";

	start_case();
	for (int iter = 0; iter < 20000; iter++) {
		char fmt[64];
		char *f = fmt;
		int nstars = 0;
		int star[2];

		*f++ = '%';
		for (int i = 0; i < 5; i++)
			if (rng() % 3 == 0)
				*f++ = flag_chars[i];
		switch (rng() % 3) {
		case 0:
			break;
		case 1:
			f += sprintf(f, "%d", (int)(rng() % 30) + 1);
			break;
		default:
			*f++ = '*';
			star[nstars++] = (int)(rng() % 61) - 30;
			break;
		}
		switch (rng() % 3) {
		case 0:
			break;
		case 1:
			f += sprintf(f, ".%d", (int)(rng() % 30));
			break;
		default:
			*f++ = '.';
			*f++ = '*';
			star[nstars++] = (int)(rng() % 41) - 10;
			break;
		}
		const char *length = lengths[rng() % 8];
		char conv = convs[rng() % 6];
		sprintf(f, "%s%c", length, conv);
		random_check(fmt, nstars, star, length,
			     conv == 'd' || conv == 'i', random_value());
	}
	finish_case("random_integer_formats_match_libc");
}

// kappendf: pieces add up, and a text too long for the buffer stops at
// size - 1 characters, NUL-terminated, however many pieces follow.
static void test_kappendf(void)
{
	char buf[8];
	size_t len = 0;

	start_case();
	len = kappendf(buf, sizeof(buf), len, "ab");
	len = kappendf(buf, sizeof(buf), len, "%d", 12);
	checks++;
	if (len != 4 || strcmp(buf, "ab12") != 0)
		failed("ab%d", "kappendf", buf, "ab12");
	len = kappendf(buf, sizeof(buf), len, "%s", "cdefgh");
	len = kappendf(buf, sizeof(buf), len, "%s", "more");
	checks++;
	if (len != 7 || strcmp(buf, "ab12cde") != 0)
		failed("%s", "kappendf cut", buf, "ab12cde");
	checks++;
	if (kappendf(buf, 0, 0, "x") != 0)
		failed("x", "kappendf size 0", "", "");
	finish_case("kappendf_appends_and_cuts");
}

int main(void)
{
	ktap_plan(16);
	test_plain_text();
	test_handpicked();
	test_generated();		// six cases, one per conversion
	test_strings_generated();
	test_star();
	test_null_and_nil();
	test_unknown();
	test_truncation();
	test_kvformat_sink();
	test_random();
	test_kappendf();
	return ktap_exit();
}
