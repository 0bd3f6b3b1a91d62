// Unrecoverable kernel errors.
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include <stdint.h>
#include <stdbool.h>

struct trap_frame;

// Prints "KERNEL PANIC: <message>", the registers (when a frame is given),
// a symbolized backtrace, stops every other CPU and ends the machine with
// a failure status.
__attribute__((noreturn, format(printf, 1, 2)))
void panic(const char *fmt, ...);

__attribute__((noreturn, format(printf, 2, 3)))
void panic_frame(const struct trap_frame *frame, const char *fmt, ...);

#define assert(cond)							\
	do {								\
		if (!(cond))						\
			panic("assertion failed: %s (%s:%d)", #cond,	\
			      __FILE__, __LINE__);			\
	} while (0)

extern volatile bool panicking;

// Finds the function containing 'addr'; returns its name and sets *offset.
const char *ksym_lookup(uint64_t addr, uint64_t *offset);
// One backtrace line for a code address: "  [<addr>] name+offset".
void ksym_print(uint64_t addr);

#endif
