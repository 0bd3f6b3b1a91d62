// Futexes: user-space addresses threads can sleep on.
#ifndef KERNEL_FUTEX_H
#define KERNEL_FUTEX_H

#include <stdint.h>

// Wakes up to n waiters on uaddr in the current address space (as for a
// private futex and a shared one); returns the number woken.
int futex_wake_current(uint64_t uaddr, int n);

#endif
