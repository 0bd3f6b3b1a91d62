// What the Linux x86-64 ABI calls this machine (the e_machine of the
// programs it runs, uname's machine, AT_PLATFORM's string) and the order
// of clone's arguments.  Each arch has its own
// (arch/<arch>/include/uapi/machine.h).
#ifndef UAPI_MACHINE_H
#define UAPI_MACHINE_H

#define ELF_MACHINE	62		// EM_X86_64
#define UTS_MACHINE	"x86_64"
#define UTS_MACHINE_32	"i686"		// under personality PER_LINUX32
#define ELF_PLATFORM	"x86_64"

// clone(flags, stack, parent_tid, child_tid, tls): which argument is which
// of the last two (Linux's CONFIG_CLONE_BACKWARDS arches swap them).
#define CLONE_ARG_CHILD_TID	3
#define CLONE_ARG_TLS		4

// prctl(PR_GET_TSC/PR_SET_TSC) exists (Linux: x86 only; elsewhere EINVAL).
#define ARCH_HAS_TSC_CTL	1

// struct epoll_event is packed (12 bytes), as only x86-64 has it.
#define ARCH_EPOLL_PACKED	1

#endif
