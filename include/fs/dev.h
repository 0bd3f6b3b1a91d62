// Device nodes (/dev) and synthetic files (/proc), and the console's
// input side.
#ifndef FS_DEV_H
#define FS_DEV_H

#include <stdint.h>

struct vnode_ops;

// Creates /dev/{null,zero,full,random,urandom,console,tty}, the links
// /dev/{fd,stdin,stdout,stderr} and the directory /dev/shm.
int devices_init(void);
// Creates /dev/ptmx and /dev/pts (kernel/fs/pty.c).
int pty_init(void);
// The character devices by number, for nodes mknod makes: the driver of
// 'rdev' ((major << 8) | minor), or NULL (opening the node: ENXIO).
void dev_register(uint64_t rdev, const struct vnode_ops *ops);
const struct vnode_ops *dev_ops(uint64_t rdev);
// Creates /proc/self/exe and /proc/switchyard/cpustat.
int procfs_init(void);
// /proc/switchyard/facilities and thread_facilities; fac_stats_reset
// zeroes the counters behind them.
int procfs_facilities_init(void);
// The system-wide /proc files, /proc/sys and /sys (procfs_sys.c).
int procfs_sys_init(void);
void fac_stats_reset(void);
// /proc/stat and /proc/uptime (kernel/fs/procfs_stat.c).
int procfs_stat_init(void);
// /proc/config.gz (kernel/fs/procfs_config.c).
int procfs_config_init(void);

// Called on every tick of CPU 0 (interrupt context): moves bytes waiting
// in the UART into the console's input buffer and wakes readers.
void console_poll_input(void);
void console_input_start(void);		// boot CPU, once its timers run

// Feeds bytes to the console as if typed (tests).
void console_inject(const char *s, unsigned long n);

#endif
