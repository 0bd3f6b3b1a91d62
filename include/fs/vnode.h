// Vnodes: the files of Switchyard's in-memory file tree (ramfs).
//
// Locking.  One tree lock (vfs_tree_lock) guards every directory's entry
// list, every vnode's name, parent, nlink and refcount: lookups walk the
// tree holding it, so no vnode can vanish under them.  Each vnode's own
// lock guards its size, times and data pages.  Neither lock is ever held
// while touching user memory (that may fault and sleep); data pages are
// pinned with a frame reference instead while they are copied.
//
// Lifetime.  A vnode lives while it has a name (nlink > 0) or a
// reference (an open file, a cwd, a lookup in progress); the last of the
// two to go frees it, so an unlinked file stays readable while open.
#ifndef FS_VNODE_H
#define FS_VNODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kernel/spinlock.h>
#include <kernel/mutex.h>
#include <fs/iobuf.h>

enum vnode_type {
	VNODE_DIR = 1,
	VNODE_REG,
	VNODE_SYMLINK,
	VNODE_CHR,
	VNODE_FIFO,		// a named pipe (mknod, mkfifo): priv is its struct pipe while open
	VNODE_BLK,		// a block device node: no block devices exist (open: ENXIO)
	VNODE_SOCK,		// a socket node (open: ENXIO, as Linux)
	// An anonymous inode (eventfd, signalfd, timerfd: fs/anon.h): no
	// name, no type bits in its mode, no position, no pread/pwrite.
	VNODE_ANON,
};

struct vnode;
struct tty;
struct file_lock;
struct file;
struct vma;
struct inotify_mark;

// getdents64 helper: calls emit(name, len, ino, d_type, next_pos) for
// entries from position *pos on ("." and ".." first) until emit returns
// false; *pos gets the position to resume at.
typedef bool (*dir_emit_fn)(void *arg, const char *name, size_t len, uint64_t ino,
			    unsigned type, uint64_t next_pos);

// Devices and synthetic files (/proc) supply their own behaviour; a
// missing hook means the ordinary ramfs one (or "not supported").
struct vnode_ops {
	long (*read)(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n);
	long (*write)(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n);
	// POLLIN/POLLOUT/...; a negative value: this node has no poll
	// method after all (nodes sharing one ops table).  Without one a
	// file is always ready for poll(2), and epoll takes only a regular
	// one with other ops (kernel/fs/eventpoll.c: can_poll).
	int (*poll)(struct vnode *vn);
	// fs/poll.h's count of the wake-ups an item asking for 'events' sees.
	uint64_t (*poll_events)(struct vnode *vn, uint32_t events);
	long (*ioctl)(struct vnode *vn, struct file *f, unsigned cmd, uint64_t arg);
	// A symlink whose target is computed at lookup (/proc/self/exe);
	// returns the length or a negative errno.  Called with vfs_tree_lock
	// held (path walks hold it throughout), so it must not sleep or take
	// that lock again: vnode_path_locked gives paths.
	long (*target)(struct vnode *vn, char *buf, size_t size);
	// A symlink that leads to a vnode rather than a path (/proc's fd/N
	// and cwd, Linux's "magic links"): followed, the walk goes on from
	// what this returns (vfs_tree_lock held, which keeps it alive while
	// the walk lasts; no reference is taken), or from the target's path
	// when it returns NULL (a pipe has no vnode).
	struct vnode *(*jump)(struct vnode *vn);
	// A magic link to an open object with no vnode (fd/N of a pipe): its
	// file, referenced, for open() to open the object again (vfs_tree_lock
	// held, so it must not sleep); NULL if it has none.
	struct file *(*jump_file)(struct vnode *vn);
	// Directories whose entries are computed (/proc): 'lookup' makes the
	// vnode for a name that has no entry in the list, with vfs_tree_lock
	// held (it must not sleep): 0 and *out a new vnode (refcount 1,
	// nlink 0), or a negative errno.  The walk makes it 'computed': it
	// holds a reference on the directory it was found in and is freed
	// with its last reference.
	int (*lookup)(struct vnode *dir, const char *name, size_t len, struct vnode **out);
	// Lists the computed entries after the listed ones, from *pos on; the
	// positions it hands out are above every listed entry's.  Called
	// without vfs_tree_lock.
	int (*readdir)(struct vnode *dir, uint64_t *pos, dir_emit_fn emit, void *arg);
	// Opening (not with O_PATH): may refuse with an errno, or replace
	// *vn (dropping the reference it had) with the vnode the file gets
	// (/dev/ptmx makes a new pseudo-terminal).  'flags' are open's.
	int (*open)(struct vnode **vn, uint32_t flags);
	// The last close of a file that open made.
	void (*close)(struct vnode *vn, struct file *f);
	// Every close of a descriptor for the file, by the process closing it
	// (Linux's flush: also at exit, exec's close-on-exec and dup2).
	void (*flush)(struct vnode *vn, struct file *f);
	// The vnode is being freed: let go of 'priv'.
	void (*release)(struct vnode *vn);
	// A terminal's node (the console, /dev/tty, a pty's slave): the
	// terminal it is, whose hang-up (vhangup) its open files share.
	struct tty *(*tty)(struct vnode *vn);
	bool stream;	// no file position at all: lseek gives ESPIPE (ttys)
	// mmap gives anonymous memory, shared or private as asked (Linux's
	// mmap_zero: /dev/zero).
	bool maps_anonymous;
	// Keeps O_ASYNC and signals its owner (fs/sigio.h), as a file Linux
	// gives a fasync method (inotify; pipes and 'stream' ttys anyway).
	bool fasync;
	// Anonymous inodes: the NAME of their /proc/PID/fd links
	// ("anon_inode:[NAME]"), and the lines their fdinfo adds after the
	// common ones (a NUL-terminated string in buf; called on a
	// referenced file with no lock held; it must not sleep).
	const char *anon_name;
	void (*fdinfo)(struct vnode *vn, char *buf, size_t size);
};

// One name in a directory.  'seq' orders the entries and is the
// getdents64 position, stable while other entries come and go.  The
// entries are a list in 'seq' order (readdir) and, in a big directory,
// also in a hash table by name (lookup); 'hash' is the name's.
struct dirent_node {
	struct dirent_node *next, *prev;
	struct dirent_node *hnext;	// the next in its hash bucket
	struct vnode *vn;
	uint64_t seq;
	uint32_t hash;
	uint16_t namelen;
	char name[];
};

struct vnode {
	enum vnode_type type;
	uint32_t mode;			// st_mode: type and permission bits
	uint64_t ino;
	uint32_t uid, gid;
	uint64_t rdev;			// devices: (major << 8) | minor

	// Under vfs_tree_lock.
	int refcount;
	uint32_t nlink;
	struct vnode *parent;		// the directory holding 'name'; NULL once unlinked
	char *name;			// the name there (for getcwd and /proc/self/exe)
	bool computed;			// made by a lookup hook: named while referenced
	// The kernel's synthetic directories (/proc, /sys, vfs_fix_names):
	// the errno that refuses user space a new name here (create, mkdir,
	// mknod, symlink, link) and the one that refuses a removal (unlink,
	// rmdir), as Linux's procfs and sysfs do; 0 in ordinary directories.
	int16_t refuse_new, refuse_remove;
	struct vnode *walk_next;	// a walk's list of the computed vnodes it made
	struct vnode *ino_next;		// the index by inode number (ramfs.c)
	uint32_t ino_bucket;
	struct dirent_node *entries;	// directories: in 'seq' order
	struct dirent_node *entries_tail;
	uint64_t next_seq;
	uint32_t nentries;
	// Directories of more than a few entries: the entries by name hash
	// (dir_nbuckets a power of two; NULL and 0 for a small directory,
	// whose list is short enough to search), and where the last readdir
	// stopped (the first entry it did not give), so that the next one
	// continues there instead of walking the list from its start.
	struct dirent_node **dir_buckets;
	uint32_t dir_nbuckets;
	struct dirent_node *readdir_next;

	// Under 'lock'.
	struct spinlock lock;
	uint64_t size;
	uint64_t atime_ns, mtime_ns, ctime_ns;	// realtime
	void **pages;			// regular files: page i holds bytes [i*4K, (i+1)*4K)
	uint64_t npages;		// slots in 'pages' (a NULL slot is a hole)

	// Its mappings (kernel/mm/vm.c's reverse map), under 'lock': the
	// list, how many are shared mappings that may be written (what
	// F_SEAL_WRITE waits for), and the number of the last pass that took
	// pages out of them.  map_mutex serialises those passes
	// (truncation, hole punching); it comes before any mm->lock.
	struct vma *maps;
	uint32_t maps_writable;
	uint64_t map_gen;
	struct mutex map_mutex;
	// System V shared memory segments (kernel/ipc/shm.c): told of each
	// mapping of the file made (+1: mmap, split, fork, mremap) or gone
	// (-1), with that address space's mm->lock held; 'priv' is the
	// segment.  NULL for every other file.
	void (*map_count)(struct vnode *vn, int delta);

	// Regular files, under 'lock': above 0, how many open files may
	// write it; below 0, how many address spaces run it (Linux's
	// i_writecount).  Each side keeps the other out with ETXTBSY.
	int writecount;

	struct file_lock *locks;	// fcntl and flock locks (kernel/fs/locks.c)
	// memfd files (kernel/syscall/fs_memfd.c): F_SEAL_* bits, under 'lock'.
	bool memfd;
	uint32_t seals;

	struct xattr *xattrs;		// extended attributes (kernel/fs/xattr.c), under 'lock'
	// inotify's watches on it (kernel/fs/inotify.c, under its lock), and
	// the directory an unlinked vnode was last named in, referenced, for
	// the events its watches still get there (Linux's dentry keeps its
	// parent); under vfs_tree_lock.
	struct inotify_mark *inotify_marks;
	struct vnode *unlinked_parent;
	// An O_TMPFILE file made without O_EXCL: linkat may give it a name
	// although it has none (Linux's I_LINKABLE); under vfs_tree_lock.
	bool linkable;

	char *target;			// symlinks: immutable, 'size' bytes + NUL
	const struct vnode_ops *ops;	// devices and synthetic files, else NULL
	void *priv;
};

extern struct spinlock vfs_tree_lock;

struct xattr;
// Extended attributes (kernel/fs/xattr.c): the store of one vnode.  get
// gives the value's length (copied if it fits in size; -ERANGE if not,
// -ENODATA if there is none); set with XATTR_CREATE/XATTR_REPLACE
// (-EEXIST, -ENODATA), -ENOSPC past the tree's size limit, -ENOMEM;
// remove -ENODATA; list the names, NUL-separated (trusted.* only if
// asked), or the length needed (size 0), -ERANGE.
long xattr_get(struct vnode *vn, const char *name, void *buf, size_t size);
long xattr_set(struct vnode *vn, const char *name, const void *value, size_t size, int flags);
long xattr_remove(struct vnode *vn, const char *name);
long xattr_list(struct vnode *vn, char *buf, size_t size, bool with_trusted);
void xattr_free_all(struct vnode *vn);
// The tree's space (tmpfs size=) taken and given back by pages.
bool vfs_space_take(uint64_t pages);
void vfs_space_give(uint64_t pages);

// The wall clock, for file times.
uint64_t fs_now_ns(void);

// The live vnode with inode number ino, referenced, or NULL.
struct vnode *vnode_by_ino(uint64_t ino);

// A new vnode with refcount 1 and nlink 0 (not yet in any directory).
struct vnode *vnode_alloc(enum vnode_type type, uint32_t perm);

// The memfd seals (fcntl F_ADD_SEALS) as the data paths obey them.
#define F_SEAL_SEAL		0x0001	// no more seals
#define F_SEAL_SHRINK		0x0002
#define F_SEAL_GROW		0x0004
#define F_SEAL_WRITE		0x0008
#define F_SEAL_FUTURE_WRITE	0x0010	// writes through new mappings too

// Directory entries; the caller holds vfs_tree_lock.
struct dirent_node *dir_find(struct vnode *dir, const char *name, size_t len);
int dir_add(struct vnode *dir, const char *name, size_t len, struct vnode *vn);
void dir_remove(struct vnode *dir, struct dirent_node *d);
bool dir_is_empty(struct vnode *dir);
// Lower level, for rename: an entry not yet in any directory, and moving
// one in or out of a list without touching link counts.
struct dirent_node *dirent_new(struct vnode *vn, const char *name, size_t len);
void dir_attach(struct vnode *dir, struct dirent_node *d);
void dir_detach(struct vnode *dir, struct dirent_node *d);
// vnode_path with vfs_tree_lock already held.
int vnode_path_locked(struct vnode *vn, char *buf, size_t size);
// The path of vn from 'root'; one outside it gets its path from the
// tree's root and *unreachable (if not NULL) says so (getcwd's
// "(unreachable)").
int vnode_path_from_locked(struct vnode *root, struct vnode *vn, char *buf, size_t size,
			   bool *unreachable);
// Records 'name' in 'dir' as the vnode's name for getcwd/vnode_path.
void vnode_set_name(struct vnode *vn, struct vnode *dir, const char *name, size_t len);

// Regular file data.  The iobuf variants serve user and kernel buffers.
long vnode_read_io(struct vnode *vn, uint64_t off, struct iobuf *b, size_t n);
// The same without updating the access time (O_NOATIME).
long vnode_read_io_noatime(struct vnode *vn, uint64_t off, struct iobuf *b, size_t n);
// Writes at 'off', or at the end of the file when 'append'; *end gets
// the offset just past the last byte written.  'limit' is the writer's
// RLIMIT_FSIZE (UINT64_MAX: none): a write that starts at or past it is
// -EFBIG and sends the writer SIGXFSZ, one that crosses it is cut short
// there (Linux's generic_write_check_limits).
long vnode_write_io(struct vnode *vn, uint64_t off, bool append, struct iobuf *b,
		    size_t n, uint64_t *end, uint64_t limit);
long vnode_write(struct vnode *vn, uint64_t off, const void *kbuf, size_t n);
// lseek's SEEK_DATA (hole false) and SEEK_HOLE from off: the offset, or
// -ENXIO (kernel/fs/ramfs.c).
int64_t vnode_seek_data(struct vnode *vn, uint64_t off, bool hole);
int vnode_truncate(struct vnode *vn, uint64_t size);

// Write access against execution (Linux's get_write_access and
// deny_write_access): a file opened for writing cannot be executed, and
// a program some address space runs cannot be opened for writing or
// truncated; either gives ETXTBSY.  Each successful get or deny is
// undone by one put or allow.
int vnode_get_write_access(struct vnode *vn);
void vnode_put_write_access(struct vnode *vn);
int vnode_deny_write_access(struct vnode *vn);
void vnode_allow_write_access(struct vnode *vn);
// Punches a hole: [off, off+len) reads as zeros, its whole pages freed and
// taken out of every shared mapping; the size stays.  -EPERM on a memfd
// sealed against writes.
int vnode_punch(struct vnode *vn, uint64_t off, uint64_t len);

// The frame holding page 'index' of a regular file, with a reference
// the caller drops with frame_unref (file mappings).  A hole inside the
// file gets a fresh zeroed page; past the end gives -ENXIO.
int vnode_get_page(struct vnode *vn, uint64_t index, uint64_t *pa);
// Does file page 'index' hold data (not a hole)?  (mincore)
bool vnode_page_resident(struct vnode *vn, uint64_t index);
// How many of its pages hold data (a System V segment's shm_rss).
uint64_t vnode_resident_pages(struct vnode *vn);

// fallocate mode 0: pages for [off, off+len) (zeroed where there were
// holes), the size grown to cover them unless 'keep_size'
// (FALLOC_FL_KEEP_SIZE).  -ENOSPC, changing nothing, when the tree has
// not that much space left.
int vnode_allocate(struct vnode *vn, uint64_t off, uint64_t len, bool keep_size);

// The tree's size limit (fs_size=) and what is left of it, in pages
// (statfs).  Writes beyond it fail with ENOSPC.
void vfs_space(uint64_t *total_pages, uint64_t *free_pages);
// Parses an fs_size= value: 0 with *value in bytes, or in percent of RAM
// if *percent; -1 if malformed.
int fs_size_parse(const char *s, uint64_t *value, bool *percent);

// Largest regular file: bounds the page array.
#define VNODE_MAX_FILE_SIZE (1ULL << 32)

#endif
