// The kernel log: every line kprintf writes is also kept, with the time
// since boot, in a ring that syslog(2) reads (busybox dmesg, klogctl),
// as Linux's printk buffer.  Lines are kept in syslog's text form,
// "<6>[    1.234567] text\n" (facility kernel, level info: kprintf has no
// levels), so a reader's position is a byte offset into the stream of
// everything ever logged; the ring holds its last KLOG_SIZE bytes and
// drops whole lines from the front to make room.
//
// syslog's console level decides whether kprintf's lines also reach the
// console (they do at Linux's default level 7; SYSLOG_ACTION_CONSOLE_OFF
// or a level of 6 or less silences them).  A panic always prints.

#include <kernel/syscall.h>
#include <kernel/console.h>
#include <kernel/klog.h>
#include <kernel/cred.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include <kernel/uaccess.h>
#include <kernel/wait.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

#define KLOG_SIZE		(128 * 1024)	// Linux's log_buf_len with LOG_BUF_SHIFT 17
#define LINE_MAX_TEXT		1000
#define MESSAGE_LEVEL		6		// KERN_INFO
#define DEFAULT_CONSOLE_LEVEL	7
#define MINIMUM_CONSOLE_LEVEL	1
#define LOGLEVEL_DEFAULT	(-1)

#define SYSLOG_ACTION_CLOSE		0
#define SYSLOG_ACTION_OPEN		1
#define SYSLOG_ACTION_READ		2
#define SYSLOG_ACTION_READ_ALL		3
#define SYSLOG_ACTION_READ_CLEAR	4
#define SYSLOG_ACTION_CLEAR		5
#define SYSLOG_ACTION_CONSOLE_OFF	6
#define SYSLOG_ACTION_CONSOLE_ON	7
#define SYSLOG_ACTION_CONSOLE_LEVEL	8
#define SYSLOG_ACTION_SIZE_UNREAD	9
#define SYSLOG_ACTION_SIZE_BUFFER	10

#define CAP_SYSLOG		34

static struct spinlock klog_lock = SPINLOCK_INIT("klog");
static char ring[KLOG_SIZE];
// Offsets in the stream of all bytes logged: the ring holds [tail, head),
// tail always at a line's start.  read_pos is SYSLOG_ACTION_READ's (it
// may stop inside a line), clear_pos where READ_ALL starts.
static uint64_t head, tail, read_pos, clear_pos;
// The line being written (kprintf calls without a newline add to it).
static char line[LINE_MAX_TEXT];
static size_t line_len;
static uint64_t line_ns;
static int console_level = DEFAULT_CONSOLE_LEVEL;
static int saved_console_level = LOGLEVEL_DEFAULT;
int dmesg_restrict;		// /proc/sys/kernel/dmesg_restrict

static char byte_at(uint64_t pos)
{
	return ring[pos % KLOG_SIZE];
}

// Drops the oldest line (klog_lock held).
static void drop_oldest_line_locked(void)
{
	while (tail < head && byte_at(tail) != '\n')
		tail++;
	if (tail < head)
		tail++;
}

static void put_bytes_locked(const char *s, size_t n)
{
	while (head + n - tail > KLOG_SIZE)
		drop_oldest_line_locked();
	for (size_t i = 0; i < n; i++)
		ring[(head + i) % KLOG_SIZE] = s[i];
	head += n;
}

static void end_line_locked(void)
{
	char prefix[40];
	uint64_t us = line_ns / 1000;
	int n = ksnprintf(prefix, sizeof(prefix), "<%d>[%5lu.%06lu] ", MESSAGE_LEVEL,
			  (unsigned long)(us / 1000000), (unsigned long)(us % 1000000));

	put_bytes_locked(prefix, (size_t)n);
	put_bytes_locked(line, line_len);
	put_bytes_locked("\n", 1);
	line_len = 0;
}

// kprintf's text, kept; true if it should also reach the console.
bool klog_add(const char *s, size_t n)
{
	uint64_t flags = spin_lock_irqsave(&klog_lock);

	for (size_t i = 0; i < n; i++) {
		if (line_len == 0)
			line_ns = clock_monotonic_ns();
		if (s[i] == '\n') {
			end_line_locked();
			continue;
		}
		line[line_len++] = s[i];
		if (line_len == sizeof(line))
			end_line_locked();
	}
	bool to_console = MESSAGE_LEVEL < console_level;
	spin_unlock_irqrestore(&klog_lock, flags);
	return to_console;
}

// The end of the line that contains pos (one past its newline), or head.
static uint64_t line_end_locked(uint64_t pos)
{
	while (pos < head && byte_at(pos) != '\n')
		pos++;
	return pos < head ? pos + 1 : head;
}

static void copy_out_locked(char *dst, uint64_t from, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		dst[i] = byte_at(from + i);
}

// SYSLOG_ACTION_READ: whole lines from read_pos while they fit; a first
// line that does not fit is given in part, and the rest comes next time.
static uint64_t take_unread_locked(char *dst, uint64_t size)
{
	uint64_t pos = read_pos, n = 0;

	while (pos < head) {
		uint64_t end = line_end_locked(pos);
		if (end - pos > size - n) {
			if (n == 0) {
				copy_out_locked(dst, pos, size);
				pos += size;
				n = size;
			}
			break;
		}
		copy_out_locked(dst + n, pos, end - pos);
		n += end - pos;
		pos = end;
	}
	read_pos = pos;
	return n;
}

// SYSLOG_ACTION_READ_ALL: the last whole lines since the last clear that
// fit in size.
static uint64_t take_all_locked(char *dst, uint64_t size, bool clear)
{
	uint64_t start = clear_pos > tail ? clear_pos : tail;

	while (head - start > size)
		start = line_end_locked(start);
	copy_out_locked(dst, start, head - start);
	if (clear)
		clear_pos = head;
	return head - start;
}

static bool restricted(int type)
{
	return dmesg_restrict || (type != SYSLOG_ACTION_READ_ALL && type != SYSLOG_ACTION_SIZE_BUFFER);
}

static long syslog_read(uint64_t ubuf, int len, int type)
{
	uint64_t size = (uint64_t)len < KLOG_SIZE ? (uint64_t)len : KLOG_SIZE;
	char *kbuf;
	uint64_t flags, n;

	if (!ubuf || len < 0)
		return -EINVAL;
	if (len == 0)
		return 0;
	if (!user_range_ok(ubuf, (size_t)len))
		return -EFAULT;
	kbuf = kmalloc(size);
	if (!kbuf)
		return -ENOMEM;
	flags = spin_lock_irqsave(&klog_lock);
	if (read_pos < tail)
		read_pos = tail;
	if (type == SYSLOG_ACTION_READ) {
		// Waits for a line; kprintf wakes no one (it may run anywhere,
		// holding anything), so the reader looks again every 10 ms.
		while (read_pos == head) {
			spin_unlock_irqrestore(&klog_lock, flags);
			int r = wq_wait(0, 0, clock_monotonic_ns() + 10000000, true);
			flags = spin_lock_irqsave(&klog_lock);
			if (r == -EINTR) {
				spin_unlock_irqrestore(&klog_lock, flags);
				kfree(kbuf);
				return -ERESTARTSYS;
			}
			if (read_pos < tail)
				read_pos = tail;
		}
		n = take_unread_locked(kbuf, size);
	} else {
		n = take_all_locked(kbuf, size, type == SYSLOG_ACTION_READ_CLEAR);
	}
	spin_unlock_irqrestore(&klog_lock, flags);
	long rc = copy_to_user(ubuf, kbuf, n) < 0 ? -EFAULT : (long)n;
	kfree(kbuf);
	return rc;
}

// The console-level actions and the sizes (klog_lock held).
static long syslog_control_locked(int type, int len)
{
	switch (type) {
	case SYSLOG_ACTION_CLOSE:
	case SYSLOG_ACTION_OPEN:
		return 0;
	case SYSLOG_ACTION_CLEAR:
		clear_pos = head;
		return 0;
	case SYSLOG_ACTION_CONSOLE_OFF:
		if (saved_console_level == LOGLEVEL_DEFAULT)
			saved_console_level = console_level;
		console_level = MINIMUM_CONSOLE_LEVEL;
		return 0;
	case SYSLOG_ACTION_CONSOLE_ON:
		if (saved_console_level != LOGLEVEL_DEFAULT) {
			console_level = saved_console_level;
			saved_console_level = LOGLEVEL_DEFAULT;
		}
		return 0;
	case SYSLOG_ACTION_CONSOLE_LEVEL:
		if (len < 1 || len > 8)
			return -EINVAL;
		console_level = len < MINIMUM_CONSOLE_LEVEL ? MINIMUM_CONSOLE_LEVEL : len;
		saved_console_level = LOGLEVEL_DEFAULT;
		return 0;
	case SYSLOG_ACTION_SIZE_UNREAD:
		if (read_pos < tail)
			read_pos = tail;
		return (long)(head - read_pos);
	case SYSLOG_ACTION_SIZE_BUFFER:
		return KLOG_SIZE;
	default:
		return -EINVAL;
	}
}

// syslog(2), Linux's do_syslog: the permission check comes first (an
// unknown action from an unprivileged caller is EPERM).
SYSCALL_DEFINE(SYS_syslog, syslog)
{
	int type = (int)args->a[0], len = (int)args->a[2];
	const struct cred *c = current_cred();

	if (restricted(type) && !cred_capable(c, CAP_SYSLOG) && !cred_capable(c, CAP_SYS_ADMIN))
		return -EPERM;
	if (type == SYSLOG_ACTION_READ || type == SYSLOG_ACTION_READ_ALL ||
	    type == SYSLOG_ACTION_READ_CLEAR)
		return syslog_read(args->a[1], len, type);
	uint64_t flags = spin_lock_irqsave(&klog_lock);
	long rc = syslog_control_locked(type, len);
	spin_unlock_irqrestore(&klog_lock, flags);
	return rc;
}
