// NUMA memory policies (kernel/mm/mempolicy.c) as Linux keeps them on a
// machine with one memory node, node 0: a thread's policy (set_mempolicy)
// and a mapping's (mbind).  Every page is on node 0 whatever the policy,
// so a policy is only remembered, reported and inherited.
#ifndef KERNEL_MEMPOLICY_H
#define KERNEL_MEMPOLICY_H

#include <stdint.h>

#define MPOL_DEFAULT		0
#define MPOL_PREFERRED		1
#define MPOL_BIND		2
#define MPOL_INTERLEAVE		3
#define MPOL_LOCAL		4
#define MPOL_PREFERRED_MANY	5
#define MPOL_MAX		6

#define MPOL_F_STATIC_NODES	(1 << 15)
#define MPOL_F_RELATIVE_NODES	(1 << 14)
#define MPOL_F_NUMA_BALANCING	(1 << 13)
#define MPOL_MODE_FLAGS		(MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES | \
				 MPOL_F_NUMA_BALANCING)

// A policy, held by value (copied with its thread or mapping).  All zero
// is MPOL_DEFAULT, no policy at all; mappings with equal policies merge.
struct mempolicy {
	uint16_t mode;			// MPOL_*
	uint16_t flags;			// MPOL_MODE_FLAGS as given
	uint16_t home;			// set_mempolicy_home_node's node + 1; 0: none
	uint64_t nodes;			// the nodes it allows (bit 0, or none for LOCAL)
	uint64_t user_nodes;		// STATIC/RELATIVE: the caller's mask (first word)
};

#endif
