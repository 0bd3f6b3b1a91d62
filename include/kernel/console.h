// The kernel console: formatted log output and the byte stream behind
// /dev/console.
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stddef.h>

int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void console_write(const char *buf, size_t len);

// Panic path: write without taking the console lock (it may be held by
// the CPU that crashed).
void console_write_unlocked(const char *buf, size_t len);
int kprintf_unlocked(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
