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
	if (len == 0 || (off & 4095) || (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)))
		return -EINVAL;
	if ((flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) && (addr & 4095))
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS)) {
		struct file *f = fd_get(current_fdtable(), fd);
		if (!f)
			return -EBADF;
		if (!f->vn || f->vn->type != VNODE_REG) {
			file_put(f);
			return f->vn ? -ENODEV : -EACCES;
		}
		if (!file_readable(f) || (type != MAP_PRIVATE && (prot & PROT_WRITE) && !file_writable(f))) {
			file_put(f);
			return -EACCES;
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
	if (len > USER_END)
		return -ENOMEM;
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

	if (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC | 0x01000000 | 0x02000000))
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
	case MADV_FREE:
		return vm_discard(current_process()->mm, addr, len);
	case MADV_NORMAL: case MADV_RANDOM: case MADV_SEQUENTIAL: case MADV_WILLNEED:
	case 9: case 10: case 11: case 12: case 13: case 14: case 15: case 16: case 17:
		return 0;	// hints
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE(SYS_msync, msync)
{
	if (args->a[0] & 4095)
		return -EINVAL;
	return 0;
}

SYSCALL_DEFINE(SYS_mlock, mlock) { (void)args; return 0; }
SYSCALL_DEFINE(SYS_munlock, munlock) { (void)args; return 0; }
SYSCALL_DEFINE(SYS_mlockall, mlockall) { (void)args; return 0; }
SYSCALL_DEFINE(SYS_munlockall, munlockall) { (void)args; return 0; }

#define MREMAP_MAYMOVE 1

// mremap: shrinking in place, or moving anonymous private memory by copy.
SYSCALL_DEFINE(SYS_mremap, mremap)
{
	uint64_t old = args->a[0], old_len = args->a[1], new_len = args->a[2];
	int flags = (int)args->a[3];
	struct mm *mm = current_process()->mm;

	if ((old & 4095) || new_len == 0 || (flags & ~3))
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
