// kcmp(2): do two processes share a kernel resource?  For checkpoint
// tools and tests of clone's sharing flags.  As Linux, the answer orders
// the two objects (0 equal, 1 less, 2 greater) by their addresses mixed
// with a per-boot random key, so that it says nothing about the layout
// of kernel memory.

#include <kernel/cred.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/random.h>
#include <kernel/spinlock.h>
#include <kernel/syscall.h>
#include <fs/eventpoll.h>
#include <fs/file.h>
#include <kernel/uaccess.h>
#include <uapi/errno.h>

enum kcmp_type {
	KCMP_FILE, KCMP_VM, KCMP_FILES, KCMP_FS, KCMP_SIGHAND, KCMP_IO, KCMP_SYSVSEM,
	KCMP_EPOLL_TFD, KCMP_TYPES
};

// Per type: an XOR key and an odd multiplier, made at first use.
static uint64_t cookies[KCMP_TYPES][2];
static bool cookies_made;
static struct spinlock cookies_lock = SPINLOCK_INIT("kcmp");

static void make_cookies(void)
{
	uint64_t irq;

	if (__atomic_load_n(&cookies_made, __ATOMIC_ACQUIRE))
		return;
	irq = spin_lock_irqsave(&cookies_lock);
	if (!cookies_made) {
		random_bytes(cookies, sizeof(cookies));
		for (int i = 0; i < KCMP_TYPES; i++)
			cookies[i][1] |= 1;
		__atomic_store_n(&cookies_made, true, __ATOMIC_RELEASE);
	}
	spin_unlock_irqrestore(&cookies_lock, irq);
}

static long order(const void *a, const void *b, int type)
{
	uint64_t x = ((uint64_t)a ^ cookies[type][0]) * cookies[type][1];
	uint64_t y = ((uint64_t)b ^ cookies[type][0]) * cookies[type][1];

	return x == y ? 0 : x < y ? 1 : 2;
}

// The object of 'type' that thread 'id' of p holds: the thread's own
// table or view if it has one, else its process's (NULL for what there
// is none of: no I/O context exists here, and a process that never used
// SEM_UNDO has no undo list, as on Linux).  'ref': take a reference
// to the table (KCMP_FILE).  proc_tree_lock held.
static const void *resource_of(struct process *p, int id, int type, bool ref)
{
	const void *r = NULL;
	struct thread *t = thread_find(id);

	spin_lock(&p->lock);	// mm, fdt, fs and the threads' own leave under it
	if (t && t->proc != p)
		t = NULL;
	if (type == KCMP_VM)
		r = p->mm;
	else if (type == KCMP_FILES)
		r = t && t->own_fdt ? t->own_fdt : p->fdt;
	else if (type == KCMP_FS)
		r = t && t->own_fs ? (const void *)t->own_fs : p->fs;
	else if (type == KCMP_SIGHAND)
		r = p->sighand;
	else if (type == KCMP_SYSVSEM)
		r = p->sem_undo;
	else if (type == KCMP_IO)
		r = t ? t->io : NULL;	// the I/O context of ioprio_set (ioprio.c)
	if (ref && r)
		fdtable_get((struct fdtable *)r);
	spin_unlock(&p->lock);
	return r;
}

// The descriptor table of thread 'id' of p, referenced (NULL once p has
// exited).  proc_tree_lock held.
static struct fdtable *fdtable_of(struct process *p, int id)
{
	return (struct fdtable *)resource_of(p, id, KCMP_FILES, true);
}

// KCMP_EPOLL_TFD: the file behind descriptor i1 of t1 and the target of
// an item of an epoll set of t2 (Linux's struct kcmp_epoll_slot), in
// Linux's order of checks.  No locks held.
static long compare_epoll_target(struct fdtable *t1, struct fdtable *t2, uint64_t i1,
				 uint64_t uslot)
{
	struct { uint32_t efd, tfd, toff; } slot;
	const struct file *target = NULL;
	struct file *f1, *ep;
	long rc;

	if (copy_from_user(&slot, uslot, sizeof(slot)) < 0)
		return -EFAULT;
	f1 = t1 && i1 <= INT32_MAX ? fd_get(t1, (int)i1) : NULL;
	ep = f1 && t2 && slot.efd <= INT32_MAX ? fd_get(t2, (int)slot.efd) : NULL;
	if (!ep)
		rc = -EBADF;
	else
		rc = eventpoll_target(ep, (int)slot.tfd, slot.toff, &target);
	if (rc == 0)
		rc = order(f1, target, KCMP_FILE);
	if (ep)
		file_put(ep);
	if (f1)
		file_put(f1);
	return rc;
}

// KCMP_FILE: the open files behind descriptor i1 of one table and i2 of
// the other.  No locks held.
static long compare_files(struct fdtable *t1, struct fdtable *t2, uint64_t i1, uint64_t i2)
{
	struct file *f1 = t1 && i1 <= INT32_MAX ? fd_get(t1, (int)i1) : NULL;
	struct file *f2 = t2 && i2 <= INT32_MAX ? fd_get(t2, (int)i2) : NULL;
	long rc = f1 && f2 ? order(f1, f2, KCMP_FILE) : -EBADF;

	if (f1)
		file_put(f1);
	if (f2)
		file_put(f2);
	return rc;
}

SYSCALL_DEFINE(SYS_kcmp, kcmp)
{
	int pid1 = (int)args->a[0], pid2 = (int)args->a[1], type = (int)args->a[2];
	uint64_t idx1 = args->a[3], idx2 = args->a[4];
	struct fdtable *t1 = NULL, *t2 = NULL;
	struct process *p1, *p2;
	uint64_t irq;
	long rc = 0;

	make_cookies();
	irq = spin_lock_irqsave(&proc_tree_lock);
	p1 = process_find_any_id(pid1);
	p2 = process_find_any_id(pid2);
	if (!p1 || !p2 || pid1 <= 0 || pid2 <= 0)
		rc = -ESRCH;
	else if (cred_may_inspect(p1) || cred_may_inspect(p2))
		rc = -EPERM;
	else if (type < 0 || type >= KCMP_TYPES)
		rc = -EINVAL;
	else if (type == KCMP_FILE || type == KCMP_EPOLL_TFD) {
		t1 = fdtable_of(p1, pid1);
		t2 = fdtable_of(p2, pid2);
	} else {
		rc = order(resource_of(p1, pid1, type, false), resource_of(p2, pid2, type, false),
			   type);
	}
	spin_unlock_irqrestore(&proc_tree_lock, irq);
	if (rc == 0 && type == KCMP_FILE)
		rc = compare_files(t1, t2, idx1, idx2);
	else if (rc == 0 && type == KCMP_EPOLL_TFD)
		rc = compare_epoll_target(t1, t2, idx1, idx2);
	// The last reference to a table closes its files, which may sleep.
	if (t1)
		fdtable_put(t1);
	if (t2)
		fdtable_put(t2);
	return rc;
}
