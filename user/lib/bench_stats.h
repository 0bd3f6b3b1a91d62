// Order statistics for the latency benchmarks (timerbench, wakebench,
// fairbench): samples are kept in nanoseconds, sorted once, then read as
// minimum, median, 90th percentile and maximum; and the name of an errno for the
// "unsupported=" field of a RESULT line; the options' comma-separated
// lists.  Header-only, like bench_util.h.
#ifndef USER_BENCH_STATS_H
#define USER_BENCH_STATS_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct stats {
	double min, median, p90, max;
};

static inline int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

// The sample at fraction 'q' of the sorted array (nearest rank), so every
// figure printed is one that was measured.
static inline double sorted_quantile(const double *v, int n, double q)
{
	int i = (int)(q * (double)n + 0.999999) - 1;

	if (i < 0)
		i = 0;
	if (i >= n)
		i = n - 1;
	return v[i];
}

// Sort 'v' in place and summarise it; all zero when there are no samples.
static inline struct stats summarise(double *v, int n)
{
	struct stats s = { 0, 0, 0, 0 };

	if (n <= 0)
		return s;
	qsort(v, (size_t)n, sizeof(*v), compare_doubles);
	s.min = v[0];
	s.median = sorted_quantile(v, n, 0.5);
	s.p90 = sorted_quantile(v, n, 0.9);
	s.max = v[n - 1];
	return s;
}

// The symbolic name of the errnos a call the kernel lacks may give.
static inline const char *errno_name(int err)
{
	switch (err) {
	case ENOSYS: return "ENOSYS";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case EAGAIN: return "EAGAIN";
	default: return "other";
	}
}

// Is 'word' in the comma-separated 'list' (NULL: everything is)?
static inline int listed(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p;) {
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == 0))
			return 1;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return list == NULL;
}

#endif
