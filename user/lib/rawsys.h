// System calls without libc (x86-64 Linux ABI): for the fuzzer and the
// allocation-failure test, which make calls that libc would wrap,
// check or get confused by (errno is thread-local storage, and their
// threads may have none).  Each returns the kernel's raw result: a
// negative errno on failure.
//
// raw_clone_exit() is the call for fork, vfork, clone and clone3: the
// child it creates, if any, exits at once with status 0 inside the same
// asm statement, so it never touches the stack (it may share the
// parent's, or have been given a random one) nor any other memory.
#ifndef USER_RAWSYS_H
#define USER_RAWSYS_H

#include <stdint.h>

static inline long raw_syscall6(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
				uint64_t a4, uint64_t a5)
{
	long ret;
	register uint64_t r10 __asm__("r10") = a3;
	register uint64_t r8 __asm__("r8") = a4;
	register uint64_t r9 __asm__("r9") = a5;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline long raw_syscall3(long nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	return raw_syscall6(nr, a0, a1, a2, 0, 0, 0);
}

// A system call that may create a process or thread (the child's return
// value is 0): the child calls exit(0) at once, without using memory.
static inline long raw_clone_exit(long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
				  uint64_t a4, uint64_t a5)
{
	long ret;
	register uint64_t r10 __asm__("r10") = a3;
	register uint64_t r8 __asm__("r8") = a4;
	register uint64_t r9 __asm__("r9") = a5;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "mov $60, %%eax\n\t"	// SYS_exit: only this thread
			 "xor %%edi, %%edi\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

// clone() of a thread that sleeps on the futex word *go while it is 0,
// then exits; it runs on no stack at all (none is given and it never
// needs one).  Returns the thread's id or a negative errno.
static inline long raw_clone_sleeper(uint64_t flags, volatile int *go, volatile int *ctid)
{
	long ret;
	register uint64_t r10 __asm__("r10") = (uint64_t)ctid;
	register uint64_t r8 __asm__("r8") = 0;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 2f\n"
			 "1:\n\t"
			 "mov $202, %%eax\n\t"	// futex(go, FUTEX_WAIT, 0, NULL)
			 "mov %%rbx, %%rdi\n\t"
			 "xor %%esi, %%esi\n\t"
			 "xor %%edx, %%edx\n\t"
			 "xor %%r10d, %%r10d\n\t"
			 "syscall\n\t"
			 "cmpl $0, (%%rbx)\n\t"
			 "je 1b\n\t"
			 "mov $60, %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "2:"
			 : "=a"(ret), "+r"(r10)
			 : "a"(56), "D"(flags), "S"(0), "d"(0), "r"(r8), "b"(go)
			 : "rcx", "r11", "memory");
	return ret;
}

#endif
