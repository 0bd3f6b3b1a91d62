// lib/gzip: the CRC-32 against its known check value, and members read
// back by a reader of stored blocks written here from RFC 1951/1952, for
// empty data, one block, a block's exact size and several blocks; and,
// where the host has gzip, by gzip itself.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lib/gzip.h>
#include "ktap.h"

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

// Reads a member of stored blocks into out; its length, or -1.
static long unpack(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
	size_t pos = 10, n = 0;
	int final = 0;

	if (len < 18 || in[0] != 0x1f || in[1] != 0x8b || in[2] != 8 || in[3] != 0)
		return -1;
	while (!final) {
		if (pos + 5 > len || (in[pos] & ~1u))
			return -1;
		final = in[pos] & 1;
		unsigned blen = in[pos + 1] | in[pos + 2] << 8, nlen = in[pos + 3] | in[pos + 4] << 8;
		if ((blen ^ 0xffff) != nlen || pos + 5 + blen > len || n + blen > cap)
			return -1;
		memcpy(out + n, in + pos + 5, blen);
		n += blen;
		pos += 5 + blen;
	}
	if (pos + 8 != len || le32(in + pos) != crc32_ieee(out, n) || le32(in + pos + 4) != n)
		return -1;
	return (long)n;
}

static int round_trip(size_t n)
{
	uint8_t *data = malloc(n + 1), *gz = malloc(gzip_stored_size(n)), *back = malloc(n + 1);
	int ok = data && gz && back;

	for (size_t i = 0; ok && i < n; i++)
		data[i] = (uint8_t)(i * 131 + (i >> 9));
	if (ok) {
		size_t len = gzip_stored(data, n, gz);
		ok = len == gzip_stored_size(n) && unpack(gz, len, back, n) == (long)n &&
		     memcmp(data, back, n) == 0;
		// gzip itself, where the host has it.
		FILE *f = ok ? fopen("/tmp/test_gzip.gz", "wb") : NULL;
		if (f) {
			fwrite(gz, 1, len, f);
			fclose(f);
			if (system("command -v gzip >/dev/null 2>&1") == 0)
				ok = system("gzip -t /tmp/test_gzip.gz") == 0;
			remove("/tmp/test_gzip.gz");
		}
	}
	free(data);
	free(gz);
	free(back);
	return ok;
}

int main(void)
{
	ktap_plan(5);
	ktap_ok(crc32_ieee("123456789", 9) == 0xcbf43926u, "crc32_check_value");
	ktap_ok(round_trip(0), "empty");
	ktap_ok(round_trip(1000), "one_block");
	ktap_ok(round_trip(65535), "a_full_block");
	ktap_ok(round_trip(200000), "four_blocks");
	return ktap_exit();
}
