// Formatted output for Switchyard: one formatting engine (kvformat) that
// feeds characters to a caller-supplied sink, so the console, the log
// buffer and string buffers all share the same, host-tested code.
//
// Supported: %d %i %u %x %X %o %p %s %c %%, length modifiers hh h l ll z t j,
// flags - 0 + space #, width and precision (both may be '*').
// Deliberately absent: floating point (the kernel is built with
// -mgeneral-regs-only) and %n.
// %s with a NULL pointer prints "(null)" (nothing if the precision is below
// 6, as glibc does); %p prints 0x-prefixed hex, and "(nil)" for NULL.
// An unknown conversion is printed as-is, e.g. "%y" prints "%y".
#ifndef LIB_PRINTF_H
#define LIB_PRINTF_H

#include <stdarg.h>
#include <stddef.h>

// Receives the formatted text one character at a time.
typedef void (*format_out_fn)(void *arg, char c);

// Formats 'fmt' into 'out'; returns the number of characters emitted.
int kvformat(format_out_fn out, void *arg, const char *fmt, va_list ap);

// C99 vsnprintf semantics: writes at most size-1 characters plus a NUL
// (when size > 0) and returns the length the full output would have had.
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int ksnprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
// Appends to the text of 'len' characters in buf (of 'size' bytes);
// returns the new length, which stops at size - 1 when the text is cut.
// For building a file's text piece by piece without overflow checks.
size_t kappendf(char *buf, size_t size, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
