// Console output.  kprintf formats a whole message into a buffer first and
// writes it under a lock, so lines from different CPUs do not interleave;
// the kernel log (klog.c) keeps it too.

#include <stdarg.h>
#include <kernel/arch.h>
#include <kernel/console.h>
#include <kernel/klog.h>
#include <kernel/spinlock.h>
#include <lib/printf.h>

static struct spinlock console_lock = SPINLOCK_INIT("console");

void console_write_unlocked(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n')
			arch_console_putc('\r');
		arch_console_putc(buf[i]);
	}
}

void console_write(const char *buf, size_t len)
{
	uint64_t flags = spin_lock_irqsave(&console_lock);
	console_write_unlocked(buf, len);
	spin_unlock_irqrestore(&console_lock, flags);
}

// Formats into buf (cut at its size); returns the length written.
static int format(char *buf, int size, const char *fmt, va_list ap)
{
	int n = kvsnprintf(buf, size, fmt, ap);
	return n >= size ? size - 1 : n;
}

int kprintf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	int n = format(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (klog_add(buf, n))
		console_write(buf, n);
	return n;
}

int kprintf_unlocked(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	int n = format(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console_write_unlocked(buf, n);
	return n;
}
