// Robustness: children call an allow-list of syscalls with random and
// hostile arguments (NULL, kernel, unmapped and non-canonical pointers,
// read-only buffers, huge lengths, negative numbers).  The kernel must
// survive every call: each child ends (normally, by a signal, or by its
// alarm) and the system keeps working.  Paths are short random names in a
// scratch directory, so nothing outside it is touched.
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ktap.h"

#define CHILDREN	12	// default; "fuzz CHILDREN CALLS" for longer runs
#define CALLS		1500

static int calls = CALLS;

// Syscalls that cannot harm anything outside the child and its scratch
// directory, whatever their arguments (none takes another process's ID:
// random PIDs must not reach other processes).  Calls that mostly just
// sleep (nanosleep, futex, poll, select) are left out so each child gets
// further; they have their own tests.
static const int allowed[] = {
	SYS_read, SYS_write, SYS_open, SYS_close, SYS_stat, SYS_fstat, SYS_lstat, SYS_poll,
	SYS_lseek, SYS_mmap, SYS_mprotect, SYS_munmap, SYS_brk, SYS_rt_sigaction,
	SYS_rt_sigprocmask, SYS_ioctl, SYS_pread64, SYS_pwrite64, SYS_readv, SYS_writev,
	SYS_access, SYS_pipe, SYS_sched_yield, SYS_mremap, SYS_msync, SYS_madvise,
	SYS_dup, SYS_dup2, SYS_getitimer, SYS_alarm, SYS_setitimer, SYS_getpid,
	SYS_sendfile, SYS_uname, SYS_fcntl, SYS_fsync, SYS_truncate, SYS_ftruncate,
	SYS_getdents64, SYS_getcwd, SYS_chdir, SYS_rename, SYS_mkdir, SYS_rmdir, SYS_creat,
	SYS_link, SYS_unlink, SYS_symlink, SYS_readlink, SYS_chmod, SYS_umask, SYS_gettimeofday,
	SYS_getrlimit, SYS_getrusage, SYS_sysinfo, SYS_times, SYS_getuid, SYS_getgid,
	SYS_geteuid, SYS_getegid, SYS_getppid, SYS_getpgrp, SYS_rt_sigpending,
	SYS_sigaltstack, SYS_statfs, SYS_fstatfs, SYS_sched_getaffinity,
	SYS_sched_getscheduler, SYS_sched_get_priority_max,
	SYS_gettid, SYS_time, SYS_set_tid_address, SYS_clock_gettime,
	SYS_clock_getres, SYS_openat, SYS_mkdirat, SYS_newfstatat,
	SYS_unlinkat, SYS_renameat, SYS_readlinkat, SYS_faccessat,
	SYS_set_robust_list, SYS_get_robust_list, SYS_dup3, SYS_pipe2, SYS_preadv,
	SYS_pwritev, SYS_getrandom, SYS_getcpu, SYS_arch_prctl, SYS_wait4,
	SYS_waitid, SYS_statx,
};

static uint64_t rng;

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st; (void)type; (void)ftw;
	remove(path);
	return 0;
}

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static char *scratch_buf;	// read-write page
static char *ro_page;		// read-only page

// A random short name inside the scratch directory.
static uint64_t random_name(void)
{
	char *p = scratch_buf + 3072 + (rnd() % 4) * 32;
	int n = 1 + rnd() % 6;

	for (int i = 0; i < n; i++)
		p[i] = 'a' + rnd() % 4;
	p[n] = 0;
	return (uint64_t)p;
}

static uint64_t hostile_arg(int i)
{
	switch (rnd() % 14) {
	case 0: return 0;
	case 1: return 0xffffffff80000000ULL;		// kernel
	case 2: return 0x0000800000000000ULL;		// non-canonical
	case 3: return 0x8000000000000000ULL;
	case 4: return 0x1000;				// unmapped, low
	case 5: return (uint64_t)ro_page;		// read-only
	case 6: return (uint64_t)scratch_buf + rnd() % 2048;
	case 7: return random_name();
	case 8: return rnd();
	case 9: return (uint64_t)-(int64_t)(rnd() % 64);	// negative
	case 10: return rnd() % 16;			// small: fds, flags
	case 11: return 1ULL << (rnd() % 64);
	case 12: return (uint64_t)ro_page + 4096 - 1;	// straddles the end
	default: return i == 2 ? rnd() % 8192 : rnd() % 256;	// lengths
	}
}

static void child(uint64_t seed)
{
	rng = seed | 1;
	alarm(4);
	// Nothing random reaches the console.
	int null = open("/dev/null", O_RDWR);
	dup2(null, 0);
	dup2(null, 1);
	dup2(null, 2);
	scratch_buf = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro_page = mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (int i = 0; i < calls; i++) {
		int nr = allowed[rnd() % (sizeof(allowed) / sizeof(allowed[0]))];
		uint64_t a[6];
		for (int j = 0; j < 6; j++)
			a[j] = hostile_arg(j);
		// Keep our own code and stack mapped, and the console quiet.
		if ((nr == SYS_munmap || nr == SYS_mprotect || nr == SYS_mremap || nr == SYS_madvise) &&
		    a[0] != (uint64_t)scratch_buf && a[0] != (uint64_t)ro_page)
			continue;
		if (nr == SYS_brk || nr == SYS_arch_prctl)
			continue;	// moving the heap or TLS under libc is not the kernel's problem
		if (nr == SYS_chdir)
			continue;	// stay inside the scratch directory
		syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	char dir[64];
	int ended = 0, signalled = 0;
	int children = argc > 1 ? atoi(argv[1]) : CHILDREN;

	if (argc > 2)
		calls = atoi(argv[2]);
	alarm(argc > 1 ? 0 : 120);
	ktap_plan(2);
	snprintf(dir, sizeof(dir), "/tmp/fuzz.%d", (int)getpid());
	mkdir(dir, 0700);
	if (chdir(dir) < 0) {
		ktap_result(0, "children_survive_hostile_syscalls # cannot enter %s", dir);
		ktap_result(0, "system_works_afterwards");
		return ktap_finish();
	}
	for (int c = 0; c < children; c++) {
		pid_t pid = fork();
		if (pid == 0)
			child(0x9e3779b97f4a7c15ULL * (uint64_t)(c + 1));
		if (pid < 0)
			continue;
		// The child may have blocked or ignored its alarm: after a few
		// seconds it is killed (a sleep it asked for is not a hang).
		int status = 0;
		pid_t got = 0;
		for (int waited = 0; got == 0 && waited < 150; waited++) {
			got = waitpid(pid, &status, WNOHANG);
			if (got == 0)
				usleep(10000);
		}
		if (got == 0) {
			kill(pid, SIGKILL);
			got = waitpid(pid, &status, 0);
		}
		if (got == pid) {
			ended++;
			if (WIFSIGNALED(status))
				signalled++;
		}
	}
	ktap_diag("%d children ended (%d by a signal)", ended, signalled);
	ktap_result(ended == children, "children_survive_hostile_syscalls");

	// The kernel still forks, pipes and execs.
	int p[2];
	char byte = 0;
	int ok = pipe(p) == 0;
	pid_t pid = ok ? fork() : -1;
	if (pid == 0) {
		write(p[1], "k", 1);
		_exit(0);
	}
	ok = ok && pid > 0 && read(p[0], &byte, 1) == 1 && byte == 'k';
	int status;
	ok = ok && waitpid(pid, &status, 0) == pid && WIFEXITED(status);
	ktap_result(ok, "system_works_afterwards");
	if (chdir("/") == 0)
		nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return ktap_finish();
}
