// /proc/self, /proc/thread-self, /proc/PID and /proc/PID/task/TID: the
// per-process part of /proc (docs/proc.md).
//
// Nothing here is stored.  /proc's lookup hook (fs/vnode.h) makes a vnode
// when a path names a process, a file in its directory, a thread or a
// descriptor; the vnode records only what it stands for (struct pnode)
// and is freed with its last reference.  Every read looks the process up
// again: a file kept open on a process that has since been reaped reads
// ESRCH, one on a zombie reads what Linux shows of zombies (cmdline and
// environ empty, no fd/ entries, exe and cwd ENOENT).
//
// Locking.  Lookups and symlink targets run with vfs_tree_lock held (path
// walks hold it); under it they take proc_tree_lock, which keeps every
// process from being freed, then p->lock, which guards p->threads, p->mm
// and p->fdt, then the descriptor table's lock.  Reads run without the
// tree lock: they copy what they need under those locks (struct psnap),
// take a reference to the address space, and render from that.
//
// The numbers that other parts of the kernel will supply (CPU times,
// credentials, terminal, stopped state) come from the proc_* functions
// under "what other parts supply" below, and only from there.

#include <fs/file.h>
#include <fs/fcntl.h>
#include <fs/poll.h>
#include <fs/procfs.h>
#include <fs/vfs.h>
#include <kernel/cpu.h>
#include <kernel/mm.h>
#include <kernel/proc_internal.h>
#include <kernel/sched.h>
#include <kernel/cputime.h>
#include <kernel/cred.h>
#include <kernel/process.h>
#include <kernel/signal.h>
#include <kernel/tty.h>
#include <kernel/time.h>
#include <kernel/uaccess.h>
#include <kernel/vm.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <mm/phys.h>
#include <uapi/errno.h>
#include <uapi/sched.h>

#define CLOCK_TICKS_PER_SEC 100		// AT_CLKTCK: the unit of stat's times
#define RLIM_INFINITY UINT64_MAX
#define MAX_TEXT (4u << 20)		// largest rendering (maps of a huge address space)

enum pnode_kind {
	PN_PID_DIR = 1, PN_TASK_DIR, PN_TID_DIR, PN_FD_DIR, PN_FDINFO_DIR,
	PN_FD_LINK, PN_FDINFO,
	PN_STAT, PN_STATUS, PN_STATM, PN_CMDLINE, PN_COMM, PN_ENVIRON, PN_AUXV, PN_MAPS,
	PN_LIMITS, PN_MOUNTS, PN_TIMERS, PN_SCHED, PN_COREDUMP_FILTER, PN_PAGEMAP,
	PN_EXE, PN_CWD, PN_ROOT,
};

// What a /proc vnode stands for.  tid 0: the process as a whole (its
// main thread where a thread is meant).  start_ns tells a process from a
// later one that got the same ID.
struct pnode {
	enum pnode_kind kind;
	int pid, tid, fd;
	uint64_t start_ns;
};

// Inode numbers: fixed per object, so that readdir, stat and a second
// lookup agree; far above the ramfs's counter.
static uint64_t pnode_ino(enum pnode_kind kind, int pid, int tid, int fd)
{
	return (1ULL << 62) | ((uint64_t)kind << 48) | ((uint64_t)pid << 32) |
	       ((uint64_t)tid << 16) | (uint64_t)(fd & 0xffff);
}

// ---- what other parts supply ----
//
// Each of these says what Switchyard knows today; the parts that add
// CPU-time accounting, credentials, job control and terminals change
// only these functions.

// The one-letter state of ps and stat: R running or runnable, S in an
// interruptible sleep, D in one that signals do not end, T stopped by a
// signal (the whole group stop complete, as Linux shows it), Z zombie.
static char proc_task_state(struct process *p, const struct thread *t)
{
	if (p->zombie || !t)
		return 'Z';
	if (process_is_stopped(p))
		return 'T';
	if (t->state == THREAD_BLOCKED)
		return t->interruptible ? 'S' : 'D';
	if (t->state == THREAD_DEAD)
		return 'X';
	return 'R';
}

// The controlling terminal (stat's tty_nr, as Linux encodes a device
// number) and its foreground process group: 0 and -1 without one.
// proc_tree_lock held (it guards p->ctty).
static void proc_tty(const struct process *p, int *tty_nr, int *tpgid)
{
	const struct tty *tty = p->ctty;
	uint64_t rdev = CONSOLE_RDEV;

	*tty_nr = 0;
	*tpgid = -1;
	if (!tty)
		return;
	if (tty->vn)
		rdev = tty->vn->rdev;		// a pty's slave
	uint32_t major = (uint32_t)(rdev >> 8), minor = (uint32_t)(rdev & 0xff);
	*tty_nr = (int)((minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12));
	*tpgid = tty->fg_pgrp ? tty->fg_pgrp : -1;
}

// ---- finding the process ----

// A process as /proc sees it: created and not yet reaped.  A process
// still being built by clone (no thread yet) is not shown.
static struct process *find_locked(int pid, uint64_t start_ns)
{
	struct process *p = process_find(pid);

	if (!p || (start_ns && p->start_ns != start_ns))
		return NULL;
	if (!p->zombie && __atomic_load_n(&p->nthreads, __ATOMIC_RELAXED) == 0)
		return NULL;
	return p;
}

// p's thread 'tid', or its main thread (the first left when that has
// exited) for tid 0.  p->lock held.
static struct thread *thread_locked(struct process *p, int tid)
{
	for (struct thread *t = p->threads; t; t = t->proc_next)
		if (t->tid == (tid ? tid : p->pid))
			return t;
	return tid ? NULL : p->threads;
}

// Everything a rendering needs, copied under the locks.
struct psnap {
	int pid, tid, ppid, pgid, sid, nthreads, exit_signal, exit_code, cpu;
	int prio, nice, rt_prio, policy;	// stat's scheduling fields
	// ... and sched's (the thread's, or the process's first thread's).
	uint64_t exec_start, vruntime, sum_exec, nr_switches, weight;
	bool zombie;
	char state;
	char comm[16];
	uint32_t umask;
	uint64_t start_ns;
	uint64_t sigpnd, shdpnd, sigblk, sigign, sigcgt;
	uint64_t utime, stime, cutime, cstime;		// clock ticks
	uint64_t minflt, majflt, cminflt, cmajflt, nvcsw, nivcsw;
	struct cred *cred;		// referenced: the thread's, or the process's
	int tty_nr, tpgid;
	cpumask_t affinity;
	bool no_new_privs;
	int seccomp_mode, seccomp_filters;
	struct rlimit_pair rlimits[RLIMIT_COUNT];
	struct mm *mm;			// referenced; NULL for a zombie
	int fdsize;
};

// A zombie has no thread left to name it: its program's name stands in.
static void exe_comm(const struct process *p, char *comm)
{
	const char *base = strrchr(p->exe_path, '/');

	strlcpy(comm, base ? base + 1 : p->exe_path, 16);
}

// CPU times, faults and context switches of a thread (or of the whole
// process when t is NULL) and of its reaped children
// (docs/accounting.md): times in clock ticks, as stat shows them.
// proc_tree_lock and p->lock held.
static void proc_times(struct process *p, struct thread *t, struct psnap *s)
{
	struct acct_totals self, children;
	const uint64_t tick_ns = 1000000000ULL / CLOCK_TICKS_PER_SEC;

	acct_task_totals_locked(p, t, &self, &children);
	s->utime = self.user_ns / tick_ns;
	s->stime = self.sys_ns / tick_ns;
	s->cutime = children.user_ns / tick_ns;
	s->cstime = children.sys_ns / tick_ns;
	s->minflt = self.minflt;
	s->majflt = self.majflt;
	s->cminflt = children.minflt;
	s->cmajflt = children.majflt;
	s->nvcsw = self.nvcsw;
	s->nivcsw = self.nivcsw;
}

static void snap_signals(struct process *p, struct thread *t, struct psnap *s)
{
	s->shdpnd = p->sig_pending;
	s->sigpnd = t ? t->sig_pending : 0;
	s->sigblk = t ? t->sig_blocked : 0;
	if (!p->sighand)
		return;
	for (int sig = 1; sig <= NSIG; sig++) {
		uint64_t h = p->sighand->action[sig].handler;

		if (h == SIG_IGN)
			s->sigign |= 1ULL << (sig - 1);
		else if (h != SIG_DFL)
			s->sigcgt |= 1ULL << (sig - 1);
	}
}

// Copies what pn's process (and thread) look like now: 0, or -ESRCH
// when the process has been reaped or the thread has exited.
static int snap_take(const struct pnode *pn, struct psnap *s)
{
	uint64_t tf = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = find_locked(pn->pid, pn->start_ns);
	int rc = -ESRCH;

	memset(s, 0, sizeof(*s));
	if (p) {
		spin_lock(&p->lock);
		struct thread *t = thread_locked(p, pn->tid);
		if (t || !pn->tid) {
			s->pid = p->pid;
			s->tid = pn->tid ? pn->tid : p->pid;
			s->ppid = p->parent ? p->parent->pid : 0;
			s->pgid = p->pgid;
			s->sid = p->sid;
			s->nthreads = p->nthreads;
			s->exit_signal = p->exit_signal;
			s->zombie = p->zombie;
			s->exit_code = p->zombie ? p->exit_status : 0;
			s->state = proc_task_state(p, t);
			s->umask = p->fs ? __atomic_load_n(&p->fs->umask, __ATOMIC_RELAXED) : 0;
			s->start_ns = p->start_ns;
			s->cpu = t ? t->cpu : 0;
			s->prio = t ? sched_stat_prio(t) : 20;
			s->nice = t ? t->nice : 0;
			s->rt_prio = t && (t->policy == SCHED_FIFO || t->policy == SCHED_RR) ? t->rt_prio : 0;
			s->policy = t ? t->policy : 0;
			if (t) {
				s->exec_start = t->exec_start;
				s->vruntime = t->vruntime;
				s->sum_exec = t->sum_exec_ns;
				s->nr_switches = t->nr_switches;
				s->weight = t->weight;
			}
			s->affinity = t ? t->affinity : 0;
			s->no_new_privs = t && t->no_new_privs;
			s->seccomp_mode = t ? t->seccomp.mode : 0;
			s->seccomp_filters = t ? t->seccomp.nfilters : 0;
			if (t)
				memcpy(s->comm, t->name, sizeof(s->comm));
			else
				exe_comm(p, s->comm);
			s->comm[sizeof(s->comm) - 1] = 0;
			snap_signals(p, t, s);
			proc_times(p, pn->tid ? t : NULL, s);
			s->cred = t ? cred_of_thread(t) : cred_of(p);
			proc_tty(p, &s->tty_nr, &s->tpgid);
			memcpy(s->rlimits, p->rlimits, sizeof(s->rlimits));
			s->fdsize = p->fdt ? p->fdt->size : 0;
			s->mm = p->mm;
			if (s->mm)
				mm_get(s->mm);
			rc = 0;
		}
		spin_unlock(&p->lock);
	}
	spin_unlock_irqrestore(&proc_tree_lock, tf);
	return rc;
}

static void snap_drop(struct psnap *s)
{
	if (s->mm)
		mm_put(s->mm);
	s->mm = NULL;
	if (s->cred)
		cred_put(s->cred);
	s->cred = NULL;
}

// ---- text ----

// A rendering in progress: appends until 'size', then only counts, so
// the caller can retry with room enough.
struct text {
	char *buf;
	size_t size, len;
};

static void tprintf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void tprintf(struct text *t, const char *fmt, ...)
{
	va_list ap;
	size_t room = t->len < t->size ? t->size - t->len : 0;

	va_start(ap, fmt);
	t->len += (size_t)kvsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
	va_end(ap);
}

// Pads the line that started at 'line' with spaces to 'col' columns.
static void tpad(struct text *t, size_t line, size_t col)
{
	while (t->len - line < col)
		tprintf(t, " ");
}

// ---- stat, statm, status ----

// Sizes of an address space, in bytes.
struct mm_sizes {
	uint64_t total, data, stack, exec;
};

static void count_region(void *arg, const struct vm_region *r)
{
	struct mm_sizes *z = arg;
	uint64_t len = r->end - r->start;

	z->total += len;
	if (r->stack)
		z->stack += len;
	else if ((r->prot & PROT_EXEC) && r->file)
		z->exec += len;
	else if ((r->prot & PROT_WRITE) && !r->shared)
		z->data += len;
}

static void mm_sizes(struct mm *mm, struct mm_sizes *z)
{
	memset(z, 0, sizeof(*z));
	if (mm)
		vm_regions(mm, count_region, z);
}

static uint64_t mm_rss(struct mm *mm)
{
	return mm ? __atomic_load_n(&mm->rss, __ATOMIC_RELAXED) : 0;
}

// proc(5)'s 52 fields, in order.
static void render_stat(struct text *t, struct psnap *s)
{
	struct mm_sizes z;
	struct mm *mm = s->mm;
	uint64_t start = s->start_ns / (1000000000 / CLOCK_TICKS_PER_SEC);

	mm_sizes(mm, &z);
	tprintf(t, "%d (%s) %c %d %d %d %d %d %u %lu %lu %lu %lu ", s->tid, s->comm, s->state,
		s->ppid, s->pgid, s->sid, s->tty_nr, s->tpgid, 0u, s->minflt, s->cminflt,
		s->majflt, s->cmajflt);
	tprintf(t, "%lu %lu %ld %ld %ld %ld %d %ld %lu %lu %lu %lu ", s->utime, s->stime,
		(long)s->cutime, (long)s->cstime, (long)s->prio, (long)s->nice, s->nthreads, 0l, start, z.total,
		mm_rss(mm), s->rlimits[5].cur);
	tprintf(t, "%lu %lu %lu %lu %lu ", mm ? mm->start_code : 0, mm ? mm->end_code : 0,
		mm ? mm->start_stack : 0, 0ul, 0ul);
	// The signal sets as decimal bitmaps (obsolete, but in place).
	tprintf(t, "%lu %lu %lu %lu %lu %lu %lu %d %d %u %u %lu %lu %ld ",
		s->sigpnd | s->shdpnd, s->sigblk, s->sigign, s->sigcgt, 0ul, 0ul, 0ul,
		s->exit_signal, s->cpu, (unsigned)s->rt_prio, (unsigned)s->policy, 0ul, 0ul, 0l);
	tprintf(t, "%lu %lu %lu %lu %lu %lu %lu %d\n", mm ? mm->start_data : 0,
		mm ? mm->end_data : 0, mm ? mm->brk_start : 0, mm ? mm->arg_start : 0,
		mm ? mm->arg_end : 0, mm ? mm->env_start : 0, mm ? mm->env_end : 0,
		s->exit_code);
}

// size resident shared text lib data dt, in pages; "shared" counts the
// files' own frames mapped (Linux: file and shmem pages).
static void render_statm(struct text *t, struct psnap *s)
{
	struct mm_sizes z;

	mm_sizes(s->mm, &z);
	uint64_t shared = s->mm ? __atomic_load_n(&s->mm->rss_file, __ATOMIC_RELAXED) : 0;

	tprintf(t, "%lu %lu %lu %lu %lu %lu %lu\n", z.total / PAGE_SIZE, mm_rss(s->mm), shared,
		z.exec / PAGE_SIZE, 0ul, (z.data + z.stack) / PAGE_SIZE, 0ul);
}

static const char *state_name(char c)
{
	switch (c) {
	case 'R': return "R (running)";
	case 'S': return "S (sleeping)";
	case 'D': return "D (disk sleep)";
	case 'T': return "T (stopped)";
	case 'Z': return "Z (zombie)";
	default: return "X (dead)";
	}
}

// "Cpus_allowed_list": ranges such as 0-3,5.
static void cpu_list(struct text *t, cpumask_t m)
{
	bool first = true;

	for (int i = 0; i < 64; i++) {
		int j = i;

		if (!(m & (1ULL << i)))
			continue;
		while (j + 1 < 64 && (m & (1ULL << (j + 1))))
			j++;
		tprintf(t, j > i ? "%s%d-%d" : "%s%d", first ? "" : ",", i, j);
		first = false;
		i = j;
	}
	tprintf(t, "\n");
}

// Uid, Gid, FDSize and Groups, as Linux lays them out (a space after the
// last group, as Linux leaves one).
static void render_ids(struct text *t, const struct cred *c, int fdsize)
{
	tprintf(t, "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\n", c->uid, c->euid, c->suid,
		c->fsuid, c->gid, c->egid, c->sgid, c->fsgid);
	tprintf(t, "FDSize:\t%d\nGroups:\t", fdsize);
	for (uint32_t i = 0; i < c->ngroups; i++)
		tprintf(t, i ? " %u" : "%u", c->groups[i]);
	tprintf(t, " \n");
}

// The capability sets, then no_new_privs and seccomp as Linux has them.
static void render_caps(struct text *t, const struct cred *c, const struct psnap *s)
{
	tprintf(t, "CapInh:\t%016lx\nCapPrm:\t%016lx\nCapEff:\t%016lx\nCapBnd:\t%016lx\n"
		"CapAmb:\t%016lx\n", (unsigned long)c->cap_inheritable,
		(unsigned long)c->cap_permitted, (unsigned long)c->cap_effective,
		(unsigned long)c->cap_bounding, (unsigned long)c->cap_ambient);
	tprintf(t, "NoNewPrivs:\t%d\nSeccomp:\t%d\nSeccomp_filters:\t%d\n", s->no_new_privs,
		s->seccomp_mode, s->seccomp_filters);
}

static void render_status(struct text *t, struct psnap *s)
{
	const uint64_t kb = 1024;
	cpumask_t online = cpumask_online();

	tprintf(t, "Name:\t%s\nUmask:\t%04o\nState:\t%s\n", s->comm, s->umask,
		state_name(s->state));
	tprintf(t, "Tgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\n", s->pid, s->tid,
		s->ppid);
	render_ids(t, s->cred, s->fdsize);
	tprintf(t, "NStgid:\t%d\nNSpid:\t%d\nNSpgid:\t%d\nNSsid:\t%d\n", s->pid, s->tid,
		s->pgid, s->sid);
	if (s->mm) {
		struct mm_sizes z;

		mm_sizes(s->mm, &z);
		tprintf(t, "VmSize:\t%8lu kB\nVmLck:\t%8lu kB\nVmRSS:\t%8lu kB\n", z.total / kb,
			vm_locked_bytes(s->mm) / kb, mm_rss(s->mm) * (PAGE_SIZE / kb));
		tprintf(t, "VmData:\t%8lu kB\nVmStk:\t%8lu kB\nVmExe:\t%8lu kB\n", z.data / kb,
			z.stack / kb, z.exec / kb);
		tprintf(t, "VmLib:\t%8lu kB\nVmSwap:\t%8lu kB\n", 0ul, 0ul);
	}
	tprintf(t, "Threads:\t%d\n", s->nthreads);
	tprintf(t, "SigQ:\t%lu/%lu\n", (unsigned long)sigpending_of_user(s->cred->uid),
		(unsigned long)s->rlimits[RLIMIT_SIGPENDING_INDEX].cur);
	tprintf(t, "SigPnd:\t%016lx\nShdPnd:\t%016lx\nSigBlk:\t%016lx\nSigIgn:\t%016lx\n"
		"SigCgt:\t%016lx\n", s->sigpnd, s->shdpnd, s->sigblk, s->sigign, s->sigcgt);
	render_caps(t, s->cred, s);
	tprintf(t, "Cpus_allowed:\t%lx\nCpus_allowed_list:\t", s->affinity & online);
	cpu_list(t, s->affinity & online);
	tprintf(t, "voluntary_ctxt_switches:\t%lu\nnonvoluntary_ctxt_switches:\t%lu\n", s->nvcsw,
		s->nivcsw);
}

// ---- limits ----

static const struct {
	const char *name, *unit;
} limit_names[RLIMIT_COUNT] = {
	{ "Max cpu time", "seconds" }, { "Max file size", "bytes" },
	{ "Max data size", "bytes" }, { "Max stack size", "bytes" },
	{ "Max core file size", "bytes" }, { "Max resident set", "bytes" },
	{ "Max processes", "processes" }, { "Max open files", "files" },
	{ "Max locked memory", "bytes" }, { "Max address space", "bytes" },
	{ "Max file locks", "locks" }, { "Max pending signals", "signals" },
	{ "Max msgqueue size", "bytes" }, { "Max nice priority", NULL },
	{ "Max realtime priority", NULL }, { "Max realtime timeout", "us" },
};

static void limit_value(struct text *t, uint64_t v)
{
	if (v == RLIM_INFINITY)
		tprintf(t, "%-20s ", "unlimited");
	else
		tprintf(t, "%-20lu ", v);
}

// Linux's columns: 25, 20, 20 and 10 characters.
static void render_limits(struct text *t, struct psnap *s)
{
	tprintf(t, "%-25s %-20s %-20s %-10s\n", "Limit", "Soft Limit", "Hard Limit", "Units");
	for (int i = 0; i < RLIMIT_COUNT; i++) {
		tprintf(t, "%-25s ", limit_names[i].name);
		limit_value(t, s->rlimits[i].cur);
		limit_value(t, s->rlimits[i].max);
		if (limit_names[i].unit)
			tprintf(t, "%-10s\n", limit_names[i].unit);
		else
			tprintf(t, "\n");
	}
}

// ---- maps ----

#define FS_DEV_MINOR 1		// st_dev of the file tree (kernel/syscall/fs_stat.c)

struct maps_walk {
	struct text *t;
	struct mm *mm;
	char *path;		// PATH_MAX bytes
};

// One line: "start-end perms offset dev inode", then the name from
// column 73 as Linux pads it.
static void map_line(void *arg, const struct vm_region *r)
{
	struct maps_walk *w = arg;
	struct text *t = w->t;
	size_t line = t->len;
	const char *name = NULL;

	tprintf(t, "%08lx-%08lx %c%c%c%c %08lx %02x:%02x %lu ", r->start, r->end,
		r->prot & PROT_READ ? 'r' : '-', r->prot & PROT_WRITE ? 'w' : '-',
		r->prot & PROT_EXEC ? 'x' : '-', r->shared ? 's' : 'p',
		r->file ? r->file_off : 0, 0, r->file ? FS_DEV_MINOR : 0,
		r->file ? r->file->ino : 0ul);
	if (r->file) {
		name = vnode_path(r->file, w->path, PATH_MAX) >= 0 ? w->path : NULL;
	} else if (r->stack) {
		name = "[stack]";
	} else if (r->start < w->mm->brk && r->end > w->mm->brk_start) {
		name = "[heap]";
	}
	if (name) {
		tpad(t, line, 73);
		tprintf(t, "%s", name);
	}
	tprintf(t, "\n");
}

static void render_maps(struct text *t, struct psnap *s, char *path)
{
	struct maps_walk w = { .t = t, .mm = s->mm, .path = path };

	if (s->mm)
		vm_regions(s->mm, map_line, &w);
}

// ---- mounts ----

// The one file tree, in memory as tmpfs is (statfs says so too).
static void render_mounts(struct text *t, struct psnap *s)
{
	(void)s;
	tprintf(t, "rootfs / tmpfs rw 0 0\n");
}

// ---- comm ----

static void render_comm(struct text *t, struct psnap *s)
{
	tprintf(t, "%s\n", s->comm);
}

// ---- coredump_filter ----

// A zombie has no address space: ESRCH, as Linux.
static int render_coredump_filter(struct text *t, struct psnap *s)
{
	if (!s->mm)
		return -ESRCH;
	tprintf(t, "%08x\n", __atomic_load_n(&s->mm->coredump_filter, __ATOMIC_RELAXED));
	return 0;
}

// Linux's coredump_filter_write: a number (decimal, 0x hex or 0 octal,
// a newline allowed after it), of which the nine filter bits are kept.
static long coredump_filter_write(const struct pnode *pn, struct iobuf *b, size_t n)
{
	char text[24];
	uint64_t v = 0;
	size_t len = n < sizeof(text) - 1 ? n : sizeof(text) - 1;
	int base = 10;
	size_t i = 0;

	memset(text, 0, sizeof(text));
	if (iobuf_get(b, 0, text, len) < 0)
		return -EFAULT;
	if (len && text[len - 1] == '\n')
		text[--len] = 0;
	if (len > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (len > 1 && text[0] == '0') {
		base = 8;
		i = 1;
	}
	if (i >= len)
		return len ? 0 : -EINVAL;	// "0" alone is decimal 0
	for (; i < len; i++) {
		int d = text[i] >= '0' && text[i] <= '9' ? text[i] - '0' :
			text[i] >= 'a' && text[i] <= 'f' ? text[i] - 'a' + 10 :
			text[i] >= 'A' && text[i] <= 'F' ? text[i] - 'A' + 10 : 99;
		if (d >= base || v > 0xffffffffULL / (uint64_t)base)
			return -EINVAL;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (v > 0xffffffffULL)
		return -EINVAL;
	struct psnap s;
	int rc = snap_take(pn, &s);
	if (rc == 0 && !s.mm)
		rc = -ESRCH;
	if (rc == 0)
		__atomic_store_n(&s.mm->coredump_filter, (uint32_t)v & COREDUMP_FILTER_MASK,
				 __ATOMIC_RELAXED);
	snap_drop(&s);
	return rc < 0 ? rc : (long)n;
}

// ns as Linux's SPLIT_NS: ms with six decimals.
static void sched_ns_line(struct text *t, const char *name, uint64_t ns)
{
	tprintf(t, "%-45s:%14lu.%06lu\n", name, (unsigned long)(ns / 1000000),
		(unsigned long)(ns % 1000000));
}

static void sched_num_line(struct text *t, const char *name, long v)
{
	tprintf(t, "%-45s:%21ld\n", name, v);
}

// Linux's proc_sched_show_task, the fields this scheduler has (the
// weight in Linux's 64-bit fixed point, prio as p->prio).
static void render_sched(struct text *t, struct psnap *s)
{
	tprintf(t, "%s (%d, #threads: %d)\n", s->comm, s->tid, s->nthreads);
	tprintf(t, "-------------------------------------------------------------------\n");
	sched_ns_line(t, "se.exec_start", s->exec_start);
	sched_ns_line(t, "se.vruntime", s->vruntime);
	sched_ns_line(t, "se.sum_exec_runtime", s->sum_exec);
	sched_num_line(t, "nr_switches", (long)s->nr_switches);
	sched_num_line(t, "nr_voluntary_switches", (long)s->nvcsw);
	sched_num_line(t, "nr_involuntary_switches", (long)s->nivcsw);
	sched_num_line(t, "se.load.weight", (long)(s->weight << 10));
	sched_num_line(t, "policy", s->policy);
	sched_num_line(t, "prio", s->prio + 100);
}

// ---- fdinfo ----

// Calls fn on the descriptor's file with its table locked (fn must not
// sleep): fn's result, -ENOENT when the process has no such descriptor
// (or no table: a zombie), -ESRCH when it is gone.
static int with_fd(const struct pnode *pn, int (*fn)(struct file *f, bool cloexec, void *arg),
		   void *arg)
{
	uint64_t tf = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = find_locked(pn->pid, pn->start_ns);
	int rc = p ? -ENOENT : -ESRCH;

	if (p) {
		spin_lock(&p->lock);
		struct fdtable *fdt = p->fdt;
		if (fdt) {
			spin_lock(&fdt->lock);
			if (pn->fd >= 0 && pn->fd < fdt->size && fdt->files[pn->fd])
				rc = fn(fdt->files[pn->fd], fdt->cloexec[pn->fd], arg);
			spin_unlock(&fdt->lock);
		}
		spin_unlock(&p->lock);
	}
	spin_unlock_irqrestore(&proc_tree_lock, tf);
	return rc;
}

static int take_ref(struct file *f, bool cloexec, void *arg)
{
	struct file **out = arg;

	file_get(f);
	out[0] = f;
	out[1] = cloexec ? f : NULL;
	return 0;
}

// with_fd, but fn runs on a reference to the file with no lock held: an
// anonymous file's fdinfo takes its own locks (an epoll set's lock is
// held while its scan polls pidfds, which take proc_tree_lock).
static int with_fd_ref(const struct pnode *pn, int (*fn)(struct file *f, bool cloexec, void *arg),
		       void *arg)
{
	struct file *ref[2] = { NULL, NULL };
	int rc = with_fd(pn, take_ref, ref);

	if (rc == 0) {
		rc = fn(ref[0], ref[1] != NULL, arg);
		file_put(ref[0]);
	}
	return rc;
}

// stat's inode number of a pipe (kernel/syscall/fs_stat.c).
static uint64_t pipe_ino(const struct file *f)
{
	return ((uint64_t)(uintptr_t)f->pipe >> 6) & 0xffffffffULL;
}

#define FDINFO_EXTRA 4096

static int fdinfo_lines(struct file *f, bool cloexec, void *arg)
{
	uint32_t flags = __atomic_load_n(&f->flags, __ATOMIC_RELAXED);

	tprintf(arg, "pos:\t%lu\nflags:\t0%o\nmnt_id:\t%d\nino:\t%lu\n",
		__atomic_load_n(&f->off, __ATOMIC_RELAXED), flags | (cloexec ? O_CLOEXEC : 0),
		1, f->vn ? f->vn->ino : pipe_ino(f));
	// An anonymous file's own lines (eventfd-count, sigmask, an epoll
	// set's tfd lines: a page holds 47 of those).
	if (f->vn && f->vn->ops && f->vn->ops->fdinfo && !(flags & O_PATH)) {
		char *extra = kmalloc(FDINFO_EXTRA);

		if (!extra)
			return -ENOMEM;
		f->vn->ops->fdinfo(f->vn, extra, FDINFO_EXTRA);
		tprintf(arg, "%s", extra);
		kfree(extra);
	}
	return 0;
}

// ---- reading ----

static int render(const struct pnode *pn, struct text *t, char *path)
{
	struct psnap s;
	int rc;

	if (pn->kind == PN_FDINFO)
		return with_fd_ref(pn, fdinfo_lines, t);
	if (pn->kind == PN_TIMERS) {
		long n = posix_timers_show(pn->pid, pn->start_ns, t->buf, t->size);

		if (n < 0)
			return (int)n;
		t->len = (size_t)n;
		return 0;
	}
	rc = snap_take(pn, &s);
	if (rc)
		return rc;
	switch (pn->kind) {
	case PN_STAT: render_stat(t, &s); break;
	case PN_STATM: render_statm(t, &s); break;
	case PN_STATUS: render_status(t, &s); break;
	case PN_LIMITS: render_limits(t, &s); break;
	case PN_MAPS: render_maps(t, &s, path); break;
	case PN_MOUNTS: render_mounts(t, &s); break;
	case PN_COMM: render_comm(t, &s); break;
	case PN_COREDUMP_FILTER: rc = render_coredump_filter(t, &s); break;
	case PN_SCHED: render_sched(t, &s); break;
	default: rc = -EINVAL; break;
	}
	snap_drop(&s);
	return rc;
}

// Renders the whole file afresh and hands out the slice at 'off'; the
// buffer grows until the text fits.
static long text_read(const struct pnode *pn, uint64_t off, struct iobuf *b, size_t n)
{
	char *path = kmalloc(PATH_MAX);
	struct text t = { .size = 4096 };
	long rc;

	if (!path)
		return -ENOMEM;
	for (;;) {
		t.buf = kmalloc(t.size);
		t.len = 0;
		rc = t.buf ? render(pn, &t, path) : -ENOMEM;
		if (rc || t.len < t.size || t.size >= MAX_TEXT)
			break;
		kfree(t.buf);
		t.size *= 2;
	}
	if (rc == 0) {
		size_t len = t.len < t.size ? t.len : t.size;
		if (off >= len)
			n = 0;
		else if (n > len - off)
			n = len - off;
		rc = n && iobuf_put(b, 0, t.buf + off, n) < 0 ? -EFAULT : (long)n;
	}
	kfree(t.buf);
	kfree(path);
	return rc;
}

// ---- cmdline and environ: the process's own memory ----

static long copy_out_of(struct mm *mm, uint64_t va, struct iobuf *b, size_t n)
{
	char *page = kmalloc(PAGE_SIZE);
	size_t done = 0;

	if (!page)
		return -ENOMEM;
	while (done < n) {
		size_t chunk = n - done < PAGE_SIZE ? n - done : PAGE_SIZE;
		int got = vm_read(mm, va + done, page, chunk);

		if (got <= 0)
			break;
		if (iobuf_put(b, done, page, (size_t)got) < 0) {
			kfree(page);
			return done ? (long)done : -EFAULT;
		}
		done += (size_t)got;
		if ((size_t)got < chunk)
			break;
	}
	kfree(page);
	return (long)done;
}

// A program that wrote over its argument strings (setproctitle) ends its
// title with the first NUL, within a page, as Linux reads it.
static long read_proctitle(struct mm *mm, uint64_t start, uint64_t off, struct iobuf *b,
			   size_t n)
{
	char *page = kmalloc(PAGE_SIZE);
	long rc;

	if (!page)
		return -ENOMEM;
	int got = vm_read(mm, start, page, PAGE_SIZE);
	size_t len = got > 0 ? strnlen(page, (size_t)got) : 0;
	if (off >= len)
		rc = 0;
	else {
		if (n > len - off)
			n = len - off;
		rc = iobuf_put(b, 0, page + off, n) < 0 ? -EFAULT : (long)n;
	}
	kfree(page);
	return rc;
}

// Bytes off.. of the process's memory [start, end), at most n.
static long range_read(struct mm *mm, uint64_t start, uint64_t end, uint64_t off,
		       struct iobuf *b, size_t n)
{
	if (end <= start || off >= end - start)
		return 0;
	if (n > end - start - off)
		n = end - start - off;
	return copy_out_of(mm, start + off, b, n);
}

static long cmdline_read(struct mm *mm, uint64_t off, struct iobuf *b, size_t n)
{
	uint64_t start = mm->arg_start, end = mm->arg_end;
	char last = 0;

	if (end <= start || off >= end - start)
		return 0;
	if (vm_read(mm, end - 1, &last, 1) == 1 && last != 0)
		return read_proctitle(mm, start, off, b, n);
	return range_read(mm, start, end, off, b, n);
}

static long environ_read(struct mm *mm, uint64_t off, struct iobuf *b, size_t n)
{
	return range_read(mm, mm->env_start, mm->env_end, off, b, n);
}

// The auxiliary vector where exec put it on the stack.  Linux keeps a
// copy in the kernel (saved_auxv); this reads the process's memory, so a
// program that overwrote its own vector reads what it wrote.
static long auxv_read(struct mm *mm, uint64_t off, struct iobuf *b, size_t n)
{
	return range_read(mm, mm->auxv_start, mm->auxv_end, off, b, n);
}

static long memory_read(const struct pnode *pn, uint64_t off, struct iobuf *b, size_t n)
{
	struct psnap s;
	long rc = snap_take(pn, &s);

	if (rc)
		return rc;
	if (s.mm)	// a zombie's read empty
		rc = pn->kind == PN_CMDLINE ? cmdline_read(s.mm, off, b, n)
		   : pn->kind == PN_AUXV    ? auxv_read(s.mm, off, b, n)
					    : environ_read(s.mm, off, b, n);
	snap_drop(&s);
	return rc;
}

// pagemap: 8 bytes for each page of the address space (vm_pagemap), read
// at offsets and in sizes that are multiples of 8 (EINVAL otherwise, as
// Linux); the frame numbers only for a reader with CAP_SYS_ADMIN.  A
// zombie's reads empty.
static long pagemap_read(const struct pnode *pn, uint64_t off, struct iobuf *b, size_t n)
{
	uint64_t entries[64], page = off / 8, end = USER_TOP >> PAGE_SHIFT;
	struct psnap s;
	size_t done = 0;
	int rc;

	if ((off % 8) || (n % 8))
		return -EINVAL;
	if ((rc = snap_take(pn, &s)) < 0)
		return rc;
	bool pfn = cred_capable(current_cred(), CAP_SYS_ADMIN);
	while (s.mm && done < n && page < end) {
		size_t k = (n - done) / 8;
		if (k > sizeof(entries) / sizeof(entries[0]))
			k = sizeof(entries) / sizeof(entries[0]);
		if (k > end - page)
			k = end - page;
		vm_pagemap(s.mm, page << PAGE_SHIFT, k, entries, pfn);
		if (iobuf_put(b, done, entries, k * 8) < 0) {
			rc = -EFAULT;
			break;
		}
		done += k * 8;
		page += k;
	}
	snap_drop(&s);
	return done ? (long)done : rc;
}

static long pnode_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	const struct pnode *pn = vn->priv;

	(void)f;
	if (pn->kind == PN_PAGEMAP)
		return pagemap_read(pn, off, b, n);
	if (pn->kind == PN_CMDLINE || pn->kind == PN_ENVIRON || pn->kind == PN_AUXV)
		return memory_read(pn, off, b, n);
	return text_read(pn, off, b, n);
}

// environ and auxv need the address space from the start: a zombie's
// cannot be opened (ESRCH, as Linux).
static int pnode_open(struct vnode **vnp, uint32_t flags)
{
	struct vnode *vn = *vnp;
	const struct pnode *pn = vn->priv;
	struct psnap s;
	int rc;

	(void)flags;
	if (pn->kind != PN_ENVIRON && pn->kind != PN_AUXV)
		return 0;
	rc = snap_take(pn, &s);
	if (rc == 0 && !s.mm)
		rc = -ESRCH;
	snap_drop(&s);
	return rc;
}

// comm: a thread of the writer's own process takes the first 15 bytes
// as its name (all of them, a newline too, as Linux); another process's
// thread cannot be renamed (EINVAL).
static long pnode_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	const struct pnode *pn = vn->priv;
	char name[16];
	long rc = -ESRCH;

	(void)f; (void)off;
	if (pn->kind == PN_COREDUMP_FILTER)
		return coredump_filter_write(pn, b, n);
	if (pn->kind != PN_COMM)
		return -EINVAL;
	memset(name, 0, sizeof(name));
	if (iobuf_get(b, 0, name, n < sizeof(name) - 1 ? n : sizeof(name) - 1) < 0)
		return -EFAULT;
	uint64_t tf = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = find_locked(pn->pid, pn->start_ns);
	if (p) {
		spin_lock(&p->lock);
		struct thread *t = thread_locked(p, pn->tid);
		if (t && p == current_process()) {
			memcpy(t->name, name, sizeof(name));
			rc = (long)n;
		} else if (t) {
			rc = -EINVAL;
		}
		spin_unlock(&p->lock);
	}
	spin_unlock_irqrestore(&proc_tree_lock, tf);
	return rc;
}

// ---- symlinks (vfs_tree_lock held) ----

static long put_target(char *buf, size_t size, const char *s, size_t len)
{
	if (len > size)
		len = size;
	memcpy(buf, s, len);
	return (long)len;
}

struct target_buf {
	char *buf;
	size_t size;
};

// A descriptor as Linux names it: the path of a file, "pipe:[N]" for a
// pipe, "anon_inode:[eventfd]" and the like for an anonymous file, the
// last name with " (deleted)" for an unlinked file.
static int fd_target_locked(struct file *f, bool cloexec, void *arg)
{
	struct target_buf *tb = arg;
	char tmp[32];
	int len;

	(void)cloexec;
	if (!f->vn) {
		len = ksnprintf(tmp, sizeof(tmp), "pipe:[%lu]", pipe_ino(f));
		return (int)put_target(tb->buf, tb->size, tmp, (size_t)len);
	}
	if (f->vn->type == VNODE_SOCK && f->vn->ops) {
		len = ksnprintf(tmp, sizeof(tmp), "socket:[%lu]", f->vn->ino);
		return (int)put_target(tb->buf, tb->size, tmp, (size_t)len);
	}
	if (f->vn->type == VNODE_ANON) {
		len = ksnprintf(tmp, sizeof(tmp), "anon_inode:[%s]", f->vn->ops->anon_name);
		return (int)put_target(tb->buf, tb->size, tmp, (size_t)len);
	}
	len = vnode_path_locked(f->vn, tb->buf, tb->size);
	if (len == -ENOENT && f->vn->name) {
		// Unlinked: the path it had, as Linux's d_path says it (the
		// directory it was last in, when that still has a path).
		struct vnode *dir = f->vn->unlinked_parent;
		int dl = dir ? vnode_path_locked(dir, tb->buf, tb->size) : -ENOENT;
		if (dl < 0 || (dl == 1 && tb->buf[0] == '/'))
			dl = 0;
		len = dl + ksnprintf(tb->buf + dl, tb->size - (size_t)dl, "/%s (deleted)", f->vn->name);
		if ((size_t)len >= tb->size)
			len = -ENAMETOOLONG;
	}
	return len;
}

// exe, cwd and root of a live process; a zombie has none (ENOENT).
static long proc_link_target(const struct pnode *pn, char *buf, size_t size)
{
	uint64_t tf = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = find_locked(pn->pid, pn->start_ns);
	long rc = p ? -ENOENT : -ESRCH;

	if (p && !p->zombie) {
		if (pn->kind == PN_EXE && p->exe_path[0])
			rc = put_target(buf, size, p->exe_path, strnlen(p->exe_path, EXE_PATH_MAX));
		else if (pn->kind == PN_ROOT && p->fs)
			rc = vnode_path_locked(p->fs->root, buf, size);
		else if (pn->kind == PN_CWD && p->fs)
			rc = vnode_path_locked(p->fs->cwd, buf, size);
	}
	spin_unlock_irqrestore(&proc_tree_lock, tf);
	return rc;
}

static int fd_vnode_locked(struct file *f, bool cloexec, void *arg)
{
	(void)cloexec;
	*(struct vnode **)arg = f->vn;
	return 0;
}

// fd/N, cwd and root lead to the file or directory itself, even one that has
// no path any more (vfs_tree_lock held: it cannot be freed before the
// walk that follows the link ends).
static struct vnode *pnode_jump(struct vnode *vn)
{
	const struct pnode *pn = vn->priv;
	struct vnode *to = NULL;

	if (pn->kind == PN_FD_LINK) {
		with_fd(pn, fd_vnode_locked, &to);
	} else if (pn->kind == PN_CWD || pn->kind == PN_ROOT) {
		uint64_t tf = spin_lock_irqsave(&proc_tree_lock);
		struct process *p = find_locked(pn->pid, pn->start_ns);
		if (p && !p->zombie)
			to = pn->kind == PN_CWD ? fs_view_cwd_locked(p) : fs_view_root_locked(p);
		spin_unlock_irqrestore(&proc_tree_lock, tf);
	}
	return to;
}

static int fd_pipe_file_locked(struct file *f, bool cloexec, void *arg)
{
	(void)cloexec;
	if (f->pipe && !f->vn) {
		file_get(f);
		*(struct file **)arg = f;
	}
	return 0;
}

// fd/N of a pipe: open() opens the pipe again, as on Linux.
static struct file *pnode_jump_file(struct vnode *vn)
{
	const struct pnode *pn = vn->priv;
	struct file *f = NULL;

	if (pn->kind == PN_FD_LINK)
		with_fd(pn, fd_pipe_file_locked, &f);
	return f;
}

static long pnode_target(struct vnode *vn, char *buf, size_t size)
{
	const struct pnode *pn = vn->priv;

	if (pn->kind == PN_FD_LINK) {
		struct target_buf tb = { buf, size };
		return with_fd(pn, fd_target_locked, &tb);
	}
	return proc_link_target(pn, buf, size);
}

// /proc/self and /proc/thread-self: the caller's directories.
static long self_target(struct vnode *vn, char *buf, size_t size)
{
	struct thread *t = current_thread();
	char tmp[32];
	int len;

	(void)vn;
	if (!t || !t->proc)
		return -ENOENT;
	len = ksnprintf(tmp, sizeof(tmp), "%d", t->proc->pid);
	return put_target(buf, size, tmp, (size_t)len);
}

static long thread_self_target(struct vnode *vn, char *buf, size_t size)
{
	struct thread *t = current_thread();
	char tmp[40];
	int len;

	(void)vn;
	if (!t || !t->proc)
		return -ENOENT;
	len = ksnprintf(tmp, sizeof(tmp), "%d/task/%d", t->proc->pid, t->tid);
	return put_target(buf, size, tmp, (size_t)len);
}

// ---- directories ----

struct pentry {
	const char *name;
	enum pnode_kind kind;
	enum vnode_type type;
	uint32_t perm;
};

// /proc/PID, in Linux's order; /proc/PID/task/TID has all but "task".
static const struct pentry pid_entries[] = {
	{ "task", PN_TASK_DIR, VNODE_DIR, 0555 },
	{ "fd", PN_FD_DIR, VNODE_DIR, 0500 },
	{ "fdinfo", PN_FDINFO_DIR, VNODE_DIR, 0555 },
	{ "environ", PN_ENVIRON, VNODE_REG, 0400 },
	{ "auxv", PN_AUXV, VNODE_REG, 0400 },
	{ "status", PN_STATUS, VNODE_REG, 0444 },
	{ "limits", PN_LIMITS, VNODE_REG, 0444 },
	{ "sched", PN_SCHED, VNODE_REG, 0444 },
	{ "comm", PN_COMM, VNODE_REG, 0644 },
	{ "cmdline", PN_CMDLINE, VNODE_REG, 0444 },
	{ "stat", PN_STAT, VNODE_REG, 0444 },
	{ "statm", PN_STATM, VNODE_REG, 0444 },
	{ "maps", PN_MAPS, VNODE_REG, 0444 },
	{ "cwd", PN_CWD, VNODE_SYMLINK, 0777 },
	{ "root", PN_ROOT, VNODE_SYMLINK, 0777 },
	{ "exe", PN_EXE, VNODE_SYMLINK, 0777 },
	{ "mounts", PN_MOUNTS, VNODE_REG, 0444 },
	{ "pagemap", PN_PAGEMAP, VNODE_REG, 0400 },
	// The last two are not in task/TID, as Linux.
	{ "coredump_filter", PN_COREDUMP_FILTER, VNODE_REG, 0644 },
	{ "timers", PN_TIMERS, VNODE_REG, 0444 },
};
#define NR_PID_ENTRIES (int)(sizeof(pid_entries) / sizeof(pid_entries[0]))

// Readdir positions of /proc's processes: PID_POS + pid, above every
// listed entry of /proc.
#define PID_POS (1ULL << 32)

static int first_entry(const struct pnode *pn)
{
	return pn->kind == PN_TID_DIR ? 1 : 0;	// a thread has no task/
}

// ... and no coredump_filter or timers (the process's).
static int end_entry(const struct pnode *pn)
{
	return pn->kind == PN_TID_DIR ? NR_PID_ENTRIES - 2 : NR_PID_ENTRIES;
}

static long pnode_target(struct vnode *vn, char *buf, size_t size);
static const struct vnode_ops pnode_dir_ops, pnode_file_ops, pnode_link_ops;

// Whether f is an open /proc/PID directory (not a thread's); then *p is
// the process it stands for, NULL once that is reaped.  Linux's
// pidfd_send_signal takes such a descriptor as a pidfd.  proc_tree_lock held.
bool procfs_process_dir_locked(const struct file *f, struct process **p)
{
	const struct pnode *pn;

	if (!f->vn || f->vn->ops != &pnode_dir_ops)
		return false;
	pn = f->vn->priv;
	if (pn->kind != PN_PID_DIR)
		return false;
	*p = find_locked(pn->pid, pn->start_ns);
	return true;
}

// Files of a process belong to its effective user and group, as on
// Linux (root's when the process is gone).
static void pnode_owner(const struct pnode *pn, uint32_t *uid, uint32_t *gid)
{
	uint64_t tf = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = pn->pid ? find_locked(pn->pid, pn->start_ns) : NULL;

	*uid = *gid = 0;
	if (p)
		cred_proc_owner(p, uid, gid);
	spin_unlock_irqrestore(&proc_tree_lock, tf);
}

// A new vnode for what 'pn' names (vfs_tree_lock held: no sleeping).
static int make_node(const struct pnode *pn, enum vnode_type type, uint32_t perm,
		     struct vnode **out)
{
	struct pnode *copy = kmalloc(sizeof(*copy));
	struct vnode *vn;

	if (!copy)
		return -ENOMEM;
	vn = vnode_alloc(type, perm);
	if (!vn) {
		kfree(copy);
		return -ENOMEM;
	}
	*copy = *pn;
	pnode_owner(pn, &vn->uid, &vn->gid);
	vn->priv = copy;
	vn->ino = pnode_ino(pn->kind, pn->pid, pn->tid, pn->fd);
	if (type == VNODE_DIR) {
		vn->refuse_new = ENOENT;	// as the rest of /proc
		vn->refuse_remove = EPERM;
	}
	vn->ops = type == VNODE_DIR ? &pnode_dir_ops
		  : type == VNODE_SYMLINK ? &pnode_link_ops : &pnode_file_ops;
	*out = vn;
	return 0;
}

// A process or thread ID as a name: decimal, no leading zero; -1 if not.
static int parse_id(const char *name, size_t len)
{
	int v = 0;

	if (len == 0 || len > 5 || (len > 1 && name[0] == '0'))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		v = v * 10 + (name[i] - '0');
	}
	return v > 0 && v < PID_LIMIT ? v : -1;
}

// Does pn's process (and thread, if it names one) still exist?  Its
// start time, for a new node, in *start_ns.
static bool alive(const struct pnode *pn, int tid, uint64_t *start_ns)
{
	uint64_t tf = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = find_locked(pn->pid, pn->start_ns);
	bool ok = p != NULL;

	if (p && tid) {
		spin_lock(&p->lock);
		ok = thread_locked(p, tid) != NULL;
		spin_unlock(&p->lock);
	}
	if (ok && start_ns)
		*start_ns = p->start_ns;
	spin_unlock_irqrestore(&proc_tree_lock, tf);
	return ok;
}

static int fd_mode(struct file *f, bool cloexec, void *arg)
{
	uint32_t acc = __atomic_load_n(&f->flags, __ATOMIC_RELAXED) & O_ACCMODE;

	(void)cloexec;
	// The link's permissions say how the descriptor was opened.
	*(uint32_t *)arg = acc == O_RDONLY ? 0500 : acc == O_WRONLY ? 0300 : 0700;
	return 0;
}

static int pnode_lookup(struct vnode *dir, const char *name, size_t len, struct vnode **out)
{
	const struct pnode *d = dir->priv;
	struct pnode pn = *d;
	uint32_t perm;
	int id;

	switch (d->kind) {
	case PN_PID_DIR:
	case PN_TID_DIR:
		for (int i = first_entry(d); i < end_entry(d); i++) {
			const struct pentry *e = &pid_entries[i];
			if (strlen(e->name) != len || memcmp(e->name, name, len) != 0)
				continue;
			if (!alive(d, d->tid, NULL))
				return -ENOENT;
			pn.kind = e->kind;
			return make_node(&pn, e->type, e->perm, out);
		}
		return -ENOENT;
	case PN_TASK_DIR:
		id = parse_id(name, len);
		if (id < 0 || !alive(d, id, NULL))
			return -ENOENT;
		pn.kind = PN_TID_DIR;
		pn.tid = id;
		return make_node(&pn, VNODE_DIR, 0555, out);
	case PN_FD_DIR:
	case PN_FDINFO_DIR:
		id = parse_id(name, len);
		if (name[0] == '0' && len == 1)
			id = 0;
		pn.fd = id;
		if (id < 0 || with_fd(&pn, fd_mode, &perm) < 0)
			return -ENOENT;
		if (d->kind == PN_FD_DIR) {
			pn.kind = PN_FD_LINK;
			return make_node(&pn, VNODE_SYMLINK, perm, out);
		}
		pn.kind = PN_FDINFO;
		return make_node(&pn, VNODE_REG, 0444, out);
	default:
		return -ENOTDIR;
	}
}

// /proc/PID and /proc/PID/task/TID: the fixed entries, at positions 2 on.
static int entries_readdir(const struct pnode *d, uint64_t *pos, dir_emit_fn emit, void *arg)
{
	int first = first_entry(d);

	if (!alive(d, d->tid, NULL))
		return -ENOENT;
	if (*pos >= 2 + (uint64_t)NR_PID_ENTRIES)
		return 0;	// past the end (lseek may put it anywhere)
	for (int i = *pos < 2 ? 0 : (int)(*pos - 2); i + first < end_entry(d); i++) {
		const struct pentry *e = &pid_entries[i + first];
		uint64_t ino = pnode_ino(e->kind, d->pid, d->tid, 0);
		unsigned type = e->type == VNODE_DIR ? DT_DIR
				: e->type == VNODE_SYMLINK ? DT_LNK : DT_REG;

		if (!emit(arg, e->name, strlen(e->name), ino, type, 3 + (uint64_t)i))
			break;
		*pos = 3 + (uint64_t)i;
	}
	return 0;
}

// The lowest thread ID >= from of pn's process, or -1 (none, or no
// process).
static int next_tid(const struct pnode *d, int from)
{
	uint64_t tf = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = find_locked(d->pid, d->start_ns);
	int best = -1;

	if (p) {
		spin_lock(&p->lock);
		for (struct thread *t = p->threads; t; t = t->proc_next)
			if (t->tid >= from && (best < 0 || t->tid < best))
				best = t->tid;
		spin_unlock(&p->lock);
	}
	spin_unlock_irqrestore(&proc_tree_lock, tf);
	return best;
}

// The lowest open descriptor >= from, or -1 (none, or no process).
static int next_fd(const struct pnode *d, int from)
{
	uint64_t tf = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = find_locked(d->pid, d->start_ns);
	int found = -1;

	if (p) {
		spin_lock(&p->lock);
		struct fdtable *fdt = p->fdt;
		if (fdt) {
			spin_lock(&fdt->lock);
			for (int fd = from; fd < fdt->size && found < 0; fd++)
				if (fdt->files[fd])
					found = fd;
			spin_unlock(&fdt->lock);
		}
		spin_unlock(&p->lock);
	}
	spin_unlock_irqrestore(&proc_tree_lock, tf);
	return found;
}

// Threads and descriptors: numbers, each at position 2 + number.
static int numbers_readdir(const struct pnode *d, uint64_t *pos, dir_emit_fn emit, void *arg)
{
	uint64_t from = *pos < 2 ? 0 : *pos - 2;

	if (!alive(d, 0, NULL))
		return -ENOENT;
	while (from < PID_LIMIT) {
		int n = d->kind == PN_TASK_DIR ? next_tid(d, (int)from) : next_fd(d, (int)from);
		char name[12];
		uint64_t ino;
		unsigned type;

		if (n < 0)
			break;
		if (d->kind == PN_TASK_DIR) {
			ino = pnode_ino(PN_TID_DIR, d->pid, n, 0);
			type = DT_DIR;
		} else {
			ino = pnode_ino(d->kind == PN_FD_DIR ? PN_FD_LINK : PN_FDINFO, d->pid, 0, n);
			type = d->kind == PN_FD_DIR ? DT_LNK : DT_REG;
		}
		int len = ksnprintf(name, sizeof(name), "%d", n);
		if (!emit(arg, name, (size_t)len, ino, type, 3 + (uint64_t)n))
			break;
		*pos = 3 + (uint64_t)n;
		from = (uint64_t)n + 1;
	}
	return 0;
}

static int pnode_readdir(struct vnode *dir, uint64_t *pos, dir_emit_fn emit, void *arg)
{
	const struct pnode *d = dir->priv;

	if (d->kind == PN_PID_DIR || d->kind == PN_TID_DIR)
		return entries_readdir(d, pos, emit, arg);
	return numbers_readdir(d, pos, emit, arg);
}

static void pnode_release(struct vnode *vn)
{
	kfree(vn->priv);
	vn->priv = NULL;
}

static const struct vnode_ops pnode_dir_ops = {
	.lookup = pnode_lookup, .readdir = pnode_readdir, .release = pnode_release,
};
// Of a process's files only mounts has a poll method on Linux (its
// mounts_poll: readable); epoll refuses the others (base.c gives them no
// poll, unlike /proc's own files).
static int pnode_poll(struct vnode *vn)
{
	const struct pnode *pn = vn->priv;

	return pn && pn->kind == PN_MOUNTS ? POLLIN | POLLRDNORM : -1;
}

static const struct vnode_ops pnode_file_ops = {
	.read = pnode_read, .write = pnode_write, .open = pnode_open, .release = pnode_release,
	.poll = pnode_poll,
};
static const struct vnode_ops pnode_link_ops = {
	.target = pnode_target, .jump = pnode_jump, .jump_file = pnode_jump_file,
	.release = pnode_release,
};

// ---- /proc itself: a directory of the tree whose processes are computed ----

static int proc_root_lookup(struct vnode *dir, const char *name, size_t len, struct vnode **out)
{
	struct pnode pn = { .kind = PN_PID_DIR, .pid = parse_id(name, len) };

	(void)dir;
	if (pn.pid < 0 || !alive(&pn, 0, &pn.start_ns))
		return -ENOENT;
	return make_node(&pn, VNODE_DIR, 0555, out);
}

// The next process shown at or after 'pid', or 0.
static int next_pid(int pid)
{
	uint64_t tf = spin_lock_irqsave(&proc_tree_lock);

	for (;;) {
		pid = process_next_pid_locked(pid);
		if (pid == 0 || find_locked(pid, 0))
			break;
		pid++;
	}
	spin_unlock_irqrestore(&proc_tree_lock, tf);
	return pid;
}

static int proc_root_readdir(struct vnode *dir, uint64_t *pos, dir_emit_fn emit, void *arg)
{
	int pid = *pos < PID_POS ? 1 : (int)(*pos - PID_POS);

	(void)dir;
	while (pid > 0 && pid < PID_LIMIT && (pid = next_pid(pid)) > 0) {
		char name[12];
		int len = ksnprintf(name, sizeof(name), "%d", pid);

		if (!emit(arg, name, (size_t)len, pnode_ino(PN_PID_DIR, pid, 0, 0), DT_DIR,
			  PID_POS + (uint64_t)pid + 1))
			break;
		*pos = PID_POS + (uint64_t)pid + 1;
		pid++;
	}
	return 0;
}

static const struct vnode_ops proc_root_ops = {
	.lookup = proc_root_lookup, .readdir = proc_root_readdir,
};
static const struct vnode_ops self_ops = { .target = self_target };
static const struct vnode_ops thread_self_ops = { .target = thread_self_target };

int procfs_pid_init(void)
{
	struct vnode *proc;
	int rc = vfs_mkdir_p("/proc", &proc);

	if (rc)
		return rc;
	proc->ops = &proc_root_ops;
	vnode_put(proc);
	rc = procfs_add("/proc", "self", VNODE_SYMLINK, 0777, &self_ops, NULL);
	if (rc == 0)
		rc = procfs_add("/proc", "thread-self", VNODE_SYMLINK, 0777, &thread_self_ops, NULL);
	return rc;
}
