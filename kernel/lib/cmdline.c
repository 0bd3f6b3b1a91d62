// Boot command line parsing.  The command line comes from the boot loader
// (the PVH start info), so it is untrusted text: nothing here writes to it,
// every word is copied into a bounded buffer before anyone looks at it, and
// every mistake produces a message that names the offending word.
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lib/cmdline.h>
#include <lib/printf.h>
#include <lib/string.h>

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	       c == '\v' || c == '\f';
}

static const char *skip_spaces(const char *p)
{
	while (is_space(*p))
		p++;
	return p;
}

__attribute__((format(printf, 3, 4)))
static void set_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	kvsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

// True if the word at 'p' is exactly "--", unquoted.
static bool is_end_marker(const char *p)
{
	return p[0] == '-' && p[1] == '-' && (p[2] == '\0' || is_space(p[2]));
}

enum word_status {
	WORD_OK,
	WORD_TOO_LONG,
	WORD_UNTERMINATED_QUOTE,
};

// Copies the word starting at *p into 'word' without its quotes, and
// advances *p past it.  A word ends at whitespace outside quotes.
static enum word_status read_word(const char **p,
				  char word[CMDLINE_WORD_MAX])
{
	const char *s = *p;
	size_t len = 0;
	bool quoted = false;

	for (; *s != '\0' && (quoted || !is_space(*s)); s++) {
		if (*s == '"') {
			quoted = !quoted;
			continue;
		}
		if (len == CMDLINE_WORD_MAX - 1) {
			word[len] = '\0';
			return WORD_TOO_LONG;
		}
		word[len++] = *s;
	}
	word[len] = '\0';
	*p = s;
	return quoted ? WORD_UNTERMINATED_QUOTE : WORD_OK;
}

static const struct boot_option *find_option(const struct boot_option *opts,
					     size_t nopts, const char *name)
{
	for (size_t i = 0; i < nopts; i++)
		if (strcmp(opts[i].name, name) == 0)
			return &opts[i];
	return NULL;
}

// Applies one NAME or NAME=VALUE word; 'word' is our private copy, so it
// may be split in place.
static int apply_word(char *word, const struct boot_option *opts,
		      size_t nopts, char *err, size_t errlen)
{
	char *value = strchr(word, '=');
	const struct boot_option *opt;

	if (value != NULL)
		*value++ = '\0';
	opt = find_option(opts, nopts, word);
	if (opt == NULL) {
		set_error(err, errlen, "unknown boot option '%s'", word);
		return -1;
	}
	if (opt->set == NULL || opt->set(value) == 0)
		return 0;
	if (value == NULL)
		set_error(err, errlen, "boot option '%s' needs a value", word);
	else
		set_error(err, errlen,
			  "invalid value '%s' for boot option '%s'", value,
			  word);
	return -1;
}

int cmdline_parse(const char *cmdline, const struct boot_option *opts,
		  size_t nopts, const char **rest, char *err, size_t errlen)
{
	char word[CMDLINE_WORD_MAX];
	const char *p = cmdline;

	if (rest != NULL)
		*rest = NULL;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (p == NULL)
		return 0;

	for (p = skip_spaces(p); *p != '\0'; p = skip_spaces(p)) {
		if (is_end_marker(p)) {
			if (rest != NULL)
				*rest = skip_spaces(p + 2);
			return 0;
		}
		switch (read_word(&p, word)) {
		case WORD_TOO_LONG:
			set_error(err, errlen,
				  "boot option too long (over %d bytes): '%.32s...'",
				  CMDLINE_WORD_MAX - 1, word);
			return -1;
		case WORD_UNTERMINATED_QUOTE:
			set_error(err, errlen,
				  "unterminated quote in boot option '%s'",
				  word);
			return -1;
		case WORD_OK:
			break;
		}
		if (apply_word(word, opts, nopts, err, errlen) != 0)
			return -1;
	}
	return 0;
}

int cmdline_help(const struct boot_option *opts, size_t nopts, char *buf,
		 size_t len)
{
	size_t pos = 0;

	if (buf != NULL && len > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < nopts; i++) {
		// Once the buffer is full, keep counting with a zero size.
		bool room = buf != NULL && pos < len;
		int n = ksnprintf(room ? buf + pos : NULL, room ? len - pos : 0,
				  "  %-12s %s\n", opts[i].name,
				  opts[i].help ? opts[i].help : "");
		pos += (size_t)n;
	}
	return pos < INT32_MAX ? (int)pos : INT32_MAX;
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return -1;
}

static bool has_hex_prefix(const char *s)
{
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

// Declared in lib/string.h; lives here so the host tests can reach it
// (see the comment there).  Boot option setters are its main users.
bool parse_u64(const char *s, int base, uint64_t *out)
{
	uint64_t v = 0;

	if (s == NULL)
		return false;
	if (base == 0) {
		if (has_hex_prefix(s)) {
			base = 16;
			s += 2;
		} else if (s[0] == '0' && s[1] != '\0') {
			base = 8;
			s++;
		} else {
			base = 10;
		}
	} else if (base == 16 && has_hex_prefix(s)) {
		s += 2;
	}
	if (base < 2 || base > 36 || *s == '\0')
		return false;

	for (; *s != '\0'; s++) {
		int d = digit_value(*s);
		if (d < 0 || d >= base)
			return false;
		// v * base + d must not exceed UINT64_MAX.
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return true;
}
