// Pipes: a ring buffer (64 KiB unless F_SETPIPE_SZ changes it) between a
// read end and a write end.
#ifndef FS_PIPE_H
#define FS_PIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <fs/iobuf.h>

struct file;
struct pipe;

#define PIPE_SIZE (64 * 1024)	// of a new pipe

// Two new files, the read and write ends; 'flags' may hold O_NONBLOCK.
int pipe_create(struct file **rd, struct file **wr, uint32_t flags);
long pipe_read(struct file *f, struct iobuf *b, size_t n);
long pipe_write(struct file *f, struct iobuf *b, size_t n);
// The same, never waiting when 'nowait' (aio's RWF_NOWAIT, Linux's
// IOCB_NOWAIT): EAGAIN as with O_NONBLOCK.
long pipe_read_nowait(struct file *f, struct iobuf *b, size_t n, bool nowait);
long pipe_write_nowait(struct file *f, struct iobuf *b, size_t n, bool nowait);
int pipe_poll(struct file *f);
uint64_t pipe_poll_events(struct file *f, uint32_t events);	// fs/poll.h
size_t pipe_bytes_ready(struct file *f);	// FIONREAD
size_t pipe_size(struct file *f);		// F_GETPIPE_SZ
long pipe_set_size(struct file *f, uint64_t want);	// F_SETPIPE_SZ
// /proc/sys/fs/pipe-max-size: the limit, and setting it (rounded as
// pipe_round_size does; -EINVAL above 2^31).
unsigned pipe_get_max_size(void);
int pipe_set_max_size(uint64_t size);
// Linux's round_pipe_size: a power of two, at least a page; 0 above 2^31.
uint64_t pipe_round_size(uint64_t size);
// Opening a pipe again (/proc/PID/fd/N): f, a new file with open's
// flags, becomes its read end, its write end, or both for O_RDWR.  As
// Linux's fifo_open for a pipe (not a FIFO), it never waits for the
// other end and never fails.
void pipe_open_end(struct file *f, struct pipe *p);
// Opening a FIFO (a VNODE_FIFO vnode; f is the new file with open's
// flags): its pipe is made on the first open and goes with the last
// close.  As Linux's fifo_open: O_RDWR never waits; a lone reader waits
// for a writer unless O_NONBLOCK, a lone writer for a reader, and with
// O_NONBLOCK and no reader is -ENXIO; -ERESTARTSYS when interrupted.
struct vnode;
int fifo_open(struct file *f, struct vnode *vn);
// The file on one end is going away.
void pipe_release(struct file *f);

// splice, tee and vmsplice (kernel/syscall/fs_splice.c), on the pipe
// behind a file, as Linux 6.1's fs/splice.c moves its buffers.
#include <stdbool.h>
bool pipe_same(const struct file *a, const struct file *b);
// Waits while the pipe is empty: 0 (data, or no writer left), -EAGAIN,
// -ERESTARTSYS.
int pipe_wait_data(struct file *f, bool nonblock);
// Waits while it is full: 0, -EPIPE (SIGPIPE sent), -EAGAIN, -ERESTARTSYS.
int pipe_wait_room(struct file *f, bool nonblock);
// splice between two pipes; tee (copies, the input unchanged).  Bytes
// moved, or -EPIPE (SIGPIPE sent), -EAGAIN, -ERESTARTSYS.
long pipe_splice_pipe(struct file *in, struct file *out, size_t len, bool nonblock);
long pipe_tee(struct file *in, struct file *out, size_t len);
// A new buffer of n bytes (at most a page; 'offset' is where they sat in
// their page): n, -EPIPE (SIGPIPE sent) or -EAGAIN when full.
long pipe_add_buf(struct file *f, const char *src, size_t n, size_t offset);
size_t pipe_free_slots(struct file *f);
// Up to n bytes of the first buffer, copied and left there; then taking
// n bytes (fewer if a reader took some meanwhile).
size_t pipe_peek(struct file *f, char *dst, size_t n);
void pipe_consume(struct file *f, size_t n);

// For the in-kernel tests: a pipe without files.
struct pipe *pipe_alloc(void);
// /proc/sys/fs/pipe-user-pages-soft (hard false) and -hard.
unsigned long pipe_get_user_pages(bool hard);
void pipe_set_user_pages(bool hard, unsigned long pages);
void pipe_free(struct pipe *p);

#endif
