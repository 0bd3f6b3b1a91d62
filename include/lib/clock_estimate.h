// Robust rate estimates for clock calibration: the arithmetic behind
// arch/x86_64/tsc.c, kept pure (no hardware, no globals) so that
// tests/host/test_clock_estimate.c can try it on made-up measurements.
//
// A "rate" is counts per second of the clock being calibrated (the TSC's
// frequency in Hz).  Ratios are in parts per million (ppm).
#ifndef LIB_CLOCK_ESTIMATE_H
#define LIB_CLOCK_ESTIMATE_H

#include <stdint.h>
#include <stdbool.h>

#define EST_MAX_SAMPLES 32

struct rate_estimate {
	uint64_t hz;		// median of the samples that agree
	uint32_t spread_ppm;	// their scatter: 1.4826 * MAD / median
	uint32_t error_ppm;	// uncertainty of hz: spread / sqrt(agree), >= 1
	int agree;		// samples that agree with the median
	int total;		// samples offered (rejected ones included)
};

// Sorts v[0..n) and returns its median (the lower middle one for even n).
uint64_t median_u64(uint64_t *v, int n);

// |a - b| relative to b, in ppm (saturating).
uint32_t diff_ppm(uint64_t a, uint64_t b);

// ticks * ref_hz / counts, without overflow; 0 if counts is 0.
uint64_t rate_from_counts(uint64_t ticks, uint64_t counts, uint64_t ref_hz);

// Estimates a rate from n usable samples (at most EST_MAX_SAMPLES);
// 'total' is how many windows were attempted (>= n), for reporting.  A
// sample agrees when it is within max(3 * 1.4826 * MAD, tol_ppm) of the
// median of all n, but never further than 16 * tol_ppm: samples scattered
// all over agree on nothing.  Returns 0 when at least 3 samples, and more
// than half of the n, agree; -1 otherwise (out is filled either way; hz
// is 0 when no sample agrees).
int rate_estimate(const uint64_t *samples, int n, int total, uint32_t tol_ppm,
		  struct rate_estimate *out);

// One calibration window: two reads of a reference, each bracketed by two
// TSC reads, with the reference polled in between.
struct cal_window {
	uint64_t ticks;		// TSC ticks between the middles of the brackets
	uint64_t counts;	// reference counts between the two reads (0: unusable)
	uint64_t max_gap;	// longest TSC stretch between two polls
};

// A first, coarse rate from short probe windows against a reference of
// ref_hz: only probes whose polling was continuous (no stretch longer than
// an eighth of the probe, so nothing could hide a wrap of the counter)
// count.  Returns rate_estimate()'s verdict with a tolerance of 0.5 %.
int probe_estimate(const struct cal_window *w, int n, uint64_t ref_hz,
		   struct rate_estimate *out);

// A stretch of 'gap' TSC ticks between two polls of a counter that wraps
// every 'wrap' counts read 'counted' counts (modulo wrap).  With the TSC's
// rate known to err_ppm, the whole wraps it hid are the ones that bring it
// closest to gap * ref_hz / tsc_hz.  Returns the true count, or UINT64_MAX
// when the stretch is too long for that to be certain (the expected count
// uncertain by a quarter of a wrap or more).
uint64_t unwrap_counts(uint64_t gap, uint64_t counted, uint64_t wrap, uint64_t ref_hz,
		       uint64_t tsc_hz, uint32_t err_ppm);

// The estimate from measured windows (their counts already unwrapped):
// rate_estimate() of ticks * ref_hz / counts over the usable ones, of n.
int calibrate_from_windows(const struct cal_window *w, int n, uint64_t ref_hz,
			   uint32_t tol_ppm, struct rate_estimate *out);

// A candidate rate for the clock, from one reference.
struct rate_ref {
	uint64_t hz;		// 0: this reference gave nothing
	uint32_t error_ppm;	// its uncertainty
	bool declared;		// a stated rate (CPUID), not a measurement
	bool agrees;		// out: consistent with the chosen rate
};

// Picks the most trustworthy reference: the measurement with the smallest
// error, or a declared rate with a smaller one that this measurement
// confirms (within max(tol_ppm, 3 * (sum of both errors))).  With no
// measurement, the declared rate with the smallest error.  Sets every
// reference's 'agrees'.  Returns the index chosen, or -1 if none has a rate.
int rate_choose(struct rate_ref *refs, int n, uint32_t tol_ppm);

// What the measured references (timers the TSC was compared against, not
// stated rates) say together.
struct ref_agreement {
	uint64_t hz;		// their agreed rate, the median; 0: no agreement
	uint32_t spread_ppm;	// the widest distance between two of them
	uint32_t width_ppm;	// how far the calibration may be off, at most: the
				// largest tolerance a pair of them was allowed
	int n;			// measured references that gave a rate
};

// The references agree when at least two measured ones gave a rate and
// every pair of them is consistent as in rate_choose (within max(tol_ppm,
// 3 * the sum of their errors)).  Returns 0, or -1 without agreement
// (out->hz is then 0).
int rate_agreement(const struct rate_ref *refs, int n, uint32_t tol_ppm,
		   struct ref_agreement *out);

// What the RTC check does with the rate in use, given the RTC's bounds.
enum rtc_verdict {
	RTC_RATE_INSIDE,	// within the bounds: nothing to do
	RTC_RATE_CORRECT,	// outside: correct it to the RTC's rate
	RTC_RATE_KEEP,		// outside, but the RTC is not on the guest's clock
};

// The RTC disagrees "far" beyond this (1 %): more than the widest scatter
// (0.8 %) rate_estimate lets windows agree within, so no calibration error.
#define RTC_FAR_PPM	10000

// The rule (docs/architecture.md, "The clock"): a rate in use outside the
// RTC's bounds [lo, hi] is kept when the measured references agree (a),
// the rate in use is theirs, within a->width_ppm, and the bounds miss
// their agreed rate by more than max(RTC_FAR_PPM, 10 * a->width_ppm);
// else it is corrected.  *gap_ppm (if not null) is set to how far the
// bounds miss the agreed rate (0 if they hold it, or without agreement).
enum rtc_verdict rtc_check_verdict(const struct ref_agreement *a, uint64_t in_use,
				   uint64_t lo, uint64_t hi, uint32_t *gap_ppm);

// A second boundary of a slow reference (the RTC), seen by the clock: at
// the 'second'-th boundary the clock read between lo and hi.
struct clock_edge {
	uint64_t second;
	uint64_t lo, hi;
};

// The clock's rate in counts per second must lie in [*lo, *hi] for every
// pair of edges; this intersects those bounds.  Returns 0, or -1 with fewer
// than two edges or bounds that contradict each other (a reference that
// jumped).
int rate_bounds(const struct clock_edge *e, int n, uint64_t *lo, uint64_t *hi);

// The best single rate the edges give: the least-squares slope through
// the middles of their intervals (each off by at most half its width, so
// errors average out where the bounds only take the worst case), leaving
// out edges more than twice as wide as the median one (seen through a
// stall).  For at most 16 edges within 64 s of each other; 0 if the ones
// used span less than a second.
uint64_t rate_fit(const struct clock_edge *e, int n);

#endif
