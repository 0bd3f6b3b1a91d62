// The process table: allocation of process IDs, lookup, and the
// parent/child tree.  One lock (proc_tree_lock) guards the tree, the list
// of all processes, zombie state and every process's child_wait queue:
// process creation and exit are rare next to everything else, and a
// single lock keeps the exit/wait/reparent dance easy to reason about.

#include <kernel/process.h>
#include <kernel/cred.h>
#include <kernel/proc_internal.h>
#include <kernel/thread.h>
#include <kernel/panic.h>
#include <kernel/time.h>
#include <mm/kmalloc.h>
#include <lib/string.h>
#include <uapi/errno.h>

struct spinlock proc_tree_lock = SPINLOCK_INIT("process tree");
static struct process *all_processes[PID_LIMIT];
static int next_pid = 1;
static int last_pid;		// the ID handed out most recently (/proc/loadavg)
static int pid_max = PID_LIMIT;	// /proc/sys/kernel/pid_max
static int pid_top = 1;		// above every ID handed out so far: scans stop here

int pid_max_get(void)
{
	return __atomic_load_n(&pid_max, __ATOMIC_RELAXED);
}

int pid_max_set(uint64_t v)
{
	if (v < PID_MAX_MIN || v > PID_LIMIT)
		return -EINVAL;
	__atomic_store_n(&pid_max, (int)v, __ATOMIC_RELAXED);
	return 0;
}

// The next candidate after the last: at pid_max, back to the first ID
// above the reserved ones.  proc_tree_lock held.
static int pid_next_candidate_locked(void)
{
	int pid = next_pid;

	next_pid = next_pid + 1 >= pid_max ? PID_RESERVED + 1 : next_pid + 1;
	if (pid >= pid_max)		// pid_max was lowered meanwhile
		pid = next_pid;
	return pid;
}

// Records that 'id' is handed out.  proc_tree_lock held.
static void pid_taken_locked(int id)
{
	if (id >= pid_top)
		pid_top = id + 1;
}

int pid_last(void)
{
	return __atomic_load_n(&last_pid, __ATOMIC_RELAXED);
}

int pid_last_set(uint64_t v)
{
	if (v > (uint64_t)pid_max_get())
		return -EINVAL;
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	last_pid = (int)v;
	next_pid = (int)v + 1 >= pid_max ? PID_RESERVED + 1 : (int)v + 1;
	if (next_pid < 1)
		next_pid = 1;
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return 0;
}

// Allocates the lowest free ID at or after the last one handed out, so
// IDs are not reused quickly (as Linux does).
static int pid_alloc_locked(struct process *p)
{
	for (int tries = 0; tries < pid_max; tries++) {
		int pid = pid_next_candidate_locked();
		if (!all_processes[pid] && !tid_in_use_locked(pid)) {
			all_processes[pid] = p;
			pid_taken_locked(pid);
			return pid;
		}
	}
	return -1;
}

// Threads other than the main one have IDs from the same space; the
// table holds their process so lookups by thread ID work.
static struct thread *tid_owner[PID_LIMIT];

bool tid_in_use_locked(int tid)
{
	return tid_owner[tid] != 0;
}

int tid_alloc_for(struct thread *t, struct process *p)
{
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	int tid = -1;

	if (!p->pid) {
		tid = pid_alloc_locked(p);
		p->pid = tid;
	} else {
		for (int tries = 0; tries < pid_max && tid < 0; tries++) {
			int cand = pid_next_candidate_locked();
			if (!all_processes[cand] && !tid_owner[cand])
				tid = cand;
		}
		if (tid > 0)
			pid_taken_locked(tid);
	}
	if (tid > 0) {
		tid_owner[tid] = t;
		t->tid = tid;
		__atomic_store_n(&last_pid, tid, __ATOMIC_RELAXED);
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return tid;
}

// clone3's set_tid: exactly 'want' (checked to lie in 1..pid_max-1), or
// -EEXIST if a process or thread holds it (a zombie too, as on Linux).
int tid_alloc_exact(struct thread *t, struct process *p, int want)
{
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	int r = -EEXIST;

	if (!all_processes[want] && !tid_owner[want]) {
		if (!p->pid) {
			p->pid = want;
			all_processes[want] = p;
		}
		tid_owner[want] = t;
		t->tid = want;
		pid_taken_locked(want);
		r = want;
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return r;
}

void tid_free(int tid)
{
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	if (tid > 0 && tid < PID_LIMIT)
		tid_owner[tid] = 0;
	spin_unlock_irqrestore(&proc_tree_lock, flags);
}

struct process *process_find(int pid)
{
	if (pid <= 0 || pid >= PID_LIMIT)
		return 0;
	return all_processes[pid];
}

struct thread *thread_find(int tid)
{
	if (tid <= 0 || tid >= PID_LIMIT)
		return 0;
	return tid_owner[tid];
}

struct process *process_find_any_id(int id)
{
	struct process *p = process_find(id);
	struct thread *t;

	if (p)
		return p;
	t = thread_find(id);
	return t ? t->proc : 0;
}

struct process *process_alloc(void)
{
	struct process *p = kzalloc(sizeof(*p));

	if (!p)
		return 0;
	spin_init(&p->lock, "process");
	p->exit_signal = SIGCHLD;
	p->start_ns = clock_monotonic_ns();
	itimer_init(p);
	return p;
}

// Frees a reaped zombie.  proc_tree_lock held.
void process_free_locked(struct process *p)
{
	if (p->pid > 0 && p->pid < PID_LIMIT && all_processes[p->pid] == p)
		all_processes[p->pid] = 0;
	sighand_put(p->sighand);
	cred_release(p);
	sigqueue_free_all(&p->sig_queue);
	kfree(p);
}

// Links child under parent.  proc_tree_lock held.
void process_link_child_locked(struct process *parent, struct process *child)
{
	child->parent = parent;
	child->sibling = parent->children;
	parent->children = child;
}

void process_unlink_child_locked(struct process *child)
{
	struct process *parent = child->parent;

	for (struct process **pp = &parent->children; *pp; pp = &(*pp)->sibling) {
		if (*pp == child) {
			*pp = child->sibling;
			break;
		}
	}
	child->sibling = 0;
}

// Calls fn on every live process.  proc_tree_lock held.
void process_for_each_locked(void (*fn)(struct process *, void *), void *arg)
{
	for (int i = 1; i < pid_top; i++)
		if (all_processes[i])
			fn(all_processes[i], arg);
}

// The lowest process ID >= from in use, or 0 (/proc's listing).
// proc_tree_lock held.
int process_next_pid_locked(int from)
{
	for (int i = from > 0 ? from : 1; i < pid_top; i++)
		if (all_processes[i])
			return i;
	return 0;
}
