// A gzip member (RFC 1952) of data stored as it is: deflate's "stored"
// blocks (RFC 1951, BTYPE 00), no compression, with its CRC-32 and size,
// which any gunzip reads.  For the little the kernel hands out gzipped
// (/proc/config.gz).  Pure: host-tested (tests/host/test_gzip.c).
#ifndef LIB_GZIP_H
#define LIB_GZIP_H

#include <stddef.h>
#include <stdint.h>

// The CRC-32 of RFC 1952 (the IEEE polynomial, reflected).
uint32_t crc32_ieee(const void *data, size_t n);

// Bytes gzip_stored needs for n bytes of data.
size_t gzip_stored_size(size_t n);

// Writes the gzip member of data[0, n) into out (room for
// gzip_stored_size(n) bytes); returns its length.
size_t gzip_stored(const void *data, size_t n, uint8_t *out);

#endif
