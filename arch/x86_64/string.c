// memcpy and memset for kernel/lib/string.c: the string instructions,
// which CPUs with ERMSB make the fastest way to copy or fill.  The kernel
// keeps the direction flag clear at all times.
#include <stddef.h>

#include <lib/string.h>

void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;

	// rep movsb copies forwards, RCX bytes from [RSI] to [RDI].
	__asm__ volatile("rep movsb"
			 : "+D"(d), "+S"(src), "+c"(n)
			 :
			 : "memory");
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;

	// rep stosb stores AL into RCX bytes at [RDI].
	__asm__ volatile("rep stosb"
			 : "+D"(d), "+c"(n)
			 : "a"(c)
			 : "memory");
	return dst;
}
