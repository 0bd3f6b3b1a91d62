// The facility policy: when a thread's expensive CPU state is saved,
// loaded, wiped and switched on.  See include/kernel/facility.h for the
// states; arch/facility_arch.h for the mechanisms below it.
//
// Policies (boot option xstate=):
//
//	eager		save at every switch-out, load at every return to
//			user unless this CPU still holds the state (what
//			Linux x86 does today)
//	lazy		switched off at every return to user unless this CPU
//			still holds the thread's state; the first use traps
//			and loads; saved at switch-out only if it was used
//	counter:N	the seed's policy ("Enable MSR_TM lazily"): as lazy,
//			but after a trap the state is loaded eagerly while a
//			per-thread u8 counter, bumped at every switch-out
//			where the facility was on, has not wrapped (N
//			switches; N = 256 is powerpc's u8)
//	deferred:N	counter:N, and a thread's state is not saved when it
//			leaves the CPU: it stays live in the registers until
//			another thread needs them (a trap or an eager load
//			saves it first), the thread comes back (nothing to
//			do), or it runs elsewhere (the CPU that holds it
//			saves it on request).  Switches to idle and to
//			threads that do not use the facility cost nothing.
//
// The leak rule, for every policy: a thread must never be able to read
// another process's register contents, not even speculatively while the
// facility is off (LazyFP, CVE-2018-3665: CPUs speculate past the trap).
// So before a thread returns to user mode with the facility off while
// the registers hold state of another address space, that state is saved
// (if it was not yet) and the registers are reset to the initial state.
// Threads of one process may see each other's state this way: they share
// memory anyway.  Address spaces are told apart by a never-reused id, so a
// new process at the address of a dead one is still a stranger, and exec
// makes the new image a stranger to the old one.
//
// Everything here runs with interrupts off: a CPU's fac_cpu changes only
// under its own hands, and a cross-CPU call (interrupts on at the target)
// is how another CPU asks for state held there.

#include <kernel/facility.h>
#include <kernel/thread.h>
#include <kernel/process.h>
#include <kernel/cpu.h>
#include <kernel/mm.h>
#include <kernel/smp.h>
#include <kernel/boot.h>
#include <kernel/panic.h>
#include <kernel/signal.h>
#include <lib/string.h>
#include <lib/printf.h>
#include <lib/cmdline.h>
#include <arch/irq.h>

// The policy in force.  Chosen at boot (xstate=) and changeable at run
// time (fac_set_policy, from /proc/switchyard/facilities), so benchmarks
// can compare policies within one boot.  Every policy keeps the same
// per-thread and per-CPU state (owner, dirty, space, load counter) and
// differs only in its decisions, so a change takes effect at the next
// decision on each CPU with nothing to convert; the two fields are read
// one at a time and each is valid on its own.
struct fac_policy fac_policy = { FAC_DEFERRED, 256 };

static enum fac_policy_kind policy_kind(void)
{
	return __atomic_load_n(&fac_policy.kind, __ATOMIC_RELAXED);
}

static unsigned policy_window(void)
{
	return __atomic_load_n(&fac_policy.window, __ATOMIC_RELAXED);
}

// eager | lazy | counter[:N] | deferred[:N]   (N: 1..256, default 256)
static int parse_policy(const char *value, struct fac_policy *out)
{
	static const struct { const char *name; enum fac_policy_kind kind; } names[] = {
		{ "eager", FAC_EAGER }, { "lazy", FAC_LAZY },
		{ "counter", FAC_COUNTER }, { "deferred", FAC_DEFERRED },
	};
	if (!value)
		return -1;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i].name);
		if (strncmp(value, names[i].name, n) || (value[n] && value[n] != ':'))
			continue;
		unsigned window = 256;
		if (value[n] == ':') {
			uint64_t v;
			if ((names[i].kind != FAC_COUNTER && names[i].kind != FAC_DEFERRED) ||
			    !parse_u64(value + n + 1, 10, &v) || v < 1 || v > 256)
				return -1;
			window = (unsigned)v;
		}
		*out = (struct fac_policy){ names[i].kind, window };
		return 0;
	}
	return -1;
}

static int set_policy(const char *value)
{
	return parse_policy(value, &fac_policy);
}
BOOT_OPTION(xstate, "extended-state policy: eager, lazy, counter[:N], deferred[:N] "
	    "(N 1..256, default deferred:256)", set_policy);

int fac_set_policy(const char *value)
{
	struct fac_policy p;

	if (parse_policy(value, &p) < 0)
		return -1;
	__atomic_store_n(&fac_policy.window, p.window, __ATOMIC_RELAXED);
	__atomic_store_n(&fac_policy.kind, p.kind, __ATOMIC_RELAXED);
	return 0;
}

void fac_policy_name(char *buf, size_t size)
{
	switch (policy_kind()) {
	case FAC_EAGER:
		ksnprintf(buf, size, "eager");
		break;
	case FAC_LAZY:
		ksnprintf(buf, size, "lazy");
		break;
	case FAC_COUNTER:
		ksnprintf(buf, size, "counter:%u", policy_window());
		break;
	default:
		ksnprintf(buf, size, "deferred:%u", policy_window());
		break;
	}
}

static bool saves_at_switch_out(void)
{
	return policy_kind() != FAC_DEFERRED;
}

static bool counts_loads(void)
{
	enum fac_policy_kind kind = policy_kind();

	return kind == FAC_COUNTER || kind == FAC_DEFERRED;
}

// The address space whose state a user thread's registers hold: a unique
// id (struct mm's), never a pointer that could be reused.
static uint64_t space_of(struct thread *t)
{
	return t->mm ? t->mm->id : 0;
}

static struct fac_cpu *here(int f)
{
	return &this_cpu()->fac[f];
}

// Another CPU reads 'dirty' and 'owner' (fetch): the save that makes the
// registers clean is published before they say so.
static void set_dirty(struct fac_cpu *c, bool dirty)
{
	__atomic_store_n(&c->dirty, dirty, __ATOMIC_RELEASE);
}

static void set_owner(struct fac_cpu *c, struct thread *t)
{
	__atomic_store_n(&c->owner, t, __ATOMIC_RELEASE);
}

static bool live_here(struct thread *t, int f)
{
	return here(f)->owner == t && t->fac[f].live_cpu == this_cpu()->id;
}

// Writes the registers into the owner's save area, if they changed.
static void save_owner(int f)
{
	struct fac_cpu *c = here(f);

	if (!c->owner || !c->dirty)
		return;
	c->closed = false;		// the mechanisms may open the gate
	arch_fac_save(f, c->owner);
	c->owner->fac[f].saved = true;
	set_dirty(c, false);
	c->stats.saves++;
}

// Another CPU asks for a thread's state held here (fetch): save it if it
// changed, and let go of it.  The registers keep their contents (the
// space id says whose they are).
struct fetch_request {
	struct thread *t;
	int f;
};

static void release_here(void *arg)
{
	struct fetch_request *r = arg;
	struct fac_cpu *c = here(r->f);

	if (c->owner != r->t)
		return;
	save_owner(r->f);
	set_owner(c, NULL);
	// The save opened the gate (arch_fac_save) under whatever runs here:
	// its way back to user mode closes it again if it must.
	thread_work_set(this_cpu()->current, WORK_STATE);
}

// The calling thread t needs its own state; if another CPU holds it
// changed and unsaved (deferred saving), have that CPU write it back.  A
// CPU that has since given its registers to another thread saved t's
// state first, and one that holds it unchanged has nothing to add: the
// area is current either way.  Such a CPU may keep naming t as its owner;
// that is harmless, since a CPU touches its owner's area only to save
// changes, and changes to t's state are only made where t runs.
static void fetch(struct thread *t, int f)
{
	int cpu = t->fac[f].live_cpu;

	if (cpu < 0 || cpu == this_cpu()->id)
		return;
	struct fac_cpu *remote = &cpus[cpu].fac[f];
	if (__atomic_load_n(&remote->owner, __ATOMIC_ACQUIRE) == t &&
	    __atomic_load_n(&remote->dirty, __ATOMIC_ACQUIRE)) {
		struct fetch_request r = { t, f };
		here(f)->stats.fetches++;
		cross_call(cpu, release_here, &r, true);
	}
	t->fac[f].live_cpu = -1;
}

// Makes the registers hold t's state: the current holder's is saved
// first (deferred saves are paid here), t's is fetched from wherever it
// is live, then loaded from its area (or the initial state).
static void take_registers(struct thread *t, int f)
{
	struct fac_cpu *c = here(f);

	save_owner(f);
	fetch(t, f);
	c->closed = false;
	if (t->fac[f].saved) {
		arch_fac_restore(f, t);
		c->stats.restores++;
	} else {
		arch_fac_load_init(f);
		c->stats.inits++;
	}
	set_owner(c, t);
	c->space = space_of(t);
	set_dirty(c, false);
	t->fac[f].live_cpu = (int16_t)this_cpu()->id;
	t->fac[f].loads++;
}

// The leak guard: t goes to user mode with the facility off; the
// registers must not hold another address space's state.
static void guard_registers(struct thread *t, int f)
{
	struct fac_cpu *c = here(f);

	if (c->space == 0 || c->space == space_of(t))
		return;
	save_owner(f);
	c->closed = false;
	arch_fac_load_init(f);
	set_owner(c, NULL);
	c->space = 0;
	c->stats.resets++;
}

// The facilities this CPU type has (arch_fac_present), known once the
// arch has set itself up, which is before any user thread runs; 0 until
// the first look.
uint32_t fac_present;

uint32_t fac_present_facilities(void)
{
	uint32_t mask = __atomic_load_n(&fac_present, __ATOMIC_RELAXED);

	if (!mask) {
		for (int f = 0; f < NR_FACILITIES; f++)
			if (arch_fac_present(f))
				mask |= 1u << f;
		__atomic_store_n(&fac_present, mask, __ATOMIC_RELAXED);
	}
	return mask;
}

void fac_switch_out_one(struct thread *prev, int f)
{
	struct fac_thread *pf = &prev->fac[f];
	struct fac_cpu *c = here(f);

	// The seed's counter: one more switch with the facility on; when
	// it wraps, the facility goes back to lazy.
	if (pf->on && pf->load_count && counts_loads() && ++pf->load_count >= policy_window())
		pf->load_count = 0;
	if (c->owner == prev && c->dirty && saves_at_switch_out())
		save_owner(f);
	else
		c->stats.save_skips++;
}

static bool loads_eagerly(struct thread *t, int f)
{
	switch (policy_kind()) {
	case FAC_EAGER:
		break;
	case FAC_LAZY:
		return false;
	default:
		if (t->fac[f].load_count == 0)
			return false;
		break;
	}
	return arch_fac_usable(f, t);
}

// The registers hold t's state: is the facility on for it?  Under the
// counting policies only while its counter runs, as in the seed: once the
// counter wraps the facility goes off even though the state is still
// here, so a thread that stopped using it stops paying for it.  That
// cost is the gate itself: a thread with the facility on beside one with
// it off flips CR0.TS at every switch between them (a serialising CR0
// write on hardware; under QEMU TCG each flip also makes the translated
// user code miss in its lookup cache, which cost more than eager's XSAVE
// and XRSTOR did).  A later use traps and switches it on, with nothing to
// restore.
static bool on_while_live(struct thread *t, int f)
{
	return counts_loads() ? t->fac[f].load_count != 0 : true;
}

// Only after a switch into t or a change of its state (WORK_STATE,
// kernel/proc/return_to_user.c): otherwise the registers and gates are
// still as the last return left them.
// Sets the gate for user mode and remembers that it is closed.
static void set_gate(struct fac_cpu *c, int f, bool on)
{
	arch_fac_switch(f, on);
	c->closed = !on;
}

// What fac_return_to_user (kernel/facility_return.h) decides for one
// facility outside its common case.
void fac_decide(struct thread *t, int f, bool live)
{
	struct fac_cpu *c = here(f);
	bool on;

	if (live) {
		on = on_while_live(t, f);
	} else if (loads_eagerly(t, f)) {
		take_registers(t, f);
		c->stats.eager_loads++;
		on = true;
	} else {
		guard_registers(t, f);
		on = false;
	}
	set_gate(c, f, on);
	t->fac[f].on = on;
	if (on)		// user code may change it from now on
		set_dirty(c, true);
}

// A facility-unavailable trap.  From user mode: the thread's first use
// since the facility went off: load its state and switch it on (the
// instruction runs again).  A CPU without the facility, or a thread not
// allowed it, gets the arch's signal (SIGILL), as the seed does.  From
// kernel mode: the kernel never uses these registers; it is a bug.
void fac_trap(int f, bool from_user, uint64_t ip, struct trap_frame *frame)
{
	struct thread *t = current_thread();

	if (!from_user)
		panic_frame(frame, "Unrecoverable %s Unavailable Exception in kernel mode at ip %#lx",
			    arch_fac_name(f), ip);
	int sig = arch_fac_prepare(f, t);
	if (sig) {
		signal_force_fault(sig, sig == SIGILL ? ILL_ILLOPN : SI_KERNEL, ip);
		return;
	}
	uint64_t flags = irq_save();
	struct fac_cpu *c = here(f);
	c->stats.traps++;
	t->fac[f].traps++;
	if (!live_here(t, f))
		take_registers(t, f);
	set_gate(c, f, true);
	t->fac[f].on = true;
	set_dirty(c, true);
	if (counts_loads())
		t->fac[f].load_count = 1;	// the window starts (again) here
	irq_restore(flags);
}

// The current thread's state of f live in this CPU's registers and
// switched on, as a trap leaves it but without counting one (ppc64's TM
// recheckpoint needs the registers in hand).  Interrupts off; the area
// exists (arch_fac_prepare).
void fac_make_live(int f)
{
	struct thread *t = current_thread();

	thread_work_set(t, WORK_STATE);
	if (!live_here(t, f))
		take_registers(t, f);
	set_gate(here(f), f, true);
	t->fac[f].on = true;
	set_dirty(here(f), true);
}

void fac_sync(struct thread *t)
{
	uint64_t flags = irq_save();

	// A save leaves the registers clean: the return to user must mark
	// them dirty again (fac_return_to_user) before user code runs.
	thread_work_set(t, WORK_STATE);
	for (int f = 0; f < NR_FACILITIES; f++) {
		if (live_here(t, f))
			save_owner(f);
		else
			fetch(t, f);
	}
	irq_restore(flags);
}

// t's registers, wherever they are, stop being t's.  Whatever they hold
// stays there under t's space id, so the leak guard still knows whose it is.
static void let_go(struct thread *t, int f)
{
	if (live_here(t, f)) {
		set_owner(here(f), NULL);
		set_dirty(here(f), false);
	} else {
		fetch(t, f);
	}
	t->fac[f].live_cpu = -1;
}

void fac_reset(struct thread *t)
{
	uint64_t flags = irq_save();

	thread_work_set(t, WORK_STATE);	// the return to user decides again
	for (int f = 0; f < NR_FACILITIES; f++) {
		let_go(t, f);
		t->fac[f].saved = false;
		arch_fac_reset_area(f, t);	// 'not saved' reads as the initial state
	}
	irq_restore(flags);
}

void fac_take_area(struct thread *t)
{
	uint64_t flags = irq_save();

	thread_work_set(t, WORK_STATE);	// the return to user decides again
	for (int f = 0; f < NR_FACILITIES; f++) {
		let_go(t, f);
		t->fac[f].saved = true;
	}
	irq_restore(flags);
}

void fac_thread_init(struct thread *t)
{
	for (int f = 0; f < NR_FACILITIES; f++)
		t->fac[f] = (struct fac_thread){ .live_cpu = -1 };
}

// fork and clone: the child starts with the caller's current state (saved
// into the caller's area first, then copied by the arch).
void fac_thread_copy(struct thread *child, struct thread *parent)
{
	fac_sync(parent);
	for (int f = 0; f < NR_FACILITIES; f++) {
		child->fac[f] = (struct fac_thread){
			.saved = parent->fac[f].saved,
			.load_count = parent->fac[f].load_count,
			.live_cpu = -1,
		};
	}
}

// A thread is ending (it runs this itself, with its state possibly live
// here or, under deferred saving, changed on the CPU it last ran on): no
// CPU may later save into its area, which goes with it.
void fac_thread_exit(struct thread *t)
{
	uint64_t flags = irq_save();

	for (int f = 0; f < NR_FACILITIES; f++)
		let_go(t, f);
	irq_restore(flags);
}
