// The x86-64 extended state: the mechanisms behind the facility policy
// (kernel/sched/facility.c) for its two facilities, FAC_XSTATE (x87, SSE,
// AVX, AVX-512, gated by CR0.TS) and FAC_AMX (tile data, gated by
// IA32_XFD), plus the save areas, the #NM trap and the AMX permission
// calls of arch_prctl.
//
// A thread's save area is one standard-format (non-compacted) XSAVE area,
// the layout Linux puts in signal frames.  It is always a valid image of
// the thread's state whenever that state is not live and modified in
// some CPU's registers: a facility the thread has not used holds the
// initial state there.  Threads without AMX permission get an area that
// stops before the tile data; the first permitted use grows it.
//
// The kernel never uses these registers itself (-mgeneral-regs-only), so
// between a switch and the next return to user the registers still hold
// the last user thread's values; the policy's owner tracking relies on it.
// XSAVE and XRSTOR fault (#NM) while CR0.TS is set, and XSAVE writes an
// XFD-armed component as if it were in its initial state, so every
// mechanism here opens the gates it needs; the policy closes them again
// on the way to user mode (arch_fac_switch).

#include <stdint.h>
#include <arch/x86.h>
#include <arch/xstate.h>
#include <arch/trapframe.h>
#include <kernel/facility.h>
#include <kernel/thread.h>
#include <kernel/process.h>
#include <kernel/cpu.h>
#include <kernel/console.h>
#include <kernel/panic.h>
#include <kernel/uaccess.h>
#include <mm/kmalloc.h>
#include <lib/string.h>
#include <uapi/errno.h>

uint64_t xstate_features;		// XCR0
size_t xstate_size;			// area without AMX tile data
size_t xstate_size_max;			// area with it (= xstate_size without AMX)
uint32_t xstate_mxcsr_mask = 0xffbf;	// bits MXCSR may hold (FXSAVE tells)
static bool amx;			// tile data in XCR0, gated by XFD
static uint64_t fac_mask[NR_FACILITIES];	// XSAVE components of each facility

// The initial state, for XRSTOR: an all-zero header (XSTATE_BV = 0 means
// every component in its initial state) and valid control words, which
// XRSTOR reads even then.
static uint8_t init_area[XSTATE_AREA_MAX] __attribute__((aligned(64)));

static void xsetbv(uint32_t reg, uint64_t v)
{
	__asm__ volatile("xsetbv" : : "c"(reg), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static void area_init(uint8_t *area, size_t size)
{
	uint16_t fcw = 0x37f;
	uint32_t mxcsr = 0x1f80;

	memset(area, 0, size);
	memcpy(area + 0, &fcw, 2);
	memcpy(area + XSTATE_MXCSR_OFFSET, &mxcsr, 4);
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

// End of the standard-format area holding the components in 'mask'.
static size_t area_end(uint64_t mask)
{
	size_t end = 512 + 64;		// legacy region and header

	for (int i = 2; i < 64; i++) {
		if (!(mask & (1ULL << i)))
			continue;
		struct cpuid_regs r = cpuid(0xd, i);
		if (r.eax + r.ebx > end)
			end = r.eax + r.ebx;
	}
	return end;
}

void xstate_init(void)
{
	if (!cpu_has.xsave) {
		xstate_features = XFEATURE_X87 | XFEATURE_SSE;
		xstate_size = xstate_size_max = 512;
		fac_mask[FAC_XSTATE] = xstate_features;
		find_mxcsr_mask();
		area_init(init_area, sizeof(init_area));
		return;
	}
	struct cpuid_regs r = cpuid(0xd, 0);
	uint64_t supported = ((uint64_t)r.edx << 32) | r.eax;
	uint64_t want = XFEATURE_X87 | XFEATURE_SSE | XFEATURE_AVX | XFEATURE_AVX512;

	// AMX only with XFD: without it the 8 KiB of tiles could not be
	// left out of every switch and every signal frame.
	if (cpu_has.amx && cpu_has.xfd &&
	    (supported & XFEATURE_AMX) == XFEATURE_AMX)
		want |= XFEATURE_AMX;
	xstate_features = supported & want;
	amx = (xstate_features & XFEATURE_TILEDATA) != 0;
	fac_mask[FAC_XSTATE] = xstate_features & ~XFEATURE_TILEDATA;
	fac_mask[FAC_AMX] = xstate_features & XFEATURE_TILEDATA;
	xstate_size = area_end(fac_mask[FAC_XSTATE]);
	xstate_size_max = area_end(xstate_features);
	if (xstate_size_max > XSTATE_AREA_MAX)
		panic("xstate: XSAVE area of %zu bytes is larger than %d", xstate_size_max,
		      XSTATE_AREA_MAX);
	xstate_init_cpu();
	find_mxcsr_mask();
	area_init(init_area, sizeof(init_area));
	char policy[FAC_POLICY_NAME_MAX];
	fac_policy_name(policy, sizeof(policy));
	kprintf("xstate: policy %s, XCR0 %#lx, save area %zu bytes%s\n", policy,
		xstate_features, xstate_size, amx ? " (AMX tile data: on first use, by XFD)" : "");
}

// Every CPU: XCR0, and the gates open as the policy expects to find them.
void xstate_init_cpu(void)
{
	struct cpu *c = this_cpu();

	if (cpu_has.xsave)
		xsetbv(0, xstate_features);
	write_cr0(read_cr0() & ~CR0_TS);
	c->arch.fpu_off = false;
	if (amx)
		wrmsr(MSR_XFD, 0);
	c->arch.xfd_armed = false;
}

// ---- gates ----

static void fpu_gate(struct cpu *c, bool on)
{
	if (on == !c->arch.fpu_off)
		return;
	if (on)
		clts();
	else
		write_cr0(read_cr0() | CR0_TS);
	c->arch.fpu_off = !on;
}

static void tile_gate(struct cpu *c, bool on)
{
	if (!amx || on == !c->arch.xfd_armed)
		return;
	wrmsr(MSR_XFD, on ? 0 : XFEATURE_TILEDATA);
	c->arch.xfd_armed = !on;
}

void arch_fac_switch(int f, bool on)
{
	struct cpu *c = this_cpu();

	if (f == FAC_XSTATE)
		fpu_gate(c, on);
	else
		tile_gate(c, on);
}

// What XSAVE and XRSTOR of facility f need open.
static void open_gates(int f)
{
	struct cpu *c = this_cpu();

	fpu_gate(c, true);
	if (f == FAC_AMX)
		tile_gate(c, true);
}

// ---- save and load ----

static void xsave(uint8_t *area, uint64_t mask)
{
	uint32_t lo = (uint32_t)mask, hi = (uint32_t)(mask >> 32);

	if (cpu_has.xsaveopt)
		__asm__ volatile("xsaveopt64 (%0)" : : "r"(area), "a"(lo), "d"(hi) : "memory");
	else if (cpu_has.xsave)
		__asm__ volatile("xsave64 (%0)" : : "r"(area), "a"(lo), "d"(hi) : "memory");
	else
		__asm__ volatile("fxsave64 (%0)" : : "r"(area) : "memory");
}

static void xrstor(const uint8_t *area, uint64_t mask)
{
	uint32_t lo = (uint32_t)mask, hi = (uint32_t)(mask >> 32);

	if (cpu_has.xsave)
		__asm__ volatile("xrstor64 (%0)" : : "r"(area), "a"(lo), "d"(hi) : "memory");
	else
		__asm__ volatile("fxrstor64 (%0)" : : "r"(area) : "memory");
}

void arch_fac_save(int f, struct thread *t)
{
	open_gates(f);
	xsave(t->arch.xstate->area, fac_mask[f]);
}

void arch_fac_restore(int f, struct thread *t)
{
	open_gates(f);
	xrstor(t->arch.xstate->area, fac_mask[f]);
}

void arch_fac_load_init(int f)
{
	open_gates(f);
	xrstor(init_area, fac_mask[f]);
}

// t's area gets the initial state of f's components: for XRSTOR that is
// their XSTATE_BV bits cleared (and, for the legacy region, valid control
// words, which XRSTOR reads whenever SSE or AVX is restored).
void arch_fac_reset_area(int f, struct thread *t)
{
	uint8_t *area = t->arch.xstate->area;

	if (f == FAC_XSTATE) {
		uint64_t tiles = 0;
		if (amx)
			memcpy(&tiles, area + XSTATE_BV_OFFSET, 8);
		area_init(area, xstate_size);
		tiles &= XFEATURE_TILEDATA;
		memcpy(area + XSTATE_BV_OFFSET, &tiles, 8);
		return;
	}
	uint64_t bv;
	memcpy(&bv, area + XSTATE_BV_OFFSET, 8);
	bv &= ~fac_mask[f];
	memcpy(area + XSTATE_BV_OFFSET, &bv, 8);
}

const char *arch_fac_name(int f)
{
	return f == FAC_XSTATE ? "FP" : "AMX";
}

bool arch_fac_present(int f)
{
	return f == FAC_XSTATE || amx;
}

static bool amx_permitted(struct thread *t)
{
	return t->proc && (t->proc->arch.xfeatures_perm & XFEATURE_TILEDATA);
}

bool arch_fac_usable(int f, struct thread *t)
{
	if (f == FAC_XSTATE)
		return true;
	return amx && amx_permitted(t) && t->arch.xstate_alloc >= xstate_size_max;
}

// Grows t's area to hold the tile data.  The state must not be live
// anywhere while its area moves: fac_sync saves it and makes every CPU
// let go of it first.
static int grow_area(struct thread *t)
{
	struct xstate *bigger = kmalloc(xstate_size_max);

	if (!bigger)
		return -ENOMEM;
	fac_sync(t);
	memset(bigger->area, 0, xstate_size_max);
	memcpy(bigger->area, t->arch.xstate->area, t->arch.xstate_alloc);
	kfree(t->arch.xstate);
	t->arch.xstate = bigger;
	t->arch.xstate_alloc = xstate_size_max;
	return 0;
}

int arch_fac_prepare(int f, struct thread *t)
{
	if (f == FAC_XSTATE)
		return 0;
	if (!amx || !amx_permitted(t))
		return SIGILL;
	if (t->arch.xstate_alloc < xstate_size_max && grow_area(t) < 0)
		return SIGSEGV;
	return 0;
}

// #NM: CR0.TS for the x87/SSE/AVX registers, or XFD with IA32_XFD_ERR
// saying which component (only tile data is ever armed).
void xstate_nm_trap(struct trap_frame *f)
{
	int fac = FAC_XSTATE;

	if (amx) {
		uint64_t err = rdmsr(MSR_XFD_ERR);
		if (err) {
			wrmsr(MSR_XFD_ERR, 0);
			fac = FAC_AMX;
		}
	}
	fac_trap(fac, trap_from_user(f), f->rip, f);
}

// ---- thread areas ----

int arch_user_thread_init(struct thread *t)
{
	t->arch.xstate = kmalloc(xstate_size);
	if (!t->arch.xstate)
		return -ENOMEM;
	t->arch.xstate_alloc = xstate_size;
	area_init(t->arch.xstate->area, xstate_size);
	fac_thread_init(t);
	return 0;
}

// clone: the child starts with the caller's state (the policy has saved
// it into the caller's area).  A child of a thread with tiles gets room
// for them too.
int arch_user_thread_copy(struct thread *child, struct thread *parent)
{
	fac_thread_copy(child, parent);
	child->arch.tsc_off = parent->arch.tsc_off;	// as Linux's TIF_NOTSC
	if (parent->arch.xstate_alloc > child->arch.xstate_alloc) {
		struct xstate *bigger = kmalloc(parent->arch.xstate_alloc);
		if (!bigger)
			return -ENOMEM;
		kfree(child->arch.xstate);
		child->arch.xstate = bigger;
		child->arch.xstate_alloc = parent->arch.xstate_alloc;
	}
	memcpy(child->arch.xstate->area, parent->arch.xstate->area, parent->arch.xstate_alloc);
	return 0;
}

void arch_thread_free(struct thread *t)
{
	kfree(t->arch.xstate);
	t->arch.xstate = 0;
}

// ---- what user space sees ----

// The components in t's signal frames and the size of their area: the
// tile data only once the process may use it.
uint64_t xstate_user_features(struct thread *t)
{
	return amx_permitted(t) ? xstate_features : fac_mask[FAC_XSTATE];
}

size_t xstate_user_size(struct thread *t)
{
	return amx_permitted(t) ? xstate_size_max : xstate_size;
}

// sigreturn brings tile data back: the area must hold it.
int xstate_make_room(struct thread *t, size_t size)
{
	if (size <= t->arch.xstate_alloc)
		return 0;
	return grow_area(t);
}

// A new program may use what every program may: no AMX until it asks.
void xstate_exec_reset(struct thread *t)
{
	t->proc->arch.xfeatures_perm = fac_mask[FAC_XSTATE];
	fac_reset(t);
}

// The smallest stack a signal handler needs with the given state size.
static size_t sigframe_size(size_t state)
{
	return 8 + 440 + state + 4 + 64 + 128;
}

#define ARCH_GET_XCOMP_SUPP	0x1021
#define ARCH_GET_XCOMP_PERM	0x1022
#define ARCH_REQ_XCOMP_PERM	0x1023
#define XFEATURE_NR_MAX		19	// components Linux 6.1 knows

// ARCH_REQ_XCOMP_PERM: only dynamic components can be asked for (tile
// data, which brings its configuration), and only where the CPU has them.
// Every thread's alternate signal stack must be able to take the larger
// frames (ENOSPC otherwise), as on Linux.
static long request_perm(uint64_t idx)
{
	struct process *p = current_process();

	if (idx >= XFEATURE_NR_MAX)
		return -EINVAL;
	if (idx != 18 || !amx)
		return -EOPNOTSUPP;
	if (p->arch.xfeatures_perm & XFEATURE_TILEDATA)
		return 0;
	size_t need = sigframe_size(xstate_size_max);
	uint64_t flags = spin_lock_irqsave(&p->lock);
	for (struct thread *t = p->threads; t; t = t->proc_next) {
		if (t->altstack.ss_flags != SS_DISABLE && t->altstack.ss_size &&
		    t->altstack.ss_size < need) {
			spin_unlock_irqrestore(&p->lock, flags);
			return -ENOSPC;
		}
	}
	p->arch.xfeatures_perm = xstate_features;
	spin_unlock_irqrestore(&p->lock, flags);
	return 0;
}

long xstate_prctl(int code, uint64_t arg)
{
	switch (code) {
	case ARCH_GET_XCOMP_SUPP:
		return put_user_u64(arg, xstate_features) < 0 ? -EFAULT : 0;
	case ARCH_GET_XCOMP_PERM:
		return put_user_u64(arg, current_process()->arch.xfeatures_perm) < 0 ? -EFAULT : 0;
	case ARCH_REQ_XCOMP_PERM:
		return request_perm(arg);
	default:
		return -EINVAL;
	}
}

uint64_t arch_min_sigstack(void)
{
	return sigframe_size(xstate_size);
}
