// Memory and string routines for the freestanding kernel.  The names and
// prototypes are the standard C ones on purpose: gcc emits calls to
// memcpy, memset, memmove and memcmp on its own (struct copies, zeroing),
// and the host tests include this header next to the C library's.
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

size_t strlen(const char *s);
size_t strnlen(const char *s, size_t maxlen);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);

// OpenBSD-style bounded copy and append: the result is always
// NUL-terminated when size > 0, and the return value is the length of
// the string they tried to create, so 'ret >= size' means truncation.
size_t strlcpy(char *dst, const char *src, size_t size);
size_t strlcat(char *dst, const char *src, size_t size);

// Parses all of 's' as an unsigned number in 'base' (2..36), or, with
// base 0, in hex after "0x"/"0X", octal after a leading "0", else decimal;
// base 16 also accepts a "0x" prefix.  No sign, no whitespace.  Returns
// false, leaving *out untouched, if 's' is empty, has any character that
// is not a digit, or does not fit in 64 bits.
// Defined in kernel/lib/cmdline.c (its main user) so that the host tests,
// which cannot link string.c next to the C library, can exercise it.
bool parse_u64(const char *s, int base, uint64_t *out);

#endif
