// What kernel/mm/uaccess.c needs of ppc64: the copy loops (uaccess.S,
// each faulting instruction listed in the exception table) and two facts
// about a fault's frame.  No window needs opening: Switchyard does not
// use the AMR to keep the kernel out of user pages (Linux's KUAP) yet.
#ifndef ARCH_UACCESS_ARCH_H
#define ARCH_UACCESS_ARCH_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <arch/spr.h>
#include <arch/trapframe.h>

size_t uaccess_copy(void *dst, const void *src, size_t n);
size_t uaccess_clear(void *dst, size_t n);
long uaccess_strncpy(char *dst, const char *src, size_t max);
int uaccess_cmpxchg32(uint32_t *uaddr, uint32_t expected, uint32_t desired, uint32_t *old);

static inline void user_access_begin(void)
{
}

static inline void user_access_end(void)
{
}

static inline bool arch_frame_irqs_were_on(const struct trap_frame *f)
{
	return f->msr & MSR_EE;
}

static inline bool arch_frame_is_page_fault(const struct trap_frame *f)
{
	return f->trap == 0x300 || f->trap == 0x400;
}

#endif
