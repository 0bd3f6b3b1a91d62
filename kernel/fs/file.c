// Open file descriptions and descriptor tables.

#include <fs/file.h>
#include <fs/eventpoll.h>
#include <fs/vfs.h>
#include <fs/pipe.h>
#include <fs/locks.h>
#include <fs/poll.h>
#include <fs/fcntl.h>
#include <fs/fsnotify.h>
#include <fs/sigio.h>
#include <kernel/process.h>
#include <kernel/cred.h>
#include <uapi/signal.h>
#include <lib/string.h>
#include <net/unix.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define FDTABLE_INITIAL 64

// ---- files ----

static struct file *file_alloc(uint32_t flags)
{
	struct file *f = kzalloc(sizeof(*f));

	if (!f)
		return NULL;
	f->refcount = 1;
	f->flags = flags & ~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_CLOEXEC);
	spin_init(&f->lock, "file flags");
	mutex_init(&f->pos_lock, "file position");
	return f;
}

struct file *file_new_vnode(struct vnode *vn, uint32_t flags)
{
	struct file *f = file_alloc(flags);

	if (f)
		f->vn = vn;
	return f;
}

struct file *file_new_pipe(struct pipe *pipe, bool writer, uint32_t flags)
{
	struct file *f = file_alloc(flags);

	if (f) {
		f->pipe = pipe;
		f->pipe_writer = writer;
		f->pipe_reader = !writer;
	}
	return f;
}

void file_get(struct file *f)
{
	__atomic_add_fetch(&f->refcount, 1, __ATOMIC_RELAXED);
}

void file_put(struct file *f)
{
	if (!f || __atomic_sub_fetch(&f->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	locks_remove_file(f);	// OFD and flock locks die with the description
	if (f->flags & O_ASYNC)
		fasync_file_gone(f);
	// No new item can appear once the last reference is gone (ctl holds
	// one), so an empty list needs no lock.
	if (__atomic_load_n(&f->ep_items, __ATOMIC_ACQUIRE))
		eventpoll_release(f);
	if (f->pipe)
		pipe_release(f);
	if (f->notify_opened)
		fsnotify_file(f, file_writable(f) ? IN_CLOSE_WRITE : IN_CLOSE_NOWRITE);
	if (f->vn && f->vn->ops && f->vn->ops->close && !(f->flags & O_PATH))
		f->vn->ops->close(f->vn, f);
	if (f->write_access)
		vnode_put_write_access(f->vn);
	if (f->vn)
		vnode_put(f->vn);
	kfree(f);
}


// inotify's IN_ACCESS and IN_MODIFY after a read or write that moved
// bytes (Linux's vfs_read and vfs_write); nothing for an anonymous pipe.
static long notify_io(struct file *f, long rc, uint32_t mask)
{
	if (rc > 0 && f->vn)
		fsnotify_file(f, mask);
	return rc;
}

static long vnode_file_read_raw(struct file *f, struct iobuf *b, size_t n, uint64_t off);
#define RLIMIT_FSIZE	1

uint64_t file_size_limit(void)
{
	struct process *p = current_process();

	return p ? p->rlimits[RLIMIT_FSIZE].cur : UINT64_MAX;
}

int file_size_may_grow(struct vnode *vn, uint64_t size)
{
	uint64_t limit = file_size_limit();

	if (size <= limit || size <= __atomic_load_n(&vn->size, __ATOMIC_RELAXED))
		return 0;
	signal_send_thread(current_thread(), SIGXFSZ, NULL);
	return -EFBIG;
}

static long vnode_file_write_raw(struct file *f, struct iobuf *b, size_t n, uint64_t off,
				 bool append, uint64_t *end);

static long vnode_file_read(struct file *f, struct iobuf *b, size_t n, uint64_t off)
{
	return notify_io(f, vnode_file_read_raw(f, b, n, off), IN_ACCESS);
}

static long vnode_file_write(struct file *f, struct iobuf *b, size_t n, uint64_t off,
			     bool append, uint64_t *end)
{
	return notify_io(f, vnode_file_write_raw(f, b, n, off, append, end), IN_MODIFY);
}

static long vnode_file_read_raw(struct file *f, struct iobuf *b, size_t n, uint64_t off)
{
	struct vnode *vn = f->vn;

	if (f->hung_up)
		return 0;
	if (vn->ops && vn->ops->read)
		return vn->ops->read(vn, f, off, b, n);
	if (vn->type == VNODE_DIR)
		return -EISDIR;
	if (vn->type != VNODE_REG)
		return -EINVAL;
	if (f->flags & O_NOATIME)
		return vnode_read_io_noatime(vn, off, b, n);
	return vnode_read_io(vn, off, b, n);
}

static long vnode_file_write_raw(struct file *f, struct iobuf *b, size_t n, uint64_t off,
				 bool append, uint64_t *end)
{
	struct vnode *vn = f->vn;

	*end = off;
	if (f->hung_up)
		return -EIO;
	if (vn->ops && vn->ops->write)
		return vn->ops->write(vn, f, off, b, n);
	if (vn->ops || vn->type != VNODE_REG)
		return -EINVAL;
	if (n)
		cred_write_kills_suid(vn);
	return vnode_write_io(vn, off, append, b, n, end, file_size_limit());
}

// Regular files and directories have a position worth locking; pipes and
// devices do not (a console read may wait for input as long as it likes).
static bool has_position(const struct file *f)
{
	return f->vn && (f->vn->type == VNODE_REG || f->vn->type == VNODE_DIR);
}

void file_pos_lock(struct file *f)
{
	if (has_position(f))
		mutex_lock(&f->pos_lock);
}

void file_pos_unlock(struct file *f)
{
	if (has_position(f))
		mutex_unlock(&f->pos_lock);
}

// Devices and anonymous files leave the offset where it is (0).
static bool keeps_offset(const struct file *f)
{
	return (f->vn->ops && f->vn->type == VNODE_CHR) || f->vn->type == VNODE_ANON ||
	       f->vn->type == VNODE_SOCK;
}

bool file_can_pread(const struct file *f)
{
	return !f->pipe && f->vn->type != VNODE_ANON && f->vn->type != VNODE_SOCK;
}

// I/O at the position, which the caller holds locked if f has one.
static long read_at_position(struct file *f, struct iobuf *b, size_t n)
{
	long rc = vnode_file_read(f, b, n, f->off);

	if (rc > 0 && !keeps_offset(f))
		f->off += (uint64_t)rc;
	return rc;
}

static long write_at_position(struct file *f, struct iobuf *b, size_t n)
{
	uint64_t end, off = f->off;
	long rc = vnode_file_write(f, b, n, off, f->flags & O_APPEND, &end);

	if (rc > 0) {
		if (f->vn->ops)
			end = off + rc;
		if (f->vn->type != VNODE_CHR && !keeps_offset(f))
			f->off = end;
	}
	return rc;
}

long file_read_locked(struct file *f, struct iobuf *b, size_t n)
{
	if (!file_readable(f))
		return -EBADF;
	if (f->pipe)
		return notify_io(f, pipe_read(f, b, n), IN_ACCESS);
	return read_at_position(f, b, n);
}

long file_write_locked(struct file *f, struct iobuf *b, size_t n)
{
	if (!file_writable(f))
		return -EBADF;
	if (f->pipe)
		return notify_io(f, pipe_write(f, b, n), IN_MODIFY);
	return write_at_position(f, b, n);
}

// The same checks first, so that pipes (the switch benchmarks' path) pay
// nothing for the position lock.
long file_read(struct file *f, struct iobuf *b, size_t n)
{
	long rc;

	if (!file_readable(f))
		return -EBADF;
	if (f->pipe)
		return notify_io(f, pipe_read(f, b, n), IN_ACCESS);
	if (!has_position(f))
		return read_at_position(f, b, n);
	mutex_lock(&f->pos_lock);
	rc = read_at_position(f, b, n);
	mutex_unlock(&f->pos_lock);
	return rc;
}

long file_write(struct file *f, struct iobuf *b, size_t n)
{
	long rc;

	if (!file_writable(f))
		return -EBADF;
	if (f->pipe)
		return notify_io(f, pipe_write(f, b, n), IN_MODIFY);
	if (!has_position(f))
		return write_at_position(f, b, n);
	mutex_lock(&f->pos_lock);
	rc = write_at_position(f, b, n);
	mutex_unlock(&f->pos_lock);
	return rc;
}

long file_pread(struct file *f, struct iobuf *b, size_t n, uint64_t off)
{
	if (!file_readable(f))
		return -EBADF;
	if (!file_can_pread(f))
		return -ESPIPE;
	return vnode_file_read(f, b, n, off);
}

long file_pwrite(struct file *f, struct iobuf *b, size_t n, uint64_t off)
{
	uint64_t end;

	if (!file_writable(f))
		return -EBADF;
	if (!file_can_pread(f))
		return -ESPIPE;
	// Linux quirk kept: O_APPEND makes pwrite append too.
	return vnode_file_write(f, b, n, off, f->flags & O_APPEND, &end);
}

long file_write_append(struct file *f, struct iobuf *b, size_t n)
{
	uint64_t end;

	if (!file_writable(f))
		return -EBADF;
	if (f->pipe)
		return notify_io(f, pipe_write(f, b, n), IN_MODIFY);	// a pipe's end is where writes go anyway
	return vnode_file_write(f, b, n, f->off, true, &end);
}

int file_poll(struct file *f)
{
	if (f->pipe)
		return pipe_poll(f);
	if (f->hung_up)
		return POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM | POLLERR | POLLHUP;
	if (f->vn->ops && f->vn->ops->poll) {
		int mask = f->vn->ops->poll(f->vn);

		if (mask >= 0)
			return mask;
	}
	// Files and directories never block.
	return POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM;
}

uint64_t file_poll_events(struct file *f, uint32_t events)
{
	if (f->pipe)
		return pipe_poll_events(f, events);
	if (f->vn && f->vn->ops && f->vn->ops->poll_events && !f->hung_up)
		return f->vn->ops->poll_events(f->vn, events);
	return 0;
}

// ---- descriptor tables ----

struct fdtable *current_fdtable(void)
{
	struct thread *t = current_thread();

	if (t && t->own_fdt)
		return t->own_fdt;
	return t && t->proc ? t->proc->fdt : NULL;
}

int fd_limit(void)
{
	struct thread *t = current_thread();
	uint64_t cur = NOFILE_CUR;

	if (t && t->proc) {
		cur = t->proc->rlimits[RLIMIT_NOFILE_INDEX].cur;
		if (cur > NR_OPEN)
			cur = NR_OPEN;
	}
	return (int)cur;
}

// Which slots are in use is kept as a bitmap beside the array, and every
// slot below next_fd is known to be in use (Linux's open_fds and
// next_fd): the lowest free descriptor is found 64 slots a step from
// there, so filling a table of 100 000 descriptors is not quadratic.
static void slot_set(struct fdtable *fdt, int fd, struct file *f, bool cloexec)
{
	fdt->files[fd] = f;
	fdt->cloexec[fd] = f ? cloexec : 0;
	if (f) {
		fdt->used[fd / 64] |= 1ULL << (fd % 64);
	} else {
		fdt->used[fd / 64] &= ~(1ULL << (fd % 64));
		if (fd < fdt->next_fd)
			fdt->next_fd = fd;
	}
}

// The lowest free slot >= from; one past the table's end if none is in it.
static int slot_find_free(const struct fdtable *fdt, int from)
{
	for (int w = from / 64; w < fdt->size / 64; w++) {
		uint64_t free = ~fdt->used[w];
		if (w == from / 64)
			free &= ~0ULL << (from % 64);
		if (free)
			return w * 64 + __builtin_ctzll(free);
	}
	return from > fdt->size ? from : fdt->size;
}

// The lowest slot in use >= from, or fdt->size: the walks over a whole
// table (exit, exec) pass 64 free slots a step.
static int slot_find_used(const struct fdtable *fdt, int from)
{
	for (int w = from / 64; w < fdt->size / 64; w++) {
		uint64_t used = fdt->used[w];
		if (w == from / 64)
			used &= ~0ULL << (from % 64);
		if (used)
			return w * 64 + __builtin_ctzll(used);
	}
	return fdt->size;
}

static void fdtable_free_arrays(struct file **files, uint8_t *cloexec, uint64_t *used)
{
	kfree(files);
	kfree(cloexec);
	kfree(used);
}

static struct fdtable *fdtable_alloc(int size)
{
	struct fdtable *fdt = kzalloc(sizeof(*fdt));

	if (!fdt)
		return NULL;
	fdt->files = kzalloc(size * sizeof(struct file *));
	fdt->cloexec = kzalloc(size);
	fdt->used = kzalloc(size / 8);
	if (!fdt->files || !fdt->cloexec || !fdt->used) {
		fdtable_free_arrays(fdt->files, fdt->cloexec, fdt->used);
		kfree(fdt);
		return NULL;
	}
	fdt->size = size;
	fdt->refcount = 1;
	spin_init(&fdt->lock, "fdtable");
	return fdt;
}

struct fdtable *fdtable_new(void)
{
	return fdtable_alloc(FDTABLE_INITIAL);
}

struct fdtable *fdtable_copy(struct fdtable *old)
{
	struct fdtable *fdt;
	uint64_t flags;
	int size;

	// The size may grow between the allocation and the copy: retry.
	for (;;) {
		size = __atomic_load_n(&old->size, __ATOMIC_RELAXED);
		fdt = fdtable_alloc(size);
		if (!fdt)
			return NULL;
		flags = spin_lock_irqsave(&old->lock);
		if (old->size == size)
			break;
		spin_unlock_irqrestore(&old->lock, flags);
		fdtable_put(fdt);
	}
	for (int i = 0; i < size; i++) {
		if (old->files[i]) {
			file_get(old->files[i]);
			slot_set(fdt, i, old->files[i], old->cloexec[i]);
		}
	}
	fdt->next_fd = old->next_fd;
	spin_unlock_irqrestore(&old->lock, flags);
	return fdt;
}

void fdtable_get(struct fdtable *fdt)
{
	__atomic_add_fetch(&fdt->refcount, 1, __ATOMIC_RELAXED);
}

// A descriptor of fdt for f is gone: as Linux's filp_close, the table's
// POSIX locks on the file go, then the reference.
static void close_from_table(struct fdtable *fdt, struct file *f)
{
	bool sock;

	if (!f)
		return;
	locks_remove_posix(f, fdt);
	if (f->vn && f->vn->ops && f->vn->ops->flush && !(f->flags & O_PATH))
		f->vn->ops->flush(f->vn, f);
	// A socket's descriptor going may leave it alive only in flight,
	// which the collector looks for (net/unix.h).
	sock = sock_of_file(f) != NULL;
	file_put(f);
	if (sock)
		unix_gc_maybe();
}

void fdtable_put(struct fdtable *fdt)
{
	if (!fdt || __atomic_sub_fetch(&fdt->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (int i = slot_find_used(fdt, 0); i < fdt->size; i = slot_find_used(fdt, i + 1))
		close_from_table(fdt, fdt->files[i]);
	fdtable_free_arrays(fdt->files, fdt->cloexec, fdt->used);
	kfree(fdt);
}

void fdtable_close_on_exec(struct fdtable *fdt)
{
	for (int i = 0; i < __atomic_load_n(&fdt->size, __ATOMIC_RELAXED); i++) {
		struct file *f = NULL;
		uint64_t flags = spin_lock_irqsave(&fdt->lock);

		i = slot_find_used(fdt, i);
		if (i < fdt->size && fdt->files[i] && fdt->cloexec[i]) {
			f = fdt->files[i];
			slot_set(fdt, i, NULL, false);
		}
		spin_unlock_irqrestore(&fdt->lock, flags);
		close_from_table(fdt, f);
	}
}

void fdtable_for_each(struct fdtable *fdt, void (*fn)(struct file *f, void *arg), void *arg)
{
	uint64_t flags = spin_lock_irqsave(&fdt->lock);

	for (int i = 0; i < fdt->size; i++)
		if (fdt->files[i])
			fn(fdt->files[i], arg);
	spin_unlock_irqrestore(&fdt->lock, flags);
}

// Makes the table at least 'want' slots big (lock held; it is dropped
// and retaken around the allocation).
static int fdtable_grow(struct fdtable *fdt, int want, uint64_t *flags)
{
	int size = fdt->size;
	struct file **files;
	uint8_t *cloexec;
	uint64_t *used;

	while (size < want)
		size *= 2;
	if (size > NR_OPEN)
		size = NR_OPEN;
	spin_unlock_irqrestore(&fdt->lock, *flags);
	files = kzalloc(size * sizeof(struct file *));
	cloexec = kzalloc(size);
	used = kzalloc(size / 8);
	*flags = spin_lock_irqsave(&fdt->lock);
	if (!files || !cloexec || !used) {
		fdtable_free_arrays(files, cloexec, used);
		return -ENOMEM;
	}
	if (fdt->size >= size) {	// somebody else grew it meanwhile
		fdtable_free_arrays(files, cloexec, used);
		return 0;
	}
	memcpy(files, fdt->files, fdt->size * sizeof(struct file *));
	memcpy(cloexec, fdt->cloexec, fdt->size);
	memcpy(used, fdt->used, fdt->size / 8);
	// The old arrays are freed with the lock dropped below; nobody
	// reads them without the lock.
	struct file **old_files = fdt->files;
	uint8_t *old_cloexec = fdt->cloexec;
	uint64_t *old_used = fdt->used;
	fdt->files = files;
	fdt->cloexec = cloexec;
	fdt->used = used;
	fdt->size = size;
	spin_unlock_irqrestore(&fdt->lock, *flags);
	fdtable_free_arrays(old_files, old_cloexec, old_used);
	*flags = spin_lock_irqsave(&fdt->lock);
	return 0;
}

// The lowest free descriptor >= minfd, the table grown to hold it if
// need be, or -EMFILE / -ENOMEM (lock held; see fdtable_grow).
static int free_slot_locked(struct fdtable *fdt, int minfd, uint64_t *flags)
{
	int limit = fd_limit();
	int fd;

	if (minfd < 0)
		return -EINVAL;
	if (minfd >= limit)
		return -EMFILE;
	for (;;) {
		fd = slot_find_free(fdt, minfd > fdt->next_fd ? minfd : fdt->next_fd);
		if (fd >= limit)
			return -EMFILE;
		if (fd < fdt->size)
			return fd;
		int rc = fdtable_grow(fdt, fd + 1, flags);
		if (rc)
			return rc;	// ENOMEM, as Linux says when the table cannot grow
	}
}

int fd_install(struct fdtable *fdt, struct file *f, int minfd, bool cloexec)
{
	uint64_t flags = spin_lock_irqsave(&fdt->lock);
	int fd = free_slot_locked(fdt, minfd, &flags);

	if (fd >= 0) {
		file_get(f);
		slot_set(fdt, fd, f, cloexec);
		if (fd == fdt->next_fd)
			fdt->next_fd = fd + 1;
	}
	spin_unlock_irqrestore(&fdt->lock, flags);
	return fd;
}

int fd_prepare(struct fdtable *fdt, int minfd)
{
	uint64_t flags = spin_lock_irqsave(&fdt->lock);
	int fd = free_slot_locked(fdt, minfd, &flags);

	spin_unlock_irqrestore(&fdt->lock, flags);
	return fd < 0 ? fd : 0;
}

struct file *fd_get(struct fdtable *fdt, int fd)
{
	struct file *f = NULL;
	uint64_t flags;

	if (!fdt || fd < 0)
		return NULL;
	flags = spin_lock_irqsave(&fdt->lock);
	if (fd < fdt->size && fdt->files[fd]) {
		f = fdt->files[fd];
		file_get(f);
	}
	spin_unlock_irqrestore(&fdt->lock, flags);
	return f;
}

int fd_close(struct fdtable *fdt, int fd)
{
	struct file *f = NULL;
	uint64_t flags;

	if (!fdt || fd < 0)
		return -EBADF;
	flags = spin_lock_irqsave(&fdt->lock);
	if (fd < fdt->size) {
		f = fdt->files[fd];
		if (f)
			slot_set(fdt, fd, NULL, false);
	}
	spin_unlock_irqrestore(&fdt->lock, flags);
	if (!f)
		return -EBADF;
	close_from_table(fdt, f);
	return 0;
}

int fd_dup_to(struct fdtable *fdt, int oldfd, int newfd, bool cloexec)
{
	struct file *f, *replaced = NULL;
	uint64_t flags;
	int rc = newfd;

	if (newfd < 0 || newfd >= fd_limit())
		return -EBADF;
	f = fd_get(fdt, oldfd);
	if (!f)
		return -EBADF;
	flags = spin_lock_irqsave(&fdt->lock);
	if (newfd >= fdt->size)
		rc = fdtable_grow(fdt, newfd + 1, &flags);
	if (rc >= 0) {
		replaced = fdt->files[newfd];
		slot_set(fdt, newfd, f, cloexec);	// our reference moves into the table
		f = NULL;
		rc = newfd;
	}
	spin_unlock_irqrestore(&fdt->lock, flags);
	file_put(f);
	close_from_table(fdt, replaced);
	return rc;
}

int fd_get_cloexec(struct fdtable *fdt, int fd)
{
	uint64_t flags;
	int rc = -EBADF;

	if (!fdt || fd < 0)
		return -EBADF;
	flags = spin_lock_irqsave(&fdt->lock);
	if (fd < fdt->size && fdt->files[fd])
		rc = fdt->cloexec[fd];
	spin_unlock_irqrestore(&fdt->lock, flags);
	return rc;
}

int fd_set_cloexec(struct fdtable *fdt, int fd, bool on)
{
	uint64_t flags;
	int rc = -EBADF;

	if (!fdt || fd < 0)
		return -EBADF;
	flags = spin_lock_irqsave(&fdt->lock);
	if (fd < fdt->size && fdt->files[fd]) {
		fdt->cloexec[fd] = on;
		rc = 0;
	}
	spin_unlock_irqrestore(&fdt->lock, flags);
	return rc;
}

int fdtable_open_console(struct fdtable *fdt)
{
	struct vnode *vn;
	struct file *f;
	int rc = vfs_lookup("/dev/console", true, &vn);

	if (rc)
		return rc;
	f = file_new_vnode(vn, O_RDWR);
	if (!f) {
		vnode_put(vn);
		return -ENOMEM;
	}
	for (int fd = 0; fd < 3; fd++) {
		rc = fd_install(fdt, f, fd, false);
		if (rc != fd) {
			rc = rc < 0 ? rc : -EBUSY;	// the table was not empty
			break;
		}
	}
	file_put(f);
	return rc < 0 ? rc : 0;
}
