// The entry of Switchyard's pseries firmware (firmware.c says what it
// does).  QEMU starts it at 0x100, big-endian, in real mode, with r3 =
// the device tree and -kernel loaded at 0x400000.  It runs big-endian
// C on a stack of its own, then enters the kernel with r3, r4 and r5 as
// QEMU set them, the way a kernel booted from a flat device tree expects.

	.section .text.entry, "ax"
	.globl	_start
_start:
	mr	14, 3			// callee-saved across the C code
	mr	15, 4
	mr	16, 5
	lis	1, FIRMWARE_STACK_TOP@h
	ori	1, 1, FIRMWARE_STACK_TOP@l
	li	0, 0
	stdu	0, -64(1)		// a terminated back chain
	lis	2, .TOC.@ha
	addi	2, 2, .TOC.@l
	bl	firmware_main
	nop
	mr	3, 14
	mr	4, 15
	mr	5, 16
	ba	0x400000
