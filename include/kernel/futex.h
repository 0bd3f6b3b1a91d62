// Futexes: user-space addresses threads can sleep on.
#ifndef KERNEL_FUTEX_H
#define KERNEL_FUTEX_H

#include <stdint.h>

struct thread;

// Wakes up to n waiters on uaddr in the current address space (as for a
// private futex and a shared one); returns the number woken.
int futex_wake_current(uint64_t uaddr, int n);

// The owner of the PI lock at uaddr (current address space) died and its
// robust list marked the word: its oldest waiter takes it over now.
void futex_pi_owner_died(uint64_t uaddr);

// Thread t has ended and its TID is free: waiters on PI locks it owned
// take them over (Linux's exit_pi_state_list).
void futex_owner_exited(struct thread *t);

// The thread is dying or execing: every lock on its robust list that it
// still owns is marked FUTEX_OWNER_DIED and one waiter woken.  Must run
// in the thread, on its own address space.
void futex_release_robust_list(struct thread *t);

#endif
