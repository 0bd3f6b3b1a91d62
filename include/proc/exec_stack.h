// The initial user stack of a new program, laid out as the System V
// x86-64 ABI and Linux do, so that unmodified static binaries (their libc
// start code) find argc, argv, envp and the auxiliary vector.  Pure code:
// it fills a kernel buffer that stands for the top of the user stack.
#ifndef PROC_EXEC_STACK_H
#define PROC_EXEC_STACK_H

#include <stddef.h>
#include <stdint.h>

#include <uapi/auxv.h>

#define EXEC_STACK_MAX_AUXV	32

struct exec_stack_args {
	const char *const *argv;	// kernel copies of the strings
	int argc;
	const char *const *envp;
	int envc;
	const char *execfn;		// AT_EXECFN string; NULL: no AT_EXECFN
	const uint8_t *random16;	// AT_RANDOM bytes
	// Caller-provided pairs (AT_PHDR, AT_PHENT, AT_PHNUM, AT_PAGESZ,
	// AT_ENTRY, AT_BASE, AT_FLAGS, AT_UID, AT_EUID, AT_GID, AT_EGID,
	// AT_SECURE, AT_HWCAP, AT_HWCAP2, AT_CLKTCK, AT_MINSIGSTKSZ), in the
	// order they should appear.  The builder appends AT_RANDOM,
	// AT_EXECFN, AT_PLATFORM and AT_NULL itself.
	uint64_t auxv[EXEC_STACK_MAX_AUXV][2];
	int nauxv;
};

// Lays the stack out in 'buf', which stands for the user addresses
// [top - size, top), as Linux does with address randomization off.  From
// the top down: a zero word; the execfn string; the envp and argv strings
// (placed last to first, so that in memory they run contiguously from
// argv[0]'s to execfn); down to a multiple of 16, then the platform string
// the AT_PLATFORM string (ELF_PLATFORM) and the 16 AT_RANDOM bytes; then, ending 0 to 15 bytes below
// them and starting 16-aligned, argc, the argv pointers and NULL, the envp
// pointers and NULL, and the auxv pairs ending with AT_NULL.
// On success returns 0 and sets *sp to the user rsp at entry (the address
// of argc, a multiple of 16).  Returns -E2BIG if it does not fit, -EINVAL
// for malformed arguments (negative counts, NULL strings, too many auxv
// pairs, size > top).  On success, bytes of buf below *sp are untouched;
// on failure, buf holds garbage.
int exec_stack_build(uint8_t *buf, size_t size, uint64_t top,
		     const struct exec_stack_args *a, uint64_t *sp);

#endif
