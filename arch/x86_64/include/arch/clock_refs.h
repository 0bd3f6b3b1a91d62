// Clock references for calibrating the TSC: counters of a known rate
// (the PIT, the ACPI PM timer, the HPET), read with the TSC around them.
#ifndef ARCH_CLOCK_REFS_H
#define ARCH_CLOCK_REFS_H

#include <stdint.h>
#include <stdbool.h>
#include <lib/clock_estimate.h>

struct clock_ref {
	const char *name;
	uint64_t hz;			// counts per second
	uint64_t wrap;			// the counter counts modulo this (a power of 2)
	uint32_t (*read)(void);		// counts up, modulo wrap
};

// The references this machine has, ready to read (the PIT programmed, the
// HPET enabled); returns how many were put in refs[0..max).
int clock_refs_find(struct clock_ref *refs, int max);
// Puts the hardware back as found (the HPET's configuration).
void clock_refs_done(void);

// Measures the TSC against r over several windows; returns what
// calibrate_from_windows() returns.
int clock_ref_measure(const struct clock_ref *r, struct rate_estimate *est);

// One read of a register bracketed by two TSC reads.
struct bracketed {
	uint64_t tsc;			// the middle of the bracket
	uint64_t width;			// TSC ticks between the two reads
	uint32_t value;
};

// The widest bracket that counts as tight for reads of 'read': three times
// the narrowest of a few (what a read costs when nothing interrupts it).
uint64_t clock_tight_limit(uint32_t (*read)(void));
// A read whose bracket is at most 'limit' wide (a few tries); false if
// every try was interrupted.
bool clock_read_tight(uint32_t (*read)(void), uint64_t limit, struct bracketed *s);

// The TSC read after every earlier load and store has completed.
uint64_t rdtsc_ordered(void);

#endif
