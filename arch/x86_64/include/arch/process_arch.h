// x86-64 per-process state.
#ifndef ARCH_PROCESS_ARCH_H
#define ARCH_PROCESS_ARCH_H

#include <stdint.h>

struct process_arch {
	// XSAVE components the process may use (arch_prctl
	// ARCH_REQ_XCOMP_PERM adds AMX tile data); inherited by fork,
	// reset by exec, as on Linux.
	uint64_t xfeatures_perm;
};

#endif
