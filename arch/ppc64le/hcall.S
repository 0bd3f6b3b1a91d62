// Hypervisor calls (PAPR): "sc 1" with the opcode in r3 and arguments in
// r4-r9; the status comes back in r3 and results in r4-r7.  The C calling
// convention already has them where the hypervisor wants them.
//   long hcall(uint64_t op, uint64_t a1, ..., uint64_t a6);
//   long hcall_ret(uint64_t ret[4], uint64_t op, uint64_t a1, ..., uint64_t a6);

	.text
	.globl	hcall
hcall:
	sc	1
	blr

	.globl	hcall_ret
hcall_ret:
	std	3, -8(1)		// in the protected zone below r1
	mr	3, 4
	mr	4, 5
	mr	5, 6
	mr	6, 7
	mr	7, 8
	mr	8, 9
	mr	9, 10
	sc	1
	ld	12, -8(1)
	std	4, 0(12)
	std	5, 8(12)
	std	6, 16(12)
	std	7, 24(12)
	blr
