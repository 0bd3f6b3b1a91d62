// Start-up code for application processors.  It is copied to
// AP_TRAMPOLINE_PHYS (below 1 MiB, as SIPI needs) and entered in real mode;
// it goes through protected mode into long mode with the kernel's page
// tables and jumps to ap_entry(cpu) on the stack the boot CPU prepared.
// The boot CPU fills in the fields at the end before each start.

#include <arch/memlayout.h>

#define T(sym)	(AP_TRAMPOLINE_PHYS + (sym) - trampoline_start)

	.section .rodata
	.balign 16
	.globl trampoline_start, trampoline_end
	.globl trampoline_cr3, trampoline_efer, trampoline_stack
	.globl trampoline_cpu, trampoline_entry
	.code16
trampoline_start:
	cli
	cld
	xorw	%ax, %ax
	movw	%ax, %ds
	lgdtl	T(tramp_gdt_desc)
	movl	%cr0, %eax
	orl	$1, %eax			// PE
	movl	%eax, %cr0
	ljmpl	$0x08, $T(tramp32)

	.code32
tramp32:
	movw	$0x10, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movl	%cr4, %eax
	orl	$(1 << 5), %eax			// PAE
	movl	%eax, %cr4
	movl	T(trampoline_cr3), %eax
	movl	%eax, %cr3
	movl	$0xc0000080, %ecx		// EFER: LME, and NXE if the BSP uses it
	rdmsr
	orl	T(trampoline_efer), %eax
	wrmsr
	movl	%cr0, %eax
	orl	$0x80010000, %eax		// PG | WP
	movl	%eax, %cr0
	ljmpl	$0x18, $T(tramp64)

	.code64
tramp64:
	movq	T(trampoline_stack), %rsp
	movq	T(trampoline_cpu), %rdi
	movq	T(trampoline_entry), %rax
	xorl	%ebp, %ebp
	jmp	*%rax

	.balign 8
tramp_gdt:
	.quad	0
	.quad	0x00cf9a000000ffff		// 0x08: 32-bit code
	.quad	0x00cf92000000ffff		// 0x10: data
	.quad	0x00af9a000000ffff		// 0x18: 64-bit code
tramp_gdt_desc:
	.word	tramp_gdt_desc - tramp_gdt - 1
	.long	T(tramp_gdt)

	.balign 8
trampoline_cr3:		.long 0
trampoline_efer:	.long 0
trampoline_stack:	.quad 0
trampoline_cpu:		.quad 0
trampoline_entry:	.quad 0
trampoline_end:
