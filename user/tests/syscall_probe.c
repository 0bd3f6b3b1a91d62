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
#include <sys/msg.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"

#define LAST_CLASSIC	334
#define FIRST_NEW	424
#define LAST_NEW	450

// What Switchyard answers ENOSYS for today, as the probe found it:
// ptrace, mounts and namespaces, swap, quotas, keys, BPF and perf,
// io_uring, fanotify, userfaultfd, memfd_secret, LDT and I/O ports,
// reboot, the nice and sched_attr calls (the scheduler's classes and
// priorities come with them), and what Linux itself lacks (marked):
// 59 numbers.  docs/syscalls.md ("Left out") says why each is.
static const int enosys_expected[] = {
	101,				// ptrace
	134,				// uselib (ENOSYS on Linux 6.1 too, with these arguments)
	154,				// modify_ldt
	155,				// pivot_root
	156,				// _sysctl (ENOSYS on Linux 6.1 too, with these arguments)
	165,				// mount
	166,				// umount2
	167,				// swapon
	168,				// swapoff
	169,				// reboot
	172,				// iopl
	173,				// ioperm
	174,				// create_module (ENOSYS on Linux 6.1 too, with these arguments)
	175,				// init_module (ENOSYS on Linux 6.1 too, with these arguments)
	176,				// delete_module (ENOSYS on Linux 6.1 too, with these arguments)
	177,				// get_kernel_syms (ENOSYS on Linux 6.1 too, with these arguments)
	178,				// query_module (ENOSYS on Linux 6.1 too, with these arguments)
	179,				// quotactl
	180,				// nfsservctl (ENOSYS on Linux 6.1 too, with these arguments)
	181,				// getpmsg (ENOSYS on Linux 6.1 too, with these arguments)
	182,				// putpmsg (ENOSYS on Linux 6.1 too, with these arguments)
	183,				// afs_syscall (ENOSYS on Linux 6.1 too, with these arguments)
	184,				// tuxcall (ENOSYS on Linux 6.1 too, with these arguments)
	185,				// security (ENOSYS on Linux 6.1 too, with these arguments)
	202,				// futex (an unknown operation, as on Linux)
	205,				// set_thread_area (ENOSYS on Linux 6.1 too, with these arguments)
	211,				// get_thread_area (ENOSYS on Linux 6.1 too, with these arguments)
	212,				// lookup_dcookie (ENOSYS on Linux 6.1 too, with these arguments)
	214,				// epoll_ctl_old (ENOSYS on Linux 6.1 too, with these arguments)
	215,				// epoll_wait_old (ENOSYS on Linux 6.1 too, with these arguments)
	236,				// vserver (ENOSYS on Linux 6.1 too, with these arguments)
	246,				// kexec_load (ENOSYS on Linux 6.1 too, with these arguments)
	248,				// add_key
	249,				// request_key
	250,				// keyctl
	298,				// perf_event_open
	300,				// fanotify_init
	301,				// fanotify_mark
	308,				// setns
	313,				// finit_module (ENOSYS on Linux 6.1 too, with these arguments)
	320,				// kexec_file_load (ENOSYS on Linux 6.1 too, with these arguments)
	321,				// bpf
	323,				// userfaultfd
	425,				// io_uring_setup
	426,				// io_uring_enter
	427,				// io_uring_register
	428,				// open_tree
	429,				// move_mount
	430,				// fsopen
	431,				// fsconfig
	432,				// fsmount
	433,				// fspick
	442,				// mount_setattr
	443,				// quotactl_fd
	447,				// memfd_secret
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
	// msgget(-1, -1) made a queue (key -1, IPC_CREAT): it outlives its
	// maker, as System V objects do; remove it.
	int q = msgget(-1, 0);
	if (q >= 0)
		msgctl(q, IPC_RMID, NULL);
	// Not semget(-1, -1, -1): a negative count is EINVAL before any set.
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
