// seccomp (kernel/security/seccomp.c): strict mode and classic-BPF
// filters over every system call, as Linux 6.1's.
#ifndef KERNEL_SECCOMP_H
#define KERNEL_SECCOMP_H

#include <stdbool.h>
#include <stdint.h>

#define SECCOMP_MODE_DISABLED	0
#define SECCOMP_MODE_STRICT	1
#define SECCOMP_MODE_FILTER	2

struct seccomp_filter;
struct syscall_args;
struct thread;

// A thread's part: its mode and the newest filter of its chain (filters
// are shared, referenced, with the threads and children made after).
struct seccomp_thread {
	int mode;
	int nfilters;
	struct seccomp_filter *filter;
};

// At every system call of a thread whose mode is not DISABLED: true if
// the call goes ahead; false with *ret the value it returns instead (or
// the thread does not come back: the kill actions).
bool seccomp_check(uint64_t nr, const struct syscall_args *args, long *ret);
// clone: the child runs under the parent's mode and filters.
void seccomp_fork(struct thread *child, const struct thread *parent);
void seccomp_thread_free(struct thread *t);
// prctl PR_SET_SECCOMP / PR_GET_SECCOMP.
long seccomp_prctl_set(uint64_t mode, uint64_t filter);

#endif
