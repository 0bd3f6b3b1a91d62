// Helpers shared by the file system calls (kernel/syscall/fs_*.c): user
// paths, *at() starting directories and descriptor lookups.
#ifndef FS_FS_SYSCALL_H
#define FS_FS_SYSCALL_H

#include <stdbool.h>
#include <stdint.h>
#include <fs/vfs.h>
#include <fs/file.h>

// Copies a user path into a new PATH_MAX buffer (free with kfree).
// -EFAULT, -ENAMETOOLONG, -ENOMEM.
long user_path(uint64_t upath, char **out);

// The directory a relative path in an *at() call starts from: NULL for
// the cwd (AT_FDCWD, or when 'path' is absolute), else the vnode of
// 'dirfd' with a reference.  -EBADF, -ENOTDIR.
int at_start(int dirfd, const char *path, struct vnode **start);

// Lookup of a user path relative to dirfd.  'flags' are LOOKUP_*.
int lookup_user_at(int dirfd, uint64_t upath, int flags, struct vnode **out);
// The same, but a path that ends in a magic link to an object without a
// vnode (/proc/self/fd/N of a pipe, /dev/stdin on one) gives its open
// file in *object (referenced) and *out NULL (vfs_lookup_for_open).
struct file;
int lookup_user_object_at(int dirfd, uint64_t upath, int flags, struct vnode **out,
			  struct file **object);

// The descriptor's file with a reference, or NULL; fget() also gives
// NULL for an O_PATH descriptor, fget_raw() (for the calls Linux lets
// use one: *at() directories, fstat, fstatfs, fchdir, fcntl, dup) not.
struct file *fget(int fd);
struct file *fget_raw(int fd);
// fget for the length of one system call: without a reference when the
// caller's descriptor table is its own alone (no other thread, nor a
// process made with CLONE_FILES), since nobody else can close the
// descriptor meanwhile (Linux's fdget); *ref says whether fdput must
// drop one.
struct file *fdget(int fd, bool *ref);
void file_put(struct file *f);
static inline void fdput(struct file *f, bool ref)
{
	if (ref)
		file_put(f);
}
// An open of a user path as open(2) makes it (the caller's permissions,
// its errnos), for the kernel's own use: the file, referenced, in *out.
long file_open_user(uint64_t upath, uint32_t flags, struct file **out);
// open(2) of a vnode already found (referenced; the reference is used
// up): the checks and the descriptor, as open does after its lookup.
long open_vnode(struct vnode *vn, uint32_t flags);

// The calling process's file mode creation mask.
uint32_t current_umask(void);

// Files Linux gives a fasync method (pipes, terminals, inotify): only
// these keep O_ASYNC (F_SETFL, FIOASYNC) and send SIGIO (fs/sigio.h).
bool file_has_fasync(const struct file *f);

// fcntl F_ADD_SEALS and F_GET_SEALS of a memfd (kernel/syscall/fs_memfd.c).
long memfd_fcntl_seals(struct file *f, int cmd, uint64_t arg);

#endif
