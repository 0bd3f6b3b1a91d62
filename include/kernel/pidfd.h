// pidfds (kernel/proc/pidfd.c): descriptors that name a process, made by
// pidfd_open and clone's CLONE_PIDFD, for pidfd_send_signal,
// pidfd_getfd, waitid(P_PIDFD) and poll (readable once the process has
// exited).  A pidfd names the process it was made for even after its PID
// is reused (a PID and the process's start time).
#ifndef KERNEL_PIDFD_H
#define KERNEL_PIDFD_H

#include <stdbool.h>
#include <stdint.h>

struct file;
struct process;

// A new pidfd for the process 'pid' started at 'start_ns' (O_CLOEXEC
// always, as Linux; O_NONBLOCK from 'flags') installed in the caller's
// table: the descriptor, or a negative errno.  proc_tree_lock not held.
int pidfd_create(int pid, uint64_t start_ns, unsigned flags);
// Is f a pidfd?  Its process, under proc_tree_lock: NULL once reaped or
// when f is no pidfd.
bool file_is_pidfd(const struct file *f);
struct process *pidfd_process_locked(const struct file *f);
// The PID a pidfd was made for, 0 for another file.
int pidfd_pid(const struct file *f);
// waitid(P_PIDFD, fd): the PID to wait for and whether the pidfd is
// non-blocking; -EBADF for no pidfd, -ECHILD when its process is reaped.
int pidfd_wait_target(int fd, int *pid, bool *nonblocking);

#endif
