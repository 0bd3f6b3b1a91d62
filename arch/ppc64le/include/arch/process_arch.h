// Per-process arch state on ppc64: none yet beyond what every thread
// keeps (TM needs no permission, unlike x86-64's AMX).
#ifndef ARCH_PROCESS_ARCH_H
#define ARCH_PROCESS_ARCH_H

#include <stdint.h>

struct process_arch {
	uint64_t reserved;
};

#endif
