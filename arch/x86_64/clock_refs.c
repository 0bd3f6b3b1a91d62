// Clock references for calibrating the TSC, and how they are read.
//
// Under a hypervisor the vCPU can be descheduled at any instruction, for
// milliseconds or more (on a loaded host, most 5 ms windows contain a
// stall of 10 to 150 ms).  A reference read is only trusted when the two
// TSC reads around it are close together (a tight bracket), so nothing
// happened between the reference and the TSC.  A window is a tight read,
// polling of the reference for 5 ms of its own time, and another tight
// read; it gives one estimate of the TSC's rate.  Polling counts the
// counter's wrap-arounds, but a stall longer than a wrap (55 ms for the
// PIT) hides some: short probe windows first give a rate good to a
// fraction of a percent (only stall-free probes count), and with it the
// length of a stall in TSC ticks tells how many wraps it hid.  Then
// kernel/lib/clock_estimate.c turns the windows into one estimate,
// rejecting outliers.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/acpi.h>
#include <arch/mmu.h>
#include <arch/clock_refs.h>
#include <kernel/console.h>

#define PIT_HZ		1193182
#define PIT_CH0		0x40
#define PIT_CMD		0x43
#define PM_TIMER_HZ	3579545

#define HPET_CAPS	0x000	// bits 63:32: the counter's period in fs
#define HPET_CONFIG	0x010	// bit 0: the main counter runs
#define HPET_COUNTER	0x0f0
#define HPET_MAX_PERIOD	100000000ULL	// fs: the spec's slowest, 10 MHz

#define WINDOW_PER_S	200	// a window is 1/200 s (5 ms) of reference time
#define WINDOWS		8	// windows per round
#define MAX_WINDOWS	24	// rounds until a majority agrees, at most
#define PROBE_PER_S	4096	// a probe is 1/4096 s (244 us)
#define PROBES		8
#define MAX_PROBES	32
#define TOL_PPM		500	// windows this close (0.05 %) always agree
#define STUCK_POLLS	10000	// reads without a change: not counting

static uint16_t pm_port;
static uint32_t pm_mask;
static volatile uint32_t *hpet;
static uint32_t hpet_config_saved;

uint64_t rdtsc_ordered(void)
{
	__asm__ volatile("mfence; lfence" ::: "memory");
	uint64_t t = rdtsc();
	__asm__ volatile("lfence" ::: "memory");
	return t;
}

// The PIT's channel 0 in mode 2 with a reload of 0 (65536) counts down
// through every 16-bit value; negated, it counts up modulo 65536.
static void pit_start(void)
{
	outb(PIT_CMD, 0x34);		// channel 0, low then high byte, mode 2
	outb(PIT_CH0, 0);
	outb(PIT_CH0, 0);
}

static uint32_t pit_read(void)
{
	outb(PIT_CMD, 0x00);		// latch channel 0
	uint8_t lo = inb(PIT_CH0);
	uint8_t hi = inb(PIT_CH0);
	return (uint16_t)-(uint16_t)(hi << 8 | lo);
}

static uint32_t pm_read(void)
{
	uint32_t v;

	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(pm_port));
	return v & pm_mask;
}

static uint32_t hpet_read(void)
{
	return hpet[HPET_COUNTER / 4];
}

// Maps the HPET and starts its main counter; 0 if it is unusable, else its
// rate.
static uint64_t hpet_start(void)
{
	if (!acpi.hpet_pa)
		return 0;
	hpet = mmio_map(acpi.hpet_pa, 1024);
	uint64_t period = hpet[HPET_CAPS / 4 + 1];
	if (period == 0 || period > HPET_MAX_PERIOD) {
		hpet = 0;
		return 0;
	}
	hpet_config_saved = hpet[HPET_CONFIG / 4];
	hpet[HPET_CONFIG / 4] = hpet_config_saved | 1;
	return 1000000000000000ULL / period;
}

int clock_refs_find(struct clock_ref *refs, int max)
{
	int n = 0;

	pit_start();
	if (n < max)
		refs[n++] = (struct clock_ref){ "PIT", PIT_HZ, 1 << 16, pit_read };
	if (acpi.pm_timer_port && n < max) {
		pm_port = acpi.pm_timer_port;
		pm_mask = acpi.pm_timer_bits == 32 ? 0xffffffffu : 0xffffffu;
		refs[n++] = (struct clock_ref){ "PM timer", PM_TIMER_HZ, (uint64_t)pm_mask + 1,
						pm_read };
	}
	uint64_t hpet_hz = hpet_start();
	if (hpet_hz && n < max)
		refs[n++] = (struct clock_ref){ "HPET", hpet_hz, 1ULL << 32, hpet_read };
	return n;
}

void clock_refs_done(void)
{
	if (hpet)
		hpet[HPET_CONFIG / 4] = hpet_config_saved;
}

uint64_t clock_tight_limit(uint32_t (*read)(void))
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 16; i++) {
		uint64_t a = rdtsc_ordered();
		read();
		uint64_t b = rdtsc_ordered();
		if (b - a < best)
			best = b - a;
	}
	return 3 * best + 16;
}

bool clock_read_tight(uint32_t (*read)(void), uint64_t limit, struct bracketed *s)
{
	for (int i = 0; i < 64; i++) {
		uint64_t a = rdtsc_ordered();
		uint32_t v = read();
		uint64_t b = rdtsc_ordered();
		if (b - a <= limit) {
			s->tsc = a + (b - a) / 2;
			s->width = b - a;
			s->value = v;
			return true;
		}
	}
	return false;
}

// A first rate and how far it may be off, for unwrapping stalls.
struct first_rate {
	uint64_t hz;
	uint32_t err_ppm;
	uint64_t quarter_wrap;		// TSC ticks in a quarter wrap, about
};

// One window of 'target' reference counts; false if no tight read could
// be had, the reference does not count, or a stall was too long to tell
// how often the counter wrapped in it.  Without a first rate (probes), a
// stall is counted as read: such a probe is not continuous and not used.
static bool measure_window(const struct clock_ref *r, uint64_t limit, uint64_t target,
			   const struct first_rate *first, struct cal_window *w)
{
	struct bracketed start, end;
	uint64_t mask = r->wrap - 1, counts = 0, max_gap = 0, stuck = 0;

	*w = (struct cal_window){ 0, 0, 0 };
	if (!clock_read_tight(r->read, limit, &start))
		return false;
	uint32_t prev = start.value;
	uint64_t prev_tsc = start.tsc;
	for (;;) {
		uint32_t v;
		uint64_t t;
		bool last = counts >= target;
		if (last) {
			if (!clock_read_tight(r->read, limit, &end))
				return false;
			v = end.value;
			t = end.tsc;
		} else {
			v = r->read();
			t = rdtsc();
		}
		uint64_t d = (v - prev) & mask, gap = t - prev_tsc;
		if (first && gap > first->quarter_wrap) {
			d = unwrap_counts(gap, d, r->wrap, r->hz, first->hz, first->err_ppm);
			if (d == UINT64_MAX)
				return false;
		}
		stuck = d ? 0 : stuck + 1;
		if (stuck > STUCK_POLLS)
			return false;
		counts += d;
		if (gap > max_gap)
			max_gap = gap;
		prev = v;
		prev_tsc = t;
		if (last)
			break;
	}
	w->ticks = end.tsc - start.tsc;
	w->counts = counts;
	w->max_gap = max_gap;
	return true;
}

// Probes (a quarter millisecond each) until at least three ran without a
// stall; their rate is good to a fraction of a percent, enough to count
// the wraps a stall hides in a long window.
static bool first_rate(const struct clock_ref *r, uint64_t limit, struct first_rate *f)
{
	struct cal_window w[MAX_PROBES];
	struct rate_estimate est;
	int n = 0;

	while (n < MAX_PROBES) {
		for (int i = 0; i < PROBES; i++, n++)
			measure_window(r, limit, r->hz / PROBE_PER_S, 0, &w[n]);
		if (probe_estimate(w, n, r->hz, &est) == 0)
			break;
	}
	if (!est.hz || est.agree < 3)
		return false;
	f->hz = est.hz;
	f->err_ppm = 3 * est.spread_ppm + 2000;
	f->quarter_wrap = rate_from_counts(r->wrap / 4, r->hz, est.hz);
	return true;
}

int clock_ref_measure(const struct clock_ref *r, struct rate_estimate *est)
{
	struct cal_window w[MAX_WINDOWS];
	struct first_rate first;
	uint64_t limit = clock_tight_limit(r->read);
	int n = 0, rc = -1;

	*est = (struct rate_estimate){ 0 };
	if (!first_rate(r, limit, &first))
		return -1;
	while (n < MAX_WINDOWS) {
		for (int i = 0; i < WINDOWS; i++, n++)
			measure_window(r, limit, r->hz / WINDOW_PER_S, &first, &w[n]);
		rc = calibrate_from_windows(w, n, r->hz, TOL_PPM, est);
		if (rc == 0)
			break;
	}
	return rc;
}
