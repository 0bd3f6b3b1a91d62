// sysv_sem: System V semaphores as Linux: semget (sizes, keys, EEXIST,
// ENOENT, EINVAL), semctl values (GETVAL/SETVAL/GETALL/SETALL, ERANGE,
// GETPID, GETNCNT/GETZCNT, IPC_STAT, IPC_RMID), semop (all or nothing,
// IPC_NOWAIT, EFBIG, E2BIG), waiting for an increase or for zero across
// processes, semtimedop's timeout, SEM_UNDO undone at exit, EIDRM for a
// sleeper when the set goes, EINTR, permissions.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"

#ifndef SEM_STAT_ANY
#define SEM_STAT_ANY 20
#endif
#include "privdrop.h"
#include "sysutil.h"
#include "sysv_cleanup.h"

static int op(int id, int num, int delta, int flags)
{
	struct sembuf b = { .sem_num = (unsigned short)num, .sem_op = (short)delta,
			    .sem_flg = (short)flags };

	return semop(id, &b, 1);
}

static void t_get_and_values(void)
{
	key_t key = 0x5e3a0000 + getpid();
	int id = semget(key, 3, IPC_CREAT | 0600);
	unsigned short all[3] = { 9, 9, 9 };

	if (!check_ok(id, "semget 3"))
		return;
	check(semget(key, 2, 0) == id, "the same key, fewer semaphores");
	check_errno(semget(key, 4, 0), EINVAL, "more than it has");
	check_errno(semget(key, 3, IPC_CREAT | IPC_EXCL | 0600), EEXIST, "IPC_EXCL");
	check_errno(semget(key + 1, 1, 0), ENOENT, "no such key");
	check_errno(semget(IPC_PRIVATE, 0, 0600), EINVAL, "a new set of none");
	check_errno(semget(IPC_PRIVATE, 32001, 0600), EINVAL, "above semmsl");
	check(semctl(id, 0, GETALL, all) == 0 && !all[0] && !all[1] && !all[2], "zeros at first");
	check_ok(semctl(id, 1, SETVAL, 5), "SETVAL");
	check(semctl(id, 1, GETVAL) == 5, "GETVAL");
	check(semctl(id, 1, GETPID) == getpid(), "GETPID: the setter");
	check_errno(semctl(id, 1, SETVAL, 32768), ERANGE, "above semvmx");
	check_errno(semctl(id, 3, GETVAL), EINVAL, "semaphore 3 of 3");
	unsigned short set[3] = { 1, 2, 3 };
	check_ok(semctl(id, 0, SETALL, set), "SETALL");
	check(semctl(id, 2, GETVAL) == 3, "the values set");
	struct semid_ds ds;
	check(semctl(id, 0, IPC_STAT, &ds) == 0 && ds.sem_nsems == 3 && (ds.sem_perm.mode & 0777) == 0600,
	      "IPC_STAT");
	check(semctl(id, 0, SEM_STAT, &ds) == id && ds.sem_nsems == 3,
	      "SEM_STAT of the identifier (its low bits are its slot)");
	check(semctl(id, 0, SEM_STAT_ANY, &ds) == id, "SEM_STAT_ANY of it");
	check_ok(semctl(id, 0, IPC_RMID), "IPC_RMID");
	check_errno(semctl(id, 0, GETVAL), EINVAL, "gone");
}

static void t_semop_all_or_nothing(void)
{
	int id = semget(IPC_PRIVATE, 2, 0600);
	struct sembuf two[2] = { { 0, 1, 0 }, { 1, -1, IPC_NOWAIT } };
	struct sembuf many[501];

	check_errno(semop(id, two, 2), EAGAIN, "the second would block");
	check(semctl(id, 0, GETVAL) == 0, "so the first did not happen");
	check_ok(op(id, 1, 2, 0), "+2");
	check_ok(semop(id, two, 2), "now both");
	check(semctl(id, 0, GETVAL) == 1 && semctl(id, 1, GETVAL) == 1, "both applied");
	check_errno(op(id, 2, 1, 0), EFBIG, "semaphore 2 of 2");
	check_errno(semop(id, two, 0), EINVAL, "no operations");
	memset(many, 0, sizeof(many));
	check_errno(semop(id, many, 501), E2BIG, "501 operations");
	check_errno(op(id, 0, 32767, 0), ERANGE, "past semvmx");
	check_errno(op(id, 0, 0, IPC_NOWAIT), EAGAIN, "wait for zero, IPC_NOWAIT");
	semctl(id, 0, IPC_RMID);
}

static void t_waiters_across_processes(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600);
	pid_t pid = fork_child();

	if (pid == 0)
		_exit(op(id, 0, -1, 0) == 0 ? 0 : 1);	// waits for an increase
	for (int i = 0; i < 200 && semctl(id, 0, GETNCNT) != 1; i++)
		usleep(5000);
	check(semctl(id, 0, GETNCNT) == 1, "GETNCNT: one waiting for an increase");
	check_ok(op(id, 0, 1, 0), "+1");
	check_child_ok(pid, "the waiter took it");
	check(semctl(id, 0, GETVAL) == 0, "and left 0");
	// Waiting for zero.
	semctl(id, 0, SETVAL, 1);
	pid = fork_child();
	if (pid == 0)
		_exit(op(id, 0, 0, 0) == 0 ? 0 : 1);
	for (int i = 0; i < 200 && semctl(id, 0, GETZCNT) != 1; i++)
		usleep(5000);
	check(semctl(id, 0, GETZCNT) == 1, "GETZCNT: one waiting for zero");
	check_ok(op(id, 0, -1, 0), "-1");
	check_child_ok(pid, "the zero waiter woke");
	semctl(id, 0, IPC_RMID);
}

static void t_timedop(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600);
	struct sembuf b = { 0, -1, 0 };
	struct timespec ts = { 0, 30 * 1000 * 1000 }, a, z, bad = { 0, 1000000000 };

	clock_gettime(CLOCK_MONOTONIC, &a);
	check_errno(semtimedop(id, &b, 1, &ts), EAGAIN, "semtimedop runs out: EAGAIN");
	clock_gettime(CLOCK_MONOTONIC, &z);
	check((z.tv_sec - a.tv_sec) * 1000 + (z.tv_nsec - a.tv_nsec) / 1000000 >= 29, "after the timeout");
	check_errno(semtimedop(id, &b, 1, &bad), EINVAL, "a bad timespec");
	semctl(id, 0, IPC_RMID);
}

static void t_undo(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600);
	pid_t pid = fork_child();

	if (pid == 0)
		_exit(op(id, 0, 3, SEM_UNDO) == 0 && semctl(id, 0, GETVAL) == 3 ? 0 : 1);
	check_child_ok(pid, "the child added 3 with SEM_UNDO");
	check(semctl(id, 0, GETVAL) == 0, "undone at its exit");
	semctl(id, 0, IPC_RMID);
}

static void on_alarm(int sig) { (void)sig; }

static void t_removed_and_eintr(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600);
	pid_t pid = fork_child();

	if (pid == 0)
		_exit(op(id, 0, -1, 0) == -1 && errno == EIDRM ? 0 : 1);
	usleep(100000);
	semctl(id, 0, IPC_RMID);
	check_child_ok(pid, "a sleeper when the set goes: EIDRM");
	id = semget(IPC_PRIVATE, 1, 0600);
	pid = fork_child();
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_alarm };	// no SA_RESTART
		struct itimerval it = { .it_value = { 0, 50000 } };

		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		_exit(op(id, 0, -1, 0) == -1 && errno == EINTR ? 0 : 1);
	}
	check_child_ok(pid, "a handled signal: EINTR");
	semctl(id, 0, IPC_RMID);
}

static int root_set;

static int c_permissions(void)
{
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	return c_err(op(root_set, 0, 1, IPC_NOWAIT), EACCES, "semop on root's 0600 set") ||
	       c_err(semctl(root_set, 0, GETVAL), EACCES, "GETVAL of it") ||
	       c_err(semctl(root_set, 0, IPC_RMID), EPERM, "IPC_RMID of it");
}

static void t_permissions(void)
{
	root_set = semget(IPC_PRIVATE, 1, 0600);
	in_child(c_permissions, "permissions");
	semctl(root_set, 0, IPC_RMID);
}

static int read_sem(int v[4])
{
	char buf[128];

	return read_file("/proc/sys/kernel/sem", buf, sizeof(buf)) > 0 &&
	       sscanf(buf, "%d %d %d %d", &v[0], &v[1], &v[2], &v[3]) == 4 ? 0 : -1;
}

// /proc/sys/kernel/sem: "semmsl semmns semopm semmni", the limits semget
// and semop obey, writable by root as Linux's (LTP semget05).
static void t_sysctl_sem(void)
{
	int v[4], w[4];
	char text[96];
	struct sembuf two[2] = { { 0, 1, 0 }, { 0, -1, 0 } };
	int id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	struct seminfo si;

	if (!check_ok(read_sem(v), "read the four limits"))
		return;
	check(semctl(0, 0, IPC_INFO, &si) >= 0 && si.semmsl == v[0] && si.semmns == v[1] &&
	      si.semopm == v[2] && si.semmni == v[3], "IPC_INFO agrees");
	check(write_file("/proc/sys/kernel/sem", "abc") == EINVAL, "not a number: EINVAL");
	snprintf(text, sizeof(text), "%d %d 1 %d", v[0], v[1], v[3]);
	check(write_file("/proc/sys/kernel/sem", text) == 0, "semopm 1");
	check(read_sem(w) == 0 && w[2] == 1 && w[0] == v[0], "read back");
	check_errno(semop(id, two, 2), E2BIG, "two operations now: E2BIG");
	snprintf(text, sizeof(text), "%d\t%d\t%d\t%d\n", v[0], v[1], v[2], v[3]);
	check(write_file("/proc/sys/kernel/sem", text) == 0, "restored");
	check_ok(semop(id, two, 2), "two operations again");
	semctl(id, 0, IPC_RMID);
}

// /proc/sysvipc/sem: Linux's header and a line per set.
static void t_proc_sysvipc(void)
{
	key_t key = 0x5a5b0000 + getpid();
	int id = semget(key, 4, IPC_CREAT | 0604);
	static const char header[] = "       key      semid perms      nsems   uid   gid  cuid  cgid      otime "
				    "     ctime\n";
	static char text[1 << 16];
	int found = 0;

	if (!check(read_file("/proc/sysvipc/sem", text, sizeof(text)) >= 0,
		   "read /proc/sysvipc/sem"))
		return;
	check(strncmp(text, header, strlen(header)) == 0, "Linux's header");
	for (char *line = strchr(text, '\n'); line && *line; line = strchr(line + 1, '\n')) {
		int k, i;
		unsigned mode, nsems, uid;

		if (sscanf(line + 1, "%d %d %o %u %u", &k, &i, &mode, &nsems, &uid) == 5 && k == key)
			found = i == id && mode == 0604 && nsems == 4 && uid == getuid();
	}
	check(found, "our set's line: id, mode, semaphores, owner");
	semctl(id, 0, IPC_RMID);
}

static const struct test_case cases[] = {
	{ "semget_and_values", t_get_and_values },
	{ "semop_all_or_nothing", t_semop_all_or_nothing },
	{ "waiters_across_processes", t_waiters_across_processes },
	{ "semtimedop_timeout", t_timedop },
	{ "sem_undo_at_exit", t_undo },
	{ "removed_EIDRM_and_EINTR", t_removed_and_eintr },
	{ "permissions", t_permissions },
	{ "sysctl_sem", t_sysctl_sem },
	{ "proc_sysvipc_sem", t_proc_sysvipc },
};

int main(void)
{
	privdrop_init();
	// What a case that stopped half-way left goes now: the objects
	// outlive us, and the memory check after the tests would count them.
	bool on_switchyard = access("/proc/switchyard", F_OK) == 0;
	if (on_switchyard)
		sysv_note_objects();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	if (on_switchyard)
		sysv_remove_new_objects();
	return ktap_finish();
}
