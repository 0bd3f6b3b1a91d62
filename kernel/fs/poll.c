// The global poll sequence number and wait queue (see fs/poll.h).

#include <fs/poll.h>
#include <kernel/wait.h>
#include <kernel/spinlock.h>
#include <uapi/errno.h>

static struct spinlock poll_lock = SPINLOCK_INIT("poll");
static struct wait_queue poll_wq;
static uint64_t seq;
static int sleepers;		// pollers between sampling and sleeping

// Notifier and poller each store then load (sequentially consistent), so
// at least one sees the other: either the poller sees the new sequence
// number, or the notifier sees a sleeper and takes the lock to wake it.
void poll_notify(void)
{
	__atomic_add_fetch(&seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&sleepers, __ATOMIC_SEQ_CST) == 0)
		return;
	uint64_t flags = spin_lock_irqsave(&poll_lock);
	wq_wake_all(&poll_wq);
	spin_unlock_irqrestore(&poll_lock, flags);
}

uint64_t poll_seq(void)
{
	return __atomic_load_n(&seq, __ATOMIC_SEQ_CST);
}

int poll_wait_change(uint64_t old, uint64_t deadline)
{
	int rc = 0;
	uint64_t flags = spin_lock_irqsave(&poll_lock);

	__atomic_add_fetch(&sleepers, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&seq, __ATOMIC_SEQ_CST) == old)
		rc = wq_wait(&poll_wq, &poll_lock, deadline, true);
	__atomic_sub_fetch(&sleepers, 1, __ATOMIC_SEQ_CST);
	spin_unlock_irqrestore(&poll_lock, flags);
	return rc;
}
