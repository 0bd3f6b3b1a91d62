// The x86-64 facilities and the mechanisms the arch-neutral policy
// (kernel/sched/facility.c) drives:
//
//	FAC_XSTATE	x87, SSE, AVX, AVX-512 (and AMX's tile config):
//			switched off with CR0.TS, first use raises #NM
//	FAC_AMX		AMX tile data (XSAVE component 18, 8 KiB): switched
//			off with IA32_XFD bit 18, first use raises #NM with
//			IA32_XFD_ERR naming it; a process must ask for it
//			first (arch_prctl ARCH_REQ_XCOMP_PERM), as on Linux
//
// Both live in one XSAVE-format save area per thread; each facility saves
// and loads only its own components.  Save, restore and load_init may
// leave the gates open (the kernel needs them open to run XSAVE);
// arch_fac_switch sets them for user mode on the way out.
#ifndef ARCH_FACILITY_ARCH_H
#define ARCH_FACILITY_ARCH_H

#include <stdbool.h>

#define FAC_XSTATE	0
#define FAC_AMX		1
#define NR_FACILITIES	2

struct thread;

const char *arch_fac_name(int f);		// for messages: "FP", "AMX"
bool arch_fac_present(int f);			// the CPU has it (and it is enabled)
// Can t use facility f at all (the CPU has it, t may use it, and its save
// area has room)?  Only then may it be loaded without a trap.
bool arch_fac_usable(int f, struct thread *t);
// A trap from t's first use: 0 if the facility can be given to t now
// (the save area grown if it must be), else the signal to send (SIGILL:
// no such facility or no permission; SIGSEGV: no memory for the area).
int arch_fac_prepare(int f, struct thread *t);

void arch_fac_save(int f, struct thread *t);	// registers -> t's area
void arch_fac_restore(int f, struct thread *t);	// t's area -> registers
void arch_fac_load_init(int f);			// registers <- initial state
void arch_fac_reset_area(int f, struct thread *t); // t's area <- initial state
void arch_fac_switch(int f, bool on);		// gate for user mode

#endif
