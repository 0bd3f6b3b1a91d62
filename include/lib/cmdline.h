// The boot command line parser.  Pure: it knows nothing about which
// options exist; the kernel passes a table of them, and each option's
// setter decides whether its value is acceptable.
//
// Syntax: words separated by whitespace, each NAME or NAME=VALUE.  Double
// quotes group text containing spaces and are removed: test="a b" and
// "test=a b" both give the option 'test' the value 'a b'.  A bare "--"
// ends the kernel's part; what follows is left for init.
#ifndef LIB_CMDLINE_H
#define LIB_CMDLINE_H

#include <stddef.h>

// Longest word the parser accepts, counting its terminating NUL.
#define CMDLINE_WORD_MAX 256

struct boot_option {
	const char *name;	// "fpu", "test", "smp_debug" ...
	const char *help;	// one line shown in the error/--help list
	// Apply the value; 'value' is NULL when the option was given
	// without '='.  Returns 0, or -1 if the value is invalid.
	int (*set)(const char *value);
};

// Parses 'cmdline' (not modified) and calls the matching option's set()
// for each word, in order; a repeated option is set again, so the last
// one wins for setters that simply store.  Stops at the first word "--":
// *rest then points at the text after it, leading whitespace skipped
// (possibly ""), and is NULL if there is no "--".  'rest' may be NULL.
// On an unknown option, a value the setter rejects, an unterminated quote
// or an over-long word, writes a one-line message into 'err' (if errlen
// > 0) and returns -1; setters of the words before it have already run.
// Returns 0 on success.
int cmdline_parse(const char *cmdline, const struct boot_option *opts,
		  size_t nopts, const char **rest, char *err, size_t errlen);

// Writes one "  name  help" line per option into 'buf', for showing after
// a parse error.  Returns the length of the full text, like ksnprintf.
int cmdline_help(const struct boot_option *opts, size_t nopts, char *buf,
		 size_t len);

#endif
