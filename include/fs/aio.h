// Linux native AIO (kernel/fs/aio.c): io_setup's contexts belong to an
// address space and end with it.
#ifndef FS_AIO_H
#define FS_AIO_H

#include <stdint.h>

struct mm;

// The address space is going away: its contexts are killed, their polls
// cancelled (Linux's exit_aio).  Never sleeps.
void aio_mm_exit(struct mm *mm);

// mremap of a ring (Linux's aio_ring_mremap): the live context of mm
// whose ring holds frame pa follows it to 'to' (0: only looks for one).
// 0, or -EINVAL when there is none.  Called with mm->lock held.
int aio_ring_moved(struct mm *mm, uint64_t pa, uint64_t to);

// /proc/sys/fs/aio-max-nr (writable) and aio-nr: the events io_setup may
// ask for in all, and those asked for now.
uint64_t aio_max_nr_get(void);
void aio_max_nr_set(uint64_t v);
uint64_t aio_nr_get(void);

#endif
