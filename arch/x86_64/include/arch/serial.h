#ifndef ARCH_SERIAL_H
#define ARCH_SERIAL_H

#include <stdbool.h>

void serial_init(void);
bool serial_enable_rx_interrupt(void);	// IRQ on input; false: poll it
void serial_putc(char c);
int serial_getc(void);		// -1 when no byte is waiting

#endif
