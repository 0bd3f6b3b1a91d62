// arch_prctl: the user FS and GS bases (thread-local storage), and the
// CPUID-faulting controls (not offered).

#include <stdint.h>
#include <arch/x86.h>
#include <arch/xstate.h>
#include <arch/memlayout.h>
#include <kernel/syscall.h>
#include <kernel/thread.h>
#include <kernel/uaccess.h>
#include <uapi/errno.h>

#define ARCH_SET_GS		0x1001
#define ARCH_SET_FS		0x1002
#define ARCH_GET_FS		0x1003
#define ARCH_GET_GS		0x1004
#define ARCH_GET_CPUID		0x1011
#define ARCH_SET_CPUID		0x1012

// The GET forms report the live registers: with FSGSBASE the thread may
// have changed them without a system call.
SYSCALL_DEFINE(SYS_arch_prctl, arch_prctl)
{
	int code = (int)args->a[0];
	uint64_t addr = args->a[1];

	switch (code) {
	case ARCH_SET_FS:
		if (!arch_user_base_ok(addr))
			return -EPERM;
		arch_set_user_fs(addr);
		return 0;
	case ARCH_SET_GS:
		if (!arch_user_base_ok(addr))
			return -EPERM;
		arch_set_user_gs(addr);		// swapped in on the way out
		return 0;
	case ARCH_GET_FS:
		return put_user_u64(addr, arch_user_fs()) < 0 ? -EFAULT : 0;
	case ARCH_GET_GS:
		return put_user_u64(addr, arch_user_gs()) < 0 ? -EFAULT : 0;
	case ARCH_GET_CPUID:
		return 1;		// CPUID always works: no CPUID faulting here
	case ARCH_SET_CPUID:
		return -ENODEV;		// as Linux on a CPU without CPUID faulting
	default:
		// ARCH_GET_XCOMP_SUPP, ARCH_GET_XCOMP_PERM, ARCH_REQ_XCOMP_PERM;
		// anything else is EINVAL there.
		return xstate_prctl(code, addr);
	}
}
