// poll, ppoll, select, pselect6.  All four check their descriptors, then
// sleep on the global poll sequence (fs/poll.h) until something changes,
// the timeout passes or a signal arrives.
//
// The signal masks of ppoll and pselect6 are checked for size but not
// applied: the process layer offers no way to swap a thread's mask here.

#include <fs/fs_syscall.h>
#include <fs/fcntl.h>
#include <fs/poll.h>
#include <kernel/syscall.h>
#include <kernel/time.h>
#include <kernel/uaccess.h>
#include <kernel/wait.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>
#include <uapi/time.h>
#include <kernel/signal.h>
#include <kernel/thread.h>
#include <uapi/personality.h>

struct user_pollfd {
	int32_t fd;
	int16_t events;
	int16_t revents;
};

#define NS_PER_SEC 1000000000ULL

// An absolute deadline 'ns' from now; WAIT_FOREVER never comes, so a
// zero timeout is kept apart by the callers.
static uint64_t deadline_after(uint64_t ns)
{
	uint64_t now = clock_monotonic_ns();

	if (ns > UINT64_MAX - now - 1)
		return WAIT_FOREVER;
	return now + ns;
}

// The readiness of one descriptor, POLLNVAL if it is not open.
static int poll_one(int fd)
{
	struct file *f = fget(fd);
	int mask;

	if (!f)
		return POLLNVAL;
	mask = file_poll(f);
	file_put(f);
	return mask;
}

// 'deadline': WAIT_FOREVER, or absolute ns; 'nowait' for a zero timeout.
static long do_poll(uint64_t ufds, uint64_t nfds, bool nowait, uint64_t deadline)
{
	struct user_pollfd *fds;
	size_t bytes;
	long ready;

	if (nfds > (uint64_t)fd_limit())
		return -EINVAL;
	bytes = nfds * sizeof(*fds);
	fds = kmalloc(bytes ? bytes : 1);
	if (!fds)
		return -ENOMEM;
	if (copy_from_user(fds, ufds, bytes) < 0) {
		kfree(fds);
		return -EFAULT;
	}
	for (;;) {
		uint64_t seq = poll_seq();
		int rc;

		ready = 0;
		for (uint64_t i = 0; i < nfds; i++) {
			int mask = 0;

			if (fds[i].fd >= 0) {
				mask = poll_one(fds[i].fd);
				mask &= (uint16_t)fds[i].events | POLLERR | POLLHUP | POLLNVAL;
			}
			fds[i].revents = (int16_t)mask;
			if (mask)
				ready++;
		}
		if (ready || nowait)
			break;
		rc = poll_wait_change(seq, deadline);
		if (rc == -ETIMEDOUT)
			break;
		if (rc == -EINTR) {
			ready = -EINTR;
			break;
		}
	}
	// Only revents changes, but the whole array goes back: a
	// read-only array must fail as it does on Linux.
	if (ready >= 0 && copy_to_user(ufds, fds, bytes) < 0)
		ready = -EFAULT;
	kfree(fds);
	return ready;
}

SYSCALL_DEFINE(SYS_poll, poll)
{
	int timeout = (int)args->a[2];

	if (timeout < 0)
		return do_poll(args->a[0], args->a[1], false, WAIT_FOREVER);
	return do_poll(args->a[0], args->a[1], timeout == 0,
		       deadline_after((uint64_t)timeout * 1000000ULL));
}

// A user timespec as a timeout: *nowait for zero; -EINVAL if malformed.
static int timespec_timeout(uint64_t uts, bool *nowait, uint64_t *deadline)
{
	struct user_timespec ts;

	*nowait = false;
	*deadline = WAIT_FOREVER;
	if (!uts)
		return 0;
	if (copy_from_user(&ts, uts, sizeof(ts)) < 0)
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= (int64_t)NS_PER_SEC)
		return -EINVAL;
	if (ts.tv_sec == 0 && ts.tv_nsec == 0) {
		*nowait = true;
		return 0;
	}
	if ((uint64_t)ts.tv_sec >= UINT64_MAX / NS_PER_SEC)
		return 0;	// practically forever
	*deadline = deadline_after((uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec);
	return 0;
}

// ppoll and pselect6 wait with a temporary signal mask (a user pointer).
// Interrupted by a signal, the call leaves the temporary mask in place
// until the handler has run (signal delivery puts the old one back);
// otherwise the old mask returns at once.
static int mask_begin(uint64_t umask)
{
	uint64_t mask;

	if (copy_from_user(&mask, umask, 8) < 0)
		return -EFAULT;
	signal_set_temporary_mask(mask);
	return 0;
}

static long mask_end(long rc)
{
	if (rc != -EINTR)
		signal_restore_temporary_mask();
	return rc;
}

// The time left until 'deadline', for select's write-back.
static uint64_t time_left(uint64_t deadline)
{
	uint64_t now = clock_monotonic_ns();

	return deadline > now ? deadline - now : 0;
}

// select, pselect6 and ppoll write the time left back to the caller's
// timeout, as Linux does, whatever the result, unless the timeout was
// zero or none, or the personality has STICKY_TIMEOUTS.  Best effort: a
// timeout that cannot be written is left, as on Linux.
static void write_back_time_left(uint64_t utimeout, uint64_t deadline, bool timeval)
{
	uint64_t left;

	if (!utimeout || deadline == WAIT_FOREVER || personality_has(STICKY_TIMEOUTS))
		return;
	left = time_left(deadline);
	if (timeval) {
		struct user_timeval tv = { (int64_t)(left / NS_PER_SEC),
					   (int64_t)(left % NS_PER_SEC / 1000) };
		copy_to_user(utimeout, &tv, sizeof(tv));
	} else {
		struct user_timespec ts = { (int64_t)(left / NS_PER_SEC),
					    (int64_t)(left % NS_PER_SEC) };
		copy_to_user(utimeout, &ts, sizeof(ts));
	}
}

SYSCALL_DEFINE(SYS_ppoll, ppoll)
{
	uint64_t umask = args->a[3], sigsetsize = args->a[4];
	uint64_t deadline;
	bool nowait;
	int rc;

	rc = timespec_timeout(args->a[2], &nowait, &deadline);
	if (rc < 0)
		return rc;
	if (umask && sigsetsize != 8)
		return -EINVAL;
	if (umask) {
		if (mask_begin(umask) < 0)
			return -EFAULT;
		rc = mask_end(do_poll(args->a[0], args->a[1], nowait, deadline));
	} else {
		rc = do_poll(args->a[0], args->a[1], nowait, deadline);
	}
	write_back_time_left(args->a[2], deadline, false);
	return rc;
}

// ---- select ----

#define FDSET_WORDS(n) (((n) + 63) / 64)

struct fdsets {
	uint64_t *in, *out, *ex;	// NULL when not given
	uint64_t *rin, *rout, *rex;	// results
};

static int get_fdset(uint64_t uset, uint64_t **set, size_t words)
{
	*set = NULL;
	if (!uset)
		return 0;
	*set = kzalloc(words * 8 + 8);
	if (!*set)
		return -ENOMEM;
	if (copy_from_user(*set, uset, words * 8) < 0)
		return -EFAULT;
	return 0;
}

static bool bit(const uint64_t *set, int fd)
{
	return set && (set[fd / 64] >> (fd % 64)) & 1;
}

static long select_scan(int nfds, struct fdsets *s, size_t words)
{
	long ready = 0;

	memset(s->rin, 0, words * 8);
	memset(s->rout, 0, words * 8);
	memset(s->rex, 0, words * 8);
	for (int fd = 0; fd < nfds; fd++) {
		bool want_in = bit(s->in, fd), want_out = bit(s->out, fd), want_ex = bit(s->ex, fd);
		int mask;

		if (!want_in && !want_out && !want_ex)
			continue;
		mask = poll_one(fd);
		if (mask & POLLNVAL)
			return -EBADF;
		if (want_in && (mask & (POLLIN | POLLHUP | POLLERR))) {
			s->rin[fd / 64] |= 1ULL << (fd % 64);
			ready++;
		}
		if (want_out && (mask & (POLLOUT | POLLERR))) {
			s->rout[fd / 64] |= 1ULL << (fd % 64);
			ready++;
		}
		if (want_ex && (mask & POLLPRI)) {
			s->rex[fd / 64] |= 1ULL << (fd % 64);
			ready++;
		}
	}
	return ready;
}

static long put_fdset(uint64_t uset, const uint64_t *result, size_t words)
{
	if (uset && copy_to_user(uset, result, words * 8) < 0)
		return -EFAULT;
	return 0;
}

static long do_select(int nfds, uint64_t uin, uint64_t uout, uint64_t uex, bool nowait,
		      uint64_t deadline)
{
	struct fdsets s = { 0 };
	size_t words;
	long ready;
	int rc;

	if (nfds < 0)
		return -EINVAL;
	if (nfds > NR_OPEN)
		nfds = NR_OPEN;
	words = FDSET_WORDS((size_t)nfds);
	rc = get_fdset(uin, &s.in, words);
	if (!rc)
		rc = get_fdset(uout, &s.out, words);
	if (!rc)
		rc = get_fdset(uex, &s.ex, words);
	s.rin = kzalloc(words * 8 + 8);
	s.rout = kzalloc(words * 8 + 8);
	s.rex = kzalloc(words * 8 + 8);
	if (!rc && (!s.rin || !s.rout || !s.rex))
		rc = -ENOMEM;
	if (rc) {
		ready = rc;
		goto out;
	}
	for (;;) {
		uint64_t seq = poll_seq();

		ready = select_scan(nfds, &s, words);
		if (ready != 0 || nowait)
			break;
		rc = poll_wait_change(seq, deadline);
		if (rc == -ETIMEDOUT)
			break;
		if (rc == -EINTR) {
			ready = -EINTR;
			break;
		}
	}
	if (ready >= 0) {
		if (put_fdset(uin, s.rin, words) || put_fdset(uout, s.rout, words) ||
		    put_fdset(uex, s.rex, words))
			ready = -EFAULT;
	}
out:
	kfree(s.in);
	kfree(s.out);
	kfree(s.ex);
	kfree(s.rin);
	kfree(s.rout);
	kfree(s.rex);
	return ready;
}

SYSCALL_DEFINE(SYS_select, select)
{
	uint64_t utv = args->a[4], deadline = WAIT_FOREVER;
	struct user_timeval tv;
	bool nowait = false;
	long rc;

	if (utv) {
		if (copy_from_user(&tv, utv, sizeof(tv)) < 0)
			return -EFAULT;
		if (tv.tv_sec < 0 || tv.tv_usec < 0)
			return -EINVAL;
		// Linux folds excess microseconds into seconds.
		uint64_t ns = (uint64_t)tv.tv_sec * NS_PER_SEC + (uint64_t)tv.tv_usec * 1000;
		if ((uint64_t)tv.tv_sec >= UINT64_MAX / NS_PER_SEC / 2)
			ns = UINT64_MAX / 2;
		if (ns == 0)
			nowait = true;
		else
			deadline = deadline_after(ns);
	}
	rc = do_select((int)args->a[0], args->a[1], args->a[2], args->a[3], nowait, deadline);
	write_back_time_left(utv, deadline, true);
	return rc;
}

SYSCALL_DEFINE(SYS_pselect6, pselect6)
{
	uint64_t usig = args->a[5];
	uint64_t deadline;
	bool nowait;
	int rc;

	rc = timespec_timeout(args->a[4], &nowait, &deadline);
	if (rc < 0)
		return rc;
	if (usig) {
		// { const sigset_t *ss; size_t ss_len; }
		uint64_t pair[2];

		if (copy_from_user(pair, usig, sizeof(pair)) < 0)
			return -EFAULT;
		if (pair[0] && pair[1] != 8)
			return -EINVAL;
		if (pair[0]) {
			if (mask_begin(pair[0]) < 0)
				return -EFAULT;
			rc = (int)mask_end(do_select((int)args->a[0], args->a[1], args->a[2],
						     args->a[3], nowait, deadline));
			write_back_time_left(args->a[4], deadline, false);
			return rc;
		}
	}
	rc = (int)do_select((int)args->a[0], args->a[1], args->a[2], args->a[3], nowait, deadline);
	write_back_time_left(args->a[4], deadline, false);
	return rc;
}
