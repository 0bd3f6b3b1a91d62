// Signal-driven I/O: fcntl's F_SETOWN, F_GETOWN, F_SETOWN_EX,
// F_GETOWN_EX, F_SETSIG, F_GETSIG, and O_ASYNC (F_SETFL, FIOASYNC), as
// Linux 6.1's fs/fcntl.c.  A file with O_ASYNC is on the list of the
// object it reads or writes (a pipe, a terminal, an inotify group); when
// that object becomes readable or writable its driver calls sigio_notify,
// which sends each such file's owner SIGIO, or the F_SETSIG signal with
// si_code POLL_IN/POLL_OUT/POLL_HUP, si_band and si_fd, where Linux's
// sigio_perm allows it.
#ifndef FS_SIGIO_H
#define FS_SIGIO_H

#include <stdbool.h>
#include <stdint.h>

struct file;

#define F_SETSIG	10
#define F_GETSIG	11
#define F_SETOWN_EX	15
#define F_GETOWN_EX	16

// Linux's si_codes of SIGPOLL.
#define POLL_IN		1
#define POLL_OUT	2
#define POLL_HUP	6

// Which of an object's async files a notification is for.
#define FASYNC_READERS	1
#define FASYNC_WRITERS	2

// F_SETOWN ... F_GETSIG on f: the result or a negative errno.
long sigio_fcntl(struct file *f, int cmd, uint64_t arg);
// O_ASYNC turned on or off for f (a file with a fasync method) through
// descriptor fd, the flag with it (Linux's fasync_helper: the descriptor
// is what si_fd reports).  0 or -ENOMEM.
int fasync_set(struct file *f, int fd, bool on);
// The file's last reference went: off its object's list.
void fasync_file_gone(struct file *f);
// 'key' (a pipe, a struct tty, a vnode) became readable or writable:
// its async files of 'which' get the signal for 'reason' (POLL_*).  No
// lock of the caller may be held but a vfs_tree_lock or inotify's
// (it takes proc_tree_lock and the sighand locks); callable from
// interrupt context.
// Is any file set up for SIGIO at all?  (Then sigio_notify may send one;
// otherwise it does nothing, and its callers may skip their preparations.)
extern int sigio_entries;
static inline bool sigio_any(void)
{
	return __atomic_load_n(&sigio_entries, __ATOMIC_RELAXED) != 0;
}

void sigio_notify_entries(const void *key, unsigned which, int reason);
static inline void sigio_notify(const void *key, unsigned which, int reason)
{
	if (sigio_any())
		sigio_notify_entries(key, which, reason);
}

#endif
