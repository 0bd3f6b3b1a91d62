// Interrupt vector numbers.
#ifndef ARCH_IRQ_VECTORS_H
#define ARCH_IRQ_VECTORS_H

#define VEC_DIVIDE		0
#define VEC_DEBUG		1
#define VEC_NMI			2
#define VEC_BREAKPOINT		3
#define VEC_INVALID_OPCODE	6
#define VEC_DEVICE_NOT_AVAIL	7
#define VEC_DOUBLE_FAULT	8
#define VEC_GP			13
#define VEC_PAGE_FAULT		14
#define VEC_X87			16
#define VEC_SIMD		19

#define VEC_SERIAL		0x24	// COM1 via the IOAPIC, when present
#define VEC_TIMER		0xec	// local APIC timer
#define VEC_IPI_CALL		0xf1	// run queued cross-CPU calls
#define VEC_IPI_RESCHED		0xf2	// reschedule now
#define VEC_IPI_TLB		0xf3	// TLB shootdown
#define VEC_IPI_TEST		0xf4	// ping used by tests
#define VEC_IPI_TICK		0xf5	// start the tick again
#define VEC_SPURIOUS		0xff

#endif
