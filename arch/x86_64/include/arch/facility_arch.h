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

#define FAC_XSTATE	0
#define FAC_AMX		1
#define NR_FACILITIES	2

// The mechanisms (arch_fac_save, ...) are declared in kernel/facility.h.

#endif
