// memcpy and memset for kernel/lib/string.c on ppc64: doublewords when
// both ends are aligned, bytes otherwise.  The kernel is built without
// VMX/VSX, so the vector loops of a libc are not available here.
#include <stddef.h>
#include <stdint.h>

#include <lib/string.h>

void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if ((((uintptr_t)d | (uintptr_t)s) & 7) == 0) {
		for (; n >= 8; n -= 8, d += 8, s += 8)
			*(uint64_t *)d = *(const uint64_t *)s;
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	if (((uintptr_t)d & 7) == 0) {
		uint64_t v = (unsigned char)c * 0x0101010101010101ULL;
		for (; n >= 8; n -= 8, d += 8)
			*(uint64_t *)d = v;
	}
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}
