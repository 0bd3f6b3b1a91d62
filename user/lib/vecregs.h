// Vector registers for tests of the extended-state policies: what the CPU
// and kernel enable, register images, and loading, storing and clobbering
// xmm0-15 (ymm0-15 with AVX).
//
// The registers are only touched inside asm blocks: compiled C may use
// xmm registers for anything between two statements.  Header-only and
// static inline, like the other files in user/lib.
#ifndef USER_VECREGS_H
#define USER_VECREGS_H

#include <cpuid.h>
#include <stdint.h>
#include <string.h>

#include "ktap.h"

#define VEC_CLOBBERS "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", \
	"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

static int has_avx;
static unsigned ymm_hi_offset;	// XSAVE offset of component 2 (AVX upper halves)

static inline uint64_t read_xcr0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

// AVX needs the CPU bit, OSXSAVE, and the OS enabling SSE+AVX in XCR0.
static inline void detect_vectors(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE) && (c & bit_AVX) &&
	    (read_xcr0() & 6) == 6) {
		has_avx = 1;
		__cpuid_count(0xd, 2, a, b, c, d);
		ymm_hi_offset = b;
	}
}

// 16 registers of 32 bytes; with SSE only the low 16 bytes matter.
struct vec_image {
	_Alignas(32) uint8_t reg[16][32];
};

static inline void fill_pattern(struct vec_image *v, unsigned seed)
{
	for (int r = 0; r < 16; r++)
		for (int i = 0; i < 32; i++)
			v->reg[r][i] = (uint8_t)(seed * 131 + r * 17 + i * 3 + 1);
}

static inline int image_width(void)
{
	return has_avx ? 32 : 16;
}

// Compare two images over the active width; report the first difference.
static inline int images_equal(const struct vec_image *a, const struct vec_image *b,
			       const char *what)
{
	for (int r = 0; r < 16; r++)
		if (memcmp(a->reg[r], b->reg[r], image_width()) != 0) {
			ktap_diag("%s: register %d differs", what, r);
			return 0;
		}
	return 1;
}

static inline void load_vectors(const struct vec_image *v)
{
	if (has_avx)
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "vmovdqu \\i*32(%0), %%ymm\\i\n\t"
				 ".endr" :: "r"(v->reg) : "memory", VEC_CLOBBERS);
	else
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "movdqu \\i*32(%0), %%xmm\\i\n\t"
				 ".endr" :: "r"(v->reg) : "memory", VEC_CLOBBERS);
}

static inline void store_vectors(struct vec_image *v)
{
	memset(v, 0, sizeof(*v));
	if (has_avx)
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "vmovdqu %%ymm\\i, \\i*32(%0)\n\t"
				 ".endr" :: "r"(v->reg) : "memory");
	else
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "movdqu %%xmm\\i, \\i*32(%0)\n\t"
				 ".endr" :: "r"(v->reg) : "memory");
}

static inline void clobber_vectors(void)
{
	if (has_avx)
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "vpcmpeqd %%ymm\\i, %%ymm\\i, %%ymm\\i\n\t"
				 ".endr" ::: VEC_CLOBBERS);
	else
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "pcmpeqd %%xmm\\i, %%xmm\\i\n\t"
				 ".endr" ::: VEC_CLOBBERS);
	// A rounding mode the interrupted code does not use.
	unsigned mxcsr = 0x1f80 | 0x6000;
	__asm__ volatile("ldmxcsr %0" :: "m"(mxcsr));
}

#endif
