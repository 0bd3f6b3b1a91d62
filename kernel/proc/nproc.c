// RLIMIT_NPROC, counted as Linux 6.1 counts it: the threads of each real
// user (USER_THREADS, kernel/proc/user_counts.c), from the creation of a
// user thread to its end.  Creating one past the creator's limit fails
// with EAGAIN, unless the creator is root or has CAP_SYS_RESOURCE or
// CAP_SYS_ADMIN.  A change of real uid moves the thread's count to the
// new user whatever the limit, and if that user is then over it, the
// thread's next exec fails with EAGAIN (Linux's PF_NPROC_EXCEEDED: the
// set*uid call itself never fails for it).

#include <kernel/thread.h>
#include <kernel/process.h>
#include <kernel/cred.h>
#include <kernel/user_counts.h>
#include <kernel/proc_internal.h>
#include <uapi/errno.h>

#define RLIMIT_NPROC	6

// The calling process's limit for the user of c; UINT64_MAX for none.
static uint64_t limit_for(const struct cred *c)
{
	struct process *p = current_process();

	if (!p || c->uid == 0 || cred_capable(c, CAP_SYS_RESOURCE) || cred_capable(c, CAP_SYS_ADMIN))
		return UINT64_MAX;
	return p->rlimits[RLIMIT_NPROC].cur;
}

int nproc_thread_new(struct thread *t)
{
	if (!user_count_charge(t->cred->uid, USER_THREADS, limit_for(t->cred)))
		return -EAGAIN;
	t->nproc_uid = t->cred->uid;
	t->nproc_counted = true;
	return 0;
}

void nproc_thread_free(struct thread *t)
{
	if (t->nproc_counted)
		user_count_uncharge(t->nproc_uid, USER_THREADS);
	t->nproc_counted = false;
}

void nproc_cred_changed(struct thread *t, const struct cred *nc)
{
	uint64_t limit;

	if (!t->nproc_counted || nc->uid == t->nproc_uid)
		return;
	user_count_charge(nc->uid, USER_THREADS, UINT64_MAX);
	user_count_uncharge(t->nproc_uid, USER_THREADS);
	t->nproc_uid = nc->uid;
	limit = t->proc ? t->proc->rlimits[RLIMIT_NPROC].cur : UINT64_MAX;
	t->nproc_exceeded = nc->uid != 0 && user_count_of(nc->uid, USER_THREADS) > limit;
}

int nproc_exec_check(void)
{
	struct thread *t = current_thread();
	bool over = t->nproc_exceeded && t->proc &&
		    user_count_of(t->nproc_uid, USER_THREADS) > t->proc->rlimits[RLIMIT_NPROC].cur;

	if (over)
		return -EAGAIN;
	t->nproc_exceeded = false;
	return 0;
}
