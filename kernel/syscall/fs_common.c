// Helpers of the file system calls (see fs/fs_syscall.h).

#include <fs/fs_syscall.h>
#include <fs/fcntl.h>
#include <kernel/process.h>
#include <kernel/uaccess.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

// The calling process's file mode creation mask (022 for kernel threads).
uint32_t current_umask(void)
{
	struct fs_view *fv = current_fs_view();

	return fv ? __atomic_load_n(&fv->umask, __ATOMIC_RELAXED) : 022;
}

bool file_has_fasync(const struct file *f)
{
	return f->pipe || (f->vn && f->vn->ops && (f->vn->ops->stream || f->vn->ops->fasync));
}

long user_path(uint64_t upath, char **out)
{
	char *buf = kmalloc(PATH_MAX);
	long len;

	if (!buf)
		return -ENOMEM;
	len = strncpy_from_user(buf, upath, PATH_MAX);
	if (len < 0) {
		kfree(buf);
		return len;
	}
	*out = buf;
	return len;
}

struct file *fget_raw(int fd)
{
	return fd_get(current_fdtable(), fd);
}

// An O_PATH descriptor only names a file: Linux lets the calls that
// use fget() take it for a closed one (EBADF).
struct file *fget(int fd)
{
	struct file *f = fget_raw(fd);

	if (f && (f->flags & O_PATH)) {
		file_put(f);
		return NULL;
	}
	return f;
}

struct file *fdget(int fd, bool *ref)
{
	struct thread *t = current_thread();
	struct fdtable *fdt = t->own_fdt ? t->own_fdt : t->proc->fdt;
	struct file *f;

	// Only this thread could make the table shared (clone), and only
	// sharers could close a descriptor: if it is not shared now, it
	// stays so until this call returns.
	if (__atomic_load_n(&fdt->refcount, __ATOMIC_RELAXED) != 1 ||
	    (!t->own_fdt && __atomic_load_n(&t->proc->nthreads, __ATOMIC_RELAXED) != 1)) {
		*ref = true;
		f = fd_get(fdt, fd);
	} else {
		*ref = false;
		f = fd >= 0 && fd < fdt->size ? fdt->files[fd] : NULL;
	}
	if (f && (f->flags & O_PATH)) {
		fdput(f, *ref);
		return NULL;
	}
	return f;
}

int at_start(int dirfd, const char *path, struct vnode **start)
{
	struct file *f;

	*start = NULL;
	if (path[0] == '/' || dirfd == AT_FDCWD)
		return 0;
	f = fget_raw(dirfd);
	if (!f)
		return -EBADF;
	if (!f->vn || (f->vn->type != VNODE_DIR && path[0])) {
		file_put(f);
		return -ENOTDIR;
	}
	vnode_get(f->vn);
	*start = f->vn;
	file_put(f);
	return 0;
}

int lookup_user_at(int dirfd, uint64_t upath, int flags, struct vnode **out)
{
	return lookup_user_object_at(dirfd, upath, flags, out, NULL);
}

int lookup_user_object_at(int dirfd, uint64_t upath, int flags, struct vnode **out,
			  struct file **object)
{
	struct vnode *start;
	char *path;
	long rc = user_path(upath, &path);

	if (rc < 0)
		return (int)rc;
	// AT_EMPTY_PATH on a non-directory descriptor: the file itself.
	if (path[0] == 0 && (flags & LOOKUP_EMPTY_OK) && dirfd != AT_FDCWD) {
		struct file *f = fget_raw(dirfd);

		kfree(path);
		if (!f)
			return -EBADF;
		if (!f->vn) {
			file_put(f);
			return -ENOENT;		// pipes have no vnode to stat here
		}
		vnode_get(f->vn);
		*out = f->vn;
		file_put(f);
		return 0;
	}
	rc = at_start(dirfd, path, &start);
	if (rc == 0 && object)
		rc = vfs_lookup_for_open(start, path, flags, out, object);
	else if (rc == 0)
		rc = vfs_lookup_at(start, path, flags, out);
	vnode_put(start);
	kfree(path);
	return (int)rc;
}
