// Control messages of AF_UNIX sockets: SCM_RIGHTS (descriptors in
// flight) and SCM_CREDENTIALS, parsed on send and written on receive as
// Linux's __scm_send, put_cmsg and scm_detach_fds; and the collector of
// sockets that only messages in flight keep alive (Linux's unix_gc).
//
// The collector.  A socket whose file's every reference is held by
// queued messages (refcount == inflight) is a candidate.  References
// from candidates' own queues are subtracted; a candidate with some left
// is reachable from outside, and so is every candidate its queue holds.
// The candidates left over form cycles nobody can reach: their queues
// are purged, which drops the last references and closes them.  Every
// count it reads changes under unix_lock, which it holds throughout.

#include <net/unix.h>
#include <fs/fcntl.h>
#include <fs/file.h>
#include <fs/fs_syscall.h>
#include <kernel/cred.h>
#include <kernel/process.h>
#include <kernel/uaccess.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define INFLIGHT_MAX	65536	// descriptors in flight at once, whoever sent them

struct cmsghdr_k {
	uint64_t len;
	int32_t level;
	int32_t type;
};

#define CMSG_HDR	sizeof(struct cmsghdr_k)
#define CMSG_ALIGN(n)	(((n) + 7) & ~(size_t)7)
#define CMSG_SPACE(n)	(CMSG_HDR + CMSG_ALIGN(n))
#define CMSG_LEN(n)	(CMSG_HDR + (n))

static int files_inflight;	// every descriptor in flight
static int socks_inflight;	// of which are sockets: the collector's work

// Descriptors in flight per sending user (real uid), as Linux's
// user->unix_inflight; an entry lives while its count is not 0.
struct uid_inflight {
	uint32_t uid;
	int count;
	struct uid_inflight *next;
};
static struct uid_inflight *uid_inflight;

static struct uid_inflight **uid_slot_locked(uint32_t uid)
{
	struct uid_inflight **pp = &uid_inflight;

	while (*pp && (*pp)->uid != uid)
		pp = &(*pp)->next;
	return pp;
}

// ---- sending ----

static long add_rights(const struct cmsghdr_k *h, struct scm_send *scm)
{
	const int32_t *fds = (const int32_t *)(h + 1);
	int n = (int)((h->len - CMSG_HDR) / sizeof(int32_t));

	if (n <= 0)
		return 0;
	if (scm->nfds + n > SCM_MAX_FD)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		struct file *f = fds[i] < 0 ? NULL : fget_raw(fds[i]);
		if (!f)
			return -EBADF;
		scm->fds[scm->nfds++] = f;
	}
	return 0;
}

// Linux's scm_check_creds: the caller's own pid and ids unless it has
// CAP_SYS_ADMIN, CAP_SETUID, CAP_SETGID; then the pid must exist and the
// ids be valid.
static long add_creds(const struct cmsghdr_k *h, struct scm_send *scm)
{
	const struct cred *c = current_cred();
	struct ucred_k u;

	if (h->len != CMSG_LEN(sizeof(u)))
		return -EINVAL;
	memcpy(&u, h + 1, sizeof(u));
	if ((u.pid != current_process()->pid && !cred_capable(c, CAP_SYS_ADMIN)) ||
	    (u.uid != c->uid && u.uid != c->euid && u.uid != c->suid &&
	     !cred_capable(c, CAP_SETUID)) ||
	    (u.gid != c->gid && u.gid != c->egid && u.gid != c->sgid &&
	     !cred_capable(c, CAP_SETGID)))
		return -EPERM;
	if (u.pid != current_process()->pid && !process_find(u.pid))
		return -ESRCH;
	if (u.uid == (uint32_t)-1 || u.gid == (uint32_t)-1)
		return -EINVAL;
	scm->has_creds = true;
	scm->creds = u;
	return 0;
}

long scm_parse(const void *ctl, size_t len, struct scm_send *scm)
{
	size_t off = 0;
	long rc;

	while (off + CMSG_HDR <= len) {
		const struct cmsghdr_k *h = (const void *)((const char *)ctl + off);

		if (h->len < CMSG_HDR || h->len > len - off)
			return -EINVAL;
		if (h->level == SOL_SOCKET) {
			if (h->type == SCM_RIGHTS)
				rc = add_rights(h, scm);
			else if (h->type == SCM_CREDENTIALS)
				rc = add_creds(h, scm);
			else
				rc = -EINVAL;
			if (rc)
				return rc;
		}
		off += CMSG_ALIGN(h->len);
	}
	// Linux's too_many_unix_fds: the caller's user may have at most
	// RLIMIT_NOFILE in flight unless privileged; and nobody past a
	// global ceiling.
	if (scm->nfds) {
		const struct cred *c = current_cred();
		uint64_t limit = current_process()->rlimits[RLIMIT_NOFILE_INDEX].cur;
		uint64_t flags = spin_lock_irqsave(&unix_lock);
		struct uid_inflight *u = *uid_slot_locked(c->uid);
		int all = files_inflight, mine = u ? u->count : 0;

		spin_unlock_irqrestore(&unix_lock, flags);
		if (all + scm->nfds > INFLIGHT_MAX ||
		    ((uint64_t)mine > limit && !cred_capable(c, CAP_SYS_RESOURCE) &&
		     !cred_capable(c, CAP_SYS_ADMIN)))
			return -ETOOMANYREFS;
	}
	return 0;
}

void scm_release(struct scm_send *scm)
{
	for (int i = 0; i < scm->nfds; i++)
		file_put(scm->fds[i]);
	scm->nfds = 0;
}

// ---- receiving ----

static void put_cmsg(struct umsg *m, int type, const void *data, size_t len)
{
	struct cmsghdr_k h = { CMSG_LEN(len), SOL_SOCKET, type };
	size_t room = m->controllen;

	if (room < CMSG_HDR) {
		m->out_flags |= MSG_CTRUNC;
		return;
	}
	if (room < h.len) {
		m->out_flags |= MSG_CTRUNC;
		h.len = room;
	}
	if (copy_to_user(m->ucontrol, &h, CMSG_HDR) < 0 ||
	    copy_to_user(m->ucontrol + CMSG_HDR, data, h.len - CMSG_HDR) < 0)
		return;
	room = CMSG_SPACE(len) < m->controllen ? CMSG_SPACE(len) : m->controllen;
	m->ucontrol += room;
	m->controllen -= room;
	m->control_used += room;
}

// Installs as many descriptors as fit; the rest are closed and the
// message says MSG_CTRUNC.
static void detach_fds(struct umsg *m, struct file **fds, int nfds)
{
	int max = m->controllen > CMSG_HDR ? (int)((m->controllen - CMSG_HDR) / sizeof(int32_t)) : 0;
	bool cloexec = m->flags & MSG_CMSG_CLOEXEC;
	int i;

	if (max > nfds)
		max = nfds;
	for (i = 0; i < max; i++) {
		int fd = fd_install(current_fdtable(), fds[i], 0, cloexec);
		if (fd < 0)
			break;
		if (put_user_u32(m->ucontrol + CMSG_HDR + i * sizeof(int32_t), (uint32_t)fd) < 0) {
			fd_close(current_fdtable(), fd);
			break;
		}
	}
	if (i > 0) {
		struct cmsghdr_k h = { CMSG_LEN(i * sizeof(int32_t)), SOL_SOCKET, SCM_RIGHTS };
		if (copy_to_user(m->ucontrol, &h, CMSG_HDR) == 0) {
			size_t used = CMSG_SPACE(i * sizeof(int32_t));
			if (used > m->controllen)
				used = m->controllen;
			m->ucontrol += used;
			m->controllen -= used;
			m->control_used += used;
		}
	}
	if (i < nfds)
		m->out_flags |= MSG_CTRUNC;
}

void scm_recv(struct usock *s, struct umsg *m, const struct unix_skb *skb, struct file **fds,
	      int nfds)
{
	if (!m->ucontrol) {
		if (s->passcred || nfds)
			m->out_flags |= MSG_CTRUNC;
	} else {
		if (s->passcred) {
			// A message sent without credentials: Linux's no pid
			// and invalid ids, shown as the overflow ids.
			struct ucred_k c = { 0, 65534, 65534 };
			if (skb->has_creds)
				c = skb->creds;
			put_cmsg(m, SCM_CREDENTIALS, &c, sizeof(c));
		}
		if (nfds)
			detach_fds(m, fds, nfds);
	}
	for (int i = 0; i < nfds; i++)
		file_put(fds[i]);
	kfree(fds);
}

// ---- in flight ----

struct uid_inflight *unix_uid_entry_alloc(void)
{
	return kmalloc(sizeof(struct uid_inflight));
}

static void file_inflight_locked(struct file *f, int delta)
{
	struct usock *u = sock_of_file(f);

	files_inflight += delta;
	if (u) {
		u->inflight += delta;
		socks_inflight += delta;
	}
}

void unix_skb_inflight_add_locked(struct unix_skb *skb)
{
	struct uid_inflight **pp;

	if (!skb->nfds)
		return;
	for (int i = 0; i < skb->nfds; i++)
		file_inflight_locked(skb->fds[i], 1);
	pp = uid_slot_locked(skb->fds_uid);
	if (!*pp) {
		// The entry the message brought for the case (unix_skb_alloc).
		*pp = skb->uid_entry;
		skb->uid_entry = NULL;
		(*pp)->uid = skb->fds_uid;
		(*pp)->count = 0;
		(*pp)->next = NULL;
	}
	(*pp)->count += skb->nfds;
}

void unix_skb_inflight_del_locked(struct unix_skb *skb)
{
	struct uid_inflight **pp, *u;

	if (!skb->nfds)
		return;
	for (int i = 0; i < skb->nfds; i++)
		file_inflight_locked(skb->fds[i], -1);
	pp = uid_slot_locked(skb->fds_uid);
	u = *pp;
	u->count -= skb->nfds;
	if (u->count == 0) {
		*pp = u->next;
		kfree(u);
	}
}

// ---- the collector ----

// Calls fn on every candidate socket a message of u's queues (its own and
// its embryos') holds (lock held).
static void for_each_child(struct usock *u, void (*fn)(struct usock *child))
{
	struct usock *q = u;

	while (q) {
		for (struct unix_skb *skb = q->rq_head; skb; skb = skb->next)
			for (int i = 0; i < skb->nfds; i++) {
				struct usock *c = sock_of_file(skb->fds[i]);
				if (c && c->gc_candidate)
					fn(c);
			}
		q = q == u ? u->embryos : q->embryo_next;
	}
}

static void dec_refs(struct usock *c)
{
	c->gc_refs--;
}

static bool gc_changed;

static void reach(struct usock *c)
{
	if (!c->gc_reached) {
		c->gc_reached = true;
		gc_changed = true;
	}
}

static struct unix_skb *collect_locked(void)
{
	struct unix_skb *garbage = NULL;

	for (struct usock *u = unix_first_sock_locked(); u; u = u->all_next) {
		u->gc_candidate = u->file && u->inflight > 0 &&
				  __atomic_load_n(&u->file->refcount, __ATOMIC_ACQUIRE) == u->inflight;
		u->gc_refs = u->inflight;
		u->gc_reached = false;
	}
	for (struct usock *u = unix_first_sock_locked(); u; u = u->all_next)
		if (u->gc_candidate)
			for_each_child(u, dec_refs);
	for (struct usock *u = unix_first_sock_locked(); u; u = u->all_next)
		if (u->gc_candidate && u->gc_refs > 0)
			u->gc_reached = true;
	do {
		gc_changed = false;
		for (struct usock *u = unix_first_sock_locked(); u; u = u->all_next)
			if (u->gc_candidate && u->gc_reached)
				for_each_child(u, reach);
	} while (gc_changed);
	for (struct usock *u = unix_first_sock_locked(); u; u = u->all_next) {
		if (!u->gc_candidate || u->gc_reached)
			continue;
		for (struct usock *q = u; q; q = q == u ? u->embryos : q->embryo_next) {
			struct unix_skb *list = unix_purge_locked(q), *tail = list;
			if (!list)
				continue;
			while (tail->next)
				tail = tail->next;
			tail->next = garbage;
			garbage = list;
		}
	}
	return garbage;
}

void unix_gc(void)
{
	struct unix_skb *garbage;
	uint64_t flags;

	flags = spin_lock_irqsave(&unix_lock);
	garbage = collect_locked();
	spin_unlock_irqrestore(&unix_lock, flags);
	// Freeing closes the garbage, whose release may collect again: the
	// free list does that without recursing.
	unix_skb_free_list(garbage);
}

void unix_gc_maybe(void)
{
	if (__atomic_load_n(&socks_inflight, __ATOMIC_RELAXED))
		unix_gc();
}
