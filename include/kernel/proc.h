// Processes.
#ifndef KERNEL_PROC_H
#define KERNEL_PROC_H

// Starts /init (init= boot option) from the initramfs as PID 1.
void start_init(void);

#endif
