// Thread allocation and kernel threads.

#include <kernel/thread.h>
#include <mm/kstack.h>
#include <kernel/sched.h>
#include <kernel/panic.h>
#include <kernel/arch.h>
#include <mm/kmalloc.h>
#include <mm/frame.h>
#include <arch/memlayout.h>
#include <arch/irq.h>
#include <lib/string.h>
#include <kernel/cred.h>
#include <kernel/wait.h>

struct thread *thread_alloc(const char *name)
{
	struct thread *t = kzalloc(sizeof(*t));

	if (!t)
		return 0;
	t->kstack = kstack_alloc();
	if (!t->kstack) {
		kfree(t);
		return 0;
	}
	t->tid = 0;		// user threads get one from the process layer
	strlcpy(t->name, name, sizeof(t->name));
	t->state = THREAD_BLOCKED;
	t->cpu = -1;
	t->affinity = ~(cpumask_t)0;
	wait_thread_init(t);
	t->weight = 1024;	// SCHED_OTHER, nice 0
	// Its first return to user mode (if it is a user thread) decides
	// everything.
	t->work = WORK_SIGNAL | WORK_STATE | WORK_FRAME;
	return t;
}

#define THREAD_FREED_MAGIC 0xdeadbeef

void thread_free(struct thread *t)
{
	if (t->tid == (int)THREAD_FREED_MAGIC)
		panic("thread %s freed twice (%p)", t->name, (void *)t);
	t->tid = (int)THREAD_FREED_MAGIC;
	nproc_thread_free(t);
	cred_put(t->cred);
	sched_pi_thread_exit(t);
	ioprio_thread_free(t);
	seccomp_thread_free(t);
	arch_thread_free(t);
	if (t->kstack)
		kstack_free(t->kstack);
	kfree(t);
}

// Where every new thread starts (see arch_thread_init).
void thread_start(void (*fn)(void *), void *arg)
{
	sched_finish_switch();
	irq_enable();
	fn(arg);
	sched_exit_current();
}

struct thread *kthread_create(const char *name, void (*fn)(void *), void *arg, int cpu)
{
	struct thread *t = thread_alloc(name);

	if (!t)
		return 0;
	arch_thread_init(t, fn, arg);
	// A thread created for a given CPU is bound to it: an idle CPU's
	// balancer must not pull it away before (or after) it first runs.
	if (cpu >= 0)
		t->affinity = cpumask_of(cpu);
	t->cpu = cpu < 0 ? this_cpu()->id : cpu;
	sched_start(t);
	return t;
}
