// Robust rate estimates for clock calibration (see include/lib/clock_estimate.h).
//
// Everything here is integer arithmetic on measurements handed in by the
// caller: medians, median absolute deviations (MAD; 1.4826 * MAD is the
// standard deviation of normally distributed samples, and unlike it one
// wild sample cannot move it), and interval bounds.

#include <lib/clock_estimate.h>

#define PPM 1000000ULL

// a * b / c (c != 0), saturating at UINT64_MAX.  The product has 128
// bits; the kernel has no libgcc for a 128-bit division, so this divides
// bit by bit (calibration is not a hot path).
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	unsigned __int128 p = (unsigned __int128)a * b;
	uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p;
	uint64_t q = 0, r = hi;

	if (hi >= c)
		return UINT64_MAX;
	for (int i = 63; i >= 0; i--) {
		bool carry = r >> 63;		// r << 1 needs 65 bits
		r = (r << 1) | ((lo >> i) & 1);
		q <<= 1;
		if (carry || r >= c) {
			r -= c;
			q |= 1;
		}
	}
	return q;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static uint32_t isqrt(uint32_t n)
{
	uint32_t r = 0;

	while ((uint64_t)(r + 1) * (r + 1) <= n)
		r++;
	return r;
}

uint64_t median_u64(uint64_t *v, int n)
{
	if (n <= 0)
		return 0;
	for (int i = 1; i < n; i++) {		// insertion sort: n is small
		uint64_t x = v[i];
		int j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	if (n % 2)
		return v[n / 2];
	uint64_t a = v[n / 2 - 1], b = v[n / 2];
	return a + (b - a) / 2;
}

uint32_t diff_ppm(uint64_t a, uint64_t b)
{
	if (b == 0)
		return a == 0 ? 0 : UINT32_MAX;
	uint64_t r = muldiv(absdiff(a, b), PPM, b);
	return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

uint64_t rate_from_counts(uint64_t ticks, uint64_t counts, uint64_t ref_hz)
{
	if (counts == 0)
		return 0;
	return muldiv(ticks, ref_hz, counts);
}

// 1.4826 * MAD of v[0..n) around 'center'.
static uint64_t sigma_around(const uint64_t *v, int n, uint64_t center)
{
	uint64_t dev[EST_MAX_SAMPLES];

	for (int i = 0; i < n; i++)
		dev[i] = absdiff(v[i], center);
	return muldiv(median_u64(dev, n), 14826, 10000);
}

int rate_estimate(const uint64_t *samples, int n, int total, uint32_t tol_ppm,
		  struct rate_estimate *out)
{
	uint64_t v[EST_MAX_SAMPLES], kept[EST_MAX_SAMPLES];
	int k = 0;

	if (n > EST_MAX_SAMPLES)
		n = EST_MAX_SAMPLES;
	if (n < 0)
		n = 0;
	if (total < n)
		total = n;
	*out = (struct rate_estimate){ .total = total };
	if (n == 0)
		return -1;
	for (int i = 0; i < n; i++)
		v[i] = samples[i];
	uint64_t med = median_u64(v, n);
	uint64_t limit = 3 * sigma_around(v, n, med);
	uint64_t floor = muldiv(med, tol_ppm, PPM);
	if (limit < floor)
		limit = floor;
	if (limit > 16 * floor)		// samples all over the place agree on nothing
		limit = 16 * floor;
	for (int i = 0; i < n; i++)
		if (absdiff(samples[i], med) <= limit)
			kept[k++] = samples[i];
	if (k == 0)
		return -1;
	out->hz = median_u64(kept, k);
	out->agree = k;
	uint64_t spread = muldiv(sigma_around(kept, k, out->hz), PPM, out->hz ? out->hz : 1);
	out->spread_ppm = spread > UINT32_MAX ? UINT32_MAX : (uint32_t)spread;
	out->error_ppm = out->spread_ppm / isqrt((uint32_t)k);
	if (out->error_ppm == 0)
		out->error_ppm = 1;
	return k >= 3 && 2 * k > n ? 0 : -1;
}

int probe_estimate(const struct cal_window *w, int n, uint64_t ref_hz,
		   struct rate_estimate *out)
{
	uint64_t continuous[EST_MAX_SAMPLES];
	int k = 0;

	if (n > EST_MAX_SAMPLES)
		n = EST_MAX_SAMPLES;
	for (int i = 0; i < n; i++)
		if (w[i].ticks && w[i].counts && w[i].max_gap <= w[i].ticks / 8)
			continuous[k++] = rate_from_counts(w[i].ticks, w[i].counts, ref_hz);
	return rate_estimate(continuous, k, n, 5000, out);
}

uint64_t unwrap_counts(uint64_t gap, uint64_t counted, uint64_t wrap, uint64_t ref_hz,
		       uint64_t tsc_hz, uint32_t err_ppm)
{
	if (tsc_hz == 0 || wrap == 0)
		return UINT64_MAX;
	uint64_t expected = muldiv(gap, ref_hz, tsc_hz);
	uint64_t doubt = muldiv(expected, err_ppm, PPM) + 2;
	if (doubt >= wrap / 4)
		return UINT64_MAX;
	if (expected <= counted)
		return counted;
	uint64_t k = (expected - counted + wrap / 2) / wrap;
	return counted + k * wrap;
}

int calibrate_from_windows(const struct cal_window *w, int n, uint64_t ref_hz,
			   uint32_t tol_ppm, struct rate_estimate *out)
{
	uint64_t hz[EST_MAX_SAMPLES];
	int k = 0;

	if (n > EST_MAX_SAMPLES)
		n = EST_MAX_SAMPLES;
	for (int i = 0; i < n; i++)
		if (w[i].ticks && w[i].counts)
			hz[k++] = rate_from_counts(w[i].ticks, w[i].counts, ref_hz);
	return rate_estimate(hz, k, n, tol_ppm, out);
}

// The tolerance two references are allowed: max(tol_ppm, 3 * the sum of
// their errors).
static uint32_t pair_tolerance(const struct rate_ref *a, const struct rate_ref *b, uint32_t tol_ppm)
{
	uint64_t allowed = 3 * ((uint64_t)a->error_ppm + b->error_ppm);

	if (allowed < tol_ppm)
		allowed = tol_ppm;
	return allowed > UINT32_MAX ? UINT32_MAX : (uint32_t)allowed;
}

static bool consistent(const struct rate_ref *a, const struct rate_ref *b, uint32_t tol_ppm)
{
	return diff_ppm(a->hz, b->hz) <= pair_tolerance(a, b, tol_ppm);
}

int rate_choose(struct rate_ref *refs, int n, uint32_t tol_ppm)
{
	int best = -1;

	for (int i = 0; i < n; i++) {		// the best measurement
		if (!refs[i].hz || refs[i].declared)
			continue;
		if (best < 0 || refs[i].error_ppm < refs[best].error_ppm)
			best = i;
	}
	int measured = best;
	for (int i = 0; i < n; i++) {		// a better declared rate
		if (!refs[i].hz || !refs[i].declared)
			continue;
		if (measured >= 0 && !consistent(&refs[i], &refs[measured], tol_ppm))
			continue;
		if (best < 0 || refs[i].error_ppm < refs[best].error_ppm)
			best = i;
	}
	for (int i = 0; i < n; i++)
		refs[i].agrees = best >= 0 && refs[i].hz && consistent(&refs[i], &refs[best], tol_ppm);
	return best;
}

int rate_agreement(const struct rate_ref *refs, int n, uint32_t tol_ppm,
		   struct ref_agreement *out)
{
	uint64_t hz[EST_MAX_SAMPLES];
	const struct rate_ref *m[EST_MAX_SAMPLES];
	int k = 0;

	*out = (struct ref_agreement){ 0 };
	for (int i = 0; i < n && k < EST_MAX_SAMPLES; i++)
		if (refs[i].hz && !refs[i].declared)
			m[k++] = &refs[i];
	out->n = k;
	if (k < 2)
		return -1;
	uint32_t spread = 0, width = 0;
	for (int i = 0; i < k; i++) {
		hz[i] = m[i]->hz;
		for (int j = i + 1; j < k; j++) {
			uint32_t d = diff_ppm(m[i]->hz, m[j]->hz);
			uint32_t allowed = pair_tolerance(m[i], m[j], tol_ppm);
			if (d > allowed)
				return -1;
			if (d > spread)
				spread = d;
			if (allowed > width)
				width = allowed;
		}
	}
	out->hz = median_u64(hz, k);
	out->spread_ppm = spread;
	out->width_ppm = width;
	return 0;
}

// The rule.  A rate in use outside the RTC's bounds is kept when all of
// these hold:
//  - the measured references agree (a->hz): separate timers, each compared
//    with the TSC on its own, agree within their errors;
//  - the rate in use is theirs, within a->width_ppm (not clock_skew's, not
//    a guess);
//  - the bounds miss their rate by more than max(1 %, 10 x width): more
//    than any calibration error could.
// Then the RTC is the odd one out, and does not keep the guest's time
// (QEMU's -icount without -rtc clock=vm: the RTC follows the host, the
// rest the instruction count); the boot calibration stands, as in Linux,
// which never lets the RTC re-calibrate the TSC.  Otherwise the RTC is the
// best witness left (one reference, references at odds, a rate they do
// not confirm, a gap that a calibration error could explain): correct.
enum rtc_verdict rtc_check_verdict(const struct ref_agreement *a, uint64_t in_use,
				   uint64_t lo, uint64_t hi, uint32_t *gap_ppm)
{
	uint32_t gap = 0;

	if (a->hz && a->hz < lo)
		gap = diff_ppm(lo, a->hz);
	else if (a->hz && a->hz > hi)
		gap = diff_ppm(hi, a->hz);
	if (gap_ppm)
		*gap_ppm = gap;
	if (in_use >= lo && in_use <= hi)
		return RTC_RATE_INSIDE;
	if (!a->hz || diff_ppm(in_use, a->hz) > a->width_ppm)
		return RTC_RATE_CORRECT;
	uint64_t far = 10 * (uint64_t)a->width_ppm;
	if (far < RTC_FAR_PPM)
		far = RTC_FAR_PPM;
	return gap > far ? RTC_RATE_KEEP : RTC_RATE_CORRECT;
}

int rate_bounds(const struct clock_edge *e, int n, uint64_t *lo, uint64_t *hi)
{
	uint64_t low = 0, high = UINT64_MAX;
	int pairs = 0;

	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++) {
			if (e[j].second <= e[i].second)
				continue;
			uint64_t k = e[j].second - e[i].second;
			if (e[j].hi < e[i].lo)
				return -1;	// later boundary seen earlier
			uint64_t l = e[j].lo > e[i].hi ? (e[j].lo - e[i].hi) / k : 0;
			uint64_t h = (e[j].hi - e[i].lo + k - 1) / k;
			if (l > low)
				low = l;
			if (h < high)
				high = h;
			pairs++;
		}
	}
	if (pairs == 0 || low > high)
		return -1;
	*lo = low;
	*hi = high;
	return 0;
}

uint64_t rate_fit(const struct clock_edge *e, int n)
{
	int64_t sum_s = 0, sum_m = 0, sum_ss = 0, sum_sm = 0;
	uint64_t width[16];
	int used = 0;

	if (n < 2 || n > 16)
		return 0;
	// Edges seen through a stall (an interval much wider than most) would
	// pull the line about: leave them to rate_bounds.
	for (int i = 0; i < n; i++)
		width[i] = e[i].hi - e[i].lo;
	uint64_t limit = 2 * median_u64(width, n) + 1;
	// Relative to the first edge, the numbers stay small: seconds below
	// 64, ticks below 64 s at 10 GHz, so no sum below overflows.
	uint64_t s0 = e[0].second, m0 = e[0].lo + (e[0].hi - e[0].lo) / 2;
	for (int i = 0; i < n; i++) {
		if (e[i].hi - e[i].lo > limit)
			continue;
		used++;
		int64_t s = (int64_t)(e[i].second - s0);
		int64_t m = (int64_t)(e[i].lo + (e[i].hi - e[i].lo) / 2 - m0);
		sum_s += s;
		sum_m += m;
		sum_ss += s * s;
		sum_sm += s * m;
	}
	int64_t den = used * sum_ss - sum_s * sum_s;
	int64_t num = used * sum_sm - sum_s * sum_m;
	if (den <= 0 || num <= 0)
		return 0;
	return (uint64_t)((num + den / 2) / den);
}
