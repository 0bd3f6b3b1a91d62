// System calls.  Each is registered where it is implemented:
//
//	SYSCALL_DEFINE(SYS_read, read)
//	{
//		int fd = (int)args->a[0];
//		...
//		return n;	// or -EBADF etc.
//	}
//
// The return value goes to user space (x86-64: in rax; ppc64: in r3 with
// CR0[SO] for errors); negative values in [-4095, -1] are errors (Linux
// convention).
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H

#include <stdint.h>
#include <stdbool.h>
#include <uapi/syscall_nr.h>

struct trap_frame;

// The six arguments.  The entry code saves them into the user frame in
// this order, so a system call's args point into that frame (x86-64:
// its first six words; ppc64: r3-r8): read them, never write them.
struct syscall_args {
	uint64_t a[6];
};

typedef long (*syscall_fn)(const struct syscall_args *args);

struct syscall_entry {
	int nr;
	const char *name;
	syscall_fn fn;
};

void syscall_table_init(void);
// The arch's entry runs call nr for t (the current thread): seccomp's
// filter first when t has one, then the table (-ENOSYS if nothing).
// syscall_invoke (kernel/syscall_invoke.h) is inline for the common
// case: no filter, a number the table has; this does the rest.
struct thread;
extern syscall_fn syscall_table[SYSCALL_MAX];
long syscall_invoke_slow(struct thread *t, uint64_t nr, const struct syscall_args *args);
// Runs call nr from the table, without seccomp's check (for the
// multiplexers, ipc(2), whose outer call seccomp saw): -ENOSYS if none.
long syscall_call(uint64_t nr, const struct syscall_args *args);
// The calling thread's user registers (fork, exec, signals, seccomp).
struct trap_frame *syscall_frame(void);
const char *syscall_name(uint64_t nr);
extern uint64_t syscalls_unknown;

#define SYSCALL_DEFINE(nr_, name_)					\
	static long sys_##name_(const struct syscall_args *args);	\
	static const struct syscall_entry syscall_entry_##name_		\
	    __attribute__((used, section(".syscalls"), aligned(8))) =	\
	    { nr_, #name_, sys_##name_ };				\
	static long sys_##name_(const struct syscall_args *args)

#endif
