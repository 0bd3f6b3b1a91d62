#ifndef ARCH_SERIAL_H
#define ARCH_SERIAL_H

void serial_init(void);
void serial_putc(char c);
int serial_getc(void);		// -1 when no byte is waiting

#endif
