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
#include <uapi/syscall_nr.h>

struct trap_frame;

struct syscall_args {
	uint64_t a[6];
	struct trap_frame *frame;	// the user registers (fork, exec, signals)
};

typedef long (*syscall_fn)(struct syscall_args *args);

struct syscall_entry {
	int nr;
	const char *name;
	syscall_fn fn;
};

void syscall_table_init(void);
// Runs call nr from the table, without seccomp's check (for the
// multiplexers, ipc(2), whose outer call seccomp saw): -ENOSYS if none.
long syscall_call(uint64_t nr, struct syscall_args *args);
const char *syscall_name(uint64_t nr);
extern uint64_t syscalls_unknown;

#define SYSCALL_DEFINE(nr_, name_)					\
	static long sys_##name_(struct syscall_args *args);		\
	static const struct syscall_entry syscall_entry_##name_		\
	    __attribute__((used, section(".syscalls"), aligned(8))) =	\
	    { nr_, #name_, sys_##name_ };				\
	static long sys_##name_(struct syscall_args *args)

#endif
