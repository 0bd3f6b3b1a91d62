// The offsets of C structures that the x86-64 assembly uses, computed by
// the compiler (OpenBSD's genassym, Linux's asm-offsets).  This file is
// only compiled to assembly: each OFFSET leaves a line "->NAME VALUE" in
// it, which the Makefile turns into "#define NAME VALUE" in the
// generated <arch/asm_offsets.h>.  A structure that changes moves its
// offsets with it; nothing is written twice.
#include <stddef.h>

#include <kernel/cpu.h>
#include <arch/trapframe.h>

#define OFFSET(name, value) __asm__ volatile("\n.ascii \"->" #name " %c0\"" : : "i"(value))

void asm_offsets(void);

void asm_offsets(void)
{
	// struct cpu, read through %gs by the SYSCALL entry.
	OFFSET(CPU_SYSCALL_USER_RSP, offsetof(struct cpu, arch.syscall_user_rsp));
	OFFSET(CPU_KSTACK_TOP, offsetof(struct cpu, arch.kstack_top));

	// struct trap_frame, as the entry code pushes it.
	OFFSET(TF_R11, offsetof(struct trap_frame, r11));
	OFFSET(TF_RCX, offsetof(struct trap_frame, rcx));
	OFFSET(TF_VECTOR, offsetof(struct trap_frame, vector));
	OFFSET(TF_RIP, offsetof(struct trap_frame, rip));
	OFFSET(TF_CS, offsetof(struct trap_frame, cs));
	OFFSET(TF_RFLAGS, offsetof(struct trap_frame, rflags));
	OFFSET(TF_RSP, offsetof(struct trap_frame, rsp));
	OFFSET(TF_SS, offsetof(struct trap_frame, ss));
	OFFSET(TF_SIZE, sizeof(struct trap_frame));
}
