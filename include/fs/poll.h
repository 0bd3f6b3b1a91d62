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

// Sleeps until the sequence number differs from 'seq' (0), the absolute
// monotonic 'deadline' passes (-ETIMEDOUT; WAIT_FOREVER for none) or a
// signal arrives (-EINTR).
int poll_wait_change(uint64_t seq, uint64_t deadline);

#endif
