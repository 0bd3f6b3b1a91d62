// Anonymous-inode files: eventfd, signalfd, timerfd, pidfd and epoll.
//
// As Linux's anon_inode files: one inode number shared by all of them, no
// name, no file type in st_mode (0600), no position (lseek answers 0,
// pread and pwrite ESPIPE), /proc/PID/fd links reading
// "anon_inode:[NAME]", and opening one again through such a link fails
// with ENXIO.  Each kind brings its vnode_ops (read, write, poll, fdinfo,
// release of its object) with .open = anon_open.
#ifndef FS_ANON_H
#define FS_ANON_H

#include <stdint.h>
#include <fs/file.h>
#include <fs/vnode.h>

// A new file (O_RDWR, plus O_NONBLOCK from 'flags') on a new
// anonymous vnode with 'ops' and 'priv'.  NULL when out of memory, and
// then 'priv' is still the caller's to free; otherwise ops->release
// frees it when the last reference to the vnode goes.
struct file *anon_file_new(const struct vnode_ops *ops, void *priv, uint32_t flags);

// vnode_ops.open of every anonymous file: -ENXIO (Linux's no_open).
int anon_open(struct vnode **vn, uint32_t flags);

// The object behind f if it is an anonymous file of 'ops', else NULL.
void *anon_priv(const struct file *f, const struct vnode_ops *ops);

// Installs f at the lowest free descriptor of the caller's table (dropping the
// caller's reference either way): the descriptor or a negative errno.
int anon_install(struct file *f, uint32_t flags);

#endif
