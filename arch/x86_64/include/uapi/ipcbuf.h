// The System V IPC structures of the Linux x86-64 ABI (the generic
// layouts), as IPC_STAT and IPC_SET pass them.  Each arch has its own
// (arch/<arch>/include/uapi/ipcbuf.h): ppc64 orders them differently.
#ifndef UAPI_IPCBUF_H
#define UAPI_IPCBUF_H

#include <stdint.h>

// struct ipc64_perm of the x86-64 ABI (48 bytes).
struct user_ipc64_perm {
	int32_t key;
	uint32_t uid, gid, cuid, cgid;
	uint32_t mode;
	uint16_t seq, pad2;
	uint64_t unused1, unused2;
};

// struct semid64_ds of the x86-64 ABI (104 bytes).
struct user_semid64_ds {
	struct user_ipc64_perm perm;
	int64_t otime;
	uint64_t unused1;
	int64_t ctime;
	uint64_t unused2;
	uint64_t nsems;
	uint64_t unused3, unused4;
};

// struct shmid64_ds of the x86-64 ABI (112 bytes).
struct user_shmid64_ds {
	struct user_ipc64_perm perm;
	uint64_t segsz;
	int64_t atime, dtime, ctime;
	int32_t cpid, lpid;
	uint64_t nattch;
	uint64_t unused4, unused5;
};

// struct msqid64_ds of the x86-64 ABI (112 bytes).
struct user_msqid64_ds {
	struct user_ipc64_perm perm;
	int64_t stime, rtime, ctime;
	uint64_t cbytes, qnum, qbytes;
	int32_t lspid, lrpid;
	uint64_t unused4, unused5;
};

#endif
