// System V IPC objects (kernel/ipc/): what message queues, semaphores and
// shared memory share with each other, as Linux's
// ipc/util.c: keys, identifiers, the permission structure and its check.
#ifndef KERNEL_IPC_H
#define KERNEL_IPC_H

#include <stdbool.h>
#include <stdint.h>
#include <uapi/ipcbuf.h>

#define IPC_PRIVATE	0
#define IPC_CREAT	01000
#define IPC_EXCL	02000
#define IPC_NOWAIT	04000

#define IPC_RMID	0
#define IPC_SET		1
#define IPC_STAT	2
#define IPC_INFO	3
#define IPC_64		0x0100	// glibc's flag for the 64-bit structures: the only ones here

#define IPCMNI_SHIFT	15	// identifier = sequence << 15 | slot, as Linux
#define IPCMNI		(1 << IPCMNI_SHIFT)

// An object's owner, creator and mode (Linux's kern_ipc_perm), and its
// place in its kind's table.
struct ipc_perm_k {
	int32_t key;
	uint32_t uid, gid, cuid, cgid;
	uint32_t mode;			// the low 9 bits (shm adds SHM_DEST, SHM_LOCKED)
	uint16_t seq;
	int id;				// seq << IPCMNI_SHIFT | slot
	int slot;
	struct ipc_perm_k *next;	// in the table
};

// All objects of one kind (message queues, semaphore sets), each named
// by its ipc_perm_k.  Every call below is made with the kind's lock held.
struct ipc_table {
	struct ipc_perm_k *head;
	int count;
	uint16_t next_seq;
	int next_id_limit;		// IPC_MSG_NEXT_ID, IPC_SEM_NEXT_ID or IPC_SHM_NEXT_ID
};

struct ipc_perm_k *ipc_find_id(const struct ipc_table *t, int id);
struct ipc_perm_k *ipc_find_key(const struct ipc_table *t, int32_t key);
// By slot, as MSG_STAT and SEM_STAT ask: an identifier's sequence bits
// are ignored (Linux's ipcid_to_idx), so an identifier names its slot.
struct ipc_perm_k *ipc_find_slot(const struct ipc_table *t, int slot);
// The highest slot in use, 0 when none (what MSG_INFO and SEM_INFO return).
int ipc_top_slot(const struct ipc_table *t);
// Gives p a slot, sequence and identifier (the one msg_next_id or
// sem_next_id asks for, if set) and links it in: 0, or -ENOSPC when no
// slot is free.  The caller has checked the kind's count limit.
int ipc_insert(struct ipc_table *t, struct ipc_perm_k *p);
void ipc_remove(struct ipc_table *t, struct ipc_perm_k *p);
// The wall clock in seconds: the objects' stime, rtime, ctime.
int64_t ipc_now(void);


// ipcperms: may the caller do what 'flag' asks (0444 read, 0222 write,
// or msgget's low 9 bits) with the object?  Owner, then group, then
// others, unless CAP_IPC_OWNER.  0 or -EACCES.
int ipc_permitted(const struct ipc_perm_k *p, int flag);
// Is the caller the object's owner or creator, or has CAP_SYS_ADMIN
// (IPC_SET and IPC_RMID)?
bool ipc_owner_or_admin(const struct ipc_perm_k *p);
// A new object's permission structure: the caller's effective IDs as
// owner and creator, the mode from the get call's flags.
void ipc_perm_init(struct ipc_perm_k *p, int32_t key, int flags);
void ipc_perm_to_user(const struct ipc_perm_k *p, struct user_ipc64_perm *u);
// IPC_SET: the owner and the mode's low 9 bits from the caller's structure
// (Linux's ipc_update_perm); the caller has checked ipc_owner_or_admin.
void ipc_perm_from_user(struct ipc_perm_k *p, const struct user_ipc64_perm *u);

// Semaphore adjustments (SEM_UNDO, kernel/ipc/sem.c): a new process gets
// none, or shares its creator's list (CLONE_SYSVSEM; 0 or -ENOMEM); a
// process that ends lets go of its list, and the last user's
// adjustments are applied.
struct process;
int sem_undo_fork(struct process *child, bool share);
void sem_exit(struct process *p);

// Shared memory (kernel/ipc/shm.c): shmmax and shmall, unsigned longs as
// Linux's (bytes of one segment, pages of all), any value.
uint64_t shm_limit(bool all);
void shm_set_limit(bool all, uint64_t value);

// The limits /proc/sys/kernel/{msgmax,msgmnb,msgmni,sem} show and set,
// Linux's defaults at boot.  A change applies to what comes after it:
// msgmnb to queues made later, as Linux.
enum ipc_limit {
	IPC_MSGMAX,		// the largest message
	IPC_MSGMNB,		// a new queue's capacity in bytes
	IPC_MSGMNI,		// queues at most
	IPC_SEMMSL,		// semaphores in a set
	IPC_SEMMNS,		// semaphores in all (shown; sets are counted)
	IPC_SEMOPM,		// operations in one semop
	IPC_SEMMNI,		// sets at most
	IPC_SHMMNI,		// shared memory segments at most
	// msg_next_id, sem_next_id, shm_next_id: the identifier the next object gets
	// (Linux's CONFIG_CHECKPOINT_RESTORE), -1 when unset; taken, it
	// goes back to -1.
	IPC_MSG_NEXT_ID,
	IPC_SEM_NEXT_ID,
	IPC_SHM_NEXT_ID,
	IPC_NLIMITS
};
int ipc_limit(enum ipc_limit which);
// 0, or -EINVAL outside the limit's range (Linux's, but semmsl at most
// 32000 here: SETALL and GETALL copy a set's values through one buffer).
int ipc_set_limit(enum ipc_limit which, int64_t value);
bool ipc_limit_in_range(enum ipc_limit which, int64_t value);

// /proc/sysvipc/msg, sem and shm (procfs_sys.c makes the files).
struct vnode_ops;
extern const struct vnode_ops msg_proc_ops, sem_proc_ops, shm_proc_ops;

#endif
