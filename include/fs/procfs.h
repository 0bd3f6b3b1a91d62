// Helpers for the files under /proc (kernel/fs/procfs.c and the files
// other subsystems add there).
#ifndef FS_PROCFS_H
#define FS_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <fs/iobuf.h>
#include <fs/vnode.h>

// Reads a file whose whole text 'render' writes into a buffer of 'size'
// bytes: the slice at 'off'.  Each read renders afresh.
long procfs_text_read(size_t (*render)(char *, size_t), size_t size, uint64_t off,
		      struct iobuf *b, size_t n);

// A one-line command written to a control file, into 'cmd' (of 'size'
// bytes) without its newline: 0, -EINVAL if empty or too long, -EFAULT.
long procfs_read_command(struct iobuf *b, size_t n, char *cmd, size_t size);

// /proc/self, /proc/thread-self and /proc/PID (kernel/fs/procfs_pid.c).
int procfs_pid_init(void);

struct file;
struct process;
// Whether f is an open /proc/PID directory; *p its process or NULL.
// proc_tree_lock held.
bool procfs_process_dir_locked(const struct file *f, struct process **p);

// A synthetic node 'name' in the directory 'dir' (which exists), whose
// behaviour is 'ops' (with 'priv' for them): 0 or a negative errno.
int procfs_add(const char *dir, const char *name, enum vnode_type type, uint32_t perm,
	       const struct vnode_ops *ops, const void *priv);

#endif
