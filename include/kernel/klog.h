// The kernel log (kernel/klog.c): kprintf's lines kept for syslog(2).
#ifndef KERNEL_KLOG_H
#define KERNEL_KLOG_H

#include <stdbool.h>
#include <stddef.h>

// Keeps kprintf's text; true if the console level lets it be printed.
bool klog_add(const char *s, size_t n);

// /proc/sys/kernel/dmesg_restrict: 1 limits every syslog action to
// CAP_SYSLOG (0, Linux's default: reading all and the size are anyone's).
extern int dmesg_restrict;

#endif
