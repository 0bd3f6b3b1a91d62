// Whole-program watchdog for Switchyard's test programs that run their
// cases one after another without the per-case runner of testcase.h
// (threads, futex, signals, sched, vecsig, cpustat).  If the program has
// not finished in time, the SIGALRM handler prints a KTAP "Bail out!"
// and exits with status 2, so a hang fails the program instead of
// stalling the whole test run.  Header-only, like ktap.h.
#ifndef USER_WATCHDOG_H
#define USER_WATCHDOG_H

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "ktap.h"

// Built before the alarm is set, because the handler may only call
// async-signal-safe functions such as write(2).
static char watchdog_message[128];
static size_t watchdog_message_len;

static inline void watchdog_fired(int sig)
{
	(void)sig;
	if (write(1, watchdog_message, watchdog_message_len) < 0)
		_exit(3);
	_exit(2);
}

// Give the program 'seconds' to finish; 'program' names it in the message.
static inline void start_watchdog(const char *program, unsigned seconds)
{
	int len = snprintf(watchdog_message, sizeof(watchdog_message),
			   "# watchdog: %s took too long\nBail out!\n", program);

	if (len < 0 || (size_t)len >= sizeof(watchdog_message))
		len = (int)sizeof(watchdog_message) - 1;
	watchdog_message_len = (size_t)len;
	signal(SIGALRM, watchdog_fired);
	alarm(seconds);
}

// Stop the watchdog and report, as one more KTAP case that the plan must
// count, whether the program finished before it would have fired.
static inline void finish_watchdog(void)
{
	ktap_result(alarm(0) > 0, "finished_before_watchdog");
}

#endif
