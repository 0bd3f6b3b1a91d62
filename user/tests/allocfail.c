// Out of memory at every allocation of a system call, one at a time.
//
// For each operation below, the kernel is told to fail the calling
// thread's K-th allocation (frame or kmalloc; "self K" in
// /proc/switchyard/fail_alloc), for K = 0, 1, 2, ... until the operation
// makes fewer than K + 1 allocations.  At every K the operation must
// either succeed or fail with the errno Linux gives when memory runs out
// (ENOMEM, or what the call's man page names: EAGAIN for fork and
// sigqueue, ENFILE for pipe, ENOSPC for file data; a fault with no page
// to map is SIGKILL from the OOM policy or SIGBUS), leave nothing half
// done, and give back everything it took: /proc/switchyard/memstat must
// come back to where it was (the rules of user/lib/memstat.h).  This is
// how the clone failure path (process_discard) is tested.
//
// Switchyard only: on Linux every case is skipped.  The process itself
// allocates nothing between the snapshots (static buffers, stack touched
// first, raw system calls whose children exit at once).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memstat.h"
#include "rawsys.h"
#include "testcase.h"

#define MAX_K		400	// no operation here makes more allocations
#define FUTEX_WAIT	0	// musl has no <linux/futex.h>
#define FUTEX_WAKE	1

#define THREAD_FLAGS	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | \
			 CLONE_SYSVSEM | CLONE_CHILD_CLEARTID)

static int ctl = -1;		// /proc/switchyard/fail_alloc, open throughout

enum outcome { DONE, FIRED, BAD };

static int arm(long k)
{
	char cmd[32];
	int n = snprintf(cmd, sizeof(cmd), "self %ld", k);

	return write(ctl, cmd, n) == n ? 0 : -1;
}

// What became of the failure asked for: "pending", "fired", "void" or
// "off", from the file's "self" line.  Reading it allocates nothing.
static const char *self_state(void)
{
	static char text[256];
	ssize_t n = pread(ctl, text, sizeof(text) - 1, 0);
	char *line;

	if (n <= 0)
		return "?";
	text[n] = 0;
	line = strstr(text, "\nself ");
	if (!line)
		return "?";
	line += 6;
	line[strcspn(line, "\n")] = 0;
	return line;
}

// Cancels the failure if it did not fire; says whether it fired.  The
// cancel comes first: reading the state writes to memory, and a page
// fault there must not be what the failure hits.
static int disarm(void)
{
	if (write(ctl, "self off", 8) != 8)
		fail("cannot cancel the injected failure: errno=%d", errno);
	return strcmp(self_state(), "fired") == 0;
}

// A call made with failure K armed just before it and cancelled just
// after it, in one asm statement that writes no memory in between: after
// a fork every page of the parent is copy-on-write until the child is
// gone, and a page fault of the test itself must not be what the failure
// hits.  A clone-family child (is_clone) exits at once.
struct armed {
	long ctl;
	const char *cmd;
	long cmd_len;
	long nr;
	long a[6];
	long is_clone;
};

static const char self_off[] = "self off";

static long armed_call(long k, long nr, long a0, long a1, long a2, long a3, long a4, long a5,
		       long is_clone)
{
	char cmd[32];
	struct armed c = { ctl, cmd, 0, nr, { a0, a1, a2, a3, a4, a5 }, is_clone };
	long ret;

	c.cmd_len = snprintf(cmd, sizeof(cmd), "self %ld", k);
	__asm__ volatile("mov $1, %%eax\n\t"		// write(ctl, "self K")
			 "mov 0(%%rbx), %%rdi\n\t"
			 "mov 8(%%rbx), %%rsi\n\t"
			 "mov 16(%%rbx), %%rdx\n\t"
			 "syscall\n\t"
			 "mov 24(%%rbx), %%rax\n\t"	// the call
			 "mov 32(%%rbx), %%rdi\n\t"
			 "mov 40(%%rbx), %%rsi\n\t"
			 "mov 48(%%rbx), %%rdx\n\t"
			 "mov 56(%%rbx), %%r10\n\t"
			 "mov 64(%%rbx), %%r8\n\t"
			 "mov 72(%%rbx), %%r9\n\t"
			 "syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "cmpq $0, 80(%%rbx)\n\t"
			 "je 1f\n\t"
			 "mov $60, %%eax\n\t"		// a clone child: exit(0)
			 "xor %%edi, %%edi\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "1:\n\t"
			 "mov %%rax, %%r12\n\t"
			 "mov $1, %%eax\n\t"		// write(ctl, "self off")
			 "mov 0(%%rbx), %%rdi\n\t"
			 "lea %[off], %%rsi\n\t"
			 "mov $8, %%edx\n\t"
			 "syscall\n\t"
			 "mov %%r12, %%rax"
			 : "=a"(ret)
			 : "b"(&c), [off] "m"(self_off)
			 : "rcx", "r11", "rdi", "rsi", "rdx", "r10", "r8", "r9", "r12", "memory");
	return ret;
}

static int fired(void)
{
	return strcmp(self_state(), "fired") == 0;
}

static int one_of(long rc, const int *ok, int n)
{
	for (int i = 0; i < n; i++)
		if (rc == -ok[i])
			return 1;
	return 0;
}

// ---- the operations: each does its call with failure K armed ----

static enum outcome op_fork(long k)
{
	static const int ok[] = { ENOMEM, EAGAIN };
	int status;

	long pid = armed_call(k, SYS_fork, 0, 0, 0, 0, 0, 0, 1);
	int hit = fired();
	if (pid > 0) {
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			return fail("K=%ld: fork child lost or odd status", k), BAD;
	} else if (!one_of(pid, ok, 2)) {
		return fail("K=%ld: fork returned %ld, want a pid, -ENOMEM or -EAGAIN", k, pid), BAD;
	} else if (!hit) {
		return fail("K=%ld: fork failed (%ld) with no failure injected", k, pid), BAD;
	}
	return hit ? FIRED : DONE;
}

static enum outcome op_vfork(long k)
{
	static const int ok[] = { ENOMEM, EAGAIN };
	int status;

	long pid = armed_call(k, SYS_vfork, 0, 0, 0, 0, 0, 0, 1);
	int hit = fired();
	if (pid > 0) {
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			return fail("K=%ld: vfork child lost or odd status", k), BAD;
	} else if (!one_of(pid, ok, 2)) {
		return fail("K=%ld: vfork returned %ld", k, pid), BAD;
	}
	return hit ? FIRED : DONE;
}

// Waits until a CLONE_CHILD_CLEARTID word is cleared by the thread's exit.
static void join(volatile int *ctid)
{
	while (*ctid != 0)
		raw_syscall6(SYS_futex, (uint64_t)ctid, FUTEX_WAIT, *ctid, 0, 0, 0);
}

static volatile int thread_ctid;

static enum outcome op_thread(long k)
{
	static const int ok[] = { ENOMEM, EAGAIN };

	thread_ctid = 1;
	long tid = armed_call(k, SYS_clone, THREAD_FLAGS, 0, 0, (long)&thread_ctid, 0, 0, 1);
	int hit = fired();
	if (tid > 0)
		join(&thread_ctid);
	else if (!one_of(tid, ok, 2))
		return fail("K=%ld: clone(thread) returned %ld", k, tid), BAD;
	return hit ? FIRED : DONE;
}

// A thread that needs a kernel stack the kernel has none cached for:
// before each try, sleeping threads take every cached stack (and keep
// them until the sweep is over, so the snapshots include them).
#define MAX_SLEEPERS	3000
static volatile int sleepers_go;
static volatile int sleeper_ctid[MAX_SLEEPERS];
static int nsleepers;

static int take_cached_stacks(void)
{
	struct memstat m;

	for (;;) {
		if (memstat_read(&m) < 0)
			return fail("cannot read memstat"), -1;
		long cached = memstat_get(&m, "kstacks_cached");
		if (cached <= 0)
			return 0;
		if (nsleepers + cached > MAX_SLEEPERS)
			return fail("%ld kernel stacks cached, more than %d", cached, MAX_SLEEPERS), -1;
		while (cached-- > 0) {
			sleeper_ctid[nsleepers] = 1;
			if (raw_clone_sleeper(THREAD_FLAGS, &sleepers_go, &sleeper_ctid[nsleepers]) < 0)
				return fail("cannot start a sleeping thread"), -1;
			nsleepers++;
		}
	}
}

static void release_sleepers(void)
{
	sleepers_go = 1;
	raw_syscall6(SYS_futex, (uint64_t)&sleepers_go, FUTEX_WAKE, nsleepers, 0, 0, 0);
	for (int i = 0; i < nsleepers; i++)
		join(&sleeper_ctid[i]);
	nsleepers = 0;
	sleepers_go = 0;
}

// execve in a child (which arms its own failure); the parent reads from
// the file what became of it.
static enum outcome op_execve(long k)
{
	int status;
	pid_t pid = fork_child();

	if (pid < 0)
		return BAD;
	if (pid == 0) {
		char *args[] = { "/tests/hello", NULL };
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		long rc = armed_call(k, SYS_execve, (long)args[0], (long)args, (long)environ, 0, 0, 0,
				     0);
		_exit(rc == -ENOMEM ? 20 : rc == -E2BIG ? 21 : 22);
	}
	if (waitpid(pid, &status, 0) != pid)
		return fail("K=%ld: lost the execve child", k), BAD;
	const char *state = self_state();
	int fired = strcmp(state, "fired") == 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return fired ? FIRED : DONE;	// hello ran
	// Past the point of no return a failed exec kills the process.
	if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGKILL || WTERMSIG(status) == SIGSEGV) &&
	    fired)
		return FIRED;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 20 && fired)
		return FIRED;
	return fail("K=%ld: execve child ended with status %#x (failure %s)", k, status, state), BAD;
}

static enum outcome op_pipe(long k)
{
	static const int ok[] = { ENOMEM, ENFILE };
	int fds[2];

	arm(k);
	long rc = raw_syscall3(SYS_pipe2, (uint64_t)fds, 0, 0);
	int fired = disarm();
	if (rc == 0) {
		char c = 'x';
		if (write(fds[1], &c, 1) != 1 || read(fds[0], &c, 1) != 1)
			fail("K=%ld: the pipe made does not work", k);
		close(fds[0]);
		close(fds[1]);
	} else if (!one_of(rc, ok, 2)) {
		return fail("K=%ld: pipe2 returned %ld", k, rc), BAD;
	}
	return fired ? FIRED : DONE;
}

static char data[3 * 4096 + 100];

// Creating a file and writing three pages: success, or an error and no
// file / a shorter file.
static enum outcome op_file_write(long k)
{
	static const int ok[] = { ENOMEM, ENOSPC };
	const char *path = scratch("f");
	long fd, rc = 0;
	struct stat st;

	arm(k);
	fd = raw_syscall6(SYS_openat, AT_FDCWD, (uint64_t)path, O_CREAT | O_EXCL | O_WRONLY, 0600,
			  0, 0);
	if (fd >= 0)
		rc = raw_syscall3(SYS_write, fd, (uint64_t)data, sizeof(data));
	int fired = disarm();
	if (fd < 0) {
		if (!one_of(fd, ok, 2))
			return fail("K=%ld: open(O_CREAT) returned %ld", k, fd), BAD;
		if (stat(path, &st) == 0)
			return fail("K=%ld: open failed but created the file", k), BAD;
		return fired ? FIRED : DONE;
	}
	close(fd);
	if (rc < 0 && !one_of(rc, ok, 2))
		fail("K=%ld: write returned %ld", k, rc);
	else if (stat(path, &st) < 0 || st.st_size != (rc < 0 ? 0 : rc))
		fail("K=%ld: write returned %ld but the file has %ld bytes", k, rc,
		     (long)st.st_size);
	unlink(path);
	return fired ? FIRED : DONE;
}

// mkdir: done entirely or not at all.
static enum outcome op_mkdir(long k)
{
	const char *path = scratch("d");
	struct stat st;

	arm(k);
	long rc = raw_syscall3(SYS_mkdir, (uint64_t)path, 0700, 0);
	int fired = disarm();
	int exists = stat(path, &st) == 0;
	if (rc == 0 && !exists)
		return fail("K=%ld: mkdir succeeded but there is no directory", k), BAD;
	if (rc < 0 && (rc != -ENOMEM && rc != -ENOSPC))
		return fail("K=%ld: mkdir returned %ld", k, rc), BAD;
	if (rc < 0 && exists)
		return fail("K=%ld: mkdir failed but made the directory", k), BAD;
	rmdir(path);
	return fired ? FIRED : DONE;
}

// symlink, then readlink of it.
static enum outcome op_symlink(long k)
{
	const char *path = scratch("l");
	char buf[64];
	struct stat st;

	arm(k);
	long rc = raw_syscall3(SYS_symlink, (uint64_t)"target-name", (uint64_t)path, 0);
	long rl = rc == 0 ? raw_syscall3(SYS_readlink, (uint64_t)path, (uint64_t)buf, sizeof(buf)) : 0;
	int fired = disarm();
	int exists = lstat(path, &st) == 0;
	if (rc < 0 && (rc != -ENOMEM && rc != -ENOSPC))
		return fail("K=%ld: symlink returned %ld", k, rc), BAD;
	if ((rc == 0) != exists)
		return fail("K=%ld: symlink returned %ld, link %s", k, rc, exists ? "exists" : "missing"), BAD;
	if (rc == 0 && rl != 11 && rl != -ENOMEM)
		fail("K=%ld: readlink returned %ld", k, rl);
	unlink(path);
	return fired ? FIRED : DONE;
}

// rename within a directory: the file is under exactly one of the names.
static enum outcome op_rename(long k)
{
	const char *from = scratch("a"), *to = scratch("b");
	struct stat st;
	int fd = open(from, O_CREAT | O_WRONLY, 0600);

	if (fd < 0)
		return fail("cannot create %s", from), BAD;
	close(fd);
	arm(k);
	long rc = raw_syscall3(SYS_rename, (uint64_t)from, (uint64_t)to, 0);
	int fired = disarm();
	int at_from = stat(from, &st) == 0, at_to = stat(to, &st) == 0;
	if (rc < 0 && rc != -ENOMEM)
		fail("K=%ld: rename returned %ld", k, rc);
	else if (rc == 0 ? (at_from || !at_to) : (!at_from || at_to))
		fail("K=%ld: rename returned %ld; old name %s, new name %s", k, rc,
		     at_from ? "exists" : "gone", at_to ? "exists" : "gone");
	unlink(from);
	unlink(to);
	return fired ? FIRED : DONE;
}

static enum outcome op_poll(long k)
{
	struct pollfd p[40];
	int fds[2];

	if (pipe(fds) < 0)
		return fail("pipe: errno=%d", errno), BAD;
	for (int i = 0; i < 40; i++)
		p[i] = (struct pollfd){ .fd = i % 2 ? fds[1] : fds[0], .events = POLLIN | POLLOUT };
	arm(k);
	long rc = raw_syscall3(SYS_poll, (uint64_t)p, 40, 0);
	int fired = disarm();
	close(fds[0]);
	close(fds[1]);
	if (rc != 20 && rc != -ENOMEM)
		return fail("K=%ld: poll returned %ld, want 20 or -ENOMEM", k, rc), BAD;
	return fired ? FIRED : DONE;
}

static enum outcome op_select(long k)
{
	fd_set rd, wr;
	struct timeval tv = { 0, 0 };
	int fds[2];

	if (pipe(fds) < 0)
		return fail("pipe: errno=%d", errno), BAD;
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_SET(fds[0], &rd);
	FD_SET(fds[1], &wr);
	arm(k);
	long rc = raw_syscall6(SYS_select, fds[1] + 1, (uint64_t)&rd, (uint64_t)&wr, 0,
			       (uint64_t)&tv, 0);
	int fired = disarm();
	close(fds[0]);
	close(fds[1]);
	if (rc != 1 && rc != -ENOMEM)
		return fail("K=%ld: select returned %ld, want 1 or -ENOMEM", k, rc), BAD;
	return fired ? FIRED : DONE;
}

static enum outcome op_writev(long k)
{
	struct iovec iov[8];
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0)
		return fail("open /dev/null: errno=%d", errno), BAD;
	for (int i = 0; i < 8; i++)
		iov[i] = (struct iovec){ data, 100 };
	arm(k);
	long rc = raw_syscall3(SYS_writev, fd, (uint64_t)iov, 8);
	int fired = disarm();
	close(fd);
	if (rc != 800 && rc != -ENOMEM)
		return fail("K=%ld: writev returned %ld", k, rc), BAD;
	return fired ? FIRED : DONE;
}

static enum outcome op_getdents(long k)
{
	static char buf[4096];
	int fd = open("/tests", O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return fail("open /tests: errno=%d", errno), BAD;
	arm(k);
	long rc = raw_syscall3(SYS_getdents64, fd, (uint64_t)buf, sizeof(buf));
	int fired = disarm();
	close(fd);
	if (rc <= 0 && rc != -ENOMEM)
		return fail("K=%ld: getdents64 returned %ld", k, rc), BAD;
	return fired ? FIRED : DONE;
}

// /proc: a path through computed directories, a rendered file read, a
// computed symlink read and a computed directory listed; each succeeds
// or fails with ENOMEM, and the vnodes made go again.
static enum outcome op_proc(long k)
{
	static char buf[4096];

	arm(k);
	long fd = raw_syscall3(SYS_open, (uint64_t)"/proc/thread-self/maps", O_RDONLY, 0);
	long rd = fd >= 0 ? raw_syscall3(SYS_read, fd, (uint64_t)buf, sizeof(buf)) : 1;
	long rl = raw_syscall3(SYS_readlink, (uint64_t)"/proc/self/fd/0", (uint64_t)buf, sizeof(buf));
	long dfd = raw_syscall3(SYS_open, (uint64_t)"/proc/self/fd", O_RDONLY | O_DIRECTORY, 0);
	long gd = dfd >= 0 ? raw_syscall3(SYS_getdents64, dfd, (uint64_t)buf, sizeof(buf)) : 1;
	int fired = disarm();
	if (fd >= 0)
		close((int)fd);
	if (dfd >= 0)
		close((int)dfd);
	if ((fd < 0 && fd != -ENOMEM) || (rd <= 0 && rd != -ENOMEM))
		return fail("K=%ld: open %ld, read %ld of maps", k, fd, rd), BAD;
	if (rl <= 0 && rl != -ENOMEM)
		return fail("K=%ld: readlink of fd/0 returned %ld", k, rl), BAD;
	if ((dfd < 0 && dfd != -ENOMEM) || (gd <= 0 && gd != -ENOMEM))
		return fail("K=%ld: open %ld, getdents64 %ld of fd/", k, dfd, gd), BAD;
	return fired ? FIRED : DONE;
}

// Memory faulted in by a child: it gets its pages, or dies of the
// fault (Linux: SIGKILL by the OOM killer, or SIGBUS/SIGSEGV).
static enum outcome op_touch(long k)
{
	int status;
	pid_t pid = fork_child();

	if (pid < 0)
		return BAD;
	if (pid == 0) {
		volatile char *p = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(3);
		arm(k);
		for (int i = 0; i < 16; i++)
			p[i * 4096] = 1;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return fail("K=%ld: lost the child", k), BAD;
	disarm();
	int fired = strcmp(self_state(), "fired") == 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return fired ? FIRED : DONE;
	if (WIFSIGNALED(status) && fired &&
	    (WTERMSIG(status) == SIGKILL || WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGBUS))
		return FIRED;
	return fail("K=%ld: child ended with status %#x", k, status), BAD;
}

// Shared memory faulted in by a child: a MAP_SHARED mapping of a memfd,
// whose pages are the file's (made at the first touch).
static enum outcome op_shared_touch(long k)
{
	int status;
	pid_t pid = fork_child();

	if (pid < 0)
		return BAD;
	if (pid == 0) {
		int fd = (int)syscall(SYS_memfd_create, "allocfail", 0);
		if (fd < 0 || ftruncate(fd, 16 * 4096) < 0)
			_exit(3);
		volatile char *p = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			_exit(4);
		arm(k);
		for (int i = 0; i < 16; i++)
			p[i * 4096] = 1;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return fail("K=%ld: lost the child", k), BAD;
	disarm();
	int fired = strcmp(self_state(), "fired") == 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return fired ? FIRED : DONE;
	if (WIFSIGNALED(status) && fired &&
	    (WTERMSIG(status) == SIGKILL || WTERMSIG(status) == SIGBUS))
		return FIRED;
	return fail("K=%ld: child ended with status %#x", k, status), BAD;
}

// shmget of a new segment: made, or ENOMEM with nothing left behind.
static enum outcome op_shmget(long k)
{
	long id = armed_call(k, SYS_shmget, IPC_PRIVATE, 8192, 0600, 0, 0, 0, 0);
	int hit = fired();

	if (id >= 0) {
		shmctl((int)id, IPC_RMID, NULL);
	} else if (id != -ENOMEM) {
		return fail("K=%ld: shmget returned %ld, want an id or -ENOMEM", k, id), BAD;
	} else if (!hit) {
		return fail("K=%ld: shmget failed with no failure injected", k), BAD;
	}
	return hit ? FIRED : DONE;
}

// shmat of a segment: attached (then detached), or ENOMEM, the segment
// still there with no attachment counted.
static enum outcome op_shmat(long k)
{
	struct shmid_ds ds;
	int id = shmget(IPC_PRIVATE, 8192, 0600);

	if (id < 0)
		return fail("shmget: errno=%d", errno), BAD;
	long at = armed_call(k, SYS_shmat, id, 0, 0, 0, 0, 0, 0);
	int hit = fired();
	if (at > 0 && at < 0x800000000000L) {
		shmdt((void *)at);
	} else if (at != -ENOMEM) {
		shmctl(id, IPC_RMID, NULL);
		return fail("K=%ld: shmat returned %ld, want an address or -ENOMEM", k, at), BAD;
	}
	int ok = shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 0;
	shmctl(id, IPC_RMID, NULL);
	if (!ok)
		return fail("K=%ld: the segment lost or still counted attached", k), BAD;
	return hit ? FIRED : DONE;
}

static volatile int rt_delivered;

static void count_rt(int sig)
{
	(void)sig;
	rt_delivered++;
}

// A queued real-time signal: accepted and pending, or refused with
// EAGAIN (the queue entry could not be allocated) -- never accepted and
// lost.  (Delivered through a handler: no sigtimedwait needed.)
static enum outcome op_sigqueue(long k)
{
	siginfo_t si;
	sigset_t set, pending;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = count_rt;
	sigaction(SIGRTMIN, &sa, NULL);
	rt_delivered = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &set, NULL);
	memset(&si, 0, sizeof(si));
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	arm(k);
	long rc = raw_syscall3(SYS_rt_sigqueueinfo, getpid(), SIGRTMIN, (uint64_t)&si);
	int fired = disarm();
	sigpending(&pending);
	int queued = sigismember(&pending, SIGRTMIN);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	if (queued && rt_delivered != 1)
		fail("K=%ld: the pending signal was delivered %d times", k, rt_delivered);
	if (rc == 0 && !queued)
		return fail("K=%ld: rt_sigqueueinfo returned 0 but no signal is pending", k), BAD;
	if (rc < 0 && rc != -EAGAIN)
		return fail("K=%ld: rt_sigqueueinfo returned %ld, want 0 or -EAGAIN", k, rc), BAD;
	return fired ? FIRED : DONE;
}

// A descriptor far above the others: the table has to grow (Linux gives
// ENOMEM when it cannot, EMFILE only at the descriptor limit).  In a
// child, whose grown table goes when it exits.
static enum outcome op_dup_high(long k)
{
	int status;
	pid_t pid = fork_child();

	if (pid < 0)
		return BAD;
	if (pid == 0) {
		struct stat st;
		// (The child's pages are copy-on-write: armed_call.)
		long fd = armed_call(k, SYS_fcntl, 1, F_DUPFD, 700, 0, 0, 0, 0);
		if (fd < 0 && fd != -ENOMEM)
			_exit(2);
		if (fd >= 0 && fd != 700)
			_exit(3);
		if (fd < 0 && fstat(700, &st) == 0)
			_exit(4);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return fail("K=%ld: lost the child", k), BAD;
	int fired = strcmp(self_state(), "fired") == 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return fail("K=%ld: child ended with %#x (2: F_DUPFD gave a wrong errno, 3: a "
			    "descriptor other than 700, 4: a failed call left one)", k, status), BAD;
	return fired ? FIRED : DONE;
}

// Not an allocation, but the same rule: with every descriptor taken,
// open(O_CREAT) fails with EMFILE and creates nothing (Linux takes the
// descriptor before it creates).  Runs on Linux too.
static void t_open_emfile(void)
{
	const char *path = scratch("emfile");
	struct rlimit old, low = { 16, 16 };
	struct stat st;
	int fds[16], n = 0;

	if (getrlimit(RLIMIT_NOFILE, &old) < 0 || setrlimit(RLIMIT_NOFILE, &low) < 0) {
		fail("cannot lower RLIMIT_NOFILE: errno=%d", errno);
		return;
	}
	while (n < 16 && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
		n++;
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
	int err = errno;
	while (n > 0)
		close(fds[--n]);
	setrlimit(RLIMIT_NOFILE, &old);
	if (fd >= 0) {
		close(fd);
		fail("open succeeded with no descriptor free");
	} else if (err != EMFILE) {
		fail("open failed with errno %d, want EMFILE", err);
	} else if (stat(path, &st) == 0) {
		fail("open failed with EMFILE but created the file");
	}
	unlink(path);
}

// The aio and mbind operations run in a forked child, whose address
// space (the ring's page tables, split mappings) goes with it; the child
// touches what it writes first, and says 0 (done), 1 (done or refused
// after the failure fired) or 2 and more (wrong) in its exit status.
static enum outcome child_outcome(long k, pid_t pid, const char *what)
{
	int status;

	if (pid < 0)
		return fail("fork: errno=%d", errno), BAD;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return fail("K=%ld: %s child lost or killed (%#x)", k, what, status), BAD;
	if (WEXITSTATUS(status) > 1)
		return fail("K=%ld: %s child failed check %d", k, what, WEXITSTATUS(status)), BAD;
	return WEXITSTATUS(status) ? FIRED : DONE;
}

static unsigned long aio_ctx;
static long aio_events[4 * 4];
static long aio_iocb[8], *aio_list[1];

// io_setup (a ring of 3 pages) and io_destroy: ENOMEM (or EAGAIN) and
// nothing left, or a context that works.
static enum outcome op_io_setup(long k)
{
	pid_t pid = fork();

	if (pid == 0) {
		aio_ctx = 0;
		long rc = armed_call(k, SYS_io_setup, 300, (long)&aio_ctx, 0, 0, 0, 0, 0);
		int hit = fired();
		if (rc == 0 && raw_syscall3(SYS_io_destroy, aio_ctx, 0, 0) != 0)
			_exit(2);
		if (rc != 0 && rc != -ENOMEM && rc != -EAGAIN)
			_exit(3);
		if (rc != 0 && !hit)
			_exit(4);
		_exit(hit ? 1 : 0);
	}
	return child_outcome(k, pid, "io_setup");
}

// io_submit of an IOCB_CMD_POLL that has to wait: EAGAIN (Linux's answer
// when it cannot allocate the request), or a request that io_cancel
// completes.
static enum outcome op_aio_poll(long k)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fds[2];
		aio_ctx = 0;
		if (raw_syscall3(SYS_io_setup, 4, (long)&aio_ctx, 0) != 0 || pipe(fds) < 0)
			_exit(2);
		memset(aio_iocb, 0, sizeof(aio_iocb));
		memset(aio_events, 0, sizeof(aio_events));
		((uint16_t *)aio_iocb)[8] = 5;		// aio_lio_opcode IOCB_CMD_POLL
		((uint32_t *)aio_iocb)[5] = (uint32_t)fds[0];	// aio_fildes
		aio_iocb[3] = POLLIN;				// aio_buf: the events
		aio_list[0] = aio_iocb;
		long rc = armed_call(k, SYS_io_submit, (long)aio_ctx, 1, (long)aio_list, 0, 0, 0, 0);
		int hit = fired();
		if (rc != 1 && rc != -EAGAIN)
			_exit(3);
		if (rc == -EAGAIN && !hit)
			_exit(4);
		if (rc == 1 && raw_syscall3(SYS_io_cancel, (long)aio_ctx, (long)aio_iocb,
					    (long)aio_events) != -EINPROGRESS)
			_exit(5);
		if (rc == 1 && syscall(SYS_io_getevents, aio_ctx, 1, 1, aio_events, NULL) != 1)
			_exit(6);
		_exit(hit ? 1 : 0);
	}
	return child_outcome(k, pid, "aio poll");
}

// mbind of the middle page of three (two splits): ENOMEM with the policy
// unchanged, or the policy there alone.
static enum outcome op_mbind(long k)
{
	pid_t pid = fork();

	if (pid == 0) {
		static unsigned long node0 = 1;
		static int mode;
		char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(2);
		mode = -1;
		long rc = armed_call(k, SYS_mbind, (long)(p + 4096), 4096, 2, (long)&node0, 2, 0, 0);
		int hit = fired();
		if (rc != 0 && (rc != -ENOMEM || !hit))
			_exit(3);
		if (syscall(SYS_get_mempolicy, &mode, NULL, 0, p + 4096, 2) != 0)
			_exit(4);
		if (mode != (rc == 0 ? 2 : 0))
			_exit(5);
		if (syscall(SYS_get_mempolicy, &mode, NULL, 0, p, 2) != 0 || mode != 0)
			_exit(6);
		_exit(hit ? 1 : 0);
	}
	return child_outcome(k, pid, "mbind");
}

// Sockets: a pair, a message carrying a descriptor, a connection.
static enum outcome op_socketpair(long k)
{
	static const int ok[] = { ENOMEM, ENFILE };
	int fds[2];

	arm(k);
	long rc = raw_syscall6(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, (uint64_t)fds, 0, 0);
	int fired = disarm();
	if (rc == 0) {
		char c = 'x';
		if (write(fds[0], &c, 1) != 1 || read(fds[1], &c, 1) != 1)
			fail("K=%ld: the pair made does not work", k);
		close(fds[0]);
		close(fds[1]);
	} else if (!one_of(rc, ok, 2)) {
		return fail("K=%ld: socketpair returned %ld", k, rc), BAD;
	}
	return fired ? FIRED : DONE;
}

static enum outcome op_send_fd(long k)
{
	static const int ok[] = { ENOMEM, ENOBUFS };
	char ctl[CMSG_SPACE(sizeof(int))], c = 'm';
	struct iovec iov = { &c, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			     .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm;
	int sv[2], p[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0 || pipe(p) < 0)
		return fail("setup: errno=%d", errno), BAD;
	memset(ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &p[0], sizeof(int));
	arm(k);
	long rc = raw_syscall3(SYS_sendmsg, sv[0], (uint64_t)&mh, 0);
	int fired = disarm();
	if (rc == 1) {
		memset(ctl, 0, sizeof(ctl));
		mh.msg_controllen = sizeof(ctl);
		if (recvmsg(sv[1], &mh, 0) != 1 || !CMSG_FIRSTHDR(&mh))
			fail("K=%ld: the message came without its descriptor", k);
		else
			close(*(int *)CMSG_DATA(CMSG_FIRSTHDR(&mh)));
	} else if (!one_of(rc, ok, 2)) {
		fail("K=%ld: sendmsg returned %ld", k, rc);
	}
	close(sv[0]);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
	return fail_why[0] ? BAD : fired ? FIRED : DONE;
}

static enum outcome op_connect(long k)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	socklen_t la = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
				   (size_t)snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "allocfail-%d", (int)getpid()));
	int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0), x;

	if (l < 0 || c < 0 || bind(l, (struct sockaddr *)&a, la) < 0 || listen(l, 4) < 0)
		return fail("setup: errno=%d", errno), BAD;
	arm(k);
	long rc = raw_syscall3(SYS_connect, c, (uint64_t)&a, la);
	int fired = disarm();
	if (rc == 0) {
		x = accept(l, NULL, NULL);
		char ch = 'q';
		if (x < 0 || write(c, &ch, 1) != 1 || read(x, &ch, 1) != 1)
			fail("K=%ld: the connection does not work", k);
		if (x >= 0)
			close(x);
	} else if (rc != -ENOMEM) {
		fail("K=%ld: connect returned %ld", k, rc);
	}
	close(c);
	close(l);
	return fail_why[0] ? BAD : fired ? FIRED : DONE;
}

// ---- the sweep ----

// Runs op for K = 0, 1, ... and checks the memory after each; stops at
// the first K the operation does not reach (or the first problem).
// 'prepare', if any, runs before each snapshot.
static void sweep_prepared(enum outcome (*op)(long), int (*prepare)(void))
{
	static struct memstat base, now;
	static char why[1024];

	if (ctl < 0) {
		skip("no /proc/switchyard/fail_alloc (not Switchyard)");
		return;
	}
	// A first comparison touches every buffer the later ones use.
	if (memstat_read(&base) == 0)
		memstat_settle(&base, &now, 0, why, sizeof(why));
	for (long k = 0; k < MAX_K; k++) {
		if (prepare && prepare() < 0)
			return;
		// The case before, or K - 1, may still be freeing (a thread's
		// kernel stack goes after its join returns): start from quiet.
		if (memstat_read_quiet(&base, &now) < 0) {
			fail("cannot read %s", MEMSTAT_PATH);
			return;
		}
		enum outcome out = op(k);
		if (out == BAD || fail_why[0])
			return;
		if (memstat_settle(&base, &now, 5, why, sizeof(why)) != 0) {
			fail("K=%ld: memory not back: %s", k, why);
			return;
		}
		if (out == DONE)
			return;
	}
	fail("still failing after %d allocations", MAX_K);
}

static void sweep(enum outcome (*op)(long))
{
	sweep_prepared(op, NULL);
}

static void t_fork(void) { sweep(op_fork); }
static void t_vfork(void) { sweep(op_vfork); }
static void t_thread(void) { sweep(op_thread); }
static void t_thread_new_kstack(void)
{
	sweep_prepared(op_thread, take_cached_stacks);
	release_sleepers();
}
static void t_execve(void) { sweep(op_execve); }
static void t_pipe(void) { sweep(op_pipe); }
static void t_file_write(void) { sweep(op_file_write); }
static void t_mkdir(void) { sweep(op_mkdir); }
static void t_symlink(void) { sweep(op_symlink); }
static void t_rename(void) { sweep(op_rename); }
static void t_poll(void) { sweep(op_poll); }
static void t_select(void) { sweep(op_select); }
static void t_writev(void) { sweep(op_writev); }
static void t_getdents(void) { sweep(op_getdents); }
static void t_proc(void) { sweep(op_proc); }
static void t_touch(void) { sweep(op_touch); }
static void t_shared_touch(void) { sweep(op_shared_touch); }
static void t_shmget(void) { sweep(op_shmget); }
static void t_shmat(void) { sweep(op_shmat); }
static void t_sigqueue(void) { sweep(op_sigqueue); }
static void t_dup_high(void) { sweep(op_dup_high); }
static void t_io_setup(void) { sweep(op_io_setup); }
static void t_aio_poll(void) { sweep(op_aio_poll); }
static void t_mbind(void) { sweep(op_mbind); }
static void t_socketpair(void) { sweep(op_socketpair); }
static void t_send_fd(void) { sweep(op_send_fd); }
static void t_connect(void) { sweep(op_connect); }

static const struct test_case cases[] = {
	{ "fork_fails_cleanly", t_fork },
	{ "vfork_fails_cleanly", t_vfork },
	{ "thread_create_fails_cleanly", t_thread },
	{ "thread_with_new_kernel_stack_fails_cleanly", t_thread_new_kstack },
	{ "execve_fails_cleanly", t_execve },
	{ "pipe_fails_cleanly", t_pipe },
	{ "file_create_and_write_fail_cleanly", t_file_write },
	{ "mkdir_all_or_nothing", t_mkdir },
	{ "symlink_readlink_fail_cleanly", t_symlink },
	{ "rename_all_or_nothing", t_rename },
	{ "poll_fails_cleanly", t_poll },
	{ "select_fails_cleanly", t_select },
	{ "writev_fails_cleanly", t_writev },
	{ "getdents_fails_cleanly", t_getdents },
	{ "proc_lookup_and_read_fail_cleanly", t_proc },
	{ "page_fault_out_of_memory", t_touch },
	{ "shared_file_fault_out_of_memory", t_shared_touch },
	{ "shmget_fails_cleanly", t_shmget },
	{ "shmat_fails_cleanly", t_shmat },
	{ "rt_signal_queued_or_eagain", t_sigqueue },
	{ "descriptor_table_growth_fails_cleanly", t_dup_high },
	{ "open_creat_emfile_creates_nothing", t_open_emfile },
	{ "io_setup_fails_cleanly", t_io_setup },
	{ "aio_poll_request_fails_cleanly", t_aio_poll },
	{ "mbind_split_fails_cleanly", t_mbind },
	{ "socketpair_fails_cleanly", t_socketpair },
	{ "sendmsg_with_a_descriptor_fails_cleanly", t_send_fd },
	{ "connect_fails_cleanly", t_connect },
};

int main(void)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/allocfail-%d", (int)getpid());
	mkdir(scratch_dir, 0700);
	memstat_touch_image(128 * 1024);
	memset(data, 'd', sizeof(data));
	for (int i = 0; i < 4; i++)
		memset((char *)scratch(""), 0, PATH_MAX);	// the ring of path buffers
	ctl = open("/proc/switchyard/fail_alloc", O_RDWR);
	if (ctl >= 0)
		self_state();		// its buffer is touched, too
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
