// Memory syscalls: brk, mmap, munmap, mprotect, madvise, mremap.

#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/vm.h>
#include <fs/file.h>
#include <fs/vnode.h>
#include <fs/vfs.h>
#include <fs/fcntl.h>
#include <uapi/errno.h>
#include <arch/memlayout.h>

#define MADV_NORMAL	0
#define MADV_RANDOM	1
#define MADV_SEQUENTIAL	2
#define MADV_WILLNEED	3
#define MADV_DONTNEED	4
#define MADV_FREE	8
#define MADV_DOFORK	11
#define MADV_MERGEABLE	12
#define MADV_UNMERGEABLE 13
#define MADV_HUGEPAGE	14
#define MADV_NOHUGEPAGE	15
#define MADV_DONTDUMP	16
#define MADV_DODUMP	17
#define MADV_KEEPONFORK	19
#define MADV_COLD	20
#define MADV_PAGEOUT	21
#define MADV_DONTNEED_LOCKED 24

#define PROT_SEM	0x8		// accepted and meaningless on x86, as on Linux
#define PROT_GROWSDOWN	0x01000000
#define PROT_GROWSUP	0x02000000
#define MAP_32BIT	0x40
#define MAP_UNINITIALIZED 0x4000000
// What MAP_SHARED_VALIDATE accepts (Linux's LEGACY_MAP_MASK): MAP_SYNC,
// MAP_FIXED_NOREPLACE and anything unknown are EOPNOTSUPP.
#define MAP_LEGACY_MASK	(MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_DENYWRITE | \
			 MAP_EXECUTABLE | MAP_UNINITIALIZED | MAP_GROWSDOWN | MAP_LOCKED | \
			 MAP_NORESERVE | MAP_POPULATE | MAP_NONBLOCK | MAP_STACK | MAP_HUGETLB | \
			 MAP_32BIT | (0x1fUL << 26))

#define MS_ASYNC	1
#define MS_INVALIDATE	2
#define MS_SYNC		4
#define MCL_CURRENT	1
#define MCL_FUTURE	2
#define MCL_ONFAULT	4

SYSCALL_DEFINE(SYS_brk, brk)
{
	return vm_brk(current_process()->mm, args->a[0]);
}

SYSCALL_DEFINE(SYS_mmap, mmap)
{
	uint64_t addr = args->a[0], len = args->a[1], off = args->a[5];
	int prot = (int)args->a[2], flags = (int)args->a[3], fd = (int)args->a[4];
	int type = flags & MAP_TYPE;
	struct vnode *vn = 0;
	uint64_t file_bytes = 0;

	if (type != MAP_PRIVATE && type != MAP_SHARED && type != MAP_SHARED_VALIDATE)
		return -EINVAL;
	if (type == MAP_SHARED_VALIDATE && (flags & MAP_ANONYMOUS))
		return -EINVAL;		// as on Linux: validation is for files
	if (len == 0 || (off & 4095) || (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM)))
		return -EINVAL;
	if ((flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) && (addr & 4095))
		return -EINVAL;
	// Not implemented: huge pages (EINVAL, as Linux without hugetlbfs),
	// placement below 2 GiB and mappings that grow down.
	if (flags & (MAP_HUGETLB | MAP_32BIT | MAP_GROWSDOWN))
		return -EINVAL;
	if (type == MAP_SHARED_VALIDATE && (flags & ~MAP_LEGACY_MASK))
		return -EOPNOTSUPP;
	// Locked pages: there is no swap, so every page stays in memory;
	// MAP_LOCKED also faults the mapping in, as on Linux.
	if (flags & MAP_LOCKED)
		flags |= MAP_POPULATE;
	if (!(flags & MAP_ANONYMOUS)) {
		struct file *f = fd_get(current_fdtable(), fd);
		if (!f)
			return -EBADF;
		if (f->flags & O_PATH) {
			file_put(f);
			return -EBADF;		// names a file, cannot map it
		}
		if (!f->vn || f->vn->type != VNODE_REG) {
			file_put(f);
			return f->vn ? -ENODEV : -EACCES;
		}
		if (!file_readable(f) || (type != MAP_PRIVATE && (prot & PROT_WRITE) && !file_writable(f))) {
			file_put(f);
			return -EACCES;
		}
		// A shared file mapping would be private copies of the pages,
		// not coherent with read and write: refused as Linux refuses a
		// file that cannot be shared-mapped.
		if (type != MAP_PRIVATE) {
			file_put(f);
			return -ENODEV;
		}
		vn = f->vn;
		vnode_get(vn);
		file_put(f);
		// The whole mapping may read file bytes (up to the end of file);
		// beyond that pages are zeros.
		file_bytes = vn->size > off ? vn->size - off : 0;
		if (file_bytes > len)
			file_bytes = len;
	}
	if (len > USER_END) {
		if (vn)
			vnode_put(vn);	// the file's reference, taken above
		return -ENOMEM;
	}
	long r = vm_map(current_process()->mm, addr, len, prot, flags, vn, off, file_bytes);
	if (vn)
		vnode_put(vn);
	return r;
}

SYSCALL_DEFINE(SYS_munmap, munmap)
{
	return vm_unmap(current_process()->mm, args->a[0], args->a[1]);
}

SYSCALL_DEFINE(SYS_mprotect, mprotect)
{
	int prot = (int)args->a[2];

	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM | PROT_GROWSDOWN | PROT_GROWSUP))
		return -EINVAL;
	// No mapping grows (the stack has its full size from exec), and on
	// one that does not, Linux refuses these too.
	if (prot & (PROT_GROWSDOWN | PROT_GROWSUP))
		return -EINVAL;
	return vm_protect(current_process()->mm, args->a[0], args->a[1],
			  prot & (PROT_READ | PROT_WRITE | PROT_EXEC));
}

SYSCALL_DEFINE(SYS_madvise, madvise)
{
	uint64_t addr = args->a[0], len = args->a[1];
	int advice = (int)args->a[2];

	if (addr & 4095)
		return -EINVAL;
	switch (advice) {
	case MADV_DONTNEED:
	case MADV_DONTNEED_LOCKED:	// locked pages are no different here
	case MADV_FREE:
		return vm_discard(current_process()->mm, addr, len);
	case MADV_NORMAL: case MADV_RANDOM: case MADV_SEQUENTIAL: case MADV_WILLNEED:
	case MADV_COLD: case MADV_PAGEOUT:
		return 0;	// paging hints: with no swap nothing can be paged out
	case MADV_MERGEABLE: case MADV_UNMERGEABLE: case MADV_HUGEPAGE: case MADV_NOHUGEPAGE:
		return 0;	// page sharing and size: invisible to the program
	case MADV_DONTDUMP: case MADV_DODUMP:
		return 0;	// no core dumps are written
	case MADV_DOFORK: case MADV_KEEPONFORK:
		return 0;	// undo what cannot be set
	default:
		// MADV_REMOVE, MADV_DONTFORK, MADV_WIPEONFORK, MADV_POPULATE_*,
		// MADV_COLLAPSE and the memory-failure advice are not
		// implemented; EINVAL is also Linux's answer for unknown advice.
		return -EINVAL;
	}
}

// There are no shared file mappings (mmap refuses them), so there is
// never anything to write back; the flags are still Linux's.
SYSCALL_DEFINE(SYS_msync, msync)
{
	int flags = (int)args->a[2];

	if (args->a[0] & 4095)
		return -EINVAL;
	if (flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC))
		return -EINVAL;
	if ((flags & MS_ASYNC) && (flags & MS_SYNC))
		return -EINVAL;
	return 0;
}

// Locking is a no-op that is exact: there is no swap, so every page a
// process has stays in memory, locked or not (and everyone is root, so
// RLIMIT_MEMLOCK never applies).
SYSCALL_DEFINE(SYS_mlock, mlock) { (void)args; return 0; }
SYSCALL_DEFINE(SYS_munlock, munlock) { (void)args; return 0; }

SYSCALL_DEFINE(SYS_mlockall, mlockall)
{
	int flags = (int)args->a[0];

	if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) || flags == MCL_ONFAULT)
		return -EINVAL;
	return 0;
}

SYSCALL_DEFINE(SYS_munlockall, munlockall) { (void)args; return 0; }

#define MREMAP_MAYMOVE	1
#define MREMAP_FIXED	2
#define MREMAP_DONTUNMAP 4

// mremap: shrinking in place, or moving anonymous private memory by copy.
SYSCALL_DEFINE(SYS_mremap, mremap)
{
	uint64_t old = args->a[0], old_len = args->a[1], new_len = args->a[2];
	int flags = (int)args->a[3];
	struct mm *mm = current_process()->mm;

	if (flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP))
		return -EINVAL;
	if ((flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) && !(flags & MREMAP_MAYMOVE))
		return -EINVAL;
	// Not implemented: a chosen new address, keeping the old mapping,
	// and old_len 0 (a second mapping of shared pages; Linux refuses it
	// for private ones with the same EINVAL).
	if ((flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) || old_len == 0)
		return -EINVAL;
	if ((old & 4095) || new_len == 0)
		return -EINVAL;
	old_len = (old_len + 4095) & ~4095UL;
	new_len = (new_len + 4095) & ~4095UL;
	if (new_len <= old_len) {
		if (new_len < old_len)
			vm_unmap(mm, old + new_len, old_len - new_len);
		return (long)old;
	}
	if (!(flags & MREMAP_MAYMOVE))
		return -ENOMEM;
	return vm_move(mm, old, old_len, new_len);
}
