// Open file descriptions and per-process descriptor tables.
//
// A struct file is what open(2) creates: a vnode or pipe end, an offset
// and status flags, shared by dup'ed and inherited descriptors.  A struct
// fdtable maps descriptor numbers to files (plus FD_CLOEXEC); threads
// created with CLONE_FILES share one.
#ifndef FS_FILE_H
#define FS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kernel/spinlock.h>
#include <kernel/mutex.h>
#include <fs/iobuf.h>
#include <uapi/open_flags.h>

struct vnode;
struct pipe;

// A file's owner for signal-driven I/O (fs/sigio.h): fcntl F_SETOWN,
// F_SETOWN_EX and F_SETSIG.
struct fown {
	int type;		// F_OWNER_TID, F_OWNER_PID, F_OWNER_PGRP (0 in a new file, as Linux)
	int id;			// 0: no owner
	uint64_t start_ns;	// a thread's or process's: its process's start time
	uint32_t uid, euid;	// of whoever set it, for Linux's sigio_perm
	int signum;		// F_SETSIG: 0 for plain SIGIO
};

struct file {
	int refcount;			// atomic
	uint32_t flags;			// O_ACCMODE and the status flags (O_APPEND, O_NONBLOCK, ...)
	struct vnode *vn;		// NULL for a pipe end
	struct pipe *pipe;
	bool pipe_reader, pipe_writer;	// which ends of 'pipe' it is (both: opened O_RDWR)
	struct spinlock lock;		// guards 'flags' (F_SETFL)
	struct mutex pos_lock;		// guards 'off' across a whole operation
	uint64_t off;			// file offset; getdents64 position for directories
	// A terminal's file after vhangup: reads see end of file, writes and
	// ioctls EIO, poll every event, for good (Linux's hung_up_tty_fops).
	bool hung_up;
	// open(2) sent inotify's IN_OPEN: its last close sends IN_CLOSE_*.
	bool notify_opened;
	// open(2) took write access to the regular file (fs/vnode.h's
	// vnode_get_write_access): its last put gives it back.
	bool write_access;
	struct fown owner;		// under 'lock'
	// The epoll items watching this file (fs/eventpoll.h), under the
	// epoll topology lock; its last put removes them.
	struct epitem *ep_items;
};

// A new file on 'vn' (taking over the caller's vnode reference) or on one
// end of a pipe.  NULL when out of memory.
struct file *file_new_vnode(struct vnode *vn, uint32_t flags);
struct file *file_new_pipe(struct pipe *pipe, bool writer, uint32_t flags);
void file_get(struct file *f);
void file_put(struct file *f);

static inline bool file_readable(const struct file *f)
{
	uint32_t acc = f->flags & O_ACCMODE;

	return !(f->flags & O_PATH) && (acc == O_RDONLY || acc == O_RDWR);
}

static inline bool file_writable(const struct file *f)
{
	uint32_t acc = f->flags & O_ACCMODE;

	return !(f->flags & O_PATH) && (acc == O_WRONLY || acc == O_RDWR);
}

// I/O at the file offset (updated), or at an explicit one (pread/pwrite,
// -ESPIPE on pipes).  Return bytes moved or a negative errno.
long file_read(struct file *f, struct iobuf *b, size_t n);
long file_write(struct file *f, struct iobuf *b, size_t n);

// The position of a regular file or directory is locked across each whole
// read, write, lseek and getdents64 on its description (copy to or from
// user memory included: it may fault and sleep, so the lock sleeps too),
// as Linux's f_pos_lock: users of one description sharing it (dup, fork)
// never lose or repeat an update.  Pipes and devices have no position:
// these do nothing for them.
void file_pos_lock(struct file *f);
void file_pos_unlock(struct file *f);
// file_read/file_write with the position lock already held (readv and
// writev hold it across all their segments).
long file_read_locked(struct file *f, struct iobuf *b, size_t n);
long file_write_locked(struct file *f, struct iobuf *b, size_t n);
long file_pread(struct file *f, struct iobuf *b, size_t n, uint64_t off);
long file_pwrite(struct file *f, struct iobuf *b, size_t n, uint64_t off);
// pwritev2's RWF_APPEND: the bytes go to the end of the file, whatever the
// offset (the position is the caller's to move).
long file_write_append(struct file *f, struct iobuf *b, size_t n);
// Whether pread/pwrite (and preadv, sendfile with an offset) may name a
// position: not on pipes and anonymous files (ESPIPE, as Linux without
// FMODE_PREAD).
bool file_can_pread(const struct file *f);
// The current readiness: POLLIN/POLLOUT/POLLHUP/POLLERR bits.
int file_poll(struct file *f);
// The count of the wake-ups of the object behind f that reach a waiter
// asking for 'events' (fs/poll.h); 0 for files whose readiness never
// changes.
uint64_t file_poll_events(struct file *f, uint32_t events);

// ---- descriptor tables ----

struct fdtable {
	struct spinlock lock;
	int refcount;			// processes/threads sharing it (atomic)
	int size;			// slots in 'files' (a power of two, >= 64)
	struct file **files;
	uint8_t *cloexec;		// per slot: FD_CLOEXEC
	uint64_t *used;			// bit per slot: files[fd] is set
	int next_fd;			// every descriptor below it is in use
};

struct fdtable *fdtable_new(void);
// fork: a new table sharing every open file description.
struct fdtable *fdtable_copy(struct fdtable *fdt);
void fdtable_get(struct fdtable *fdt);
void fdtable_put(struct fdtable *fdt);		// the last put closes everything
void fdtable_close_on_exec(struct fdtable *fdt);
// Calls fn on every open file of the table, under its lock (fn must not
// sleep).
void fdtable_for_each(struct fdtable *fdt, void (*fn)(struct file *f, void *arg), void *arg);
// init: descriptors 0, 1 and 2 on /dev/console.  0 or a negative errno.
int fdtable_open_console(struct fdtable *fdt);

// The lowest free descriptor >= minfd now holds 'f' (a new reference is
// taken); returns it, or -EMFILE (at the limit) or -ENOMEM.
int fd_install(struct fdtable *fdt, struct file *f, int minfd, bool cloexec);
// Fails as fd_install would, but installs nothing: 0 when a descriptor
// >= minfd is free (the table grown if need be).  Lets open fail before
// it creates a file; only another thread taking the last free descriptor
// in between can still make the fd_install that follows fail.
int fd_prepare(struct fdtable *fdt, int minfd);
// The file behind 'fd' with a reference for the caller, or NULL.
struct file *fd_get(struct fdtable *fdt, int fd);
int fd_close(struct fdtable *fdt, int fd);
// dup2/dup3: 'newfd' refers to the same file as 'oldfd'.
int fd_dup_to(struct fdtable *fdt, int oldfd, int newfd, bool cloexec);
int fd_get_cloexec(struct fdtable *fdt, int fd);	// 0/1 or -EBADF
int fd_set_cloexec(struct fdtable *fdt, int fd, bool on);
// The process's limit on descriptor numbers (RLIMIT_NOFILE, at most NR_OPEN).
int fd_limit(void);

// The caller's RLIMIT_FSIZE in bytes (UINT64_MAX: none, as for kernel
// threads).  file_size_may_grow: truncate or fallocate making vn longer
// than that is -EFBIG with SIGXFSZ (Linux's inode_newsize_ok); 0 if not.
uint64_t file_size_limit(void);
int file_size_may_grow(struct vnode *vn, uint64_t size);

// The current process's table (NULL for kernel threads).
struct fdtable *current_fdtable(void);

#endif
