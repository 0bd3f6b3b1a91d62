// What kernel/mm/uaccess.c needs of x86-64: SMAP's window on user pages,
// the copy loops (uaccess.S, each listed in the exception table), and two
// facts about a fault's frame.
#ifndef ARCH_UACCESS_ARCH_H
#define ARCH_UACCESS_ARCH_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <arch/x86.h>
#include <arch/trapframe.h>
#include <arch/irq_vectors.h>
#include <arch/cpu_arch.h>

// SMAP: allow (stac) or forbid (clac) supervisor access to user pages.
static inline void user_access_begin(void)
{
	if (cpu_has.smap)
		__asm__ volatile("stac" ::: "memory");
}

static inline void user_access_end(void)
{
	if (cpu_has.smap)
		__asm__ volatile("clac" ::: "memory");
}

// Bytes not copied (0: all of them).
size_t uaccess_copy(void *dst, const void *src, size_t n);
size_t uaccess_clear(void *dst, size_t n);
// The length copied, -1 if no NUL came within max, -2 on a fault.
long uaccess_strncpy(char *dst, const char *src, size_t max);
int uaccess_cmpxchg32(uint32_t *uaddr, uint32_t expected, uint32_t desired, uint32_t *old);

static inline bool arch_frame_irqs_were_on(const struct trap_frame *f)
{
	return f->rflags & RFLAGS_IF;
}

static inline bool arch_frame_is_page_fault(const struct trap_frame *f)
{
	return f->vector == VEC_PAGE_FAULT;
}

#endif
