// The system-wide files of /proc and /sys: /proc/{cpuinfo,loadavg,
// version,filesystems,mounts}, the /proc/sys settings, and
// /sys/devices/system/cpu.  (Per-process files are elsewhere; meminfo and
// /proc/switchyard are in procfs.c.)  docs/proc.md lists them all.
//
// Every value is read from where the kernel keeps it, at each read: the
// pipe size limit from the pipe code, the host name from kernel/uts.c,
// the load average from the scheduler.  A /proc/sys file is writable
// where Linux's is and the value changes what the kernel does here;
// the others are read-only (mode 0444) and opening them for writing
// fails with EACCES, as Linux's read-only sysctls do even for root.

#include <fs/fsnotify.h>
#include <fs/aio.h>
#include <fs/dev.h>
#include <fs/fcntl.h>
#include <fs/pipe.h>
#include <fs/poll.h>
#include <fs/procfs.h>
#include <fs/vfs.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/cred.h>
#include <kernel/klog.h>
#include <kernel/ipc.h>
#include <kernel/mqueue.h>
#include <kernel/proc_internal.h>
#include <kernel/process.h>
#include <kernel/sched.h>
#include <kernel/uts.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/phys.h>
#include <uapi/errno.h>

// The slice at 'off' of a text rendered on the stack.
static long text_slice(const char *text, size_t len, uint64_t off, struct iobuf *b, size_t n)
{
	if (off >= len)
		return 0;
	if (n > len - off)
		n = len - off;
	return iobuf_put(b, 0, text + off, n) < 0 ? -EFAULT : (long)n;
}

// Linux's /proc files without a write method fail writes with EIO.
static long no_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f; (void)off; (void)b; (void)n;
	return -EIO;
}

static bool opens_for_write(uint32_t flags)
{
	uint32_t acc = flags & O_ACCMODE;

	return acc == O_WRONLY || acc == O_RDWR;
}

// ---- /proc/cpuinfo ----

#define CPUINFO_BLOCK 4096	// one CPU's block, flags included

static size_t cpuinfo_render(char *buf, size_t size)
{
	size_t len = 0;

	for (int i = 0; i < ncpus && i < MAX_CPUS && len + 1 < size; i++)
		if (cpus[i].online)
			len += arch_cpuinfo(&cpus[i], buf + len, size - len);
	return len;
}

static long cpuinfo_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f;
	return procfs_text_read(cpuinfo_render, (size_t)(ncpus > 0 ? ncpus : 1) * CPUINFO_BLOCK,
				off, b, n);
}

static const struct vnode_ops cpuinfo_ops = { .read = cpuinfo_read, .write = no_write };

// ---- /proc/loadavg ----

// "0.52 0.58 0.59 2/191 4217": the averages with two decimals as Linux
// rounds them, running threads / all threads, the last ID handed out.
static void count_threads(struct process *p, void *arg)
{
	if (!p->zombie)
		*(int *)arg += p->nthreads;
}

static size_t loadavg_text(char *buf, size_t size)
{
	unsigned long avg[3], frac[3];
	const unsigned long one = 1UL << LOAD_FSHIFT;
	int threads = 0;
	uint64_t flags;

	loadavg_get(avg);
	for (int i = 0; i < 3; i++) {
		avg[i] += one / 200;		// Linux adds 1/200 to round to .01
		frac[i] = (avg[i] & (one - 1)) * 100 / one;
		avg[i] >>= LOAD_FSHIFT;
	}
	flags = spin_lock_irqsave(&proc_tree_lock);
	process_for_each_locked(count_threads, &threads);
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	return kappendf(buf, size, 0, "%lu.%02lu %lu.%02lu %lu.%02lu %d/%d %d\n",
			avg[0], frac[0], avg[1], frac[1], avg[2], frac[2], sched_nr_running(),
			threads, pid_last());
}

static long loadavg_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	char text[96];

	(void)vn; (void)f;
	return text_slice(text, loadavg_text(text, sizeof(text)), off, b, n);
}

static const struct vnode_ops loadavg_ops = { .read = loadavg_read, .write = no_write };

// ---- /proc/version, /proc/filesystems, /proc/mounts ----

static long version_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	static const char text[] = "Linux version " UTS_RELEASE " (switchyard@switchyard) (gcc "
				    __VERSION__ ") " UTS_VERSION "\n";

	(void)vn; (void)f;
	return text_slice(text, sizeof(text) - 1, off, b, n);
}

static const struct vnode_ops version_ops = { .read = version_read, .write = no_write };

// The one file system there is: the in-memory tree that holds
// everything, /proc, /sys and /dev included, a tmpfs in all but name
// (statfs says TMPFS_MAGIC).  mount(2) is not implemented, so no other
// type can be mounted.
static long filesystems_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			     size_t n)
{
	static const char text[] = "nodev\ttmpfs\n";

	(void)vn; (void)f;
	return text_slice(text, sizeof(text) - 1, off, b, n);
}

static const struct vnode_ops filesystems_ops = { .read = filesystems_read, .write = no_write };

// One line in fstab's layout, with the size limit (fs_size=) as tmpfs
// shows its size= option.
static long mounts_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	char text[96];
	uint64_t total, free;
	size_t len;

	(void)vn; (void)f;
	vfs_space(&total, &free);
	if (total == UINT64_MAX)
		len = kappendf(text, sizeof(text), 0, "tmpfs / tmpfs rw 0 0\n");
	else
		len = kappendf(text, sizeof(text), 0, "tmpfs / tmpfs rw,size=%luk 0 0\n",
			       (unsigned long)(total * (PAGE_SIZE / 1024)));
	return text_slice(text, len, off, b, n);
}

// As Linux's mounts_poll: readable, never writable (the table never
// changes, so no POLLERR|POLLPRI either).
static int mounts_poll(struct vnode *vn)
{
	(void)vn;
	return POLLIN | POLLRDNORM;
}

static const struct vnode_ops mounts_ops = { .read = mounts_read, .write = no_write,
					     .poll = mounts_poll };

// ---- /proc/sys ----

// One setting.  'show' writes its value (without the newline); 'store',
// if the file is writable, takes what was written at offset 0.
struct sysctl {
	const char *dir, *name;
	size_t (*show)(char *buf, size_t size);
	int (*store)(const char *text, size_t len);
	bool string;		// a name (stored as written), else one integer
};

static size_t show_pid_max(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "%d", pid_max_get());
}

// Threads take their IDs from the same table as processes: at most
// PID_LIMIT - 1 of them can exist (ID 0 is never handed out).
static size_t show_threads_max(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "%d", PID_LIMIT - 1);
}

static size_t show_ostype(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "%s", UTS_SYSNAME);
}

static size_t show_osrelease(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "%s", UTS_RELEASE);
}

static size_t show_uts(enum uts_name which, char *buf, size_t size)
{
	char name[UTS_LEN + 1];

	uts_get(which, name);
	return kappendf(buf, size, 0, "%s", name);
}

static size_t show_hostname(char *buf, size_t size)
{
	return show_uts(UTS_HOSTNAME, buf, size);
}

static size_t show_domainname(char *buf, size_t size)
{
	return show_uts(UTS_DOMAINNAME, buf, size);
}

// Linux's proc_dostring: the text up to the first newline, cut to the
// longest name.
static int store_uts(enum uts_name which, const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n' || text[i] == 0) {
			len = i;
			break;
		}
	}
	if (len > UTS_LEN)
		len = UTS_LEN;
	return uts_set(which, text, len);
}

static int store_hostname(const char *text, size_t len)
{
	return store_uts(UTS_HOSTNAME, text, len);
}

static int store_domainname(const char *text, size_t len)
{
	return store_uts(UTS_DOMAINNAME, text, len);
}

// No taint: no module or forced action has made the kernel suspect.
static size_t show_tainted(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "0");
}

// No core files are written: the pattern names a program that takes a
// dump and drops it, the usual way of saying so on Linux.
static size_t show_core_pattern(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "|/bin/false");
}

static size_t show_pipe_max_size(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "%u", pipe_get_max_size());
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

// Linux's proc_douintvec input: blanks, one number in C's notation
// (0x hexadecimal, 0 octal, else decimal; no sign), then the end or a
// blank, after which the rest is ignored.
static int parse_uint(const char *text, size_t len, uint64_t *out)
{
	size_t i = 0, start;
	unsigned base = 10;
	uint64_t v = 0;

	while (i < len && blank(text[i]))
		i++;
	if (i + 1 < len && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
		base = 16;
		i += 2;
	} else if (i < len && text[i] == '0') {
		base = 8;
	}
	for (start = i; i < len && digit_value(text[i]) < (int)base; i++) {
		unsigned d = (unsigned)digit_value(text[i]);

		if (v > (UINT64_MAX - d) / base)
			return -EINVAL;
		v = v * base + d;
	}
	if (i == start || (i < len && !blank(text[i])))
		return -EINVAL;
	*out = v;
	return 0;
}

static size_t show_dmesg_restrict(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "%d", dmesg_restrict);
}

// 0 or 1, and only with CAP_SYS_ADMIN (Linux's proc_dointvec_minmax_sysadmin).
static int store_dmesg_restrict(const char *text, size_t len)
{
	uint64_t v;
	int rc = parse_uint(text, len, &v);

	if (!cred_capable(current_cred(), CAP_SYS_ADMIN))
		return -EPERM;
	if (rc || v > 1)
		return -EINVAL;
	dmesg_restrict = (int)v;
	return 0;
}

static size_t show_ns_last_pid(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "%d", pid_last());
}

// Linux's pid_ns_ctl_handler: CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE.
static int store_ns_last_pid(const char *text, size_t len)
{
	const struct cred *c = current_cred();
	uint64_t v;
	int rc;

	if (!cred_capable(c, CAP_SYS_ADMIN) && !cred_capable(c, CAP_CHECKPOINT_RESTORE))
		return -EPERM;
	rc = parse_uint(text, len, &v);
	return rc ? rc : pid_last_set(v);
}

static int store_pid_max(const char *text, size_t len)
{
	uint64_t v;
	int rc = parse_uint(text, len, &v);

	return rc ? rc : pid_max_set(v);
}

static int store_pipe_max_size(const char *text, size_t len)
{
	uint64_t v;
	int rc = parse_uint(text, len, &v);

	return rc ? rc : pipe_set_max_size(v);
}

// The per-user limits on pipe pages (kernel/fs/pipe.c).
static size_t show_pipe_user_pages_soft(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "%lu", pipe_get_user_pages(false));
}

static size_t show_pipe_user_pages_hard(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "%lu", pipe_get_user_pages(true));
}

static int store_pipe_user_pages(const char *text, size_t len, bool hard)
{
	uint64_t v;
	int rc = parse_uint(text, len, &v);

	if (rc == 0)
		pipe_set_user_pages(hard, (unsigned long)v);
	return rc;
}

static int store_pipe_user_pages_soft(const char *text, size_t len)
{
	return store_pipe_user_pages(text, len, false);
}

static int store_pipe_user_pages_hard(const char *text, size_t len)
{
	return store_pipe_user_pages(text, len, true);
}

// No system-wide limit on open files: Linux's largest value.
static size_t show_file_max(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "9223372036854775807");
}

// aio (kernel/fs/aio.c): the events io_setup may reserve in all, and
// those reserved now.
static size_t show_aio_max_nr(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "%lu", aio_max_nr_get());
}

static int store_aio_max_nr(const char *text, size_t len)
{
	uint64_t v;
	int rc = parse_uint(text, len, &v);

	if (rc == 0)
		aio_max_nr_set(v);
	return rc;
}

static size_t show_aio_nr(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "%lu", aio_nr_get());
}

// The most descriptors a process may have, RLIMIT_NOFILE's ceiling.
static size_t show_nr_open(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "%d", NR_OPEN);
}

// 0, Linux's heuristic: mmap refuses a single request larger than RAM
// and nothing else (kernel/mm/vm.c, fits_in_ram).
static size_t show_overcommit_memory(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "0");
}

// ---- System V IPC limits (kernel/ipc/ipc.c) ----

static size_t show_limit(char *buf, size_t size, enum ipc_limit which)
{
	return kappendf(buf, size, 0, "%d", ipc_limit(which));
}

static int store_limit(const char *text, size_t len, enum ipc_limit which)
{
	uint64_t v;
	int rc = parse_uint(text, len, &v);

	return rc ? rc : ipc_set_limit(which, v > INT64_MAX ? -1 : (int64_t)v);
}

static size_t show_msgmax(char *buf, size_t size) { return show_limit(buf, size, IPC_MSGMAX); }
static size_t show_msgmnb(char *buf, size_t size) { return show_limit(buf, size, IPC_MSGMNB); }
static size_t show_msgmni(char *buf, size_t size) { return show_limit(buf, size, IPC_MSGMNI); }
static int store_msgmax(const char *t, size_t n) { return store_limit(t, n, IPC_MSGMAX); }
static int store_msgmnb(const char *t, size_t n) { return store_limit(t, n, IPC_MSGMNB); }
static int store_msgmni(const char *t, size_t n) { return store_limit(t, n, IPC_MSGMNI); }
static size_t show_msg_next_id(char *b, size_t n) { return show_limit(b, n, IPC_MSG_NEXT_ID); }
static size_t show_sem_next_id(char *b, size_t n) { return show_limit(b, n, IPC_SEM_NEXT_ID); }
static int store_msg_next_id(const char *t, size_t n) { return store_limit(t, n, IPC_MSG_NEXT_ID); }
static int store_sem_next_id(const char *t, size_t n) { return store_limit(t, n, IPC_SEM_NEXT_ID); }
static size_t show_shmmni(char *buf, size_t size) { return show_limit(buf, size, IPC_SHMMNI); }
static int store_shmmni(const char *t, size_t n) { return store_limit(t, n, IPC_SHMMNI); }
static size_t show_shm_next_id(char *b, size_t n) { return show_limit(b, n, IPC_SHM_NEXT_ID); }
static int store_shm_next_id(const char *t, size_t n) { return store_limit(t, n, IPC_SHM_NEXT_ID); }

// shmmax and shmall: unsigned longs, any value (Linux's
// proc_doulongvec_minmax without bounds).
static size_t show_shm_limit(char *buf, size_t size, bool all)
{
	return kappendf(buf, size, 0, "%lu", shm_limit(all));
}

static int store_shm_limit(const char *text, size_t len, bool all)
{
	uint64_t v;
	int rc = parse_uint(text, len, &v);

	if (rc == 0)
		shm_set_limit(all, v);
	return rc;
}

static size_t show_shmmax(char *buf, size_t size) { return show_shm_limit(buf, size, false); }
static size_t show_shmall(char *buf, size_t size) { return show_shm_limit(buf, size, true); }
static int store_shmmax(const char *t, size_t n) { return store_shm_limit(t, n, false); }
static int store_shmall(const char *t, size_t n) { return store_shm_limit(t, n, true); }

// "semmsl semmns semopm semmni", tab-separated as Linux's.
static const enum ipc_limit sem_fields[4] = { IPC_SEMMSL, IPC_SEMMNS, IPC_SEMOPM, IPC_SEMMNI };

static size_t show_sem(char *buf, size_t size)
{
	return kappendf(buf, size, 0, "%d\t%d\t%d\t%d", ipc_limit(IPC_SEMMSL),
			ipc_limit(IPC_SEMMNS), ipc_limit(IPC_SEMOPM), ipc_limit(IPC_SEMMNI));
}

// One to four numbers, set in order; all are checked before any is set.
static int store_sem(const char *text, size_t len)
{
	uint64_t v[4];
	int n = 0;
	size_t i = 0;

	while (i < len && n < 4) {
		size_t start;

		while (i < len && blank(text[i]))
			i++;
		if (i == len)
			break;
		for (start = i; i < len && !blank(text[i]); i++)
			;
		if (parse_uint(text + start, i - start, &v[n]) < 0)
			return -EINVAL;
		if (v[n] > INT32_MAX || !ipc_limit_in_range(sem_fields[n], (int64_t)v[n]))
			return -EINVAL;
		n++;
	}
	while (i < len && blank(text[i]))
		i++;
	if (n == 0 || i < len)
		return -EINVAL;
	for (int k = 0; k < n; k++)
		ipc_set_limit(sem_fields[k], (int64_t)v[k]);
	return 0;
}

// ---- POSIX message queue limits (kernel/ipc/mqueue.c) ----

static size_t show_mq(char *buf, size_t size, enum mq_limit which)
{
	return kappendf(buf, size, 0, "%d", mq_limit(which));
}

static int store_mq(const char *text, size_t len, enum mq_limit which)
{
	uint64_t v;
	int rc = parse_uint(text, len, &v);

	return rc ? rc : mq_set_limit(which, v > INT64_MAX ? -1 : (int64_t)v);
}

static size_t show_queues_max(char *b, size_t n) { return show_mq(b, n, MQ_QUEUES_MAX); }
static size_t show_mq_msg_max(char *b, size_t n) { return show_mq(b, n, MQ_MSG_MAX); }
static size_t show_mq_msgsize_max(char *b, size_t n) { return show_mq(b, n, MQ_MSGSIZE_MAX); }
static size_t show_mq_msg_default(char *b, size_t n) { return show_mq(b, n, MQ_MSG_DEFAULT); }
static size_t show_mq_msgsize_default(char *b, size_t n) { return show_mq(b, n, MQ_MSGSIZE_DEFAULT); }
static int store_queues_max(const char *t, size_t n) { return store_mq(t, n, MQ_QUEUES_MAX); }
static int store_mq_msg_max(const char *t, size_t n) { return store_mq(t, n, MQ_MSG_MAX); }
static int store_mq_msgsize_max(const char *t, size_t n) { return store_mq(t, n, MQ_MSGSIZE_MAX); }
static int store_mq_msg_default(const char *t, size_t n) { return store_mq(t, n, MQ_MSG_DEFAULT); }
static int store_mq_msgsize_default(const char *t, size_t n)
{
	return store_mq(t, n, MQ_MSGSIZE_DEFAULT);
}

// ---- /proc/sys/fs/inotify (kernel/fs/inotify.c) ----

static size_t show_inotify(char *buf, size_t size, int which)
{
	return kappendf(buf, size, 0, "%ld", inotify_limit(which));
}

static int store_inotify(const char *text, size_t len, int which)
{
	uint64_t v;
	int rc = parse_uint(text, len, &v);

	return rc ? rc : inotify_set_limit(which, v);
}

static size_t show_in_instances(char *b, size_t n) { return show_inotify(b, n, INOTIFY_MAX_USER_INSTANCES); }
static size_t show_in_watches(char *b, size_t n) { return show_inotify(b, n, INOTIFY_MAX_USER_WATCHES); }
static size_t show_in_queued(char *b, size_t n) { return show_inotify(b, n, INOTIFY_MAX_QUEUED_EVENTS); }
static int store_in_instances(const char *t, size_t n) { return store_inotify(t, n, INOTIFY_MAX_USER_INSTANCES); }
static int store_in_watches(const char *t, size_t n) { return store_inotify(t, n, INOTIFY_MAX_USER_WATCHES); }
static int store_in_queued(const char *t, size_t n) { return store_inotify(t, n, INOTIFY_MAX_QUEUED_EVENTS); }

static const struct sysctl sysctls[] = {
	{ "/proc/sys/kernel", "pid_max", show_pid_max, store_pid_max, false },
	{ "/proc/sys/kernel", "dmesg_restrict", show_dmesg_restrict, store_dmesg_restrict, false },
	{ "/proc/sys/kernel", "ns_last_pid", show_ns_last_pid, store_ns_last_pid, false },
	{ "/proc/sys/kernel", "threads-max", show_threads_max, NULL, false },
	{ "/proc/sys/kernel", "ostype", show_ostype, NULL, true },
	{ "/proc/sys/kernel", "osrelease", show_osrelease, NULL, true },
	{ "/proc/sys/kernel", "hostname", show_hostname, store_hostname, true },
	{ "/proc/sys/kernel", "domainname", show_domainname, store_domainname, true },
	{ "/proc/sys/kernel", "tainted", show_tainted, NULL, false },
	{ "/proc/sys/kernel", "core_pattern", show_core_pattern, NULL, true },
	{ "/proc/sys/kernel", "msgmax", show_msgmax, store_msgmax, false },
	{ "/proc/sys/kernel", "msgmnb", show_msgmnb, store_msgmnb, false },
	{ "/proc/sys/kernel", "msgmni", show_msgmni, store_msgmni, false },
	{ "/proc/sys/kernel", "sem", show_sem, store_sem, false },
	{ "/proc/sys/kernel", "msg_next_id", show_msg_next_id, store_msg_next_id, false },
	{ "/proc/sys/kernel", "sem_next_id", show_sem_next_id, store_sem_next_id, false },
	{ "/proc/sys/kernel", "shmmax", show_shmmax, store_shmmax, false },
	{ "/proc/sys/kernel", "shmall", show_shmall, store_shmall, false },
	{ "/proc/sys/kernel", "shmmni", show_shmmni, store_shmmni, false },
	{ "/proc/sys/kernel", "shm_next_id", show_shm_next_id, store_shm_next_id, false },
	{ "/proc/sys/fs", "pipe-max-size", show_pipe_max_size, store_pipe_max_size, false },
	{ "/proc/sys/fs", "pipe-user-pages-soft", show_pipe_user_pages_soft, store_pipe_user_pages_soft,
	  false },
	{ "/proc/sys/fs", "pipe-user-pages-hard", show_pipe_user_pages_hard, store_pipe_user_pages_hard,
	  false },
	{ "/proc/sys/fs", "file-max", show_file_max, NULL, false },
	{ "/proc/sys/fs", "nr_open", show_nr_open, NULL, false },
	{ "/proc/sys/fs/inotify", "max_user_instances", show_in_instances, store_in_instances, false },
	{ "/proc/sys/fs/inotify", "max_user_watches", show_in_watches, store_in_watches, false },
	{ "/proc/sys/fs/inotify", "max_queued_events", show_in_queued, store_in_queued, false },
	{ "/proc/sys/fs", "aio-max-nr", show_aio_max_nr, store_aio_max_nr, false },
	{ "/proc/sys/fs", "aio-nr", show_aio_nr, NULL, false },
	{ "/proc/sys/vm", "overcommit_memory", show_overcommit_memory, NULL, false },
	{ "/proc/sys/fs/mqueue", "queues_max", show_queues_max, store_queues_max, false },
	{ "/proc/sys/fs/mqueue", "msg_max", show_mq_msg_max, store_mq_msg_max, false },
	{ "/proc/sys/fs/mqueue", "msgsize_max", show_mq_msgsize_max, store_mq_msgsize_max, false },
	{ "/proc/sys/fs/mqueue", "msg_default", show_mq_msg_default, store_mq_msg_default, false },
	{ "/proc/sys/fs/mqueue", "msgsize_default", show_mq_msgsize_default,
	  store_mq_msgsize_default, false },
};

#define SYSCTL_TEXT 128		// longest value (a name of 64 bytes) and more

static long sysctl_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	const struct sysctl *s = vn->priv;
	char text[SYSCTL_TEXT];
	size_t len;

	(void)f;
	len = s->show(text, sizeof(text) - 1);
	text[len++] = '\n';
	return text_slice(text, len, off, b, n);
}

// Linux (with its default kernel.sysctl_writes_strict) takes a value
// only when written at offset 0, in one write; a write further on
// changes nothing and succeeds.  Longer input than any value is EINVAL.
static long sysctl_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	const struct sysctl *s = vn->priv;
	char text[SYSCTL_TEXT];
	int rc;

	(void)f;
	if (!s->store)
		return -EACCES;		// opened before it was read-only: cannot happen
	if (off != 0 || n == 0)
		return (long)n;
	if (n > sizeof(text)) {
		if (!s->string)
			return -EINVAL;
		n = sizeof(text);	// a name is cut anyway
	}
	if (iobuf_get(b, 0, text, n) < 0)
		return -EFAULT;
	rc = s->store(text, n);
	return rc < 0 ? rc : (long)n;
}

static int sysctl_open(struct vnode **vnp, uint32_t flags)
{
	struct vnode *vn = *vnp;
	const struct sysctl *s = vn->priv;

	return opens_for_write(flags) && !s->store ? -EACCES : 0;
}

static const struct vnode_ops sysctl_ops = {
	.read = sysctl_read,
	.write = sysctl_write,
	.open = sysctl_open,
};

// ---- /sys/devices/system/cpu ----

// A CPU set as Linux prints it: "0-3", "0,2-3", "0".
static size_t cpu_list(char *buf, size_t size, bool only_online)
{
	size_t len = 0;
	int i = 0, n = ncpus < MAX_CPUS ? ncpus : MAX_CPUS;

	while (i < n) {
		int j;

		if (only_online && !cpus[i].online) {
			i++;
			continue;
		}
		for (j = i; j + 1 < n && (!only_online || cpus[j + 1].online); j++)
			;
		len = kappendf(buf, size, len, len ? ",%d" : "%d", i);
		if (j > i)
			len = kappendf(buf, size, len, "-%d", j);
		i = j + 1;
	}
	return kappendf(buf, size, len, "\n");
}

// possible and present: every CPU the firmware tables list (there is no
// hot-plug); online: those that came up.
static long cpu_online_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			    size_t n)
{
	char text[256];

	(void)vn; (void)f;
	return text_slice(text, cpu_list(text, sizeof(text), true), off, b, n);
}

static long cpu_possible_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			      size_t n)
{
	char text[256];

	(void)vn; (void)f;
	return text_slice(text, cpu_list(text, sizeof(text), false), off, b, n);
}

static int sys_ro_open(struct vnode **vn, uint32_t flags)
{
	(void)vn;
	return opens_for_write(flags) ? -EACCES : 0;
}

// ---- /sys/devices/system/node: one memory node, node 0, with every CPU ----

static long node_list_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			   size_t n)
{
	(void)vn; (void)f;
	return text_slice("0\n", 2, off, b, n);
}

static long node_distance_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			       size_t n)
{
	(void)vn; (void)f;
	return text_slice("10\n", 3, off, b, n);
}

// node0/cpumap: the online CPUs in hex, as Linux's bitmap print (as many
// digits as the CPU count needs, comma every 32 bits).
static long node_cpumap_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			     size_t n)
{
	char text[MAX_CPUS / 4 + MAX_CPUS / 32 + 4];
	int count = ncpus < MAX_CPUS ? ncpus : MAX_CPUS;
	size_t len = 0;

	(void)vn; (void)f;
	for (int d = (count + 3) / 4 - 1; d >= 0; d--) {
		int nib = 0;
		for (int k = 0; k < 4; k++)
			if (d * 4 + k < count && cpus[d * 4 + k].online)
				nib |= 1 << k;
		text[len++] = "0123456789abcdef"[nib];
		if (d && d % 8 == 0)
			text[len++] = ',';
	}
	text[len++] = '\n';
	return text_slice(text, len, off, b, n);
}

static const struct vnode_ops node_list_ops = { .read = node_list_read, .open = sys_ro_open };
static const struct vnode_ops node_distance_ops = { .read = node_distance_read,
						    .open = sys_ro_open };
static const struct vnode_ops node_cpumap_ops = { .read = node_cpumap_read, .open = sys_ro_open };

static const struct vnode_ops cpu_online_ops = { .read = cpu_online_read, .open = sys_ro_open };
static const struct vnode_ops cpu_possible_ops = { .read = cpu_possible_read,
						   .open = sys_ro_open };

// ---- the tree ----

// The cpuN directories: glibc counts them for sysconf(_SC_NPROCESSORS_CONF).
static int add_cpu_dirs(void)
{
	char path[48];
	struct vnode *dir;
	int rc = 0;

	for (int i = 0; i < ncpus && i < MAX_CPUS && rc == 0; i++) {
		ksnprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", i);
		rc = vfs_mkdir_p(path, &dir);
		if (rc == 0)
			vnode_put(dir);
	}
	return rc;
}

int procfs_sys_init(void)
{
	static const struct { const char *name; const struct vnode_ops *ops; } proc_files[] = {
		{ "cpuinfo", &cpuinfo_ops },
		{ "loadavg", &loadavg_ops },
		{ "version", &version_ops },
		{ "filesystems", &filesystems_ops },
		{ "mounts", &mounts_ops },
	};
	const char *cpu = "/sys/devices/system/cpu";
	int rc = 0;

	for (size_t i = 0; i < sizeof(proc_files) / sizeof(proc_files[0]) && rc == 0; i++)
		rc = procfs_add("/proc", proc_files[i].name, VNODE_REG, 0444, proc_files[i].ops, NULL);
	if (rc == 0)
		rc = procfs_add("/proc/sysvipc", "msg", VNODE_REG, 0444, &msg_proc_ops, NULL);
	if (rc == 0)
		rc = procfs_add("/proc/sysvipc", "sem", VNODE_REG, 0444, &sem_proc_ops, NULL);
	if (rc == 0)
		rc = procfs_add("/proc/sysvipc", "shm", VNODE_REG, 0444, &shm_proc_ops, NULL);
	for (size_t i = 0; i < sizeof(sysctls) / sizeof(sysctls[0]) && rc == 0; i++)
		rc = procfs_add(sysctls[i].dir, sysctls[i].name, VNODE_REG,
				sysctls[i].store ? 0644 : 0444, &sysctl_ops, &sysctls[i]);
	if (rc == 0)
		rc = procfs_add(cpu, "online", VNODE_REG, 0444, &cpu_online_ops, NULL);
	if (rc == 0)
		rc = procfs_add(cpu, "possible", VNODE_REG, 0444, &cpu_possible_ops, NULL);
	if (rc == 0)
		rc = procfs_add(cpu, "present", VNODE_REG, 0444, &cpu_possible_ops, NULL);
	if (rc == 0)
		rc = add_cpu_dirs();
	static const char *const node_lists[] = {
		"online", "possible", "has_cpu", "has_memory", "has_normal_memory",
	};
	const char *node = "/sys/devices/system/node";
	for (size_t i = 0; i < sizeof(node_lists) / sizeof(node_lists[0]) && rc == 0; i++)
		rc = procfs_add(node, node_lists[i], VNODE_REG, 0444, &node_list_ops, NULL);
	if (rc == 0)
		rc = procfs_add("/sys/devices/system/node/node0", "cpulist", VNODE_REG, 0444,
				&cpu_online_ops, NULL);
	if (rc == 0)
		rc = procfs_add("/sys/devices/system/node/node0", "cpumap", VNODE_REG, 0444,
				&node_cpumap_ops, NULL);
	if (rc == 0)
		rc = procfs_add("/sys/devices/system/node/node0", "distance", VNODE_REG, 0444,
				&node_distance_ops, NULL);
	return rc;
}
