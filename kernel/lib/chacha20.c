// The ChaCha20 block function, as RFC 8439 section 2.3 specifies it.

#include <lib/chacha20.h>

static uint32_t rotl(uint32_t v, int n)
{
	return (v << n) | (v >> (32 - n));
}

static void quarter_round(uint32_t *x, int a, int b, int c, int d)
{
	x[a] += x[b]; x[d] ^= x[a]; x[d] = rotl(x[d], 16);
	x[c] += x[d]; x[b] ^= x[c]; x[b] = rotl(x[b], 12);
	x[a] += x[b]; x[d] ^= x[a]; x[d] = rotl(x[d], 8);
	x[c] += x[d]; x[b] ^= x[c]; x[b] = rotl(x[b], 7);
}

void chacha20_constants(uint32_t in[16])
{
	in[0] = 0x61707865;
	in[1] = 0x3320646e;
	in[2] = 0x79622d32;
	in[3] = 0x6b206574;
}

void chacha20_block(const uint32_t in[16], uint8_t out[64])
{
	uint32_t x[16];

	for (int i = 0; i < 16; i++)
		x[i] = in[i];
	for (int i = 0; i < 10; i++) {		// 20 rounds: column, then diagonal
		quarter_round(x, 0, 4, 8, 12);
		quarter_round(x, 1, 5, 9, 13);
		quarter_round(x, 2, 6, 10, 14);
		quarter_round(x, 3, 7, 11, 15);
		quarter_round(x, 0, 5, 10, 15);
		quarter_round(x, 1, 6, 11, 12);
		quarter_round(x, 2, 7, 8, 13);
		quarter_round(x, 3, 4, 9, 14);
	}
	for (int i = 0; i < 16; i++) {
		uint32_t v = x[i] + in[i];

		out[4 * i] = (uint8_t)v;		// little-endian words
		out[4 * i + 1] = (uint8_t)(v >> 8);
		out[4 * i + 2] = (uint8_t)(v >> 16);
		out[4 * i + 3] = (uint8_t)(v >> 24);
	}
}
