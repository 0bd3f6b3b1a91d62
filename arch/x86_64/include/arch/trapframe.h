// The register frame saved on the kernel stack by every entry from user
// space or interrupt: the general registers pushed by entry.S, then the
// vector and error code, then what the CPU pushes for an interrupt.
// Syscalls build the same frame so that fork, exec and signals have one
// layout to work with.  The first six are a system call's arguments in
// their order, so the frame itself is its struct syscall_args.
#ifndef ARCH_TRAPFRAME_H
#define ARCH_TRAPFRAME_H

#ifndef __ASSEMBLY__
#include <stdint.h>

struct trap_frame {
	uint64_t rdi, rsi, rdx, r10, r8, r9;	// struct syscall_args
	uint64_t rax, rbx, rcx, rbp, r11, r12, r13, r14, r15;
	uint64_t vector;
	uint64_t error;		// a system call's number (for restarting it)
	uint64_t rip, cs, rflags, rsp, ss;
};
#endif

// Segment selectors, laid out as Linux does so user-visible values match.
#define SEL_KERNEL_CS	0x10
#define SEL_KERNEL_DS	0x18
#define SEL_USER32_CS	0x23
#define SEL_USER_DS	0x2b
#define SEL_USER_CS	0x33
#define SEL_TSS		0x38

// The vector recorded in the frame of a system call.
#define VECTOR_SYSCALL	0x100

#ifndef __ASSEMBLY__
static inline int trap_from_user(const struct trap_frame *f)
{
	return (f->cs & 3) == 3;
}
#endif

// The ABI a system call came through, as Linux's audit names it
// (AUDIT_ARCH_X86_64: seccomp_data.arch, SIGSYS's si_arch).
#define ARCH_AUDIT_ARCH	0xc000003eU

#endif
