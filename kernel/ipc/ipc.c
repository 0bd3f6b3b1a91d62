// What the System V IPC objects share (kernel/ipc.h), as Linux's
// ipc/util.c.

#include <kernel/ipc.h>
#include <kernel/cred.h>
#include <kernel/time.h>
#include <lib/string.h>
#include <uapi/errno.h>

#define CAP_IPC_OWNER	15

int ipc_permitted(const struct ipc_perm_k *p, int flag)
{
	const struct cred *c = current_cred();
	int requested = (flag >> 6) | (flag >> 3) | flag;
	int granted = (int)p->mode;

	if (c->euid == p->cuid || c->euid == p->uid)
		granted >>= 6;
	else if (cred_in_group(c, p->cgid) || cred_in_group(c, p->gid))
		granted >>= 3;
	if ((requested & ~granted & 0007) && !cred_capable(c, CAP_IPC_OWNER))
		return -EACCES;
	return 0;
}

bool ipc_owner_or_admin(const struct ipc_perm_k *p)
{
	const struct cred *c = current_cred();

	return c->euid == p->cuid || c->euid == p->uid || cred_capable(c, CAP_SYS_ADMIN);
}

void ipc_perm_init(struct ipc_perm_k *p, int32_t key, int flags)
{
	const struct cred *c = current_cred();

	p->key = key;
	p->uid = p->cuid = c->euid;
	p->gid = p->cgid = c->egid;
	p->mode = (uint32_t)flags & 0777;
}

void ipc_perm_to_user(const struct ipc_perm_k *p, struct user_ipc64_perm *u)
{
	memset(u, 0, sizeof(*u));
	u->key = p->key;
	u->uid = p->uid;
	u->gid = p->gid;
	u->cuid = p->cuid;
	u->cgid = p->cgid;
	u->mode = p->mode;
	u->seq = p->seq;
}

void ipc_perm_from_user(struct ipc_perm_k *p, const struct user_ipc64_perm *u)
{
	p->uid = u->uid;
	p->gid = u->gid;
	p->mode = (p->mode & ~0777u) | (u->mode & 0777);
}

// Linux 6.1's defaults (include/uapi/linux/msg.h, sem.h, shm.h) and ranges
// (ipc/ipc_sysctl.c: 0..INT_MAX, the counts of objects 0..IPCMNI).
static int limits[IPC_NLIMITS] = {
	[IPC_MSGMAX] = 8192, [IPC_MSGMNB] = 16384, [IPC_MSGMNI] = 32000,
	[IPC_SEMMSL] = 32000, [IPC_SEMMNS] = 1024000000, [IPC_SEMOPM] = 500,
	[IPC_SEMMNI] = 32000, [IPC_SHMMNI] = 4096, [IPC_MSG_NEXT_ID] = -1,
	[IPC_SEM_NEXT_ID] = -1, [IPC_SHM_NEXT_ID] = -1,
};

static const int limit_max[IPC_NLIMITS] = {
	[IPC_MSGMAX] = INT32_MAX, [IPC_MSGMNB] = INT32_MAX, [IPC_MSGMNI] = IPCMNI,
	[IPC_SEMMSL] = 32000, [IPC_SEMMNS] = INT32_MAX, [IPC_SEMOPM] = INT32_MAX,
	[IPC_SEMMNI] = IPCMNI, [IPC_SHMMNI] = IPCMNI, [IPC_MSG_NEXT_ID] = INT32_MAX,
	[IPC_SEM_NEXT_ID] = INT32_MAX, [IPC_SHM_NEXT_ID] = INT32_MAX,
};

int ipc_limit(enum ipc_limit which)
{
	return __atomic_load_n(&limits[which], __ATOMIC_RELAXED);
}

bool ipc_limit_in_range(enum ipc_limit which, int64_t value)
{
	return value >= 0 && value <= limit_max[which];
}

int ipc_set_limit(enum ipc_limit which, int64_t value)
{
	if (!ipc_limit_in_range(which, value))
		return -EINVAL;
	__atomic_store_n(&limits[which], (int)value, __ATOMIC_RELAXED);
	return 0;
}

// The identifier asked for with msg_next_id or sem_next_id (reset to -1
// as it is taken), or -1.
static int take_next_id(enum ipc_limit which)
{
	return __atomic_exchange_n(&limits[which], -1, __ATOMIC_RELAXED);
}

// ---- the tables ----

struct ipc_perm_k *ipc_find_id(const struct ipc_table *t, int id)
{
	for (struct ipc_perm_k *p = t->head; p; p = p->next)
		if (p->id == id)
			return p;
	return NULL;
}

struct ipc_perm_k *ipc_find_key(const struct ipc_table *t, int32_t key)
{
	for (struct ipc_perm_k *p = t->head; p; p = p->next)
		if (p->key == key)
			return p;
	return NULL;
}

struct ipc_perm_k *ipc_find_slot(const struct ipc_table *t, int slot)
{
	slot &= IPCMNI - 1;
	for (struct ipc_perm_k *p = t->head; p; p = p->next)
		if (p->slot == slot)
			return p;
	return NULL;
}

int ipc_top_slot(const struct ipc_table *t)
{
	int top = 0;

	for (struct ipc_perm_k *p = t->head; p; p = p->next)
		if (p->slot > top)
			top = p->slot;
	return top;
}

// The table is kept in order of slot, so that the first free slot is
// found in one pass and /proc/sysvipc lists in Linux's (the idr's) order.
// *at is where an object in that slot goes in the list.
static int free_slot(struct ipc_table *t, int from, struct ipc_perm_k ***at)
{
	struct ipc_perm_k **pp = &t->head;
	int slot = from;

	while (*pp && (*pp)->slot <= slot) {
		if ((*pp)->slot == slot)
			slot++;
		pp = &(*pp)->next;
	}
	*at = pp;
	return slot < IPCMNI ? slot : -1;
}

int ipc_insert(struct ipc_table *t, struct ipc_perm_k *p)
{
	int want = take_next_id((enum ipc_limit)t->next_id_limit);
	struct ipc_perm_k **at;

	if (want >= 0) {
		// Linux's ipc_idr_alloc: the sequence asked for, and the
		// first free slot at or above the one asked for.
		p->seq = (uint16_t)(want >> IPCMNI_SHIFT);
		p->slot = free_slot(t, want & (IPCMNI - 1), &at);
	} else {
		p->seq = t->next_seq++;
		p->slot = free_slot(t, 0, &at);
	}
	if (p->slot < 0)
		return -ENOSPC;
	p->id = (p->seq << IPCMNI_SHIFT) | p->slot;
	p->next = *at;
	*at = p;
	t->count++;
	return 0;
}

void ipc_remove(struct ipc_table *t, struct ipc_perm_k *p)
{
	for (struct ipc_perm_k **pp = &t->head; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			t->count--;
			return;
		}
	}
}

int64_t ipc_now(void)
{
	return (int64_t)(clock_realtime_ns() / 1000000000ULL);
}
