// The offsets of C structures that the ppc64 assembly uses, computed by
// the compiler (see arch/x86_64/gen/asm_offsets.c for how the Makefile
// turns them into <arch/asm_offsets.h>).
#include <stddef.h>

#include <kernel/cpu.h>
#include <kernel/thread.h>
#include <arch/trapframe.h>

#define OFFSET(name, value) __asm__ volatile("\n.ascii \"->" #name " %c0\"" : : "i"(value))

void asm_offsets(void);

void asm_offsets(void)
{
	// struct cpu, reached through r13 (SPRG0 at an interrupt).
	OFFSET(CPU_KSTACK_TOP, offsetof(struct cpu, arch.kstack_top));
	OFFSET(CPU_EMERGENCY_TOP, offsetof(struct cpu, arch.emergency_top));
	OFFSET(CPU_SCRATCH0, offsetof(struct cpu, arch.scratch[0]));
	OFFSET(CPU_SCRATCH1, offsetof(struct cpu, arch.scratch[1]));
	OFFSET(CPU_SCRATCH2, offsetof(struct cpu, arch.scratch[2]));
	OFFSET(CPU_SCRATCH3, offsetof(struct cpu, arch.scratch[3]));

	// struct trap_frame, as the exception entry stores it.
	OFFSET(TF_GPR0, offsetof(struct trap_frame, gpr[0]));
	OFFSET(TF_NIP, offsetof(struct trap_frame, nip));
	OFFSET(TF_MSR, offsetof(struct trap_frame, msr));
	OFFSET(TF_ORIG_R3, offsetof(struct trap_frame, orig_r3));
	OFFSET(TF_CTR, offsetof(struct trap_frame, ctr));
	OFFSET(TF_LINK, offsetof(struct trap_frame, link));
	OFFSET(TF_XER, offsetof(struct trap_frame, xer));
	OFFSET(TF_CCR, offsetof(struct trap_frame, ccr));
	OFFSET(TF_TRAP, offsetof(struct trap_frame, trap));
	OFFSET(TF_DAR, offsetof(struct trap_frame, dar));
	OFFSET(TF_DSISR, offsetof(struct trap_frame, dsisr));
	OFFSET(TF_SIZE, sizeof(struct trap_frame));
}
