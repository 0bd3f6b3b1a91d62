// membarrier(2): process-wide memory barriers (kernel/sched/membarrier.c,
// docs/membarrier.md).
#ifndef KERNEL_MEMBARRIER_H
#define KERNEL_MEMBARRIER_H

#include <stddef.h>
#include <stdint.h>

struct mm;

// Registrations of an address space, in mm->membarrier_state.  Each kind
// has two bits: the first is set before every CPU running the address
// space has been told (the switch path and the IPIs act on it from then
// on), the READY bit once they all have (the commands check that one, so
// a command never runs on a half-published registration).
#define MB_GLOBAL_EXPEDITED		(1 << 0)
#define MB_GLOBAL_EXPEDITED_READY	(1 << 1)
#define MB_PRIVATE_EXPEDITED		(1 << 2)
#define MB_PRIVATE_EXPEDITED_READY	(1 << 3)
#define MB_SYNC_CORE			(1 << 4)
#define MB_SYNC_CORE_READY		(1 << 5)
#define MB_RSEQ				(1 << 6)
#define MB_RSEQ_READY			(1 << 7)

// The scheduler (and exec, and a thread giving up its address space):
// this CPU now runs a user thread of 'mm' (NULL: idle or a kernel
// thread).  Interrupts off.  Free when 'mm' is what the CPU already
// published; otherwise full barriers around the publication, and a core
// serialization when 'mm' is registered for SYNC_CORE.
void membarrier_switch_mm(struct mm *mm);

// Every tick, every CPU: a full barrier that MEMBARRIER_CMD_GLOBAL
// counts as a quiescent state.
void membarrier_tick(void);

// /proc/switchyard/mbstat: a header line, then per online CPU its
// struct mb_rt_stats and the cycle counter's rate (cycles_per_ms), in
// the layout of cpustat.  Returns the length written.
size_t membarrier_stat_render(char *buf, size_t size);
#define MBSTAT_SIZE_MAX (128 + MAX_CPUS * (4 + 7 * 21 + 1))	// MAX_CPUS: kernel/cpu.h

#endif
