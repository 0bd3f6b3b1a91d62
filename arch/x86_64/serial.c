// 16550 UART on COM1: the kernel console.  Output polls the transmitter;
// input raises IRQ 4 through the IOAPIC where there is one (else the
// console polls it from a timer: kernel/fs/devices.c).

#include <stdint.h>
#include <stdbool.h>
#include <arch/x86.h>
#include <arch/serial.h>
#include <kernel/arch.h>
#include <arch/apic.h>
#include <arch/acpi.h>
#include <arch/irq_vectors.h>

#define COM1		0x3f8
#define REG_DATA	0
#define REG_IER		1
#define REG_FCR		2
#define REG_LCR		3
#define REG_MCR		4
#define REG_LSR		5
#define LSR_DATA_READY	0x01
#define LSR_THR_EMPTY	0x20
#define IER_RX_DATA	0x01
#define COM1_IRQ	4

void serial_init(void)
{
	outb(COM1 + REG_IER, 0x00);	// no interrupts
	outb(COM1 + REG_LCR, 0x80);	// divisor latch
	outb(COM1 + REG_DATA, 0x01);	// 115200 baud
	outb(COM1 + REG_IER, 0x00);
	outb(COM1 + REG_LCR, 0x03);	// 8N1
	outb(COM1 + REG_FCR, 0xc7);	// FIFO on, cleared
	outb(COM1 + REG_MCR, 0x0b);
}

void arch_console_putc(char c)
{
	// Bounded wait: a missing UART must not hang the kernel.
	for (int i = 0; i < 100000 && !(inb(COM1 + REG_LSR) & LSR_THR_EMPTY); i++)
		cpu_relax();
	outb(COM1 + REG_DATA, (uint8_t)c);
}

// Routes COM1's interrupt to the boot CPU and turns on "data received":
// false if there is no IOAPIC to route it through.
bool arch_console_enable_rx_interrupt(void)
{
	if (!acpi.ioapic_pa)
		return false;
	ioapic_route_isa_irq(COM1_IRQ, VEC_SERIAL);
	outb(COM1 + REG_IER, IER_RX_DATA);
	return true;
}

int arch_console_getc(void)
{
	if (!(inb(COM1 + REG_LSR) & LSR_DATA_READY))
		return -1;
	return inb(COM1 + REG_DATA);
}
