// The ChaCha20 block function (RFC 8439), the core of the kernel's random
// number generator (kernel/random.c).  Pure: no locks, no state.
#ifndef LIB_CHACHA20_H
#define LIB_CHACHA20_H

#include <stdint.h>

// 'in' is the 16-word input state: the four constants, an 8-word key, a
// block counter and a nonce.  'out' gets the 64-byte key-stream block.
void chacha20_block(const uint32_t in[16], uint8_t out[64]);

// Fills in[0..3] with the constants "expand 32-byte k".
void chacha20_constants(uint32_t in[16]);

#endif
