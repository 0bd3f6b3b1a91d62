// Small wrappers around system calls that several of Switchyard's test
// programs, benchmarks and tools need: sleeping, reading a clock, thread
// ids, CPU affinity, and reading or writing a small file whole.  Header-only and static inline, like ktap.h, so
// each program stays a single C file and uses only what it calls.
#ifndef USER_SYSUTIL_H
#define USER_SYSUTIL_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

// Sleep at least 'ms' milliseconds, carrying on after a signal handler
// interrupts the sleep.
static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

// The time on 'clock' in nanoseconds.
static inline long long now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// The kernel's id of the calling thread (libc may not offer gettid()).
static inline pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

// Pin the calling thread to one CPU.  Returns 0, or -1 with errno set.
static inline int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

// Fill 'list' (room for CPU_SETSIZE entries) with the CPUs this process
// may run on, in increasing order, and return how many.  When the mask
// cannot be read or is empty the answer is CPU 0 alone, so a caller
// always has a CPU to pin to.
static inline int usable_cpus(int *list)
{
	cpu_set_t set;
	int n = 0;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &set))
				list[n++] = cpu;
	if (n == 0)
		list[n++] = 0;
	return n;
}

// The whole file into buf (NUL-terminated, cut at size - 1 bytes): its
// length, or -1 with errno set.
static inline long read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t len = 0;

	if (fd < 0)
		return -1;
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	close(fd);
	return (long)len;
}

// Writes 'text' to 'path' in one write() (a /proc setting takes one):
// 0, or the errno.
static inline int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	int rc = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		rc = errno ? errno : EIO;
	close(fd);
	return rc;
}

#endif
