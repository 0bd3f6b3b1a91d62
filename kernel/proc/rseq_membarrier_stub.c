// Placeholder for the rseq(2) work, which provides the real
// rseq_membarrier_restart() (include/kernel/rseq.h).  Until it lands,
// membarrier does not offer the RSEQ commands (they fail with EINVAL, as
// on a Linux built without CONFIG_RSEQ) and nothing calls this.  Delete
// this file when rseq(2) arrives.

#include <kernel/rseq.h>

void rseq_membarrier_restart(void)
{
}
