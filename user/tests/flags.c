// flags: every system call refuses what it cannot do exactly as Linux does.
//
// One table row per call and argument: the errno Switchyard returns for a
// flag, mode, command or option it does not support (or that Linux itself
// rejects), and what Linux does with the same call.  Where Linux supports
// what Switchyard refuses, the row checks Switchyard's documented errno
// only on Switchyard (detected through uname's version string) and on
// Linux checks that the call succeeds, so the same binary passes on both.
// docs/syscalls.md lists the same answers per syscall.
//
// After the table come the cases that need more than one call: the record
// locks of two processes, pipe sizes, signal flags read back, the stop
// signals, resource limits, and the supported flags still doing their job.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#ifdef __GLIBC__
#include <sys/rseq.h>
#endif
#include <sys/time.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"

// Linux ABI values that libc headers may lack.
#define X_RENAME_NOREPLACE	1
#define X_RENAME_EXCHANGE	2
#define X_RENAME_WHITEOUT	4
#define X_MADV_POPULATE_READ	22
#define X_MADV_DONTNEED_LOCKED	24
#define X_CLONE_CLEAR_SIGHAND	(1ULL << 32)
#define X_CLOSE_RANGE_UNSHARE	2
#define X_PROT_SEM		0x8
#define X_STATX_RESERVED	0x80000000u
#define X_STATX_BASIC_STATS	0x7ffu
#define X_AT_STATX_DONT_SYNC	0x4000
#define X_SA_UNSUPPORTED	0x400
#define X_FUTEX_WAIT		0
#define X_FUTEX_LOCK_PI		6
#define X_FUTEX_UNLOCK_PI	7
#define X_FUTEX_CLOCK_REALTIME	256
#define X_ARCH_UNKNOWN		0x1fff
#ifndef SS_AUTODISARM
#define SS_AUTODISARM		(1U << 31)
#endif

enum { PAGE = 4096 };

static bool on_switchyard;

// ---- helpers ---------------------------------------------------------------------------------

// A new descriptor of the scratch file (one page of data), read-write.
static int file_fd(void)
{
	return open(scratch("file"), O_RDWR);
}

// Runs 'fn' in a child and returns what it returned there: 0, or -1 with
// the child's errno.  For calls that must not change the test process
// (limits, identities) even where Linux lets them succeed.
static long in_child(long (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		alarm(CHILD_TIMEOUT);
		errno = 0;
		if (fn() >= 0)
			_exit(0);
		_exit(errno > 0 && errno < 255 ? errno : 255);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		errno = ECHILD;
		return -1;
	}
	if (WEXITSTATUS(status) == 0)
		return 0;
	errno = WEXITSTATUS(status);
	return -1;
}

// clone() whose child, process or thread, only calls exit(0).  The child
// runs on the caller's stack (no new stack is given), so it must not touch
// memory: it is two instructions and a system call.
static long clone_and_exit(unsigned long flags)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = 0;	// child_tid
	register long r8 __asm__("r8") = 0;	// tls
	long rc;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "mov $60, %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n"
			 "1:"
			 : "=a"(rc)
			 : "0"((long)SYS_clone), "D"(flags), "S"(0L), "d"(0L), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
#elif defined(__powerpc64__)
	// sc: the number in r0, clone(flags, stack, parent_tid, tls,
	// child_tid) in r3-r7; the result in r3, an errno when cr0.SO is set.
	register long r0 __asm__("r0") = SYS_clone;
	register long r3 __asm__("r3") = (long)flags;
	register long r4 __asm__("r4") = 0, r5 __asm__("r5") = 0;
	register long r6 __asm__("r6") = 0, r7 __asm__("r7") = 0;
	long rc;

	__asm__ volatile("sc\n\t"
			 "bns+ 1f\n\t"
			 "neg 3, 3\n\t"
			 "b 2f\n"
			 "1:\tcmpdi 3, 0\n\t"
			 "bne 2f\n\t"
			 "li 0, %[nr_exit]\n\t"	// the child: exit(0), r3 is 0
			 "sc\n"
			 "2:"
			 : "+r"(r0), "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6), "+r"(r7)
			 : [nr_exit] "i"(SYS_exit)
			 : "r8", "r9", "r10", "r11", "r12", "cr0", "ctr", "xer", "memory");
	rc = r3;
#endif
	if (rc < 0) {
		errno = (int)-rc;
		return -1;
	}
	return rc;
}

// Reaps a process made by clone_and_exit (threads need nothing).
static long clone_process(unsigned long flags)
{
	long rc = clone_and_exit(flags);

	if (rc > 0)
		waitpid((pid_t)rc, NULL, __WALL);
	return rc < 0 ? -1 : 0;
}

static long thread_and_exit(unsigned long flags)
{
	long rc = clone_and_exit(flags);

	if (rc > 0)
		usleep(10000);		// let it go before the next case
	return rc < 0 ? -1 : 0;
}

static long mmap_rc(void *p)
{
	return p == MAP_FAILED ? -1 : 0;
}

// An anonymous private page to advise, protect and remap; the previous
// one is unmapped first so the rows do not accumulate mappings.
static char *one_page(void)
{
	static char *page;

	if (page)
		munmap(page, PAGE);
	page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return page == MAP_FAILED ? NULL : page;
}

// ---- the rows: fcntl, pipes, descriptors, ioctl -------------------------------------------------

static long lock_cmd(int cmd, int type)
{
	struct flock fl = { .l_type = (short)type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
	int fd = file_fd();
	long rc = fcntl(fd, cmd, &fl);
	int e = errno;

	close(fd);
	errno = e;
	return rc;
}

static long r_setlk(void) { return lock_cmd(F_SETLK, F_WRLCK); }
static long r_setlkw(void) { return lock_cmd(F_SETLKW, F_RDLCK); }
static long r_getlk(void) { return lock_cmd(F_GETLK, F_WRLCK); }
static long r_ofd_setlk(void) { return lock_cmd(F_OFD_SETLK, F_WRLCK); }
static long r_ofd_setlkw(void) { return lock_cmd(F_OFD_SETLKW, F_WRLCK); }
static long r_ofd_getlk(void) { return lock_cmd(F_OFD_GETLK, F_WRLCK); }

static long r_getlk_efault(void)
{
	int fd = file_fd();
	long rc = fcntl(fd, F_GETLK, (void *)8);
	int e = errno;

	close(fd);
	errno = e;
	return rc;
}

static long r_setlease(void)
{
	int fd = open(scratch("file"), O_RDONLY);
	long rc = fcntl(fd, F_SETLEASE, F_RDLCK);
	int e = errno;

	fcntl(fd, F_SETLEASE, F_UNLCK);
	close(fd);
	errno = e;
	return rc;
}

static long r_getlease(void)
{
	int fd = file_fd();
	long rc = fcntl(fd, F_GETLEASE);

	close(fd);
	if (rc != F_UNLCK && rc >= 0) {
		errno = ERANGE;		// not "no lease"
		return -1;
	}
	return rc;
}

static long fcntl_pipe(int cmd, long arg)
{
	int p[2];
	long rc;
	int e;

	if (pipe(p) < 0)
		return -1;
	rc = fcntl(p[0], cmd, arg);
	e = errno;
	close(p[0]);
	close(p[1]);
	errno = e;
	return rc;
}

static long r_setown_pid(void) { return fcntl_pipe(F_SETOWN, getpid()); }
static long r_setown_zero(void) { return fcntl_pipe(F_SETOWN, 0); }
static long r_getown(void) { return fcntl_pipe(F_GETOWN, 0); }
static long r_setsig(void) { return fcntl_pipe(F_SETSIG, SIGIO); }
static long r_unknown_cmd(void) { return fcntl_pipe(9999, 0); }
static long r_pipe_odirect_setfl(void) { return fcntl_pipe(F_SETFL, O_DIRECT); }
static long r_pipe_sz_huge(void) { return fcntl_pipe(F_SETPIPE_SZ, (1L << 31) + 1); }
// As a user without CAP_SYS_RESOURCE (root may go past pipe-max-size).
static long c_pipe_sz_over_max(void)
{
	if (setuid(65534) < 0)
		return -1;
	return fcntl_pipe(F_SETPIPE_SZ, 2L << 20);
}
static long r_pipe_sz_over_max(void) { return in_child(c_pipe_sz_over_max); }

static long r_setown_ex(void)
{
	struct f_owner_ex o = { F_OWNER_PID, getpid() };
	int p[2];
	long rc;
	int e;

	if (pipe(p) < 0)
		return -1;
	rc = fcntl(p[0], F_SETOWN_EX, &o);
	e = errno;
	close(p[0]);
	close(p[1]);
	errno = e;
	return rc;
}

static long fcntl_file(int cmd, long arg)
{
	int fd = file_fd();
	long rc = fcntl(fd, cmd, arg);
	int e = errno;

	close(fd);
	errno = e;
	return rc;
}

static long r_add_seals(void) { return fcntl_file(F_ADD_SEALS, F_SEAL_WRITE); }
static long r_pipe_sz_file(void) { return fcntl_file(F_SETPIPE_SZ, 4096); }
static long r_file_odirect_setfl(void) { return fcntl_file(F_SETFL, O_DIRECT); }

static long r_devnull_odirect_setfl(void)
{
	int fd = open("/dev/null", O_WRONLY);
	long rc = fcntl(fd, F_SETFL, O_DIRECT);
	int e = errno;

	close(fd);
	errno = e;
	return rc;
}

static long pipe2_flags(int flags)
{
	int p[2];
	long rc = syscall(SYS_pipe2, p, (long)flags);

	if (rc == 0) {
		close(p[0]);
		close(p[1]);
	}
	return rc;
}

static long r_pipe2_odirect(void) { return pipe2_flags(O_DIRECT); }
static long r_pipe2_append(void) { return pipe2_flags(O_APPEND); }
static long r_pipe2_ok(void) { return pipe2_flags(O_CLOEXEC | O_NONBLOCK); }

static long r_close_range_unshare(void)
{
	return syscall(SYS_close_range, 1000L, 1000L, (long)X_CLOSE_RANGE_UNSHARE);
}

static long r_close_range_unknown(void)
{
	return syscall(SYS_close_range, 1000L, 1000L, 8L);
}

static long r_dup3_flags(void)
{
	return syscall(SYS_dup3, 0L, 100L, (long)O_NONBLOCK);
}

static long r_fioasync_file(void)
{
	int on = 1, fd = file_fd();
	long rc = ioctl(fd, FIOASYNC, &on);
	int e = errno;

	close(fd);
	errno = e;
	return rc;
}

static long r_ioctl_unknown(void)
{
	int p[2];
	long rc;
	int e;

	if (pipe(p) < 0)
		return -1;
	rc = ioctl(p[0], 0x7f42, 0);
	e = errno;
	close(p[0]);
	close(p[1]);
	errno = e;
	return rc;
}

static long sync_pipe(long nr)
{
	int p[2];
	long rc;
	int e;

	if (pipe(p) < 0)
		return -1;
	rc = syscall(nr, (long)p[1]);
	e = errno;
	close(p[0]);
	close(p[1]);
	errno = e;
	return rc;
}

static long r_fsync_pipe(void) { return sync_pipe(SYS_fsync); }
static long r_fdatasync_pipe(void) { return sync_pipe(SYS_fdatasync); }
static long r_syncfs_pipe(void) { return sync_pipe(SYS_syncfs); }

static long file_call4(long nr, long a, long b, long c)
{
	int fd = file_fd();
	long rc = syscall(nr, (long)fd, a, b, c);
	int e = errno;

	close(fd);
	errno = e;
	return rc;
}

static long r_fadvise_neg_len(void) { return file_call4(SYS_fadvise64, 0, -1, POSIX_FADV_NORMAL); }
static long r_fadvise_bad(void) { return file_call4(SYS_fadvise64, 0, 0, 77); }
static long r_fadvise_ok(void) { return file_call4(SYS_fadvise64, 0, 0, POSIX_FADV_WILLNEED); }
// Landlock: not enabled (EOPNOTSUPP first, whatever the arguments); a
// Linux host with it enabled answers the version query.
static long r_landlock_version(void) { return syscall(SYS_landlock_create_ruleset, 0, 0, 1); }
static long r_landlock_add(void) { return syscall(SYS_landlock_add_rule, -1, 1, 0, 0); }
static long r_landlock_restrict(void) { return syscall(SYS_landlock_restrict_self, -1, 0); }

static long r_falloc_keep(void) { return file_call4(SYS_fallocate, FALLOC_FL_KEEP_SIZE, 0, PAGE); }
static long r_falloc_punch(void)
{
	return file_call4(SYS_fallocate, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, PAGE);
}
static long r_falloc_unknown(void) { return file_call4(SYS_fallocate, 0x100, 0, PAGE); }
static long r_falloc_len0(void) { return file_call4(SYS_fallocate, 0x100, 0, 0); }
static long r_falloc_ok(void) { return file_call4(SYS_fallocate, 0, 0, PAGE); }

// ---- the rows: names, stat, open ----------------------------------------------------------------

static long rename2(const char *from, const char *to, unsigned flags)
{
	return syscall(SYS_renameat2, (long)AT_FDCWD, from, (long)AT_FDCWD, to, (long)flags);
}

// Two files "a" and "b" for the rename rows.
static void two_files(void)
{
	close(open(scratch("a"), O_CREAT | O_WRONLY, 0600));
	close(open(scratch("b"), O_CREAT | O_WRONLY, 0600));
}

static long r_rename_exchange(void)
{
	two_files();
	return rename2(scratch("a"), scratch("b"), X_RENAME_EXCHANGE);
}

static long r_rename_unknown(void)
{
	two_files();
	return rename2(scratch("a"), scratch("c"), 8);
}

static long r_rename_both(void)
{
	two_files();
	return rename2(scratch("a"), scratch("b"), X_RENAME_NOREPLACE | X_RENAME_EXCHANGE);
}

static long r_noreplace_existing(void)
{
	two_files();
	return rename2(scratch("a"), scratch("b"), X_RENAME_NOREPLACE);
}

static long r_noreplace_same(void)
{
	two_files();
	return rename2(scratch("a"), scratch("a"), X_RENAME_NOREPLACE);
}

static long r_noreplace_hardlink(void)
{
	two_files();
	unlink(scratch("c"));
	if (link(scratch("a"), scratch("c")) < 0)
		return -1;
	return rename2(scratch("a"), scratch("c"), X_RENAME_NOREPLACE);
}

static long statx_call(unsigned flags, unsigned mask)
{
	char buf[256];

	return syscall(SYS_statx, (long)AT_FDCWD, "/", (long)flags, (long)mask, buf);
}

static long r_statx_reserved(void) { return statx_call(0, X_STATX_RESERVED); }
static long r_statx_flag(void) { return statx_call(0x8000000, X_STATX_BASIC_STATS); }
static long r_statx_syncs(void) { return statx_call(0x6000, X_STATX_BASIC_STATS); }
static long r_statx_ok(void) { return statx_call(X_AT_STATX_DONT_SYNC, X_STATX_BASIC_STATS); }

static long r_fstatat_flag(void)
{
	struct stat st;

	return syscall(SYS_newfstatat, (long)AT_FDCWD, "/", &st, (long)AT_REMOVEDIR);
}

static long r_utimens_fd_flags(void)
{
	int fd = file_fd();
	long rc = syscall(SYS_utimensat, (long)fd, NULL, NULL, (long)AT_SYMLINK_NOFOLLOW);
	int e = errno;

	close(fd);
	errno = e;
	return rc;
}

static long r_utimens_cwd_null(void)
{
	return syscall(SYS_utimensat, (long)AT_FDCWD, NULL, NULL, 0L);
}

static long r_tmpfile(void)
{
	long fd = syscall(SYS_openat, (long)AT_FDCWD, scratch_dir, (long)(O_TMPFILE | O_RDWR), 0600L);

	if (fd >= 0)
		close((int)fd);
	return fd < 0 ? -1 : 0;
}

// open(path, flags), closed again: 0, or -1 with open's errno.
static long open_and_close(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? -1 : 0;
}

static long r_open_odirect(void) { return open_and_close(scratch("file"), O_RDWR | O_DIRECT); }
static long r_open_devnull_odirect(void) { return open_and_close("/dev/null", O_WRONLY | O_DIRECT); }

// O_PATH keeps none of the other flags: O_DIRECT is not looked at.
static long r_open_odirect_path(void) { return open_and_close(scratch("file"), O_PATH | O_DIRECT); }

static long r_open_noatime(void)
{
	int fd = open(scratch("file"), O_RDONLY | O_NOATIME);

	if (fd >= 0)
		close(fd);
	return fd < 0 ? -1 : 0;
}

static long r_setfl_noatime(void) { return fcntl_file(F_SETFL, O_NOATIME); }

// A call on an O_PATH descriptor of the scratch file (or of its
// directory): Linux lets only a few calls use one.
static long on_opath(long nr, bool dir, long a, long b)
{
	int fd = open(dir ? scratch_dir : scratch("file"), O_PATH);
	long rc;
	int e;

	if (fd < 0)
		return -1;
	rc = syscall(nr, (long)fd, a, b);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

static char opath_buf[512];

static long r_opath_fchmod(void) { return on_opath(SYS_fchmod, false, 0600, 0); }
static long r_opath_fchown(void) { return on_opath(SYS_fchown, false, -1, -1); }
static long r_opath_ioctl(void) { return on_opath(SYS_ioctl, false, FIONREAD, (long)opath_buf); }
static long r_opath_lseek(void) { return on_opath(SYS_lseek, false, 0, SEEK_SET); }
static long r_opath_fsync(void) { return on_opath(SYS_fsync, false, 0, 0); }
static long r_opath_ftruncate(void) { return on_opath(SYS_ftruncate, false, 0, 0); }
static long r_opath_getdents(void)
{
	return on_opath(SYS_getdents64, true, (long)opath_buf, sizeof(opath_buf));
}
static long r_opath_fstat(void) { return on_opath(SYS_fstat, false, (long)opath_buf, 0); }
static long r_opath_fstatfs(void) { return on_opath(SYS_fstatfs, false, (long)opath_buf, 0); }
static long r_opath_getfl(void) { return on_opath(SYS_fcntl, false, F_GETFL, 0); }
static long r_opath_dup(void)
{
	long fd = on_opath(SYS_dup, false, 0, 0);

	if (fd >= 0)
		close((int)fd);
	return fd < 0 ? -1 : 0;
}

static long r_opath_mmap(void)
{
	int fd = open(scratch("file"), O_PATH);
	void *p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	int e = errno;

	close(fd);
	if (p != MAP_FAILED)
		munmap(p, PAGE);
	errno = e;
	return mmap_rc(p);
}

static long r_opath_fstatat_empty(void)
{
	int fd = open(scratch("file"), O_PATH);
	struct stat st;
	long rc = syscall(SYS_newfstatat, (long)fd, "", &st, (long)AT_EMPTY_PATH);
	int e = errno;

	close(fd);
	errno = e;
	return rc;
}

static long r_opath_dirfd(void)
{
	int fd = open(scratch_dir, O_PATH | O_DIRECTORY);
	struct stat st;
	long rc = syscall(SYS_newfstatat, (long)fd, "file", &st, 0L);
	int e = errno;

	close(fd);
	errno = e;
	return rc;
}

static long r_opath_poll(void)
{
	int fd = open(scratch("file"), O_PATH);
	struct pollfd_x {
		int fd;
		short events, revents;
	} pfd = { fd, 1, 0 };
	long rc = syscall(SYS_poll, &pfd, 1L, 0L);

	close(fd);
	if (rc == 1 && pfd.revents == 0x20)	// POLLNVAL
		return 0;
	errno = ERANGE;
	return -1;
}

static long r_unlinkat_flag(void) { return syscall(SYS_unlinkat, (long)AT_FDCWD, scratch("a"), 1L); }
static long r_linkat_flag(void)
{
	return syscall(SYS_linkat, (long)AT_FDCWD, scratch("a"), (long)AT_FDCWD, scratch("x"), 1L);
}
static long r_faccessat2_flag(void)
{
	return syscall(SYS_faccessat2, (long)AT_FDCWD, "/", (long)R_OK, 1L);
}
static long r_faccessat2_mode(void)
{
	return syscall(SYS_faccessat2, (long)AT_FDCWD, "/", 8L, 0L);
}
static long r_fchownat_flag(void)
{
	return syscall(SYS_fchownat, (long)AT_FDCWD, "/", -1L, -1L, 1L);
}

// ---- the rows: memory -------------------------------------------------------------------------

static long map_file(int flags, int prot)
{
	int fd = file_fd();
	void *p = mmap(NULL, PAGE, prot, flags, fd, 0);
	int e = errno;

	close(fd);
	if (p != MAP_FAILED)
		munmap(p, PAGE);
	errno = e;
	return mmap_rc(p);
}

static long r_map_shared_file(void) { return map_file(MAP_SHARED, PROT_READ | PROT_WRITE); }
static long r_map_shared_ro_file(void) { return map_file(MAP_SHARED, PROT_READ); }
static long r_map_validate_file(void) { return map_file(MAP_SHARED_VALIDATE, PROT_READ); }
static long r_map_validate_sync(void) { return map_file(MAP_SHARED_VALIDATE | MAP_SYNC, PROT_READ); }
static long r_map_private_file(void) { return map_file(MAP_PRIVATE, PROT_READ | PROT_WRITE); }

static long map_anon(int flags, int prot)
{
	void *p = mmap(NULL, PAGE, prot, flags | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		munmap(p, PAGE);
	return mmap_rc(p);
}

static long r_map_validate_anon(void) { return map_anon(MAP_SHARED_VALIDATE, PROT_READ); }
static long r_map_hugetlb(void) { return map_anon(MAP_PRIVATE | MAP_HUGETLB, PROT_READ); }
#ifdef MAP_32BIT		// x86 only
static long r_map_32bit(void) { return map_anon(MAP_PRIVATE | MAP_32BIT, PROT_READ); }
#endif
static long r_map_growsdown(void) { return map_anon(MAP_PRIVATE | MAP_GROWSDOWN, PROT_READ); }
static long r_map_locked(void) { return map_anon(MAP_PRIVATE | MAP_LOCKED, PROT_READ | PROT_WRITE); }
static long r_map_prot_sem(void) { return map_anon(MAP_PRIVATE, PROT_READ | X_PROT_SEM); }
static long r_map_noreserve(void)
{
	return map_anon(MAP_PRIVATE | MAP_NORESERVE | MAP_POPULATE | MAP_STACK, PROT_READ);
}

static long page_call(long nr, long a, long b)
{
	char *p = one_page();

	if (!p)
		return -1;
	return syscall(nr, p, (long)PAGE, a, b);
}

static long r_mprotect_growsdown(void) { return page_call(SYS_mprotect, PROT_READ | PROT_GROWSDOWN, 0); }
static long r_mprotect_sem(void) { return page_call(SYS_mprotect, PROT_READ | X_PROT_SEM, 0); }
static long r_madv_remove(void) { return page_call(SYS_madvise, MADV_REMOVE, 0); }
static long r_madv_dontfork(void) { return page_call(SYS_madvise, MADV_DONTFORK, 0); }
static long r_madv_dofork(void) { return page_call(SYS_madvise, MADV_DOFORK, 0); }
static long r_madv_wipeonfork(void) { return page_call(SYS_madvise, MADV_WIPEONFORK, 0); }
static long r_madv_keeponfork(void) { return page_call(SYS_madvise, MADV_KEEPONFORK, 0); }
static long r_madv_cold(void) { return page_call(SYS_madvise, MADV_COLD, 0); }
static long r_madv_pageout(void) { return page_call(SYS_madvise, MADV_PAGEOUT, 0); }
static long r_madv_populate(void) { return page_call(SYS_madvise, X_MADV_POPULATE_READ, 0); }
static long r_madv_dn_locked(void) { return page_call(SYS_madvise, X_MADV_DONTNEED_LOCKED, 0); }
static long r_madv_unknown(void) { return page_call(SYS_madvise, 999, 0); }
static long r_madv_willneed(void) { return page_call(SYS_madvise, MADV_WILLNEED, 0); }
static long r_msync_both(void) { return page_call(SYS_msync, MS_ASYNC | MS_SYNC, 0); }
static long r_msync_unknown(void) { return page_call(SYS_msync, 8, 0); }
static long r_msync_ok(void) { return page_call(SYS_msync, MS_SYNC | MS_INVALIDATE, 0); }
static long r_mlock(void) { return page_call(SYS_mlock, 0, 0); }

static long r_mlockall_none(void) { return syscall(SYS_mlockall, 0L); }
static long r_mlockall_onfault(void) { return syscall(SYS_mlockall, (long)MCL_ONFAULT); }
static long r_mlockall_unknown(void) { return syscall(SYS_mlockall, (long)(MCL_CURRENT | 0x100)); }

static long r_mlockall_current(void)
{
	long rc = syscall(SYS_mlockall, (long)MCL_CURRENT);
	int e = errno;

	syscall(SYS_munlockall);
	errno = e;
	return rc;
}

static long remap(unsigned long old_len, unsigned long new_len, long flags, void *new_addr)
{
	char *p = one_page();
	long rc;

	if (!p)
		return -1;
	rc = syscall(SYS_mremap, p, old_len, new_len, flags, new_addr);
	if (rc != -1 && (char *)rc != p)
		munmap((void *)rc, new_len);
	return rc == -1 ? -1 : 0;
}

// Somewhere free for MREMAP_FIXED to move to.
static void *free_spot(void)
{
	void *p = mmap(NULL, 2 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p, 2 * PAGE);
	return p;
}

static long r_mremap_fixed_alone(void) { return remap(PAGE, PAGE, MREMAP_FIXED, free_spot()); }
static long r_mremap_fixed(void)
{
	return remap(PAGE, 2 * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, free_spot());
}
static long r_mremap_dontunmap(void)
{
	return remap(PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
}
static long r_mremap_unknown(void) { return remap(PAGE, PAGE, MREMAP_MAYMOVE | 8, NULL); }
static long r_mremap_dup_private(void) { return remap(0, PAGE, MREMAP_MAYMOVE, NULL); }
static long r_mremap_grow(void) { return remap(PAGE, 4 * PAGE, MREMAP_MAYMOVE, NULL); }

// ---- the rows: scheduling, limits, identities, prctl ------------------------------------------

static long setsched(int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	struct sched_param normal = { 0 };
	long rc = syscall(SYS_sched_setscheduler, 0L, (long)policy, &sp);
	int e = errno;

	syscall(SYS_sched_setscheduler, 0L, (long)SCHED_OTHER, &normal);
	errno = e;
	return rc;
}

static long r_sched_other(void) { return setsched(SCHED_OTHER, 0); }
static long r_sched_other_prio(void) { return setsched(SCHED_OTHER, 5); }
static long r_sched_unknown(void) { return setsched(99, 0); }
static long r_sched_batch(void) { return setsched(SCHED_BATCH, 0); }
static long r_sched_idle(void) { return setsched(SCHED_IDLE, 0); }
static long r_sched_fifo(void) { return setsched(SCHED_FIFO, 10); }
static long r_sched_rr(void) { return setsched(SCHED_RR, 10); }
static long r_sched_reset(void) { return setsched(SCHED_OTHER | SCHED_RESET_ON_FORK, 0); }
static long r_sched_null(void) { return syscall(SYS_sched_setscheduler, 0L, (long)SCHED_OTHER, NULL); }

static long r_setparam_prio(void)
{
	struct sched_param sp = { .sched_priority = 5 };

	return syscall(SYS_sched_setparam, 0L, &sp);
}

static long r_setparam_zero(void)
{
	struct sched_param sp = { .sched_priority = 0 };

	return syscall(SYS_sched_setparam, 0L, &sp);
}

static long r_setparam_null(void) { return syscall(SYS_sched_setparam, 0L, NULL); }
static long r_getparam_null(void) { return syscall(SYS_sched_getparam, 0L, NULL); }
static long r_prio_max_deadline(void) { return syscall(SYS_sched_get_priority_max, 6L); }
static long r_prio_max_unknown(void) { return syscall(SYS_sched_get_priority_max, 42L); }

static long r_rr_interval_neg(void)
{
	struct timespec ts;

	return syscall(SYS_sched_rr_get_interval, -1L, &ts);
}

static long r_rr_interval_nopid(void)
{
	struct timespec ts;

	return syscall(SYS_sched_rr_get_interval, 0x3ffff0L, &ts);
}

static long r_prctl_unknown(void) { return syscall(SYS_prctl, 0x7ffffff0L, 0L, 0L, 0L, 0L); }
static long r_prctl_pdeathsig(void) { return syscall(SYS_prctl, (long)PR_SET_PDEATHSIG, 65L, 0L, 0L, 0L); }
static long r_prctl_dumpable(void) { return syscall(SYS_prctl, (long)PR_SET_DUMPABLE, 2L, 0L, 0L, 0L); }
static long r_prctl_tsc(void) { return syscall(SYS_prctl, (long)PR_SET_TSC, 3L, 0L, 0L, 0L); }
static long r_prctl_nnp(void) { return syscall(SYS_prctl, 38L, 0L, 0L, 0L, 0L); }
static long r_memfd_sealing(void)
{
	long fd = syscall(SYS_memfd_create, "flags", 0x2L);	// MFD_ALLOW_SEALING

	if (fd >= 0)
		close((int)fd);
	return fd < 0 ? -1 : 0;
}
static long r_memfd_hugetlb(void)
{
	long fd = syscall(SYS_memfd_create, "flags", 0x4L);	// MFD_HUGETLB

	if (fd >= 0)
		close((int)fd);
	return fd < 0 ? -1 : 0;
}
static long r_execveat_flags(void) { return syscall(SYS_execveat, AT_FDCWD, "/", NULL, NULL, 0x1L); }

static long r_prctl_name(void)
{
	char name[16];

	if (syscall(SYS_prctl, (long)PR_SET_NAME, "flags", 0L, 0L, 0L) < 0)
		return -1;
	return syscall(SYS_prctl, (long)PR_GET_NAME, name, 0L, 0L, 0L);
}

// An empty robust list: the kernel has nothing to release at exit.
static struct {
	void *next;
	long offset;
	void *pending;
} robust_head = { &robust_head, 0, NULL };

static long r_set_robust(void)
{
	return syscall(SYS_set_robust_list, &robust_head, (long)sizeof(robust_head));
}

static long r_get_robust(void)
{
	void *head;
	size_t len;

	return syscall(SYS_get_robust_list, 0L, &head, &len);
}

static long r_getrandom_both(void)
{
	char b[4];

	return syscall(SYS_getrandom, b, 4L, (long)(GRND_RANDOM | GRND_INSECURE));
}

static long r_getrandom_unknown(void)
{
	char b[4];

	return syscall(SYS_getrandom, b, 4L, 8L);
}

// membarrier: unknown commands and flags as Linux; the RSEQ command
// before its registration is refused as Linux refuses it.
// (user/tests/membarrier.c has the whole matrix.)
static long r_membarrier_unknown(void)	{ return syscall(SYS_membarrier, 3L, 0L, 0L); }
static long r_membarrier_flag(void)	{ return syscall(SYS_membarrier, 8L, 1L, 0L); }
static long r_membarrier_private(void)	{ return syscall(SYS_membarrier, 8L, 0L, 0L); }
static long r_membarrier_rseq(void)	{ return syscall(SYS_membarrier, 128L, 0L, 0L); }
static long r_membarrier_reg_rseq(void)	{ return syscall(SYS_membarrier, 256L, 0L, 0L); }

static long set_limit(int resource, unsigned long cur, unsigned long max)
{
	struct rlimit r = { cur, max };

	return syscall(SYS_prlimit64, 0L, (long)resource, &r, NULL);
}

static long c_limit_as(void) { return set_limit(RLIMIT_AS, 1UL << 40, 1UL << 40); }
static long c_limit_cpu(void) { return set_limit(RLIMIT_CPU, 1000, 1000); }
static long c_limit_data(void) { return set_limit(RLIMIT_DATA, 1UL << 40, 1UL << 40); }
static long c_limit_fsize(void) { return set_limit(RLIMIT_FSIZE, 1UL << 40, 1UL << 40); }
static long c_limit_stack(void) { return set_limit(RLIMIT_STACK, 16UL << 20, RLIM_INFINITY); }
static long c_limit_sigpending(void) { return set_limit(RLIMIT_SIGPENDING, 100, 100); }
static long c_limit_core(void) { return set_limit(RLIMIT_CORE, 0, 0); }
static long c_limit_memlock(void) { return set_limit(RLIMIT_MEMLOCK, 1UL << 16, 1UL << 16); }
static long c_limit_nofile_big(void) { return set_limit(RLIMIT_NOFILE, 64, 1UL << 21); }
static long c_limit_nofile_1100(void) { return set_limit(RLIMIT_NOFILE, 1100, 1100); }
static long c_limit_nofile_ok(void) { return set_limit(RLIMIT_NOFILE, 100, 200); }
static long c_limit_inverted(void) { return set_limit(RLIMIT_NOFILE, 200, 100); }
static long c_limit_unknown(void) { return set_limit(16, 1, 1); }

static long r_limit_as(void) { return in_child(c_limit_as); }
static long r_limit_cpu(void) { return in_child(c_limit_cpu); }
static long r_limit_data(void) { return in_child(c_limit_data); }
static long r_limit_fsize(void) { return in_child(c_limit_fsize); }
static long r_limit_stack(void) { return in_child(c_limit_stack); }
static long r_limit_sigpending(void) { return in_child(c_limit_sigpending); }
static long r_limit_core(void) { return in_child(c_limit_core); }
static long r_limit_memlock(void) { return in_child(c_limit_memlock); }
static long r_limit_nofile_big(void) { return in_child(c_limit_nofile_big); }
static long r_limit_nofile_1100(void) { return in_child(c_limit_nofile_1100); }
static long r_limit_nofile_ok(void) { return in_child(c_limit_nofile_ok); }
static long r_limit_inverted(void) { return in_child(c_limit_inverted); }
static long r_limit_unknown(void) { return in_child(c_limit_unknown); }

static long r_prlimit_nopid(void)
{
	struct rlimit r;

	return syscall(SYS_prlimit64, 0x3ffff0L, (long)RLIMIT_NOFILE, NULL, &r);
}

static long c_setuid(void) { return syscall(SYS_setuid, 1000L); }
static long c_setgid(void) { return syscall(SYS_setgid, 1000L); }
static long c_setresuid(void) { return syscall(SYS_setresuid, 1000L, 1000L, 1000L); }
static long c_setreuid(void) { return syscall(SYS_setreuid, -1L, 1000L); }
static long c_setresgid(void) { return syscall(SYS_setresgid, -1L, 1000L, -1L); }
static long c_setregid(void) { return syscall(SYS_setregid, 1000L, -1L); }
static long c_setuid_root(void) { return syscall(SYS_setuid, 0L); }
static long c_setresuid_keep(void) { return syscall(SYS_setresuid, -1L, -1L, -1L); }

static long c_setgroups(void)
{
	gid_t g[1] = { 1000 };

	return syscall(SYS_setgroups, 1L, g);
}

static long c_setgroups_empty(void) { return syscall(SYS_setgroups, 0L, NULL); }
static long c_setpgid_nogroup(void) { return syscall(SYS_setpgid, 0L, 0x3ffff0L); }

static long r_setuid(void) { return in_child(c_setuid); }
static long r_setgid(void) { return in_child(c_setgid); }
static long r_setresuid(void) { return in_child(c_setresuid); }
static long r_setreuid(void) { return in_child(c_setreuid); }
static long r_setresgid(void) { return in_child(c_setresgid); }
static long r_setregid(void) { return in_child(c_setregid); }
static long r_setuid_root(void) { return in_child(c_setuid_root); }
static long r_setresuid_keep(void) { return in_child(c_setresuid_keep); }
static long r_setgroups(void) { return in_child(c_setgroups); }
static long r_setgroups_empty(void) { return in_child(c_setgroups_empty); }
static long r_setpgid_nogroup(void) { return in_child(c_setpgid_nogroup); }

// ---- the rows: processes, signals, futexes, time ---------------------------------------------

static long r_clone_fs(void) { return clone_process(CLONE_FS | SIGCHLD); }
static long r_clone_sighand(void)
{
	return clone_process(CLONE_VM | CLONE_SIGHAND | CLONE_VFORK | SIGCHLD);
}
static long r_clone_thread_nofs(void)
{
	return thread_and_exit(CLONE_VM | CLONE_SIGHAND | CLONE_THREAD | CLONE_FILES);
}
static long r_clone_thread_nofiles(void)
{
	return thread_and_exit(CLONE_VM | CLONE_SIGHAND | CLONE_THREAD | CLONE_FS);
}
// An exit signal beyond the last signal: Linux takes it and sends
// nothing when the child exits.  In a child of our own, in case the
// parent is hit by something else.
static long c_clone_sig100(void) { return clone_process(100); }
static long r_clone_sig100(void) { return in_child(c_clone_sig100); }

static long r_clone_files(void) { return clone_process(CLONE_FILES | SIGCHLD); }
static long r_clone_vm(void) { return clone_process(CLONE_VM | CLONE_VFORK | SIGCHLD); }

struct clone_args_v2 {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

static long clone3_call(struct clone_args_v2 *ca, size_t size)
{
	long rc = syscall(SYS_clone3, ca, size);

	if (rc == 0)
		_exit(0);
	if (rc > 0) {
		waitpid((pid_t)rc, NULL, __WALL);
		return 0;
	}
	return rc;
}

static long r_clone3_big(void)
{
	static char buf[2 * PAGE];
	struct clone_args_v2 *ca = (void *)buf;

	memset(buf, 0, sizeof(buf));
	ca->exit_signal = SIGCHLD;
	return clone3_call(ca, PAGE + 8);
}

static long r_clone3_tail(void)
{
	static char buf[PAGE];
	struct clone_args_v2 *ca = (void *)buf;

	memset(buf, 0, sizeof(buf));
	ca->exit_signal = SIGCHLD;
	buf[200] = 1;
	return clone3_call(ca, PAGE);
}

static long r_clone3_high_flag(void)
{
	struct clone_args_v2 ca = { .flags = 1ULL << 40, .exit_signal = SIGCHLD };

	return clone3_call(&ca, sizeof(ca));
}

static long r_clone3_clear_sighand(void)
{
	struct clone_args_v2 ca = { .flags = X_CLONE_CLEAR_SIGHAND, .exit_signal = SIGCHLD };

	return clone3_call(&ca, sizeof(ca));
}

static long r_clone3_clear_shared(void)
{
	// CLONE_VFORK keeps a kernel that wrongly accepts this from running
	// parent and child on one stack at once.
	struct clone_args_v2 ca = { .flags = X_CLONE_CLEAR_SIGHAND | CLONE_SIGHAND | CLONE_VM |
					     CLONE_VFORK,
				    .exit_signal = SIGCHLD };

	return clone3_call(&ca, sizeof(ca));
}

static long r_clone3_detached(void)
{
	struct clone_args_v2 ca = { .flags = CLONE_DETACHED, .exit_signal = SIGCHLD };

	return clone3_call(&ca, sizeof(ca));
}

static long r_clone3_stack_nosize(void)
{
	struct clone_args_v2 ca = { .stack = 0x10000, .exit_signal = SIGCHLD };

	return clone3_call(&ca, sizeof(ca));
}

// Without CLONE_INTO_CGROUP Linux ignores the cgroup field.
static long r_clone3_cgroup(void)
{
	struct clone_args_v2 ca = { .cgroup = 3, .exit_signal = SIGCHLD };

	return clone3_call(&ca, sizeof(ca));
}

static long r_wait4_wclone(void)
{
	long rc = syscall(SYS_wait4, -1L, NULL, (long)(WNOHANG | __WCLONE), NULL);

	return rc < 0 && errno == ECHILD ? 0 : rc;	// Linux: no clone children
}

static long r_wait4_wnothread(void)
{
	long rc = syscall(SYS_wait4, -1L, NULL, (long)(WNOHANG | __WNOTHREAD), NULL);

	return rc < 0 && errno == ECHILD ? 0 : rc;
}

static long r_waitid_none(void)
{
	siginfo_t si;

	return syscall(SYS_waitid, (long)P_ALL, 0L, &si, 0L, NULL);
}

// A positive si_code claims kill() or the kernel: Linux lets a process
// claim it only to itself.
static long queue_urg(pid_t to)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGURG;
	si.si_code = SI_USER;
	return syscall(SYS_rt_sigqueueinfo, (long)to, (long)SIGURG, &si);
}

static long r_sigqueue_self(void) { return queue_urg(getpid()); }
static long r_sigqueue_other(void) { return queue_urg(getppid()); }

static long r_tgkill_zero(void) { return syscall(SYS_tgkill, 0L, (long)getpid(), 0L); }

struct k_sigaction {
	unsigned long handler, flags, restorer, mask;
};

static long r_sigaction_bad_size(void)
{
	struct k_sigaction old;

	return syscall(SYS_rt_sigaction, (long)SIGUSR1, NULL, &old, 4L);
}

static long r_sigprocmask_how(void)
{
	uint64_t set = 0;

	return syscall(SYS_rt_sigprocmask, 7L, &set, NULL, 8L);
}

static long altstack(int flags)
{
	static char stack[32768];	// 4 * musl's SIGSTKSZ (glibc's is no constant)
	stack_t ss = { .ss_sp = stack, .ss_flags = flags, .ss_size = sizeof(stack) };
	stack_t off = { .ss_flags = SS_DISABLE };
	long rc = syscall(SYS_sigaltstack, &ss, NULL);
	int e = errno;

	syscall(SYS_sigaltstack, &off, NULL);
	errno = e;
	return rc;
}

static long r_altstack_autodisarm(void) { return altstack(SS_AUTODISARM); }
static long r_altstack_bad(void) { return altstack(3); }
static long r_altstack_ok(void) { return altstack(0); }

static long r_futex_wait_realtime(void)
{
	int word = 1;
	struct timespec ts = { 0, 1000 };

	return syscall(SYS_futex, &word, (long)(X_FUTEX_WAIT | X_FUTEX_CLOCK_REALTIME), 0L, &ts,
		       NULL, 0L);
}

static long r_futex_lock_pi(void)
{
	int word = 0;
	long rc = syscall(SYS_futex, &word, (long)X_FUTEX_LOCK_PI, 0L, NULL, NULL, 0L);
	int e = errno;

	if (rc == 0)
		syscall(SYS_futex, &word, (long)X_FUTEX_UNLOCK_PI, 0L, NULL, NULL, 0L);
	errno = e;
	return rc;
}

static long timer(int which)
{
	struct itimerval v = { { 0, 0 }, { 100, 0 } }, off = { { 0, 0 }, { 0, 0 } };
	long rc = syscall(SYS_setitimer, (long)which, &v, NULL);
	int e = errno;

	syscall(SYS_setitimer, (long)which, &off, NULL);
	errno = e;
	return rc;
}

static long r_itimer_virtual(void) { return timer(ITIMER_VIRTUAL); }
static long r_itimer_prof(void) { return timer(ITIMER_PROF); }
static long r_itimer_unknown(void) { return timer(5); }

static long gettime(clockid_t id)
{
	struct timespec ts;

	return syscall(SYS_clock_gettime, (long)id, &ts);
}

static long r_clock_process(void) { return gettime(CLOCK_PROCESS_CPUTIME_ID); }
static long r_clock_thread(void) { return gettime(CLOCK_THREAD_CPUTIME_ID); }
static long r_clock_unknown(void) { return gettime(100); }
static long r_clock_raw(void) { return gettime(CLOCK_MONOTONIC_RAW); }

static long r_getres_process(void)
{
	struct timespec ts;

	return syscall(SYS_clock_getres, (long)CLOCK_PROCESS_CPUTIME_ID, &ts);
}

// Zero time: a CPU-time clock does not advance while its only thread sleeps.
static long nsleep(clockid_t id)
{
	struct timespec ts = { 0, 0 };

	return syscall(SYS_clock_nanosleep, (long)id, 0L, &ts, NULL);
}

static long r_nsleep_raw(void) { return nsleep(CLOCK_MONOTONIC_RAW); }
static long r_nsleep_rt_coarse(void) { return nsleep(CLOCK_REALTIME_COARSE); }
static long r_nsleep_mono_coarse(void) { return nsleep(CLOCK_MONOTONIC_COARSE); }
static long r_nsleep_process(void) { return nsleep(CLOCK_PROCESS_CPUTIME_ID); }
static long r_nsleep_thread(void) { return nsleep(CLOCK_THREAD_CPUTIME_ID); }
static long r_nsleep_boottime(void) { return nsleep(CLOCK_BOOTTIME); }

// eventfd, signalfd, timerfd: a new descriptor is closed again (0).
static long closed(long fd)
{
	if (fd >= 0)
		close((int)fd);
	return fd < 0 ? fd : 0;
}

static long r_eventfd2_flag(void) { return closed(syscall(SYS_eventfd2, 0L, 2L)); }
static long r_eventfd2_ok(void) { return closed(syscall(SYS_eventfd2, 0L, 0x80801L)); }
static uint64_t usr1_mask = 1ULL << (SIGUSR1 - 1);
static long r_signalfd4_flag(void) { return closed(syscall(SYS_signalfd4, -1L, &usr1_mask, 8L, 1L)); }
static long r_signalfd4_size(void) { return closed(syscall(SYS_signalfd4, -1L, &usr1_mask, 4L, 0L)); }
static long r_signalfd_size(void) { return closed(syscall(SYS_signalfd, -1L, &usr1_mask, 16L)); }
static long r_signalfd4_ok(void)
{
	return closed(syscall(SYS_signalfd4, -1L, &usr1_mask, 8L, (long)(O_CLOEXEC | O_NONBLOCK)));
}
static long r_signalfd_not_signalfd(void)
{
	long efd = syscall(SYS_eventfd2, 0L, 0L), rc = syscall(SYS_signalfd, efd, &usr1_mask, 8L);

	closed(efd);
	return rc;
}
static long r_timerfd_clock(clockid_t id) { return closed(syscall(SYS_timerfd_create, (long)id, 0L)); }
static long r_timerfd_raw(void) { return r_timerfd_clock(CLOCK_MONOTONIC_RAW); }
static long r_timerfd_cpu(void) { return r_timerfd_clock(CLOCK_PROCESS_CPUTIME_ID); }
static long r_timerfd_boottime(void) { return r_timerfd_clock(CLOCK_BOOTTIME); }
static long r_timerfd_alarm(void) { return r_timerfd_clock(9); }	// CLOCK_BOOTTIME_ALARM
static long r_timerfd_flag(void) { return closed(syscall(SYS_timerfd_create, 1L, 1L)); }
static long timerfd_set(long flags)
{
	long fd = syscall(SYS_timerfd_create, 0L, 0L), rc;
	long its[4] = { 0, 0, 4000000000L, 0 };		// interval 0, at 2096

	rc = syscall(SYS_timerfd_settime, fd, flags, its, NULL);
	closed(fd);
	return rc;
}
static long r_timerfd_settime_flag(void) { return timerfd_set(4L); }
static long r_timerfd_cancel_on_set(void) { return timerfd_set(3L); }	// ABSTIME | CANCEL_ON_SET

// epoll: sets are closed again; ctl rows work on a pipe's read end.
static long r_epoll_create_0(void) { return closed(syscall(SYS_epoll_create, 0L)); }
static long r_epoll_create1_flag(void) { return closed(syscall(SYS_epoll_create1, 1L)); }
static long r_epoll_create1_cloexec(void) { return closed(syscall(SYS_epoll_create1, (long)O_CLOEXEC)); }
static long epoll_on_pipe(long op, uint32_t events, bool add_first)
{
	long ep = syscall(SYS_epoll_create1, 0L), rc;
	struct { uint32_t events; uint64_t data; } __attribute__((packed)) ev = { 1, 0 };
	int p[2];

	if (ep < 0 || pipe(p) < 0)
		return -1;
	if (add_first)
		syscall(SYS_epoll_ctl, ep, 1L, (long)p[0], &ev);
	ev.events = events;
	rc = syscall(SYS_epoll_ctl, ep, op, (long)p[0], &ev);
	close(p[0]);
	close(p[1]);
	closed(ep);
	return rc;
}
static long r_epoll_ctl_op(void) { return epoll_on_pipe(4L, 1, false); }
static long r_epoll_excl_mod(void) { return epoll_on_pipe(3L, 1u | 1u << 28, true); }
static long r_epoll_excl_oneshot(void) { return epoll_on_pipe(1L, 1u | 1u << 28 | 1u << 30, false); }
static long r_epoll_excl_ok(void) { return epoll_on_pipe(1L, 1u | 1u << 28 | 1u << 31, false); }
static long r_epoll_wakeup(void) { return epoll_on_pipe(1L, 1u | 1u << 29, false); }
static long r_epoll_every_event(void) { return epoll_on_pipe(1L, 0x27ffu | 3u << 30, false); }
static long r_epoll_ctl_file(void)
{
	long ep = syscall(SYS_epoll_create1, 0L), rc;
	struct { uint32_t events; uint64_t data; } __attribute__((packed)) ev = { 1, 0 };
	int fd = open("/proc/self/exe", O_RDONLY);

	rc = syscall(SYS_epoll_ctl, ep, 1L, (long)fd, &ev);
	close(fd);
	closed(ep);
	return rc;
}
static long epoll_wait_args(long nr, long maxevents, long sigsetsize)
{
	long ep = syscall(SYS_epoll_create1, 0L), rc;
	uint64_t mask = 0, events[3];

	rc = syscall(nr, ep, events, maxevents, 0L, &mask, sigsetsize);
	closed(ep);
	return rc;
}
static long r_epoll_wait_max0(void) { return epoll_wait_args(SYS_epoll_wait, 0L, 8L); }
static long r_epoll_pwait_size(void) { return epoll_wait_args(SYS_epoll_pwait, 1L, 4L); }
static long r_epoll_pwait2_size(void) { return epoll_wait_args(441, 1L, 16L); }
// POSIX timers: a timer made is deleted again (0).
struct x_sigevent { long value; int signo, notify, tid, pad[11]; };
static long ptimer_make(clockid_t clock, int notify, int signo)
{
	struct x_sigevent ev = { 0, signo, notify, 0, { 0 } };
	int id = -1;
	long rc = syscall(SYS_timer_create, (long)clock, &ev, &id);

	if (rc == 0)
		syscall(SYS_timer_delete, (long)id);
	return rc;
}
static long r_ptimer_clock10(void) { return ptimer_make(10, 1, 0); }
static long r_ptimer_raw(void) { return ptimer_make(CLOCK_MONOTONIC_RAW, 1, 0); }
static long r_ptimer_coarse(void) { return ptimer_make(CLOCK_MONOTONIC_COARSE, 1, 0); }
static long r_ptimer_tai(void) { return ptimer_make(11, 1, 0); }	// CLOCK_TAI
static long r_ptimer_boottime(void) { return ptimer_make(CLOCK_BOOTTIME, 1, 0); }
static long r_ptimer_process(void) { return ptimer_make(CLOCK_PROCESS_CPUTIME_ID, 0, SIGUSR1); }
static long r_ptimer_notify(void) { return ptimer_make(CLOCK_MONOTONIC, 3, SIGUSR1); }
static long r_ptimer_sigev_thread(void) { return ptimer_make(CLOCK_MONOTONIC, 2, SIGUSR1); }
static long r_ptimer_signo(void) { return ptimer_make(CLOCK_MONOTONIC, 0, 65); }
static long r_ptimer_settime_flag(void)
{
	struct x_sigevent ev = { 0, 0, 1, 0, { 0 } };
	long its[4] = { 0, 0, 100, 0 }, rc;
	int id = -1;

	if (syscall(SYS_timer_create, (long)CLOCK_MONOTONIC, &ev, &id) != 0)
		return -1;
	rc = syscall(SYS_timer_settime, (long)id, 0x100L, its, NULL);
	syscall(SYS_timer_delete, (long)id);
	return rc;
}

#ifdef SYS_arch_prctl		// x86 only
static long r_arch_prctl_unknown(void) { return syscall(SYS_arch_prctl, (long)X_ARCH_UNKNOWN, 0L); }
#endif

// rseq: the flags argument knows only RSEQ_FLAG_UNREGISTER (1).  A
// 64-byte area (the layout of Linux 6.3 on) is accepted, then dropped.
static uint8_t rseq_area[64] __attribute__((aligned(32)));
#define X_RSEQ_SIG 0x53053053L
static long r_rseq_flag(void) { return syscall(SYS_rseq, rseq_area, 32L, 2L, X_RSEQ_SIG); }
static long r_rseq_unregister_flag(void) { return syscall(SYS_rseq, rseq_area, 32L, 3L, X_RSEQ_SIG); }
static long r_rseq_long_area(void)
{
#ifdef __GLIBC__
	// glibc registered its own area at start-up: Linux refuses another
	// (EINVAL), whatever its length.
	if (__rseq_size > 0) {
		long r = syscall(SYS_rseq, rseq_area, 64L, 0L, X_RSEQ_SIG);
		return r == -1 && errno == EINVAL ? 0 : -1;
	}
#endif
	long r = syscall(SYS_rseq, rseq_area, 64L, 0L, X_RSEQ_SIG);

	if (r == 0)
		syscall(SYS_rseq, rseq_area, 64L, 1L, X_RSEQ_SIG);
	return r;
}


// Sockets: AF_UNIX only; the options and flags Switchyard refuses.
static long r_socket_inet(void) { return closed(socket(AF_INET, SOCK_STREAM, 0)); }
static long r_socket_inet6(void) { return closed(socket(AF_INET6, SOCK_DGRAM, 0)); }
static long r_socket_netlink(void) { return closed(socket(AF_NETLINK, SOCK_RAW, 0)); }
static long r_socket_unix(void) { return closed(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)); }

static long on_unix_stream(int opt, int len)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), v[4] = { 0 };
	long rc = setsockopt(fd, SOL_SOCKET, opt, v, (socklen_t)len);
	int e = errno;

	close(fd);
	errno = e;
	return rc;
}

static long r_so_linger(void) { return on_unix_stream(SO_LINGER, 8); }
static long r_so_peek_off(void) { return on_unix_stream(SO_PEEK_OFF, 4); }
static long r_so_mark(void) { return on_unix_stream(SO_MARK, 4); }
static long r_so_passcred(void) { return on_unix_stream(SO_PASSCRED, 4); }

static long r_msg_oob_stream(void)
{
	int sv[2];
	long rc;
	int e;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -1;
	rc = send(sv[0], "x", 1, MSG_OOB | MSG_DONTWAIT);
	e = errno;
	close(sv[0]);
	close(sv[1]);
	errno = e;
	return rc < 0 ? -1 : 0;
}

// ---- the table -------------------------------------------------------------------------------

// What Linux does with a row's call: the same as Switchyard, succeed
// (Linux implements what Switchyard refuses), or either (depends on the
// host: huge pages reserved, the kernel version).
enum { LINUX_SAME = -1, LINUX_OK = 0, LINUX_ANY = -2 };

struct flag_row {
	const char *name;
	long (*call)(void);	// -1 with errno on failure
	int err;		// Switchyard's errno; 0: the call succeeds
	int on_linux;		// LINUX_SAME, LINUX_OK, LINUX_ANY, or Linux's errno
	bool linux_root;	// on Linux, only root can make the call succeed
};

static const struct flag_row rows[] = {
	// fcntl: record locks fail as on a kernel built without file locking.
	{ "fcntl_F_SETLK", r_setlk, 0, LINUX_SAME, false },
	{ "fcntl_F_SETLKW", r_setlkw, 0, LINUX_SAME, false },
	{ "fcntl_F_GETLK", r_getlk, 0, LINUX_SAME, false },
	{ "fcntl_F_OFD_SETLK", r_ofd_setlk, 0, LINUX_SAME, false },
	{ "fcntl_F_OFD_SETLKW", r_ofd_setlkw, 0, LINUX_SAME, false },
	{ "fcntl_F_OFD_GETLK", r_ofd_getlk, 0, LINUX_SAME, false },
	{ "fcntl_F_GETLK_bad_pointer_EFAULT", r_getlk_efault, EFAULT, LINUX_SAME, false },
	{ "fcntl_F_SETLEASE_EINVAL", r_setlease, EINVAL, LINUX_OK, false },
	{ "fcntl_F_GETLEASE_unlocked", r_getlease, 0, LINUX_SAME, false },
	{ "fcntl_F_SETOWN_pid", r_setown_pid, 0, LINUX_SAME, false },
	{ "fcntl_F_SETOWN_zero", r_setown_zero, 0, LINUX_SAME, false },
	{ "fcntl_F_GETOWN", r_getown, 0, LINUX_SAME, false },
	{ "fcntl_F_SETOWN_EX", r_setown_ex, 0, LINUX_SAME, false },
	{ "fcntl_F_SETSIG", r_setsig, 0, LINUX_SAME, false },
	{ "fcntl_unknown_command_EINVAL", r_unknown_cmd, EINVAL, LINUX_SAME, false },
	{ "fcntl_F_ADD_SEALS_file_EINVAL", r_add_seals, EINVAL, LINUX_SAME, false },
	{ "fcntl_F_SETFL_O_DIRECT_pipe", r_pipe_odirect_setfl, 0, LINUX_SAME, false },
	// No direct I/O on an in-memory file: Linux 6.1's tmpfs and ramfs
	// answer EINVAL (a disk filesystem, or tmpfs from 6.6 on, takes it).
	{ "fcntl_F_SETFL_O_DIRECT_file_EINVAL", r_file_odirect_setfl, EINVAL, LINUX_SAME, false },
	{ "fcntl_F_SETFL_O_DIRECT_dev_null_EINVAL", r_devnull_odirect_setfl, EINVAL, LINUX_SAME, false },
	{ "fcntl_F_SETPIPE_SZ_2G_EINVAL", r_pipe_sz_huge, EINVAL, LINUX_SAME, false },
	{ "fcntl_F_SETPIPE_SZ_over_max_unprivileged_EPERM", r_pipe_sz_over_max, EPERM, LINUX_SAME, false },
	{ "fcntl_F_SETPIPE_SZ_file_EBADF", r_pipe_sz_file, EBADF, LINUX_SAME, false },
	{ "pipe2_O_DIRECT", r_pipe2_odirect, 0, LINUX_SAME, false },
	{ "pipe2_O_APPEND_EINVAL", r_pipe2_append, EINVAL, LINUX_SAME, false },
	{ "pipe2_O_CLOEXEC_O_NONBLOCK", r_pipe2_ok, 0, LINUX_SAME, false },
	{ "dup3_O_NONBLOCK_EINVAL", r_dup3_flags, EINVAL, LINUX_SAME, false },
	{ "close_range_UNSHARE_EINVAL", r_close_range_unshare, EINVAL, LINUX_OK, false },
	{ "close_range_unknown_flag_EINVAL", r_close_range_unknown, EINVAL, LINUX_SAME, false },
	{ "ioctl_FIOASYNC_file_ENOTTY", r_fioasync_file, ENOTTY, LINUX_SAME, false },
	{ "ioctl_unknown_request_ENOTTY", r_ioctl_unknown, ENOTTY, LINUX_SAME, false },
	{ "fsync_pipe_EINVAL", r_fsync_pipe, EINVAL, LINUX_SAME, false },
	{ "fdatasync_pipe_EINVAL", r_fdatasync_pipe, EINVAL, LINUX_SAME, false },
	{ "syncfs_pipe", r_syncfs_pipe, 0, LINUX_SAME, false },
	{ "fadvise64_negative_length_EINVAL", r_fadvise_neg_len, EINVAL, LINUX_SAME, false },
	{ "fadvise64_unknown_advice_EINVAL", r_fadvise_bad, EINVAL, LINUX_SAME, false },
	{ "fadvise64_WILLNEED", r_fadvise_ok, 0, LINUX_SAME, false },
	{ "fallocate_KEEP_SIZE", r_falloc_keep, 0, LINUX_SAME, false },
	{ "fallocate_PUNCH_HOLE", r_falloc_punch, 0, LINUX_SAME, false },
	{ "fallocate_unknown_mode_EOPNOTSUPP", r_falloc_unknown, EOPNOTSUPP, LINUX_SAME, false },
	{ "fallocate_length_0_checked_first_EINVAL", r_falloc_len0, EINVAL, LINUX_SAME, false },
	{ "fallocate_mode_0", r_falloc_ok, 0, LINUX_SAME, false },

	// Names, stat and open.
	{ "renameat2_RENAME_EXCHANGE", r_rename_exchange, 0, LINUX_SAME, false },
	{ "renameat2_unknown_flag_EINVAL", r_rename_unknown, EINVAL, LINUX_SAME, false },
	{ "renameat2_NOREPLACE_EXCHANGE_EINVAL", r_rename_both, EINVAL, LINUX_SAME, false },
	{ "renameat2_NOREPLACE_existing_EEXIST", r_noreplace_existing, EEXIST, LINUX_SAME, false },
	{ "renameat2_NOREPLACE_same_name_EEXIST", r_noreplace_same, EEXIST, LINUX_SAME, false },
	{ "renameat2_NOREPLACE_hard_link_EEXIST", r_noreplace_hardlink, EEXIST, LINUX_SAME, false },
	{ "rseq_unknown_flag_EINVAL", r_rseq_flag, EINVAL, LINUX_SAME, false },
	{ "rseq_UNREGISTER_with_unknown_flag_EINVAL", r_rseq_unregister_flag, EINVAL, LINUX_SAME, false },
	{ "rseq_64_byte_area", r_rseq_long_area, 0, LINUX_ANY, false },
	{ "statx_reserved_mask_bit_EINVAL", r_statx_reserved, EINVAL, LINUX_SAME, false },
	{ "statx_unknown_flag_EINVAL", r_statx_flag, EINVAL, LINUX_SAME, false },
	{ "statx_both_sync_types_EINVAL", r_statx_syncs, EINVAL, LINUX_SAME, false },
	{ "statx_AT_STATX_DONT_SYNC", r_statx_ok, 0, LINUX_SAME, false },
	{ "newfstatat_unknown_flag_EINVAL", r_fstatat_flag, EINVAL, LINUX_SAME, false },
	{ "utimensat_fd_with_flags_EINVAL", r_utimens_fd_flags, EINVAL, LINUX_SAME, false },
	{ "utimensat_AT_FDCWD_no_path_EFAULT", r_utimens_cwd_null, EFAULT, LINUX_SAME, false },
	{ "openat_O_TMPFILE", r_tmpfile, 0, LINUX_SAME, false },
	{ "open_O_DIRECT_EINVAL", r_open_odirect, EINVAL, LINUX_SAME, false },
	{ "open_O_DIRECT_dev_null_EINVAL", r_open_devnull_odirect, EINVAL, LINUX_SAME, false },
	{ "open_O_DIRECT_O_PATH", r_open_odirect_path, 0, LINUX_SAME, false },
	{ "open_O_NOATIME_by_owner", r_open_noatime, 0, LINUX_SAME, true },
	{ "fcntl_F_SETFL_O_NOATIME_by_owner", r_setfl_noatime, 0, LINUX_SAME, true },
	{ "O_PATH_fchmod_EBADF", r_opath_fchmod, EBADF, LINUX_SAME, false },
	{ "O_PATH_fchown_EBADF", r_opath_fchown, EBADF, LINUX_SAME, false },
	{ "O_PATH_ioctl_EBADF", r_opath_ioctl, EBADF, LINUX_SAME, false },
	{ "O_PATH_lseek_EBADF", r_opath_lseek, EBADF, LINUX_SAME, false },
	{ "O_PATH_fsync_EBADF", r_opath_fsync, EBADF, LINUX_SAME, false },
	{ "O_PATH_ftruncate_EBADF", r_opath_ftruncate, EBADF, LINUX_SAME, false },
	{ "O_PATH_getdents64_EBADF", r_opath_getdents, EBADF, LINUX_SAME, false },
	{ "O_PATH_mmap_EBADF", r_opath_mmap, EBADF, LINUX_SAME, false },
	{ "O_PATH_poll_POLLNVAL", r_opath_poll, 0, LINUX_SAME, false },
	{ "O_PATH_fstat", r_opath_fstat, 0, LINUX_SAME, false },
	{ "O_PATH_fstatfs", r_opath_fstatfs, 0, LINUX_SAME, false },
	{ "O_PATH_fcntl_F_GETFL", r_opath_getfl, 0, LINUX_SAME, false },
	{ "O_PATH_dup", r_opath_dup, 0, LINUX_SAME, false },
	{ "O_PATH_newfstatat_AT_EMPTY_PATH", r_opath_fstatat_empty, 0, LINUX_SAME, false },
	{ "O_PATH_directory_as_dirfd", r_opath_dirfd, 0, LINUX_SAME, false },
	{ "unlinkat_unknown_flag_EINVAL", r_unlinkat_flag, EINVAL, LINUX_SAME, false },
	{ "linkat_unknown_flag_EINVAL", r_linkat_flag, EINVAL, LINUX_SAME, false },
	{ "faccessat2_unknown_flag_EINVAL", r_faccessat2_flag, EINVAL, LINUX_SAME, false },
	{ "faccessat2_unknown_mode_EINVAL", r_faccessat2_mode, EINVAL, LINUX_SAME, false },
	{ "fchownat_unknown_flag_EINVAL", r_fchownat_flag, EINVAL, LINUX_SAME, false },

	// Memory.
	{ "mmap_MAP_SHARED_file", r_map_shared_file, 0, LINUX_SAME, false },
	{ "mmap_MAP_SHARED_read_only_file", r_map_shared_ro_file, 0, LINUX_SAME, false },
	{ "mmap_MAP_SHARED_VALIDATE_file", r_map_validate_file, 0, LINUX_SAME, false },
	{ "mmap_MAP_SHARED_VALIDATE_MAP_SYNC_EOPNOTSUPP", r_map_validate_sync, EOPNOTSUPP, LINUX_SAME,
	  false },
	{ "mmap_MAP_PRIVATE_file", r_map_private_file, 0, LINUX_SAME, false },
	{ "mmap_MAP_SHARED_VALIDATE_anonymous_EINVAL", r_map_validate_anon, EINVAL, LINUX_SAME, false },
	{ "mmap_MAP_HUGETLB_ENOMEM", r_map_hugetlb, ENOMEM, LINUX_ANY, false },
#ifdef MAP_32BIT
	{ "mmap_MAP_32BIT", r_map_32bit, 0, LINUX_SAME, false },
#endif
	{ "mmap_MAP_GROWSDOWN", r_map_growsdown, 0, LINUX_SAME, false },
	{ "mmap_MAP_LOCKED", r_map_locked, 0, LINUX_SAME, false },
	{ "mmap_MAP_NORESERVE_POPULATE_STACK", r_map_noreserve, 0, LINUX_SAME, false },
	{ "mmap_PROT_SEM", r_map_prot_sem, 0, LINUX_SAME, false },
	{ "mprotect_PROT_GROWSDOWN_EINVAL", r_mprotect_growsdown, EINVAL, LINUX_SAME, false },
	{ "mprotect_PROT_SEM", r_mprotect_sem, 0, LINUX_SAME, false },
	{ "madvise_MADV_REMOVE_private_EINVAL", r_madv_remove, EINVAL, LINUX_SAME, false },
	{ "madvise_MADV_DONTFORK", r_madv_dontfork, 0, LINUX_SAME, false },
	{ "madvise_MADV_DOFORK", r_madv_dofork, 0, LINUX_SAME, false },
	{ "madvise_MADV_WIPEONFORK", r_madv_wipeonfork, 0, LINUX_SAME, false },
	{ "madvise_MADV_KEEPONFORK", r_madv_keeponfork, 0, LINUX_SAME, false },
	{ "madvise_MADV_COLD", r_madv_cold, 0, LINUX_SAME, false },
	{ "madvise_MADV_PAGEOUT", r_madv_pageout, 0, LINUX_SAME, false },
	{ "madvise_MADV_POPULATE_READ", r_madv_populate, 0, LINUX_SAME, false },
	{ "madvise_MADV_DONTNEED_LOCKED", r_madv_dn_locked, 0, LINUX_SAME, false },
	{ "madvise_MADV_WILLNEED", r_madv_willneed, 0, LINUX_SAME, false },
	{ "madvise_unknown_advice_EINVAL", r_madv_unknown, EINVAL, LINUX_SAME, false },
	{ "msync_MS_ASYNC_MS_SYNC_EINVAL", r_msync_both, EINVAL, LINUX_SAME, false },
	{ "msync_unknown_flag_EINVAL", r_msync_unknown, EINVAL, LINUX_SAME, false },
	{ "msync_MS_SYNC_MS_INVALIDATE", r_msync_ok, 0, LINUX_SAME, false },
	{ "mlock", r_mlock, 0, LINUX_SAME, false },
	{ "mlockall_no_flags_EINVAL", r_mlockall_none, EINVAL, LINUX_SAME, false },
	{ "mlockall_MCL_ONFAULT_alone_EINVAL", r_mlockall_onfault, EINVAL, LINUX_SAME, false },
	{ "mlockall_unknown_flag_EINVAL", r_mlockall_unknown, EINVAL, LINUX_SAME, false },
	{ "mlockall_MCL_CURRENT", r_mlockall_current, 0, LINUX_SAME, false },
	{ "mremap_MREMAP_FIXED_without_MAYMOVE_EINVAL", r_mremap_fixed_alone, EINVAL, LINUX_SAME,
	  false },
	{ "mremap_MREMAP_FIXED", r_mremap_fixed, 0, LINUX_SAME, false },
	{ "mremap_MREMAP_DONTUNMAP", r_mremap_dontunmap, 0, LINUX_SAME, false },
	{ "mremap_unknown_flag_EINVAL", r_mremap_unknown, EINVAL, LINUX_SAME, false },
	{ "mremap_old_len_0_private_EINVAL", r_mremap_dup_private, EINVAL, LINUX_SAME, false },
	{ "mremap_MAYMOVE_grow", r_mremap_grow, 0, LINUX_SAME, false },

	// Scheduling, limits, identities, prctl.
	{ "sched_setscheduler_OTHER", r_sched_other, 0, LINUX_SAME, false },
	{ "sched_setscheduler_OTHER_priority_EINVAL", r_sched_other_prio, EINVAL, LINUX_SAME, false },
	{ "sched_setscheduler_unknown_policy_EINVAL", r_sched_unknown, EINVAL, LINUX_SAME, false },
	{ "sched_setscheduler_no_param_EINVAL", r_sched_null, EINVAL, LINUX_SAME, false },
	{ "sched_setscheduler_BATCH", r_sched_batch, 0, LINUX_SAME, false },
	{ "sched_setscheduler_IDLE", r_sched_idle, 0, LINUX_SAME, false },
	{ "sched_setscheduler_FIFO", r_sched_fifo, 0, LINUX_SAME, true },
	{ "sched_setscheduler_RR", r_sched_rr, 0, LINUX_SAME, true },
	{ "sched_setscheduler_RESET_ON_FORK", r_sched_reset, 0, LINUX_SAME, false },
	{ "sched_setparam_priority_EINVAL", r_setparam_prio, EINVAL, LINUX_SAME, false },
	{ "sched_setparam_priority_0", r_setparam_zero, 0, LINUX_SAME, false },
	{ "sched_setparam_no_param_EINVAL", r_setparam_null, EINVAL, LINUX_SAME, false },
	{ "sched_getparam_no_param_EINVAL", r_getparam_null, EINVAL, LINUX_SAME, false },
	{ "sched_get_priority_max_DEADLINE", r_prio_max_deadline, 0, LINUX_SAME, false },
	{ "sched_get_priority_max_unknown_EINVAL", r_prio_max_unknown, EINVAL, LINUX_SAME, false },
	{ "sched_rr_get_interval_negative_pid_EINVAL", r_rr_interval_neg, EINVAL, LINUX_SAME, false },
	{ "sched_rr_get_interval_no_such_pid_ESRCH", r_rr_interval_nopid, ESRCH, LINUX_SAME, false },
	{ "prctl_unknown_option_EINVAL", r_prctl_unknown, EINVAL, LINUX_SAME, false },
	{ "prctl_PR_SET_PDEATHSIG_65_EINVAL", r_prctl_pdeathsig, EINVAL, LINUX_SAME, false },
	{ "prctl_PR_SET_DUMPABLE_2_EINVAL", r_prctl_dumpable, EINVAL, LINUX_SAME, false },
	{ "prctl_PR_SET_TSC_3_EINVAL", r_prctl_tsc, EINVAL, LINUX_SAME, false },
	{ "prctl_PR_SET_NO_NEW_PRIVS_0_EINVAL", r_prctl_nnp, EINVAL, LINUX_SAME, false },
	{ "memfd_create_MFD_ALLOW_SEALING", r_memfd_sealing, 0, LINUX_SAME, false },
	{ "memfd_create_MFD_HUGETLB_EINVAL", r_memfd_hugetlb, EINVAL, LINUX_ANY, false },
	{ "execveat_unknown_flag_EINVAL", r_execveat_flags, EINVAL, LINUX_SAME, false },
	{ "prctl_PR_SET_NAME_PR_GET_NAME", r_prctl_name, 0, LINUX_SAME, false },
	{ "set_robust_list", r_set_robust, 0, LINUX_SAME, false },
	{ "get_robust_list", r_get_robust, 0, LINUX_SAME, false },
	{ "getrandom_GRND_RANDOM_GRND_INSECURE_EINVAL", r_getrandom_both, EINVAL, LINUX_SAME, false },
	{ "getrandom_unknown_flag_EINVAL", r_getrandom_unknown, EINVAL, LINUX_SAME, false },
	{ "membarrier_unknown_command_EINVAL", r_membarrier_unknown, EINVAL, LINUX_SAME, false },
	{ "membarrier_flag_on_PRIVATE_EXPEDITED_EINVAL", r_membarrier_flag, EINVAL, LINUX_SAME, false },
	{ "membarrier_PRIVATE_EXPEDITED_unregistered_EPERM", r_membarrier_private, EPERM, LINUX_SAME, false },
	{ "membarrier_PRIVATE_EXPEDITED_RSEQ_unregistered_EPERM", r_membarrier_rseq, EPERM, LINUX_SAME, false },
	{ "membarrier_REGISTER_PRIVATE_EXPEDITED_RSEQ_ok", r_membarrier_reg_rseq, 0, LINUX_SAME, false },
	{ "setrlimit_RLIMIT_AS", r_limit_as, 0, LINUX_SAME, false },
	{ "setrlimit_RLIMIT_CPU", r_limit_cpu, 0, LINUX_SAME, false },
	{ "setrlimit_RLIMIT_DATA", r_limit_data, 0, LINUX_SAME, false },
	{ "setrlimit_RLIMIT_FSIZE", r_limit_fsize, 0, LINUX_SAME, false },
	{ "setrlimit_RLIMIT_STACK", r_limit_stack, 0, LINUX_SAME, false },
	{ "setrlimit_RLIMIT_SIGPENDING", r_limit_sigpending, 0, LINUX_SAME, false },
	{ "setrlimit_RLIMIT_CORE", r_limit_core, 0, LINUX_SAME, false },
	{ "setrlimit_RLIMIT_MEMLOCK", r_limit_memlock, 0, LINUX_SAME, false },
	{ "setrlimit_RLIMIT_NOFILE_above_nr_open_EPERM", r_limit_nofile_big, EPERM, LINUX_SAME, false },
	{ "setrlimit_RLIMIT_NOFILE_1100", r_limit_nofile_1100, 0, LINUX_SAME, true },
	{ "setrlimit_RLIMIT_NOFILE", r_limit_nofile_ok, 0, LINUX_SAME, false },
	{ "setrlimit_cur_above_max_EINVAL", r_limit_inverted, EINVAL, LINUX_SAME, false },
	{ "setrlimit_unknown_resource_EINVAL", r_limit_unknown, EINVAL, LINUX_SAME, false },
	{ "prlimit64_no_such_pid_ESRCH", r_prlimit_nopid, ESRCH, LINUX_SAME, false },
	{ "setuid_1000", r_setuid, 0, LINUX_SAME, true },
	{ "setgid_1000", r_setgid, 0, LINUX_SAME, true },
	{ "setresuid_1000", r_setresuid, 0, LINUX_SAME, true },
	{ "setreuid_1000", r_setreuid, 0, LINUX_SAME, true },
	{ "setresgid_1000", r_setresgid, 0, LINUX_SAME, true },
	{ "setregid_1000", r_setregid, 0, LINUX_SAME, true },
	{ "setuid_0", r_setuid_root, 0, LINUX_SAME, true },
	{ "setresuid_unchanged", r_setresuid_keep, 0, LINUX_SAME, false },
	{ "setgroups_1000", r_setgroups, 0, LINUX_SAME, true },
	{ "setgroups_empty", r_setgroups_empty, 0, LINUX_SAME, true },
	{ "setpgid_no_such_group_EPERM", r_setpgid_nogroup, EPERM, LINUX_SAME, false },

	// Processes, signals, futexes, time.
	{ "clone_CLONE_FS_process", r_clone_fs, 0, LINUX_SAME, false },
	{ "clone_CLONE_SIGHAND_process", r_clone_sighand, 0, LINUX_SAME, false },
	{ "clone_CLONE_THREAD_without_CLONE_FS", r_clone_thread_nofs, 0, LINUX_SAME, false },
	{ "clone_CLONE_THREAD_without_CLONE_FILES", r_clone_thread_nofiles, 0, LINUX_SAME, false },
	{ "clone_CLONE_FILES_process", r_clone_files, 0, LINUX_SAME, false },
	{ "clone_exit_signal_100_not_sent", r_clone_sig100, 0, LINUX_SAME, false },
	{ "clone_CLONE_VM_CLONE_VFORK", r_clone_vm, 0, LINUX_SAME, false },
	{ "clone3_size_above_page_E2BIG", r_clone3_big, E2BIG, LINUX_SAME, false },
	{ "clone3_nonzero_tail_E2BIG", r_clone3_tail, E2BIG, LINUX_SAME, false },
	{ "clone3_unknown_flag_EINVAL", r_clone3_high_flag, EINVAL, LINUX_SAME, false },
	{ "clone3_CLONE_CLEAR_SIGHAND", r_clone3_clear_sighand, 0, LINUX_SAME, false },
	{ "clone3_CLONE_CLEAR_SIGHAND_CLONE_SIGHAND_EINVAL", r_clone3_clear_shared, EINVAL, LINUX_SAME,
	  false },
	{ "clone3_CLONE_DETACHED_EINVAL", r_clone3_detached, EINVAL, LINUX_SAME, false },
	{ "clone3_stack_without_size_EINVAL", r_clone3_stack_nosize, EINVAL, LINUX_SAME, false },
	{ "clone3_cgroup_ignored_without_flag", r_clone3_cgroup, 0, LINUX_SAME, false },
	{ "wait4___WCLONE", r_wait4_wclone, 0, LINUX_SAME, false },
	{ "wait4___WNOTHREAD", r_wait4_wnothread, 0, LINUX_SAME, false },
	{ "waitid_no_event_EINVAL", r_waitid_none, EINVAL, LINUX_SAME, false },
	{ "tgkill_tgid_0_EINVAL", r_tgkill_zero, EINVAL, LINUX_SAME, false },
	{ "rt_sigqueueinfo_SI_USER_to_self", r_sigqueue_self, 0, LINUX_SAME, false },
	{ "rt_sigqueueinfo_SI_USER_to_other_EPERM", r_sigqueue_other, EPERM, LINUX_SAME, false },
	{ "rt_sigaction_sigsetsize_EINVAL", r_sigaction_bad_size, EINVAL, LINUX_SAME, false },
	{ "rt_sigprocmask_unknown_how_EINVAL", r_sigprocmask_how, EINVAL, LINUX_SAME, false },
	{ "sigaltstack_SS_AUTODISARM_EINVAL", r_altstack_autodisarm, EINVAL, LINUX_OK, false },
	{ "sigaltstack_unknown_mode_EINVAL", r_altstack_bad, EINVAL, LINUX_SAME, false },
	{ "sigaltstack_enable", r_altstack_ok, 0, LINUX_SAME, false },
	{ "futex_WAIT_CLOCK_REALTIME_ENOSYS", r_futex_wait_realtime, ENOSYS, LINUX_SAME, false },
	{ "futex_LOCK_PI", r_futex_lock_pi, 0, LINUX_SAME, false },
	{ "setitimer_ITIMER_VIRTUAL", r_itimer_virtual, 0, LINUX_SAME, false },
	{ "setitimer_ITIMER_PROF", r_itimer_prof, 0, LINUX_SAME, false },
	{ "setitimer_unknown_timer_EINVAL", r_itimer_unknown, EINVAL, LINUX_SAME, false },
	{ "clock_gettime_PROCESS_CPUTIME", r_clock_process, 0, LINUX_SAME, false },
	{ "clock_gettime_THREAD_CPUTIME", r_clock_thread, 0, LINUX_SAME, false },
	{ "clock_getres_PROCESS_CPUTIME", r_getres_process, 0, LINUX_SAME, false },
	{ "clock_gettime_unknown_clock_EINVAL", r_clock_unknown, EINVAL, LINUX_SAME, false },
	{ "clock_gettime_MONOTONIC_RAW", r_clock_raw, 0, LINUX_SAME, false },
	{ "clock_nanosleep_MONOTONIC_RAW_EOPNOTSUPP", r_nsleep_raw, EOPNOTSUPP, LINUX_SAME, false },
	{ "clock_nanosleep_REALTIME_COARSE_EOPNOTSUPP", r_nsleep_rt_coarse, EOPNOTSUPP, LINUX_SAME,
	  false },
	{ "clock_nanosleep_MONOTONIC_COARSE_EOPNOTSUPP", r_nsleep_mono_coarse, EOPNOTSUPP, LINUX_SAME,
	  false },
	{ "clock_nanosleep_PROCESS_CPUTIME", r_nsleep_process, 0, LINUX_SAME, false },
	{ "clock_nanosleep_THREAD_CPUTIME_EOPNOTSUPP", r_nsleep_thread, EOPNOTSUPP, LINUX_SAME, false },
	{ "clock_nanosleep_BOOTTIME", r_nsleep_boottime, 0, LINUX_SAME, false },
#ifdef SYS_arch_prctl
	{ "arch_prctl_unknown_code_EINVAL", r_arch_prctl_unknown, EINVAL, LINUX_SAME, false },
#endif
	{ "socket_AF_INET_EAFNOSUPPORT", r_socket_inet, EAFNOSUPPORT, LINUX_OK, false },
	{ "socket_AF_INET6_EAFNOSUPPORT", r_socket_inet6, EAFNOSUPPORT, LINUX_OK, false },
	{ "socket_AF_NETLINK_EAFNOSUPPORT", r_socket_netlink, EAFNOSUPPORT, LINUX_OK, false },
	{ "socket_AF_UNIX_SEQPACKET_CLOEXEC", r_socket_unix, 0, LINUX_SAME, false },
	{ "setsockopt_SO_LINGER", r_so_linger, 0, LINUX_SAME, false },
	{ "setsockopt_SO_PEEK_OFF", r_so_peek_off, 0, LINUX_SAME, false },
	{ "setsockopt_SO_MARK_ENOPROTOOPT", r_so_mark, ENOPROTOOPT, LINUX_OK, true },
	{ "setsockopt_SO_PASSCRED", r_so_passcred, 0, LINUX_SAME, false },
	{ "send_MSG_OOB_unix_stream_EOPNOTSUPP", r_msg_oob_stream, EOPNOTSUPP, LINUX_ANY, false },
	{ "eventfd2_unknown_flag_EINVAL", r_eventfd2_flag, EINVAL, LINUX_SAME, false },
	{ "eventfd2_SEMAPHORE_NONBLOCK_CLOEXEC", r_eventfd2_ok, 0, LINUX_SAME, false },
	{ "signalfd4_unknown_flag_EINVAL", r_signalfd4_flag, EINVAL, LINUX_SAME, false },
	{ "signalfd4_sizemask_4_EINVAL", r_signalfd4_size, EINVAL, LINUX_SAME, false },
	{ "signalfd_sizemask_16_EINVAL", r_signalfd_size, EINVAL, LINUX_SAME, false },
	{ "signalfd4_CLOEXEC_NONBLOCK", r_signalfd4_ok, 0, LINUX_SAME, false },
	{ "signalfd_on_an_eventfd_EINVAL", r_signalfd_not_signalfd, EINVAL, LINUX_SAME, false },
	{ "timerfd_create_MONOTONIC_RAW_EINVAL", r_timerfd_raw, EINVAL, LINUX_SAME, false },
	{ "timerfd_create_PROCESS_CPUTIME_EINVAL", r_timerfd_cpu, EINVAL, LINUX_SAME, false },
	{ "timerfd_create_BOOTTIME", r_timerfd_boottime, 0, LINUX_SAME, false },
	{ "timerfd_create_BOOTTIME_ALARM", r_timerfd_alarm, 0, LINUX_SAME, true },
	{ "timerfd_create_unknown_flag_EINVAL", r_timerfd_flag, EINVAL, LINUX_SAME, false },
	{ "timerfd_settime_unknown_flag_EINVAL", r_timerfd_settime_flag, EINVAL, LINUX_SAME, false },
	{ "timerfd_settime_ABSTIME_CANCEL_ON_SET", r_timerfd_cancel_on_set, 0, LINUX_SAME, false },
	{ "epoll_create_size_0_EINVAL", r_epoll_create_0, EINVAL, LINUX_SAME, false },
	{ "epoll_create1_unknown_flag_EINVAL", r_epoll_create1_flag, EINVAL, LINUX_SAME, false },
	{ "epoll_create1_CLOEXEC", r_epoll_create1_cloexec, 0, LINUX_SAME, false },
	{ "epoll_ctl_unknown_op_EINVAL", r_epoll_ctl_op, EINVAL, LINUX_SAME, false },
	{ "epoll_ctl_MOD_EXCLUSIVE_EINVAL", r_epoll_excl_mod, EINVAL, LINUX_SAME, false },
	{ "epoll_ctl_EXCLUSIVE_ONESHOT_EINVAL", r_epoll_excl_oneshot, EINVAL, LINUX_SAME, false },
	{ "epoll_ctl_EXCLUSIVE_ET", r_epoll_excl_ok, 0, LINUX_SAME, false },
	{ "epoll_ctl_WAKEUP", r_epoll_wakeup, 0, LINUX_SAME, false },
	{ "epoll_ctl_every_event_bit", r_epoll_every_event, 0, LINUX_SAME, false },
	{ "epoll_ctl_regular_file_EPERM", r_epoll_ctl_file, EPERM, LINUX_SAME, false },
	{ "epoll_wait_maxevents_0_EINVAL", r_epoll_wait_max0, EINVAL, LINUX_SAME, false },
	{ "epoll_pwait_sigsetsize_4_EINVAL", r_epoll_pwait_size, EINVAL, LINUX_SAME, false },
	{ "epoll_pwait2_sigsetsize_16_EINVAL", r_epoll_pwait2_size, EINVAL, LINUX_SAME, false },
	{ "timer_create_clock_10_EINVAL", r_ptimer_clock10, EINVAL, LINUX_SAME, false },
	{ "timer_create_MONOTONIC_RAW_EOPNOTSUPP", r_ptimer_raw, EOPNOTSUPP, LINUX_SAME, false },
	{ "timer_create_MONOTONIC_COARSE_EOPNOTSUPP", r_ptimer_coarse, EOPNOTSUPP, LINUX_SAME, false },
	{ "timer_create_TAI_EINVAL", r_ptimer_tai, EINVAL, LINUX_OK, false },
	{ "timer_create_BOOTTIME", r_ptimer_boottime, 0, LINUX_SAME, false },
	{ "timer_create_PROCESS_CPUTIME", r_ptimer_process, 0, LINUX_SAME, false },
	{ "timer_create_unknown_notify_EINVAL", r_ptimer_notify, EINVAL, LINUX_SAME, false },
	{ "timer_create_SIGEV_THREAD_as_signal", r_ptimer_sigev_thread, 0, LINUX_SAME, false },
	{ "timer_create_signal_65_EINVAL", r_ptimer_signo, EINVAL, LINUX_SAME, false },
	{ "timer_settime_unknown_flags_ignored", r_ptimer_settime_flag, 0, LINUX_SAME, false },
	{ "landlock_create_ruleset_not_enabled_EOPNOTSUPP", r_landlock_version, EOPNOTSUPP,
	  LINUX_ANY, false },
	{ "landlock_add_rule_not_enabled_EOPNOTSUPP", r_landlock_add, EOPNOTSUPP, LINUX_ANY, false },
	{ "landlock_restrict_self_not_enabled_EOPNOTSUPP", r_landlock_restrict, EOPNOTSUPP,
	  LINUX_ANY, false },
};

#define NROWS (int)(sizeof(rows) / sizeof(rows[0]))

static int next_row;

// One row, one KTAP line: run_cases() calls this once per row, in order.
static void run_row(void)
{
	const struct flag_row *r = &rows[next_row++];
	int want = on_switchyard || r->on_linux == LINUX_SAME ? r->err : r->on_linux;
	long rc;

	if (!on_switchyard && r->linux_root && geteuid() != 0) {
		skip("needs root on Linux");
		return;
	}
	errno = 0;
	rc = r->call();
	if (want == LINUX_ANY)
		return;
	if (want == 0)
		check_ok(rc, r->name);
	else
		check_errno(rc, want, r->name);
}

// ---- cases of more than one call --------------------------------------------------------------

// Two processes ask for the same write lock: never both get it (on
// Switchyard neither does; on Linux the first does).
static void t_locks_never_both(void)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = file_fd();
	long mine = fcntl(fd, F_SETLK, &fl);
	pid_t pid = fork_child();

	if (pid == 0) {
		int cfd = file_fd();
		_exit(fcntl(cfd, F_SETLK, &fl) == 0 ? 1 : 0);
	}
	int status = reap_child(pid);
	bool child_got = status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 1;
	check(!(mine == 0 && child_got), "both processes hold the write lock");
	check(mine == 0, "the first F_SETLK is granted");
	close(fd);
}

// F_SETPIPE_SZ sets the capacity exactly as Linux rounds it, and writes
// then stop at that capacity.
static void t_pipe_size(void)
{
	char buf[8192];
	int p[2];

	memset(buf, 'x', sizeof(buf));
	if (!check_ok(pipe2(p, O_NONBLOCK), "pipe2"))
		return;
	check(fcntl(p[0], F_GETPIPE_SZ) == 65536, "default size 64 KiB");
	check(fcntl(p[1], F_SETPIPE_SZ, 4096) == 4096, "set 4096");
	check(fcntl(p[0], F_GETPIPE_SZ) == 4096, "read back 4096 on the other end");
	check(write(p[1], buf, sizeof(buf)) == 4096, "a nonblocking write stops at 4096");
	check_errno(write(p[1], buf, 1), EAGAIN, "full at 4096");
	check(fcntl(p[1], F_SETPIPE_SZ, 100000) == 131072, "100000 rounds up to 128 KiB");
	check(fcntl(p[1], F_GETPIPE_SZ) == 131072, "read back 128 KiB");
	check(write(p[1], buf, sizeof(buf)) == sizeof(buf), "room for more after growing");
	check_errno(fcntl(p[1], F_SETPIPE_SZ, 4096), EBUSY, "shrink below the contents");
	check(read(p[0], buf, sizeof(buf)) == sizeof(buf), "the contents survive the resizes");
	check(read(p[0], buf, sizeof(buf)) == 4096, "all of them");
	check(fcntl(p[1], F_SETPIPE_SZ, 0) == 4096, "0 means one page");
	check(fcntl(p[1], F_SETPIPE_SZ, 1 << 20) == 1 << 20, "1 MiB, the default maximum");
	close(p[0]);
	close(p[1]);
}

// FIOASYNC and F_SETFL O_ASYNC set the flag only where Linux has a
// fasync method (pipes, terminals, inotify); regular files drop it
// silently.
static void t_async_flag(void)
{
	int on = 1, p[2], fd = file_fd();

	if (!check_ok(pipe(p), "pipe"))
		return;
	check_ok(ioctl(p[0], FIOASYNC, &on), "FIOASYNC on a pipe");
	check(fcntl(p[0], F_GETFL) & O_ASYNC, "FIOASYNC sets O_ASYNC");
	check_ok(fcntl(p[1], F_SETFL, O_ASYNC), "F_SETFL O_ASYNC on a pipe");
	check(fcntl(p[1], F_GETFL) & O_ASYNC, "F_SETFL sets O_ASYNC on a pipe");
	check_ok(fcntl(fd, F_SETFL, O_ASYNC | O_APPEND), "F_SETFL O_ASYNC on a file");
	check(!(fcntl(fd, F_GETFL) & O_ASYNC), "a regular file drops O_ASYNC");
	check(fcntl(fd, F_GETFL) & O_APPEND, "O_APPEND still set");
	close(fd);
	close(p[0]);
	close(p[1]);
}

// RENAME_NOREPLACE still renames to a free name.
static void t_noreplace_works(void)
{
	struct stat st;

	two_files();
	unlink(scratch("n"));
	check_ok(rename2(scratch("a"), scratch("n"), X_RENAME_NOREPLACE), "NOREPLACE to a free name");
	check(stat(scratch("n"), &st) == 0 && stat(scratch("a"), &st) != 0, "the file moved");
}

// O_PATH keeps only O_CLOEXEC, O_DIRECTORY and O_NOFOLLOW: O_CREAT does
// not create.
static void t_opath_no_create(void)
{
	struct stat st;

	unlink(scratch("p"));
	check_errno(open(scratch("p"), O_PATH | O_CREAT | O_RDWR, 0600), ENOENT, "O_PATH|O_CREAT");
	check(stat(scratch("p"), &st) != 0, "nothing was created");
}

// rt_sigaction keeps the flags Linux knows and clears the rest, so a
// program can tell which flags the kernel supports.
static void t_sigaction_flags(void)
{
	struct k_sigaction act = { (unsigned long)SIG_IGN, SA_RESTART | X_SA_UNSUPPORTED | 0x20, 0, 0 };
	struct k_sigaction old;

	check_ok(syscall(SYS_rt_sigaction, (long)SIGUSR2, &act, NULL, 8L), "set");
	check_ok(syscall(SYS_rt_sigaction, (long)SIGUSR2, NULL, &old, 8L), "read back");
	check(old.flags == SA_RESTART, "unknown flags cleared, SA_RESTART kept");
	signal(SIGUSR2, SIG_DFL);
}

static void on_usr1(int sig)
{
	(void)sig;
}

// CLONE_CLEAR_SIGHAND (glibc's posix_spawn asks for it): the child starts
// with every caught signal back at its default; ignored ones stay ignored.
static void t_clear_sighand(void)
{
	struct clone_args_v2 ca = { .flags = X_CLONE_CLEAR_SIGHAND, .exit_signal = SIGCHLD };
	long pid;

	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, SIG_IGN);
	fflush(stdout);
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0) {
		struct sigaction a1, a2;

		sigaction(SIGUSR1, NULL, &a1);
		sigaction(SIGUSR2, NULL, &a2);
		_exit(a1.sa_handler == SIG_DFL && a2.sa_handler == SIG_IGN ? 0 : 1);
	}
	if (check_ok(pid, "clone3"))
		check_child_ok((pid_t)pid, "the child's handlers");
	check(signal(SIGUSR1, SIG_DFL) == on_usr1, "the parent keeps its handler");
	signal(SIGUSR2, SIG_DFL);
}

// Stop signals stop their target (job control, user/tests/jobctl.c); one
// the target ignores does not.
static void t_stop_signals(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		signal(SIGTTIN, SIG_IGN);
		for (;;)
			pause();
	}
	if (pid < 0)
		return;
	usleep(20000);		// the child sets SIGTTIN to SIG_IGN
	int status;

	check_ok(kill(pid, SIGSTOP), "kill SIGSTOP");
	check(waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status), "stopped");
	check_ok(kill(pid, SIGCONT), "kill SIGCONT");
	check_errno(kill(-pid, SIGSTOP), ESRCH, "no such group");
	check_ok(kill(pid, SIGTTIN), "kill SIGTTIN (ignored)");
	check_ok(kill(pid, SIGCONT), "kill SIGCONT");
	kill(pid, SIGKILL);
	check_killed_by(pid, SIGKILL, "child");
}

// sysinfo counts what runs (Linux: threads) instead of a fixed 1.
static void t_sysinfo_procs(void)
{
	struct sysinfo_x {
		long uptime;
		unsigned long loads[3], totalram, freeram, sharedram, bufferram, totalswap, freeswap;
		unsigned short procs, pad;
		unsigned long totalhigh, freehigh;
		unsigned int mem_unit;
		char reserved[8];
	} si;
	pid_t pid = fork_child();

	if (pid == 0) {
		for (;;)
			pause();
	}
	if (pid < 0)
		return;
	if (check_ok(syscall(SYS_sysinfo, &si), "sysinfo"))
		check(si.procs >= 2, "at least this process and its child");
	kill(pid, SIGKILL);
	check_killed_by(pid, SIGKILL, "child");
}

// RLIMIT_NOFILE is honoured exactly, down to 0.
static void t_nofile_zero(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		struct rlimit r = { 0, 0 };

		if (setrlimit(RLIMIT_NOFILE, &r) < 0)
			_exit(1);
		_exit(dup(0) < 0 && errno == EMFILE ? 0 : 2);
	}
	check_child_ok(pid, "RLIMIT_NOFILE 0: no new descriptors");
}

// prlimit64 reads and sets another process's limits (Linux lets a
// process of the same user do this).
static void t_prlimit_other(void)
{
	struct rlimit r = { 100, 200 }, got = { 0, 0 };
	int go[2];
	pid_t pid;

	if (!check_ok(pipe(go), "pipe"))
		return;
	pid = fork_child();
	if (pid == 0) {
		char c;

		close(go[1]);
		read(go[0], &c, 1);
		getrlimit(RLIMIT_NOFILE, &r);
		_exit(r.rlim_cur == 100 && r.rlim_max == 200 ? 0 : 1);
	}
	close(go[0]);
	check_ok(syscall(SYS_prlimit64, (long)pid, (long)RLIMIT_NOFILE, &r, NULL), "set the child's");
	check_ok(syscall(SYS_prlimit64, (long)pid, (long)RLIMIT_NOFILE, NULL, &got), "read it back");
	check(got.rlim_cur == 100 && got.rlim_max == 200, "the values read back");
	close(go[1]);
	check_child_ok(pid, "the child sees its new limit");
}

// Identity: a change that succeeds is real, so getuid() never claims a
// change that did not happen (user/tests/creds.c has the rules).
static void t_identity_changes(void)
{
	pid_t pid;

	pid = fork_child();
	if (pid == 0) {
		if (setuid(1000) < 0)
			_exit(2);
		_exit(getuid() == 1000 && geteuid() == 1000 && syscall(SYS_setfsuid, -1L) == 1000 ?
			      0 : 1);
	}
	check_child_ok(pid, "IDs after setuid(1000)");
}

// sched_setscheduler refusing a change leaves SCHED_OTHER in place.  (Raw
// calls: musl does not forward these two; Linux may keep the
// SCHED_RESET_ON_FORK bit a row above set.)
static void t_sched_policy_kept(void)
{
	struct sched_param sp = { 0 }, bad = { .sched_priority = 5 };
	long policy;

	syscall(SYS_sched_setscheduler, 0L, (long)SCHED_BATCH, &bad);
	policy = syscall(SYS_sched_getscheduler, 0L);
	check(policy >= 0 && (policy & ~SCHED_RESET_ON_FORK) == SCHED_OTHER, "still SCHED_OTHER");
	syscall(SYS_sched_setscheduler, 0L, (long)SCHED_OTHER, &sp);
	policy = syscall(SYS_sched_getscheduler, 0L);
	check(policy >= 0 && (policy & ~SCHED_RESET_ON_FORK) == SCHED_OTHER, "SCHED_OTHER");
}

// The console's line controls reject what they do not know.
static void t_console_ioctls(void)
{
	int fd = open(on_switchyard ? "/dev/console" : "/dev/tty", O_RDWR | O_NOCTTY);

	if (fd < 0 || !isatty(fd)) {
		skip("no terminal");
		if (fd >= 0)
			close(fd);
		return;
	}
	check_errno(ioctl(fd, TCFLSH, 7), EINVAL, "TCFLSH with an unknown queue");
	check_errno(ioctl(fd, TCXONC, 9), EINVAL, "TCXONC with an unknown action");
	check_ok(ioctl(fd, TCXONC, TCOON), "TCXONC TCOON");
	if (on_switchyard)
		check_errno(ioctl(fd, TCXONC, TCOOFF), EINVAL, "TCXONC TCOOFF (output never stops)");
	close(fd);
}

static const struct test_case more[] = {
	{ "locks_never_granted_twice", t_locks_never_both },
	{ "pipe_size_exact", t_pipe_size },
	{ "o_async_where_linux_keeps_it", t_async_flag },
	{ "renameat2_noreplace_renames", t_noreplace_works },
	{ "o_path_does_not_create", t_opath_no_create },
	{ "rt_sigaction_clears_unknown_flags", t_sigaction_flags },
	{ "clone3_clear_sighand_resets_handlers", t_clear_sighand },
	{ "stop_signals", t_stop_signals },
	{ "sysinfo_procs", t_sysinfo_procs },
	{ "rlimit_nofile_zero", t_nofile_zero },
	{ "prlimit64_other_process", t_prlimit_other },
	{ "identity_changes", t_identity_changes },
	{ "sched_policy_kept", t_sched_policy_kept },
	{ "console_ioctls", t_console_ioctls },
};

#define NMORE (int)(sizeof(more) / sizeof(more[0]))

int main(void)
{
	static struct test_case cases[NROWS + NMORE];
	struct utsname u;
	char page[PAGE];
	int fd;

	on_switchyard = uname(&u) == 0 && strstr(u.version, "Switchyard");
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/flags-%d", (int)getpid());
	mkdir(scratch_dir, 0700);
	memset(page, 'f', sizeof(page));
	fd = open(scratch("file"), O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, page, sizeof(page)) != sizeof(page)) {
		printf("Bail out! cannot make %s\n", scratch("file"));
		return 1;
	}
	close(fd);
	for (int i = 0; i < NROWS; i++)
		cases[i] = (struct test_case){ rows[i].name, run_row };
	for (int i = 0; i < NMORE; i++)
		cases[NROWS + i] = more[i];
	run_cases(cases, NROWS + NMORE);
	for (const char *n = "file\0a\0b\0c\0n\0x\0"; *n; n += strlen(n) + 1)
		unlink(scratch(n));
	rmdir(scratch_dir);
	return ktap_finish();
}
