// Window markers for ./switchyard profile (tools/insnprof/insnprof.c):
// instructions that change nothing, which the QEMU plugin recognises by
// their bytes.  profmark_start(id) clears its counters, profmark_stop(id)
// writes what ran since, in every mode and address space, kernel
// included.  On a machine without the plugin they are no-ops, so the
// same static binary runs anywhere.
#ifndef PROFMARK_H
#define PROFMARK_H

#define PROFMARK_START	0xf1
#define PROFMARK_STOP	0xf2

#if defined(__x86_64__)
// nopl 0x5359CCII(%rax): 0f 1f 80 II CC 59 53.
#define PROFMARK(cc, id) \
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, %c0, %c1, 0x59, 0x53" :: "i"(id), "i"(cc) : "memory")
#elif defined(__powerpc64__)
// xori r0,r0,0xCCII (r0 is only clobbered).
#define PROFMARK(cc, id) \
	__asm__ volatile("xori 0,0,%0" :: "i"(((cc) << 8) | (id)) : "r0", "memory")
#else
#error "profmark.h: no marker for this architecture"
#endif

#define profmark_start(id)	PROFMARK(PROFMARK_START, (id))
#define profmark_stop(id)	PROFMARK(PROFMARK_STOP, (id))

#endif
