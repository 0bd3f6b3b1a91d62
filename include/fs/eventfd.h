// What other parts of the kernel do with an eventfd (kernel/fs/eventfd.c):
// aio's IOCB_FLAG_RESFD signals one on each completion.
#ifndef FS_EVENTFD_H
#define FS_EVENTFD_H

#include <stdint.h>

struct file;

// The eventfd behind descriptor fd, referenced; NULL with -EBADF or
// -EINVAL (not an eventfd) in *err.
struct file *eventfd_fget(int fd, int *err);
// Adds n to its counter without blocking, stopping at 2^64 - 1.
void eventfd_signal_file(struct file *f, uint64_t n);

#endif
