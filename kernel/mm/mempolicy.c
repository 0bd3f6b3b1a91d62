// NUMA memory policies: mbind, set_mempolicy, get_mempolicy,
// migrate_pages, move_pages, set_mempolicy_home_node, as Linux 6.1
// (mm/mempolicy.c, mm/migrate.c) answers them on a machine with one
// memory node, node 0, and MAX_NUMNODES 1024 (Debian's CONFIG_NODES_SHIFT).
// Every page is on node 0, so policies are checked, kept per thread and
// per mapping, inherited by fork and reported; nothing ever moves.

#include <kernel/mempolicy.h>
#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/thread.h>
#include <kernel/cred.h>
#include <kernel/uaccess.h>
#include <kernel/vm.h>
#include <kernel/spinlock.h>
#include <uapi/errno.h>

#define MAX_NUMNODES	1024
#define NODE_WORDS	(MAX_NUMNODES / 64)
#define PAGE_BYTES	4096UL
#define CAP_SYS_NICE	23

#define MPOL_F_NODE		(1 << 0)
#define MPOL_F_ADDR		(1 << 1)
#define MPOL_F_MEMS_ALLOWED	(1 << 2)

#define MPOL_MF_STRICT		(1 << 0)
#define MPOL_MF_MOVE		(1 << 1)
#define MPOL_MF_MOVE_ALL	(1 << 2)
#define MPOL_MF_VALID		(MPOL_MF_STRICT | MPOL_MF_MOVE | MPOL_MF_MOVE_ALL)

#define NODE0		1UL	// the one node with memory (and every CPU)

// A node mask from user space: its first word (the only one that can
// name node 0), whether any of its MAX_NUMNODES bits is set and whether
// any other than node 0's.
struct nodes {
	uint64_t word0;
	bool any, others;
};

// One word of the user's mask, cut to its low 'bits' bits (get_bitmap).
static int get_word(uint64_t *w, uint64_t umask, uint64_t index, uint64_t bits)
{
	if (copy_from_user(w, umask + index * 8, 8) < 0)
		return -EFAULT;
	if (bits % 64)
		*w &= (1UL << (bits % 64)) - 1;
	return 0;
}

// get_nodes: maxnode counts one more than the bits read (Linux's
// off-by-one, kept by its ABI); more than a page of bits is EINVAL, and
// set bits at or beyond MAX_NUMNODES are EINVAL, checked a word at a time
// from the end as Linux does (whole words: a bit past maxnode in the
// last word read counts too).
static int get_nodes(struct nodes *n, uint64_t umask, uint64_t maxnode)
{
	uint64_t words[NODE_WORDS];

	n->word0 = 0;
	n->any = n->others = false;
	maxnode--;
	if (maxnode == 0 || !umask)
		return 0;
	if (maxnode > PAGE_BYTES * 8)
		return -EINVAL;
	while (maxnode > MAX_NUMNODES) {
		uint64_t bits = maxnode < 64 ? maxnode : 64, t;
		if (get_word(&t, umask, (maxnode - 1) / 64, bits) < 0)
			return -EFAULT;
		if (maxnode - bits >= MAX_NUMNODES)
			maxnode -= bits;
		else
			maxnode = MAX_NUMNODES;	// the word holding bit 1024 is whole
		if (t)
			return -EINVAL;
	}
	uint64_t nwords = (maxnode + 63) / 64;
	if (copy_from_user(words, umask, nwords * 8) < 0)
		return -EFAULT;
	if (maxnode % 64)
		words[nwords - 1] &= (1UL << (maxnode % 64)) - 1;
	n->word0 = words[0];
	for (uint64_t i = 0; i < nwords; i++)
		n->any |= words[i] != 0;
	n->others = n->any && words[0] != NODE0;
	return 0;
}

// sanitize_mpol_flags: the mode and its flags apart, or -EINVAL.
static int split_mode(int mode, int *m, uint16_t *flags)
{
	*flags = (uint16_t)(mode & MPOL_MODE_FLAGS);
	*m = mode & ~MPOL_MODE_FLAGS;
	if ((unsigned)*m >= MPOL_MAX)
		return -EINVAL;
	if ((*flags & MPOL_F_STATIC_NODES) && (*flags & MPOL_F_RELATIVE_NODES))
		return -EINVAL;
	if ((*flags & MPOL_F_NUMA_BALANCING) && *m != MPOL_BIND)
		return -EINVAL;
	return 0;
}

// mpol_new and mpol_set_nodemask: the policy for mode, flags and nodes
// (all zero for MPOL_DEFAULT), or -EINVAL.  The nodes a policy gets are
// the user's within node 0 (RELATIVE_NODES folds any non-empty mask onto
// the one node), and must not be empty.
static int make_policy(struct mempolicy *pol, int mode, uint16_t flags, const struct nodes *n)
{
	*pol = (struct mempolicy){0};
	if (mode == MPOL_DEFAULT)
		return n->any ? -EINVAL : 0;
	if (mode == MPOL_PREFERRED && !n->any) {
		if (flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES))
			return -EINVAL;
		mode = MPOL_LOCAL;	// preferred nothing: allocate locally
	} else if (mode == MPOL_LOCAL) {
		if (n->any || (flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES)))
			return -EINVAL;
	} else if (!n->any) {
		return -EINVAL;
	}
	pol->mode = (uint16_t)mode;
	pol->flags = flags;
	if (mode == MPOL_LOCAL)
		return 0;
	pol->nodes = (flags & MPOL_F_RELATIVE_NODES) ? NODE0 : n->word0 & NODE0;
	if (flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES))
		pol->user_nodes = n->word0;
	return pol->nodes ? 0 : -EINVAL;
}

SYSCALL_DEFINE(SYS_set_mempolicy, set_mempolicy)
{
	struct mempolicy pol;
	struct nodes n;
	uint16_t flags;
	int mode, rc;

	rc = split_mode((int)args->a[0], &mode, &flags);
	if (rc == 0)
		rc = get_nodes(&n, args->a[1], args->a[2]);
	if (rc == 0)
		rc = make_policy(&pol, mode, flags, &n);
	if (rc == 0)
		current_thread()->mempolicy = pol;
	return rc;
}

// copy_nodes_to_user: maxnode - 1 bits rounded up to words; past the one
// word nr_node_ids needs, zeros (up to a page, else EINVAL).
static int put_nodes(uint64_t umask, uint64_t maxnode, uint64_t nodes)
{
	uint64_t copy = ((maxnode - 1 + 63) & ~63UL) / 8;

	if (copy > 8) {
		if (copy > PAGE_BYTES)
			return -EINVAL;
		if (clear_user(umask + 8, copy - 8) < 0)
			return -EFAULT;
		copy = 8;
	}
	return copy && copy_to_user(umask, &nodes, copy) < 0 ? -EFAULT : 0;
}

// do_get_mempolicy: the value for *policy and the mask, or -errno.
static int get_policy(uint64_t addr, uint64_t flags, int *val, uint64_t *mask)
{
	struct mempolicy pol = current_thread()->mempolicy;

	if (flags & ~(uint64_t)(MPOL_F_NODE | MPOL_F_ADDR | MPOL_F_MEMS_ALLOWED))
		return -EINVAL;
	if (flags & MPOL_F_MEMS_ALLOWED) {
		if (flags & (MPOL_F_NODE | MPOL_F_ADDR))
			return -EINVAL;
		*val = 0;
		*mask = NODE0;
		return 0;
	}
	if (flags & MPOL_F_ADDR) {
		// The mapping's own policy: MPOL_DEFAULT when it has none,
		// not the thread's.
		if (vm_get_policy(current_process()->mm, addr, &pol) < 0)
			return -EFAULT;
	} else if (addr) {
		return -EINVAL;
	}
	if (flags & MPOL_F_NODE) {
		if (flags & MPOL_F_ADDR) {
			// The node of the page there, faulted in as a read.
			uint64_t pa;
			if (vm_user_phys(current_process()->mm, addr, &pa) < 0)
				return -EFAULT;
			*val = 0;
		} else if (pol.mode == MPOL_INTERLEAVE) {
			*val = 0;	// the next interleave node: the only one
		} else {
			return -EINVAL;
		}
	} else {
		*val = pol.mode | pol.flags;
	}
	if (pol.flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES))
		*mask = pol.user_nodes;
	else
		*mask = pol.nodes;
	return 0;
}

SYSCALL_DEFINE(SYS_get_mempolicy, get_mempolicy)
{
	uint64_t upolicy = args->a[0], umask = args->a[1], maxnode = args->a[2];
	uint64_t mask;
	int val, rc;

	// nr_node_ids is 1: a mask needs room for one node.
	if (umask && maxnode < 1)
		return -EINVAL;
	rc = get_policy(args->a[3], args->a[4], &val, &mask);
	if (rc)
		return rc;
	if (upolicy && put_user_u32(upolicy, (uint32_t)val) < 0)
		return -EFAULT;
	return umask ? put_nodes(umask, maxnode, mask) : 0;
}

SYSCALL_DEFINE(SYS_mbind, mbind)
{
	uint64_t start = args->a[0], len = args->a[1];
	unsigned flags = (unsigned)args->a[5];
	struct mempolicy pol;
	struct nodes n;
	uint16_t mflags;
	int mode, rc;

	rc = split_mode((int)args->a[2], &mode, &mflags);
	if (rc == 0)
		rc = get_nodes(&n, args->a[3], args->a[4]);
	if (rc)
		return rc;
	if (flags & ~(unsigned)MPOL_MF_VALID)
		return -EINVAL;
	if ((flags & MPOL_MF_MOVE_ALL) && !cred_capable(current_cred(), CAP_SYS_NICE))
		return -EPERM;
	if (start & (PAGE_BYTES - 1))
		return -EINVAL;
	if (mode == MPOL_DEFAULT)
		flags &= ~(unsigned)MPOL_MF_STRICT;
	len = (len + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
	if (start + len < start)
		return -EINVAL;
	if (len == 0)
		return 0;
	rc = make_policy(&pol, mode, mflags, &n);
	if (rc)
		return rc;
	// A page already there is misplaced when the user's nodes lack node
	// 0 (LOCAL, or PREFERRED of nothing): STRICT alone reports it, a
	// move puts it where it already is.
	bool strict = (flags & MPOL_MF_VALID) == MPOL_MF_STRICT && !(n.word0 & NODE0);
	return vm_mbind(current_process()->mm, start, start + len, &pol, mode == MPOL_DEFAULT,
			strict);
}

SYSCALL_DEFINE(SYS_set_mempolicy_home_node, set_mempolicy_home_node)
{
	uint64_t start = args->a[0], len = args->a[1], node = args->a[2];

	if (start & (PAGE_BYTES - 1))
		return -EINVAL;
	if (args->a[3] != 0)
		return -EINVAL;
	if (node != 0)
		return -EINVAL;		// beyond MAX_NUMNODES, or not online
	len = (len + PAGE_BYTES - 1) & ~(PAGE_BYTES - 1);
	if (start + len < start)
		return -EINVAL;
	if (len == 0)
		return 0;
	return vm_set_home_node(current_process()->mm, start, start + len, (int)node);
}

// The address space of the process (or thread) pid names, referenced
// (NULL for a zombie's), for a caller who may inspect it (Linux's
// ptrace_may_access): 0, -ESRCH or -EPERM.  pid 0: the caller's.
static long target_mm(int pid, struct mm **mmp)
{
	long rc = 0;
	uint64_t irq = spin_lock_irqsave(&proc_tree_lock);
	struct process *p = pid ? process_find_any_id(pid) : current_process();

	*mmp = NULL;
	if (!p || pid < 0)
		rc = -ESRCH;
	else if (pid && cred_may_inspect(p))
		rc = -EPERM;
	else if ((*mmp = p->mm) != NULL)
		mm_get(*mmp);
	spin_unlock_irqrestore(&proc_tree_lock, irq);
	return rc;
}

// migrate_pages: every page is on node 0 already, so after Linux's checks
// nothing is left to move (0 pages not moved).
SYSCALL_DEFINE(SYS_migrate_pages, migrate_pages)
{
	int pid = (int)args->a[0];
	uint64_t maxnode = args->a[1];
	struct nodes old, new;
	long rc;

	rc = get_nodes(&old, args->a[2], maxnode);
	if (rc == 0)
		rc = get_nodes(&new, args->a[3], maxnode);
	if (rc)
		return rc;
	struct mm *mm;
	rc = target_mm(pid, &mm);
	if (rc)
		return rc;
	// Nodes beyond the task's (node 0) need CAP_SYS_NICE; with none of
	// the caller's left, or no address space, EINVAL.
	if (new.others && !cred_capable(current_cred(), CAP_SYS_NICE))
		rc = -EPERM;
	else if (!(new.word0 & NODE0) || !mm)
		rc = -EINVAL;
	if (mm)
		mm_put(mm);
	return rc;
}

// move_pages without nodes: each page's node (0), -ENOENT where nothing
// is there yet, -EFAULT where nothing is mapped; 16 at a time as Linux.
static long pages_status(struct mm *mm, uint64_t nr, uint64_t upages, uint64_t ustatus)
{
	uint64_t addrs[16];
	int status[16];

	while (nr) {
		uint64_t n = nr < 16 ? nr : 16;
		if (copy_from_user(addrs, upages, n * 8) < 0)
			return -EFAULT;
		for (uint64_t i = 0; i < n; i++)
			status[i] = vm_page_status(mm, addrs[i]);
		if (copy_to_user(ustatus, status, n * 4) < 0)
			return -EFAULT;
		upages += n * 8;
		ustatus += n * 4;
		nr -= n;
	}
	return 0;
}

// move_pages with nodes: node 0 is where every page is (status 0, or the
// page's error); any other node has no memory: ENODEV for the call.
static long pages_move(struct mm *mm, uint64_t nr, uint64_t upages, uint64_t unodes,
		       uint64_t ustatus)
{
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t addr;
		int32_t node;
		if (copy_from_user(&addr, upages + i * 8, 8) < 0 ||
		    copy_from_user(&node, unodes + i * 4, 4) < 0)
			return -EFAULT;
		if (node != 0)
			return -ENODEV;
		if (put_user_u32(ustatus + i * 4, (uint32_t)vm_page_status(mm, addr)) < 0)
			return -EFAULT;
	}
	return 0;
}

SYSCALL_DEFINE(SYS_move_pages, move_pages)
{
	int pid = (int)args->a[0], flags = (int)args->a[5];
	uint64_t nr = args->a[1], upages = args->a[2], unodes = args->a[3];
	long rc;

	if (flags & ~(MPOL_MF_MOVE | MPOL_MF_MOVE_ALL))
		return -EINVAL;
	if ((flags & MPOL_MF_MOVE_ALL) && !cred_capable(current_cred(), CAP_SYS_NICE))
		return -EPERM;
	struct mm *mm;
	rc = target_mm(pid, &mm);
	if (rc)
		return rc;
	if (!mm)
		return -EINVAL;
	if (unodes)
		rc = pages_move(mm, nr, upages, unodes, args->a[4]);
	else
		rc = pages_status(mm, nr, upages, args->a[4]);
	mm_put(mm);
	return rc;
}
