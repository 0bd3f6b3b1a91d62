// rlimits: the limits on size, enforced as Linux 6.1 enforces them.
// RLIMIT_FSIZE: a write that starts at the limit is EFBIG with SIGXFSZ,
// one that crosses it is cut short, ftruncate and fallocate past it are
// EFBIG with SIGXFSZ (pipes are not files: no limit).  RLIMIT_AS: mmap,
// mremap and brk past it fail (ENOMEM; brk keeps the old break).
// RLIMIT_DATA: private writable mappings and the heap count, shared and
// read-only ones do not.  RLIMIT_NPROC: a user's threads, fork and
// pthread_create past it EAGAIN, a set*uid past it fails the next execve.
// RLIMIT_RTTIME: a real-time thread that does not sleep gets SIGXCPU at
// the soft limit (raised a second), SIGKILL at the hard one.
// Each case runs in a forked child.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "privdrop.h"
#include "testcase.h"

#define MiB (1UL << 20)

static volatile sig_atomic_t xfsz;

static void on_xfsz(int sig)
{
	(void)sig;
	xfsz++;
}

static int set_cur(int resource, rlim_t cur)
{
	struct rlimit r;

	if (getrlimit(resource, &r) != 0)
		return -1;
	r.rlim_cur = cur;
	return setrlimit(resource, &r);
}

// ---- RLIMIT_FSIZE ----

static int c_fsize(void)
{
	char path[64], buf[100];
	int fd, p[2];

	memset(buf, 'x', sizeof(buf));
	snprintf(path, sizeof(path), "/tmp/rlimits-%d", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return cfail("open: errno %d", errno);
	unlink(path);
	if (signal(SIGXFSZ, on_xfsz) == SIG_ERR || c_ok(set_cur(RLIMIT_FSIZE, 150), "setrlimit"))
		return 1;
	if (c_eq(write(fd, buf, 100), 100, "a write below the limit") ||
	    c_eq(write(fd, buf, 100), 50, "a write crossing the limit: cut short") ||
	    c_eq(xfsz, 0, "SIGXFSZ for a short write"))
		return 1;
	if (c_err(write(fd, buf, 1), EFBIG, "a write at the limit") ||
	    c_eq(xfsz, 1, "SIGXFSZ for the write at the limit") ||
	    c_eq(write(fd, buf, 0), 0, "an empty write at the limit") || c_eq(xfsz, 1, "no SIGXFSZ for it"))
		return 1;
	if (c_err(pwrite(fd, buf, 10, 1000), EFBIG, "pwrite past the limit") ||
	    c_err(ftruncate(fd, 151), EFBIG, "ftruncate past the limit") ||
	    c_eq(xfsz, 3, "SIGXFSZ for pwrite and ftruncate") ||
	    c_ok(ftruncate(fd, 10), "ftruncate shorter") || c_ok(ftruncate(fd, 150), "ftruncate to the limit"))
		return 1;
	if (c_err(fallocate(fd, 0, 100, 100), EFBIG, "fallocate past the limit") ||
	    c_ok(fallocate(fd, FALLOC_FL_KEEP_SIZE, 100, 100), "fallocate past it keeping the size") ||
	    c_eq(xfsz, 4, "SIGXFSZ for fallocate"))
		return 1;
	// A pipe is not a file: no limit.
	if (c_ok(pipe(p), "pipe") || c_eq(write(p[1], buf, 100), 100, "a pipe write") ||
	    c_eq(write(p[1], buf, 100), 100, "a second pipe write"))
		return 1;
	// Without a handler, SIGXFSZ ends the process (and dumps core).
	signal(SIGXFSZ, SIG_DFL);
	lseek(fd, 0, SEEK_END);
	write(fd, buf, 1);
	return cfail("still alive after a write at the limit with SIGXFSZ's default action");
}

// Runs fn in a forked child, which must die of signal sig; a reason the
// child recorded (privdrop.h) becomes the case's.
static void in_child_killed_by(int (*fn)(void), int sig)
{
	if (child_why)
		child_why[0] = 0;
	pid_t pid = fork_child();
	if (pid == 0)
		_exit(fn() ? 1 : 0);
	int st = reap_child(pid);
	if (st < 0 || (WIFSIGNALED(st) && WTERMSIG(st) == sig))
		return;
	if (child_why && child_why[0])
		fail("%s", child_why);
	else
		fail("the child ended with status %#x, not killed by signal %d", st, sig);
}

static void t_fsize(void)
{
	in_child_killed_by(c_fsize, SIGXFSZ);
}

// ---- RLIMIT_AS ----

static int c_as(void)
{
	char *heap = sbrk(0);
	char line[128];
	unsigned long vm_kb = 0;

	// A limit of 0: every further mapping fails.
	if (c_ok(set_cur(RLIMIT_AS, 0), "setrlimit 0") ||
	    c_err((long)mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), ENOMEM,
		  "mmap with RLIMIT_AS 0") ||
	    c_ok(set_cur(RLIMIT_AS, RLIM_INFINITY), "setrlimit back"))
		return 1;
	// Room for 6 MiB more than now.
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return cfail("/proc/self/status");
	while (fgets(line, sizeof(line), f))
		sscanf(line, "VmSize: %lu kB", &vm_kb);
	fclose(f);
	if (!vm_kb)
		return cfail("no VmSize");
	if (c_ok(set_cur(RLIMIT_AS, vm_kb * 1024 + 6 * MiB), "setrlimit"))
		return 1;
	void *a = mmap(NULL, 4 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return cfail("mmap of 4 MiB within the limit: errno %d", errno);
	if (c_err((long)mmap(NULL, 8 * MiB, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0), ENOMEM,
		  "mmap of 8 MiB more"))
		return 1;
	if (c_err((long)mremap(a, 4 * MiB, 16 * MiB, MREMAP_MAYMOVE), ENOMEM, "mremap past the limit"))
		return 1;
	// MAP_FIXED over what is there counts what it replaces once (4 MiB
	// more would not fit).
	if (c_ok((long)mmap(a, 4 * MiB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
		 "mmap(MAP_FIXED) over 4 MiB already counted"))
		return 1;
	heap = sbrk(0);		// musl's malloc may have moved it (fopen)
	if (c_eq((long)syscall(SYS_brk, heap + 16 * MiB), (long)heap, "brk past the limit: the old break"))
		return 1;
	return 0;
}

static void t_as(void)
{
	in_child(c_as, "RLIMIT_AS");
}

// ---- RLIMIT_DATA ----

static int c_data(void)
{
	char *heap = sbrk(0);

	if (c_ok(set_cur(RLIMIT_DATA, 4 * MiB), "setrlimit"))
		return 1;
	if (c_err((long)mmap(NULL, 8 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
		  ENOMEM, "a private writable mapping past RLIMIT_DATA"))
		return 1;
	void *ro = mmap(NULL, 8 * MiB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *sh = mmap(NULL, 8 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED || sh == MAP_FAILED)
		return cfail("read-only or shared mappings do not count: errno %d", errno);
	if (c_eq((long)syscall(SYS_brk, heap + 8 * MiB), (long)heap, "brk past RLIMIT_DATA: the old break"))
		return 1;
	if (c_eq((long)syscall(SYS_brk, heap + 64 * 1024), (long)(heap + 64 * 1024), "brk within it"))
		return 1;
	return 0;
}

static void t_data(void)
{
	in_child(c_data, "RLIMIT_DATA");
}

// ---- RLIMIT_NPROC ----

static void *idle_thread(void *arg)
{
	(void)arg;
	return NULL;
}

// Forks a child that pauses until killed; its pid, or -1 with errno.
static pid_t pauser(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

// A user's threads count against RLIMIT_NPROC (not root's, not with
// CAP_SYS_RESOURCE): fork and pthread_create past it fail with EAGAIN,
// and work again once a child is gone.
static int c_nproc(void)
{
	struct rlimit lim = { 3, 3 };
	pid_t a, b;
	pthread_t th;

	if (c_ok(setrlimit(RLIMIT_NPROC, &lim), "setrlimit") || drop_to(U1, G1, 0, NULL))
		return 1;
	a = pauser();
	b = pauser();
	if (a < 0 || b < 0)
		return cfail("fork within the limit: errno %d", errno);
	if (c_err(fork(), EAGAIN, "fork past RLIMIT_NPROC") ||
	    c_eq(pthread_create(&th, NULL, idle_thread, NULL), EAGAIN, "pthread_create past it"))
		return 1;
	kill(a, SIGKILL);
	waitpid(a, NULL, 0);
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	if (c < 0)
		return cfail("fork after a child is gone: errno %d", errno);
	waitpid(c, NULL, 0);
	kill(b, SIGKILL);
	waitpid(b, NULL, 0);
	return 0;
}

static void t_nproc(void)
{
	in_child(c_nproc, "RLIMIT_NPROC");
}

// set*uid to a user over the limit succeeds, and the next execve fails
// with EAGAIN (Linux's PF_NPROC_EXCEEDED).
static int c_nproc_exec(void)
{
	struct rlimit lim = { 1, 1 };
	int p[2];
	char c;

	if (c_ok(pipe(p), "pipe"))
		return 1;
	pid_t holder = fork();
	if (holder == 0) {
		if (drop_to(U2, G2, 0, NULL))
			_exit(1);
		if (write(p[1], "k", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	if (holder < 0 || read(p[0], &c, 1) != 1)
		return cfail("the holder");
	int rc = 0;
	if (c_ok(setrlimit(RLIMIT_NPROC, &lim), "setrlimit") ||
	    c_ok(setresuid(U2, U2, U2), "setresuid to a user at the limit"))
		rc = 1;
	else
		rc = c_err(execl("/bin/true", "true", (char *)NULL), EAGAIN, "execve after it");
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	return rc;
}

static void t_nproc_exec(void)
{
	in_child(c_nproc_exec, "RLIMIT_NPROC at exec");
}

// ---- RLIMIT_RTTIME ----

static volatile sig_atomic_t xcpu;

static void on_xcpu(int sig)
{
	(void)sig;
	xcpu++;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

// Spins as SCHED_FIFO 1 until a SIGXCPU or 'ms' have passed.
static int spin_fifo(long ms)
{
	struct sched_param sp = { .sched_priority = 1 };
	long long end = mono_ms() + ms;

	if (syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &sp) != 0)
		return cfail("SCHED_FIFO: errno %d", errno);
	while (!xcpu && mono_ms() < end)
		;
	return 0;
}

// A real-time thread that runs without sleeping past the soft limit gets
// SIGXCPU, and the soft limit goes a second up.
static int c_rttime_soft(void)
{
	struct rlimit lim = { 100000, 5000000 }, now;

	if (signal(SIGXCPU, on_xcpu) == SIG_ERR || c_ok(setrlimit(RLIMIT_RTTIME, &lim), "setrlimit") ||
	    spin_fifo(3000))
		return 1;
	if (c_eq(xcpu >= 1, 1, "SIGXCPU past the soft limit") ||
	    c_ok(getrlimit(RLIMIT_RTTIME, &now), "getrlimit") ||
	    c_eq((long)now.rlim_cur, 1100000, "the soft limit a second up"))
		return 1;
	return 0;
}

static void t_rttime_soft(void)
{
	in_child(c_rttime_soft, "RLIMIT_RTTIME soft");
}

// ... and past the hard limit, SIGKILL.
static int c_rttime_hard(void)
{
	struct rlimit lim = { 100000, 100000 };

	if (c_ok(setrlimit(RLIMIT_RTTIME, &lim), "setrlimit") || spin_fifo(3000))
		return 1;
	return cfail("still alive after 3 s past RLIMIT_RTTIME's hard limit");
}

static void t_rttime_hard(void)
{
	in_child_killed_by(c_rttime_hard, SIGKILL);
}

static const struct test_case cases[] = {
	{ "fsize_write_truncate_fallocate", t_fsize },
	{ "as_mmap_mremap_brk", t_as },
	{ "data_private_writable_and_brk", t_data },
	{ "nproc_fork_and_threads", t_nproc },
	{ "nproc_exceeded_by_setuid_fails_exec", t_nproc_exec },
	{ "rttime_soft_sigxcpu", t_rttime_soft },
	{ "rttime_hard_sigkill", t_rttime_hard },
};

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
