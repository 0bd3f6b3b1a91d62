// Readiness and the one wait queue poll/select sleep on.
//
// A thread sleeps on one wait queue at a time, so poll(2) cannot queue on
// every pipe it watches.  Instead every state change that could make some
// descriptor ready (data in, space freed, an end closed, console input)
// bumps a global sequence number and wakes the global poll queue; a
// poller samples the number, checks its descriptors, and sleeps only if
// the number is still the same.  No wake-up is lost; a poller may wake
// for somebody else's change and simply checks again.
#ifndef FS_POLL_H
#define FS_POLL_H

#include <stdint.h>

#define POLLIN		0x0001
#define POLLPRI		0x0002
#define POLLOUT		0x0004
#define POLLERR		0x0008
#define POLLHUP		0x0010
#define POLLNVAL	0x0020
#define POLLRDNORM	0x0040
#define POLLRDBAND	0x0080
#define POLLWRNORM	0x0100
#define POLLWRBAND	0x0200
#define POLLRDHUP	0x2000

// Something may have become ready.  Cheap when nobody polls.  Callable
// from interrupt context.
void poll_notify(void);

uint64_t poll_seq(void);

// Edge-triggered epoll must see every event on an object, not only its
// readiness now: a second write to a readable pipe wakes an EPOLLET
// waiter again, as on Linux, where each wake-up of the object's queue
// reaches the epoll items whose events meet the wake-up's key.  So each
// pollable object counts its wake-ups by key, its notifiers call
// poll_event (before poll_notify) where Linux's object wakes its queue,
// and vnode_ops.poll_events / file_poll_events report the count an item
// interested in some events follows.
struct poll_events {
	uint64_t in;	// key POLLIN: data arrived
	uint64_t out;	// key POLLOUT: room was made
	uint64_t all;	// no key (hang-ups, changes of state): every item
};

// A wake-up with 'key': POLLIN, POLLOUT, or 0 for everyone.
static inline void poll_event(struct poll_events *ev, int key)
{
	if (!key)
		__atomic_add_fetch(&ev->all, 1, __ATOMIC_SEQ_CST);
	if (key & POLLIN)
		__atomic_add_fetch(&ev->in, 1, __ATOMIC_SEQ_CST);
	if (key & POLLOUT)
		__atomic_add_fetch(&ev->out, 1, __ATOMIC_SEQ_CST);
}

// The count of the wake-ups that reach an item asking for 'events' (a sum
// of counts that only grow: it changes exactly when one of them does).
static inline uint64_t poll_events_for(struct poll_events *ev, uint32_t events)
{
	uint64_t n = __atomic_load_n(&ev->all, __ATOMIC_SEQ_CST);

	if (events & (POLLIN | POLLRDNORM))
		n += __atomic_load_n(&ev->in, __ATOMIC_SEQ_CST);
	if (events & (POLLOUT | POLLWRNORM))
		n += __atomic_load_n(&ev->out, __ATOMIC_SEQ_CST);
	return n;
}

// Sleeps until the sequence number differs from 'seq' (0), the absolute
// monotonic 'deadline' passes (-ETIMEDOUT; WAIT_FOREVER for none) or a
// signal arrives (-EINTR).
int poll_wait_change(uint64_t seq, uint64_t deadline);

#endif
