// Counts kept per user (real uid) for Linux's per-user limits
// (kernel/proc/user_counts.c).
#ifndef KERNEL_USER_COUNTS_H
#define KERNEL_USER_COUNTS_H

#include <stdbool.h>
#include <stdint.h>

enum user_counter {
	USER_SIGPENDING,	// real-time signals queued (RLIMIT_SIGPENDING)
	USER_THREADS,		// threads (RLIMIT_NPROC)
	USER_PIPE_PAGES,	// pipe buffer pages (fs.pipe-user-pages-soft/hard)
	USER_COUNTERS
};

// One more for uid, unless that passes 'limit' (or memory is short):
// whether it was counted.  UINT64_MAX: no limit.
bool user_count_charge(uint32_t uid, enum user_counter k, uint64_t limit);
void user_count_uncharge(uint32_t uid, enum user_counter k);
uint64_t user_count_of(uint32_t uid, enum user_counter k);
// Adds n (which may be negative) to uid's count whatever it becomes
// (false only when memory for a new record is short); the new count in
// *now.
bool user_count_add(uint32_t uid, enum user_counter k, int64_t n, uint64_t *now);

#endif
