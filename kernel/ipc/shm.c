// System V shared memory: shmget, shmat, shmdt, shmctl, with Linux's
// limits (shmmax, shmall, shmmni 4096), identifiers, checks in its order
// and attach rules.  A segment is an unlinked file of the in-memory tree
// mapped MAP_SHARED, as Linux's shmem: its pages are the file's (made at
// first touch), its attachments are the file's mappings, and the memory
// code tells the segment of each one made or gone (vn->map_count: mmap,
// split, fork, mremap, munmap, exec, exit), so shm_nattch counts mappings
// as Linux's does and the last one of a removed segment destroys it.
//
// One spinlock guards every segment.  Lock order: mm->lock, then
// shm_lock, then the file's vn->lock; shmat drops shm_lock before it
// maps (holding the segment with an extra shm_nattch meanwhile, as Linux).

#include <stddef.h>

#include <kernel/ipc.h>
#include <kernel/cred.h>
#include <kernel/process.h>
#include <kernel/spinlock.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <kernel/vm.h>
#include <fs/procfs.h>
#include <fs/vfs.h>
#include <fs/vnode.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/frame.h>
#include <mm/kmalloc.h>
#include <mm/phys.h>
#include <uapi/errno.h>

#define SHM_RDONLY	010000
#define SHM_RND		020000
#define SHM_REMAP	040000
#define SHM_EXEC	0100000
#define SHM_HUGETLB	04000
#define SHM_NORESERVE	010000

#define SHM_DEST	01000	// in the mode: removed, destroyed at the last detach
#define SHM_LOCKED	02000	// in the mode: SHM_LOCK

#define SHM_LOCK	11
#define SHM_UNLOCK	12
#define SHM_STAT	13
#define SHM_INFO	14
#define SHM_STAT_ANY	15

#define SHMLBA		PAGE_SIZE
#define SHMMIN		1
#define CAP_IPC_LOCK	14
#define RLIMIT_MEMLOCK	8

struct shm_seg {
	struct ipc_perm_k perm;		// its identifier and place in 'segs'
	struct vnode *vn;		// its file (priv points back here)
	uint64_t size;			// shm_segsz, in bytes
	uint64_t nattch;		// mappings of the file (and shmat in progress)
	int64_t atime, dtime, ctime;	// seconds of the wall clock
	int cpid, lpid;
};

static struct spinlock shm_lock = SPINLOCK_INIT("shm segments");
static struct ipc_table segs = { .next_id_limit = IPC_SHM_NEXT_ID };
static uint64_t shm_tot;		// pages of every segment (shmall's count)

// shmmax and shmall: Linux 6.1's defaults, ULONG_MAX - 2^24.
static uint64_t shmmax = UINT64_MAX - (1UL << 24), shmall = UINT64_MAX - (1UL << 24);

uint64_t shm_limit(bool all)
{
	return __atomic_load_n(all ? &shmall : &shmmax, __ATOMIC_RELAXED);
}

void shm_set_limit(bool all, uint64_t value)
{
	__atomic_store_n(all ? &shmall : &shmmax, value, __ATOMIC_RELAXED);
}

// ---- segments ----

static struct shm_seg *seg_of(struct ipc_perm_k *p)
{
	return p ? (struct shm_seg *)((char *)p - offsetof(struct shm_seg, perm)) : NULL;
}

static uint64_t pages_of(uint64_t size)
{
	return (size + PAGE_SIZE - 1) / PAGE_SIZE;
}

static int my_pid(void)
{
	struct thread *t = current_thread();

	return t && t->proc ? t->proc->pid : 0;
}

// Removed and attached nowhere: it goes (Linux's shm_may_destroy).
static bool may_destroy(const struct shm_seg *s)
{
	return s->nattch == 0 && (s->perm.mode & SHM_DEST);
}

// Takes s out of the table (shm_lock held); the caller frees it with
// seg_free once the lock is dropped.
static void destroy_locked(struct shm_seg *s)
{
	ipc_remove(&segs, &s->perm);
	shm_tot -= pages_of(s->size);
}

// The file goes with its last reference: the mappings' ones may outlive
// this one by a moment (the one going is still being unlinked).
static void seg_free(struct shm_seg *s)
{
	s->vn->map_count = NULL;
	vnode_put(s->vn);
	kfree(s);
}

// vn->map_count: a mapping of the segment's file was made or went (the
// address space's mm->lock held).  As Linux's shm_open and shm_close:
// the count, the last operator and the attach or detach time.
static void shm_map_count(struct vnode *vn, int delta)
{
	struct shm_seg *s = vn->priv;
	uint64_t irq = spin_lock_irqsave(&shm_lock);
	bool dead;

	s->nattch += (uint64_t)(int64_t)delta;
	if (delta > 0)
		s->atime = ipc_now();
	else
		s->dtime = ipc_now();
	s->lpid = my_pid();
	dead = delta < 0 && may_destroy(s);
	if (dead)
		destroy_locked(s);
	spin_unlock_irqrestore(&shm_lock, irq);
	if (dead)
		seg_free(s);
}

// ---- shmget ----

// A new segment of 'size' bytes with its file, not yet in the table.
static struct shm_seg *seg_new(int32_t key, uint64_t size, int flags)
{
	struct shm_seg *s = kzalloc(sizeof(*s));

	if (!s)
		return NULL;
	s->vn = vnode_alloc(VNODE_REG, 0777);
	if (!s->vn) {
		kfree(s);
		return NULL;
	}
	s->vn->size = size;
	s->vn->priv = s;
	s->vn->map_count = shm_map_count;
	ipc_perm_init(&s->perm, key, flags);
	s->size = size;
	s->cpid = my_pid();
	s->ctime = ipc_now();
	return s;
}

// Linux's newseg checks, in its order (shm_lock held).  Holes cost
// nothing, but the file behind a segment has a largest size, and one
// larger than RAM would be refused by the overcommit check unless
// SHM_NORESERVE: both are ENOMEM.
static int new_seg_check(uint64_t size, int flags)
{
	uint64_t pages = pages_of(size), total, free;

	if (size < SHMMIN || size > shm_limit(false))
		return -EINVAL;
	if (pages * PAGE_SIZE < size)
		return -ENOSPC;
	if (shm_tot + pages < shm_tot || shm_tot + pages > shm_limit(true))
		return -ENOSPC;
	frame_stats(&total, &free);
	if (flags & SHM_HUGETLB)
		return -ENOMEM;		// no huge pages are reserved
	if (size > VNODE_MAX_FILE_SIZE || (!(flags & SHM_NORESERVE) && pages > total))
		return -ENOMEM;
	if (segs.count >= ipc_limit(IPC_SHMMNI))
		return -ENOSPC;
	return 0;
}

SYSCALL_DEFINE(SYS_shmget, shmget)
{
	int32_t key = (int32_t)args->a[0];
	uint64_t size = args->a[1];
	int flags = (int)args->a[2];
	struct shm_seg *made = NULL, *s;
	uint64_t irq;
	long rc;

	// Made first, outside the lock (most calls that find one waste it).
	if (size >= SHMMIN && size <= VNODE_MAX_FILE_SIZE) {
		made = seg_new(key, size, flags);
		if (!made)
			return -ENOMEM;
	}
	irq = spin_lock_irqsave(&shm_lock);
	s = key == IPC_PRIVATE ? NULL : seg_of(ipc_find_key(&segs, key));
	if (s) {
		if ((flags & IPC_CREAT) && (flags & IPC_EXCL))
			rc = -EEXIST;
		else if (s->size < size)
			rc = -EINVAL;
		else
			rc = ipc_permitted(&s->perm, flags) ? -EACCES : s->perm.id;
	} else if (key != IPC_PRIVATE && !(flags & IPC_CREAT)) {
		rc = -ENOENT;
	} else if ((rc = new_seg_check(size, flags)) == 0) {
		rc = ipc_insert(&segs, &made->perm);
		if (rc == 0) {
			shm_tot += pages_of(size);
			rc = made->perm.id;
			made = NULL;
		}
	}
	spin_unlock_irqrestore(&shm_lock, irq);
	if (made)
		seg_free(made);
	return rc;
}

// ---- shmat, shmdt ----

// Where and how shmat maps: Linux's do_shmat checks before the segment's.
static int attach_args(uint64_t *addr, int flags, int *prot, int *map_flags, int *access)
{
	*map_flags = MAP_SHARED;
	if (*addr) {
		if (*addr & (SHMLBA - 1)) {
			if (!(flags & SHM_RND))
				return -EINVAL;
			*addr &= ~(uint64_t)(SHMLBA - 1);
			if (!*addr && (flags & SHM_REMAP))
				return -EINVAL;
		}
		// Without SHM_REMAP nothing may be there already.
		*map_flags |= (flags & SHM_REMAP) ? MAP_FIXED : MAP_FIXED_NOREPLACE;
	} else if (flags & SHM_REMAP) {
		return -EINVAL;
	}
	*prot = (flags & SHM_RDONLY) ? PROT_READ : PROT_READ | PROT_WRITE;
	*access = (flags & SHM_RDONLY) ? 0444 : 0666;
	if (flags & SHM_EXEC) {
		*prot |= PROT_EXEC;
		*access |= 0111;
	}
	return 0;
}

SYSCALL_DEFINE(SYS_shmat, shmat)
{
	int id = (int)args->a[0], flags = (int)args->a[2];
	uint64_t addr = args->a[1], size = 0;
	int prot, map_flags, access;
	struct shm_seg *s;
	struct vnode *vn = NULL;
	uint64_t irq;
	long rc;

	if (id < 0)
		return -EINVAL;
	rc = attach_args(&addr, flags, &prot, &map_flags, &access);
	if (rc < 0)
		return rc;
	irq = spin_lock_irqsave(&shm_lock);
	s = seg_of(ipc_find_id(&segs, id));
	if (!s) {
		rc = -EINVAL;
	} else if (ipc_permitted(&s->perm, access)) {
		rc = -EACCES;
	} else {
		s->nattch++;	// it stays while we map it
		vn = s->vn;
		vnode_get(vn);
		size = s->size;
	}
	spin_unlock_irqrestore(&shm_lock, irq);
	if (rc < 0)
		return rc;
	if (addr && addr + size < addr)
		rc = -EINVAL;
	else
		rc = vm_map(current_process()->mm, addr, size, prot, map_flags, vn, 0, size,
			    !(flags & SHM_RDONLY));
	if (rc == -EEXIST)
		rc = -EINVAL;	// something is mapped there and no SHM_REMAP
	vnode_put(vn);
	irq = spin_lock_irqsave(&shm_lock);
	s->nattch--;
	bool dead = may_destroy(s);
	if (dead)
		destroy_locked(s);
	spin_unlock_irqrestore(&shm_lock, irq);
	if (dead)
		seg_free(s);
	return rc;
}

SYSCALL_DEFINE(SYS_shmdt, shmdt)
{
	uint64_t addr = args->a[0];

	if (addr & (PAGE_SIZE - 1))
		return -EINVAL;
	return vm_shmdt(current_process()->mm, addr);
}

// ---- shmctl ----


// struct shminfo64 (IPC_INFO) and struct shm_info (SHM_INFO).
struct user_shminfo64 {
	uint64_t shmmax, shmmin, shmmni, shmseg, shmall;
	uint64_t unused[4];
};

struct user_shm_info {
	int32_t used_ids;
	uint64_t shm_tot, shm_rss, shm_swp, swap_attempts, swap_successes;
};

// Pages of the segment that hold data (shm_rss; shm_lock held).
static uint64_t rss_locked(const struct shm_seg *s)
{
	return vnode_resident_pages(s->vn);
}

static void stat_locked(const struct shm_seg *s, struct user_shmid64_ds *ds)
{
	memset(ds, 0, sizeof(*ds));
	ipc_perm_to_user(&s->perm, &ds->perm);
	ds->segsz = s->size;
	ds->atime = s->atime;
	ds->dtime = s->dtime;
	ds->ctime = s->ctime;
	ds->cpid = s->cpid;
	ds->lpid = s->lpid;
	ds->nattch = s->nattch;
}

// IPC_INFO (the limits) and SHM_INFO (what is in use): the highest slot
// in use, as Linux answers.
static long shm_info(int cmd, uint64_t ubuf)
{
	struct user_shminfo64 li = { .shmmax = shm_limit(false), .shmmin = SHMMIN,
				     .shmall = shm_limit(true) };
	struct user_shm_info ui;
	uint64_t irq = spin_lock_irqsave(&shm_lock);
	int top = ipc_top_slot(&segs);

	li.shmmni = li.shmseg = (uint64_t)ipc_limit(IPC_SHMMNI);
	memset(&ui, 0, sizeof(ui));
	ui.used_ids = segs.count;
	ui.shm_tot = shm_tot;
	if (cmd == SHM_INFO)
		for (struct ipc_perm_k *p = segs.head; p; p = p->next)
			ui.shm_rss += rss_locked(seg_of(p));
	spin_unlock_irqrestore(&shm_lock, irq);
	if (cmd == IPC_INFO)
		return copy_to_user(ubuf, &li, sizeof(li)) < 0 ? -EFAULT : top;
	return copy_to_user(ubuf, &ui, sizeof(ui)) < 0 ? -EFAULT : top;
}

// SHM_LOCK and SHM_UNLOCK: there is no swap, so only the SHM_LOCKED bit
// changes; the checks are Linux's (without CAP_IPC_LOCK: the owner or
// creator only, and SHM_LOCK within RLIMIT_MEMLOCK).
static long lock_locked(struct shm_seg *s, int cmd)
{
	const struct cred *c = current_cred();

	if (!cred_capable(c, CAP_IPC_LOCK)) {
		uint64_t limit = current_process()->rlimits[RLIMIT_MEMLOCK].cur;
		if (c->euid != s->perm.uid && c->euid != s->perm.cuid)
			return -EPERM;
		if (cmd == SHM_LOCK && limit == 0)
			return -EPERM;
		if (cmd == SHM_LOCK && !(s->perm.mode & SHM_LOCKED) &&
		    pages_of(s->size) > limit / PAGE_SIZE)
			return -ENOMEM;
	}
	if (cmd == SHM_LOCK)
		s->perm.mode |= SHM_LOCKED;
	else
		s->perm.mode &= ~SHM_LOCKED;
	return 0;
}

// IPC_RMID: destroyed now if attached nowhere, else marked SHM_DEST, its
// key made private (no shmget finds it), destroyed at the last detach.
static bool rmid_locked(struct shm_seg *s)
{
	if (s->nattch == 0) {
		destroy_locked(s);
		return true;
	}
	s->perm.mode |= SHM_DEST;
	s->perm.key = IPC_PRIVATE;
	return false;
}

SYSCALL_DEFINE(SYS_shmctl, shmctl)
{
	int id = (int)args->a[0], cmd = (int)args->a[1] & ~IPC_64;
	uint64_t ubuf = args->a[2];
	struct user_shmid64_ds ds;
	struct shm_seg *s, *dead = NULL;
	uint64_t irq;
	long rc = 0;

	if (id < 0 || cmd < 0)
		return -EINVAL;
	if (cmd == IPC_INFO || cmd == SHM_INFO)
		return shm_info(cmd, ubuf);
	if (cmd == IPC_SET && copy_from_user(&ds, ubuf, sizeof(ds)) < 0)
		return -EFAULT;
	bool stat = cmd == IPC_STAT || cmd == SHM_STAT || cmd == SHM_STAT_ANY;
	if (!stat && cmd != IPC_SET && cmd != IPC_RMID && cmd != SHM_LOCK && cmd != SHM_UNLOCK)
		return -EINVAL;
	irq = spin_lock_irqsave(&shm_lock);
	// SHM_STAT takes a slot, and as Linux's ipcid_to_idx an identifier's
	// sequence bits are ignored: an identifier names its own slot.
	if (cmd == SHM_STAT || cmd == SHM_STAT_ANY)
		s = seg_of(ipc_find_slot(&segs, id));
	else
		s = seg_of(ipc_find_id(&segs, id));
	if (!s) {
		rc = -EINVAL;
	} else if (stat) {
		if (cmd != SHM_STAT_ANY && ipc_permitted(&s->perm, 0444))
			rc = -EACCES;
		else
			stat_locked(s, &ds);
		rc = rc ? rc : cmd == IPC_STAT ? 0 : s->perm.id;
	} else if (cmd == SHM_LOCK || cmd == SHM_UNLOCK) {
		rc = lock_locked(s, cmd);
	} else if (!ipc_owner_or_admin(&s->perm)) {
		rc = -EPERM;
	} else if (cmd == IPC_RMID) {
		if (rmid_locked(s))
			dead = s;
	} else {
		ipc_perm_from_user(&s->perm, &ds.perm);
		s->ctime = ipc_now();
	}
	spin_unlock_irqrestore(&shm_lock, irq);
	if (dead)
		seg_free(dead);
	if (rc >= 0 && stat && copy_to_user(ubuf, &ds, sizeof(ds)) < 0)
		return -EFAULT;
	return rc;
}

// ---- /proc/sysvipc/shm ----

#define PROC_HEADER "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  " \
		    "cuid  cgid      atime      dtime      ctime                   rss                  swap\n"
#define PROC_LINE_MAX 200

// A line per segment in order of slot, Linux's columns and widths.
static size_t proc_render(char *buf, size_t size)
{
	uint64_t irq = spin_lock_irqsave(&shm_lock);
	size_t len = kappendf(buf, size, 0, "%s", PROC_HEADER);

	for (struct ipc_perm_k *p = segs.head; p; p = p->next) {
		struct shm_seg *s = seg_of(p);

		len = kappendf(buf, size, len,
			       "%10d %10d  %4o %21lu %5u %5u  %5lu %5u %5u %5u %5u %10lu %10lu %10lu "
			       "%21lu %21lu\n",
			       p->key, p->id, p->mode, s->size, s->cpid, s->lpid, s->nattch,
			       p->uid, p->gid, p->cuid, p->cgid, (uint64_t)s->atime,
			       (uint64_t)s->dtime, (uint64_t)s->ctime, rss_locked(s) * PAGE_SIZE,
			       (uint64_t)0);
	}
	spin_unlock_irqrestore(&shm_lock, irq);
	return len;
}

static long proc_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	// Room for the segments there are now and some made meanwhile.
	size_t size = sizeof(PROC_HEADER) + (size_t)(__atomic_load_n(&segs.count,
						     __ATOMIC_RELAXED) + 16) * PROC_LINE_MAX;

	(void)vn;
	(void)f;
	return procfs_text_read(proc_render, size, off, b, n);
}

const struct vnode_ops shm_proc_ops = { .read = proc_read };
