// The file system as the rest of the kernel sees it: one in-memory tree,
// filled from the initramfs at boot.
#ifndef FS_VFS_H
#define FS_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <fs/vnode.h>
#include <fs/fs_view.h>

// Unpacks the newc cpio archive into the tree, then adds /dev, /proc and
// /tmp.  0 or a negative errno (a corrupt archive is reported and the
// entries before the damage are kept).
int vfs_init(const void *cpio, size_t len);
// Only the archive part: its entries are added to the tree as it is.
int vfs_unpack(const void *cpio, size_t len);

struct vnode *vfs_root(void);		// no reference taken

// Looks up 'path' relative to the current process's cwd (absolute paths
// from its root: fs/fs_view.h).  'follow': follow a symlink in the last
// component.  On success *out holds a reference.  Errors: ENOENT,
// ENOTDIR, ELOOP, ENAMETOOLONG, and EACCES for a directory on the way
// that the caller may not search.
int vfs_lookup(const char *path, bool follow, struct vnode **out);

void vnode_get(struct vnode *vn);
void vnode_put(struct vnode *vn);

// Reads file data into a kernel buffer; returns bytes read (0 at EOF) or
// a negative errno.
long vnode_read(struct vnode *vn, uint64_t off, void *kbuf, size_t n);

// The absolute path of 'vn' (a directory, or a file by its last name) as
// the caller sees it, from its root (chroot); a file outside that root
// gets its path from the tree's root.  The length, -ENOENT if it has been
// unlinked, -ERANGE if buf is small.
int vnode_path(struct vnode *vn, char *buf, size_t size);

// ---- for the file system calls ----

#define LOOKUP_FOLLOW		1	// follow a symlink in the last component
#define LOOKUP_EMPTY_OK		2	// "" names the start directory (AT_EMPTY_PATH)
// openat2's RESOLVE_* (Linux's LOOKUP_* of the same names): no symlink
// followed (ELOOP), no magic link (/proc/PID/fd/N, cwd, root, exe)
// followed (ELOOP), and the two scopes, where the start directory is the
// root of the walk: BENEATH refuses to leave it (absolute paths, "..",
// absolute symlinks, magic links: EXDEV), IN_ROOT keeps every walk in it
// as chroot would (magic links: EXDEV).
#define LOOKUP_NO_SYMLINKS	4
#define LOOKUP_NO_MAGICLINKS	8
#define LOOKUP_BENEATH		16
#define LOOKUP_IN_ROOT		32

// Lookup from 'start' (NULL: the cwd) for relative paths.
int vfs_lookup_at(struct vnode *start, const char *path, int flags, struct vnode **out);
// The same for open(): a path ending in a magic link to an object that
// has no vnode (/proc/self/fd/N of a pipe, /dev/stdin on one) gives that
// object's open file in *file (referenced) and no vnode.
struct file;
int vfs_lookup_for_open(struct vnode *start, const char *path, int flags, struct vnode **out,
			struct file **file);

// Resolves all but the last component: *dir (referenced) is the directory
// that would hold it, name[] (NAME_MAX + 1 bytes) gets the last component,
// or "" for "/" and "." / ".." as they are.  *trailing_slash says whether
// the path ended with '/'.
int vfs_lookup_parent(struct vnode *start, const char *path, struct vnode **dir,
		      char *name, bool *trailing_slash);
// The same with LOOKUP_NO_SYMLINKS ... LOOKUP_IN_ROOT (openat2's O_CREAT).
int vfs_lookup_parent_flags(struct vnode *start, const char *path, int flags, struct vnode **dir,
			    char *name, bool *trailing_slash);

// Creates 'name' in 'dir': a regular file, directory, or symlink (with
// 'target').  -EEXIST if the name is taken, -EACCES if the caller may not
// write and search 'dir'; the caller's filesystem IDs own the new file
// (kernel/proc/cred_perm.c).  *out (if not NULL) gets the new vnode with
// a reference.
int vfs_create(struct vnode *dir, const char *name, enum vnode_type type, uint32_t perm,
	       const char *target, struct vnode **out);
// mknod: a node of any type; a device node gets 'rdev' and the driver of
// that number (fs/dev.h), if this kernel has one.
int vfs_create_node(struct vnode *dir, const char *name, enum vnode_type type, uint32_t perm,
		    uint64_t rdev, struct vnode **out);
// Like vfs_create for a regular file, but an existing name is opened
// instead (O_CREAT without O_EXCL); *created says which happened.
// O_TMPFILE: a regular file with no name, made as if in dir (its
// permission checks, its owner rules), for the caller to open; linkat
// may name it later if 'linkable' (no O_EXCL).
int vfs_tmpfile(struct vnode *dir, uint32_t perm, bool linkable, struct vnode **out);
int vfs_create_or_open(struct vnode *dir, const char *name, uint32_t perm, bool excl,
		       struct vnode **out, bool *created);
// unlink/rename/link check the caller's permissions as Linux does
// (write and search on the directories, the sticky bit).
int vfs_unlink(struct vnode *dir, const char *name, bool want_dir);
int vfs_rename(struct vnode *odir, const char *oname, struct vnode *ndir, const char *nname,
	       unsigned flags);
int vfs_link(struct vnode *vn, struct vnode *dir, const char *name);
// Adds a device or synthetic node (boot-time setup).
int vfs_add_node(const char *dirpath, const char *name, struct vnode *vn);
// Creates all missing directories of an absolute path, as root.
int vfs_mkdir_p(const char *path, struct vnode **out);
// Marks the directory at 'path' and every directory below it as the
// kernel's: user space gets -refuse_new for a new name there and
// -refuse_remove for a removal (the kernel still adds nodes).
int vfs_fix_names(const char *path, int refuse_new, int refuse_remove);

// Readlink: the target of a symlink (computed for /proc/self/exe); the
// length or -EINVAL for a non-symlink.
long vnode_readlink(struct vnode *vn, char *buf, size_t size);

// getdents64 helper (dir_emit_fn: fs/vnode.h); a directory with a
// readdir hook lists its computed entries after the others.
int vfs_readdir(struct vnode *dir, uint64_t *pos, dir_emit_fn emit, void *arg);

unsigned vnode_dtype(const struct vnode *vn);

#endif
