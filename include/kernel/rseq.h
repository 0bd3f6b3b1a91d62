// Restartable sequences (rseq(2)), as Linux: a thread registers a small
// area of its memory where the kernel keeps the thread's CPU number (and
// node and concurrency id) current, and where the thread names the
// critical section it is in; a critical section that loses the CPU
// (preemption, migration, a signal, membarrier's RSEQ command) resumes
// at its abort handler instead of where it was.  kernel/proc/rseq.c.
#ifndef KERNEL_RSEQ_H
#define KERNEL_RSEQ_H

#include <stdint.h>
#include <stdbool.h>

struct thread;
struct trap_frame;

// Why a critical section must restart (Linux's event bits).
#define RSEQ_EV_PREEMPT	0x1	// another thread ran here, or membarrier asked
#define RSEQ_EV_SIGNAL	0x2	// a signal handler is about to run

// Per thread, zero when nothing is registered (a new thread's state).
struct rseq_thread {
	uint64_t area;		// user address of its struct rseq, 0 = none
	uint32_t len;		// length given at registration
	uint32_t sig;		// the word every abort handler must follow
	uint32_t events;	// RSEQ_EV_* not yet acted on (atomic: IPIs)
	volatile bool resume;	// work to do on the way to user space
	bool ids_written;	// the area holds cpu_written and cid_written
	bool has_cid;		// holds cid in its address space's set
	uint32_t cid;		// concurrency id (mm_cid), valid with has_cid
	uint32_t cpu_written, cid_written;
};

static inline bool rseq_registered(const struct rseq_thread *r)
{
	return r->area != 0;
}

// Scheduler: a registered thread leaves its CPU (any switch, voluntary or
// not; the caller tests rseq_registered, so others pay only that test).
void rseq_switched_out(struct thread *t);

// Return to user space: anything to do?  Then rseq_resume, with
// interrupts on; it may sleep (user memory) and kills the process with
// SIGSEGV when the area or the critical section's descriptor is bad.
static inline bool rseq_resume_pending(const struct rseq_thread *r)
{
	return r->resume;
}
void rseq_resume(struct trap_frame *f);
// Signal delivery, before the handler's frame is built: a critical
// section the signal interrupts restarts at its abort handler (the
// frame then returns there).
void rseq_signal_deliver(struct trap_frame *f);

// Called in an interrupt handler (membarrier's
// MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ IPI): if this CPU's current
// thread is registered and in a critical section when it next returns to
// user space, it restarts at its abort handler.
void rseq_membarrier_restart(void);

// Process layer: fork keeps the registration (a new thread does not),
// exec and exit drop it.
void rseq_fork(struct thread *child, const struct thread *parent, uint64_t clone_flags);
void rseq_exec(struct thread *t);
void rseq_thread_exit(struct thread *t);

// Arch: the user instruction pointer in a frame.
uint64_t arch_frame_ip(const struct trap_frame *f);
void arch_frame_set_ip(struct trap_frame *f, uint64_t ip);

#endif
