// process_vm_readv and process_vm_writev: reading and writing a forked
// child's copy of a buffer (same address, different memory), scatter and
// gather over several segments on both sides, a remote range running
// into an unmapped page (the bytes before it; EFAULT when it starts
// there), a read-only remote page refused for writing, the caller
// itself, and Linux's order of checks: flags and counts EINVAL, nothing
// to move is 0 before the process is looked up, ESRCH, and EPERM for a
// process of another user.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"

static char buf[8192];
static int go[2], ready[2];

static long vm_readv(pid_t pid, const struct iovec *l, unsigned long ln,
		     const struct iovec *r, unsigned long rn, unsigned long flags)
{
	return syscall(SYS_process_vm_readv, pid, l, ln, r, rn, flags);
}

static long vm_writev(pid_t pid, const struct iovec *l, unsigned long ln,
		      const struct iovec *r, unsigned long rn, unsigned long flags)
{
	return syscall(SYS_process_vm_writev, pid, l, ln, r, rn, flags);
}

// A child whose buf holds 'fill' bytes, waiting until told to check it:
// it exits 0 if buf then starts with 'want' (or want is 0).
static pid_t start_child(char fill, const char *want)
{
	char c;

	if (pipe(go) < 0 || pipe(ready) < 0) {
		fail("pipe: errno=%d", errno);
		return -1;
	}
	pid_t pid = fork_child();
	if (pid == 0) {
		memset(buf, fill, sizeof(buf));
		close(go[1]);
		close(ready[0]);
		write(ready[1], "r", 1);
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		_exit(!want || !memcmp(buf, want, strlen(want)) ? 0 : 1);
	}
	close(go[0]);
	close(ready[1]);
	if (pid > 0 && read(ready[0], &c, 1) != 1)
		fail("child not ready");
	return pid;
}

static void finish_child(pid_t pid, const char *what)
{
	write(go[1], "g", 1);
	close(go[1]);
	close(ready[0]);
	if (pid > 0)
		check_child_ok(pid, what);
}

static void t_read_child(void)
{
	char local[64];
	memset(buf, 'p', sizeof(buf));
	pid_t pid = start_child('c', 0);
	struct iovec l = { local, sizeof(local) }, r = { buf + 100, sizeof(local) };

	if (pid < 0)
		return;
	memset(local, 0, sizeof(local));
	if (check_ok(vm_readv(pid, &l, 1, &r, 1, 0) == sizeof(local) ? 0 : -1, "read 64 bytes")) {
		char want[64];
		memset(want, 'c', sizeof(want));
		check(!memcmp(local, want, sizeof(want)), "the child's bytes, not ours");
	}
	finish_child(pid, "child");
}

static void t_write_child(void)
{
	pid_t pid = start_child('c', "hello, child");
	struct iovec l = { (void *)"hello, child", 12 }, r = { buf, 12 };

	if (pid < 0)
		return;
	check(vm_writev(pid, &l, 1, &r, 1, 0) == 12, "wrote 12 bytes");
	check(buf[0] != 'h', "our own buffer is untouched");
	finish_child(pid, "child saw the bytes");
}

static void t_scatter_gather(void)
{
	pid_t pid = start_child('c', "abcdefgh");
	char a[3] = "abc", b[5] = "defgh";
	struct iovec l[2] = { { a, 3 }, { b, 5 } };
	// The remote side in three pieces, one of them empty.
	struct iovec r[3] = { { buf, 2 }, { buf + 2, 0 }, { buf + 2, 6 } };

	if (pid < 0)
		return;
	check(vm_writev(pid, l, 2, r, 3, 0) == 8, "8 bytes over 2 local and 3 remote segments");
	char back[8];
	struct iovec lb[2] = { { back, 4 }, { back + 4, 4 } };
	struct iovec rb = { buf, 8 };
	check(vm_readv(pid, lb, 2, &rb, 1, 0) == 8 && !memcmp(back, "abcdefgh", 8), "read back");
	finish_child(pid, "child");
}

static void t_unmapped_remote(void)
{
	char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char local[64];

	if (m == MAP_FAILED) {
		fail("mmap");
		return;
	}
	memset(m, 'm', 8192);
	munmap(m + 4096, 4096);
	pid_t pid = start_child('c', 0);
	if (pid < 0)
		return;
	struct iovec l = { local, 64 }, r = { m + 4096 - 16, 64 };
	check(vm_readv(pid, &l, 1, &r, 1, 0) == 16, "the 16 bytes before the hole");
	r.iov_base = m + 4096;
	check_errno(vm_readv(pid, &l, 1, &r, 1, 0), EFAULT, "starting in the hole");
	// Two remote segments, the second bad: the first one's bytes.
	struct iovec r2[2] = { { m, 8 }, { m + 4096, 8 } };
	check(vm_readv(pid, &l, 1, r2, 2, 0) == 8, "the good segment's bytes");
	finish_child(pid, "child");
	munmap(m, 4096);
}

static void t_readonly_remote(void)
{
	char *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char local[8] = "xxxxxxx";

	if (m == MAP_FAILED) {
		fail("mmap");
		return;
	}
	pid_t pid = start_child('c', 0);
	if (pid < 0)
		return;
	struct iovec l = { local, 8 }, r = { m, 8 };
	check_errno(vm_writev(pid, &l, 1, &r, 1, 0), EFAULT, "writing a read-only page");
	check(vm_readv(pid, &l, 1, &r, 1, 0) == 8 && local[0] == 0, "reading it gives zeros");
	finish_child(pid, "child");
	munmap(m, 4096);
}

static void t_self(void)
{
	char src[16] = "from myself", dst[16] = { 0 };
	struct iovec l = { dst, sizeof(dst) }, r = { src, sizeof(src) };

	check(vm_readv(getpid(), &l, 1, &r, 1, 0) == sizeof(src) && !strcmp(dst, "from myself"),
	      "reading the caller's own memory");
}

static void t_errors(void)
{
	char local[8];
	struct iovec l = { local, 8 }, r = { buf, 8 }, empty = { local, 0 };

	check_errno(vm_readv(getpid(), &l, 1, &r, 1, 1), EINVAL, "flags");
	check_errno(vm_readv(getpid(), &l, 1025, &r, 1, 0), EINVAL, "1025 local segments");
	check_errno(vm_readv(getpid(), &l, 1, &r, 1025, 0), EINVAL, "1025 remote segments");
	check_errno(vm_readv(getpid(), (void *)8, 1, &r, 1, 0), EFAULT, "local array unreadable");
	check_errno(vm_readv(getpid(), &l, 1, (void *)8, 1, 0), EFAULT, "remote array unreadable");
	struct iovec neg = { buf, (size_t)-1 };
	check_errno(vm_readv(getpid(), &l, 1, &neg, 1, 0), EINVAL, "negative remote length");
	check(vm_readv(0x7ffffff0, &empty, 1, &r, 1, 0) == 0, "nothing to move: 0 before ESRCH");
	check(vm_readv(0x7ffffff0, &l, 1, &r, 0, 0) == 0, "no remote segment: 0");
	check_errno(vm_readv(0x7ffffff0, &l, 1, &r, 1, 0), ESRCH, "no such process");
	check_errno(vm_readv(-1, &l, 1, &r, 1, 0), ESRCH, "pid -1");
}

static int c_other_user(void)
{
	char local[8];
	struct iovec l = { local, 8 }, r = { buf, 8 };
	pid_t parent = getppid();

	if (drop_to(U1, G1, 0, 0))
		return 1;
	return c_err(vm_readv(parent, &l, 1, &r, 1, 0), EPERM, "read root's process") |
	       c_err(vm_writev(parent, &l, 1, &r, 1, 0), EPERM, "write root's process");
}

static void t_other_user(void)
{
	if (geteuid() != 0) {
		skip("needs root");
		return;
	}
	in_child(c_other_user, "other user");
}

static const struct test_case cases[] = {
	{ "read_a_child", t_read_child },
	{ "write_a_child", t_write_child },
	{ "scatter_gather", t_scatter_gather },
	{ "unmapped_remote_page", t_unmapped_remote },
	{ "readonly_remote_page", t_readonly_remote },
	{ "the_caller_itself", t_self },
	{ "errors_in_linux_order", t_errors },
	{ "another_users_process_eperm", t_other_user },
};

int main(void)
{
	privdrop_init();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
