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

// mm is about to be freed: no victim search may still be looking at it.
void oom_forget_mm(struct mm *mm);

#endif
