// Facilities: per-thread CPU state that is expensive to switch and that
// many threads never touch (x86-64: the x87/SSE/AVX/AVX-512 registers and
// AMX tile data; ppc64: FP, VMX/VSX, TM).  Each can be switched off, so
// that a thread's first use traps ("facility unavailable") and the kernel
// loads its state only then.  kernel/sched/facility.c decides, under the
// policy chosen at boot (xstate=), when state is saved, loaded, reset and
// switched on; the architecture only supplies the mechanisms
// (arch/facility_arch.h).
//
// Where one thread's state of one facility is, at any moment:
//
//	unused		nothing to keep: the initial state (never used since
//			exec, or a signal handler's fresh start)
//	saved		in the thread's save area
//	live on CPU n	in CPU n's registers (cpus[n].fac[f].owner is the
//			thread); the save area is stale while that CPU's
//			'dirty' is set
//
// A thread's fac_thread records the first two ('saved'), and 'live_cpu'
// the third; a CPU's fac_cpu says whose state its registers hold.  Only
// the CPU itself changes its fac_cpu, with interrupts off; another CPU
// that needs the state there asks it with a cross-CPU call.
#ifndef KERNEL_FACILITY_H
#define KERNEL_FACILITY_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <arch/facility_arch.h>	// the arch's facilities: FAC_*, NR_FACILITIES

struct thread;
struct trap_frame;

// The arch's mechanisms for facility f, which the policy below drives.
const char *arch_fac_name(int f);		// for messages: "FP", "AMX"
bool arch_fac_present(int f);			// the CPU has it (and it is enabled)
// Can t use facility f at all (the CPU has it, t may use it, and its save
// area has room)?  Only then may it be loaded without a trap.
bool arch_fac_usable(int f, struct thread *t);
// A trap from t's first use: 0 if the facility can be given to t now
// (the save area grown if it must be), else the signal to send (SIGILL:
// no such facility or no permission; SIGSEGV: no memory for the area).
int arch_fac_prepare(int f, struct thread *t);
void arch_fac_save(int f, struct thread *t);	// registers -> t's area
void arch_fac_restore(int f, struct thread *t);	// t's area -> registers
void arch_fac_load_init(int f);			// registers <- initial state
void arch_fac_reset_area(int f, struct thread *t); // t's area <- initial state
void arch_fac_switch(int f, bool on);		// gate for user mode

// Per CPU and facility, exported in /proc/switchyard/facilities.
struct fac_stats {
	uint64_t traps;		// facility-unavailable traps taken from user mode
	uint64_t saves;		// state written to a save area
	uint64_t save_skips;	// switch-out with nothing to save
	uint64_t restores;	// a thread's saved state loaded
	uint64_t restore_skips;	// return to user with the state still live here
	uint64_t inits;		// initial state loaded for a thread that had none
	uint64_t resets;	// leak guard: another process's state wiped
	uint64_t eager_loads;	// loads at return to user (policy), not traps
	uint64_t fetches;	// state pulled from another CPU's registers
};

struct fac_cpu {
	struct thread *owner;	// whose state the registers hold, or NULL
	uint64_t space;		// address-space id of the state in the
				// registers (0: the initial state)
	bool dirty;		// registers changed since owner's area was written
	bool closed;		// the policy switched the gate off, and no save
				// or load has opened it since (false: unknown)
	struct fac_stats stats;
};

struct fac_thread {
	bool saved;		// the save area holds the state (else: initial state)
	bool on;		// switched on at the last return to user
	uint8_t load_count;	// the seed's counter: eager loads while nonzero
	int16_t live_cpu;	// CPU whose registers may hold the state, -1 none
	uint32_t traps;		// this thread's traps and loads, for
	uint32_t loads;		// /proc/switchyard/thread_facilities
};

enum fac_policy_kind {
	FAC_EAGER,	// load at every return to user; save at every switch-out
	FAC_LAZY,	// load only on a trap; save at switch-out if used
	FAC_COUNTER,	// as lazy, but load eagerly for N switches after a trap
	FAC_DEFERRED,	// counter, and keep state live until someone else needs
			// the registers (the default)
};

struct fac_policy {
	enum fac_policy_kind kind;
	unsigned window;	// COUNTER, DEFERRED: eager loads after a trap
};

// The policy's name ("deferred:256"; FAC_POLICY_NAME_MAX with its NUL).
#define FAC_POLICY_NAME_MAX 16
void fac_policy_name(char *buf, size_t size);
// Changes the policy at run time; -1 for a name xstate= would refuse.
int fac_set_policy(const char *value);

// The switch path (fac_switch_out, kernel/facility_return.h) for a
// facility f that was on for prev or whose registers are prev's.
void fac_switch_out_one(struct thread *prev, int f);
// The policy in force, the facilities present (bit f; 0 until
// fac_present_facilities has looked), and the decision for facility f
// of t outside the common case (live: its state is in this CPU's
// registers), for kernel/facility_return.h.
extern struct fac_policy fac_policy;
extern uint32_t fac_present;
uint32_t fac_present_facilities(void);
void fac_decide(struct thread *t, int f, bool live);
// A facility-unavailable trap, decoded by the arch: which facility, and
// whether it came from user mode (else: a kernel bug, a panic).
void fac_trap(int f, bool from_user, uint64_t ip, struct trap_frame *frame);

// The calling thread's save area is made current (signal frames, fork).
// The current thread's state of f live here and switched on (no trap
// counted); interrupts off.
void fac_make_live(int f);
void fac_sync(struct thread *t);
// t (the caller) starts afresh with the initial state (exec, handler).
void fac_reset(struct thread *t);
// t's save area is about to be written (sigreturn): the registers must
// not keep a copy that would be saved over it later.  Sets 'saved'.
void fac_take_area(struct thread *t);

// Thread life: a new thread's state, a child's copy of its parent's, and
// the end of a thread (its registers are no one's any more).
void fac_thread_init(struct thread *t);
void fac_thread_copy(struct thread *child, struct thread *parent);
void fac_thread_exit(struct thread *t);

#endif
