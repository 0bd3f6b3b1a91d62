// gzip members of stored deflate blocks (lib/gzip.h).

#include <lib/gzip.h>

#define STORED_MAX	65535	// the most one stored block holds

uint32_t crc32_ieee(const void *data, size_t n)
{
	const uint8_t *p = data;
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

size_t gzip_stored_size(size_t n)
{
	size_t blocks = n ? (n + STORED_MAX - 1) / STORED_MAX : 1;

	return 10 + blocks * 5 + n + 8;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

size_t gzip_stored(const void *data, size_t n, uint8_t *out)
{
	static const uint8_t header[10] = {
		0x1f, 0x8b,	// the magic
		8,		// deflate
		0,		// no name, comment or extra field
		0, 0, 0, 0,	// no time
		0,		// no extra flags
		3,		// made on Unix
	};
	const uint8_t *src = data;
	size_t len = 0, left = n;

	for (size_t i = 0; i < sizeof(header); i++)
		out[len++] = header[i];
	do {
		uint16_t chunk = (uint16_t)(left < STORED_MAX ? left : STORED_MAX);
		out[len++] = left == chunk ? 1 : 0;	// BFINAL on the last, BTYPE 00
		out[len++] = (uint8_t)chunk;
		out[len++] = (uint8_t)(chunk >> 8);
		out[len++] = (uint8_t)~chunk;
		out[len++] = (uint8_t)(~chunk >> 8);
		for (uint16_t i = 0; i < chunk; i++)
			out[len++] = *src++;
		left -= chunk;
	} while (left);
	put_le32(out + len, crc32_ieee(data, n));
	put_le32(out + len + 4, (uint32_t)n);	// ISIZE: the size mod 2^32
	return len + 8;
}
