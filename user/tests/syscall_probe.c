// syscall_probe: calls every x86-64 system call number that Linux 6.1
// defines (0..334 and 424..450), each in a forked child with arguments
// that make an implemented call fail early (all -1) and an alarm for the
// few that wait, and lists those that answer ENOSYS.  On Switchyard the
// list may only shrink: every number in it must be in 'enosys_expected'
// below, the record of what is deliberately or not yet implemented (the
// test fails when a number returns ENOSYS that is not there, and says
// which listed ones have since been implemented, so the record can be
// trimmed).  On Linux it only reports its count.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"

#define LAST_CLASSIC	334
#define FIRST_NEW	424
#define LAST_NEW	450

// What Switchyard answers ENOSYS for today: IP networking, modules,
// BPF, io_uring, ptrace, namespaces and mounts, and the rest of Linux
// compatibility II (docs/syscalls.md).
static const int enosys_expected[] = {
	27,				// mincore
	29, 30, 31,			// shmget shmat shmctl
	40,				// sendfile
	41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55,	// sockets
	64, 65, 66, 67, 68, 69, 70, 71,	// semget semop semctl shmdt msgget msgsnd msgrcv msgctl
	78,				// getdents (the 32-bit-inode form; libcs use getdents64)
	101,				// ptrace
	103,				// syslog
	132,				// utime
	134,				// uselib
	136,				// ustat
	139,				// sysfs
	140, 141,			// getpriority setpriority
	154,				// modify_ldt
	155,				// pivot_root
	156,				// _sysctl
	159,				// adjtimex
	163,				// acct
	164,				// settimeofday
	165, 166,			// mount umount2
	167, 168,			// swapon swapoff
	169,				// reboot
	172, 173,			// iopl ioperm
	174, 175, 176, 177, 178,	// create_module init_module delete_module get_kernel_syms query_module
	179,				// quotactl
	180,				// nfsservctl
	181, 182, 183, 184, 185,	// getpmsg putpmsg afs_syscall tuxcall security
	187,				// readahead
	202,				// futex: an unknown operation is ENOSYS, as on Linux
	205, 211,			// set_thread_area get_thread_area
	206, 207, 208, 209, 210,	// io_setup io_destroy io_getevents io_submit io_cancel
	212,				// lookup_dcookie
	213, 214, 215,			// epoll_create epoll_ctl_old epoll_wait_old
	216,				// remap_file_pages
	219,				// restart_syscall
	220,				// semtimedop
	221,				// fadvise64
	222, 223, 224, 225, 226,	// timer_create timer_settime timer_gettime timer_getoverrun timer_delete
	227,				// clock_settime
	232, 233,			// epoll_wait epoll_ctl
	235,				// utimes
	236,				// vserver
	237, 238, 239,			// mbind set_mempolicy get_mempolicy
	240, 241, 242, 243, 244, 245,	// mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr
	246,				// kexec_load
	248, 249, 250,			// add_key request_key keyctl
	251, 252,			// ioprio_set ioprio_get
	253, 254, 255,			// inotify_init inotify_add_watch inotify_rm_watch
	256,				// migrate_pages
	261,				// futimesat
	275,				// splice
	276, 277, 278,			// tee sync_file_range vmsplice
	279,				// move_pages
	281,				// epoll_pwait
	288,				// accept4
	285,				// fallocate
	291,				// epoll_create1
	294,				// inotify_init1
	298,				// perf_event_open
	299, 307,			// recvmmsg sendmmsg
	300, 301,			// fanotify_init fanotify_mark
	303, 304,			// name_to_handle_at open_by_handle_at
	305,				// clock_adjtime
	308,				// setns
	310, 311,			// process_vm_readv process_vm_writev
	313,				// finit_module
	314, 315,			// sched_setattr sched_getattr
	317,				// seccomp
	320,				// kexec_file_load
	321,				// bpf
	323,				// userfaultfd
	325,				// mlock2
	326,				// copy_file_range
	327, 328,			// preadv2 pwritev2
	329, 330, 331,			// pkey_mprotect pkey_alloc pkey_free
	333,				// io_pgetevents
	425, 426, 427,			// io_uring_setup io_uring_enter io_uring_register
	428, 429, 430, 431, 432, 433,	// open_tree move_mount fsopen fsconfig fsmount fspick
	437,				// openat2
	440,				// process_madvise
	441,				// epoll_pwait2
	442,				// mount_setattr
	443, 444, 445, 446,		// quotactl_fd landlock_create_ruleset landlock_add_rule landlock_restrict_self
	447,				// memfd_secret
	448,				// process_mrelease
	449,				// futex_waitv
	450,				// set_mempolicy_home_node
};

static bool on_switchyard(void)
{
	struct utsname u;

	return uname(&u) == 0 && strstr(u.version, "Switchyard") != NULL;
}

static bool expected(int nr)
{
	for (size_t i = 0; i < sizeof(enosys_expected) / sizeof(enosys_expected[0]); i++)
		if (enosys_expected[i] == nr)
			return true;
	return false;
}

// 1 if 'nr' answers ENOSYS, 0 if not, -1 if the probe itself failed.
static int is_enosys(int nr)
{
	int status;
	pid_t pid = fork_child();	// default signal actions, its own watchdog

	if (pid == 0) {
		// A call that waits (pause, wait4...) is implemented: cut short.
		struct itimerval it = { .it_value = { 0, 200000 } };

		setitimer(ITIMER_REAL, &it, NULL);
		long rc = syscall(nr, -1L, -1L, -1L, -1L, -1L, -1L);
		_exit(rc == -1 && errno == ENOSYS ? 42 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 42;
}

static void t_probe(void)
{
	int enosys = 0, unexpected = 0, implemented_now = 0;
	char list[4096] = "", news[1024] = "";
	size_t len = 0, nlen = 0;

	for (int nr = 0; nr <= LAST_NEW; nr++) {
		if (nr > LAST_CLASSIC && nr < FIRST_NEW)
			continue;
		int r = is_enosys(nr);
		if (r < 0) {
			fail("probe of %d failed", nr);
			return;
		}
		if (r) {
			enosys++;
			if (len < sizeof(list) - 8)
				len += (size_t)snprintf(list + len, sizeof(list) - len, " %d", nr);
			if (!expected(nr)) {
				unexpected++;
				if (nlen < sizeof(news) - 8)
					nlen += (size_t)snprintf(news + nlen, sizeof(news) - nlen, " %d", nr);
			}
		} else if (expected(nr)) {
			implemented_now++;
		}
	}
	printf("# %d numbers answer ENOSYS:%s\n", enosys, list);
	if (!on_switchyard())
		return;
	if (implemented_now)
		printf("# %d numbers of the record are implemented now: trim enosys_expected\n",
		       implemented_now);
	if (unexpected)
		fail("%d numbers answer ENOSYS that the record does not list:%s", unexpected, news);
}

static const struct test_case cases[] = {
	{ "enosys_list_only_shrinks", t_probe },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
