// File-system events for inotify (kernel/fs/inotify.c), as Linux's
// fsnotify hooks: the file system calls these where Linux's VFS calls
// fsnotify_*, and inotify queues an event for every watch that asks for
// it.  Each costs one atomic load while nobody watches anything.
//
// Callers hold no lock of the tree (the hooks take vfs_tree_lock to find
// a file's directory) and a reference to every vnode they name.
#ifndef FS_FSNOTIFY_H
#define FS_FSNOTIFY_H

#include <stdint.h>

struct vnode;
struct file;

// Linux's IN_* event bits (uapi/linux/inotify.h).
#define IN_ACCESS		0x00000001
#define IN_MODIFY		0x00000002
#define IN_ATTRIB		0x00000004
#define IN_CLOSE_WRITE		0x00000008
#define IN_CLOSE_NOWRITE	0x00000010
#define IN_OPEN			0x00000020
#define IN_MOVED_FROM		0x00000040
#define IN_MOVED_TO		0x00000080
#define IN_CREATE		0x00000100
#define IN_DELETE		0x00000200
#define IN_DELETE_SELF		0x00000400
#define IN_MOVE_SELF		0x00000800
#define IN_UNMOUNT		0x00002000
#define IN_Q_OVERFLOW		0x00004000
#define IN_IGNORED		0x00008000
#define IN_ONLYDIR		0x01000000
#define IN_DONT_FOLLOW		0x02000000
#define IN_EXCL_UNLINK		0x04000000
#define IN_MASK_CREATE		0x10000000
#define IN_MASK_ADD		0x20000000
#define IN_ISDIR		0x40000000
#define IN_ONESHOT		0x80000000
#define IN_ALL_EVENTS		0x00000fff

// An event of an open file (read, write, open, close): to the watches of
// its vnode and of the directory it is named in (with the name); watches
// with IN_EXCL_UNLINK ignore it once the file has no name.  IN_ISDIR is
// added for a directory.
void fsnotify_file(struct file *f, uint32_t mask);
// A change made through a path or descriptor (chmod, chown, utimes,
// truncate): the same two kinds of watch, unlinked or not.
void fsnotify_change(struct vnode *vn, uint32_t mask);
// An event of the vnode alone (a link count change's IN_ATTRIB,
// IN_MOVE_SELF).
void fsnotify_self(struct vnode *vn, uint32_t mask);
// A name in 'dir' appeared, went or moved (IN_CREATE, IN_DELETE,
// IN_MOVED_FROM/TO with the rename's cookie; IN_ISDIR in mask as the
// caller knows it).
void fsnotify_name(struct vnode *dir, uint32_t mask, const char *name, uint32_t cookie);
// A fresh cookie pairing one rename's IN_MOVED_FROM and IN_MOVED_TO.
uint32_t fsnotify_cookie(void);
// The vnode is being freed (no name, no reference): IN_DELETE_SELF, then
// each watch goes with IN_IGNORED.  Called by vnode_free, without locks.
void fsnotify_vnode_freed(struct vnode *vn);

// /proc/sys/fs/inotify/: 0 or a negative errno for the store.
long inotify_limit(int which);
int inotify_set_limit(int which, uint64_t value);
#define INOTIFY_MAX_USER_INSTANCES	0
#define INOTIFY_MAX_USER_WATCHES	1
#define INOTIFY_MAX_QUEUED_EVENTS	2

#endif
