// Primitive user-memory accessors.  Each instruction that touches user
// memory has an entry in the exception table: if it faults and the fault
// cannot be resolved (demand paging, copy on write), the page-fault
// handler resumes at the fixup, which reports failure.  SMAP is opened
// and closed by the C callers (user_access_begin/end).

	.macro EX_ENTRY insn, fixup
	.pushsection __ex_table, "a"
	.balign 8
	.quad \insn, \fixup
	.popsection
	.endm

	.text
// size_t uaccess_copy(void *dst, const void *src, size_t n)
// Returns the number of bytes NOT copied.
	.globl uaccess_copy
uaccess_copy:
	movq	%rdx, %rcx
1:	rep movsb
	xorl	%eax, %eax
	ret
2:	movq	%rcx, %rax
	ret
	EX_ENTRY 1b, 2b

// size_t uaccess_clear(void *dst, size_t n): bytes NOT cleared.
	.globl uaccess_clear
uaccess_clear:
	movq	%rsi, %rcx
	xorl	%eax, %eax
3:	rep stosb
	ret
4:	movq	%rcx, %rax
	ret
	EX_ENTRY 3b, 4b

// long uaccess_strncpy(char *dst, const char *src, size_t max)
// Copies up to and including the NUL; returns the string length, -1 if
// no NUL within max bytes, -2 on a fault.
	.globl uaccess_strncpy
uaccess_strncpy:
	xorl	%eax, %eax
5:	cmpq	%rdx, %rax
	jae	7f
6:	movb	(%rsi, %rax), %cl
	movb	%cl, (%rdi, %rax)
	testb	%cl, %cl
	jz	8f
	incq	%rax
	jmp	5b
7:	movq	$-1, %rax
8:	ret
9:	movq	$-2, %rax
	ret
	EX_ENTRY 6b, 9b

// int uaccess_cmpxchg32(uint32_t *uaddr, uint32_t expected, uint32_t desired, uint32_t *old)
// Returns 0 (and *old) or -1 on a fault.
	.globl uaccess_cmpxchg32
uaccess_cmpxchg32:
	movl	%esi, %eax
10:	lock cmpxchgl %edx, (%rdi)
	movl	%eax, (%rcx)
	xorl	%eax, %eax
	ret
11:	movl	$-1, %eax
	ret
	EX_ENTRY 10b, 11b
