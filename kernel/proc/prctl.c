// prctl(2): the options programs use, and what they change elsewhere: the
// parent-death signal (sent when the thread that created a process
// exits) and child subreapers (orphans go to the nearest one instead of
// init).  Unknown options are EINVAL, as on Linux.

#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/thread.h>
#include <kernel/cred.h>
#include <kernel/uaccess.h>
#include <kernel/arch.h>
#include <lib/string.h>
#include <uapi/errno.h>
#include <uapi/machine.h>

#define PR_SET_PDEATHSIG	1
#define PR_GET_PDEATHSIG	2
#define PR_GET_DUMPABLE		3
#define PR_SET_DUMPABLE		4
#define PR_GET_KEEPCAPS		7
#define PR_SET_KEEPCAPS		8
#define PR_GET_TIMING		13
#define PR_SET_TIMING		14
#define PR_SET_NAME		15
#define PR_GET_NAME		16
#define PR_CAPBSET_READ		23
#define PR_CAPBSET_DROP		24
#define PR_GET_TSC		25
#define PR_SET_TSC		26
#define PR_GET_SECUREBITS	27
#define PR_SET_SECUREBITS	28
#define PR_GET_TIMERSLACK	30
#define PR_SET_TIMERSLACK	29
#define PR_SET_CHILD_SUBREAPER	36
#define PR_GET_CHILD_SUBREAPER	37
#define PR_GET_SECCOMP		21
#define PR_SET_SECCOMP		22
#define PR_SET_NO_NEW_PRIVS	38
#define PR_GET_NO_NEW_PRIVS	39
#define PR_SET_THP_DISABLE	41
#define PR_GET_THP_DISABLE	42
#define PR_CAP_AMBIENT		47

#define PR_TIMING_STATISTICAL	0	// the only timing method Linux has

#define PR_TSC_ENABLE		1
#define PR_TSC_SIGSEGV		2

// Linux's default timer slack (50 us); a thread's 0 stands for it.
#define TIMER_SLACK_DEFAULT	50000

uint64_t thread_timer_slack(const struct thread *t)
{
	return t->timer_slack_ns ? t->timer_slack_ns : TIMER_SLACK_DEFAULT;
}

static uint64_t default_slack(const struct thread *t)
{
	return t->default_timer_slack_ns ? t->default_timer_slack_ns : TIMER_SLACK_DEFAULT;
}

static long put_int(uint64_t uaddr, int v)
{
	return put_user_u32(uaddr, (uint32_t)v) < 0 ? -EFAULT : 0;
}

static long set_name(uint64_t uname)
{
	char name[16];
	long n = strncpy_from_user(name, uname, sizeof(name));

	if (n == -EFAULT)
		return -EFAULT;
	name[15] = 0;
	strlcpy(current_thread()->name, name, sizeof(current_thread()->name));
	return 0;
}

// The name padded with zeros, as Linux (no stale bytes).
static long get_name(uint64_t uname)
{
	char name[16];

	memset(name, 0, sizeof(name));
	strlcpy(name, current_thread()->name, sizeof(name));
	return copy_to_user(uname, name, sizeof(name)) < 0 ? -EFAULT : 0;
}

#ifdef ARCH_HAS_TSC_CTL
static long set_tsc(uint64_t mode)
{
	if (mode != PR_TSC_ENABLE && mode != PR_TSC_SIGSEGV)
		return -EINVAL;
	arch_set_tsc_allowed(mode == PR_TSC_ENABLE);
	return 0;
}
#endif

SYSCALL_DEFINE(SYS_prctl, prctl)
{
	struct thread *t = current_thread();
	struct process *p = t->proc;
	uint64_t a2 = args->a[1], a3 = args->a[2], a4 = args->a[3], a5 = args->a[4];

	switch ((int)args->a[0]) {
	case PR_SET_PDEATHSIG:
		if (a2 > NSIG)
			return -EINVAL;
		p->pdeath_signal = (int)a2;
		return 0;
	case PR_GET_PDEATHSIG:
		return put_int(a2, p->pdeath_signal);
	case PR_GET_DUMPABLE:
		return p->not_dumpable ? 0 : 1;
	case PR_SET_DUMPABLE:
		// 2 (root-only core dumps) is for set-id programs, not settable.
		if (a2 > 1)
			return -EINVAL;
		p->not_dumpable = a2 == 0;
		return 0;
	case PR_GET_KEEPCAPS:
		return cred_get_keepcaps();
	case PR_SET_KEEPCAPS:
		return cred_set_keepcaps(a2);
	case PR_SET_NAME:
		return set_name(a2);
	case PR_GET_NAME:
		return get_name(a2);
#ifdef ARCH_HAS_TSC_CTL
	case PR_GET_TSC:
		return put_int(a2, arch_tsc_allowed() ? PR_TSC_ENABLE : PR_TSC_SIGSEGV);
	case PR_SET_TSC:
		return set_tsc(a2);
#endif
	case PR_GET_TIMERSLACK:
		return (long)thread_timer_slack(t);
	case PR_SET_TIMERSLACK:
		t->timer_slack_ns = a2 ? a2 : default_slack(t);
		return 0;
	case PR_SET_CHILD_SUBREAPER:
		p->child_subreaper = a2 != 0;
		return 0;
	case PR_GET_CHILD_SUBREAPER:
		return put_int(a2, p->child_subreaper);
	case PR_SET_NO_NEW_PRIVS:
		if (a2 != 1 || a3 || a4 || a5)
			return -EINVAL;
		t->no_new_privs = true;		// for good, as on Linux
		return 0;
	case PR_GET_NO_NEW_PRIVS:
		if (a2 || a3 || a4 || a5)
			return -EINVAL;
		return t->no_new_privs;
	case PR_GET_SECCOMP:
		return t->seccomp.mode;
	case PR_SET_SECCOMP:
		return seccomp_prctl_set(a2, a3);
	case PR_GET_TIMING:
		return PR_TIMING_STATISTICAL;
	case PR_SET_TIMING:
		return a2 == PR_TIMING_STATISTICAL ? 0 : -EINVAL;
	case PR_CAPBSET_READ:
		return cred_capbset_read(a2);
	case PR_CAPBSET_DROP:
		return cred_capbset_drop(a2);
	case PR_CAP_AMBIENT:
		return cred_cap_ambient(a2, a3, a4, a5);
	case PR_GET_SECUREBITS:
		return cred_get_securebits();
	case PR_SET_SECUREBITS:
		return cred_set_securebits(a2);
	// No transparent huge pages exist here; the flag is kept for those
	// who read it back (inherited by fork, kept across exec, as Linux's).
	case PR_SET_THP_DISABLE:
		if (a3 || a4 || a5)
			return -EINVAL;
		p->thp_disable = a2 != 0;
		return 0;
	case PR_GET_THP_DISABLE:
		if (a2 || a3 || a4 || a5)
			return -EINVAL;
		return p->thp_disable;
	default:
		return -EINVAL;
	}
}

// Where p's orphans go: the nearest ancestor that is a child subreaper
// and still alive, else init.  proc_tree_lock held.
struct process *process_child_reaper_locked(struct process *p)
{
	for (struct process *a = p->parent; a; a = a->parent)
		if (a->child_subreaper && !a->zombie && !a->exiting && a->nthreads > 0)
			return a;
	return process_find(1);
}

// Thread t of p is exiting ('last': the process with it): the children it
// created get their parent-death signal.  Those of a thread that leaves
// others behind pass to one of them (Linux reparents them to a live
// thread of the group), whose exit signals them again.
void prctl_thread_exit(struct process *p, struct thread *t, bool last)
{
	uint64_t flags = spin_lock_irqsave(&p->lock);
	int heir = p->threads ? p->threads->tid : 0;

	spin_unlock_irqrestore(&p->lock, flags);
	flags = spin_lock_irqsave(&proc_tree_lock);
	for (struct process *c = p->children; c; c = c->sibling) {
		if (c->parent_tid != t->tid && !(last && c->parent_tid == 0))
			continue;
		c->parent_tid = last ? 0 : heir;
		if (c->pdeath_signal && !c->zombie) {
			struct ksiginfo info = { .signo = c->pdeath_signal, .code = SI_USER,
						 .pid = p->pid };
			signal_send_process(c, c->pdeath_signal, &info);
		}
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
}
