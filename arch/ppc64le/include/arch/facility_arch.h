// The facilities of ppc64 (docs/facilities.md): FP (MSR[FP]), VMX/VSX
// (MSR[VEC], MSR[VSX]) and transactional memory (MSR[TM]).  Each is off
// until a thread's first use raises its facility-unavailable interrupt
// (0x800, 0xF20/0xF40, 0xF60 with FSCR[IC] = 5); the policy over them is
// kernel/sched/facility.c's, as on x86-64.
#ifndef ARCH_FACILITY_ARCH_H
#define ARCH_FACILITY_ARCH_H

#include <stdbool.h>

#define FAC_FP		0
#define FAC_VEC		1	// VMX and VSX: VSX spans the FP and VMX registers
#define FAC_TM		2
#define NR_FACILITIES	3

struct thread;

const char *arch_fac_name(int f);		// for messages: "FP", "VEC", "TM"
bool arch_fac_present(int f);			// the CPU has it (and it is enabled)
bool arch_fac_usable(int f, struct thread *t);
int arch_fac_prepare(int f, struct thread *t);
void arch_fac_save(int f, struct thread *t);	// registers -> t's area
void arch_fac_restore(int f, struct thread *t);	// t's area -> registers
void arch_fac_load_init(int f);			// registers <- initial state
void arch_fac_reset_area(int f, struct thread *t); // t's area <- initial state
void arch_fac_switch(int f, bool on);		// gate for user mode

#endif
