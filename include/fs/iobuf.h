// A buffer on either side of the user/kernel boundary, so one code path
// serves read(2) into user memory and the kernel's own reads (exec,
// initramfs unpacking, tests).
#ifndef FS_IOBUF_H
#define FS_IOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct iobuf {
	bool user;
	uint64_t uaddr;		// when user
	char *kaddr;		// otherwise
};

static inline struct iobuf iobuf_user(uint64_t uaddr)
{
	return (struct iobuf){ .user = true, .uaddr = uaddr };
}

static inline struct iobuf iobuf_kernel(void *kaddr)
{
	return (struct iobuf){ .user = false, .kaddr = kaddr };
}

// Copy n bytes to/from offset 'at' of the buffer; 0 or -EFAULT.
int iobuf_put(struct iobuf *b, size_t at, const void *src, size_t n);
int iobuf_get(struct iobuf *b, size_t at, void *dst, size_t n);
int iobuf_zero(struct iobuf *b, size_t at, size_t n);

#endif
