// The System V IPC structures of the Linux ppc64 ABI (asm/ipcbuf.h,
// sembuf.h, shmbuf.h, msgbuf.h): a 32-bit mode and seq in the
// permissions, and the times before the sizes.
#ifndef UAPI_IPCBUF_H
#define UAPI_IPCBUF_H

#include <stdint.h>

// struct ipc64_perm (48 bytes).
struct user_ipc64_perm {
	int32_t key;
	uint32_t uid, gid, cuid, cgid;
	uint32_t mode;
	uint32_t seq, pad1;
	uint64_t unused1, unused2;
};

// struct semid64_ds (88 bytes).
struct user_semid64_ds {
	struct user_ipc64_perm perm;
	int64_t otime;
	int64_t ctime;
	uint64_t nsems;
	uint64_t unused3, unused4;
};

// struct shmid64_ds (112 bytes).
struct user_shmid64_ds {
	struct user_ipc64_perm perm;
	int64_t atime, dtime, ctime;
	uint64_t segsz;
	int32_t cpid, lpid;
	uint64_t nattch;
	uint64_t unused4, unused5;
};

// struct msqid64_ds (120 bytes).
struct user_msqid64_ds {
	struct user_ipc64_perm perm;
	int64_t stime, rtime, ctime;
	uint64_t cbytes, qnum, qbytes;
	int32_t lspid, lrpid;
	uint64_t unused4, unused5;
};

#endif
