// The user-memory loops of kernel/mm/uaccess.c.  Every instruction that
// touches user memory has an exception-table entry: a fault there that
// demand paging cannot resolve resumes at the entry's fixup, which
// reports how far the loop got.  Byte at a time: simple, and exact about
// where a fault stops the copy.

#define EX_ENTRY(insn, fixup)			\
	.pushsection __ex_table, "a";		\
	.balign	8;				\
	.quad	insn, fixup;			\
	.popsection

	.text

// size_t uaccess_copy(void *dst, const void *src, size_t n): bytes left.
	.globl	uaccess_copy
uaccess_copy:
	cmpdi	5, 0
	beq	3f
1:	lbz	6, 0(4)
2:	stb	6, 0(3)
	addi	3, 3, 1
	addi	4, 4, 1
	addi	5, 5, -1
	cmpdi	5, 0
	bne	1b
3:	mr	3, 5
	blr
	EX_ENTRY(1b, 3b)
	EX_ENTRY(2b, 3b)

// size_t uaccess_clear(void *dst, size_t n): bytes left.
	.globl	uaccess_clear
uaccess_clear:
	li	6, 0
	cmpdi	4, 0
	beq	2f
1:	stb	6, 0(3)
	addi	3, 3, 1
	addi	4, 4, -1
	cmpdi	4, 0
	bne	1b
2:	mr	3, 4
	blr
	EX_ENTRY(1b, 2b)

// long uaccess_strncpy(char *dst, const char *src, size_t max): copies up
// to and including the NUL; the length, -1 if no NUL within max, -2 on a
// fault.
	.globl	uaccess_strncpy
uaccess_strncpy:
	li	7, 0			// bytes copied
1:	cmpld	7, 5
	bge	3f
2:	lbzx	6, 4, 7
	stbx	6, 3, 7
	cmpdi	6, 0
	beq	4f
	addi	7, 7, 1
	b	1b
3:	li	3, -1
	blr
4:	mr	3, 7
	blr
5:	li	3, -2
	blr
	EX_ENTRY(2b, 5b)

// int uaccess_cmpxchg32(uint32_t *uaddr, uint32_t expected, uint32_t
// desired, uint32_t *old): 0 (with *old the value found), or nonzero on a
// fault.  Fully ordered, as a futex operation must be.
	.globl	uaccess_cmpxchg32
uaccess_cmpxchg32:
	sync
1:	lwarx	7, 0, 3
	cmpw	7, 4
	bne	3f
2:	stwcx.	5, 0, 3
	bne-	1b
3:	sync
	stw	7, 0(6)
	li	3, 0
	blr
4:	li	3, 1
	blr
	EX_ENTRY(1b, 4b)
	EX_ENTRY(2b, 4b)
