// Linux native AIO through the raw calls: io_setup's ring in user memory
// (Linux's header, nr_events rounding, ids), its limits (aio-max-nr,
// aio-nr, EINVAL/EAGAIN), IOCB_CMD_PREAD/PWRITE/PREADV/PWRITEV/FSYNC/
// FDSYNC/POLL and NOOP's EINVAL, events read from the ring directly (as
// libaio does) and by io_getevents, per-iocb errnos and the count
// submitted before them, aio_key, IOCB_FLAG_RESFD, RWF_APPEND, a full
// ring, io_getevents' min_nr/nr/timeout rules, blocking, EINTR and
// io_pgetevents' mask, io_cancel of a poll, io_destroy (waiters woken,
// the ring unmapped), a munmapped ring, fork (no contexts, no ring) and
// exit giving aio-nr back.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"
#include "sysutil.h"
#include "poke.h"

#define IOCB_CMD_PREAD		0
#define IOCB_CMD_PWRITE		1
#define IOCB_CMD_FSYNC		2
#define IOCB_CMD_FDSYNC		3
#define IOCB_CMD_POLL		5
#define IOCB_CMD_NOOP		6
#define IOCB_CMD_PREADV		7
#define IOCB_CMD_PWRITEV	8
#define IOCB_FLAG_RESFD		(1 << 0)
#ifndef RWF_NOWAIT		// glibc's <sys/uio.h> has them, musl's not
#define RWF_NOWAIT		0x08
#define RWF_APPEND		0x10
#endif

typedef unsigned long aio_context_t;

struct aio_ring {
	unsigned id, nr, head, tail, magic, compat_features, incompat_features, header_length;
	struct io_event_ {
		uint64_t data, obj;
		int64_t res, res2;
	} events[];
};

typedef struct io_event_ io_event;

struct iocb {
	uint64_t aio_data;
	uint32_t aio_key, aio_rw_flags;
	uint16_t aio_lio_opcode;
	int16_t aio_reqprio;
	uint32_t aio_fildes;
	uint64_t aio_buf, aio_nbytes;
	int64_t aio_offset;
	uint64_t aio_reserved2;
	uint32_t aio_flags, aio_resfd;
};

struct aio_sigset {
	const sigset_t *sigmask;
	size_t sigsetsize;
};

static long io_setup(unsigned nr, aio_context_t *ctx)
{
	return syscall(SYS_io_setup, nr, ctx);
}

static long io_destroy(aio_context_t ctx)
{
	return syscall(SYS_io_destroy, ctx);
}

static long io_submit(aio_context_t ctx, long nr, struct iocb **cbs)
{
	return syscall(SYS_io_submit, ctx, nr, cbs);
}

static long io_cancel(aio_context_t ctx, struct iocb *cb, io_event *ev)
{
	return syscall(SYS_io_cancel, ctx, cb, ev);
}

static long io_getevents(aio_context_t ctx, long min, long nr, io_event *ev, struct timespec *ts)
{
	return syscall(SYS_io_getevents, ctx, min, nr, ev, ts);
}

static long io_pgetevents(aio_context_t ctx, long min, long nr, io_event *ev,
			  struct timespec *ts, struct aio_sigset *sig)
{
	return syscall(SYS_io_pgetevents, ctx, min, nr, ev, ts, sig);
}

// ---- helpers ----

static long sysctl_value(const char *name)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/sys/fs/%s", name);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return atol(buf);
}

static int possible_cpus(void)
{
	char buf[64];
	int lo, hi;

	if (read_file("/sys/devices/system/cpu/possible", buf, sizeof(buf)) <= 0)
		return 1;
	if (sscanf(buf, "%d-%d", &lo, &hi) == 2)
		return hi + 1;
	return 1;
}

// The ring size Linux makes for nr_events (ioctx_alloc, aio_setup_ring).
static unsigned ring_events(unsigned nr)
{
	unsigned n = nr > 4u * possible_cpus() ? nr : 4u * possible_cpus();
	unsigned long size = 32 + 32UL * (n * 2 + 2);
	unsigned long pages = (size + 4095) / 4096;

	return (unsigned)((pages * 4096 - 32) / 32);
}

static aio_context_t setup(unsigned nr)
{
	aio_context_t ctx = 0;

	if (io_setup(nr, &ctx) < 0) {
		fail("io_setup(%u): errno %d", nr, errno);
		return 0;
	}
	return ctx;
}

static void prep(struct iocb *cb, int op, int fd, void *buf, uint64_t n, int64_t off)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_lio_opcode = (uint16_t)op;
	cb->aio_fildes = (uint32_t)fd;
	cb->aio_buf = (uint64_t)(uintptr_t)buf;
	cb->aio_nbytes = n;
	cb->aio_offset = off;
	cb->aio_data = 0x1000 + (uint64_t)op;
}

static long submit1(aio_context_t ctx, struct iocb *cb)
{
	struct iocb *list[1] = { cb };

	return io_submit(ctx, 1, list);
}

// One event, within a second; its res (or -9999 with a failure).
static int64_t one_event(aio_context_t ctx, struct iocb *cb)
{
	io_event ev;
	struct timespec ts = { 1, 0 };
	long n = io_getevents(ctx, 1, 1, &ev, &ts);

	if (n != 1) {
		fail("io_getevents: %ld (errno %d), want 1 event", n, errno);
		return -9999;
	}
	if (ev.obj != (uint64_t)(uintptr_t)cb || ev.data != cb->aio_data || ev.res2 != 0) {
		fail("event obj %#lx data %#lx res2 %ld", (unsigned long)ev.obj,
		     (unsigned long)ev.data, (long)ev.res2);
		return -9999;
	}
	return ev.res;
}

// A file of the case's own, already unlinked (it goes with its last
// descriptor).
static int scratch_file(const char *name)
{
	int fd = open(scratch(name), O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		fail("open %s: errno %d", name, errno);
	unlink(scratch(name));
	return fd;
}

// ---- cases ----

static void t_ring_layout(void)
{
	aio_context_t a, b, c;
	long nr0 = sysctl_value("aio-nr");

	if (!(a = setup(10)))
		return;
	struct aio_ring *r = (struct aio_ring *)a;
	check(r->magic == 0xa10a10a1, "magic");
	check(r->compat_features == 1 && r->incompat_features == 0, "features 1 and 0");
	check(r->header_length == 32, "header_length 32");
	check(r->nr == ring_events(10), "nr as Linux rounds it");
	check(r->head == 0 && r->tail == 0, "empty");
	check(r->id == 0, "first id 0");
	check(sysctl_value("aio-nr") >= nr0 + 10, "aio-nr counts 10 more");
	if (!(b = setup(1)))
		return;
	check(((struct aio_ring *)b)->id == 1, "second id 1");
	check(((struct aio_ring *)b)->nr == ring_events(1), "nr for 1");
	check_ok(io_destroy(a), "io_destroy");
	if (!(c = setup(300)))
		return;
	check(((struct aio_ring *)c)->id == 0, "the free id 0 again");
	check(((struct aio_ring *)c)->nr == ring_events(300), "nr for 300");
	check_ok(io_destroy(b), "io_destroy b");
	check_ok(io_destroy(c), "io_destroy c");
	check(sysctl_value("aio-nr") <= nr0 + 0 || nr0 < 0, "aio-nr back");
}

static void t_setup_errors(void)
{
	aio_context_t ctx = 1;
	long max = sysctl_value("aio-max-nr");

	check_errno(io_setup(1, &ctx), EINVAL, "*ctxp not 0");
	ctx = 0;
	check_errno(io_setup(0, &ctx), EINVAL, "nr_events 0");
	check_errno(io_setup(1, (aio_context_t *)8), EFAULT, "ctxp at 8");
	check_errno(io_setup(0xffffffffu, &ctx), EINVAL, "nr_events 2^32-1: too big");
	check_errno(io_setup(0x7fffffffu, &ctx), EINVAL, "nr_events 2^31-1: too big");
	check_errno(io_setup(0x80000000u, &ctx), EAGAIN, "nr_events 2^31: doubled to 0");
	if (max > 0 && max < 0x1000000)
		check_errno(io_setup((unsigned)max + 1, &ctx), EAGAIN, "past aio-max-nr");
	check(ctx == 0, "ctx untouched");
	// aio-max-nr counts every context's request.
	char old[64], text[64];
	if (read_file("/proc/sys/fs/aio-max-nr", old, sizeof(old)) <= 0)
		return (void)fail("read aio-max-nr");
	snprintf(text, sizeof(text), "%ld", sysctl_value("aio-nr") + 5);
	if (write_file("/proc/sys/fs/aio-max-nr", text) < 0)
		return (void)fail("write aio-max-nr");
	check_errno(io_setup(10, &ctx), EAGAIN, "10 more than aio-max-nr allows");
	aio_context_t small = 0;
	check_ok(io_setup(3, &small), "3 fit");
	if (small)
		io_destroy(small);
	write_file("/proc/sys/fs/aio-max-nr", old);
	check(sysctl_value("aio-max-nr") == max, "aio-max-nr restored");
}

static void t_read_write(void)
{
	aio_context_t ctx = setup(8);
	int fd = scratch_file("rw");
	char out[64] = "hello, aio", in[64] = "";
	struct iocb w, r;

	if (!ctx || fd < 0)
		return;
	prep(&w, IOCB_CMD_PWRITE, fd, out, 10, 100);
	w.aio_key = 77;
	check(submit1(ctx, &w) == 1, "submit PWRITE");
	check(w.aio_key == 0, "io_submit sets aio_key to 0");
	check(one_event(ctx, &w) == 10, "PWRITE wrote 10");
	check(lseek(fd, 0, SEEK_CUR) == 0, "the file position does not move");
	prep(&r, IOCB_CMD_PREAD, fd, in, 64, 100);
	check(submit1(ctx, &r) == 1, "submit PREAD");
	check(one_event(ctx, &r) == 10 && memcmp(in, out, 10) == 0, "PREAD read it back");
	prep(&r, IOCB_CMD_PREAD, fd, in, 64, 4096);
	submit1(ctx, &r);
	check(one_event(ctx, &r) == 0, "PREAD past the end: 0");
	// RWF_APPEND: at the end whatever the offset.
	prep(&w, IOCB_CMD_PWRITE, fd, "XY", 2, 0);
	w.aio_rw_flags = RWF_APPEND;
	submit1(ctx, &w);
	check(one_event(ctx, &w) == 2, "RWF_APPEND wrote 2");
	struct stat st;
	fstat(fd, &st);
	check(st.st_size == 112, "RWF_APPEND appended");
	// A buffer that is in user space but unmapped: the event says EFAULT.
	char *hole = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(hole, 4096);
	prep(&r, IOCB_CMD_PREAD, fd, hole, 10, 100);
	check(submit1(ctx, &r) == 1, "submit PREAD into a hole");
	check(one_event(ctx, &r) == -EFAULT, "the event's res is -EFAULT");
	close(fd);
	io_destroy(ctx);
}

static void t_vectored(void)
{
	aio_context_t ctx = setup(8);
	int fd = scratch_file("vec");
	char a[4] = "abc", b[4] = "defg", c[8] = "hij";
	struct iovec wv[3] = { { a, 3 }, { b, 4 }, { c, 3 } };
	char x[5], y[5], z[5];
	struct iovec rv[3] = { { x, 5 }, { y, 5 }, { z, 5 } };
	struct iocb cb;

	if (!ctx || fd < 0)
		return;
	prep(&cb, IOCB_CMD_PWRITEV, fd, wv, 3, 1);
	submit1(ctx, &cb);
	check(one_event(ctx, &cb) == 10, "PWRITEV 10 bytes");
	prep(&cb, IOCB_CMD_PREADV, fd, rv, 3, 0);
	submit1(ctx, &cb);
	check(one_event(ctx, &cb) == 11, "PREADV 11 bytes");
	check(x[0] == 0 && memcmp(x + 1, "abcd", 4) == 0 && memcmp(y, "efghi", 5) == 0 && z[0] == 'j',
	      "PREADV's bytes");
	prep(&cb, IOCB_CMD_PREADV, fd, rv, 1025, 0);
	check_errno(submit1(ctx, &cb), EINVAL, "1025 vectors");
	prep(&cb, IOCB_CMD_PREADV, fd, (void *)8, 1, 0);
	check_errno(submit1(ctx, &cb), EFAULT, "vectors at 8");
	prep(&cb, IOCB_CMD_PREADV, fd, rv, 0, 0);
	submit1(ctx, &cb);
	check(one_event(ctx, &cb) == 0, "no vectors: 0");
	close(fd);
	io_destroy(ctx);
}

// Pipes: RWF_NOWAIT gives the event -EAGAIN (pipes have FMODE_NOWAIT),
// and a read without it blocks in io_submit until a writer comes, as on
// Linux.
static void t_pipes(void)
{
	aio_context_t ctx = setup(4);
	int p[2];
	char buf[8];
	struct iocb cb;

	if (!ctx || pipe(p) < 0)
		return;
	prep(&cb, IOCB_CMD_PREAD, p[0], buf, sizeof(buf), 0);
	cb.aio_rw_flags = RWF_NOWAIT;
	check(submit1(ctx, &cb) == 1, "RWF_NOWAIT read of an empty pipe");
	check(one_event(ctx, &cb) == -EAGAIN, "its event: -EAGAIN");
	pid_t pid = fork_child();
	if (pid == 0) {
		sleep_ms(50);
		_exit(write(p[1], "pipe", 4) == 4 ? 0 : 1);
	}
	cb.aio_rw_flags = 0;
	long long t0 = now_ns(CLOCK_MONOTONIC);
	check(submit1(ctx, &cb) == 1, "a blocking read");
	check(now_ns(CLOCK_MONOTONIC) - t0 >= 40000000, "io_submit waited for the writer");
	check(one_event(ctx, &cb) == 4 && memcmp(buf, "pipe", 4) == 0, "and read its 4 bytes");
	check_child_ok(pid, "writer");
	prep(&cb, IOCB_CMD_PWRITE, p[1], "ab", 2, 12345);
	cb.aio_rw_flags = RWF_NOWAIT;
	submit1(ctx, &cb);
	check(one_event(ctx, &cb) == 2, "RWF_NOWAIT write with room, the offset ignored");
	close(p[0]);
	close(p[1]);
	io_destroy(ctx);
}

static void t_fsync_noop(void)
{
	aio_context_t ctx = setup(8);
	int fd = scratch_file("sync"), p[2];
	struct iocb cb;

	if (!ctx || fd < 0 || pipe(p) < 0)
		return;
	prep(&cb, IOCB_CMD_FSYNC, fd, NULL, 0, 0);
	submit1(ctx, &cb);
	check(one_event(ctx, &cb) == 0, "FSYNC 0");
	prep(&cb, IOCB_CMD_FDSYNC, fd, NULL, 0, 0);
	submit1(ctx, &cb);
	check(one_event(ctx, &cb) == 0, "FDSYNC 0");
	prep(&cb, IOCB_CMD_FSYNC, fd, NULL, 1, 0);
	check_errno(submit1(ctx, &cb), EINVAL, "FSYNC with a length");
	prep(&cb, IOCB_CMD_FSYNC, fd, NULL, 0, 0);
	cb.aio_rw_flags = 2;
	check_errno(submit1(ctx, &cb), EINVAL, "FSYNC with rw flags");
	prep(&cb, IOCB_CMD_FSYNC, p[0], NULL, 0, 0);
	check_errno(submit1(ctx, &cb), EINVAL, "FSYNC of a pipe");
	prep(&cb, IOCB_CMD_NOOP, fd, NULL, 0, 0);
	check_errno(submit1(ctx, &cb), EINVAL, "NOOP");
	prep(&cb, 4, fd, NULL, 0, 0);
	check_errno(submit1(ctx, &cb), EINVAL, "opcode 4");
	prep(&cb, 99, fd, NULL, 0, 0);
	check_errno(submit1(ctx, &cb), EINVAL, "opcode 99");
	io_event ev;
	struct timespec zero = { 0, 0 };
	check(io_getevents(ctx, 0, 1, &ev, &zero) == 0, "refused iocbs leave no event");
	close(fd);
	close(p[0]);
	close(p[1]);
	io_destroy(ctx);
}

static void t_submit_errors(void)
{
	aio_context_t ctx = setup(8);
	int fd = open(scratch("err"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	int ro = open(scratch("err"), O_RDONLY);
	char buf[16];
	struct iocb a, b, c;
	struct iocb *list[3] = { &a, &b, &c };

	unlink(scratch("err"));
	if (!ctx || fd < 0 || ro < 0)
		return;
	prep(&a, IOCB_CMD_FSYNC, fd, NULL, 0, 0);
	prep(&b, IOCB_CMD_FSYNC, 999, NULL, 0, 0);
	prep(&c, IOCB_CMD_FSYNC, fd, NULL, 0, 0);
	check(io_submit(ctx, 3, list) == 1, "a bad fd second: 1 submitted");
	check_errno(io_submit(ctx, 1, list + 1), EBADF, "a bad fd first: EBADF");
	list[1] = (struct iocb *)8;
	check(io_submit(ctx, 3, list) == 1, "a bad iocb pointer second: 1");
	check_errno(io_submit(ctx, 1, list + 1), EFAULT, "a bad iocb pointer first: EFAULT");
	check_errno(io_submit(ctx, 1, (struct iocb **)8), EFAULT, "the array at 8");
	check_errno(io_submit(ctx, -1, list), EINVAL, "nr -1");
	check(io_submit(ctx, 0, list) == 0, "nr 0");
	check_errno(io_submit(0, 1, list), EINVAL, "ctx 0");
	check_errno(io_submit(ctx + 4096, 1, list), EINVAL, "not a context");
	check_errno(io_submit((aio_context_t)buf, 1, list), EINVAL, "an address that is no ring");
	prep(&b, IOCB_CMD_PREAD, fd, buf, 16, 0);
	b.aio_reserved2 = 1;
	check_errno(submit1(ctx, &b), EINVAL, "aio_reserved2");
	prep(&b, IOCB_CMD_PREAD, fd, buf, (uint64_t)-1, 0);
	check_errno(submit1(ctx, &b), EINVAL, "negative nbytes");
	prep(&b, IOCB_CMD_PREAD, fd, buf, 16, -1);
	check_errno(submit1(ctx, &b), EINVAL, "negative offset");
	prep(&b, IOCB_CMD_PREAD, fd, buf, 16, 0);
	b.aio_rw_flags = 0x80000000;
	check_errno(submit1(ctx, &b), EOPNOTSUPP, "unknown RWF flag");
	prep(&b, IOCB_CMD_PWRITE, ro, buf, 16, 0);
	check_errno(submit1(ctx, &b), EBADF, "PWRITE to a read-only fd");
	prep(&b, IOCB_CMD_PREAD, fd, (void *)0xffff800000000000UL, 16, 0);
	check_errno(submit1(ctx, &b), EFAULT, "a kernel buffer");
	int dir = open("/", O_RDONLY | O_DIRECTORY);
	prep(&b, IOCB_CMD_PREAD, dir, buf, 16, 0);
	check_errno(submit1(ctx, &b), EINVAL, "PREAD of a directory");
	close(dir);
	int pfd = open("/", O_PATH);
	prep(&b, IOCB_CMD_FSYNC, pfd, NULL, 0, 0);
	check_errno(submit1(ctx, &b), EBADF, "an O_PATH descriptor");
	close(pfd);
	// aio_key is written: a read-only iocb is EFAULT.
	struct iocb *roc = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);
	prep(roc, IOCB_CMD_FSYNC, fd, NULL, 0, 0);
	mprotect(roc, 4096, PROT_READ);
	check_errno(submit1(ctx, roc), EFAULT, "a read-only iocb");
	munmap(roc, 4096);
	io_event ev[8];
	struct timespec sec = { 1, 0 };
	check(io_getevents(ctx, 2, 8, ev, &sec) == 2, "two events from the partial batches");
	close(fd);
	close(ro);
	io_destroy(ctx);
}

// libaio's user-space reaping: events straight from the ring, head moved
// by hand; io_getevents then finds nothing.
static void t_ring_read_directly(void)
{
	aio_context_t ctx = setup(4);
	int fd = scratch_file("ring");
	struct iocb cb[3];
	struct iocb *list[3] = { &cb[0], &cb[1], &cb[2] };

	if (!ctx || fd < 0)
		return;
	struct aio_ring *r = (struct aio_ring *)ctx;
	for (int i = 0; i < 3; i++) {
		prep(&cb[i], IOCB_CMD_PWRITE, fd, "r", 1, i);
		cb[i].aio_data = 500 + i;
	}
	check(io_submit(ctx, 3, list) == 3, "3 submitted");
	check(r->tail == 3 && r->head == 0, "tail 3 in the ring");
	for (unsigned i = r->head; i != r->tail; i = (i + 1) % r->nr)
		if (r->events[i].data != 500 + i || r->events[i].obj != (uint64_t)(uintptr_t)&cb[i])
			fail("ring event %u: data %lu", i, (unsigned long)r->events[i].data);
	r->head = 3;
	io_event ev[4];
	struct timespec zero = { 0, 0 };
	check(io_getevents(ctx, 0, 4, ev, &zero) == 0, "nothing left for io_getevents");
	check(io_submit(ctx, 2, list) == 2, "2 more");
	check(io_getevents(ctx, 1, 4, ev, &zero) == 2 && ev[0].data == 500 && ev[1].data == 501,
	      "io_getevents takes the next two");
	check(r->head == 5, "and moves head");
	close(fd);
	io_destroy(ctx);
}

static void t_resfd(void)
{
	aio_context_t ctx = setup(4);
	int fd = scratch_file("resfd"), efd = eventfd(0, 0), p[2];
	struct iocb cb;
	uint64_t count = 0;

	if (!ctx || fd < 0 || efd < 0 || pipe(p) < 0)
		return;
	prep(&cb, IOCB_CMD_PWRITE, fd, "e", 1, 0);
	cb.aio_flags = IOCB_FLAG_RESFD;
	cb.aio_resfd = (uint32_t)efd;
	submit1(ctx, &cb);
	submit1(ctx, &cb);
	check(read(efd, &count, 8) == 8 && count == 2, "the eventfd counts 2 completions");
	cb.aio_resfd = (uint32_t)p[0];
	check_errno(submit1(ctx, &cb), EINVAL, "RESFD not an eventfd");
	cb.aio_resfd = 999;
	check_errno(submit1(ctx, &cb), EBADF, "RESFD not open");
	cb.aio_flags = 0;
	cb.aio_resfd = 999;
	check(submit1(ctx, &cb) == 1, "aio_resfd ignored without the flag");
	close(fd);
	close(efd);
	close(p[0]);
	close(p[1]);
	io_destroy(ctx);
}

static void t_poll(void)
{
	aio_context_t ctx = setup(4);
	int p[2], fd = scratch_file("poll"), efd = eventfd(0, 0);
	struct iocb cb, wcb;
	io_event ev;
	struct timespec zero = { 0, 0 }, ms20 = { 0, 20000000 };

	if (!ctx || fd < 0 || efd < 0 || pipe(p) < 0)
		return;
	prep(&wcb, IOCB_CMD_POLL, p[1], NULL, 0, 0);
	wcb.aio_buf = POLLOUT;
	check(submit1(ctx, &wcb) == 1, "POLL for POLLOUT");
	check(one_event(ctx, &wcb) == POLLOUT, "ready at once: POLLOUT");
	prep(&cb, IOCB_CMD_POLL, p[0], NULL, 0, 0);
	cb.aio_buf = POLLIN;
	cb.aio_flags = IOCB_FLAG_RESFD;
	cb.aio_resfd = (uint32_t)efd;
	check(submit1(ctx, &cb) == 1, "POLL for POLLIN");
	check(io_getevents(ctx, 0, 1, &ev, &zero) == 0, "not ready");
	check(io_getevents(ctx, 1, 1, &ev, &ms20) == 0, "not ready after 20 ms");
	pid_t pid = fork_child();
	if (pid == 0) {
		sleep_ms(50);
		_exit(write(p[1], "x", 1) == 1 ? 0 : 1);
	}
	// Completion with nobody in io_getevents: the eventfd wakes poll().
	struct pollfd pf = { efd, POLLIN, 0 };
	check(poll(&pf, 1, 5000) == 1, "the eventfd became readable");
	// Completed by the pipe's wake-up: its key, POLLIN|POLLRDNORM.
	int64_t res = one_event(ctx, &cb);
	if (res != (POLLIN | POLLRDNORM))
		fail("then the event: %#lx, want POLLIN|POLLRDNORM", (long)res);
	check_child_ok(pid, "writer");
	// A file without a poll method is always readable and writable:
	// done at once, or EINVAL when asked for something else.
	prep(&cb, IOCB_CMD_POLL, fd, NULL, 0, 0);
	cb.aio_buf = POLLIN | POLLPRI;
	check(submit1(ctx, &cb) == 1, "POLL of a regular file");
	check(one_event(ctx, &cb) == POLLIN, "POLLIN at once");
	cb.aio_buf = POLLPRI;
	check_errno(submit1(ctx, &cb), EINVAL, "POLLPRI of a regular file");
	prep(&cb, IOCB_CMD_POLL, p[0], NULL, 0, 0);
	cb.aio_buf = 0x10000;
	check_errno(submit1(ctx, &cb), EINVAL, "events past 16 bits");
	prep(&cb, IOCB_CMD_POLL, p[0], NULL, 1, 0);
	cb.aio_buf = POLLIN;
	check_errno(submit1(ctx, &cb), EINVAL, "POLL with a length");
	// The other end closed: POLLHUP, asked for or not.
	char c;
	read(p[0], &c, 1);
	prep(&cb, IOCB_CMD_POLL, p[0], NULL, 0, 0);
	cb.aio_buf = POLLIN;
	submit1(ctx, &cb);
	close(p[1]);
	int64_t hup = one_event(ctx, &cb);
	check((hup & POLLHUP) != 0, "POLLHUP when the writer goes");
	close(p[0]);
	close(fd);
	close(efd);
	io_destroy(ctx);
}

static void t_cancel(void)
{
	aio_context_t ctx = setup(4);
	int p[2], fd = scratch_file("cancel");
	struct iocb cb, done;
	io_event ev;

	if (!ctx || fd < 0 || pipe(p) < 0)
		return;
	prep(&cb, IOCB_CMD_POLL, p[0], NULL, 0, 0);
	cb.aio_buf = POLLIN;
	submit1(ctx, &cb);
	check_errno(io_cancel(ctx, &cb, &ev), EINPROGRESS, "cancel a waiting poll");
	check(one_event(ctx, &cb) == 0, "its event: res 0");
	check_errno(io_cancel(ctx, &cb, &ev), EINVAL, "cancel it again");
	prep(&done, IOCB_CMD_FSYNC, fd, NULL, 0, 0);
	submit1(ctx, &done);
	check_errno(io_cancel(ctx, &done, &ev), EINVAL, "cancel a completed FSYNC");
	one_event(ctx, &done);
	done.aio_key = 1;
	check_errno(io_cancel(ctx, &done, &ev), EINVAL, "aio_key not 0");
	check_errno(io_cancel(ctx, (struct iocb *)8, &ev), EFAULT, "iocb at 8");
	done.aio_key = 0;
	check_errno(io_cancel(ctx + 4096, &done, &ev), EINVAL, "not a context");
	close(p[0]);
	close(p[1]);
	close(fd);
	io_destroy(ctx);
}

static void t_getevents_rules(void)
{
	aio_context_t ctx = setup(4);
	int fd = scratch_file("getev");
	io_event ev[4];
	struct timespec zero = { 0, 0 }, ms50 = { 0, 50000000 };
	struct iocb cb;

	if (!ctx || fd < 0)
		return;
	check_errno(io_getevents(ctx, 2, 1, ev, &zero), EINVAL, "min_nr > nr");
	check_errno(io_getevents(ctx, -1, 1, ev, &zero), EINVAL, "min_nr < 0");
	check_errno(io_getevents(ctx, 0, -1, ev, &zero), EINVAL, "nr < 0");
	check(io_getevents(ctx, 0, 0, ev, NULL) == 0, "min_nr 0 without a timeout returns at once");
	check_errno(io_getevents(ctx + 4096, 0, 1, ev, &zero), EINVAL, "not a context");
	check_errno(io_getevents(ctx, 0, 1, ev, (struct timespec *)8), EFAULT, "timeout at 8");
	long long t0 = now_ns(CLOCK_MONOTONIC);
	check(io_getevents(ctx, 1, 1, ev, &ms50) == 0, "nothing in 50 ms");
	check(now_ns(CLOCK_MONOTONIC) - t0 >= 45000000, "waited the 50 ms");
	prep(&cb, IOCB_CMD_PWRITE, fd, "g", 1, 0);
	submit1(ctx, &cb);
	check(io_getevents(ctx, 2, 4, ev, &ms50) == 1, "min_nr 2, one event: 1 at the timeout");
	submit1(ctx, &cb);
	check_errno(io_getevents(ctx, 1, 4, (io_event *)8, &zero), EFAULT, "events at 8");
	check(io_getevents(ctx, 1, 4, ev, &zero) == 1, "the event stayed");
	close(fd);
	io_destroy(ctx);
}

static void on_usr1(int sig)
{
	(void)sig;
}

static volatile sig_atomic_t usr2_seen;

static void on_usr2(int sig)
{
	(void)sig;
	usr2_seen = 1;
}

static void t_eintr_and_sigmask(void)
{
	aio_context_t ctx = setup(4);
	struct sigaction sa = { .sa_handler = on_usr1 }, sb = { .sa_handler = on_usr2 };
	struct poke pk;
	io_event ev;
	struct timespec ms300 = { 0, 300000000 };

	if (!ctx)
		return;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sb, NULL);
	if (poke_later(&pk, SIGUSR1) == 0) {
		check_errno(io_getevents(ctx, 1, 1, &ev, NULL), EINTR, "io_getevents interrupted");
		poke_join(&pk);
	}
	// A negative timeout never expires (now plus it looks like an
	// overflow to Linux's ktime_add_safe).
	struct timespec neg = { -1, 0 };
	if (poke_later(&pk, SIGUSR1) == 0) {
		check_errno(io_getevents(ctx, 1, 1, &ev, &neg), EINTR, "a negative timeout waits");
		poke_join(&pk);
	}
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR2);
	struct aio_sigset as = { &block, 8 };
	usr2_seen = 0;
	if (poke_later(&pk, SIGUSR2) == 0) {
		check(io_pgetevents(ctx, 1, 1, &ev, &ms300, &as) == 0, "SIGUSR2 blocked by the mask");
		check(usr2_seen == 1, "and handled once the mask is gone");
		poke_join(&pk);
	}
	sigset_t none;
	sigemptyset(&none);
	as.sigmask = &none;
	if (poke_later(&pk, SIGUSR1) == 0) {
		check_errno(io_pgetevents(ctx, 1, 1, &ev, NULL, &as), EINTR, "io_pgetevents interrupted");
		poke_join(&pk);
	}
	as.sigsetsize = 4;
	check_errno(io_pgetevents(ctx, 0, 1, &ev, NULL, &as), EINVAL, "sigsetsize 4");
	check_errno(io_pgetevents(ctx, 0, 1, &ev, NULL, (struct aio_sigset *)8), EFAULT, "usig at 8");
	as.sigmask = (sigset_t *)8;
	as.sigsetsize = 8;
	check_errno(io_pgetevents(ctx, 0, 1, &ev, NULL, &as), EFAULT, "sigmask at 8");
	struct aio_sigset nomask = { NULL, 4 };
	check(io_pgetevents(ctx, 0, 1, &ev, NULL, &nomask) == 0, "no mask: sigsetsize unread");
	check(io_pgetevents(ctx, 0, 1, &ev, NULL, NULL) == 0, "no usig");
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	io_destroy(ctx);
}

static aio_context_t waiter_ctx;
static long waiter_rc, waiter_errno;

static void *waiter(void *arg)
{
	io_event ev;

	(void)arg;
	waiter_rc = io_getevents(waiter_ctx, 1, 1, &ev, NULL);
	waiter_errno = errno;
	return NULL;
}

static void t_destroy(void)
{
	aio_context_t ctx = setup(4);
	int p[2];
	struct iocb cb;
	pthread_t th;
	unsigned char vec;

	if (!ctx || pipe(p) < 0)
		return;
	prep(&cb, IOCB_CMD_POLL, p[0], NULL, 0, 0);
	cb.aio_buf = POLLIN;
	submit1(ctx, &cb);
	waiter_ctx = ctx;
	if (!check(pthread_create(&th, NULL, waiter, NULL) == 0, "pthread_create"))
		return;
	sleep_ms(50);
	check_ok(io_destroy(ctx), "io_destroy with a waiting poll and a waiter");
	pthread_join(th, NULL);
	check(waiter_rc == -1 && waiter_errno == EINVAL, "the waiter got EINVAL");
	check(mincore((void *)ctx, 4096, &vec) == -1 && errno == ENOMEM, "the ring is unmapped");
	check_errno(io_destroy(ctx), EINVAL, "io_destroy again");
	check_errno(io_destroy(0), EINVAL, "io_destroy(0)");
	close(p[0]);
	close(p[1]);
}

// A full ring: requests are refused with EAGAIN until events are taken.
static void t_ring_full(void)
{
	aio_context_t ctx = setup(1);
	int fd = scratch_file("full");
	struct iocb cb;
	unsigned n = 0;

	if (!ctx || fd < 0)
		return;
	unsigned nr = ((struct aio_ring *)ctx)->nr;
	prep(&cb, IOCB_CMD_PWRITE, fd, "f", 1, 0);
	while (n <= nr && submit1(ctx, &cb) == 1)
		n++;
	check(n >= 1 && n < nr, "some fit, fewer than the ring's size");
	check(errno == EAGAIN, "then EAGAIN");
	io_event *ev = calloc(nr, sizeof(*ev));
	struct timespec zero = { 0, 0 };
	check(ev && io_getevents(ctx, 1, nr, ev, &zero) == (long)n, "every event there");
	check(submit1(ctx, &cb) == 1, "room again");
	free(ev);
	close(fd);
	io_destroy(ctx);
}

// A ring the user unmapped is no context any more (lookup reads its id).
static void t_munmap_ring(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		aio_context_t ctx = 0;
		struct iocb cb;
		if (io_setup(4, &ctx) < 0)
			_exit(2);
		unsigned nr = ((struct aio_ring *)ctx)->nr;
		size_t len = ((32 + 32UL * nr) + 4095) & ~4095UL;
		if (munmap((void *)ctx, len) < 0)
			_exit(3);
		prep(&cb, IOCB_CMD_FSYNC, 0, NULL, 0, 0);
		if (submit1(ctx, &cb) != -1 || errno != EINVAL)
			_exit(4);
		if (io_destroy(ctx) != -1 || errno != EINVAL)
			_exit(5);
		_exit(0);
	}
	check_child_ok(pid, "munmapped ring");
}

// mremap moves a ring with its context (aio_ring_mremap); a ring never
// grows (VM_DONTEXPAND); a fork child's copy has no context to follow.
static void t_mremap_ring(void)
{
	aio_context_t ctx = setup(4);
	int fd = scratch_file("mremap");
	struct iocb cb;

	if (!ctx || fd < 0)
		return;
	size_t len = ((32 + 32UL * ((struct aio_ring *)ctx)->nr) + 4095) & ~4095UL;
	char *to = mmap(NULL, len + 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	check_errno((long)mremap((void *)ctx, len, len + 4096, MREMAP_MAYMOVE), EFAULT,
		    "a ring does not grow");
	pid_t pid = fork_child();
	if (pid == 0) {
		void *r = mremap((void *)ctx, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
		_exit(r == MAP_FAILED && errno == EINVAL ? 0 : 2);
	}
	check_child_ok(pid, "a fork child's copy does not move: EINVAL");
	void *moved = mremap((void *)ctx, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (!check(moved == to, "mremap of the ring"))
		return;
	prep(&cb, IOCB_CMD_FSYNC, fd, NULL, 0, 0);
	check(submit1((aio_context_t)to, &cb) == 1, "the context is at its new address");
	check(one_event((aio_context_t)to, &cb) == 0, "its event");
	check_errno(io_destroy(ctx), EINVAL, "not at the old one");
	check_ok(io_destroy((aio_context_t)to), "io_destroy at the new address");
	unsigned char vec;
	check(mincore(to, 4096, &vec) == -1 && errno == ENOMEM, "which unmaps it there");
	munmap(to + len, 4096);
	close(fd);
}

static void t_fork_and_exit(void)
{
	long nr0 = sysctl_value("aio-nr");
	aio_context_t ctx = setup(4);
	int fd = scratch_file("fork");
	struct iocb cb;

	if (!ctx || fd < 0)
		return;
	prep(&cb, IOCB_CMD_FSYNC, fd, NULL, 0, 0);
	pid_t pid = fork_child();
	if (pid == 0) {
		// The ring's pages are shared (no VM_DONTCOPY), the context
		// is not.
		if (((struct aio_ring *)ctx)->magic != 0xa10a10a1)
			_exit(2);
		if (submit1(ctx, &cb) != -1 || errno != EINVAL)
			_exit(3);
		aio_context_t own = 0;
		if (io_setup(4, &own) < 0)
			_exit(4);
		int p[2];
		struct iocb pc;
		if (pipe(p) < 0)
			_exit(5);
		prep(&pc, IOCB_CMD_POLL, p[0], NULL, 0, 0);
		pc.aio_buf = POLLIN;
		if (submit1(own, &pc) != 1)
			_exit(6);
		_exit(0);	// a context and a waiting poll left to exit
	}
	check_child_ok(pid, "child");
	check(submit1(ctx, &cb) == 1, "the parent's context still works");
	check(one_event(ctx, &cb) == 0, "its event");
	// The child sees the parent's ring: it is shared memory.
	pid = fork_child();
	if (pid == 0) {
		struct aio_ring *r = (struct aio_ring *)ctx;
		unsigned tail = r->tail;
		sleep_ms(200);
		_exit(r->tail != tail ? 0 : 7);
	}
	sleep_ms(50);
	submit1(ctx, &cb);
	check_child_ok(pid, "the child sees the parent's new event");
	one_event(ctx, &cb);
	io_destroy(ctx);
	check(nr0 < 0 || sysctl_value("aio-nr") == nr0, "aio-nr back after the child's exit");
	close(fd);
}

// Polls completing, cancelled and reaped from three threads at once:
// every request gives exactly one event; then the process exits with
// polls still waiting (exit cancels them; init's leak check sees the rest).
#define RACE_PIPES	8
#define RACE_POLLS	300

static aio_context_t race_ctx;
static int race_pipes[RACE_PIPES][2];
static struct iocb race_cb[RACE_POLLS];
static volatile int race_submitted, race_done;

static void *race_submitter(void *arg)
{
	(void)arg;
	for (int i = 0; i < RACE_POLLS; i++) {
		prep(&race_cb[i], IOCB_CMD_POLL, race_pipes[i % RACE_PIPES][0], NULL, 0, 0);
		race_cb[i].aio_buf = POLLIN;
		race_cb[i].aio_data = (uint64_t)i;
		while (submit1(race_ctx, &race_cb[i]) != 1) {
			if (errno != EAGAIN)
				return (void *)1L;
			sleep_ms(1);
		}
		race_submitted = i + 1;
		if (i % 3 == 0) {
			io_event ev;
			long rc = io_cancel(race_ctx, &race_cb[i], &ev);
			if (rc != -1 || (errno != EINPROGRESS && errno != EINVAL))
				return (void *)2L;
		}
	}
	race_done = 1;
	return NULL;
}

static void *race_writer(void *arg)
{
	char c[64];

	(void)arg;
	for (int i = 0; !race_done; i++) {
		int *p = race_pipes[i % RACE_PIPES];
		if (write(p[1], "x", 1) != 1)
			return (void *)1L;
		while (read(p[0], c, sizeof(c)) > 0)
			;
		if (i % 16 == 0)
			sleep_ms(1);
	}
	return NULL;
}

static int race_child(void)
{
	static unsigned char seen[RACE_POLLS];
	io_event ev[64];
	struct timespec ms10 = { 0, 10000000 };
	pthread_t a, b;
	int got = 0;
	void *ra, *rb;

	if (io_setup(64, &race_ctx) < 0)
		return 2;
	for (int i = 0; i < RACE_PIPES; i++)
		if (pipe2(race_pipes[i], O_NONBLOCK) < 0)
			return 3;
	if (pthread_create(&a, NULL, race_submitter, NULL) || pthread_create(&b, NULL, race_writer, NULL))
		return 4;
	long long until = now_ns(CLOCK_MONOTONIC) + 20000000000LL;
	while ((!race_done || got < race_submitted) && now_ns(CLOCK_MONOTONIC) < until) {
		long n = io_getevents(race_ctx, 1, 64, ev, &ms10);
		if (n < 0)
			return 5;
		for (long i = 0; i < n; i++) {
			if (ev[i].data >= RACE_POLLS || seen[ev[i].data]++)
				return 6;	// unknown or twice
			got++;
		}
		if (race_done) {
			// What still waits: wake every pipe.
			for (int i = 0; i < RACE_PIPES; i++)
				write(race_pipes[i][1], "y", 1);
		}
	}
	pthread_join(a, &ra);
	race_done = 1;
	pthread_join(b, &rb);
	if (ra || rb)
		return 7;
	if (got != RACE_POLLS)
		return 8;
	// Leave some waiting for the exit to cancel.
	for (int i = 0; i < RACE_PIPES; i++) {
		char c[64];
		while (read(race_pipes[i][0], c, sizeof(c)) > 0)
			;
		prep(&race_cb[i], IOCB_CMD_POLL, race_pipes[i][0], NULL, 0, 0);
		race_cb[i].aio_buf = POLLIN;
		if (submit1(race_ctx, &race_cb[i]) != 1)
			return 9;
	}
	return 0;
}

static void t_poll_races(void)
{
	pid_t pid = fork_child();

	if (pid == 0)
		_exit(race_child());
	check_child_ok(pid, "racing polls");
}

static aio_context_t shared_ctx;

static void *thread_submit(void *arg)
{
	struct iocb *cb = arg;

	return (void *)(long)submit1(shared_ctx, cb);
}

static void t_threads_share(void)
{
	aio_context_t ctx = setup(4);
	int fd = scratch_file("thr");
	struct iocb cb;
	pthread_t th;
	void *rc;

	if (!ctx || fd < 0)
		return;
	shared_ctx = ctx;
	prep(&cb, IOCB_CMD_FSYNC, fd, NULL, 0, 0);
	if (check(pthread_create(&th, NULL, thread_submit, &cb) == 0, "pthread_create")) {
		pthread_join(th, &rc);
		check(rc == (void *)1, "another thread submits on the context");
		check(one_event(ctx, &cb) == 0, "the event");
	}
	close(fd);
	io_destroy(ctx);
}

static const struct test_case cases[] = {
	{ "ring_layout", t_ring_layout },
	{ "setup_errors", t_setup_errors },
	{ "read_write", t_read_write },
	{ "vectored", t_vectored },
	{ "pipes", t_pipes },
	{ "fsync_noop", t_fsync_noop },
	{ "submit_errors", t_submit_errors },
	{ "ring_read_directly", t_ring_read_directly },
	{ "resfd", t_resfd },
	{ "poll", t_poll },
	{ "cancel", t_cancel },
	{ "getevents_rules", t_getevents_rules },
	{ "eintr_and_sigmask", t_eintr_and_sigmask },
	{ "destroy", t_destroy },
	{ "ring_full", t_ring_full },
	{ "munmap_ring", t_munmap_ring },
	{ "mremap_ring", t_mremap_ring },
	{ "fork_and_exit", t_fork_and_exit },
	{ "threads_share", t_threads_share },
	{ "poll_races", t_poll_races },
};

int main(void)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/aio-%d", (int)getpid());
	mkdir(scratch_dir, 0700);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
