// rseq(2): restartable sequences.
#ifndef KERNEL_RSEQ_H
#define KERNEL_RSEQ_H

// membarrier's PRIVATE_EXPEDITED_RSEQ, in its IPI handler on a target
// CPU: the current user thread restarts its rseq critical section (if it
// is in one) at its abort handler on its way back to user space.
void rseq_membarrier_restart(void);

#endif
