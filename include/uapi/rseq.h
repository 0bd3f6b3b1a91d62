// rseq(2)'s ABI: the per-thread area and the critical-section descriptor,
// with the layout and values of Linux's uapi (struct rseq grew node_id and
// mm_cid in Linux 6.3; a 32-byte area has room for them).
#ifndef UAPI_RSEQ_H
#define UAPI_RSEQ_H

#include <stdint.h>

#define RSEQ_FLAG_UNREGISTER	0x1

#define RSEQ_CPU_ID_UNINITIALIZED	((uint32_t)-1)

// Deprecated since Linux 6.0: a critical section or area that sets any
// flag gets SIGSEGV when the kernel looks at it.
#define RSEQ_CS_FLAG_NO_RESTART_ON_PREEMPT	0x1
#define RSEQ_CS_FLAG_NO_RESTART_ON_SIGNAL	0x2
#define RSEQ_CS_FLAG_NO_RESTART_ON_MIGRATE	0x4

// Offsets in struct rseq.
#define RSEQ_OFF_CPU_ID_START	0	// u32, then cpu_id (u32) at 4
#define RSEQ_OFF_RSEQ_CS	8	// u64: user address of a struct rseq_cs
#define RSEQ_OFF_FLAGS		16	// u32
#define RSEQ_OFF_NODE_ID	20	// u32, then mm_cid (u32) at 24

#define RSEQ_ORIG_SIZE		32	// the first ABI's size, and every area's alignment
#define RSEQ_FEATURE_SIZE	28	// offset of the end of the known fields (AT_RSEQ_FEATURE_SIZE)
#define RSEQ_ALIGN		32	// AT_RSEQ_ALIGN

struct rseq_cs_desc {
	uint32_t version;	// 0
	uint32_t flags;
	uint64_t start_ip;
	uint64_t post_commit_offset;	// the section is [start_ip, start_ip + this)
	uint64_t abort_ip;		// outside it, after the signature word
};

#endif
