// membarrier(2): a memory barrier on every thread of a process (or of
// every process) without the threads' own code paying for fences, with
// Linux 6.x's commands, flags and errors.  docs/membarrier.md explains
// the ordering argument; in short:
//
// Each CPU publishes the address space of the user thread it runs
// (cpu->mb_mm, NULL when idle or in a kernel thread) with a release store
// and a full barrier after it (membarrier_switch_mm, called by the
// scheduler, exec and exit).  A caller of an expedited command issues a
// full barrier, reads every other CPU's mb_mm without any lock, sends an
// IPI whose handler issues a full barrier to exactly the CPUs that run
// its address space, waits for them, and issues a full barrier before it
// returns.  A CPU it skipped either ran something else throughout, or
// switched to the address space after the read, and then the barrier
// after its publication orders its thread's accesses after the caller's.
//
// Registration lives in mm->membarrier_state: inherited by fork (the
// child's address space is a copy), shared by CLONE_VM, gone at exec (a
// new address space starts with none).  CPUs keep a copy of the running
// address space's bits (mb_state) for the switch path and for
// GLOBAL_EXPEDITED; a registration updates every copy before it returns.

#include <stdint.h>
#include <stdbool.h>
#include <kernel/membarrier.h>
#include <kernel/syscall.h>
#include <kernel/cpu.h>
#include <kernel/thread.h>
#include <kernel/mm.h>
#include <kernel/smp.h>
#include <kernel/arch.h>
#include <kernel/wait.h>
#include <kernel/rseq.h>
#include <arch/barrier.h>
#include <arch/cycles.h>
#include <arch/irq.h>
#include <lib/printf.h>
#include <uapi/membarrier.h>
#include <uapi/errno.h>

static int supported_commands(void)
{
	int mask = MEMBARRIER_CMD_GLOBAL | MEMBARRIER_CMD_GLOBAL_EXPEDITED |
		   MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED |
		   MEMBARRIER_CMD_PRIVATE_EXPEDITED |
		   MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED |
		   MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE |
		   MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE |
		   MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ |
		   MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ |
		   MEMBARRIER_CMD_GET_REGISTRATIONS;

	return mask;
}

static int mm_state(struct mm *mm)
{
	return __atomic_load_n(&mm->membarrier_state, __ATOMIC_SEQ_CST);
}

static void sync_core_here(struct cpu *c)
{
	arch_sync_core();
	c->stats.mb_sync_core++;
}

// ---- what each CPU publishes ----

void membarrier_switch_mm(struct mm *mm)
{
	struct cpu *c = this_cpu();

	if (c->mb_mm == mm)
		return;
	// The leaving thread's user accesses happen before a caller can see
	// that this CPU no longer runs its address space: a release store,
	// which a caller that reads it and then issues its full barrier
	// pairs with.  Release is all this side needs (nothing earlier may
	// move after the store); on x86 it is a plain store, so a switch
	// between processes pays two locked instructions here, not three.
	__atomic_store_n(&c->mb_mm, mm, __ATOMIC_RELEASE);
	// A registration sets the bits, then reads mb_mm: with a barrier on
	// both sides, either it sees this CPU (and its IPI brings mb_state up
	// to date) or the load below sees its bits.
	arch_mb();
	int state = mm ? mm_state(mm) : 0;
	c->mb_state = state;
	c->mb_passes++;
	// Both published before the next thread's first user access; this is
	// the barrier that matters when no CR3 load comes with the switch
	// (idle or a kernel thread back to the same address space).
	arch_mb();
	// A core that did not run a SYNC_CORE address space may hold stale
	// instructions of it (no IPI reached it): serialize before user mode.
	if (state & MB_SYNC_CORE)
		sync_core_here(c);
}

void membarrier_tick(void)
{
	struct cpu *c = this_cpu();

	arch_mb();
	c->mb_passes++;
	arch_mb();
}

// ---- the IPIs ----

enum mb_kind { MB_PLAIN, MB_CORE, MB_RESTART };

struct mb_request {
	struct mm *mm;
	enum mb_kind kind;
	uint64_t sent;		// arch_cycles() as the requests went out
};

// A handler's delay from the send, on its own CPU's counters.  The
// clocks of two CPUs may differ by a little: a negative delay counts 0.
static void count_handler_delay(struct cpu *c, const struct mb_request *r)
{
	int64_t d = (int64_t)(arch_cycles() - r->sent);
	uint64_t delay = d > 0 ? (uint64_t)d : 0;

	c->mb_rt.ipi_count++;
	c->mb_rt.ipi_cycles += delay;
	if (delay > c->mb_rt.ipi_max)
		c->mb_rt.ipi_max = delay;
}

// The work of a barrier request, on the CPU it was aimed at (interrupts
// off).  The barrier orders what the interrupted thread did before the
// IPI against what it does after it.
static void barrier_here(struct cpu *c, struct mb_request *r)
{
	arch_mb();
	if (r->kind == MB_CORE)
		sync_core_here(c);
	else if (r->kind == MB_RESTART && c->mb_mm == r->mm)
		rseq_membarrier_restart();
}

static void ipi_barrier(void *arg)
{
	struct cpu *c = this_cpu();

	c->stats.mb_ipi_recv++;
	count_handler_delay(c, arg);
	barrier_here(c, arg);
}

// The other online CPUs whose current thread runs 'mm'.  Read without
// locks: a CPU switching at this moment is covered by the barriers of
// membarrier_switch_mm.
static cpumask_t cpus_running(struct mm *mm)
{
	int me = this_cpu()->id;
	cpumask_t mask = 0;

	for (int i = 0; i < ncpus; i++)
		if (i != me && cpus[i].online && cpus[i].mb_mm == mm)
			mask |= cpumask_of(i);
	return mask;
}

// Runs fn(r) on the CPUs in 'mask' (never this one) and waits for all;
// the round trip counts in this CPU's mb_rt (the caller cannot migrate:
// the kernel is not preemptible and the wait spins).
static void send_ipis_timed(cpumask_t mask, void (*fn)(void *), struct mb_request *r)
{
	struct cpu *c = this_cpu();

	for (cpumask_t m = mask; m; m &= m - 1)
		c->stats.mb_ipi_sent++;
	r->sent = arch_cycles();
	cross_call_mask_ipi(mask, fn, r, true, IPI_CALL);
	uint64_t rt = arch_cycles() - r->sent;
	c->mb_rt.rt_count++;
	c->mb_rt.rt_cycles += rt;
	if (rt > c->mb_rt.rt_max)
		c->mb_rt.rt_max = rt;
}

// The common case, a call with no other CPU to interrupt, stays inline
// and pays one test (./switchyard profile's mb_private budget).
static inline void send_ipis(cpumask_t mask, void (*fn)(void *), struct mb_request *r)
{
	if (mask)
		send_ipis_timed(mask, fn, r);
}

size_t membarrier_stat_render(char *buf, size_t size)
{
	// The counter's rate, from its conversion to ns (1e9 cycles is a
	// second or so: no overflow in either direction).
	uint64_t ns = arch_cycles_to_ns(1000000000);
	uint64_t per_ms = ns ? 1000000000000000ull / ns : 0;
	size_t len = ksnprintf(buf, size, "cpu rt_count rt_cycles rt_max ipi_count ipi_cycles "
			       "ipi_max cycles_per_ms\n");

	for (int i = 0; i < ncpus && i < MAX_CPUS && len < size; i++) {
		const struct mb_rt_stats *s = &cpus[i].mb_rt;

		if (!cpus[i].online)
			continue;
		len += ksnprintf(buf + len, size - len, "%3d %20lu %20lu %20lu %20lu %20lu %20lu %20lu\n",
				 i, (unsigned long)s->rt_count, (unsigned long)s->rt_cycles,
				 (unsigned long)s->rt_max, (unsigned long)s->ipi_count,
				 (unsigned long)s->ipi_cycles, (unsigned long)s->ipi_max,
				 (unsigned long)per_ms);
	}
	return len < size ? len : size - 1;
}

// ---- registration ----

static void ipi_refresh(void *arg)
{
	struct mb_request *r = arg;
	struct mm *mm = r->mm;
	struct cpu *c = this_cpu();

	c->stats.mb_ipi_recv++;
	count_handler_delay(c, r);
	if (c->mb_mm == mm)
		c->mb_state = mm_state(mm);
	arch_mb();
}

// The bits just set in mm's state reach the copy of every CPU running
// mm before the registering call returns.  A CPU switching to mm
// meanwhile reads them itself (membarrier_switch_mm).
static void publish_state(struct mm *mm)
{
	struct mb_request r = { mm, MB_PLAIN, 0 };
	struct cpu *c;
	uint64_t flags;

	arch_mb();
	flags = irq_save();
	c = this_cpu();
	if (c->mb_mm == mm)
		c->mb_state = mm_state(mm);
	irq_restore(flags);
	send_ipis(cpus_running(mm), ipi_refresh, &r);
	arch_mb();
}

// Idempotent, as Linux: registering again is a no-op.  'set' goes in
// first (the switch path and the IPI handlers act on it), 'ready' once
// every CPU knows (the commands check that).
static long register_state(struct mm *mm, int set, int ready)
{
	if ((mm_state(mm) & ready) == ready)
		return 0;
	__atomic_or_fetch(&mm->membarrier_state, set, __ATOMIC_SEQ_CST);
	publish_state(mm);
	__atomic_or_fetch(&mm->membarrier_state, ready, __ATOMIC_SEQ_CST);
	return 0;
}

// The REGISTER_ commands whose registration has at least begun, as
// Linux reports them (a SYNC_CORE or RSEQ registration also sets the
// plain private bit, so it reports REGISTER_PRIVATE_EXPEDITED too).
static long get_registrations(struct mm *mm)
{
	static const struct { int bits; int cmd; } kinds[] = {
		{ MB_GLOBAL_EXPEDITED | MB_GLOBAL_EXPEDITED_READY,
		  MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED },
		{ MB_PRIVATE_EXPEDITED | MB_PRIVATE_EXPEDITED_READY,
		  MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED },
		{ MB_SYNC_CORE | MB_SYNC_CORE_READY,
		  MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE },
		{ MB_RSEQ | MB_RSEQ_READY, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ },
	};
	int state = mm_state(mm);
	long mask = 0;

	for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (state & kinds[i].bits)
			mask |= kinds[i].cmd;
	return mask;
}

// ---- the commands ----

// PRIVATE_EXPEDITED and its SYNC_CORE and RSEQ forms.  cpu_id >= 0 (only
// RSEQ with MEMBARRIER_CMD_FLAG_CPU): that CPU alone, if it runs mm.
static long private_expedited(struct mm *mm, int ready, enum mb_kind kind, int cpu_id)
{
	struct mb_request r = { mm, kind, 0 };
	cpumask_t mask = 0;

	if (!(mm_state(mm) & ready))
		return -EPERM;
	arch_mb();
	if (cpu_id < 0) {
		mask = cpus_running(mm);
	} else if (cpu_id < ncpus && cpus[cpu_id].online && cpus[cpu_id].mb_mm == mm) {
		if (cpu_id == this_cpu()->id) {
			uint64_t flags = irq_save();
			barrier_here(this_cpu(), &r);
			irq_restore(flags);
		} else {
			mask = cpumask_of(cpu_id);
		}
	}
	send_ipis(mask, ipi_barrier, &r);
	// SYNC_CORE covers the caller too: it returns by SYSRET, which does
	// not serialize, and another thread of mm may run here next without
	// a switch of address space.
	if (kind == MB_CORE) {
		uint64_t flags = irq_save();
		sync_core_here(this_cpu());
		irq_restore(flags);
	}
	arch_mb();
	return 0;
}

static long global_expedited(void)
{
	struct mb_request r = { 0, MB_PLAIN, 0 };
	int me = this_cpu()->id;
	cpumask_t mask = 0;

	arch_mb();
	for (int i = 0; i < ncpus; i++)
		if (i != me && cpus[i].online && (cpus[i].mb_state & MB_GLOBAL_EXPEDITED))
			mask |= cpumask_of(i);
	send_ipis(mask, ipi_barrier, &r);
	arch_mb();
	return 0;
}

// Every other CPU passes a full barrier after the call began: a tick, a
// switch of address space, or it is seen running no user thread at all
// (idle: never waited for, never woken).  The caller sleeps a tick at a
// time meanwhile.  A CPU that runs a single thread without a tick
// (kernel/time/tick.c) might pass none for as long as the thread runs:
// it gets a barrier IPI instead, once it is seen waited for with its
// tick stopped.
static long global(void)
{
	struct mb_request r = { 0, MB_PLAIN, 0 };
	uint64_t seen[MAX_CPUS];
	int me = this_cpu()->id;
	cpumask_t waiting = 0;

	arch_mb();
	for (int i = 0; i < ncpus; i++) {
		if (i == me || !cpus[i].online)
			continue;
		seen[i] = cpus[i].mb_passes;
		waiting |= cpumask_of(i);
	}
	for (;;) {
		for (int i = 0; i < ncpus; i++)
			if ((waiting & cpumask_of(i)) &&
			    (!cpus[i].mb_mm || cpus[i].mb_passes != seen[i]))
				waiting &= ~cpumask_of(i);
		if (!waiting)
			break;
		cpumask_t tickless = 0;
		for (int i = 0; i < ncpus; i++)
			if ((waiting & cpumask_of(i)) && __atomic_load_n(&cpus[i].tick_stopped, __ATOMIC_ACQUIRE))
				tickless |= cpumask_of(i);
		if (tickless) {
			send_ipis(tickless, ipi_barrier, &r);
			waiting &= ~tickless;
			continue;
		}
		// A dying process need not wait (and must not be held up).
		if (wq_wait_killable(0, 0, clock_monotonic_ns() + 1000000) == -EINTR)
			break;
	}
	arch_mb();
	return 0;
}

// membarrier(int cmd, unsigned int flags, int cpu_id)
SYSCALL_DEFINE(SYS_membarrier, membarrier)
{
	int cmd = (int)args->a[0];
	unsigned int flags = (unsigned int)args->a[1];
	int cpu_id = (int)args->a[2];
	struct mm *mm = current_thread()->mm;

	// Flags first, as Linux: only the RSEQ command takes one.
	if (cmd == MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ) {
		if (flags && flags != MEMBARRIER_CMD_FLAG_CPU)
			return -EINVAL;
	} else if (flags) {
		return -EINVAL;
	}
	if (!(flags & MEMBARRIER_CMD_FLAG_CPU))
		cpu_id = -1;

	switch (cmd) {
	case MEMBARRIER_CMD_QUERY:
		return supported_commands();
	case MEMBARRIER_CMD_GLOBAL:
		return global();
	case MEMBARRIER_CMD_GLOBAL_EXPEDITED:
		return global_expedited();
	case MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED:
		return register_state(mm, MB_GLOBAL_EXPEDITED, MB_GLOBAL_EXPEDITED_READY);
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED:
		return private_expedited(mm, MB_PRIVATE_EXPEDITED_READY, MB_PLAIN, -1);
	case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED:
		return register_state(mm, MB_PRIVATE_EXPEDITED, MB_PRIVATE_EXPEDITED_READY);
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE:
		return private_expedited(mm, MB_SYNC_CORE_READY, MB_CORE, -1);
	case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE:
		return register_state(mm, MB_PRIVATE_EXPEDITED | MB_SYNC_CORE, MB_SYNC_CORE_READY);
	case MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ:
		return private_expedited(mm, MB_RSEQ_READY, MB_RESTART, cpu_id);
	case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ:
		return register_state(mm, MB_PRIVATE_EXPEDITED | MB_RSEQ, MB_RSEQ_READY);
	case MEMBARRIER_CMD_GET_REGISTRATIONS:
		return get_registrations(mm);
	default:
		return -EINVAL;
	}
}
