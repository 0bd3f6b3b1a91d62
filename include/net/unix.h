// AF_UNIX sockets (kernel/net/), Linux 6.1's model.
//
// A socket is a vnode of type VNODE_SOCK outside the tree (its inode
// number is /proc/PID/fd's "socket:[INO]") whose priv is a struct usock,
// behind exactly one open file.  A name in the file tree is a separate
// VNODE_SOCK node that bind creates; the bound socket holds a reference
// on it and connect finds the socket by it.  Abstract names
// (sun_path[0] == 0) live only in the list of sockets.
//
// Locking.  One lock, unix_lock, guards every socket's state, peer,
// queues, counters and the list of sockets: a connection touches two
// sockets at once and a single lock has no order to get wrong.  User
// memory is never touched under it: data is copied into a message (skb)
// before it is queued, and out of a queued message with only the
// socket's iolock (a sleeping lock that orders readers) held; only the
// reader holding iolock takes messages off a queue, so the one it copies
// from stays (the other purges: a close, when nobody can be reading; a
// datagram reconnect, which takes the iolock; the collector, on sockets
// no descriptor reaches).  Files are never put under unix_lock either
// (the last put of a socket takes it), nor sockets (usock_put takes it):
// purged messages go to unix_skb_free_list, whose one drainer frees them
// without recursing into the closes they cause.
//
// Lifetime.  A usock is referenced by its vnode, by the peer pointer of
// the socket connected to it, by the messages it sent that still count
// against its send buffer, and by its listener's queue while it waits for
// accept (an embryo).  The vnode's release is the close: the socket goes
// dead, its queue is purged and its peer told, and the struct goes with
// its last reference.
#ifndef NET_UNIX_H
#define NET_UNIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kernel/mutex.h>
#include <kernel/spinlock.h>
#include <kernel/wait.h>
#include <fs/iobuf.h>
#include <fs/poll.h>

struct file;
struct vnode;
struct uid_inflight;

#define AF_UNSPEC	0
#define AF_UNIX		1
#define AF_MAX		46	// Linux 6.1's NPROTO

#define SOCK_STREAM	1
#define SOCK_DGRAM	2
#define SOCK_RAW	3
#define SOCK_SEQPACKET	5
#define SOCK_MAX	11
#define SOCK_TYPE_MASK	0xf

#define MSG_OOB		0x1
#define MSG_PEEK	0x2
#define MSG_CTRUNC	0x8
#define MSG_TRUNC	0x20
#define MSG_DONTWAIT	0x40
#define MSG_EOR		0x80
#define MSG_WAITALL	0x100
#define MSG_NOSIGNAL	0x4000
#define MSG_WAITFORONE	0x10000
#define MSG_CMSG_COMPAT	0x80000000u
#define MSG_CMSG_CLOEXEC 0x40000000

#define SOL_SOCKET	1
#define SCM_RIGHTS	1
#define SCM_CREDENTIALS	2
#define SCM_MAX_FD	253

#define SHUT_RD		0
#define SHUT_WR		1
#define SHUT_RDWR	2
#define RCV_SHUTDOWN	1
#define SEND_SHUTDOWN	2
#define SHUTDOWN_MASK	3

#define UNIX_PATH_MAX	108
#define SUN_PATH_OFF	2		// offsetof(struct sockaddr_un, sun_path)
#define SOCKADDR_STORAGE 128		// the most of an address the kernel takes
#define SOMAXCONN	4096		// net.core.somaxconn
#define MAX_DGRAM_QLEN	10		// net.unix.max_dgram_qlen
#define WMEM_DEFAULT	212992		// net.core.wmem_default and wmem_max
#define RMEM_DEFAULT	212992		// net.core.rmem_default and rmem_max
#define SOCK_MIN_SNDBUF	4608		// 2 * SKB_TRUESIZE(256)
#define SOCK_MIN_RCVBUF	2304		// SKB_TRUESIZE(256)
#define SKB_OVERHEAD	512		// what a message costs besides its bytes
#define OPTMEM_MAX	20480		// net.core.optmem_max: control data of one sendmsg

enum usock_state {
	US_UNCONNECTED,		// Linux's TCP_CLOSE
	US_LISTEN,
	US_CONNECTED,		// TCP_ESTABLISHED: a peer (dgram: a default destination)
};

// A bound name: the sockaddr as Linux stores it, and its length (path
// names count their NUL).
struct unix_addr {
	int refcount;		// atomic
	int len;
	char name[SUN_PATH_OFF + UNIX_PATH_MAX + 1];
};

struct ucred_k {
	int32_t pid;
	uint32_t uid, gid;
};

// One message in a receive queue.
struct unix_skb {
	struct unix_skb *next;
	struct usock *sender;	// referenced: the send buffer it counts against
	struct unix_addr *from;	// the sender's name when it was sent, or NULL
	size_t len;		// bytes of data
	size_t consumed;	// stream: bytes already read
	size_t truesize;	// what it counts for in sender->wmem
	bool has_creds;
	struct ucred_k creds;
	bool peeked;		// an empty datagram MSG_PEEK has seen (Linux's skb->peeked)
	int nfds;		// SCM_RIGHTS: files in flight (referenced)
	struct file **fds;
	uint32_t fds_uid;	// who sent them (real uid), for the per-user count
	struct uid_inflight *uid_entry;	// that count's entry if it needs one
	char data[];
};

struct usock {
	int refcount;		// atomic
	int type, protocol;
	enum usock_state state;
	bool dead;		// closed (Linux's SOCK_DEAD)
	uint8_t shutdown;	// RCV_SHUTDOWN | SEND_SHUTDOWN
	int err;		// SO_ERROR (sk_err)
	struct usock *peer;	// referenced
	struct unix_addr *addr;	// bound name, referenced
	struct vnode *path;	// the tree node of a path name, referenced
	// Receive queue; a listener's holds nothing, its embryos are on
	// 'embryos' (accept order), linked through embryo_next.
	struct unix_skb *rq_head, *rq_tail;
	int rq_len;
	uint64_t rq_seq;	// messages ever queued: a reader past them all waits for more
	int peek_off;		// SO_PEEK_OFF, -1: off
	struct usock *embryos, *embryos_tail, *embryo_next;
	int nembryos;
	int backlog;		// sk_max_ack_backlog
	size_t wmem;		// truesize of its messages still queued somewhere
	int sndbuf, rcvbuf;
	bool passcred;
	bool reuseaddr, keepalive, broadcast, dontroute, oobinline, debug;
	bool linger_on;
	uint64_t linger_jiffies;
	int priority;
	int lowat;
	int64_t rcvtimeo, sndtimeo;	// ns; -1 forever, 0 never wait
	bool has_peercred;
	struct ucred_k peercred;
	struct wait_queue wq;		// its readers, accepters and writers
	struct wait_queue peer_wq;	// senders and connectors waiting for room here
	struct mutex iolock;		// orders readers (see above)
	struct poll_events events;	// fs/poll.h
	struct vnode *vn;		// its own vnode (NULL for an embryo)
	struct file *file;		// the one file on it (not referenced)
	// Garbage collection of descriptors in flight (kernel/net/scm.c).
	int inflight;		// how many queued messages hold its file
	int gc_refs;
	bool gc_candidate, gc_reached;
	struct usock *all_next, **all_pprev;	// every socket
};

extern struct spinlock unix_lock;

// ---- the socket layer (kernel/net/socket.c) ----

// The socket behind f, or NULL (not a socket).
struct usock *sock_of_file(const struct file *f);
// Descriptor lookup for the socket calls: -EBADF, -ENOTSOCK.
struct file *sock_fget(int fd, struct usock **s, long *err);
void usock_get(struct usock *s);
void usock_put(struct usock *s);
// A new socket (no file), or NULL for ENOMEM; ENFILE past the limit.
struct usock *usock_new(int type, int protocol, long *err);
// A file (O_RDWR and 'flags' & O_NONBLOCK) on a vnode for s, taking
// over the caller's reference; NULL (s put) when out of memory.
struct file *usock_file(struct usock *s, uint32_t flags);
// A socket file with no socket yet, and giving it one (taking over the
// reference): accept makes the file before it takes a connection.
struct file *sock_file_alloc(uint32_t flags);
void sock_file_attach(struct file *f, struct usock *s);
// The list of every socket (lock held).
struct usock *unix_first_sock_locked(void);
// readv and writev on a socket: one message of all the segments.
long sock_rw_iov(struct file *f, const void *uiov, int64_t count, bool write);
// Wake-ups: readers and writers of s and every poller.
void usock_wake_locked(struct usock *s, int key);
// The caller's process id and ids, for credentials.
void current_ucred(struct ucred_k *c);

// ---- messages (kernel/net/sock_msg.c) ----

struct sock_iovec {
	uint64_t base;
	uint64_t len;
};

// The data of one send or receive: user segments, or one buffer.
struct msg_iter {
	const struct sock_iovec *iov;
	int nseg;
	struct iobuf *buf;	// when iov is NULL
	int seg;
	size_t off;		// in the current segment (or buf)
	size_t left;		// bytes still to move
};

int iter_copy_from(struct msg_iter *it, void *dst, size_t n);
int iter_copy_to(struct msg_iter *it, const void *src, size_t n);

// Parsed control data of a send.
struct scm_send {
	int nfds;
	struct file *fds[SCM_MAX_FD];	// referenced
	bool has_creds;
	struct ucred_k creds;
};

// A send or receive as the protocols see it.
struct umsg {
	struct msg_iter it;
	size_t len;			// total bytes
	int flags;			// MSG_*; receive: MSG_DONTWAIT added for O_NONBLOCK
	// send: the destination (namelen 0: none)
	struct unix_addr to;
	struct scm_send *scm;		// NULL: no control data
	// receive: where the results go
	bool want_name;
	struct unix_addr name;		// the sender's, namelen 0 if it had none
	uint64_t ucontrol;
	size_t controllen;		// room left in ucontrol
	size_t control_used;
	int out_flags;			// msg_flags
};

// The receive side of control data (kernel/net/scm.c): credentials and
// descriptors of a message into m's control buffer; *fds are taken over.
void scm_recv(struct usock *s, struct umsg *m, const struct unix_skb *skb, struct file **fds,
	      int nfds);
// Parses a sendmsg's control data (kernel copy 'ctl', 'len' bytes).
long scm_parse(const void *ctl, size_t len, struct scm_send *scm);
void scm_release(struct scm_send *scm);

// ---- protocols ----

long unix_stream_send(struct usock *s, struct file *f, struct umsg *m);
long unix_stream_recv(struct usock *s, struct file *f, struct umsg *m);
long unix_dgram_send(struct usock *s, struct file *f, struct umsg *m);
long unix_dgram_recv(struct usock *s, struct file *f, struct umsg *m);
int unix_stream_poll(struct usock *s);
int unix_dgram_poll(struct usock *s);
// A new message for s carrying len bytes; its credentials and
// descriptors from 'scm' (taken over), charged to s's send buffer.
// NULL when out of memory.
struct unix_skb *unix_skb_alloc(struct usock *s, size_t len, struct scm_send *scm, bool fds);
// Queue skb at 'to' (lock held): the descriptors go in flight.
void unix_skb_queue_locked(struct usock *to, struct unix_skb *skb);
// Frees messages no queue holds any more (no lock held).
void unix_skb_free(struct unix_skb *skb);
// Takes the whole receive queue of s (lock held), to free later.
struct unix_skb *unix_purge_locked(struct usock *s);
void unix_skb_free_list(struct unix_skb *list);
// SO_PEEK_OFF after a read: a peek moves it forward, a read back (never
// below 0); nothing while it is off (lock held).
void unix_peek_off_moved_locked(struct usock *s, bool peek, size_t n);
// The waiting time of a send or receive: 0 with MSG_DONTWAIT.
int64_t unix_timeo(int64_t timeo, int flags);
// Sleeps on wq for at most timeo (updated); 0, -EAGAIN once it is
// spent, -ERESTARTSYS / -EINTR for a signal (as Linux's sock_intr_errno).
int unix_wait(struct wait_queue *wq, int64_t *timeo);
// Credentials a message carries: explicit ones, else the sender's when
// either end passes them (Linux's maybe_add_creds); lock held.
void unix_add_creds_locked(struct unix_skb *skb, struct usock *s, struct usock *other);
// Linux's sock_alloc_send_pskb before it allocates: a pending error, a
// shut-down send side (-EPIPE), room in the send buffer (lock held).
long unix_wait_for_wmem_locked(struct usock *s, int64_t *timeo);
// A datagram socket's old peer is gone or left (unix_dgram_disconnected).
void unix_dgram_disconnected(struct usock *s, struct usock *old);

// ---- names (kernel/net/unix_addr.c) ----

// Checks a user address (a copy of addrlen bytes in 'a') and makes it
// Linux's unix_address: -EINVAL for a bad one.
int unix_addr_make(const void *a, int addrlen, struct unix_addr *out);
// An address to user space as Linux's move_addr_to_user: as much as
// *ulen allows, the whole length back in *ulen.  0 or -EFAULT/-EINVAL.
long unix_put_addr(const struct unix_addr *a, uint64_t uaddr, uint64_t ulen);
// The listening or datagram socket a name leads to, referenced: -ENOENT
// and the path errors, -ECONNREFUSED, -EACCES (write permission), or
// -EPROTOTYPE for another type.
int unix_find_other(const struct unix_addr *a, int type, struct usock **out);
// bind with only the family, and the implicit one of SO_PASSCRED.
int unix_autobind(struct usock *s);
void unix_addr_put(struct unix_addr *a);
// The vnode's last reference: the close (kernel/net/socket.c calls it).
void unix_release(struct usock *s);

// ---- descriptors in flight (kernel/net/scm.c) ----

// A queued message's descriptors go in flight, or come out of it (taken
// by a reader or purged), counted per socket and per sending user.
void unix_skb_inflight_add_locked(struct unix_skb *skb);
// An entry for the per-user count, which a message carrying descriptors
// brings along in case its sender has none yet (NULL: out of memory).
struct uid_inflight *unix_uid_entry_alloc(void);
void unix_skb_inflight_del_locked(struct unix_skb *skb);
// Frees the sockets only messages in flight keep (cycles).
void unix_gc(void);
// A socket descriptor was closed: collect if anything is in flight.
void unix_gc_maybe(void);

#endif
