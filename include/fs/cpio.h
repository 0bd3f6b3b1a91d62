// Reading "newc" cpio archives (the initramfs format): a pure parser with
// no allocation, so the host tests can run it on archives made by cpio(1).
//
// Every entry is a 110-byte ASCII header (magic "070701", then thirteen
// 8-digit hex fields), the NUL-terminated name padded so the data starts
// on a 4-byte boundary, then the data padded to 4 bytes.  The entry named
// "TRAILER!!!" ends the archive.
#ifndef FS_CPIO_H
#define FS_CPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// st_mode type bits, as cpio stores them (the Linux values).
#define CPIO_S_IFMT	0170000
#define CPIO_S_IFDIR	0040000
#define CPIO_S_IFREG	0100000
#define CPIO_S_IFLNK	0120000

struct cpio_entry {
	const char *name;	// NUL-terminated, inside the archive
	size_t namelen;		// without the NUL
	uint32_t mode;		// type and permission bits
	uint32_t uid, gid;	// the owner
	uint32_t ino;
	uint32_t nlink;
	uint32_t mtime;
	const void *data;	// file contents or symlink target (not NUL-terminated)
	size_t size;
};

struct cpio_iter {
	const uint8_t *base;
	size_t len;
	size_t pos;		// offset of the next header
	bool done;		// trailer seen
};

void cpio_iter_init(struct cpio_iter *it, const void *archive, size_t len);

// Fills *e with the next entry and returns 1; returns 0 at the trailer
// (and after it), or -EINVAL for a truncated or corrupt archive.  Never
// reads outside [archive, archive + len).
int cpio_next(struct cpio_iter *it, struct cpio_entry *e);

#endif
