// The facilities of ppc64 (docs/facilities.md): FP (MSR[FP]), VMX/VSX
// (MSR[VEC], MSR[VSX]) and transactional memory (MSR[TM]).  Each is off
// until a thread's first use raises its facility-unavailable interrupt
// (0x800, 0xF20/0xF40, 0xF60 with FSCR[IC] = 5); the policy over them is
// kernel/sched/facility.c's, as on x86-64.
#ifndef ARCH_FACILITY_ARCH_H
#define ARCH_FACILITY_ARCH_H

#define FAC_FP		0
#define FAC_VEC		1	// VMX and VSX: VSX spans the FP and VMX registers
#define FAC_TM		2
#define NR_FACILITIES	3

// The mechanisms (arch_fac_save, ...) are declared in kernel/facility.h.

#endif
