// The kernel's random numbers (kernel/random.c): /dev/random,
// /dev/urandom and getrandom(2) all read this one generator.
#ifndef KERNEL_RANDOM_H
#define KERNEL_RANDOM_H

#include <stddef.h>

// Fills a kernel buffer.  Never blocks: the generator seeds itself on
// first use.  Any context with interrupts enabled or not.
void random_bytes(void *buf, size_t n);

// Stirs caller-supplied bytes into the generator's key (writes to
// /dev/random and /dev/urandom).  They cannot make it weaker.
void random_mix(const void *data, size_t n);

#endif
