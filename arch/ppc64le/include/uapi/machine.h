// What the Linux ppc64 ABI calls this machine (the e_machine of the
// programs it runs, uname's machine, AT_PLATFORM's string) and the order
// of clone's arguments.
#ifndef UAPI_MACHINE_H
#define UAPI_MACHINE_H

#define ELF_MACHINE	21		// EM_PPC64
#define UTS_MACHINE	"ppc64le"
#define UTS_MACHINE_32	"ppc64le"	// no 32-bit personality here
#define ELF_PLATFORM	"power9"

// clone(flags, stack, parent_tid, tls, child_tid): ppc64 is one of
// Linux's CONFIG_CLONE_BACKWARDS arches.
#define CLONE_ARG_CHILD_TID	4
#define CLONE_ARG_TLS		3

#endif
