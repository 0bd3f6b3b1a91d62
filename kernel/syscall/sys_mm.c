// Memory syscalls: brk, mmap, munmap, mprotect, madvise, mremap.  The
// argument checks here follow Linux's order, so that each bad call gets
// the errno Linux gives it; the address-space work is in kernel/mm/vm.c.

#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/cred.h>
#include <kernel/vm.h>
#include <kernel/thread.h>
#include <kernel/uaccess.h>
#include <mm/phys.h>
#include <fs/file.h>
#include <fs/vnode.h>
#include <fs/vfs.h>
#include <fs/fcntl.h>
#include <uapi/errno.h>
#include <uapi/personality.h>
#include <arch/memlayout.h>

#define PAGE_OFFSET_MASK	4095UL
#define PROT_SEM		0x8		// accepted, no effect (as on x86 Linux)
#define PROT_GROWSDOWN		0x01000000
#define PROT_GROWSUP		0x02000000


static uint64_t page_up(uint64_t v)
{
	return (v + PAGE_OFFSET_MASK) & ~PAGE_OFFSET_MASK;
}

SYSCALL_DEFINE(SYS_brk, brk)
{
	return vm_brk(current_process()->mm, args->a[0]);
}

// READ_IMPLIES_EXEC (personality(2)): what may be read may be run, as
// Linux's do_mmap and mprotect make a readable mapping executable (no
// file here is on a noexec mount, the one exception).
static int read_implies_exec(int prot)
{
	if ((prot & PROT_READ) && personality_has(READ_IMPLIES_EXEC))
		prot |= PROT_EXEC;
	return prot;
}

// The flags mmap knows.  Without MAP_SHARED_VALIDATE Linux ignores the
// others; with it they are refused.
#define MAP_KNOWN (MAP_TYPE | MAP_FIXED | MAP_ANONYMOUS | MAP_32BIT | MAP_GROWSDOWN | \
		   MAP_DENYWRITE | MAP_EXECUTABLE | MAP_LOCKED | MAP_NORESERVE | \
		   MAP_POPULATE | MAP_NONBLOCK | MAP_STACK | MAP_HUGETLB | \
		   MAP_FIXED_NOREPLACE)

SYSCALL_DEFINE(SYS_mmap, mmap)
{
	uint64_t addr = args->a[0], len = args->a[1], off = args->a[5];
	int prot = (int)args->a[2], flags = (int)args->a[3], fd = (int)args->a[4];
	int type = flags & MAP_TYPE;
	struct vnode *vn = 0;
	uint64_t file_bytes = 0;
	bool writable = false;

	if (off & PAGE_OFFSET_MASK)
		return -EINVAL;
	// Linux's ksys_mmap_pgoff takes the file before do_mmap looks at
	// the rest: a bad descriptor is EBADF whatever else is wrong.
	if (!(flags & MAP_ANONYMOUS)) {
		struct file *f = fd_get(current_fdtable(), fd);
		if (!f)
			return -EBADF;
		file_put(f);
	}
	if (type != MAP_PRIVATE && type != MAP_SHARED && type != MAP_SHARED_VALIDATE)
		return -EINVAL;
	// MAP_SHARED_VALIDATE is for files: anonymous memory has nothing to
	// validate against (EINVAL, as Linux).
	if (type == MAP_SHARED_VALIDATE && (flags & MAP_ANONYMOUS))
		return -EINVAL;
	if (type == MAP_SHARED_VALIDATE && (flags & ~MAP_KNOWN))
		return -EOPNOTSUPP;
	if (len == 0)
		return -EINVAL;
	// No huge pages are reserved: Linux's answer then.
	if (flags & MAP_HUGETLB)
		return -ENOMEM;
	// Protection bits beyond these are ignored by Linux's mmap.
	prot = read_implies_exec(prot & (PROT_READ | PROT_WRITE | PROT_EXEC));
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
		// /dev/zero: anonymous memory, after the file's access checks.
		// Shared from a descriptor not open for writing, it can never be
		// written: Linux drops VM_SHARED and it is private memory.
		if (f->vn && f->vn->ops && f->vn->ops->maps_anonymous) {
			bool readable = file_readable(f), can_write = file_writable(f);
			file_put(f);
			if (!readable || (type != MAP_PRIVATE && (prot & PROT_WRITE) && !can_write))
				return -EACCES;
			if (type != MAP_PRIVATE && !can_write)
				flags = (flags & ~MAP_TYPE) | MAP_PRIVATE;
			return vm_map(current_process()->mm, addr, len, prot, flags | MAP_ANONYMOUS,
				      NULL, 0, 0, false);
		}
		if (!f->vn || f->vn->type != VNODE_REG) {
			file_put(f);
			return f->vn ? -ENODEV : -EACCES;
		}
		if (!file_readable(f) || (type != MAP_PRIVATE && (prot & PROT_WRITE) && !file_writable(f))) {
			file_put(f);
			return -EACCES;
		}
		// Synthetic files (/proc) have no pages to share: Linux's
		// procfs has no mmap.
		if (type != MAP_PRIVATE && f->vn->ops) {
			file_put(f);
			return -ENODEV;
		}
		// A shared mapping of a descriptor not open for writing can
		// never be made writable (Linux clears VM_MAYWRITE).
		writable = file_writable(f);
		vn = f->vn;
		vnode_get(vn);
		file_put(f);
		uint64_t size = page_up(len);
		if (size != 0 && off + size < off) {
			vnode_put(vn);
			return -EOVERFLOW;
		}
		// The whole mapping may read file bytes (up to the end of file);
		// beyond that pages are zeros.
		file_bytes = vn->size > off ? vn->size - off : 0;
		if (file_bytes > len)
			file_bytes = len;
	}
	long r = vm_map(current_process()->mm, addr, len, prot, flags, vn, off, file_bytes,
			writable);
	if (vn)
		vnode_put(vn);
	return r;
}

// remap_file_pages, as Linux since 4.0 emulates it: the range of a shared
// file mapping is mapped again (MAP_FIXED) at page 'pgoff' of the same
// file, with the mapping's protection, populated.  prot must be 0.
SYSCALL_DEFINE(SYS_remap_file_pages, remap_file_pages)
{
	uint64_t start = args->a[0] & ~PAGE_OFFSET_MASK, size = args->a[1] & ~PAGE_OFFSET_MASK;
	uint64_t pgoff = args->a[3];
	int flags = ((int)args->a[4] & MAP_NONBLOCK) | MAP_SHARED | MAP_FIXED | MAP_POPULATE;
	struct vm_span span;

	if (args->a[2])
		return -EINVAL;
	if (start + size <= start)
		return -EINVAL;
	if (pgoff + (size >> PAGE_SHIFT) < pgoff || pgoff > (UINT64_MAX >> PAGE_SHIFT))
		return -EINVAL;
	struct mm *mm = current_process()->mm;
	if (vm_shared_file_span(mm, start, size, &span) < 0)
		return -EINVAL;
	if (span.locked)
		flags |= MAP_LOCKED;
	uint64_t off = pgoff << PAGE_SHIFT;
	uint64_t file_bytes = span.file->size > off ? span.file->size - off : 0;
	if (file_bytes > size)
		file_bytes = size;
	long r = vm_map(mm, start, size, span.prot, flags, span.file, off, file_bytes,
			span.writable);
	vnode_put(span.file);
	return r < 0 ? r : 0;
}

SYSCALL_DEFINE(SYS_munmap, munmap)
{
	return vm_unmap(current_process()->mm, args->a[0], args->a[1]);
}

static long protect(uint64_t start, uint64_t len, int prot)
{
	int grows = prot & (PROT_GROWSDOWN | PROT_GROWSUP);

	if (start & PAGE_OFFSET_MASK)
		return -EINVAL;
	if (len == 0)
		return 0;
	len = page_up(len);
	if (start + len <= start)
		return -ENOMEM;
	prot &= ~grows;
	if (grows == (PROT_GROWSDOWN | PROT_GROWSUP) || (grows & PROT_GROWSUP))
		return -EINVAL;		// nothing grows up on x86
	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM))
		return -EINVAL;
	return vm_protect(current_process()->mm, start, len,
			  read_implies_exec(prot & (PROT_READ | PROT_WRITE | PROT_EXEC)), grows != 0);
}

SYSCALL_DEFINE(SYS_mprotect, mprotect)
{
	return protect(args->a[0], args->a[1], (int)args->a[2]);
}

// Memory protection keys: Switchyard does not enable the CPU's PKU, so
// the three calls answer as Linux does on an x86 CPU without it: no key
// is ever allocated (not even the default key 0, which Linux marks
// allocated only when the CPU has keys), so pkey_mprotect takes only -1
// (and is then mprotect), pkey_alloc fails where it would program the
// key's rights (EINVAL, after its own argument checks) and pkey_free
// has nothing to free.
#define PKEY_ACCESS_MASK	0x3	// PKEY_DISABLE_ACCESS | PKEY_DISABLE_WRITE

SYSCALL_DEFINE(SYS_pkey_mprotect, pkey_mprotect)
{
	if ((int)args->a[3] != -1)
		return -EINVAL;
	return protect(args->a[0], args->a[1], (int)args->a[2]);
}

SYSCALL_DEFINE(SYS_pkey_alloc, pkey_alloc)
{
	(void)args;
	return -EINVAL;
}

SYSCALL_DEFINE(SYS_pkey_free, pkey_free)
{
	(void)args;
	return -EINVAL;
}

// The advice madvise accepts; anything else is EINVAL.
static bool advice_known(int advice)
{
	switch (advice) {
	case MADV_NORMAL: case MADV_RANDOM: case MADV_SEQUENTIAL: case MADV_WILLNEED:
	case MADV_DONTNEED: case MADV_FREE: case MADV_REMOVE:
	case MADV_DONTFORK: case MADV_DOFORK: case MADV_MERGEABLE: case MADV_UNMERGEABLE:
	case MADV_HUGEPAGE: case MADV_NOHUGEPAGE: case MADV_DONTDUMP: case MADV_DODUMP:
	case MADV_WIPEONFORK: case MADV_KEEPONFORK: case MADV_COLD: case MADV_PAGEOUT:
	case MADV_POPULATE_READ: case MADV_POPULATE_WRITE: case MADV_DONTNEED_LOCKED:
		return true;
	default:
		return false;
	}
}

SYSCALL_DEFINE(SYS_madvise, madvise)
{
	uint64_t start = args->a[0], len_in = args->a[1];
	int advice = (int)args->a[2];

	if (!advice_known(advice))
		return -EINVAL;
	if (start & PAGE_OFFSET_MASK)
		return -EINVAL;
	uint64_t len = page_up(len_in);
	if (len_in && !len)
		return -EINVAL;
	if (start + len < start)
		return -EINVAL;
	if (len == 0)
		return 0;
	return vm_advise(current_process()->mm, start, len, advice);
}

// mincore(2): which pages of a range are in memory, a byte each, written
// a chunk at a time.
SYSCALL_DEFINE(SYS_mincore, mincore)
{
	uint64_t start = args->a[0], len = args->a[1], uvec = args->a[2];
	uint8_t chunk[256];
	uint64_t npages, done = 0;

	if (start & PAGE_OFFSET_MASK)
		return -EINVAL;
	if (len > UINT64_MAX - PAGE_SIZE)
		return -ENOMEM;
	npages = (len + PAGE_SIZE - 1) / PAGE_SIZE;
	if (!user_range_ok(start, npages * PAGE_SIZE))
		return -ENOMEM;
	while (done < npages) {
		size_t n = npages - done < sizeof(chunk) ? npages - done : sizeof(chunk);
		int rc = vm_mincore(current_process()->mm, start + done * PAGE_SIZE, n, chunk);

		if (rc < 0)
			return rc;
		if (copy_to_user(uvec + done, chunk, n) < 0)
			return -EFAULT;
		done += n;
	}
	return 0;
}

// A shared file mapping maps the file's own pages, so there is never
// anything to write back or invalidate: the checks and errno are Linux's
// (mm/msync.c, in its order), the walk is vm_msync's.
SYSCALL_DEFINE(SYS_msync, msync)
{
	uint64_t start = args->a[0], len = args->a[1];
	int flags = (int)args->a[2];

	if (flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC))
		return -EINVAL;
	if (start & PAGE_OFFSET_MASK)
		return -EINVAL;
	if ((flags & MS_ASYNC) && (flags & MS_SYNC))
		return -EINVAL;
	len = page_up(len);
	if (start + len < start)
		return -ENOMEM;
	if (len == 0)
		return 0;
	return vm_msync(current_process()->mm, start, start + len, flags);
}

// Locking (kernel/mm/vm.c, "mlock"): Linux's checks (mm/mlock.c).  A
// limit of 0 refuses at once (EPERM without CAP_IPC_LOCK); any other is
// counted in the address space (ENOMEM).
#define CAP_IPC_LOCK	14
#define RLIMIT_MEMLOCK	8

static bool may_lock(void)
{
	return current_process()->rlimits[RLIMIT_MEMLOCK].cur != 0 ||
	       cred_capable(current_cred(), CAP_IPC_LOCK);
}

// mlock, mlock2 and munlock: the range widened to whole pages.
static long lock_range(uint64_t start, uint64_t len, bool lock, bool populate)
{
	if (lock && !may_lock())
		return -EPERM;
	len = page_up(len + (start & PAGE_OFFSET_MASK));
	start &= ~PAGE_OFFSET_MASK;
	if (start + len < start)
		return -EINVAL;
	if (len == 0)
		return 0;
	return vm_lock(current_process()->mm, start, start + len, lock, populate);
}

SYSCALL_DEFINE(SYS_mlock, mlock) { return lock_range(args->a[0], args->a[1], true, true); }
SYSCALL_DEFINE(SYS_munlock, munlock) { return lock_range(args->a[0], args->a[1], false, false); }

#define MLOCK_ONFAULT	1

// mlock2: mlock, or with MLOCK_ONFAULT a lock that faults nothing in
// (the pages are locked as they are touched).
SYSCALL_DEFINE(SYS_mlock2, mlock2)
{
	if (args->a[2] & ~(uint64_t)MLOCK_ONFAULT)
		return -EINVAL;
	return lock_range(args->a[0], args->a[1], true, !(args->a[2] & MLOCK_ONFAULT));
}

SYSCALL_DEFINE(SYS_mlockall, mlockall)
{
	int flags = (int)args->a[0];

	if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) || flags == MCL_ONFAULT)
		return -EINVAL;
	if (!may_lock())
		return -EPERM;
	return vm_lock_all(current_process()->mm, flags & MCL_FUTURE, flags & MCL_CURRENT, true,
			   !(flags & MCL_ONFAULT));
}

SYSCALL_DEFINE(SYS_munlockall, munlockall)
{
	(void)args;
	return vm_lock_all(current_process()->mm, false, true, false, false);
}

SYSCALL_DEFINE(SYS_mremap, mremap)
{
	uint64_t old = args->a[0], old_len = args->a[1], new_len = args->a[2];
	uint64_t new_addr = args->a[4];
	int flags = (int)args->a[3];

	if (flags & ~(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP))
		return -EINVAL;
	if ((flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) && !(flags & MREMAP_MAYMOVE))
		return -EINVAL;
	// MREMAP_DONTUNMAP is a move of the same length (checked before the
	// lengths are rounded, as Linux).
	if ((flags & MREMAP_DONTUNMAP) && old_len != new_len)
		return -EINVAL;
	if (old & PAGE_OFFSET_MASK)
		return -EINVAL;
	old_len = page_up(old_len);
	new_len = page_up(new_len);
	if (new_len == 0 || new_len > USER_TOP)
		return -EINVAL;
	return vm_remap(current_process()->mm, old, old_len, new_len, flags, new_addr);
}
