// In-kernel tests.  Each test is a function placed in the .ktests section;
// kernel/test/ktest.c runs the ones selected by the test= boot option and
// prints KTAP.  A test returns true on success.
#ifndef KERNEL_KTEST_H
#define KERNEL_KTEST_H

#include <stdbool.h>

struct ktest {
	const char *suite;	// group, matched by test=SUITE or test=SUITE.NAME
	const char *name;
	bool (*fn)(void);
	bool expect_panic;	// the test passes only if it panics as expected
};

// Declares and registers a test:  KTEST(mm, buddy_stress) { ... return true; }
#define KTEST(suite_, name_)						\
	static bool ktest_fn_##name_(void);				\
	static const struct ktest ktest_##name_				\
	    __attribute__((used, section(".ktests"), aligned(8))) =	\
	    { #suite_, #name_, ktest_fn_##name_, false };		\
	static bool ktest_fn_##name_(void)

// A test that must end in a kernel panic whose message contains 'expect'
// (see ktest_expect_panic()); it is run on its own boot by the host runner.
#define KTEST_PANIC(suite_, name_)					\
	static bool ktest_fn_##name_(void);				\
	static const struct ktest ktest_##name_				\
	    __attribute__((used, section(".ktests"), aligned(8))) =	\
	    { #suite_, #name_, ktest_fn_##name_, true };		\
	static bool ktest_fn_##name_(void)

// Fail the current test with a message naming the condition and its line.
#define KEXPECT(cond)							\
	do {								\
		if (!(cond)) {						\
			ktest_failed(__FILE__, __LINE__, #cond);	\
			return false;					\
		}							\
	} while (0)

void ktest_failed(const char *file, int line, const char *what);
// The running test checks nothing here (say, one CPU where it needs two):
// it is reported as skipped, with why, when it returns true.
void ktest_skip(const char *why);
// Runs the tests chosen with the test= boot option, if any.
void ktest_run_selected(void);

#endif
