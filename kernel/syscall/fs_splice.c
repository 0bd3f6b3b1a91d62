// splice, tee and vmsplice, as Linux 6.1's fs/splice.c: between two
// pipes, from a regular file or a terminal into a pipe and out of a pipe
// into one (or into /dev/null), duplicating a pipe's buffers into another (tee), and
// between user memory and a pipe (vmsplice).  The pipes' buffers move as
// Linux's do (kernel/fs/pipe.c); the data itself is copied: a page given
// by vmsplice is not shared with the pipe, so changing it afterwards
// changes nothing there (Linux maps the page; SPLICE_F_GIFT, MOVE and
// MORE are hints either way).

#include <fs/fcntl.h>
#include <fs/file.h>
#include <fs/fs_syscall.h>
#include <fs/pipe.h>
#include <fs/vnode.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define SPLICE_F_MOVE		0x01
#define SPLICE_F_NONBLOCK	0x02
#define SPLICE_F_MORE		0x04
#define SPLICE_F_GIFT		0x08
#define SPLICE_F_ALL		0x0f

#define MAX_RW_COUNT		0x7ffff000UL
#define CHUNK			4096	// a pipe buffer's page
#define DEV_NULL_RDEV		((1 << 8) | 3)

// Terminals (the console, /dev/tty, both sides of a pseudo-terminal):
// no position, read and written as Linux's tty_fops splice them.
static bool is_tty(const struct file *f)
{
	return f->vn && f->vn->ops && f->vn->ops->stream;
}

static bool is_regular(const struct file *f)
{
	return f->vn && f->vn->type == VNODE_REG && !f->vn->ops;
}

// May an offset be named (Linux's FMODE_PREAD/FMODE_PWRITE)?
static bool seekable(const struct file *f)
{
	return f->vn && f->vn->type != VNODE_ANON && !is_tty(f);
}

// Files whose data splice reads and writes here: regular files of the
// tree (Linux's splice_read and splice_write of tmpfs) and terminals;
// /dev/null takes what is spliced to it.  Everything else has neither, as
// on Linux for most devices (EINVAL).
static bool splice_readable(const struct file *f)
{
	return is_regular(f) || is_tty(f);
}

static bool splice_writable(const struct file *f)
{
	return splice_readable(f) ||
	       (f->vn && f->vn->type == VNODE_CHR && f->vn->rdev == DEV_NULL_RDEV);
}

// A terminal's input into the pipe: one read, as much as the pipe has
// room for, in page-sized buffers (Linux's read_iter into a pipe).
static long tty_to_pipe(struct file *in, struct file *out, size_t len)
{
	char *buf;
	long got, rc = 0;
	size_t done = 0;

	if (len > 16 * CHUNK)
		len = 16 * CHUNK;	// a bounce of at most 64 KiB
	buf = kmalloc(len);
	if (!buf)
		return -ENOMEM;
	struct iobuf kb = iobuf_kernel(buf);
	got = file_read(in, &kb, len);
	while (got > 0 && done < (size_t)got) {
		size_t n = (size_t)got - done < CHUNK ? (size_t)got - done : CHUNK;

		rc = pipe_add_buf(out, buf + done, n, 0);
		if (rc < 0)
			break;
		done += n;
	}
	kfree(buf);
	if (got <= 0)
		return got;
	return done ? (long)done : rc;
}

// Linux's rw_verify_area for a position: negative, or past the largest
// offset with the length, is EINVAL.
static int verify_area(int64_t pos, size_t len)
{
	if (pos < 0 || (int64_t)((uint64_t)pos + len) < 0)
		return -EINVAL;
	return 0;
}

// A regular file's bytes at *pos into the pipe, a buffer per file page
// (Linux's generic_file_splice_read), as far as the pipe has room.
static long file_to_pipe(struct file *in, int64_t *pos, struct file *out, size_t len,
			 bool nonblock)
{
	char *buf;
	size_t done = 0;
	long rc = pipe_wait_room(out, nonblock);

	if (rc)
		return rc;
	if (len > pipe_free_slots(out) * CHUNK)
		len = pipe_free_slots(out) * CHUNK;
	rc = verify_area(*pos, len);
	if (rc)
		return rc;
	if (len > MAX_RW_COUNT)
		len = MAX_RW_COUNT;
	if (!splice_readable(in))
		return -EINVAL;		// no splice_read, found after the wait as Linux
	if (is_tty(in))
		return tty_to_pipe(in, out, len);
	buf = kmalloc(CHUNK);
	if (!buf)
		return -ENOMEM;
	while (done < len) {
		size_t in_page = (size_t)((uint64_t)*pos % CHUNK);
		size_t want = CHUNK - in_page < len - done ? CHUNK - in_page : len - done;
		struct iobuf kb = iobuf_kernel(buf);
		long got = file_pread(in, &kb, want, (uint64_t)*pos), put;

		if (got <= 0) {
			rc = got;
			break;
		}
		put = pipe_add_buf(out, buf, (size_t)got, in_page);
		if (put < 0) {
			rc = put;
			break;
		}
		*pos += got;
		done += (size_t)got;
		if ((size_t)got < want)
			break;		// end of the file
	}
	kfree(buf);
	return done ? (long)done : rc;
}

// Where spliced bytes go: a file at *pos, or user memory (vmsplice).
struct sink {
	struct file *file;
	int64_t *pos;
	struct user_iovec *iov;
	int64_t niov, seg;
	size_t seg_off;
};

// Delivers n bytes: how many were taken, or a negative errno.  User
// memory takes a buffer's bytes whole or not at all, as Linux's
// pipe_to_user.
static long sink_put(struct sink *s, const char *src, size_t n)
{
	if (s->file) {
		struct iobuf kb = iobuf_kernel((void *)src);
		long put;

		if (is_tty(s->file))
			return file_write(s->file, &kb, n);
		if (s->file->vn->type == VNODE_CHR)
			return (long)n;			// /dev/null
		put = file_pwrite(s->file, &kb, n, (uint64_t)*s->pos);
		if (put > 0)
			*s->pos += put;
		return put;
	}
	int64_t seg = s->seg;
	size_t seg_off = s->seg_off, done = 0;

	while (done < n && seg < s->niov) {
		size_t room = s->iov[seg].len - seg_off;
		size_t m = room < n - done ? room : n - done;

		if (m && copy_to_user(s->iov[seg].base + seg_off, src + done, m) < 0)
			return -EFAULT;
		done += m;
		seg_off += m;
		if (seg_off == s->iov[seg].len) {
			seg++;
			seg_off = 0;
		}
	}
	s->seg = seg;
	s->seg_off = seg_off;
	return (long)done;
}

// Linux's __splice_from_pipe: waits for data once, then gives what the
// pipe holds, a buffer at a time, up to len bytes; each buffer leaves the
// pipe as far as it was delivered.
static long pipe_to_sink(struct file *in, struct sink *s, size_t len, bool nonblock)
{
	size_t done = 0;
	char *buf = kmalloc(CHUNK);
	long rc = 0;

	if (!buf)
		return -ENOMEM;
	while (done < len) {
		size_t want = len - done < CHUNK ? len - done : CHUNK, got;
		long put;

		if (done == 0 && (rc = pipe_wait_data(in, nonblock)))
			break;
		got = pipe_peek(in, buf, want);
		if (got == 0)
			break;		// empty (after some data), or no writer left
		put = sink_put(s, buf, got);
		if (put <= 0) {
			rc = put;
			break;
		}
		pipe_consume(in, (size_t)put);
		done += (size_t)put;
		if ((size_t)put < got)
			break;
	}
	kfree(buf);
	return done ? (long)done : rc;
}

// A file's position for a splice without an offset pointer: locked for
// the whole call, as Linux's f_pos use under the file's pos lock.
static long splice_at(struct file *f, int64_t *pos, bool use_file_pos,
		      long (*op)(struct file *, int64_t *, void *), void *arg)
{
	int64_t p;
	long rc;

	if (!use_file_pos)
		return op(f, pos, arg);
	file_pos_lock(f);
	p = (int64_t)f->off;
	rc = op(f, &p, arg);
	f->off = (uint64_t)p;
	file_pos_unlock(f);
	return rc;
}

struct splice_call {
	struct file *other;
	size_t len;
	bool nonblock;
};

static long in_op(struct file *in, int64_t *pos, void *arg)
{
	struct splice_call *c = arg;

	return file_to_pipe(in, pos, c->other, c->len, c->nonblock);
}

static long out_op(struct file *out, int64_t *pos, void *arg)
{
	struct splice_call *c = arg;
	struct sink s = { .file = out, .pos = pos };

	return pipe_to_sink(c->other, &s, c->len, c->nonblock);
}

// Linux's do_splice, once the offsets are read: *off_in/*off_out are
// the positions asked for (NULL: the files' own).
static long do_splice(struct file *in, int64_t *off_in, struct file *out, int64_t *off_out,
		      size_t len, unsigned flags)
{
	bool nonblock = flags & SPLICE_F_NONBLOCK;
	struct splice_call c = { .len = len };

	if (!file_readable(in) || !file_writable(out))
		return -EBADF;
	if (in->pipe && out->pipe) {
		if (pipe_same(in, out))
			return -EINVAL;		// splicing to itself
		nonblock |= ((in->flags | out->flags) & O_NONBLOCK) != 0;
		return pipe_splice_pipe(in, out, len, nonblock);
	}
	if (in->pipe) {
		int64_t pos = off_out ? *off_out : (int64_t)out->off;
		long rc;

		if (off_out && !seekable(out))
			return -EINVAL;
		if (out->flags & O_APPEND)
			return -EINVAL;
		rc = verify_area(pos, len);
		if (rc)
			return rc;
		if (!splice_writable(out))
			return -EINVAL;
		c.other = in;
		c.nonblock = nonblock || (in->flags & O_NONBLOCK);
		return splice_at(out, off_out, !off_out, out_op, &c);
	}
	if (out->pipe) {
		if (off_in && !seekable(in))
			return -EINVAL;
		c.other = out;
		c.nonblock = nonblock || (out->flags & O_NONBLOCK);
		return splice_at(in, off_in, !off_in, in_op, &c);
	}
	return -EINVAL;
}

SYSCALL_DEFINE(SYS_splice, splice)
{
	uint64_t uoff_in = args->a[1], uoff_out = args->a[3];
	size_t len = (size_t)args->a[4];
	unsigned flags = (unsigned)args->a[5];
	int64_t off_in, off_out;
	struct file *in, *out = NULL;
	long rc;

	if (len == 0)
		return 0;
	if (flags & ~SPLICE_F_ALL)
		return -EINVAL;
	in = fget((int)args->a[0]);
	if (in)
		out = fget((int)args->a[2]);
	if (!in || !out) {
		rc = -EBADF;
		goto out;
	}
	rc = 0;
	if ((in->pipe && uoff_in) || (out->pipe && uoff_out))
		rc = -ESPIPE;
	else if (uoff_out && copy_from_user(&off_out, uoff_out, sizeof(off_out)) < 0)
		rc = -EFAULT;
	else if (uoff_in && copy_from_user(&off_in, uoff_in, sizeof(off_in)) < 0)
		rc = -EFAULT;
	if (rc == 0)
		rc = do_splice(in, uoff_in ? &off_in : NULL, out, uoff_out ? &off_out : NULL, len,
			       flags);
	if (rc >= 0 && uoff_out && copy_to_user(uoff_out, &off_out, sizeof(off_out)) < 0)
		rc = -EFAULT;
	if (rc >= 0 && uoff_in && copy_to_user(uoff_in, &off_in, sizeof(off_in)) < 0)
		rc = -EFAULT;
out:
	if (in)
		file_put(in);
	if (out)
		file_put(out);
	return rc;
}

SYSCALL_DEFINE(SYS_tee, tee)
{
	size_t len = (size_t)args->a[2];
	unsigned flags = (unsigned)args->a[3];
	struct file *in, *out = NULL;
	bool nonblock;
	long rc;

	if (flags & ~SPLICE_F_ALL)
		return -EINVAL;
	if (len == 0)
		return 0;
	in = fget((int)args->a[0]);
	if (in)
		out = fget((int)args->a[1]);
	if (!in || !out) {
		rc = -EBADF;
		goto out;
	}
	if (!file_readable(in) || !file_writable(out)) {
		rc = -EBADF;
		goto out;
	}
	rc = -EINVAL;
	if (!in->pipe || !out->pipe || pipe_same(in, out))
		goto out;
	nonblock = (flags & SPLICE_F_NONBLOCK) || ((in->flags | out->flags) & O_NONBLOCK);
	rc = pipe_wait_data(in, nonblock);
	if (rc == 0)
		rc = pipe_wait_room(out, nonblock);
	if (rc == 0)
		rc = pipe_tee(in, out, len);
out:
	if (in)
		file_put(in);
	if (out)
		file_put(out);
	return rc;
}

// vmsplice into a pipe: each segment a buffer per page it touches
// (Linux's iter_to_pipe), until the pipe is full (no waiting after the
// first wait for room) or an unreadable page.
static long vmsplice_to_pipe(struct file *f, struct user_iovec *iov, int64_t niov,
			     unsigned flags)
{
	char *buf;
	size_t done = 0;
	long rc = pipe_wait_room(f, flags & SPLICE_F_NONBLOCK);

	if (rc)
		return rc;
	buf = kmalloc(CHUNK);
	if (!buf)
		return -ENOMEM;
	for (int64_t i = 0; i < niov && rc == 0; i++) {
		uint64_t addr = iov[i].base, left = iov[i].len;

		while (left && rc == 0) {
			size_t in_page = (size_t)(addr % CHUNK);
			size_t n = CHUNK - in_page < left ? CHUNK - in_page : (size_t)left;
			long put;

			if (copy_from_user(buf, addr, n) < 0) {
				rc = -EFAULT;
				break;
			}
			put = pipe_add_buf(f, buf, n, in_page);
			if (put < 0) {
				rc = put;
				break;
			}
			done += n;
			addr += n;
			left -= n;
		}
	}
	kfree(buf);
	return done ? (long)done : rc;
}

SYSCALL_DEFINE(SYS_vmsplice, vmsplice)
{
	int64_t niov = (int64_t)args->a[2];
	unsigned flags = (unsigned)args->a[3];
	struct user_iovec *iov;
	struct file *f;
	uint64_t total = 0;
	long rc;

	if (flags & ~SPLICE_F_ALL)
		return -EINVAL;
	f = fget((int)args->a[0]);
	if (!f)
		return -EBADF;
	// Open for writing: into the pipe; else for reading: out of it.
	if (!file_writable(f) && !file_readable(f)) {
		file_put(f);
		return -EBADF;
	}
	rc = user_iovecs_get(args->a[1], niov, &iov);
	if (rc < 0) {
		file_put(f);
		return rc;
	}
	for (int64_t i = 0; i < niov; i++)
		total += iov[i].len;
	if (total == 0)
		rc = 0;
	else if (!f->pipe)
		rc = -EBADF;
	else if (file_writable(f))
		rc = vmsplice_to_pipe(f, iov, niov, flags);
	else {
		struct sink s = { .iov = iov, .niov = niov };

		rc = pipe_to_sink(f, &s, (size_t)total, flags & SPLICE_F_NONBLOCK);
	}
	kfree(iov);
	file_put(f);
	return rc;
}
