// A process's view of the file tree: its root directory (chroot), its
// working directory and its file mode creation mask.  Linux's fs_struct:
// processes made with CLONE_FS share one (the threads of a process
// always do), so a chdir, chroot or umask in one is seen by the others.
#ifndef FS_FS_VIEW_H
#define FS_FS_VIEW_H

#include <stdbool.h>
#include <stdint.h>

struct vnode;
struct process;

struct fs_view {
	int refcount;		// atomic: the processes that share it
	// Both referenced, read and swapped under vfs_tree_lock, where path
	// walks and /proc read them.
	struct vnode *root;
	struct vnode *cwd;
	uint32_t umask;		// atomic
};

// Root and cwd at the tree's root, umask 022 (init's).
struct fs_view *fs_view_new(void);
// A private copy for a process made without CLONE_FS.
struct fs_view *fs_view_copy(struct fs_view *src);
void fs_view_get(struct fs_view *fv);
// Makes fv p's view and returns the old one, under vfs_tree_lock and
// p->lock, where readers look at p->fs (unshare).
struct fs_view *fs_view_replace(struct process *p, struct fs_view *fv);
// Takes p's view away (exit) and drops it.
void fs_view_drop(struct process *p);
// Drops a view no process points to any more (clone failed half-way).
void fs_view_put(struct fs_view *fv);

// The calling thread's view (its own, or its process's); NULL for kernel
// threads.
struct fs_view *current_fs_view(void);
// The calling thread's root and cwd (the tree's root for kernel threads
// and processes without a view); vfs_tree_lock held, no reference taken.
struct vnode *current_root_locked(void);
struct vnode *current_cwd_locked(void);
// The directory a reader of p's root or cwd sees (vfs_tree_lock held,
// p alive); NULL once p has exited.
struct vnode *fs_view_root_locked(struct process *p);
struct vnode *fs_view_cwd_locked(struct process *p);

// chdir and chroot: make vn (a searchable directory; the reference is
// taken over) the caller's working or root directory.
void vfs_set_cwd(struct vnode *vn);
void vfs_set_root(struct vnode *vn);

#endif
