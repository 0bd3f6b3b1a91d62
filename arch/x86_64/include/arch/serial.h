#ifndef ARCH_SERIAL_H
#define ARCH_SERIAL_H

// The console's UART; the rest of its interface is arch_console_* in
// include/kernel/arch.h.
void serial_init(void);

#endif
