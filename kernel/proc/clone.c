// Creating processes and threads: fork, vfork, clone, clone3.

#include <kernel/process.h>
#include <kernel/cred.h>
#include <kernel/proc_internal.h>
#include <kernel/thread.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <kernel/vm.h>
#include <kernel/panic.h>
#include <kernel/pidfd.h>
#include <kernel/ipc.h>
#include <mm/kmalloc.h>
#include <fs/file.h>
#include <fs/vfs.h>
#include <lib/string.h>
#include <uapi/errno.h>
#include <uapi/machine.h>
#include <uapi/sched.h>
#include <arch/trapframe.h>

// A user thread of p with the ID 'want' (0: any); *err says why not.
static struct thread *user_thread_alloc_tid(struct process *p, const char *name, int want,
					    int *err)
{
	struct thread *t = thread_alloc(name);

	*err = -ENOMEM;
	if (!t)
		return 0;
	if (arch_user_thread_init(t) < 0) {
		thread_free(t);
		return 0;
	}
	cred_thread_init(t);	// the creating thread's credentials
	if ((*err = nproc_thread_new(t)) < 0) {
		thread_free(t);
		return 0;
	}
	*err = -ENOMEM;
	int tid = want ? tid_alloc_exact(t, p, want) : tid_alloc_for(t, p);
	if (tid < 0) {
		*err = want ? tid : -ENOMEM;
		thread_free(t);
		return 0;
	}
	t->proc = p;
	t->mm = p->mm;
	return t;
}

struct thread *user_thread_alloc(struct process *p, const char *name)
{
	int err;

	return user_thread_alloc_tid(p, name, 0, &err);
}

// Links a new thread into its process and makes it runnable.
void user_thread_start(struct thread *t)
{
	struct process *p = t->proc;
	uint64_t flags = spin_lock_irqsave(&p->lock);

	t->proc_next = p->threads;
	p->threads = t;
	p->nthreads++;
	spin_unlock_irqrestore(&p->lock, flags);
	acct_count_fork();		// /proc/stat "processes"
	arch_thread_init_user(t);
	sched_start(t);
}

static int check_flags(uint64_t flags)
{
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	// Namespaces are not supported.
	if (flags & (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |
		     CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET))
		return -EINVAL;
	// A pidfd names a process, not a thread (Linux 6.1).
	if ((flags & CLONE_PIDFD) && (flags & (CLONE_THREAD | CLONE_DETACHED)))
		return -EINVAL;
	return 0;
}

static struct fdtable *share_or_copy_files(struct fdtable *fdt, bool share)
{
	if (!share)
		return fdtable_copy(fdt);
	fdtable_get(fdt);
	return fdt;
}

static struct fs_view *share_or_copy_view(struct fs_view *fv, bool share)
{
	if (!share)
		return fs_view_copy(fv);
	fs_view_get(fv);
	return fv;
}

// A new thread's table and view: its process's (t->own_* NULL), the
// creating thread's own ones, or copies (without CLONE_FILES, CLONE_FS).
// 0 or -ENOMEM.
static int thread_tables(struct thread *t, struct thread *me, uint64_t flags)
{
	if (!(flags & CLONE_FILES))
		t->own_fdt = fdtable_copy(current_fdtable());
	else if (me->own_fdt)
		t->own_fdt = share_or_copy_files(me->own_fdt, true);
	if (!(flags & CLONE_FS))
		t->own_fs = fs_view_copy(current_fs_view());
	else if (me->own_fs)
		t->own_fs = share_or_copy_view(me->own_fs, true);
	if ((!(flags & CLONE_FILES) && !t->own_fdt) || (!(flags & CLONE_FS) && !t->own_fs))
		return -ENOMEM;
	return 0;
}

void thread_tables_release(struct thread *t)
{
	// Cleared under p->lock, where others (kcmp, vhangup) look at them.
	uint64_t irq = spin_lock_irqsave(&t->proc->lock);
	struct fdtable *fdt = t->own_fdt;
	struct fs_view *fv = t->own_fs;

	t->own_fdt = NULL;
	t->own_fs = NULL;
	spin_unlock_irqrestore(&t->proc->lock, irq);
	if (fdt)
		fdtable_put(fdt);
	fs_view_put(fv);
}

// A new process: copies (or shares, as flags say) the parent's address
// space, files and signal handlers.
static struct process *new_process(struct process *parent, uint64_t flags)
{
	struct process *p = process_alloc();

	if (!p)
		return 0;
	p->pgid = parent->pgid;
	p->sid = parent->sid;
	p->ctty = parent->ctty;
	// clone() takes any byte as the exit signal; Linux sends it at exit
	// only if it is a signal, so one beyond NSIG means none.  A sibling
	// (CLONE_PARENT) gets the caller's, as on Linux.
	p->exit_signal = (flags & CSIGNAL) <= NSIG ? flags & CSIGNAL : 0;
	if (flags & CLONE_PARENT)
		p->exit_signal = parent->exit_signal;
	cred_fork(p);
	// The creating thread's exit sends the parent-death signal; a sibling
	// (CLONE_PARENT) waits for its parent's last thread.
	p->parent_tid = (flags & CLONE_PARENT) ? 0 : current_thread()->tid;
	p->not_dumpable = parent->not_dumpable;
	p->thp_disable = parent->thp_disable;
	p->arch = parent->arch;
	memcpy(p->exe_path, parent->exe_path, sizeof(p->exe_path));
	memcpy(p->rlimits, parent->rlimits, sizeof(p->rlimits));
	if (flags & CLONE_VM) {
		mm_get(parent->mm);
		p->mm = parent->mm;
	} else {
		p->mm = mm_copy(parent->mm);
	}
	// The calling thread's table and view, which may be its own.
	p->fdt = share_or_copy_files(current_fdtable(), flags & CLONE_FILES);
	if (flags & CLONE_SIGHAND)
		p->sighand = sighand_share(parent->sighand);
	else
		p->sighand = sighand_copy(parent->sighand, flags & CLONE_CLEAR_SIGHAND);
	p->fs = share_or_copy_view(current_fs_view(), flags & CLONE_FS);
	if (sem_undo_fork(p, flags & CLONE_SYSVSEM) < 0) {
		process_discard(p);
		return 0;
	}
	if (!p->mm || !p->fdt || !p->fs || !p->sighand) {
		process_discard(p);
		return 0;
	}
	return p;
}

static int copy_thread_state(struct thread *child, struct thread *parent,
			     struct trap_frame *pf, uint64_t flags, uint64_t newsp, uint64_t tls)
{
	struct trap_frame *cf = arch_thread_user_frame(child);

	*cf = *pf;
	arch_frame_set_return(cf, 0);
	if (newsp)
		arch_frame_set_stack(cf, newsp);
	arch_clone_user_bases(child, flags & CLONE_SETTLS, tls);
	child->sig_blocked = parent->sig_blocked;
	if (!(flags & CLONE_VM))
		child->altstack = parent->altstack;
	else
		child->altstack.ss_flags = SS_DISABLE;
	rseq_fork(child, parent, flags);
	child->affinity = parent->affinity;
	// As Linux: the slack is inherited and becomes the child's default.
	child->timer_slack_ns = parent->timer_slack_ns;
	child->default_timer_slack_ns = parent->timer_slack_ns;
	child->no_new_privs = parent->no_new_privs;
	seccomp_fork(child, parent);
	child->personality = parent->personality;
	// Every clone, thread or process, starts with its parent's policy.
	child->mempolicy = parent->mempolicy;
	child->cpu = parent->cpu;
	sched_fork(child, parent);
	if (ioprio_fork(child, parent, flags) < 0)
		return -ENOMEM;
	return arch_user_thread_copy(child, parent);
}

// clone(2): CLONE_PIDFD writes the pidfd where CLONE_PARENT_SETTID would
// write the ID, so the two cannot go together.
long do_clone(uint64_t flags, uint64_t newsp, uint64_t ptid, uint64_t ctid, uint64_t tls,
	      struct trap_frame *f)
{
	if ((flags & CLONE_PIDFD) && (flags & CLONE_PARENT_SETTID))
		return -EINVAL;
	return do_clone_tid(flags, newsp, ptid, ctid, tls, 0, (flags & CLONE_PIDFD) ? ptid : 0, f);
}

// CLONE_PIDFD: the parent gets a pidfd for the child, its number at
// 'upidfd', before the child runs; a pointer that cannot be written
// undoes the clone (EFAULT), as Linux.
static int give_pidfd(struct process *p, uint64_t upidfd)
{
	int fd = pidfd_create(p->pid, p->start_ns, 0);

	if (fd < 0)
		return fd;
	if (put_user_u32(upidfd, (uint32_t)fd) < 0) {
		fd_close(current_fdtable(), fd);
		return -EFAULT;
	}
	return 0;
}

long do_clone_tid(uint64_t flags, uint64_t newsp, uint64_t ptid, uint64_t ctid, uint64_t tls,
		  int want_tid, uint64_t upidfd, struct trap_frame *f)
{
	struct thread *me = current_thread();
	struct process *parent = me->proc;
	struct process *p;
	struct vfork_done vd = { 0 };
	int err = check_flags(flags);

	if (err)
		return err;
	if ((flags & CLONE_SETTLS) && !arch_user_base_ok(tls))
		return -EPERM;		// as Linux: no FS base outside the user half
	if (flags & CLONE_THREAD) {
		p = parent;
	} else {
		p = new_process(parent, flags);
		if (!p)
			return -ENOMEM;
	}
	int terr;
	struct thread *t = user_thread_alloc_tid(p, me->name, want_tid, &terr);
	if (!t) {
		if (p != parent)
			process_discard(p);
		return terr;
	}
	int rc = copy_thread_state(t, me, f, flags, newsp, tls) < 0 ? -ENOMEM : 0;
	if (rc == 0 && (flags & CLONE_THREAD) && thread_tables(t, me, flags) < 0)
		rc = -ENOMEM;
	if (rc == 0 && (flags & CLONE_PIDFD))
		rc = give_pidfd(p, upidfd);
	if (rc) {
		thread_tables_release(t);
		tid_free(t->tid);
		thread_free(t);
		if (p != parent)
			process_discard(p);
		return rc;
	}
	if (flags & CLONE_CHILD_CLEARTID)
		t->clear_child_tid = ctid;
	// vfork, also of a thread (CLONE_THREAD): we wait below until t
	// execs or exits.
	if (flags & CLONE_VFORK)
		t->vfork_done = &vd;
	if (flags & CLONE_PARENT_SETTID)
		put_user_u32(ptid, t->tid);		// Linux ignores a bad pointer here
	if (flags & CLONE_CHILD_SETTID) {
		// Written in the child's address space (the same for threads).
		uint32_t tid = t->tid;
		vm_write(t->mm, ctid, &tid, sizeof(tid));
	}
	int tid = t->tid;
	if (p != parent) {
		uint64_t lf = spin_lock_irqsave(&proc_tree_lock);
		struct process *new_parent = (flags & CLONE_PARENT) && parent->parent ? parent->parent : parent;
		process_link_child_locked(new_parent, p);
		spin_unlock_irqrestore(&proc_tree_lock, lf);
	}
	user_thread_start(t);
	if (flags & CLONE_VFORK)
		vfork_wait(t, &vd);
	return tid;
}

SYSCALL_DEFINE(SYS_fork, fork)
{
	(void)args;
	return do_clone(SIGCHLD, 0, 0, 0, 0, syscall_frame());
}

SYSCALL_DEFINE(SYS_vfork, vfork)
{
	(void)args;
	return do_clone(CLONE_VM | CLONE_VFORK | SIGCHLD, 0, 0, 0, 0, syscall_frame());
}

// clone(flags, newsp, parent_tid, child_tid, tls) on x86-64; as on
// Linux only the low 32 bits of flags count.
// clone's arguments come in the arch's order (uapi/machine.h: x86-64
// has the child's TID pointer before the TLS value, ppc64 after it).
SYSCALL_DEFINE(SYS_clone, clone)
{
	return do_clone(args->a[0] & 0xffffffffULL, args->a[1], args->a[2],
			args->a[CLONE_ARG_CHILD_TID], args->a[CLONE_ARG_TLS], syscall_frame());
}

struct clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

#define CLONE_ARGS_SIZE_VER0	64	// up to tls
#define CLONE_ARGS_SIZE_VER2	88	// with cgroup
#define CLONE_INTO_CGROUP	0x200000000ULL
// Linux's nesting limit of PID namespaces: set_tid holds one ID per level.
#define MAX_PID_NS_LEVEL	32

// Copies the caller's struct (which may be older, shorter, or newer and
// longer than ours) and checks it as Linux's copy_clone_args_from_user.
static long clone3_copy(uint64_t uargs, uint64_t size, struct clone_args *ca)
{
	memset(ca, 0, sizeof(*ca));
	if (size > 4096)
		return -E2BIG;
	if (size < CLONE_ARGS_SIZE_VER0)
		return -EINVAL;
	if (copy_from_user(ca, uargs, size < sizeof(*ca) ? size : sizeof(*ca)) < 0)
		return -EFAULT;
	// A larger struct from a newer libc: what we do not know must be 0.
	for (uint64_t off = sizeof(*ca); off < size; off += 8) {
		uint64_t word = 0;

		if (copy_from_user(&word, uargs + off, size - off < 8 ? size - off : 8) < 0)
			return -EFAULT;
		if (word)
			return -E2BIG;
	}
	if (ca->set_tid_size > MAX_PID_NS_LEVEL)
		return -EINVAL;
	if ((ca->set_tid == 0) != (ca->set_tid_size == 0))
		return -EINVAL;
	if (ca->exit_signal > NSIG)
		return -EINVAL;
	if ((ca->flags & CLONE_INTO_CGROUP) &&
	    (ca->cgroup > 0x7fffffff || size < CLONE_ARGS_SIZE_VER2))
		return -EINVAL;
	return 0;
}

// Linux's clone3_args_valid.
static bool clone3_valid(const struct clone_args *ca)
{
	if (ca->flags & ~(0xffffffffULL | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP))
		return false;
	if (ca->flags & (CSIGNAL | CLONE_DETACHED))
		return false;
	if ((ca->flags & CLONE_SIGHAND) && (ca->flags & CLONE_CLEAR_SIGHAND))
		return false;
	if ((ca->flags & (CLONE_THREAD | CLONE_PARENT)) && ca->exit_signal)
		return false;
	if ((ca->stack == 0) != (ca->stack_size == 0))
		return false;
	return ca->stack == 0 || user_range_ok(ca->stack, ca->stack_size);
}

// set_tid: with one PID namespace, one ID, in 1..pid_max-1; more levels than there are is EINVAL.  Only a caller
// with CAP_CHECKPOINT_RESTORE may choose (EPERM); every process is root
// with all capabilities here.  A taken ID is EEXIST (from the allocator).
static long clone3_set_tid(const struct clone_args *ca, const int32_t *tids, int *want)
{
	*want = 0;
	if (!ca->set_tid_size)
		return 0;
	if (ca->set_tid_size > 1)
		return -EINVAL;
	if (tids[0] < 1 || tids[0] >= pid_max_get())
		return -EINVAL;
	// Choosing one's PID is checkpoint/restore's privilege.
	const struct cred *c = current_cred();
	if (!cred_capable(c, CAP_SYS_ADMIN) && !cred_capable(c, CAP_CHECKPOINT_RESTORE))
		return -EPERM;
	*want = tids[0];
	return 0;
}

SYSCALL_DEFINE(SYS_clone3, clone3)
{
	struct clone_args ca;
	int32_t tids[MAX_PID_NS_LEVEL];
	int want;
	long r = clone3_copy(args->a[0], args->a[1], &ca);

	if (r < 0)
		return r;
	// The IDs are read before the flags are judged, as on Linux.
	if (ca.set_tid_size &&
	    copy_from_user(tids, ca.set_tid, ca.set_tid_size * sizeof(int32_t)) < 0)
		return -EFAULT;
	if (!clone3_valid(&ca))
		return -EINVAL;
	// Not implemented: cgroups (CLONE_INTO_CGROUP).
	if (ca.flags & CLONE_INTO_CGROUP)
		return -EINVAL;
	r = clone3_set_tid(&ca, tids, &want);
	if (r < 0)
		return r;
	uint64_t sp = ca.stack ? ca.stack + ca.stack_size : 0;
	return do_clone_tid(ca.flags | ca.exit_signal, sp, ca.parent_tid, ca.child_tid, ca.tls,
			    want, ca.pidfd, syscall_frame());
}

// ---- unshare ----

// unshare(CLONE_FS): the caller's view becomes its own copy.  Alone in
// its process, it replaces the process's (what /proc shows); with other
// threads, the thread gets one of its own (Linux's views are per thread).
static int unshare_fs(struct process *p, struct thread *t, bool alone)
{
	struct fs_view *cur = current_fs_view(), *copy;
	uint64_t irq;

	if (__atomic_load_n(&cur->refcount, __ATOMIC_ACQUIRE) == 1 && (alone || t->own_fs))
		return 0;
	copy = fs_view_copy(cur);
	if (!copy)
		return -ENOMEM;
	if (alone && !t->own_fs) {
		fs_view_put(fs_view_replace(p, copy));
		return 0;
	}
	irq = spin_lock_irqsave(&p->lock);
	t->own_fs = copy;
	spin_unlock_irqrestore(&p->lock, irq);
	if (cur != p->fs)
		fs_view_put(cur);
	return 0;
}

int process_unshare_files(struct process *p)
{
	struct fdtable *copy, *old = p->fdt;
	uint64_t irq;

	if (__atomic_load_n(&old->refcount, __ATOMIC_ACQUIRE) == 1)
		return 0;
	copy = fdtable_copy(old);
	if (!copy)
		return -ENOMEM;
	irq = spin_lock_irqsave(&p->lock);
	p->fdt = copy;
	spin_unlock_irqrestore(&p->lock, irq);
	fdtable_put(old);
	return 0;
}

// unshare(CLONE_FILES), as unshare_fs does it for the table.
static int unshare_files(struct process *p, struct thread *t, bool alone)
{
	struct fdtable *cur = current_fdtable(), *copy;
	uint64_t irq;

	if (alone && !t->own_fdt)
		return process_unshare_files(p);
	if (t->own_fdt && __atomic_load_n(&cur->refcount, __ATOMIC_ACQUIRE) == 1)
		return 0;
	copy = fdtable_copy(cur);
	if (!copy)
		return -ENOMEM;
	irq = spin_lock_irqsave(&p->lock);
	t->own_fdt = copy;
	spin_unlock_irqrestore(&p->lock, irq);
	if (cur != p->fdt)
		fdtable_put(cur);
	return 0;
}

int exec_unshare_files(struct thread *t)
{
	return t->own_fdt ? unshare_files(t->proc, t, false) : process_unshare_files(t->proc);
}

void thread_tables_adopt(struct thread *t)
{
	struct process *p = t->proc;
	uint64_t irq;

	if (t->own_fdt) {
		struct fdtable *old;

		irq = spin_lock_irqsave(&p->lock);
		old = p->fdt;
		p->fdt = t->own_fdt;
		t->own_fdt = NULL;
		spin_unlock_irqrestore(&p->lock, irq);
		fdtable_put(old);
	}
	if (t->own_fs) {
		struct fs_view *old = fs_view_replace(p, t->own_fs);

		t->own_fs = NULL;
		fs_view_put(old);
	}
}

#define UNSHARE_KNOWN (CLONE_THREAD | CLONE_FS | CLONE_NEWNS | CLONE_SIGHAND | CLONE_VM | \
		       CLONE_FILES | CLONE_SYSVSEM | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | \
		       CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWCGROUP | CLONE_NEWTIME)
#define UNSHARE_NAMESPACES (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | \
			    CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWCGROUP | CLONE_NEWTIME)

// unshare(2) with Linux's rules.  There are no namespaces (EINVAL, as a
// kernel built without them) and no System V semaphore undo lists
// (CLONE_SYSVSEM has nothing to do).
SYSCALL_DEFINE(SYS_unshare, unshare)
{
	uint64_t flags = args->a[0];
	struct process *p = current_process();
	bool alone;
	uint64_t irq;
	int rc = 0;

	if (flags & ~(uint64_t)UNSHARE_KNOWN)
		return -EINVAL;
	if (flags & UNSHARE_NAMESPACES)
		return -EINVAL;
	irq = spin_lock_irqsave(&p->lock);
	alone = p->nthreads == 1;
	spin_unlock_irqrestore(&p->lock, irq);
	if ((flags & (CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)) && !alone)
		return -EINVAL;
	// Shared handlers or memory cannot be unshared (as Linux, whose
	// check of CLONE_VM looks at the handlers too).
	if ((flags & (CLONE_SIGHAND | CLONE_VM)) && sighand_shared(p->sighand))
		return -EINVAL;
	if ((flags & CLONE_VM) && __atomic_load_n(&p->mm->refcount, __ATOMIC_ACQUIRE) > 1)
		return -EINVAL;
	if (flags & CLONE_FS)
		rc = unshare_fs(p, current_thread(), alone);
	if (rc == 0 && (flags & CLONE_FILES))
		rc = unshare_files(p, current_thread(), alone);
	return rc;
}
