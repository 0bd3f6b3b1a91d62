// Memory and string routines for the kernel.  They are kept simple: the
// kernel copies little in bulk, and what it does copy (pages, xsave areas)
// goes through memcpy/memset, which each arch provides in its own
// string.c, as fast as its CPU makes them (x86-64: the string
// instructions, ERMSB).
//
// Careful: the compiler recognises byte loops as memcpy/memset and would
// turn them into calls to themselves; memmove's loops are checked to stay
// loops.
#include <stddef.h>
#include <stdint.h>

#include <lib/string.h>

void *memmove(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	// Copy forwards when the destination starts below the source and
	// backwards otherwise, so overlapping bytes are read before they
	// are overwritten.  Compare as integers: the two pointers may point
	// into different objects.
	if ((uintptr_t)d <= (uintptr_t)s) {
		while (n-- > 0)
			*d++ = *s++;
	} else {
		while (n-- > 0)
			d[n] = s[n];
	}
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a;
	const uint8_t *y = b;

	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

size_t strnlen(const char *s, size_t maxlen)
{
	size_t n = 0;

	while (n < maxlen && s[n] != '\0')
		n++;
	return n;
}

// Characters compare as unsigned char, as the C standard requires.
int strcmp(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n > 0; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (*a == '\0')
			return 0;
	}
	return 0;
}

// Finds the first 'c'; searching for '\0' finds the terminator.
char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (*s == '\0')
			return NULL;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (*s == '\0')
			return (char *)last;
	}
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size > 0) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

size_t strlcat(char *dst, const char *src, size_t size)
{
	size_t dlen = strnlen(dst, size);

	// No terminator within 'size': there is no room to append at all.
	if (dlen == size)
		return size + strlen(src);
	return dlen + strlcpy(dst + dlen, src, size - dlen);
}
