// The context switch proper: save the callee-saved registers of the
// running kernel thread on its stack, store its stack pointer in *from,
// load 'to' and pop its registers.  Everything else (address space,
// FS base, kernel stack pointer in the TSS, extended state) is handled in
// C around this call, so this stays the same for every policy.
//
//   void switch_stack(uint64_t *from_rsp, uint64_t to_rsp);

	.text
	.globl switch_stack
switch_stack:
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret

// First code run by a new thread: switch_stack "returns" here with the
// entry function in %r12 and its argument in %r13 (arch_thread_init).
	.globl thread_trampoline
thread_trampoline:
	movq	%r12, %rdi
	movq	%r13, %rsi
	call	thread_start
	ud2				// thread_start never returns
