// NUMA memory policies on a machine with one memory node (node 0), as
// Linux 6.1 answers them: set_mempolicy/get_mempolicy (modes, mode flags,
// the node-mask rules of maxnode, MPOL_F_NODE/ADDR/MEMS_ALLOWED), mbind
// (per-mapping policies that split and merge mappings, holes, STRICT and
// EIO, MOVE/MOVE_ALL), fork and threads inheriting policies,
// move_pages (status and moves to node 0, ENODEV elsewhere),
// migrate_pages and set_mempolicy_home_node.  Skipped where the machine
// has more than one memory node.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"
#include "sysutil.h"

#ifndef SYS_set_mempolicy_home_node	// musl lacks it; 450 on every arch
#define SYS_set_mempolicy_home_node 450
#endif

#define MPOL_DEFAULT		0
#define MPOL_PREFERRED		1
#define MPOL_BIND		2
#define MPOL_INTERLEAVE		3
#define MPOL_LOCAL		4
#define MPOL_PREFERRED_MANY	5
#define MPOL_F_STATIC_NODES	(1 << 15)
#define MPOL_F_RELATIVE_NODES	(1 << 14)
#define MPOL_F_NUMA_BALANCING	(1 << 13)
#define MPOL_F_NODE		(1 << 0)
#define MPOL_F_ADDR		(1 << 1)
#define MPOL_F_MEMS_ALLOWED	(1 << 2)
#define MPOL_MF_STRICT		(1 << 0)
#define MPOL_MF_MOVE		(1 << 1)
#define MPOL_MF_MOVE_ALL	(1 << 2)
#define MPOL_MF_LAZY		(1 << 3)

#define PG 4096UL

static long set_mempolicy(int mode, const unsigned long *mask, unsigned long maxnode)
{
	return syscall(SYS_set_mempolicy, mode, mask, maxnode);
}

static long get_mempolicy(int *mode, unsigned long *mask, unsigned long maxnode, void *addr,
			  unsigned long flags)
{
	return syscall(SYS_get_mempolicy, mode, mask, maxnode, addr, flags);
}

static long mbind(void *addr, unsigned long len, int mode, const unsigned long *mask,
		  unsigned long maxnode, unsigned flags)
{
	return syscall(SYS_mbind, addr, len, mode, mask, maxnode, flags);
}

static long move_pages(int pid, unsigned long n, void **pages, const int *nodes, int *status,
		       int flags)
{
	return syscall(SYS_move_pages, pid, n, pages, nodes, status, flags);
}

static long migrate_pages(int pid, unsigned long maxnode, const unsigned long *from,
			  const unsigned long *to)
{
	return syscall(SYS_migrate_pages, pid, maxnode, from, to);
}

static long home_node(void *addr, unsigned long len, unsigned long node, unsigned long flags)
{
	return syscall(SYS_set_mempolicy_home_node, addr, len, node, flags);
}

// The thread's policy and mask (first word), or -1 with a failure.
static int policy_of(void *addr, unsigned long flags, unsigned long *mask)
{
	int mode = -1;
	unsigned long m[4] = { 0x5a5a, 0x5a5a, 0x5a5a, 0x5a5a };

	if (get_mempolicy(&mode, m, 64, addr, flags) < 0) {
		fail("get_mempolicy(%p, %#lx): errno %d", addr, flags, errno);
		return -1;
	}
	if (mask)
		*mask = m[0];
	return mode;
}

static void check_policy(void *addr, unsigned long flags, int mode, unsigned long mask,
			 const char *what)
{
	unsigned long got_mask = 0;
	int got = policy_of(addr, flags, &got_mask);

	if (got != mode || got_mask != mask)
		fail("%s: policy %#x mask %#lx, want %#x mask %#lx", what, got, got_mask, mode,
		     mask);
}

static void restore_default(void)
{
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
}

static void t_thread_policy_modes(void)
{
	unsigned long n0 = 1;

	check_policy(NULL, 0, MPOL_DEFAULT, 0, "fresh");
	check_ok(set_mempolicy(MPOL_BIND, &n0, 2), "BIND {0}");
	check_policy(NULL, 0, MPOL_BIND, 1, "BIND");
	check_ok(set_mempolicy(MPOL_INTERLEAVE, &n0, 2), "INTERLEAVE {0}");
	check_policy(NULL, 0, MPOL_INTERLEAVE, 1, "INTERLEAVE");
	check_ok(set_mempolicy(MPOL_PREFERRED, &n0, 2), "PREFERRED {0}");
	check_policy(NULL, 0, MPOL_PREFERRED, 1, "PREFERRED");
	check_ok(set_mempolicy(MPOL_PREFERRED_MANY, &n0, 2), "PREFERRED_MANY {0}");
	check_policy(NULL, 0, MPOL_PREFERRED_MANY, 1, "PREFERRED_MANY");
	check_ok(set_mempolicy(MPOL_LOCAL, NULL, 0), "LOCAL");
	check_policy(NULL, 0, MPOL_LOCAL, 0, "LOCAL");
	check_ok(set_mempolicy(MPOL_PREFERRED, NULL, 0), "PREFERRED of nothing");
	check_policy(NULL, 0, MPOL_LOCAL, 0, "PREFERRED of nothing is LOCAL");
	check_ok(set_mempolicy(MPOL_DEFAULT, NULL, 0), "DEFAULT");
	check_policy(NULL, 0, MPOL_DEFAULT, 0, "DEFAULT again");
}

static void t_thread_policy_errors(void)
{
	unsigned long n0 = 1, n1 = 2, none = 0;

	check_errno(set_mempolicy(99, &n0, 2), EINVAL, "unknown mode");
	check_errno(set_mempolicy(-1, &n0, 2), EINVAL, "mode -1");
	check_errno(set_mempolicy(MPOL_BIND, &none, 2), EINVAL, "BIND of nothing");
	check_errno(set_mempolicy(MPOL_BIND, &n1, 3), EINVAL, "BIND {1}: no memory there");
	check_errno(set_mempolicy(MPOL_INTERLEAVE, NULL, 0), EINVAL, "INTERLEAVE, no mask");
	check_errno(set_mempolicy(MPOL_PREFERRED_MANY, &n1, 3), EINVAL, "PREFERRED_MANY {1}");
	check_errno(set_mempolicy(MPOL_PREFERRED, &n1, 3), EINVAL, "PREFERRED {1}");
	check_errno(set_mempolicy(MPOL_LOCAL, &n0, 2), EINVAL, "LOCAL with nodes");
	check_errno(set_mempolicy(MPOL_DEFAULT, &n0, 2), EINVAL, "DEFAULT with nodes");
	check_errno(set_mempolicy(MPOL_BIND | MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES, &n0, 2),
		    EINVAL, "STATIC and RELATIVE");
	check_errno(set_mempolicy(MPOL_INTERLEAVE | MPOL_F_NUMA_BALANCING, &n0, 2), EINVAL,
		    "NUMA_BALANCING without BIND");
	check_errno(set_mempolicy(MPOL_PREFERRED | MPOL_F_STATIC_NODES, NULL, 0), EINVAL,
		    "PREFERRED of nothing, STATIC");
	check_errno(set_mempolicy(MPOL_LOCAL | MPOL_F_RELATIVE_NODES, NULL, 0), EINVAL,
		    "LOCAL, RELATIVE");
	check_errno(set_mempolicy(MPOL_BIND, (unsigned long *)8, 2), EFAULT, "mask at 8");
	check_policy(NULL, 0, MPOL_DEFAULT, 0, "nothing changed");
}

static void t_mode_flags(void)
{
	unsigned long n01 = 3, n1 = 2, n0 = 1;

	check_ok(set_mempolicy(MPOL_BIND | MPOL_F_STATIC_NODES, &n01, 3), "BIND|STATIC {0,1}");
	check_policy(NULL, 0, MPOL_BIND | MPOL_F_STATIC_NODES, 3, "STATIC keeps the user's mask");
	check_ok(set_mempolicy(MPOL_INTERLEAVE | MPOL_F_RELATIVE_NODES, &n1, 3),
		 "INTERLEAVE|RELATIVE {1}");
	check_policy(NULL, 0, MPOL_INTERLEAVE | MPOL_F_RELATIVE_NODES, 2, "RELATIVE {1}");
	check_ok(set_mempolicy(MPOL_PREFERRED | MPOL_F_STATIC_NODES, &n01, 3), "PREFERRED|STATIC");
	check_policy(NULL, 0, MPOL_PREFERRED | MPOL_F_STATIC_NODES, 3, "PREFERRED|STATIC");
	check_errno(set_mempolicy(MPOL_BIND | MPOL_F_STATIC_NODES, &n1, 3), EINVAL,
		    "STATIC {1}");
	check_ok(set_mempolicy(MPOL_BIND | MPOL_F_NUMA_BALANCING, &n0, 2), "BIND|NUMA_BALANCING");
	check_policy(NULL, 0, MPOL_BIND | MPOL_F_NUMA_BALANCING, 1, "NUMA_BALANCING reported");
	check_ok(set_mempolicy(MPOL_BIND, &n01, 3), "BIND {0,1}");
	check_policy(NULL, 0, MPOL_BIND, 1, "BIND {0,1} keeps node 0");
	restore_default();
}

// get_nodes: maxnode counts one bit more than it reads, a page of bits at
// most, and bits at or past MAX_NUMNODES (1024) must be clear.
static void t_maxnode_rules(void)
{
	static unsigned long big[4096 / 8 + 1];
	unsigned long n0 = 1;

	check_errno(set_mempolicy(MPOL_BIND, &n0, 1), EINVAL, "maxnode 1 reads nothing");
	check_ok(set_mempolicy(MPOL_BIND, &n0, 2), "maxnode 2 reads node 0");
	check_errno(set_mempolicy(MPOL_BIND, &n0, 0), EINVAL, "maxnode 0 wraps");
	memset(big, 0, sizeof(big));
	big[0] = 1;
	check_ok(set_mempolicy(MPOL_BIND, big, 4096 * 8 + 1), "a page of bits");
	check_errno(set_mempolicy(MPOL_BIND, big, 4096 * 8 + 2), EINVAL, "past a page of bits");
	big[1000 / 64] |= 1UL << (1000 % 64);
	check_ok(set_mempolicy(MPOL_BIND, big, 1025), "bit 1000 (below 1024) is allowed");
	big[1000 / 64] = 0;
	big[1500 / 64] |= 1UL << (1500 % 64);
	check_errno(set_mempolicy(MPOL_BIND, big, 2049), EINVAL, "bit 1500 set");
	check_ok(set_mempolicy(MPOL_BIND, big, 1400), "bit 1500 past maxnode");
	big[1500 / 64] = 0;
	big[1030 / 64] |= 1UL << (1030 % 64);
	check_errno(set_mempolicy(MPOL_BIND, big, 1032), EINVAL, "bit 1030 set");
	// Past MAX_NUMNODES whole words are checked: bit 1030 counts with
	// maxnode 1030 (bits 0..1028) too.
	check_errno(set_mempolicy(MPOL_BIND, big, 1030), EINVAL, "bit 1030, maxnode 1030");
	check_ok(set_mempolicy(MPOL_BIND, big, 1025), "bit 1030 past 1024 bits");
	big[1030 / 64] = 0;
	// Only RELATIVE gives a mask without node 0 a node.
	big[0] = 0;
	big[1000 / 64] |= 1UL << (1000 % 64);
	check_ok(set_mempolicy(MPOL_BIND | MPOL_F_RELATIVE_NODES, big, 1025), "RELATIVE {1000}");
	check_errno(set_mempolicy(MPOL_BIND, big, 1025), EINVAL, "BIND {1000}");
	check_errno(set_mempolicy(MPOL_LOCAL, big, 1025), EINVAL, "LOCAL {1000}");
	restore_default();
}

static void t_get_mempolicy_flags(void)
{
	unsigned long m[8], n0 = 1;
	int mode = -1;
	char *p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (!check(p != MAP_FAILED, "mmap"))
		return;
	check_errno(get_mempolicy(&mode, m, 64, NULL, 8), EINVAL, "unknown flag");
	check_policy(NULL, MPOL_F_MEMS_ALLOWED, 0, 1, "MEMS_ALLOWED");
	check_errno(get_mempolicy(&mode, m, 64, NULL, MPOL_F_MEMS_ALLOWED | MPOL_F_NODE), EINVAL,
		    "MEMS_ALLOWED|NODE");
	check_errno(get_mempolicy(&mode, m, 64, NULL, MPOL_F_MEMS_ALLOWED | MPOL_F_ADDR), EINVAL,
		    "MEMS_ALLOWED|ADDR");
	check_errno(get_mempolicy(&mode, m, 64, p, 0), EINVAL, "an address without ADDR");
	check_errno(get_mempolicy(&mode, m, 64, NULL, MPOL_F_NODE), EINVAL, "NODE, not interleave");
	set_mempolicy(MPOL_INTERLEAVE, &n0, 2);
	check_policy(NULL, MPOL_F_NODE, 0, 1, "NODE: next interleave node");
	check_policy(p, MPOL_F_ADDR, MPOL_DEFAULT, 0, "ADDR: the mapping's, not the thread's");
	check_policy(p, MPOL_F_ADDR | MPOL_F_NODE, 0, 0, "ADDR|NODE: the page's node");
	check_errno(get_mempolicy(&mode, m, 64, p + 16 * PG, MPOL_F_ADDR), EFAULT,
		    "ADDR of nothing");
	munmap(p, PG);
	check_errno(get_mempolicy(&mode, m, 0, NULL, 0), EINVAL, "maxnode 0 with a mask");
	check_ok(get_mempolicy(&mode, NULL, 0, NULL, 0), "no mask, maxnode 0");
	m[0] = 77;
	check_ok(get_mempolicy(&mode, m, 1, NULL, 0), "maxnode 1");
	check(m[0] == 77, "maxnode 1 writes no mask");
	memset(m, 0x5a, sizeof(m));
	check_ok(get_mempolicy(&mode, m, 200, NULL, 0), "maxnode 200");
	check(m[0] == 1 && m[1] == 0 && m[2] == 0 && m[3] == 0 && m[4] == 0x5a5a5a5a5a5a5a5aUL,
	      "maxnode 200: the mask and 24 bytes of zeros");
	mode = -1;
	check_errno(get_mempolicy(&mode, m, 40000, NULL, 0), EINVAL, "mask over a page");
	check(mode == MPOL_INTERLEAVE, "the mode is written before the mask's EINVAL");
	check_errno(get_mempolicy((int *)8, m, 64, NULL, 0), EFAULT, "mode at 8");
	check_errno(get_mempolicy(&mode, (unsigned long *)8, 64, NULL, 0), EFAULT, "mask at 8");
	restore_default();
}

// The number of lines of /proc/self/maps inside [p, p + len).
static int maps_in(char *p, unsigned long len)
{
	char buf[65536], *line, *save;
	int n = 0;

	if (read_file("/proc/self/maps", buf, sizeof(buf)) < 0)
		return fail("read /proc/self/maps"), -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo >= (unsigned long)p &&
		    hi <= (unsigned long)p + len)
			n++;
	}
	return n;
}

// n pages with nothing mapped on either side, so that no neighbour
// (libc's own anonymous mappings) merges with them in /proc/self/maps.
static char *map_pages(int n)
{
	char *p = mmap(NULL, (n + 2) * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fail("mmap");
		return NULL;
	}
	munmap(p, PG);
	munmap(p + (n + 1) * PG, PG);
	return p + PG;
}

static void t_mbind_splits_and_merges(void)
{
	unsigned long n0 = 1;
	char *p = map_pages(8);

	if (!p)
		return;
	check(maps_in(p, 8 * PG) == 1, "one mapping");
	check_ok(mbind(p + 2 * PG, 3 * PG, MPOL_BIND, &n0, 2, 0), "mbind pages 2-4");
	check(maps_in(p, 8 * PG) == 3, "split in three");
	check_policy(p + 3 * PG, MPOL_F_ADDR, MPOL_BIND, 1, "page 3 BIND");
	check_policy(p + 5 * PG, MPOL_F_ADDR, MPOL_DEFAULT, 0, "page 5 DEFAULT");
	check_policy(p + PG, MPOL_F_ADDR, MPOL_DEFAULT, 0, "page 1 DEFAULT");
	check_ok(mbind(p + 5 * PG, PG - 100, MPOL_BIND, &n0, 2, 0), "mbind page 5 (short len)");
	check(maps_in(p, 8 * PG) == 3, "page 5 joins its BIND neighbour");
	check_ok(mbind(p + 6 * PG, PG, MPOL_INTERLEAVE, &n0, 2, 0), "mbind page 6");
	check(maps_in(p, 8 * PG) == 4, "a different policy is a mapping of its own");
	check_policy(p + 6 * PG, MPOL_F_ADDR, MPOL_INTERLEAVE, 1, "page 6 INTERLEAVE");
	check_ok(mbind(p, 8 * PG, MPOL_DEFAULT, NULL, 0, 0), "mbind DEFAULT over all");
	check(maps_in(p, 8 * PG) == 1, "merged back");
	check_policy(p + 3 * PG, MPOL_F_ADDR, MPOL_DEFAULT, 0, "page 3 DEFAULT again");
	// mprotect keeps the policy.
	check_ok(mbind(p, 8 * PG, MPOL_PREFERRED, &n0, 2, 0), "PREFERRED over all");
	check_ok(mprotect(p + PG, PG, PROT_READ), "mprotect page 1");
	check_policy(p + PG, MPOL_F_ADDR, MPOL_PREFERRED, 1, "mprotect keeps it");
	check_ok(mprotect(p + PG, PG, PROT_READ | PROT_WRITE), "mprotect back");
	check(maps_in(p, 8 * PG) == 1, "merged after mprotect");
	munmap(p, 8 * PG);
}

static void t_mbind_errors(void)
{
	unsigned long n0 = 1, n1 = 2;
	char *p = map_pages(4);

	if (!p)
		return;
	check_errno(mbind(p, PG, MPOL_BIND, &n0, 2, MPOL_MF_LAZY), EINVAL, "MF_LAZY");
	check_errno(mbind(p, PG, MPOL_BIND, &n0, 2, 16), EINVAL, "unknown flag");
	check_errno(mbind(p + 1, PG, MPOL_BIND, &n0, 2, 0), EINVAL, "unaligned start");
	check_ok(mbind(p, 0, MPOL_BIND, &n0, 2, 0), "length 0");
	check_errno(mbind(p, -PG, MPOL_BIND, &n0, 2, 0), EINVAL, "wrapping length");
	check_errno(mbind(p, PG, 99, &n0, 2, 0), EINVAL, "unknown mode");
	check_errno(mbind(p, PG, MPOL_BIND, &n1, 3, 0), EINVAL, "BIND {1}");
	check_errno(mbind(p, PG, MPOL_BIND, NULL, 0, 0), EINVAL, "BIND of nothing");
	check_errno(mbind(p, PG, MPOL_BIND, (unsigned long *)8, 2, 0), EFAULT, "mask at 8");
	check_errno(mbind(p, 0, MPOL_BIND, (unsigned long *)8, 2, 0), EFAULT,
		    "the mask is read before the length");
	check_errno(mbind(p, 0, 99, &n0, 2, 0), EINVAL, "the mode is checked before the length");
	munmap(p + PG, PG);
	check_errno(mbind(p, 3 * PG, MPOL_BIND, &n0, 2, 0), EFAULT, "a hole in the middle");
	check_errno(mbind(p + PG, 2 * PG, MPOL_BIND, &n0, 2, 0), EFAULT, "a hole at the start");
	check_errno(mbind(p, 2 * PG, MPOL_BIND, &n0, 2, 0), EFAULT, "a hole at the end");
	check_policy(p, MPOL_F_ADDR, MPOL_DEFAULT, 0, "nothing changed");
	check_ok(mbind(p, 3 * PG, MPOL_DEFAULT, NULL, 0, 0), "DEFAULT over a hole");
	check_errno(mbind(p + PG, PG, MPOL_DEFAULT, NULL, 0, 0), EFAULT, "DEFAULT over nothing");
	munmap(p, 4 * PG);
}

// MPOL_MF_STRICT reports pages already placed against the policy: on one
// node only a policy without node 0 (LOCAL) has such pages.
static void t_mbind_strict(void)
{
	unsigned long n0 = 1;
	char *p = map_pages(4);

	if (!p)
		return;
	check_ok(mbind(p, 4 * PG, MPOL_LOCAL, NULL, 0, MPOL_MF_STRICT), "LOCAL STRICT, no pages");
	check_ok(mbind(p, 4 * PG, MPOL_DEFAULT, NULL, 0, 0), "back to DEFAULT");
	p[2 * PG] = 1;
	check_errno(mbind(p, 4 * PG, MPOL_LOCAL, NULL, 0, MPOL_MF_STRICT), EIO,
		    "LOCAL STRICT over a page");
	check_policy(p, MPOL_F_ADDR, MPOL_DEFAULT, 0, "EIO changed nothing");
	check_ok(mbind(p, 2 * PG, MPOL_LOCAL, NULL, 0, MPOL_MF_STRICT), "STRICT beside the page");
	check_ok(mbind(p, 4 * PG, MPOL_PREFERRED, NULL, 0, MPOL_MF_STRICT | MPOL_MF_MOVE),
		 "STRICT|MOVE moves it where it is");
	check_policy(p + 2 * PG, MPOL_F_ADDR, MPOL_LOCAL, 0, "PREFERRED of nothing: LOCAL");
	check_ok(mbind(p, 4 * PG, MPOL_BIND, &n0, 2, MPOL_MF_STRICT), "BIND {0} STRICT");
	check_ok(mbind(p, 4 * PG, MPOL_BIND, &n0, 2, MPOL_MF_MOVE_ALL), "MOVE_ALL as root");
	check_ok(mbind(p, 4 * PG, MPOL_DEFAULT, NULL, 0, MPOL_MF_STRICT), "DEFAULT drops STRICT");
	munmap(p, 4 * PG);
}

static int c_move_all_unprivileged(void)
{
	unsigned long n0 = 1;
	char *p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *pages[1] = { p };
	int status[1];

	if (drop_to(U1, G1, 0, NULL))
		return 1;
	if (c_err(mbind(p, PG, MPOL_BIND, &n0, 2, MPOL_MF_MOVE_ALL), EPERM, "mbind MOVE_ALL"))
		return 1;
	if (c_err(move_pages(0, 1, pages, NULL, status, MPOL_MF_MOVE_ALL), EPERM,
		  "move_pages MOVE_ALL"))
		return 1;
	if (c_err(migrate_pages(1, 2, &n0, &n0), EPERM, "migrate_pages of init"))
		return 1;
	return c_ok(mbind(p, PG, MPOL_BIND, &n0, 2, MPOL_MF_MOVE), "mbind MOVE");
}

static void t_unprivileged(void) { in_child(c_move_all_unprivileged, "unprivileged"); }

static void *thread_policy(void *arg)
{
	int mode = -1;
	unsigned long mask = 0;

	(void)arg;
	if (get_mempolicy(&mode, &mask, 64, NULL, 0) < 0)
		return (void *)1L;
	return (void *)(long)(mode == MPOL_INTERLEAVE && mask == 1 ? 0 : 2);
}

static void t_fork_and_threads_inherit(void)
{
	unsigned long n0 = 1;
	char *p = map_pages(2);
	pthread_t th;
	void *res;

	if (!p)
		return;
	check_ok(set_mempolicy(MPOL_INTERLEAVE, &n0, 2), "INTERLEAVE");
	check_ok(mbind(p, PG, MPOL_BIND, &n0, 2, 0), "mbind");
	if (check(pthread_create(&th, NULL, thread_policy, NULL) == 0, "pthread_create")) {
		pthread_join(th, &res);
		check(res == NULL, "a new thread has its creator's policy");
	}
	pid_t pid = fork_child();
	if (pid == 0) {
		int mode = -1;
		unsigned long mask = 0;
		if (get_mempolicy(&mode, &mask, 64, NULL, 0) < 0 || mode != MPOL_INTERLEAVE)
			_exit(2);
		if (get_mempolicy(&mode, &mask, 64, p, MPOL_F_ADDR) < 0 || mode != MPOL_BIND)
			_exit(3);
		if (get_mempolicy(&mode, &mask, 64, p + PG, MPOL_F_ADDR) < 0 || mode != MPOL_DEFAULT)
			_exit(4);
		_exit(0);
	}
	check_child_ok(pid, "child's policies");
	restore_default();
	munmap(p, 2 * PG);
}

static void t_move_pages(void)
{
	char *p = map_pages(3);
	int status[4] = { 9, 9, 9, 9 }, nodes[4] = { 0, 0, 0, 0 };

	if (!p)
		return;
	munmap(p + 2 * PG, PG);
	p[0] = 1;
	void *pages[4] = { p, p + PG, p + 2 * PG, p + 10 };
	check_ok(move_pages(0, 4, pages, NULL, status, 0), "status");
	check(status[0] == 0 && status[1] == -ENOENT && status[2] == -EFAULT && status[3] == 0,
	      "status: node 0, -ENOENT, -EFAULT, node 0");
	memset(status, 9, sizeof(status));
	check_ok(move_pages(0, 4, pages, nodes, status, MPOL_MF_MOVE), "move to node 0");
	check(status[0] == 0 && status[1] == -ENOENT && status[2] == -EFAULT && status[3] == 0,
	      "moved: node 0, -ENOENT, -EFAULT, node 0");
	nodes[1] = 1;
	check_errno(move_pages(0, 2, pages, nodes, status, 0), ENODEV, "to node 1");
	nodes[1] = -1;
	check_errno(move_pages(0, 2, pages, nodes, status, 0), ENODEV, "to node -1");
	nodes[1] = 5000;
	check_errno(move_pages(0, 2, pages, nodes, status, 0), ENODEV, "to node 5000");
	check_errno(move_pages(0, 1, pages, NULL, status, 8), EINVAL, "unknown flag");
	check_errno(move_pages(0, 1, (void **)8, NULL, status, 0), EFAULT, "pages at 8");
	check_errno(move_pages(0, 1, pages, NULL, (int *)8, 0), EFAULT, "status at 8");
	check_ok(move_pages(0, 0, NULL, NULL, NULL, 0), "no pages");
	check_errno(move_pages(0x3ffffff, 1, pages, NULL, status, 0), ESRCH, "no such process");
	pid_t pid = fork_child();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	status[0] = 9;
	check_ok(move_pages(pid, 1, pages, NULL, status, 0), "another process");
	check(status[0] == 0, "its copy of the page is on node 0");
	kill(pid, SIGKILL);
	reap_child(pid);
	munmap(p, 2 * PG);
}

static void t_migrate_pages(void)
{
	unsigned long n0 = 1, n1 = 2, none = 0;

	check_ok(migrate_pages(0, 2, &n0, &n0), "0 -> 0");
	check(migrate_pages(getpid(), 2, &n0, &n0) == 0, "own pid: nothing left to move");
	check_ok(migrate_pages(0, 2, &none, &n0), "nothing -> 0");
	check_errno(migrate_pages(0, 2, &n0, &none), EINVAL, "0 -> nothing");
	check_errno(migrate_pages(0, 3, &n0, &n1), EINVAL, "0 -> 1 as root");
	check_errno(migrate_pages(0x3ffffff, 2, &n0, &n0), ESRCH, "no such process");
	check_errno(migrate_pages(0, 2, (unsigned long *)8, &n0), EFAULT, "old at 8");
	check_errno(migrate_pages(0, 2, &n0, (unsigned long *)8), EFAULT, "new at 8");
	check_errno(migrate_pages(0, 40000, &n0, &n0), EINVAL, "maxnode over a page");
}

static void t_home_node(void)
{
	unsigned long n0 = 1;
	char *p = map_pages(4);

	if (!p)
		return;
	check_errno(home_node(p, 4 * PG, 0, 0), ENOENT, "no policy in the range");
	check_ok(mbind(p + PG, 2 * PG, MPOL_BIND, &n0, 2, 0), "BIND pages 1-2");
	check(maps_in(p, 4 * PG) == 3, "three mappings");
	check_ok(home_node(p, 4 * PG, 0, 0), "home node 0");
	check_ok(home_node(p + 2 * PG, PG, 0, 0), "home node 0 again, part of it");
	check_errno(home_node(p, PG, 1, 0), EINVAL, "node 1");
	check_errno(home_node(p, PG, 5000, 0), EINVAL, "node 5000");
	check_errno(home_node(p, PG, 0, 1), EINVAL, "flags");
	check_errno(home_node(p + 1, PG, 0, 0), EINVAL, "unaligned");
	check_ok(home_node(p, 0, 0, 0), "length 0");
	check_errno(home_node(p, -PG, 0, 0), EINVAL, "wrapping length");
	check_ok(mbind(p + 3 * PG, PG, MPOL_INTERLEAVE, &n0, 2, 0), "INTERLEAVE page 3");
	check_errno(home_node(p + 3 * PG, PG, 0, 0), EOPNOTSUPP, "INTERLEAVE");
	check_ok(mbind(p, 4 * PG, MPOL_DEFAULT, NULL, 0, 0), "DEFAULT");
	munmap(p, 4 * PG);
}

// /sys/devices/system/node as Linux has it with one node: what libnuma
// and LTP's NUMA helpers read.
static void t_sysfs_node(void)
{
	char buf[4096];
	long total = -1, used = -1;

	if (read_file("/sys/devices/system/node/online", buf, sizeof(buf)) <= 0 ||
	    strcmp(buf, "0\n") != 0)
		fail("node/online: %s", buf);
	if (read_file("/sys/devices/system/node/has_memory", buf, sizeof(buf)) <= 0 ||
	    strcmp(buf, "0\n") != 0)
		fail("node/has_memory: %s", buf);
	if (read_file("/sys/devices/system/node/node0/distance", buf, sizeof(buf)) <= 0 ||
	    strcmp(buf, "10\n") != 0)
		fail("node0/distance: %s", buf);
	char cpus[256];
	if (read_file("/sys/devices/system/node/node0/cpulist", buf, sizeof(buf)) <= 0 ||
	    read_file("/sys/devices/system/cpu/online", cpus, sizeof(cpus)) <= 0 ||
	    strcmp(buf, cpus) != 0)
		fail("node0/cpulist %s is not the online CPUs %s", buf, cpus);
	if (read_file("/sys/devices/system/node/node0/meminfo", buf, sizeof(buf)) <= 0)
		return (void)fail("read node0/meminfo");
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		long v;
		if (sscanf(line, "Node 0 MemTotal: %ld kB", &v) == 1)
			total = v;
		if (sscanf(line, "Node 0 MemUsed: %ld kB", &v) == 1)
			used = v;
	}
	check(total > 0 && used > 0 && used < total, "node0/meminfo: MemTotal and MemUsed");
}

static const struct test_case cases[] = {
	{ "thread_policy_modes", t_thread_policy_modes },
	{ "thread_policy_errors", t_thread_policy_errors },
	{ "mode_flags", t_mode_flags },
	{ "maxnode_rules", t_maxnode_rules },
	{ "get_mempolicy_flags", t_get_mempolicy_flags },
	{ "mbind_splits_and_merges", t_mbind_splits_and_merges },
	{ "mbind_errors", t_mbind_errors },
	{ "mbind_strict", t_mbind_strict },
	{ "unprivileged_EPERM", t_unprivileged },
	{ "fork_and_threads_inherit", t_fork_and_threads_inherit },
	{ "move_pages", t_move_pages },
	{ "migrate_pages", t_migrate_pages },
	{ "home_node", t_home_node },
	{ "sysfs_node", t_sysfs_node },
};

int main(void)
{
	char possible[64] = "";

	// The cases are what one memory node gives.
	if (read_file("/sys/devices/system/node/possible", possible, sizeof(possible)) > 0 &&
	    strcmp(possible, "0\n") != 0) {
		ktap_plan(0);
		printf("# SKIP more than one memory node: %s", possible);
		return 0;
	}
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
