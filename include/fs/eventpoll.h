// epoll (kernel/fs/eventpoll.c): an epoll descriptor is an anonymous file
// ("anon_inode:[eventpoll]") holding an interest list of items, each keyed
// by (file, fd) as on Linux.  Items hold no reference on their file: the
// last close of a file removes it from every epoll set (file_put calls
// eventpoll_release), while a dup keeps it.
//
// Readiness is not pushed to the epoll set as on Linux (a thread sleeps on
// one wait queue here, fs/poll.h): epoll_wait scans its items with
// file_poll and sleeps on the global poll sequence.  Edge-triggered items
// compare each file's event count (file_poll_events) with the one they
// last reported, so every new event reports once, as Linux's wake-ups do.
#ifndef FS_EVENTPOLL_H
#define FS_EVENTPOLL_H

#include <stdint.h>
#include <uapi/machine.h>

struct file;

#define EPOLLIN		0x00000001u
#define EPOLLPRI	0x00000002u
#define EPOLLOUT	0x00000004u
#define EPOLLERR	0x00000008u
#define EPOLLHUP	0x00000010u
#define EPOLLRDNORM	0x00000040u
#define EPOLLRDBAND	0x00000080u
#define EPOLLWRNORM	0x00000100u
#define EPOLLWRBAND	0x00000200u
#define EPOLLMSG	0x00000400u
#define EPOLLRDHUP	0x00002000u
#define EPOLLEXCLUSIVE	(1u << 28)
#define EPOLLWAKEUP	(1u << 29)
#define EPOLLONESHOT	(1u << 30)
#define EPOLLET		(1u << 31)

#define EPOLL_CTL_ADD	1
#define EPOLL_CTL_DEL	2
#define EPOLL_CTL_MOD	3

#define EPOLL_CLOEXEC	02000000

// Linux's struct epoll_event: packed (12 bytes) on x86-64 alone, with
// the natural padding (16 bytes) elsewhere.
#ifdef ARCH_EPOLL_PACKED
struct epoll_event {
	uint32_t events;
	uint64_t data;
} __attribute__((packed));
#else
struct epoll_event {
	uint32_t events;
	uint64_t data;
};
#endif

// The last reference to f is gone: its items leave every epoll set.
void eventpoll_release(struct file *f);

// kcmp's KCMP_EPOLL_TFD: in *out the file of the toff-th item of the set
// f watching descriptor tfd (an address to compare, not a reference): 0,
// -EINVAL if f is not an epoll set, -ENOENT if there is no such item.
long eventpoll_target(struct file *f, int tfd, uint32_t toff, const struct file **out);

#endif
