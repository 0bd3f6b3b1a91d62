// Minimal KTAP output for host unit tests.
#ifndef HOST_KTAP_H
#define HOST_KTAP_H

#include <stdio.h>

static int ktap_n;
static int ktap_failed;

static inline void ktap_plan(int n)
{
	printf("KTAP version 1\n1..%d\n", n);
}

// Report one test case; returns its result so callers can chain.
static inline int ktap_ok(int cond, const char *name)
{
	ktap_n++;
	if (!cond)
		ktap_failed++;
	printf("%sok %d %s\n", cond ? "" : "not ", ktap_n, name);
	return cond;
}

static inline int ktap_exit(void)
{
	fflush(stdout);
	return ktap_failed ? 1 : 0;
}

#endif
