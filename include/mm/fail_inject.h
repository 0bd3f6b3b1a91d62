// Allocation-failure injection: makes frame_alloc and kmalloc fail on
// purpose, so that every caller's out-of-memory path gets run.
//
// Boot options (documented in docs/testing.md):
//	fail_alloc=P		fail each allocation with probability P percent
//				(0 < P <= 100, up to four decimals: 0.05)
//	fail_alloc=every:N	fail every Nth allocation (N >= 1)
//	fail_seed=S		seed of the decisions (default 1); with every:N it
//				is the phase: the first failure is call N - S % N
//
// The option arms itself when init starts: the allocations of the boot
// (page tables, the initramfs, the first process) must succeed, and the
// kernel panics on purpose when they do not, so failing them tests
// nothing.  init (PID 1) is exempt: it is the harness that reports what
// happened, and its death would end the boot.  The decision for the k-th
// allocation call is a pure function of (seed, k): one CPU running the
// same program makes the same calls and sees the same failures; with
// several CPUs the order of the calls, and so which caller gets which
// failure, depends on timing.
//
// /proc/switchyard/fail_alloc shows the state and counters, and takes
// commands (one per write): "off", "P" or "every:N" (arm at once),
// "seed S", and "self K": the calling thread's next K allocations succeed
// and the one after fails (once), whatever the global mode; tests use it
// to fail each allocation of a system call in turn ("self off" cancels
// it; "off" cancels it and the global mode).  The file's "self" line
// says what became of it: pending, fired, void (the thread executed a
// new program first) or off.
#ifndef MM_FAIL_INJECT_H
#define MM_FAIL_INJECT_H

#include <stdbool.h>
#include <stddef.h>

// Asked by frame_alloc and kmalloc before they allocate: true means fail.
bool fail_inject_alloc(void);

// Called when init starts: a fail_alloc= boot option takes effect.
void fail_inject_arm(void);

// The state as text (for the procfs file); returns the length.
size_t fail_inject_render(char *buf, size_t size);

// One command written to the procfs file; 0 or a negative errno.
int fail_inject_command(const char *cmd);

#endif
