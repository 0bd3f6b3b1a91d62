// TSC frequency and the monotonic clock.
//
// The clock is the TSC scaled to nanoseconds,
//	ns = ns_base + (tsc - tsc_base) * mult >> 32	(mult: ns per tick << 32),
// and QEMU keeps the TSCs of all vCPUs in step (hardware with an invariant
// TSC does), so the same formula on every CPU gives one clock.  The three
// parameters change only when the RTC check below corrects the rate; a
// sequence count lets a reader on any CPU take a consistent set.
//
// The rate: every reference the machine has is measured (the PIT, the
// ACPI PM timer, the HPET: clock_refs.c) or read (CPUID leaves 0x15 and
// 0x16, the hypervisor's leaf 0x40000010), and the most trustworthy one
// that the best measurement confirms wins (rate_choose).  Boot prints them
// all.  Then CPU 0's tick watches the RTC's seconds for the first 10 s:
// the second boundaries bound the rate, and a rate outside the bounds is
// corrected (and logged), unless the references agree on it and the RTC
// alone is far off: then the RTC is not on the guest's clock, and the rate
// is kept (rtc_check_verdict).

#include <stdint.h>
#include <arch/x86.h>
#include <arch/tsc.h>
#include <arch/cycles.h>
#include <arch/apic.h>
#include <arch/clock_refs.h>
#include <kernel/arch.h>
#include <kernel/boot.h>
#include <kernel/cpu.h>
#include <kernel/console.h>
#include <kernel/ktest.h>
#include <kernel/spinlock.h>
#include <kernel/thread.h>
#include <kernel/sched.h>
#include <lib/clock_estimate.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <arch/irq.h>

#define MAX_REFS		6
#define TOL_PPM			500	// references this close always agree
#define RTC_CHECK_SECONDS	10
#define RTC_GIVE_UP_SECONDS	60	// no usable RTC edges by then: stop looking

static uint64_t hz;
static const char *source = "none";
static struct ref_agreement agreed;	// the measured references, for the RTC check
static char agreed_names[64];		// "PIT, PM timer and HPET"
static struct spinlock rate_lock = SPINLOCK_INIT("clock rate");	// one writer

// clock_skew=PPM (tests): the rate found at boot is taken PPM parts per
// million too high ("-PPM": too low), as a bad calibration would, so that
// the RTC check has something to correct.
static uint64_t skew_ppm;
static bool skew_down;

static int set_clock_skew(const char *value)
{
	if (!value)
		return -1;
	skew_down = value[0] == '-';
	if (value[0] == '-' || value[0] == '+')
		value++;
	if (!parse_u64(value, 10, &skew_ppm) || skew_ppm >= 1000000)
		return -1;
	return 0;
}
BOOT_OPTION(clock_skew, "clock_skew=[-]PPM: start the TSC rate off by PPM (tests the RTC check)",
	    set_clock_skew);

static struct {
	volatile uint32_t seq;		// odd while the parameters change
	uint64_t tsc_base;
	uint64_t ns_base;
	uint64_t mult;
} clk;

static uint64_t mult_for(uint64_t rate)
{
	return (1000000000ULL << 32) / rate;	// fits: 1e9 << 32 < 2^64
}

static uint64_t ns_at(uint64_t tsc, uint64_t tsc_base, uint64_t ns_base, uint64_t mult)
{
	uint64_t delta = tsc > tsc_base ? tsc - tsc_base : 0;

	return ns_base + (uint64_t)(((unsigned __int128)delta * mult) >> 32);
}

// The TSC is read after the parameters and before the sequence count is
// checked again (LFENCE orders RDTSC with loads).  A writer reads the TSC
// for the new base only once its odd count is visible, so a reader that
// validated the old parameters read the TSC before that base: no reader
// sees the clock go back, on any CPU.
uint64_t clock_monotonic_ns(void)
{
	uint32_t seq;
	uint64_t base, ns_base, mult, t;

	do {
		seq = __atomic_load_n(&clk.seq, __ATOMIC_ACQUIRE);
		base = __atomic_load_n(&clk.tsc_base, __ATOMIC_RELAXED);
		ns_base = __atomic_load_n(&clk.ns_base, __ATOMIC_RELAXED);
		mult = __atomic_load_n(&clk.mult, __ATOMIC_RELAXED);
		__asm__ volatile("lfence" ::: "memory");
		t = rdtsc();
		__asm__ volatile("lfence" ::: "memory");
	} while ((seq & 1) || seq != __atomic_load_n(&clk.seq, __ATOMIC_ACQUIRE));
	return ns_at(t, base, ns_base, mult);
}

// A duration in TSC cycles as ns, at the rate in force (CPU-time
// accounting keeps cycles and converts when it is read).
uint64_t arch_cycles_to_ns(uint64_t cycles)
{
	uint64_t mult = __atomic_load_n(&clk.mult, __ATOMIC_RELAXED);

	return (uint64_t)(((unsigned __int128)cycles * mult) >> 32);
}

// Changes the rate from now on; the clock stays continuous.  Writers (boot,
// the RTC check on CPU 0's tick, a test) take turns on rate_lock.
static void clock_set_rate(uint64_t rate)
{
	uint64_t flags = spin_lock_irqsave(&rate_lock);
	uint32_t seq = clk.seq;

	__atomic_store_n(&clk.seq, seq + 1, __ATOMIC_RELAXED);
	uint64_t now = rdtsc_ordered();		// after the odd count is visible
	uint64_t ns = clk.mult ? ns_at(now, clk.tsc_base, clk.ns_base, clk.mult) : 0;
	__atomic_store_n(&clk.tsc_base, now, __ATOMIC_RELAXED);
	__atomic_store_n(&clk.ns_base, ns, __ATOMIC_RELAXED);
	__atomic_store_n(&clk.mult, mult_for(rate), __ATOMIC_RELAXED);
	__atomic_store_n(&clk.seq, seq + 2, __ATOMIC_RELEASE);
	hz = rate;
	spin_unlock_irqrestore(&rate_lock, flags);
}

// ---------------------------------------------------------------- references

// Stated rates.  Their error: the hypervisor's is in kHz; leaf 0x15 is the
// crystal's nominal rate (crystals are good to about 50 ppm); leaf 0x16
// is the base frequency in MHz, which need not be the TSC's exactly.
static uint64_t from_cpuid_15(void)
{
	if (cpuid(0, 0).eax < 0x15)
		return 0;
	struct cpuid_regs r = cpuid(0x15, 0);
	if (!r.eax || !r.ebx || !r.ecx)
		return 0;
	return (uint64_t)r.ecx * r.ebx / r.eax;
}

static uint64_t from_cpuid_16(void)
{
	if (cpuid(0, 0).eax < 0x16)
		return 0;
	return (uint64_t)(cpuid(0x16, 0).eax & 0xffff) * 1000000;
}

// KVM and other hypervisors publish the TSC rate in kHz at 0x40000010.
static uint64_t from_hypervisor(void)
{
	if (!cpu_has.hypervisor || cpuid(0x40000000, 0).eax < 0x40000010)
		return 0;
	return (uint64_t)cpuid(0x40000010, 0).eax * 1000;
}

struct candidate {
	const char *name;
	struct rate_estimate est;	// measured ones
	bool measured;
};

// "2.0960 GHz"
static void put_ghz(char *buf, size_t len, uint64_t rate)
{
	ksnprintf(buf, len, "%lu.%04lu GHz", rate / 1000000000, rate % 1000000000 / 100000);
}

// Appends to a line buffer.
static void add(char *line, size_t len, size_t *used, const char *s)
{
	int n = ksnprintf(line + *used, len - *used, "%s", s);

	if (n > 0)
		*used = *used + (size_t)n < len ? *used + (size_t)n : len - 1;
}

// "PIT: 2.0961 GHz, 8/8 windows agree, spread 0.0210%"
static void describe(const struct candidate *c, const struct rate_ref *r, char *out, size_t len)
{
	char ghz[24];

	put_ghz(ghz, sizeof(ghz), r->hz ? r->hz : c->est.hz);
	if (!c->measured) {
		ksnprintf(out, len, "%s: %s%s", c->name, ghz, r->agrees ? "" : ", disagrees");
		return;
	}
	if (!c->est.hz) {
		ksnprintf(out, len, "%s: no estimate, 0/%d windows agree", c->name, c->est.total);
		return;
	}
	ksnprintf(out, len, "%s: %s, %d/%d windows agree, spread %u.%04u%%%s%s", c->name, ghz,
		  c->est.agree, c->est.total, c->est.spread_ppm / 10000, c->est.spread_ppm % 10000,
		  r->hz ? "" : ", not used (no majority)", r->hz && !r->agrees ? ", disagrees" : "");
}

// CPU 0 reads the RTC's seconds on every tick, with the TSC before and
// after.  When the second has changed, the boundary lies between the
// start of the previous read (which still saw the old second) and the end
// of this one: an edge.  Edges bound the TSC's rate (rate_bounds); a rate
// outside the bounds is wrong by more than the check's own uncertainty,
// and is corrected to the best fit through the edges (rate_fit), unless
// the references outvote the RTC (rtc_check_verdict).
static struct {
	bool done;
	bool started;
	int last_second;		// what the last read saw
	uint64_t last_start;		// TSC before that read
	uint64_t seconds;		// boundaries passed since the first read
	uint64_t began;			// TSC at the first read
	int nedges;
	struct clock_edge edges[RTC_CHECK_SECONDS + 2];
	int corrections;
} rtc;

// Measures every reference and reads every stated rate; returns how many
// candidates there are.
static int gather(struct candidate *cand, struct rate_ref *rates)
{
	static const struct {
		const char *name;
		uint64_t (*get)(void);
		uint32_t error_ppm;
	} stated[] = {
		{ "hypervisor leaf", from_hypervisor, 1 },
		{ "cpuid 0x15", from_cpuid_15, 50 },
		{ "cpuid 0x16", from_cpuid_16, 10000 },
	};
	struct clock_ref refs[3];
	int n = 0, nrefs = clock_refs_find(refs, 3);

	for (int i = 0; i < nrefs; i++, n++) {
		cand[n] = (struct candidate){ refs[i].name, { 0 }, true };
		int rc = clock_ref_measure(&refs[i], &cand[n].est);
		rates[n] = (struct rate_ref){ rc == 0 ? cand[n].est.hz : 0, cand[n].est.error_ppm,
					      false, false };
	}
	clock_refs_done();
	for (unsigned i = 0; i < sizeof(stated) / sizeof(stated[0]); i++) {
		uint64_t rate = stated[i].get();
		if (!rate)
			continue;
		cand[n] = (struct candidate){ stated[i].name, { .hz = rate }, false };
		rates[n++] = (struct rate_ref){ rate, stated[i].error_ppm, true, false };
	}
	return n;
}

// "clock: TSC 2.0960 GHz from the HPET (PIT: ...; PM timer: ...; HPET: ...)"
static void print_choice(const struct candidate *cand, const struct rate_ref *rates, int n,
			 bool guessed)
{
	char line[512], part[128], ghz[24];
	size_t used = 0;

	put_ghz(ghz, sizeof(ghz), hz);
	ksnprintf(part, sizeof(part), "clock: TSC %s %s%s%s (", ghz,
		  guessed ? "guessed, no usable reference" : "from the ", guessed ? "" : source,
		  skew_ppm ? ", skewed by clock_skew" : "");
	add(line, sizeof(line), &used, part);
	for (int i = 0; i < n; i++) {
		describe(&cand[i], &rates[i], part, sizeof(part));
		add(line, sizeof(line), &used, i ? "; " : "");
		add(line, sizeof(line), &used, part);
	}
	add(line, sizeof(line), &used, n ? ")\n" : "no reference)\n");
	kprintf("%s", line);
}

// Keeps what the measured references agree on, and their names, for the
// RTC check.
static void note_agreement(const struct candidate *cand, const struct rate_ref *rates, int n)
{
	size_t used = 0;
	int k = 0;

	if (rate_agreement(rates, n, TOL_PPM, &agreed) != 0)
		return;
	for (int i = 0; i < n; i++) {
		if (!cand[i].measured || !rates[i].hz)
			continue;
		k++;
		add(agreed_names, sizeof(agreed_names), &used,
		    k == 1 ? "" : k == agreed.n ? " and " : ", ");
		add(agreed_names, sizeof(agreed_names), &used, cand[i].name);
	}
}

void tsc_init(void)
{
	struct candidate cand[MAX_REFS];
	struct rate_ref rates[MAX_REFS];
	int n = gather(cand, rates);
	int best = rate_choose(rates, n, TOL_PPM);
	uint64_t rate = 1000000000;

	source = "a guess";
	if (best >= 0) {
		rate = rates[best].hz;
		source = cand[best].name;
	}
	note_agreement(cand, rates, n);
	uint64_t skew = rate / 1000000 * skew_ppm;
	clock_set_rate(skew_down ? rate - skew : rate + skew);
	print_choice(cand, rates, n, best < 0);
	rtc.began = rdtsc();
}

uint64_t tsc_hz(void)
{
	return hz;
}

const char *tsc_source(void)
{
	return source;
}

// ---------------------------------------------------------------- RTC check


// "clock: RTC check after 10 s: TSC between 2.0941 GHz and 2.0979 GHz by the RTC: ..."
static void rtc_check_log(uint64_t lo, uint64_t hi, const char *what)
{
	char l[24], h[24];

	put_ghz(l, sizeof(l), lo);
	put_ghz(h, sizeof(h), hi);
	kprintf("clock: RTC check after %lu s: TSC between %s and %s by the RTC: %s\n",
		rtc.seconds, l, h, what);
}

// The RTC's rate: the fit through the edges, kept within the bounds.
static uint64_t rtc_rate(uint64_t lo, uint64_t hi)
{
	uint64_t rate = rate_fit(rtc.edges, rtc.nedges);

	return rate < lo || rate > hi ? lo + (hi - lo) / 2 : rate;
}

static void rtc_correct(uint64_t lo, uint64_t hi)
{
	char from[24], to[24], what[96];
	uint64_t old = hz, rate = rtc_rate(lo, hi);

	put_ghz(from, sizeof(from), old);
	put_ghz(to, sizeof(to), rate);
	clock_set_rate(rate);
	source = "RTC check";
	rtc.corrections++;
	ksnprintf(what, sizeof(what), "corrected from %s to %s", from, to);
	rtc_check_log(lo, hi, what);
	lapic_timer_rescale(old, rate);
}

// The references outvote the RTC: the check ends with the rate kept.
static void rtc_outvoted(uint64_t lo, uint64_t hi)
{
	char says[24], l[24], h[24], ref[24];

	put_ghz(says, sizeof(says), rtc_rate(lo, hi));
	put_ghz(l, sizeof(l), lo);
	put_ghz(h, sizeof(h), hi);
	put_ghz(ref, sizeof(ref), agreed.hz);
	kprintf("clock: RTC check after %lu s: the RTC says %s (between %s and %s) but %s agreed "
		"on %s within %u.%04u%%: TSC rate kept (the RTC is not on the guest's clock)\n",
		rtc.seconds, says, l, h, agreed_names, ref, agreed.spread_ppm / 10000,
		agreed.spread_ppm % 10000);
	rtc.done = true;
}

static void rtc_check_edge(void)
{
	uint64_t lo, hi;

	if (rate_bounds(rtc.edges, rtc.nedges, &lo, &hi) != 0) {
		if (rtc.nedges >= 2) {
			kprintf("clock: RTC check after %lu s: the RTC's seconds contradict each other "
				"(set meanwhile?); TSC rate kept\n", rtc.seconds);
			rtc.done = true;
		}
		return;
	}
	enum rtc_verdict v = rtc_check_verdict(&agreed, hz, lo, hi, 0);
	if (v == RTC_RATE_KEEP) {
		rtc_outvoted(lo, hi);
		return;
	}
	if (v == RTC_RATE_CORRECT)
		rtc_correct(lo, hi);
	if (rtc.seconds >= RTC_CHECK_SECONDS || rtc.nedges == RTC_CHECK_SECONDS + 2) {
		char rate[24], what[64];
		put_ghz(rate, sizeof(rate), hz);
		ksnprintf(what, sizeof(what), "%s %s", rate, rtc.corrections ? "(corrected)" : "kept");
		rtc_check_log(lo, hi, what);
		rtc.done = true;
	}
}

bool tsc_rtc_done(void)
{
	return rtc.done;
}

static volatile bool rate_test_running;	// the test below changes the rate

// CPU 0, every tick, interrupts off.  While the test below plays with the
// rate, the check looks away (the edges it then misses only widen the
// next one).
void tsc_rtc_tick(void)
{
	if (rtc.done || rate_test_running)
		return;
	uint64_t start = rdtsc_ordered();
	int second = rtc_second();
	uint64_t end = rdtsc_ordered();

	if (end - rtc.began > RTC_GIVE_UP_SECONDS * hz) {
		kprintf("clock: RTC check: no usable RTC within %d s; TSC rate kept\n",
			RTC_GIVE_UP_SECONDS);
		rtc.done = true;
		return;
	}
	if (second < 0)
		return;
	// The second count below is taken modulo a minute: a gap of half a
	// minute between two reads (a stopped machine) starts over.
	if (rtc.started && end - rtc.last_start > RTC_CHECK_SECONDS * 3 * hz) {
		rtc.started = false;
		rtc.nedges = 0;
	}
	if (!rtc.started) {
		rtc.started = true;
		rtc.last_second = second;
		rtc.last_start = start;
		return;
	}
	if (second == rtc.last_second) {
		rtc.last_start = start;
		return;
	}
	rtc.seconds += (uint64_t)((second - rtc.last_second + 60) % 60);
	rtc.edges[rtc.nedges++] = (struct clock_edge){ rtc.seconds, rtc.last_start, end };
	rtc.last_second = second;
	rtc.last_start = start;
	rtc_check_edge();
}

// ---------------------------------------------------------------- tests

static volatile uint64_t latest_seen;		// largest clock value read so far
static volatile int backwards, readers_done;

// Reads the clock in a loop: each read must not be below the largest any
// CPU had read before this one began.  Kernel threads are not preempted:
// it yields now and then, so the test thread on its CPU runs too.
static void monotonic_reader(void *arg)
{
	(void)arg;
	for (unsigned n = 1; rate_test_running; n++) {
		if (n % 256 == 0)
			sched_yield();
		uint64_t before = __atomic_load_n(&latest_seen, __ATOMIC_SEQ_CST);
		uint64_t t = clock_monotonic_ns();
		if (t < before)
			__atomic_add_fetch(&backwards, 1, __ATOMIC_SEQ_CST);
		uint64_t cur = before;
		while (cur < t && !__atomic_compare_exchange_n(&latest_seen, &cur, t, false,
							       __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			;
	}
	__atomic_add_fetch(&readers_done, 1, __ATOMIC_SEQ_CST);
}

// A reader on 'cpu' and nowhere else (one from kthread_create may be
// pulled to another CPU before it first runs).
static struct thread *reader_on(int cpu)
{
	struct thread *t = thread_alloc("clock-reader");

	if (!t)
		return 0;
	arch_thread_init(t, monotonic_reader, 0);
	t->cpu = cpu;
	t->affinity = cpumask_of(cpu);
	sched_start(t);
	return t;
}

// A correction of the rate (what the RTC check does) keeps the clock
// monotonic on every CPU, read concurrently from all of them.  Runs on the
// boot thread, on CPU 0 like the RTC check, so the two never overlap.
KTEST(time, clock_monotonic_across_rate_changes)
{
	uint64_t rate = hz;
	int readers = 0;

	backwards = 0;
	readers_done = 0;
	latest_seen = 0;
	rate_test_running = true;
	for (int i = 0; i < ncpus; i++)
		if (cpus[i].online && reader_on(i))
			readers++;
	for (int round = 0; round < 200; round++) {
		clock_set_rate(round % 2 ? rate / 10 * 11 : rate / 10 * 9);
		for (int i = 0; i < 20; i++)
			sched_yield();
	}
	clock_set_rate(rate);
	rate_test_running = false;
	while (readers_done < readers)
		sched_yield();
	KEXPECT(readers == ncpus_online);
	KEXPECT(backwards == 0);
	KEXPECT(hz == rate);
	return true;
}
