// KTAP output for Switchyard's userland tests.  Header-only so every test
// program stays a single static binary.
#ifndef USER_KTAP_H
#define USER_KTAP_H

#include <stdarg.h>
#include <stdio.h>

static int ktap_count;
static int ktap_failures;

static inline void ktap_plan(int n)
{
	printf("KTAP version 1\n1..%d\n", n);
	fflush(stdout);
}

// Report one result.  'fmt' names the test case.
static inline int ktap_result(int ok, const char *fmt, ...)
{
	va_list ap;

	ktap_count++;
	if (!ok)
		ktap_failures++;
	printf("%sok %d ", ok ? "" : "not ", ktap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return ok;
}

static inline void ktap_skip(const char *name, const char *why)
{
	ktap_count++;
	printf("ok %d %s # SKIP %s\n", ktap_count, name, why);
	fflush(stdout);
}

// Diagnostic line, ignored by the summariser.
static inline void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline int ktap_finish(void)
{
	fflush(stdout);
	return ktap_failures ? 1 : 0;
}

#endif
