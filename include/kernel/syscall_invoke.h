// The arch's system call entry runs the call here: inline, so that the
// common case (no seccomp filter, a number the table has) is a bounds
// check, a test and an indirect call (kernel/syscall/table.c does the rest).
#ifndef KERNEL_SYSCALL_INVOKE_H
#define KERNEL_SYSCALL_INVOKE_H

#include <kernel/syscall.h>
#include <kernel/thread.h>

static inline long syscall_invoke(struct thread *t, uint64_t nr, const struct syscall_args *args)
{
	syscall_fn fn = nr < SYSCALL_MAX ? syscall_table[nr] : 0;

	if (__builtin_expect(!fn || t->seccomp.mode != SECCOMP_MODE_DISABLED, 0))
		return syscall_invoke_slow(t, nr, args);
	return fn(args);
}

#endif
