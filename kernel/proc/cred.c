// Credentials: their life cycle, the calls that read and change user and
// group IDs, supplementary groups and capabilities, exec's rules, and
// what /proc/PID/status shows of them.  Rules and errnos follow Linux's
// kernel/sys.c, kernel/groups.c, kernel/capability.c and commoncap.

#include <kernel/cred.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <fs/vnode.h>
#include <fs/fcntl.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

// Guards the swap of every cred pointer (a thread's, a process's)
// against readers in other threads.  A leaf lock.  A thread reads its own
// pointer without it: only the thread itself changes it.
static struct spinlock cred_lock = SPINLOCK_INIT("cred");

struct cred root_cred = {
	.cap_permitted = CAP_FULL_SET,
	.cap_effective = CAP_FULL_SET,
	.cap_bounding = CAP_FULL_SET,
};

// A new reference to c (NULL: root).
static struct cred *ref(const struct cred *c)
{
	struct cred *m = c ? (struct cred *)c : &root_cred;

	if (m != &root_cred)
		__atomic_add_fetch(&m->refcount, 1, __ATOMIC_RELAXED);
	return m;
}

const struct cred *current_cred(void)
{
	struct thread *t = current_thread();

	return t && t->cred ? t->cred : &root_cred;
}

struct cred *cred_of(struct process *p)
{
	uint64_t irq = spin_lock_irqsave(&cred_lock);
	struct cred *c = ref(p ? p->cred : NULL);

	spin_unlock_irqrestore(&cred_lock, irq);
	return c;
}

struct cred *cred_of_thread(struct thread *t)
{
	uint64_t irq = spin_lock_irqsave(&cred_lock);
	struct cred *c = ref(t->cred);

	spin_unlock_irqrestore(&cred_lock, irq);
	return c;
}

void cred_put(const struct cred *c)
{
	struct cred *m = (struct cred *)c;

	if (!m || m == &root_cred)
		return;
	if (__atomic_sub_fetch(&m->refcount, 1, __ATOMIC_ACQ_REL) == 0) {
		kfree(m->groups);
		kfree(m);
	}
}

void cred_thread_init(struct thread *t)
{
	t->cred = ref(current_cred());
}

void cred_fork(struct process *child)
{
	child->cred = ref(current_cred());
}

void cred_release(struct process *p)
{
	cred_put(p->cred);
	p->cred = NULL;
}

const struct cred *cred_override(const struct cred *c)
{
	struct thread *t = current_thread();
	uint64_t irq = spin_lock_irqsave(&cred_lock);
	const struct cred *old = t->cred;

	t->cred = (struct cred *)c;
	spin_unlock_irqrestore(&cred_lock, irq);
	return old;
}

// A private copy of 'old' to change (groups shared until replaced: the
// copy gets its own array only if 'with_groups').
static struct cred *cred_copy(const struct cred *old, bool with_groups)
{
	struct cred *c = kmalloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *old;
	c->refcount = 1;
	c->groups = NULL;
	if (with_groups && old->ngroups) {
		c->groups = kmalloc(old->ngroups * sizeof(uint32_t));
		if (!c->groups) {
			kfree(c);
			return NULL;
		}
		memcpy(c->groups, old->groups, old->ngroups * sizeof(uint32_t));
	}
	if (!with_groups)
		c->ngroups = 0;
	return c;
}

// Copies 'old' whole, for a change of IDs.
static struct cred *cred_prepare(const struct cred *old)
{
	return cred_copy(old, true);
}

void cred_commit(struct cred *nc)
{
	struct thread *t = current_thread();
	struct process *p = t->proc;
	uint64_t irq = spin_lock_irqsave(&cred_lock);
	struct cred *old_t = t->cred, *old_p = p->cred;

	// The thread's, and the process's as others see it (kill, /proc).
	t->cred = nc;
	p->cred = ref(nc);
	spin_unlock_irqrestore(&cred_lock, irq);
	nproc_cred_changed(t, nc);
	// A process that takes other effective or file-system IDs, or gains
	// capabilities, is no longer dumpable (its /proc files go to root),
	// as on Linux with fs.suid_dumpable 0.  Exec decides afresh.
	if (old_t && (old_t->euid != nc->euid || old_t->egid != nc->egid ||
		      old_t->fsuid != nc->fsuid || old_t->fsgid != nc->fsgid ||
		      (nc->cap_permitted & ~old_t->cap_permitted)))
		p->not_dumpable = true;
	cred_put(old_t);
	cred_put(old_p);
}

struct cred *cred_for_access(void)
{
	struct cred *old = ref(current_cred());
	struct cred *c;

	// The common case: nothing would change, so no copy is needed.
	if (old->fsuid == old->uid && old->fsgid == old->gid &&
	    old->cap_effective == (old->uid == 0 ? old->cap_permitted : 0))
		return old;
	c = cred_prepare(old);
	cred_put(old);
	if (!c)
		return NULL;
	c->fsuid = c->uid;
	c->fsgid = c->gid;
	c->cap_effective = c->uid == 0 ? c->cap_permitted : 0;
	return c;
}

bool cred_capable(const struct cred *c, int cap)
{
	bool yes = (c->cap_effective >> cap) & 1;
	struct thread *t = current_thread();

	// A process that used a privilege: acct's ASU flag (Linux's
	// PF_SUPERPRIV, set by capable()).
	if (yes && t && t->proc && c == t->cred)
		t->proc->used_super = true;
	return yes;
}

bool cred_in_group(const struct cred *c, uint32_t gid)
{
	uint32_t lo = 0, hi = c->ngroups;

	if (gid == c->fsgid)
		return true;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->groups[mid] == gid)
			return true;
		if (c->groups[mid] < gid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

// ---- capability fix-ups when IDs change (Linux's commoncap) ----

// The capabilities that follow the filesystem uid.
#define CAP_FS_SET ((1ULL << CAP_CHOWN) | (1ULL << CAP_MKNOD) | (1ULL << CAP_DAC_OVERRIDE) | \
		    (1ULL << CAP_DAC_READ_SEARCH) | (1ULL << CAP_FOWNER) | (1ULL << CAP_FSETID) | \
		    (1ULL << CAP_LINUX_IMMUTABLE) | (1ULL << CAP_MAC_OVERRIDE))

// After setuid, setreuid, setresuid: leaving uid 0 in all three IDs
// drops every capability (unless keepcaps keeps the permitted ones) and
// the ambient set in any case, an effective uid leaving 0 drops the
// effective set, one returning to 0 gets the permitted set back.  None of
// this with SECURE_NO_SETUID_FIXUP.
static void fix_caps_setuid(struct cred *nc, const struct cred *old)
{
	bool old_root = old->uid == 0 || old->euid == 0 || old->suid == 0;
	bool new_root = nc->uid == 0 || nc->euid == 0 || nc->suid == 0;

	if (old->securebits & SECURE_NO_SETUID_FIXUP)
		return;
	if (old_root && !new_root) {
		if (!(old->securebits & SECURE_KEEP_CAPS)) {
			nc->cap_permitted = 0;
			nc->cap_effective = 0;
		}
		nc->cap_ambient = 0;
	}
	if (old->euid == 0 && nc->euid != 0)
		nc->cap_effective = 0;
	if (old->euid != 0 && nc->euid == 0)
		nc->cap_effective = nc->cap_permitted;
}

static void fix_caps_setfsuid(struct cred *nc, const struct cred *old)
{
	if (old->securebits & SECURE_NO_SETUID_FIXUP)
		return;
	if (old->fsuid == 0 && nc->fsuid != 0)
		nc->cap_effective &= ~CAP_FS_SET;
	if (old->fsuid != 0 && nc->fsuid == 0)
		nc->cap_effective |= nc->cap_permitted & CAP_FS_SET;
}

// ---- reading IDs ----

static uint32_t id_of_current(size_t offset)
{
	return *(const uint32_t *)((const char *)current_cred() + offset);
}

SYSCALL_DEFINE(SYS_getuid, getuid) { (void)args; return id_of_current(offsetof(struct cred, uid)); }
SYSCALL_DEFINE(SYS_geteuid, geteuid) { (void)args; return id_of_current(offsetof(struct cred, euid)); }
SYSCALL_DEFINE(SYS_getgid, getgid) { (void)args; return id_of_current(offsetof(struct cred, gid)); }
SYSCALL_DEFINE(SYS_getegid, getegid) { (void)args; return id_of_current(offsetof(struct cred, egid)); }

static long put_three(const struct syscall_args *args, uint32_t a, uint32_t b, uint32_t c)
{
	if (put_user_u32(args->a[0], a) < 0 || put_user_u32(args->a[1], b) < 0 ||
	    put_user_u32(args->a[2], c) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE(SYS_getresuid, getresuid)
{
	struct cred *c = ref(current_cred());
	long rc = put_three(args, c->uid, c->euid, c->suid);

	cred_put(c);
	return rc;
}

SYSCALL_DEFINE(SYS_getresgid, getresgid)
{
	struct cred *c = ref(current_cred());
	long rc = put_three(args, c->gid, c->egid, c->sgid);

	cred_put(c);
	return rc;
}

// ---- changing IDs ----
//
// The user and group calls follow the same rules with CAP_SETUID and
// CAP_SETGID; one body serves both, working on the four IDs of a kind.

struct idset {
	uint32_t *r, *e, *s, *fs;
};

static struct idset ids_of(struct cred *c, bool user)
{
	if (user)
		return (struct idset){ &c->uid, &c->euid, &c->suid, &c->fsuid };
	return (struct idset){ &c->gid, &c->egid, &c->sgid, &c->fsgid };
}

#define NO_CHANGE ((uint32_t)-1)

// Applies a change prepared in nc, or drops it on error.
static long finish(struct cred *nc, const struct cred *old, bool user, long rc)
{
	if (rc < 0) {
		cred_put(nc);
		return rc;
	}
	if (user)
		fix_caps_setuid(nc, old);
	cred_commit(nc);
	return 0;
}

static long do_setid(uint32_t id, bool user)
{
	struct cred *old = ref(current_cred());
	struct cred *nc;
	struct idset o, n;
	long rc = 0;

	if (id == NO_CHANGE) {
		cred_put(old);
		return -EINVAL;
	}
	nc = cred_prepare(old);
	if (!nc) {
		cred_put(old);
		return -ENOMEM;
	}
	o = ids_of(old, user);
	n = ids_of(nc, user);
	if (cred_capable(old, user ? CAP_SETUID : CAP_SETGID))
		*n.r = *n.s = id;
	else if (id != *o.r && id != *o.s)
		rc = -EPERM;
	*n.e = *n.fs = id;
	rc = finish(nc, old, user, rc);
	cred_put(old);
	return rc;
}

static long do_setreid(uint32_t r, uint32_t e, bool user)
{
	struct cred *old = ref(current_cred());
	struct cred *nc = cred_prepare(old);
	bool cap = cred_capable(old, user ? CAP_SETUID : CAP_SETGID);
	struct idset o, n;
	long rc = 0;

	if (!nc) {
		cred_put(old);
		return -ENOMEM;
	}
	o = ids_of(old, user);
	n = ids_of(nc, user);
	if (r != NO_CHANGE) {
		*n.r = r;
		if (r != *o.r && r != *o.e && !cap)
			rc = -EPERM;
	}
	if (e != NO_CHANGE) {
		*n.e = e;
		if (e != *o.r && e != *o.e && e != *o.s && !cap)
			rc = -EPERM;
	}
	// The saved ID follows the effective one when the real one is set,
	// or the effective one is set to other than the old real ID.
	if (r != NO_CHANGE || (e != NO_CHANGE && e != *o.r))
		*n.s = *n.e;
	*n.fs = *n.e;
	rc = finish(nc, old, user, rc);
	cred_put(old);
	return rc;
}

// An ID an unprivileged caller may take: -1, or one of its three.
static bool is_own(uint32_t id, const struct idset *o)
{
	return id == NO_CHANGE || id == *o->r || id == *o->e || id == *o->s;
}

static long do_setresid(uint32_t r, uint32_t e, uint32_t s, bool user)
{
	struct cred *old = ref(current_cred());
	struct idset o = ids_of(old, user), n;
	struct cred *nc;
	long rc = 0;

	// Nothing to change: success without a new cred (Linux's no-op).
	if ((r == NO_CHANGE || r == *o.r) && (e == NO_CHANGE || (e == *o.e && e == *o.fs)) &&
	    (s == NO_CHANGE || s == *o.s)) {
		cred_put(old);
		return 0;
	}
	if (!(is_own(r, &o) && is_own(e, &o) && is_own(s, &o)) &&
	    !cred_capable(old, user ? CAP_SETUID : CAP_SETGID)) {
		cred_put(old);
		return -EPERM;
	}
	nc = cred_prepare(old);
	if (!nc) {
		cred_put(old);
		return -ENOMEM;
	}
	n = ids_of(nc, user);
	if (r != NO_CHANGE)
		*n.r = r;
	if (e != NO_CHANGE)
		*n.e = e;
	if (s != NO_CHANGE)
		*n.s = s;
	*n.fs = *n.e;
	rc = finish(nc, old, user, rc);
	cred_put(old);
	return rc;
}

// setfsuid/setfsgid never fail: they return the old ID, and change it
// only to one of the caller's own IDs or with the capability.
static long do_setfsid(uint32_t id, bool user)
{
	struct cred *old = ref(current_cred());
	struct idset o = ids_of(old, user);
	uint32_t prev = *o.fs;
	struct cred *nc;

	if (id != NO_CHANGE && id != prev &&
	    (is_own(id, &o) || cred_capable(old, user ? CAP_SETUID : CAP_SETGID))) {
		nc = cred_prepare(old);
		if (nc) {
			*ids_of(nc, user).fs = id;
			if (user)
				fix_caps_setfsuid(nc, old);
			cred_commit(nc);
		}
	}
	cred_put(old);
	return prev;
}

SYSCALL_DEFINE(SYS_setuid, setuid) { return do_setid((uint32_t)args->a[0], true); }
SYSCALL_DEFINE(SYS_setgid, setgid) { return do_setid((uint32_t)args->a[0], false); }
SYSCALL_DEFINE(SYS_setreuid, setreuid)
{
	return do_setreid((uint32_t)args->a[0], (uint32_t)args->a[1], true);
}
SYSCALL_DEFINE(SYS_setregid, setregid)
{
	return do_setreid((uint32_t)args->a[0], (uint32_t)args->a[1], false);
}
SYSCALL_DEFINE(SYS_setresuid, setresuid)
{
	return do_setresid((uint32_t)args->a[0], (uint32_t)args->a[1], (uint32_t)args->a[2], true);
}
SYSCALL_DEFINE(SYS_setresgid, setresgid)
{
	return do_setresid((uint32_t)args->a[0], (uint32_t)args->a[1], (uint32_t)args->a[2], false);
}
SYSCALL_DEFINE(SYS_setfsuid, setfsuid) { return do_setfsid((uint32_t)args->a[0], true); }
SYSCALL_DEFINE(SYS_setfsgid, setfsgid) { return do_setfsid((uint32_t)args->a[0], false); }

// ---- supplementary groups ----

static void sort_ids(uint32_t *v, uint32_t n)
{
	// Shell sort: up to 65536 entries, no recursion, no extra memory.
	for (uint32_t gap = n / 2; gap > 0; gap /= 2)
		for (uint32_t i = gap; i < n; i++) {
			uint32_t x = v[i], j = i;

			for (; j >= gap && v[j - gap] > x; j -= gap)
				v[j] = v[j - gap];
			v[j] = x;
		}
}

SYSCALL_DEFINE(SYS_setgroups, setgroups)
{
	int n = (int)args->a[0];
	struct cred *old, *nc;
	long rc = 0;

	old = ref(current_cred());
	if (!cred_capable(old, CAP_SETGID)) {
		cred_put(old);
		return -EPERM;		// before the size, as Linux
	}
	if ((unsigned)n > NGROUPS_MAX) {
		cred_put(old);
		return -EINVAL;
	}
	nc = cred_copy(old, false);
	cred_put(old);
	if (!nc)
		return -ENOMEM;
	if (n > 0) {
		nc->groups = kmalloc((size_t)n * sizeof(uint32_t));
		if (!nc->groups)
			rc = -ENOMEM;
		else if (copy_from_user(nc->groups, args->a[1], (size_t)n * sizeof(uint32_t)) < 0)
			rc = -EFAULT;
		nc->ngroups = (uint32_t)n;
	}
	if (rc < 0) {
		cred_put(nc);
		return rc;
	}
	sort_ids(nc->groups, nc->ngroups);
	cred_commit(nc);
	return 0;
}

SYSCALL_DEFINE(SYS_getgroups, getgroups)
{
	int size = (int)args->a[0];
	struct cred *c;
	long rc;

	if (size < 0)
		return -EINVAL;
	c = ref(current_cred());
	rc = c->ngroups;
	if (size && (uint32_t)size < c->ngroups)
		rc = -EINVAL;
	else if (size && copy_to_user(args->a[1], c->groups, c->ngroups * sizeof(uint32_t)) < 0)
		rc = -EFAULT;
	cred_put(c);
	return rc;
}

// ---- capabilities: capget and capset ----

#define CAP_V1	0x19980330
#define CAP_V2	0x20071026
#define CAP_V3	0x20080522

struct cap_data {
	uint32_t effective, permitted, inheritable;
};

// The header's version: the number of 32-bit words it carries, or
// -EINVAL with the preferred version written back (-EFAULT if it
// cannot be).
static long cap_words(uint64_t uheader)
{
	uint32_t version;

	if (get_user_u32(&version, uheader) < 0)
		return -EFAULT;
	if (version == CAP_V1)
		return 1;
	if (version == CAP_V2 || version == CAP_V3)
		return 2;
	if (put_user_u32(uheader, CAP_V3) < 0)
		return -EFAULT;
	return -EINVAL;
}

SYSCALL_DEFINE(SYS_capget, capget)
{
	uint64_t uheader = args->a[0], udata = args->a[1];
	long words = cap_words(uheader);
	struct cap_data d[2];
	struct cred *c;
	uint32_t pid;

	// A version query: no data pointer and the version just fixed.
	if (!udata || words < 0)
		return !udata && words == -EINVAL ? 0 : words < 0 ? words : 0;
	if (get_user_u32(&pid, uheader + 4) < 0)
		return -EFAULT;
	if ((int)pid < 0)
		return -EINVAL;
	if (pid == 0 || pid == (uint32_t)current_thread()->tid) {
		c = ref(current_cred());
	} else {
		uint64_t irq = spin_lock_irqsave(&proc_tree_lock);
		struct thread *t = thread_find((int)pid);

		c = t && t->proc ? cred_of_thread(t) : NULL;
		spin_unlock_irqrestore(&proc_tree_lock, irq);
		if (!c)
			return -ESRCH;
	}
	for (int i = 0; i < 2; i++)
		d[i] = (struct cap_data){ (uint32_t)(c->cap_effective >> (32 * i)),
					  (uint32_t)(c->cap_permitted >> (32 * i)),
					  (uint32_t)(c->cap_inheritable >> (32 * i)) };
	cred_put(c);
	if (copy_to_user(udata, d, (size_t)words * sizeof(d[0])) < 0)
		return -EFAULT;
	return 0;
}

static uint64_t cap_join(const struct cap_data *d, int words, size_t field)
{
	uint64_t v = 0;

	for (int i = 0; i < words; i++)
		v |= (uint64_t)*(const uint32_t *)((const char *)&d[i] + field) << (32 * i);
	return v & CAP_FULL_SET;
}

SYSCALL_DEFINE(SYS_capset, capset)
{
	uint64_t uheader = args->a[0], udata = args->a[1];
	long words = cap_words(uheader);
	uint64_t eff, perm, inh;
	struct cap_data d[2];
	struct cred *old, *nc;
	uint32_t pid;
	long rc = 0;

	if (words < 0)
		return words;
	if (get_user_u32(&pid, uheader + 4) < 0)
		return -EFAULT;
	if (pid != 0 && pid != (uint32_t)current_thread()->tid)
		return -EPERM;		// only the caller itself
	if (copy_from_user(d, udata, (size_t)words * sizeof(d[0])) < 0)
		return -EFAULT;
	eff = cap_join(d, (int)words, offsetof(struct cap_data, effective));
	perm = cap_join(d, (int)words, offsetof(struct cap_data, permitted));
	inh = cap_join(d, (int)words, offsetof(struct cap_data, inheritable));
	old = ref(current_cred());
	// Linux's cap_capset: new inheritable capabilities come from the
	// permitted set (any, with CAP_SETPCAP) and never from outside the
	// bounding set; nothing new in the permitted set; effective within it.
	if (!cred_capable(old, CAP_SETPCAP) && (inh & ~(old->cap_inheritable | old->cap_permitted)))
		rc = -EPERM;
	else if (inh & ~(old->cap_inheritable | old->cap_bounding))
		rc = -EPERM;
	else if ((perm & ~old->cap_permitted) || (eff & ~perm))
		rc = -EPERM;
	nc = rc ? NULL : cred_prepare(old);
	if (!rc && !nc)
		rc = -ENOMEM;
	if (nc) {
		nc->cap_effective = eff;
		nc->cap_permitted = perm;
		nc->cap_inheritable = inh;
		nc->cap_ambient &= perm & inh;	// ambient stays within both
		cred_commit(nc);
	}
	cred_put(old);
	return rc;
}

// Installs a copy of the caller's credentials that change() has
// changed; 0 or -ENOMEM.
static long change_caps(void (*change)(struct cred *, unsigned long), unsigned long arg)
{
	struct cred *old = ref(current_cred());
	struct cred *nc = cred_prepare(old);

	cred_put(old);
	if (!nc)
		return -ENOMEM;
	change(nc, arg);
	cred_commit(nc);
	return 0;
}

static void set_keepcaps(struct cred *nc, unsigned long on)
{
	nc->securebits = on ? nc->securebits | SECURE_KEEP_CAPS : nc->securebits & ~SECURE_KEEP_CAPS;
}

int cred_set_keepcaps(unsigned long value)
{
	if (value > 1)
		return -EINVAL;
	if (current_cred()->securebits & (SECURE_KEEP_CAPS << 1))
		return -EPERM;		// locked
	return (int)change_caps(set_keepcaps, value);
}

int cred_get_keepcaps(void)
{
	return (current_cred()->securebits & SECURE_KEEP_CAPS) != 0;
}

static bool cap_valid(unsigned long cap)
{
	return cap <= CAP_LAST_CAP;
}

long cred_capbset_read(unsigned long cap)
{
	if (!cap_valid(cap))
		return -EINVAL;
	return (current_cred()->cap_bounding >> cap) & 1;
}

static void drop_bounding(struct cred *nc, unsigned long cap)
{
	nc->cap_bounding &= ~(1ULL << cap);
}

// Linux checks the capability before the number.
long cred_capbset_drop(unsigned long cap)
{
	if (!cred_capable(current_cred(), CAP_SETPCAP))
		return -EPERM;
	if (!cap_valid(cap))
		return -EINVAL;
	return change_caps(drop_bounding, cap);
}

#define PR_CAP_AMBIENT_IS_SET		1
#define PR_CAP_AMBIENT_RAISE		2
#define PR_CAP_AMBIENT_LOWER		3
#define PR_CAP_AMBIENT_CLEAR_ALL	4

static void clear_ambient(struct cred *nc, unsigned long unused)
{
	(void)unused;
	nc->cap_ambient = 0;
}

static void raise_ambient(struct cred *nc, unsigned long cap)
{
	nc->cap_ambient |= 1ULL << cap;
}

static void lower_ambient(struct cred *nc, unsigned long cap)
{
	nc->cap_ambient &= ~(1ULL << cap);
}

// A capability can be raised into the ambient set only if it is both
// permitted and inheritable; the set stays within both (capset, setuid).
long cred_cap_ambient(unsigned long op, unsigned long cap, unsigned long a4, unsigned long a5)
{
	const struct cred *c = current_cred();

	if (op == PR_CAP_AMBIENT_CLEAR_ALL)
		return cap || a4 || a5 ? -EINVAL : change_caps(clear_ambient, 0);
	if (!cap_valid(cap) || a4 || a5)
		return -EINVAL;
	if (op == PR_CAP_AMBIENT_IS_SET)
		return (c->cap_ambient >> cap) & 1;
	if (op == PR_CAP_AMBIENT_LOWER)
		return change_caps(lower_ambient, cap);
	if (op != PR_CAP_AMBIENT_RAISE)
		return -EINVAL;
	if (!((c->cap_permitted >> cap) & 1) || !((c->cap_inheritable >> cap) & 1) ||
	    (c->securebits & SECURE_NO_CAP_AMBIENT_RAISE))
		return -EPERM;
	return change_caps(raise_ambient, cap);
}

long cred_get_securebits(void)
{
	return current_cred()->securebits;
}

static void set_securebits(struct cred *nc, unsigned long bits)
{
	nc->securebits = (uint32_t)bits;
}

// Linux's rules: a locked flag cannot change, a lock cannot be released,
// no unknown bits, and CAP_SETPCAP is needed; all of them EPERM.
long cred_set_securebits(unsigned long bits)
{
	const struct cred *c = current_cred();
	uint32_t old = c->securebits;

	if ((((old & SECURE_ALL_LOCKS) >> 1) & (old ^ bits)) || (old & SECURE_ALL_LOCKS & ~bits) ||
	    (bits & ~(unsigned long)(SECURE_ALL_LOCKS | SECURE_ALL_BITS)) ||
	    !cred_capable(c, CAP_SETPCAP))
		return -EPERM;
	return change_caps(set_securebits, bits);
}

// ---- exec ----

struct cred *cred_for_exec(const struct vnode *vn, bool *secure)
{
	struct cred *old = ref(current_cred());
	struct cred *nc = cred_prepare(old);
	uint32_t mode = vn->mode;

	if (!nc) {
		cred_put(old);
		return NULL;
	}
	// PR_SET_NO_NEW_PRIVS: the set-id bits no longer give anything.
	if (current_thread()->no_new_privs)
		mode &= ~(uint32_t)(S_ISUID | S_ISGID);
	if (mode & S_ISUID)
		nc->euid = vn->uid;
	if ((mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		nc->egid = vn->gid;
	nc->suid = nc->fsuid = nc->euid;
	nc->sgid = nc->fsgid = nc->egid;
	nc->securebits &= ~SECURE_KEEP_CAPS;
	// Linux's rules without file capabilities (cap_bprm_creds_from_file):
	// root (real or effective, unless SECURE_NOROOT) is given the
	// bounding and inheritable sets, effective only with euid 0; others
	// keep only their ambient set, which a set-ID program loses.
	bool is_setid = nc->euid != old->uid || nc->egid != old->gid;
	bool root = (nc->euid == 0 || nc->uid == 0) && !(old->securebits & SECURE_NOROOT);
	bool effective = root && nc->euid == 0;

	nc->cap_permitted = root ? old->cap_bounding | old->cap_inheritable : 0;
	if (is_setid)
		nc->cap_ambient = 0;
	nc->cap_permitted |= nc->cap_ambient;
	nc->cap_effective = effective ? nc->cap_permitted : nc->cap_ambient;
	*secure = is_setid ||
		  (nc->uid != 0 && (effective || (nc->cap_permitted & ~nc->cap_ambient)));
	cred_put(old);
	return nc;
}

// ---- /proc/PID ----

void cred_proc_owner(struct process *p, uint32_t *uid, uint32_t *gid)
{
	struct cred *c = cred_of(p);

	*uid = p->not_dumpable ? 0 : c->euid;
	*gid = p->not_dumpable ? 0 : c->egid;
	cred_put(c);
}
