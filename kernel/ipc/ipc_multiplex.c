// ipc(2): the System V IPC multiplexer that some archs keep beside the
// direct calls, and that glibc uses on ppc64.  Each operation goes to the
// direct call, arguments rearranged as Linux's ksys_ipc does.

#include <stdint.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <uapi/errno.h>

#ifdef SYS_ipc

#define IPCOP_SEMOP		1
#define IPCOP_SEMGET		2
#define IPCOP_SEMCTL		3
#define IPCOP_SEMTIMEDOP	4
#define IPCOP_MSGSND		11
#define IPCOP_MSGRCV		12
#define IPCOP_MSGGET		13
#define IPCOP_MSGCTL		14
#define IPCOP_SHMAT		21
#define IPCOP_SHMDT		22
#define IPCOP_SHMGET		23
#define IPCOP_SHMCTL		24
#define IPC_64			0x100	// the new struct layouts: always, on 64-bit

static long call(uint64_t nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		 uint64_t a4)
{
	struct syscall_args args = { { a0, a1, a2, a3, a4, 0 } };

	return syscall_call(nr, &args);
}

// ipc(call, first, second, third, ptr, fifth); the top 16 bits of 'call'
// are the interface version.
SYSCALL_DEFINE(SYS_ipc, ipc)
{
	unsigned version = (unsigned)(args->a[0] >> 16), op = args->a[0] & 0xffff;
	int64_t first = (int)args->a[1];
	uint64_t second = args->a[2], third = args->a[3], ptr = args->a[4], fifth = args->a[5];
	uint64_t v;

	switch (op) {
	case IPCOP_SEMOP:
		return call(SYS_semtimedop, first, ptr, second, 0, 0);
	case IPCOP_SEMTIMEDOP:
		return call(SYS_semtimedop, first, ptr, second, fifth, 0);
	case IPCOP_SEMGET:
		return call(SYS_semget, first, second, third, 0, 0);
	case IPCOP_SEMCTL:
		// The fourth argument is passed by reference here.
		if (!ptr)
			return -EINVAL;
		if (get_user_u64(&v, ptr) < 0)
			return -EFAULT;
		return call(SYS_semctl, first, second, (int)third & ~IPC_64, v, 0);
	case IPCOP_MSGSND:
		return call(SYS_msgsnd, first, ptr, second, third, 0);
	case IPCOP_MSGRCV:
		if (version == 0) {
			// struct ipc_kludge { void *msgp; long msgtyp; } at ptr.
			uint64_t kludge[2];
			if (!ptr)
				return -EINVAL;
			if (copy_from_user(kludge, ptr, sizeof(kludge)) < 0)
				return -EFAULT;
			return call(SYS_msgrcv, first, kludge[0], second, kludge[1], third);
		}
		return call(SYS_msgrcv, first, ptr, second, fifth, third);
	case IPCOP_MSGGET:
		return call(SYS_msgget, first, second, 0, 0, 0);
	case IPCOP_MSGCTL:
		return call(SYS_msgctl, first, (int)second & ~IPC_64, ptr, 0, 0);
	case IPCOP_SHMAT: {
		if (version == 1)
			return -EINVAL;		// the iBCS2 form: never on 64-bit
		long addr = call(SYS_shmat, first, ptr, second, 0, 0);
		if (addr < 0 && addr >= -4095)
			return addr;
		return put_user_u64(third, (uint64_t)addr) < 0 ? -EFAULT : 0;
	}
	case IPCOP_SHMDT:
		return call(SYS_shmdt, ptr, 0, 0, 0, 0);
	case IPCOP_SHMGET:
		return call(SYS_shmget, first, second, third, 0, 0);
	case IPCOP_SHMCTL:
		return call(SYS_shmctl, first, (int)second & ~IPC_64, ptr, 0, 0);
	}
	return -ENOSYS;
}

#endif
