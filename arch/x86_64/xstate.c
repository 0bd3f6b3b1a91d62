// Extended state switching, eager policy (what Linux does today): the
// leaving thread's registers are saved at switch-out with XSAVEOPT (which
// skips components in their initial state or unmodified since the last
// XRSTOR from the same area); before returning to user space the thread's
// area is loaded unless this CPU still holds exactly that state.
//
// The kernel itself never touches these registers (-mgeneral-regs-only),
// so between a switch-out and the next return to user space the CPU still
// holds the last user thread's values: the owner tracking below relies on
// that.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/xstate.h>
#include <kernel/thread.h>
#include <kernel/cpu.h>
#include <kernel/panic.h>
#include <kernel/console.h>
#include <mm/kmalloc.h>
#include <lib/string.h>
#include <kernel/trap.h>
#include <kernel/process.h>
#include <arch/trapframe.h>

uint64_t xstate_features;
size_t xstate_size;
uint32_t xstate_mxcsr_mask = 0xffbf;	// bits MXCSR may hold (FXSAVE tells)

// Which thread's state the registers of each CPU hold (may be stale).
static struct thread *owner[MAX_CPUS];

static void xsetbv(uint32_t reg, uint64_t v)
{
	__asm__ volatile("xsetbv" : : "c"(reg), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static void xsave_to(struct xstate *x)
{
	uint32_t lo = (uint32_t)xstate_features, hi = (uint32_t)(xstate_features >> 32);

	if (cpu_has.xsaveopt)
		__asm__ volatile("xsaveopt64 (%0)" : : "r"(x->area), "a"(lo), "d"(hi) : "memory");
	else if (cpu_has.xsave)
		__asm__ volatile("xsave64 (%0)" : : "r"(x->area), "a"(lo), "d"(hi) : "memory");
	else
		__asm__ volatile("fxsave64 (%0)" : : "r"(x->area) : "memory");
}

static void xrstor_from(struct xstate *x)
{
	uint32_t lo = (uint32_t)xstate_features, hi = (uint32_t)(xstate_features >> 32);

	if (cpu_has.xsave)
		__asm__ volatile("xrstor64 (%0)" : : "r"(x->area), "a"(lo), "d"(hi) : "memory");
	else
		__asm__ volatile("fxrstor64 (%0)" : : "r"(x->area) : "memory");
}

static void find_mxcsr_mask(void)
{
	static uint8_t area[512] __attribute__((aligned(64)));
	uint32_t mask;

	__asm__ volatile("fxsave64 %0" : "=m"(area));
	memcpy(&mask, area + 28, 4);
	if (mask)
		xstate_mxcsr_mask = mask;
}

void xstate_init(void)
{
	if (!cpu_has.xsave) {
		xstate_features = XFEATURE_X87 | XFEATURE_SSE;
		xstate_size = 512;
		find_mxcsr_mask();
		return;
	}
	struct cpuid_regs r = cpuid(0xd, 0);
	uint64_t supported = ((uint64_t)r.edx << 32) | r.eax;
	uint64_t want = XFEATURE_X87 | XFEATURE_SSE | XFEATURE_AVX | XFEATURE_AVX512;

	xstate_features = supported & want;
	xstate_init_cpu();
	xstate_size = cpuid(0xd, 0).ebx;	// size for the XCR0 just set
	find_mxcsr_mask();
}

void xstate_init_cpu(void)
{
	if (cpu_has.xsave)
		xsetbv(0, xstate_features);
}

// Initial state: XSTATE_BV = 0 in the header means "all in init state"
// for XRSTOR; FXRSTOR needs valid control words.
static void area_init(struct xstate *x)
{
	uint16_t fcw = 0x37f;
	uint32_t mxcsr = 0x1f80;

	memset(x->area, 0, xstate_size);
	memcpy(x->area + 0, &fcw, 2);
	memcpy(x->area + 24, &mxcsr, 4);
}

static struct xstate *area_alloc(void)
{
	// kmalloc's classes are aligned to their size, so any area of at
	// least 64 bytes is 64-byte aligned, as XSAVE needs.
	struct xstate *x = kmalloc(xstate_size);
	if (x)
		area_init(x);
	return x;
}

// A fresh state (signal handlers, exec): the registers are reloaded from
// the initial area on the way to user space.
void xstate_reset_to_init(struct thread *t)
{
	area_init(t->arch.xstate);
	xstate_invalidate(t);
}

int xstate_thread_init(struct thread *t)
{
	t->arch.xstate = area_alloc();
	t->arch.xstate_cpu = -1;
	return t->arch.xstate ? 0 : -1;
}

void xstate_thread_copy(struct thread *dst, struct thread *src)
{
	xstate_save_live(src);
	memcpy(dst->arch.xstate->area, src->arch.xstate->area, xstate_size);
	dst->arch.xstate_cpu = -1;
}

void thread_arch_free(struct thread *t)
{
	// Forget it as an owner, so a later thread at the same address is
	// not mistaken for it.
	for (int i = 0; i < ncpus; i++) {
		struct thread *expected = t;
		__atomic_compare_exchange_n(&owner[i], &expected, 0, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	}
	kfree(t->arch.xstate);
	t->arch.xstate = 0;
}

// Is t's state live (possibly modified) in this CPU's registers?
static bool live_here(struct thread *t, int cpu)
{
	return owner[cpu] == t && t->arch.xstate_cpu == cpu && t->arch.xstate_dirty;
}

void xstate_switch_out(struct thread *prev)
{
	struct cpu *c = this_cpu();

	if (!prev->arch.xstate)
		return;
	if (!live_here(prev, c->id)) {
		c->stats.xsave_skip++;
		return;
	}
	xsave_to(prev->arch.xstate);
	prev->arch.xstate_dirty = false;
	c->stats.xsave++;
}

void xstate_before_user(struct thread *t)
{
	struct cpu *c = this_cpu();

	if (!t->arch.xstate)
		return;
	if (owner[c->id] == t && t->arch.xstate_cpu == c->id) {
		c->stats.xrstor_skip++;
	} else {
		xrstor_from(t->arch.xstate);
		owner[c->id] = t;
		t->arch.xstate_cpu = c->id;
		c->stats.xrstor++;
	}
	t->arch.xstate_dirty = true;	// user code may change it from now on
}

void xstate_save_live(struct thread *t)
{
	uint64_t flags = irq_save();

	if (t->arch.xstate && live_here(t, this_cpu()->id)) {
		xsave_to(t->arch.xstate);
		t->arch.xstate_dirty = false;
		this_cpu()->stats.xsave++;
	}
	irq_restore(flags);
}

void xstate_invalidate(struct thread *t)
{
	t->arch.xstate_cpu = -1;
	t->arch.xstate_dirty = false;
}

// #NM: an extended-state instruction while the facility is off.  Under
// the eager policy the facility is never turned off (CR0.TS stays clear),
// so from user space this means the CPU lacks the facility: SIGILL, as
// for an instruction the CPU does not have.  In the kernel, which never
// uses these registers, it is a bug.
void facility_trap(struct trap_frame *f)
{
	this_cpu()->stats.fpu_traps++;
	if (!trap_from_user(f))
		panic_frame(f, "Unrecoverable FPU Unavailable Exception (#NM) in kernel mode at ip %#lx",
			    f->rip);
	signal_force_fault(SIGILL, ILL_ILLOPN, f->rip);
}
