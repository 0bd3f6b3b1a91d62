// What each user has, counted for the limits Linux sets per user (its
// ucounts): the real-time signals queued for the user's processes
// (RLIMIT_SIGPENDING, kernel/proc/signal.c) and the user's threads
// (RLIMIT_NPROC, kernel/proc/nproc.c) and the pages of the pipes they
// made (fs.pipe-user-pages-*, kernel/fs/pipe.c).  A record lives while one of its
// counts is not zero.  The lock is a leaf: taken under any other, it
// takes none.

#include <kernel/user_counts.h>
#include <kernel/spinlock.h>
#include <mm/kmalloc.h>

#define USER_BUCKETS		64

struct user_counts {
	uint32_t uid;
	uint64_t count[USER_COUNTERS];
	struct user_counts *next;
};

static struct user_counts *buckets[USER_BUCKETS];
static struct spinlock counts_lock = SPINLOCK_INIT("user_counts");

static struct user_counts **slot_of(uint32_t uid)
{
	struct user_counts **b = &buckets[uid % USER_BUCKETS];

	while (*b && (*b)->uid != uid)
		b = &(*b)->next;
	return b;
}

static bool all_zero(const struct user_counts *u)
{
	for (int k = 0; k < USER_COUNTERS; k++)
		if (u->count[k])
			return false;
	return true;
}

bool user_count_charge(uint32_t uid, enum user_counter k, uint64_t limit)
{
	uint64_t irq = spin_lock_irqsave(&counts_lock);
	struct user_counts **b = slot_of(uid), *u = *b;

	if (!u && limit > 0 && (u = kzalloc(sizeof(*u)))) {
		u->uid = uid;
		*b = u;
	}
	bool ok = u && u->count[k] < limit;
	if (ok)
		u->count[k]++;
	spin_unlock_irqrestore(&counts_lock, irq);
	return ok;
}

void user_count_uncharge(uint32_t uid, enum user_counter k)
{
	uint64_t irq = spin_lock_irqsave(&counts_lock);
	struct user_counts **b = slot_of(uid), *u = *b;

	if (u && u->count[k]) {
		u->count[k]--;
		if (all_zero(u)) {
			*b = u->next;
			kfree(u);
		}
	}
	spin_unlock_irqrestore(&counts_lock, irq);
}

uint64_t user_count_of(uint32_t uid, enum user_counter k)
{
	uint64_t irq = spin_lock_irqsave(&counts_lock);
	struct user_counts *u = *slot_of(uid);
	uint64_t n = u ? u->count[k] : 0;

	spin_unlock_irqrestore(&counts_lock, irq);
	return n;
}

bool user_count_add(uint32_t uid, enum user_counter k, int64_t n, uint64_t *now)
{
	uint64_t irq = spin_lock_irqsave(&counts_lock);
	struct user_counts **b = slot_of(uid), *u = *b;

	if (!u && n > 0 && (u = kzalloc(sizeof(*u)))) {
		u->uid = uid;
		*b = u;
	}
	if (u) {
		u->count[k] = n < 0 && (uint64_t)-n > u->count[k] ? 0 : u->count[k] + (uint64_t)n;
		*now = u->count[k];
		if (all_zero(u)) {
			*b = u->next;
			kfree(u);
		}
	} else {
		*now = 0;
	}
	spin_unlock_irqrestore(&counts_lock, irq);
	return u || n <= 0;
}
