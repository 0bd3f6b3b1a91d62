// membarrier(2)'s command and flag numbers (Linux's uapi
// <linux/membarrier.h>), for the test and the benchmark, which build
// against musl's headers where the kernel's are not installed.
#ifndef USER_MEMBARRIER_ABI_H
#define USER_MEMBARRIER_ABI_H

#define CMD_QUERY		0
#define CMD_GLOBAL		(1 << 0)
#define CMD_GLOBAL_EXP		(1 << 1)
#define CMD_REG_GLOBAL_EXP	(1 << 2)
#define CMD_PRIVATE_EXP		(1 << 3)
#define CMD_REG_PRIVATE_EXP	(1 << 4)
#define CMD_SYNC_CORE		(1 << 5)
#define CMD_REG_SYNC_CORE	(1 << 6)
#define CMD_RSEQ		(1 << 7)
#define CMD_REG_RSEQ		(1 << 8)
#define CMD_GET_REG		(1 << 9)
#define FLAG_CPU		1

#endif
