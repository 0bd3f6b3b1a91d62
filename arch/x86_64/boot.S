// PVH entry: QEMU's -kernel loader jumps here in 32-bit protected mode with
// paging off and %ebx holding the physical address of the hvm_start_info.
// We build minimal page tables, enter long mode, move to the higher-half
// kernel mapping and call kmain(start_info_phys).  The final page tables
// are built later in C (arch/x86_64/mmu.c).

#include <arch/memlayout.h>

#define PHYS(sym)	((sym) - KERNEL_OFFSET)
#define PTE_P		0x001
#define PTE_W		0x002
#define PTE_PS		0x080

// The ELF note that tells QEMU where the 32-bit PVH entry point is.
	.section .note.pvh, "a"
	.balign 4
	.long 4			// name size ("Xen\0")
	.long 8			// descriptor size: a 64-bit address for ELF64
	.long 18		// XEN_ELFNOTE_PHYS32_ENTRY
	.asciz "Xen"
	.balign 4
	.quad PHYS(pvh_entry)
	.balign 4

	.section .text.boot, "ax"
	.code32
	.globl pvh_entry
pvh_entry:
	cli
	cld
	movl	%ebx, %edi			// keep start_info across the switch
	movl	$PHYS(boot_stack_top), %esp

	// Refuse to go on without long mode: print a message on COM1 and halt.
	movl	$0x80000001, %eax
	cpuid
	btl	$29, %edx
	jnc	no_long_mode
	movl	%edx, %esi			// bit 20: NX available

	// PML4[0] and PML4[256] share one PDPT that maps the first 4 GiB with
	// 2 MiB pages: an identity map for this code and the start of the
	// direct map.  PML4[511] -> PDPT whose entry 510 maps the kernel image.
	movl	$PHYS(boot_pdpt_low) + PTE_P + PTE_W, %eax
	movl	%eax, PHYS(boot_pml4)
	movl	%eax, PHYS(boot_pml4) + 256 * 8
	movl	$PHYS(boot_pdpt_high) + PTE_P + PTE_W, %eax
	movl	%eax, PHYS(boot_pml4) + 511 * 8

	movl	$PHYS(boot_pd) + PTE_P + PTE_W, %eax
	movl	%eax, PHYS(boot_pdpt_high) + 510 * 8
	xorl	%ecx, %ecx
1:	movl	%eax, PHYS(boot_pdpt_low)(, %ecx, 8)
	addl	$4096, %eax
	incl	%ecx
	cmpl	$4, %ecx
	jne	1b

	movl	$PTE_P + PTE_W + PTE_PS, %eax
	xorl	%ecx, %ecx
2:	movl	%eax, PHYS(boot_pd)(, %ecx, 8)
	addl	$0x200000, %eax
	incl	%ecx
	cmpl	$2048, %ecx
	jne	2b

	movl	%cr4, %eax
	orl	$(1 << 5), %eax			// PAE
	movl	%eax, %cr4
	movl	$PHYS(boot_pml4), %eax
	movl	%eax, %cr3

	movl	$0xc0000080, %ecx		// EFER
	rdmsr
	orl	$(1 << 8), %eax			// LME
	btl	$20, %esi
	jnc	3f
	orl	$(1 << 11), %eax		// NXE
3:	wrmsr

	movl	%cr0, %eax
	orl	$0x80010001, %eax		// PG | WP | PE
	movl	%eax, %cr0

	lgdt	PHYS(boot_gdt_desc)
	ljmp	$0x08, $PHYS(long_mode_entry)

no_long_mode:
	movl	$PHYS(no_long_mode_msg), %esi
4:	lodsb
	testb	%al, %al
	jz	5f
	movw	$0x3f8, %dx
	outb	%al, %dx
	jmp	4b
5:	hlt
	jmp	5b

	.code64
long_mode_entry:
	movw	$0x10, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	xorw	%ax, %ax
	movw	%ax, %fs
	movw	%ax, %gs
	movabsq	$higher_half, %rax
	jmp	*%rax

higher_half:
	movabsq	$boot_stack_top, %rsp
	xorl	%ebp, %ebp
	// %rdi still holds the start_info physical address.
	call	kmain
6:	hlt
	jmp	6b

	.section .rodata
no_long_mode_msg:
	.asciz	"switchyard: this CPU has no long mode (x86-64); cannot boot\n"

	.balign 8
boot_gdt:
	.quad	0
	.quad	0x00af9a000000ffff		// 0x08: 64-bit code
	.quad	0x00cf92000000ffff		// 0x10: data
boot_gdt_end:
boot_gdt_desc:
	.word	boot_gdt_end - boot_gdt - 1
	.long	PHYS(boot_gdt)

// Boot page tables, zeroed in the image so the 32-bit code can fill them.
	.section .data.boot_pagetables, "aw"
	.balign 4096
	.globl boot_pml4
boot_pml4:	.fill 4096, 1, 0
boot_pdpt_low:	.fill 4096, 1, 0
boot_pdpt_high:	.fill 4096, 1, 0
boot_pd:	.fill 4 * 4096, 1, 0

	.section .bss
	.balign 16
	.globl boot_stack_top
boot_stack:	.skip BOOT_STACK_SIZE
boot_stack_top:
