// What the tests expect of the architecture they are built for: the
// names uname gives and the seccomp audit architecture.
#ifndef USER_ARCH_H
#define USER_ARCH_H

#if defined(__x86_64__)
#define UTS_MACHINE	"x86_64"
#define UTS_MACHINE32	"i686"		// under PER_LINUX32
#define AUDIT_ARCH_SELF	0xc000003eU	// AUDIT_ARCH_X86_64
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define UTS_MACHINE	"ppc64le"
#define UTS_MACHINE32	"ppc64le"	// no 32-bit personality: Linux ppc64le has COMPAT off by default
#define AUDIT_ARCH_SELF	0xc0000015U	// AUDIT_ARCH_PPC64LE
#else
#error "user/lib/arch.h: unknown architecture"
#endif

#endif
