// The first 32 KiB of the ppc64 kernel image: the entry point at offset
// 0, the real-mode exception vectors (0x100-0x1000) and the vectors taken
// with the MMU on (0x4000 + vector: LPCR[AIL] = 3, "relocation on" at
// 0xc000000000004000).  The image runs at physical 0 (the boot code moves
// it there), so its offsets are the vectors' addresses.
//
// Boot contract (docs/ppc64.md): QEMU's pseries machine loads the ELF at
// physical 0x400000 and starts the firmware at 0x100 with r3 = the device
// tree; Switchyard's firmware (arch/ppc64le/firmware/) adds the RTAS
// entry Linux needs to the tree and jumps here.  The CPU is in real mode,
// 64-bit, and big-endian; a secondary CPU started by RTAS start-cpu
// arrives the same way at secondary_entry with r3 = its struct cpu.

#include <arch/asm_offsets.h>
#include <arch/spr.h>

// Loads a 64-bit absolute address (a link-time constant).
#define LOAD_ADDR(reg, sym)			\
	lis	reg, (sym)@highest;		\
	ori	reg, reg, (sym)@higher;		\
	rldicr	reg, reg, 32, 31;		\
	oris	reg, reg, (sym)@high;		\
	ori	reg, reg, (sym)@l

// Entered big-endian, switches the CPU to little-endian and goes on at
// the next instruction.  Read little-endian, the first word is a "tdi"
// that never traps and the second skips the rest; read big-endian, the
// first is "b .+8" and the eight words after it, stored byte-swapped, are
//   mfmsr r11; xori r11,r11,MSR_LE; bcl 20,31,$+4; mflr r10;
//   addi r10,r10,20; mtsrr0 r10; mtsrr1 r11; rfid
// (encodings from "as -mbig"), which returns to the end of the sequence
// with MSR[LE] set.
#define ENTER_LITTLE_ENDIAN			\
	tdi	0, 0, 0x48;			\
	b	191f;				\
	.long	0xa600607d;			\
	.long	0x01006b69;			\
	.long	0x05009f42;			\
	.long	0xa602487d;			\
	.long	0x14004a39;			\
	.long	0xa6035a7d;			\
	.long	0xa6037b7d;			\
	.long	0x2400004c;			\
191:

	.section .text.head, "ax"
	.globl	_start
_start:
	ENTER_LITTLE_ENDIAN
	mr	31, 3			// the device tree, kept across the move
	b	boot_relocate

// A secondary CPU (RTAS start-cpu, arch/ppc64le/smp.c): r3 = its struct
// cpu.  It arrives after the move, so the image is already at 0.
	.org	0x60
	.globl	secondary_entry
secondary_entry:
	ENTER_LITTLE_ENDIAN
	mr	31, 3
	b	secondary_start

// Real-mode vectors: an interrupt with the MMU off only happens during
// early boot (or a system reset or machine check, which always come in
// real mode).  Each reports itself and stops the machine.
#define EARLY_VECTOR(vec)			\
	.org	vec;				\
	mtspr	SPRN_SPRG1, 3;			\
	li	3, vec;				\
	b	early_exception

	EARLY_VECTOR(0x100)
	EARLY_VECTOR(0x200)
	EARLY_VECTOR(0x300)
	EARLY_VECTOR(0x380)
	EARLY_VECTOR(0x400)
	EARLY_VECTOR(0x480)
	EARLY_VECTOR(0x500)
	EARLY_VECTOR(0x600)
	EARLY_VECTOR(0x700)
	EARLY_VECTOR(0x800)
	EARLY_VECTOR(0x900)
	EARLY_VECTOR(0xa00)
	EARLY_VECTOR(0xc00)
	EARLY_VECTOR(0xd00)
	EARLY_VECTOR(0xe00)
	EARLY_VECTOR(0xf00)

	.org	0x1000
early_exception:
	mfspr	4, SPRN_SRR0
	mfspr	5, SPRN_SRR1
	mfspr	6, SPRN_DAR
	LOAD_ADDR(1, early_stack_top)
	subi	1, 1, 32
	LOAD_ADDR(2, .TOC.)
	bl	ppc_early_exception	// never returns
	b	.

// Vectors with the MMU on.  Each saves r13, r12 and r11, points r13 at
// this CPU (SPRG0) and r12 at its vector number, and joins the common
// entry.  The slots from 0xf00 on are 0x20 bytes (eight instructions).
#define VECTOR(vec)				\
	.org	0x4000 + vec;			\
	mtspr	SPRN_SPRG1, 13;			\
	mfspr	13, SPRN_SPRG0;			\
	std	12, CPU_SCRATCH0(13);		\
	std	11, CPU_SCRATCH1(13);		\
	li	12, vec;			\
	b	trap_entry

	VECTOR(0x300)		// data storage
	VECTOR(0x380)		// data segment
	VECTOR(0x400)		// instruction storage
	VECTOR(0x480)		// instruction segment
	VECTOR(0x500)		// external interrupt
	VECTOR(0x600)		// alignment
	VECTOR(0x700)		// program check
	VECTOR(0x800)		// floating point unavailable
	VECTOR(0x900)		// decrementer
	VECTOR(0xa00)		// directed privileged doorbell
	VECTOR(0xc00)		// system call (sc)
	VECTOR(0xd00)		// trace
	VECTOR(0xe00)		// hypervisor data storage: reported, never expected
	VECTOR(0xf00)		// performance monitor
	VECTOR(0xf20)		// vector (VMX) unavailable
	VECTOR(0xf40)		// VSX unavailable
	VECTOR(0xf60)		// facility unavailable (TM, and others by FSCR)

	.org	0x8000
