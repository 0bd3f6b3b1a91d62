// Transactional memory across context switches, signals, fork and system
// calls (tm.c), and the reclaim and recheckpoint routines under it (tm.S).
#ifndef ARCH_TM_H
#define ARCH_TM_H

#include <stdbool.h>
#include <stdint.h>
#include <arch/fpu_state.h>

struct thread;
struct trap_frame;

// tm.S: treclaim. into *ck (the transaction failing with 'cause'), and
// trechkpt. from it; MSR[TM], FP, VEC and VSX on, interrupts off.
void tm_reclaim_regs(struct tm_ckpt_regs *ck, uint64_t cause);
void tm_recheckpoint_regs(const struct tm_ckpt_regs *ck);

// Switch-out of a thread with TM state (t->arch.tm): its transaction,
// if it left the CPU inside one, is reclaimed.
void tm_reclaim_thread(struct thread *t);
// Return to user mode of a thread with TM state: a reclaimed
// transaction is recheckpointed.
void tm_recheckpoint_current(struct trap_frame *f);
// A signal is delivered: a transaction fails first.
void tm_fail_for_signal(struct thread *t, struct trap_frame *f);
// fork and clone: the child starts outside any transaction.
void tm_clear_child(struct trap_frame *child);
// sc inside a transaction aborts it instead of running; true if so.
bool tm_abort_syscall(struct trap_frame *f);

#endif
