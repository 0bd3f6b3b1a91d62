// Running out of memory (kernel/mm/oom.c).
//
// User pages come from the frames above a reserve that stays for the
// kernel's own needs (page tables, kernel stacks, buffers), so a process
// that touches memory until none is left never starves the kernel.  When
// a user page fault finds nothing above the reserve, the process with the
// most resident pages (never init) is killed with SIGKILL, and the
// faulting thread waits for its memory to come back and tries again.
#ifndef MM_OOM_H
#define MM_OOM_H

#include <stdbool.h>
#include <stdint.h>

struct mm;

// May a user page be allocated now (free frames above the reserve)?
bool oom_user_may_allocate(void);

// A user page fault (tries earlier attempts) failed for want of memory.
// Kills a victim if none is dying yet, then waits a little (if
// 'can_sleep') and says whether to try again.  False when the faulting
// process is the one to die (it has SIGKILL pending) or when waiting has
// gone on too long, in which case it is killed.
bool oom_retry(int tries, bool can_sleep);

// mm's last user has gone and its pages are about to be freed.
void oom_teardown_begins(struct mm *mm);
// mm is about to be freed: no victim search may still be looking at it.
void oom_forget_mm(struct mm *mm);

// The process being killed for memory, under the OOM lock.
struct oom_victim {
	struct mm *mm;		// chosen, not freed yet (NULL: none)
	uint64_t since;		// when it was chosen (ns)
	bool tearing_down;	// its address space is being freed
};

// Whether v still holds back the choice of another victim at 'now'
// (exposed for the in-kernel tests).
bool oom_victim_holds(const struct oom_victim *v, uint64_t now);

#endif
