// Credentials: who a process is (user and group IDs, supplementary
// groups) and what it may do (capabilities), and the permission checks
// built on them (kernel/proc/cred.c, kernel/proc/cred_perm.c).
//
// Each thread has its credentials, as on Linux (a set*id call changes the
// calling thread's; C libraries make it in every thread).  The process
// keeps a copy of the pointer that the last change installed, for others
// to look at (kill, /proc, capget by pid).  A cred is immutable once
// published: a change makes a new one and swaps the pointers under
// cred_lock, so a reader holding a reference sees one consistent set of
// IDs, and a thread reads its own without any lock.
#ifndef KERNEL_CRED_H
#define KERNEL_CRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NGROUPS_MAX	65536

// Linux's capability numbers that the checks here use.
#define CAP_CHOWN		0
#define CAP_DAC_OVERRIDE	1
#define CAP_DAC_READ_SEARCH	2
#define CAP_FOWNER		3
#define CAP_FSETID		4
#define CAP_KILL		5
#define CAP_SETGID		6
#define CAP_SETUID		7
#define CAP_SETPCAP		8
#define CAP_LINUX_IMMUTABLE	9
#define CAP_SYS_CHROOT		18
#define CAP_SYS_PTRACE		19
#define CAP_SYS_ADMIN		21
#define CAP_SYS_NICE		23
#define CAP_SYS_RESOURCE	24
#define CAP_SYS_TIME		25
#define CAP_SYS_TTY_CONFIG	26
#define CAP_MKNOD		27
#define CAP_MAC_OVERRIDE	32
#define CAP_WAKE_ALARM		35
#define CAP_CHECKPOINT_RESTORE	40
#define CAP_LAST_CAP		40	// CAP_CHECKPOINT_RESTORE, as Linux 6.1
#define CAP_FULL_SET		((1ULL << (CAP_LAST_CAP + 1)) - 1)

// The securebits (PR_SET_SECUREBITS): each flag, and above it the bit
// that locks it.
#define SECURE_NOROOT			0x01	// uid 0 gets no capabilities from exec
#define SECURE_NO_SETUID_FIXUP		0x04	// ID changes leave the capabilities
#define SECURE_KEEP_CAPS		0x10	// PR_SET_KEEPCAPS (cleared by exec)
#define SECURE_NO_CAP_AMBIENT_RAISE	0x40
#define SECURE_ALL_BITS			0x55
#define SECURE_ALL_LOCKS		0xaa

struct cred {
	int refcount;			// atomic; the root cred has none
	uint32_t uid, euid, suid, fsuid;
	uint32_t gid, egid, sgid, fsgid;
	uint64_t cap_permitted, cap_effective, cap_inheritable;
	uint64_t cap_bounding, cap_ambient;
	uint32_t securebits;
	uint32_t ngroups;
	uint32_t *groups;		// sorted ascending, as Linux keeps them
};

struct process;
struct vnode;

// The credentials of init and of kernel threads: uid 0, all capabilities.
extern struct cred root_cred;

struct thread;

// The calling thread's credentials (root for kernel threads); valid
// until the thread changes them, no reference taken.
const struct cred *current_cred(void);
// p's or t's credentials, referenced.
struct cred *cred_of(struct process *p);
struct cred *cred_of_thread(struct thread *t);
void cred_put(const struct cred *c);
// access() and faccessat() without AT_EACCESS: the caller's credentials
// with the real IDs as filesystem IDs and, unless the real uid is 0, no
// capabilities (referenced; NULL when there is no memory).  Installed
// with cred_override for the duration of the call.
struct cred *cred_for_access(void);
// Makes c the calling thread's credentials (no reference changes hands)
// and returns the previous ones, to be put back the same way.
const struct cred *cred_override(const struct cred *c);
// A new thread and a new process start with the creating thread's.
void cred_thread_init(struct thread *t);
void cred_fork(struct process *child);
// For the last release of a process.
void cred_release(struct process *p);

bool cred_capable(const struct cred *c, int cap);
// Is gid the fsgid or a supplementary group?
bool cred_in_group(const struct cred *c, uint32_t gid);

// ---- permission checks (kernel/proc/cred_perm.c) ----

#define MAY_EXEC	1
#define MAY_WRITE	2
#define MAY_READ	4

// Linux's generic_permission: the owner, group or other bits that apply
// to c's fsuid/fsgid, then the DAC capabilities.  0 or -EACCES.
int vnode_permission(const struct cred *c, const struct vnode *vn, int mask);
// The same for the calling thread.
int vnode_may(const struct vnode *vn, int mask);
// Owner of vn, or CAP_FOWNER (Linux's inode_owner_or_capable); the
// second for the calling thread.
bool cred_owns(const struct cred *c, const struct vnode *vn);
bool vnode_owned(const struct vnode *vn);
// Removing victim from dir: write and search on dir, then the sticky
// bit.  0, -EACCES or -EPERM.
int cred_may_delete(const struct cred *c, const struct vnode *dir, const struct vnode *victim);
// Owner, group and mode of a file c creates in dir with 'mode' (Linux's
// inode_init_owner: setgid directories pass on their group, and to
// directories the bit itself).  Caller holds vfs_tree_lock.
void cred_init_owner(const struct cred *c, const struct vnode *dir, struct vnode *vn);
// A write or truncation by c: the setuid bit (and an effective setgid
// bit) go unless c has CAP_FSETID.
void cred_write_kills_suid(struct vnode *vn);

// May the caller send a signal to p (kill, sigqueue)?  0 or -EPERM.
// Caller holds proc_tree_lock.
int cred_may_signal(struct process *p, int sig);
// Are p's real, effective and saved user and group IDs all the caller's
// real ones (Linux's test for prlimit and ptrace access)?
bool cred_ids_all_callers(struct process *p);
// May the caller look into p's resources as a debugger would (Linux's
// ptrace_may_access with PTRACE_MODE_READ_REALCREDS: kcmp)?  Its own
// process, one whose IDs are all the caller's real ones and that is
// dumpable, or CAP_SYS_PTRACE.  0 or -EPERM; proc_tree_lock held.
int cred_may_inspect(struct process *p);

// ---- exec ----

// The credentials an exec of vn gives the caller: setuid and setgid bits
// honoured, saved IDs set to the effective ones, capabilities as Linux
// gives them without file capabilities.  *secure is AT_SECURE.
// NULL when there is no memory.
struct cred *cred_for_exec(const struct vnode *vn, bool *secure);
// Installs what cred_for_exec made (takes over the reference).
void cred_commit(struct cred *nc);

// PR_SET_KEEPCAPS / PR_GET_KEEPCAPS: 0, or -EINVAL for a value not 0/1,
// -EPERM when the securebits lock it.
int cred_set_keepcaps(unsigned long value);
int cred_get_keepcaps(void);
// The other capability options of prctl, with Linux's rules and errnos:
// PR_CAPBSET_READ, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_GET_SECUREBITS,
// PR_SET_SECUREBITS.
long cred_capbset_read(unsigned long cap);
long cred_capbset_drop(unsigned long cap);
long cred_cap_ambient(unsigned long op, unsigned long cap, unsigned long a4, unsigned long a5);
long cred_get_securebits(void);
long cred_set_securebits(unsigned long bits);

// ---- for /proc/PID ----

// The owner of /proc/PID/ files: p's euid and egid, root's if p is not
// dumpable.
void cred_proc_owner(struct process *p, uint32_t *uid, uint32_t *gid);

#endif
