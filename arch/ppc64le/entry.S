// Boot relocation, and the common exception entry and exit of ppc64.

#include <arch/asm_gprs.h>
#include <arch/asm_offsets.h>
#include <arch/spr.h>
#include <arch/trapframe.h>

#define LOAD_ADDR(reg, sym)			\
	lis	reg, (sym)@highest;		\
	ori	reg, reg, (sym)@higher;		\
	rldicr	reg, reg, 32, 31;		\
	oris	reg, reg, (sym)@high;		\
	ori	reg, reg, (sym)@l

// ELFv2 lets a function use 288 bytes below its stack pointer without
// moving it: an interrupt of kernel code leaves them alone.
#define PROTECTED_ZONE	288
// The least stack frame a C function may be called with: back chain, CR
// save, LR save, TOC save.
#define MIN_FRAME	32

	.text

// From head.S, little-endian, real mode, r31 = the device tree.  QEMU
// loaded the image at 0x400000; move it to physical 0, where its
// vectors must be, then go on at its link address (the top four bits of
// an address are ignored in real mode, so 0xc000... reaches physical 0).
	.globl	boot_relocate
boot_relocate:
	mfmsr	11			// 64-bit mode, whatever the firmware left
	li	12, 1
	rldicr	12, 12, MSR_SF_BIT, 0
	or	11, 11, 12
	mtmsrd	11
	isync
	bcl	20, 31, 1f
1:	mflr	10
	LOAD_ADDR(11, 1b)
	clrldi	11, 11, 4		// where 1b is in the image
	sub	10, 10, 11		// where the image was loaded
	cmpdi	10, 0
	beq	3f
	LOAD_ADDR(9, kernel_load_end)
	clrldi	9, 9, 4			// bytes to move (the linker keeps it below 4 MiB)
	li	8, 0
2:	ldx	7, 10, 8
	stdx	7, 0, 8
	addi	8, 8, 8
	cmpld	8, 9
	blt	2b
	// What was written as data must reach instruction fetch.
	li	8, 0
4:	dcbst	0, 8
	addi	8, 8, 128
	cmpld	8, 9
	blt	4b
	sync
	li	8, 0
5:	icbi	0, 8
	addi	8, 8, 128
	cmpld	8, 9
	blt	5b
	sync
	isync
3:	LOAD_ADDR(12, boot_virtual)
	mtctr	12
	bctr

boot_virtual:
	LOAD_ADDR(1, boot_stack_top)
	subi	1, 1, MIN_FRAME
	li	0, 0
	std	0, 0(1)
	LOAD_ADDR(2, .TOC.)
	LOAD_ADDR(3, bss_start)
	LOAD_ADDR(4, bss_end)
6:	cmpld	3, 4
	bge	7f
	std	0, 0(3)
	addi	3, 3, 8
	b	6b
7:	mr	3, 31
	bl	ppc_boot		// never returns
	b	.

// A secondary CPU, little-endian now, real mode, r31 = its struct cpu
// (arch/ppc64le/smp.c set cpu->arch.kstack_top to its boot stack).
	.globl	secondary_start
secondary_start:
	mfmsr	11
	li	12, 1
	rldicr	12, 12, MSR_SF_BIT, 0
	or	11, 11, 12
	mtmsrd	11
	isync
	LOAD_ADDR(12, 1f)
	mtctr	12
	bctr
1:	lis	12, 0xc000		// its struct cpu at the kernel address
	sldi	12, 12, 32
	or	31, 31, 12
	ld	1, CPU_KSTACK_TOP(31)
	subi	1, 1, MIN_FRAME
	li	0, 0
	std	0, 0(1)
	LOAD_ADDR(2, .TOC.)
	mr	3, 31
	bl	ppc_secondary_boot	// never returns
	b	.

// The common exception entry.  From the vector: r13 = this CPU, r12 =
// the vector number; the interrupted r13 is in SPRG1 and its r12 and r11
// in the CPU's scratch words.  The frame goes at the top of the thread's
// kernel stack when the CPU was in user mode (arch_thread_user_frame),
// below the interrupted stack's protected zone when in the kernel.
	.globl	trap_entry
trap_entry:
	mfcr	11			// before anything here changes CR0
	std	11, CPU_SCRATCH2(13)
	mfspr	11, SPRN_SRR1
	andi.	11, 11, MSR_RI
	beq	3f
	mfspr	11, SPRN_SRR1
	andi.	11, 11, MSR_PR
	beq	1f
	ld	11, CPU_KSTACK_TOP(13)
	subi	11, 11, TF_SIZE
	b	2f
1:	subi	11, 1, TF_SIZE + PROTECTED_ZONE
	clrrdi	11, 11, 4
	b	2f
	// MSR[RI] was off: the interrupt came inside an entry or exit, which
	// cannot be resumed (its SRR0/SRR1 are gone); the stack may be what
	// faulted (an overflow into a guard page).  Report it from this
	// CPU's emergency stack.
3:	ld	11, CPU_EMERGENCY_TOP(13)
	subi	11, 11, TF_SIZE
2:	SAVE_GPRS 0, 10, TF_GPR0, 11
	ld	0, CPU_SCRATCH1(13)
	std	0, TF_GPR0 + 11*8(11)
	ld	0, CPU_SCRATCH0(13)
	std	0, TF_GPR0 + 12*8(11)
	mfspr	0, SPRN_SPRG1
	std	0, TF_GPR0 + 13*8(11)
	SAVE_GPRS 14, 31, TF_GPR0, 11
	mfspr	0, SPRN_SRR0
	std	0, TF_NIP(11)
	mfspr	0, SPRN_SRR1
	std	0, TF_MSR(11)
	mflr	0
	std	0, TF_LINK(11)
	mfctr	0
	std	0, TF_CTR(11)
	mfxer	0
	std	0, TF_XER(11)
	ld	0, CPU_SCRATCH2(13)
	std	0, TF_CCR(11)
	std	12, TF_TRAP(11)
	mfspr	0, SPRN_DAR
	std	0, TF_DAR(11)
	mfspr	0, SPRN_DSISR
	std	0, TF_DSISR(11)
	std	3, TF_ORIG_R3(11)
	// A C stack below the frame; its back chain is the interrupted r1,
	// so a backtrace walks on into the interrupted code.
	subi	1, 11, MIN_FRAME
	ld	0, TF_GPR0 + 1*8(11)
	std	0, 0(1)
	LOAD_ADDR(2, .TOC.)
	li	0, MSR_RI		// recoverable again; interrupts stay off
	mtmsrd	0, 1
	mr	3, 11
	bl	ppc_trap
	addi	3, 1, MIN_FRAME
	// fall through

// Returns through the frame at r3: to user mode, or to the interrupted
// kernel code.  Also a new user thread's first entry (arch_enter_user).
// Kernel code keeps this CPU's r13 (the thread may have moved to another
// CPU since it was interrupted); user code gets its own back.
	.globl	trap_return
trap_return:
	li	0, 0			// interrupts off, and not recoverable while
	mtmsrd	0, 1			// SRR0/SRR1 hold the return state
	addi	4, 13, CPU_SCRATCH3	// drop any reservation of the kernel's
	stdcx.	0, 0, 4
	ld	0, TF_NIP(3)
	mtspr	SPRN_SRR0, 0
	ld	0, TF_MSR(3)
	mtspr	SPRN_SRR1, 0
	andi.	0, 0, MSR_PR
	beq	1f
	ld	13, TF_GPR0 + 13*8(3)
1:	ld	0, TF_LINK(3)
	mtlr	0
	ld	0, TF_CTR(3)
	mtctr	0
	ld	0, TF_XER(3)
	mtxer	0
	ld	0, TF_CCR(3)
	mtcr	0
	REST_GPRS 0, 2, TF_GPR0, 3
	REST_GPRS 4, 12, TF_GPR0, 3
	REST_GPRS 14, 31, TF_GPR0, 3
	ld	3, TF_GPR0 + 3*8(3)
	rfid

	.globl	arch_enter_user
arch_enter_user:
	b	trap_return

// The context switch proper: save the callee-saved state of the running
// kernel thread (r14-r31, CR, LR, r2) on its stack, store its stack
// pointer in *from, load 'to' and restore its state.
//   void switch_stack(uint64_t *from, uint64_t to);
#define SW_FRAME	(MIN_FRAME + 20*8)
#define SW_GPRS		(MIN_FRAME - 14*8)	// r14 at MIN_FRAME, r15 after it...
	.globl	switch_stack
switch_stack:
	mflr	0
	std	0, 16(1)
	stdu	1, -SW_FRAME(1)
	mfcr	0
	std	0, MIN_FRAME + 18*8(1)
	std	2, MIN_FRAME + 19*8(1)
	SAVE_GPRS 14, 31, SW_GPRS, 1
	std	1, 0(3)
	mr	1, 4
	REST_GPRS 14, 31, SW_GPRS, 1
	ld	2, MIN_FRAME + 19*8(1)
	ld	0, MIN_FRAME + 18*8(1)
	mtcr	0
	addi	1, 1, SW_FRAME
	ld	0, 16(1)
	mtlr	0
	blr

// First code of a new thread: switch_stack "returns" here with the entry
// function in r14 and its argument in r15 (arch_thread_init).
	.globl	thread_trampoline
thread_trampoline:
	mr	3, 14
	mr	4, 15
	bl	thread_start
	trap				// thread_start never returns
