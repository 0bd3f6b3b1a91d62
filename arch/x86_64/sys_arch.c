// arch_prctl: the user FS and GS bases (thread-local storage).

#include <stdint.h>
#include <arch/x86.h>
#include <arch/memlayout.h>
#include <kernel/syscall.h>
#include <kernel/thread.h>
#include <kernel/uaccess.h>
#include <uapi/errno.h>

#define ARCH_SET_GS		0x1001
#define ARCH_SET_FS		0x1002
#define ARCH_GET_FS		0x1003
#define ARCH_GET_GS		0x1004

SYSCALL_DEFINE(SYS_arch_prctl, arch_prctl)
{
	struct thread *t = current_thread();
	int code = (int)args->a[0];
	uint64_t addr = args->a[1];

	switch (code) {
	case ARCH_SET_FS:
		if (addr >= USER_END)
			return -EPERM;
		t->arch.fs_base = addr;
		arch_load_user_bases(t);
		return 0;
	case ARCH_SET_GS:
		if (addr >= USER_END)
			return -EPERM;
		t->arch.gs_base = addr;
		arch_load_user_bases(t);	// swapped in on the way out
		return 0;
	case ARCH_GET_FS:
		return put_user_u64(addr, t->arch.fs_base) < 0 ? -EFAULT : 0;
	case ARCH_GET_GS:
		return put_user_u64(addr, t->arch.gs_base) < 0 ? -EFAULT : 0;
	default:
		return -EINVAL;
	}
}
