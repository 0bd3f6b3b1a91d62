// Kernel entry and exit on x86-64: the 256 interrupt/exception stubs, the
// common path that saves a struct trap_frame, the SYSCALL entry, and the
// return to user space (SYSRET when it is safe, IRET otherwise).

#include <arch/trapframe.h>
#include <arch/irq_vectors.h>

#include <arch/asm_offsets.h>

// The general registers in struct trap_frame's order (arch/trapframe.h):
// a system call's six arguments end up first, as struct syscall_args.
	.macro PUSH_REGS
	pushq	%r15
	pushq	%r14
	pushq	%r13
	pushq	%r12
	pushq	%r11
	pushq	%rbp
	pushq	%rcx
	pushq	%rbx
	pushq	%rax
	pushq	%r9
	pushq	%r8
	pushq	%r10
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	.endm

	.macro POP_REGS
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%r10
	popq	%r8
	popq	%r9
	popq	%rax
	popq	%rbx
	popq	%rcx
	popq	%rbp
	popq	%r11
	popq	%r12
	popq	%r13
	popq	%r14
	popq	%r15
	.endm

// One stub per vector, 16 bytes apart.  Vectors without a CPU-pushed
// error code push a zero so every frame has the same shape.
	.macro VECTOR_STUB n
	.balign 16
	.if (\n == 8) || (\n >= 10 && \n <= 14) || (\n == 17) || (\n == 21) || (\n == 29) || (\n == 30)
	.else
	pushq	$0
	.endif
	pushq	$\n
	jmp	interrupt_common
	.endm

	.text
	.balign 16
	.globl vector_stubs
vector_stubs:
	.set vec, 0
	.rept 256
	.if vec == VEC_NMI
	.balign 16
	jmp	nmi_entry
	.else
	VECTOR_STUB vec
	.endif
	.set vec, vec + 1
	.endr

interrupt_common:
	testb	$3, 24(%rsp)			// CS: did we come from user mode?
	jz	1f
	swapgs
1:	PUSH_REGS
	cld
	movq	%rsp, %rdi
	testb	$3, TF_CS(%rsp)
	jnz	2f
	// From the kernel: was it the IRET back to user space that faulted
	// (the CPU refused the user frame: a non-canonical RIP on Intel, a
	// bad SS)?  Then GS is already the user's and the registers are the
	// user's: take the kernel's GS back and handle the fault as one in
	// user mode, on the thread's user frame rebuilt by iret_fault_fixup.
	leaq	iret_to_user(%rip), %rax
	cmpq	%rax, TF_RIP(%rsp)
	jne	2f
	swapgs
	call	iret_fault_fixup
	movq	%rax, %rsp
	movq	%rax, %rdi
2:	call	trap_dispatch
	.globl interrupt_return
interrupt_return:
	POP_REGS
	addq	$16, %rsp			// vector and error code
	testb	$3, 8(%rsp)
	jz	3f
	swapgs
	// The only IRET to user space; a fault here lands in the check above.
	.globl iret_to_user
iret_to_user:
	iretq
3:	iretq

// NMIs are only sent to stop CPUs after a panic.  An NMI can arrive
// between SYSCALL and SWAPGS, where CS says "kernel" but GS is the user's,
// and at any point of boot, so this path touches neither GS, nor the
// stack beyond the CPU's frame, nor any register but the flags (which
// IRETQ restores): during a panic it halts; any other NMI (a watchdog, the
// QEMU monitor's "nmi") is counted in nmis_ignored and ignored.
nmi_entry:
	cmpb	$0, panicking(%rip)
	jne	3f
	lock incq nmis_ignored(%rip)
	iretq
3:	cli
4:	hlt
	jmp	4b

	.data
	.balign 8
	.globl nmis_ignored
nmis_ignored:
	.quad	0
	.text

// SYSCALL: RCX = user RIP, R11 = user RFLAGS, RSP still the user's.
// Interrupts are off and DF clear (SFMASK) until the frame is built.
	.globl syscall_entry
syscall_entry:
	swapgs
	movq	%rsp, %gs:CPU_SYSCALL_USER_RSP
	movq	%gs:CPU_KSTACK_TOP, %rsp
	pushq	$SEL_USER_DS			// ss
	pushq	%gs:CPU_SYSCALL_USER_RSP	// rsp
	pushq	%r11				// rflags
	pushq	$SEL_USER_CS			// cs
	pushq	%rcx				// rip
	pushq	%rax				// error: the number, kept for restarts
	pushq	$VECTOR_SYSCALL			// vector
	PUSH_REGS
	movq	%rsp, %rdi
	call	syscall_dispatch		// returns with interrupts off
	testb	%al, %al
	jz	syscall_return_checked

	// The fast return (syscall_dispatch said so): no work was done on
	// the way out and no system call rewrote the frame, so rip, rflags,
	// cs, ss and rsp are what SYSCALL left, and rcx and r11 still equal
	// rip and rflags: SYSRET restores them exactly, but for TF and RF:
	// IRET traps after the next user instruction where SYSRET would trap
	// before it, and only IRET restores RF.  Those go by IRET, as Linux's.
	testq	$0x10100, TF_R11(%rsp)		// RF | TF
	jnz	interrupt_return
syscall_sysret:
	POP_REGS
	movq	16 + 24(%rsp), %rsp		// user RSP from the frame
	swapgs
	sysretq

	// The checked return: SYSRET restores RIP from RCX and RFLAGS from
	// R11.  Use it only when the frame is what SYSRET can express: RCX
	// == RIP, R11 == RFLAGS, a canonical user RIP (SYSRET to a
	// non-canonical RIP faults in kernel mode on Intel), no TF/RF, and
	// Linux's user selectors.  Anything else (exec, signal delivery,
	// sigreturn) returns by IRET.
syscall_return_checked:
	movq	TF_RCX(%rsp), %rcx
	cmpq	%rcx, TF_RIP(%rsp)
	jne	interrupt_return
	movq	TF_R11(%rsp), %r11
	cmpq	%r11, TF_RFLAGS(%rsp)
	jne	interrupt_return
	movq	$0x00007ffffffff000, %rax
	cmpq	%rax, %rcx
	jae	interrupt_return
	testq	$0x10100, %r11			// RF | TF
	jnz	interrupt_return
	cmpq	$SEL_USER_CS, TF_CS(%rsp)
	jne	interrupt_return
	cmpq	$SEL_USER_DS, TF_SS(%rsp)
	jne	interrupt_return
	jmp	syscall_sysret

// void arch_enter_user(struct trap_frame *f): leave for user space with
// the registers in f (a new thread's first return, or after exec).
// Interrupts must be off.
	.globl arch_enter_user
arch_enter_user:
	movq	%rdi, %rsp
	jmp	interrupt_return
