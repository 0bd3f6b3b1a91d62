// Auxiliary vector entry types (the a_type of each auxv pair on a new
// process's stack), with the values the Linux x86-64 ABI gives them.
#ifndef UAPI_AUXV_H
#define UAPI_AUXV_H

#define AT_NULL		0	// end of the vector
#define AT_PHDR		3	// address of the program headers
#define AT_PHENT	4	// size of one program header
#define AT_PHNUM	5	// number of program headers
#define AT_PAGESZ	6	// page size
#define AT_BASE		7	// interpreter base (0: none)
#define AT_FLAGS	8
#define AT_ENTRY	9	// program entry point
#define AT_UID		11
#define AT_EUID		12
#define AT_GID		13
#define AT_EGID		14
#define AT_PLATFORM	15	// address of ELF_PLATFORM's string (uapi/machine.h)
#define AT_HWCAP	16	// CPUID leaf 1 EDX
#define AT_CLKTCK	17	// times() ticks per second
#define AT_SECURE	23	// nonzero for set-id programs
#define AT_RANDOM	25	// address of 16 random bytes
#define AT_HWCAP2	26
#define AT_EXECFN	31	// address of the executed file's name
#define AT_RSEQ_FEATURE_SIZE 27	// rseq(2): end of the area's known fields
#define AT_RSEQ_ALIGN	28	// rseq(2): the area's alignment
#define AT_MINSIGSTKSZ	51	// signal frame size the kernel needs

#endif
