// Host tests of kernel/lib/chacha20.c against RFC 8439's test vectors.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <lib/chacha20.h>
#include "ktap.h"

static void rfc_key(uint32_t in[16])
{
	chacha20_constants(in);
	for (int i = 0; i < 8; i++)	// key bytes 00 01 02 ... 1f
		in[4 + i] = (uint32_t)(4 * i) | (uint32_t)(4 * i + 1) << 8 |
			    (uint32_t)(4 * i + 2) << 16 | (uint32_t)(4 * i + 3) << 24;
}

// Section 2.3.2: the block for counter 1 and nonce 00:00:00:09:00:00:00:4a:00:00:00:00.
static int block_vector(void)
{
	static const uint32_t want[16] = {
		0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3,
		0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
		0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
		0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2,
	};
	uint32_t in[16];
	uint8_t out[64];

	rfc_key(in);
	in[12] = 1;
	in[13] = 0x09000000;
	in[14] = 0x4a000000;
	in[15] = 0;
	chacha20_block(in, out);
	for (int i = 0; i < 16; i++) {
		uint32_t w = out[4 * i] | (uint32_t)out[4 * i + 1] << 8 |
			     (uint32_t)out[4 * i + 2] << 16 | (uint32_t)out[4 * i + 3] << 24;
		if (w != want[i])
			return 0;
	}
	return out[0] == 0x10 && out[1] == 0xf1;	// serialized little-endian
}

// Appendix A.1 test vector #1: all-zero key, nonce and counter.
static int zero_vector(void)
{
	static const uint8_t want[16] = {
		0x76, 0xb8, 0xe0, 0xad, 0xa0, 0xf1, 0x3d, 0x90,
		0x40, 0x5d, 0x6a, 0xe5, 0x53, 0x86, 0xbd, 0x28,
	};
	uint32_t in[16] = { 0 };
	uint8_t out[64];

	chacha20_constants(in);
	chacha20_block(in, out);
	return memcmp(out, want, sizeof(want)) == 0;
}

int main(void)
{
	ktap_plan(2);
	ktap_ok(block_vector(), "rfc8439_2_3_2_block");
	ktap_ok(zero_vector(), "rfc8439_a1_zero_key");
	return ktap_exit();
}
