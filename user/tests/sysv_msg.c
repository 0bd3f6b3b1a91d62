// sysv_msg: System V message queues as Linux: msgget (IPC_PRIVATE, keys,
// IPC_CREAT|IPC_EXCL, ENOENT, permissions), msgsnd/msgrcv (types: any,
// exact, MSG_EXCEPT, the lowest not above; MSG_NOERROR and E2BIG;
// IPC_NOWAIT: EAGAIN when full, ENOMSG when empty; a blocked receiver
// woken by a sender in another process; EIDRM for a sleeper when the
// queue goes; EINTR), msgctl (IPC_STAT fields, IPC_SET rules, IPC_RMID,
// IPC_INFO, MSG_INFO, MSG_STAT) and the argument errnos.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"

#ifndef MSG_COPY
#define MSG_COPY 040000
#endif

#ifndef MSG_STAT_ANY
#define MSG_STAT_ANY 13
#endif
#include "privdrop.h"
#include "sysutil.h"
#include "sysv_cleanup.h"

struct m64 {
	long type;
	char text[64];
};

static int snd(int id, long type, const char *text, int flags)
{
	struct m64 m = { .type = type };

	strncpy(m.text, text, sizeof(m.text) - 1);
	return msgsnd(id, &m, strlen(text), flags);
}

// The text received, or "" when rcv failed.
static long rcv(int id, long type, int flags, struct m64 *m, size_t size)
{
	memset(m, 0, sizeof(*m));
	return msgrcv(id, m, size, type, flags);
}

static void t_get_and_keys(void)
{
	key_t key = 0x5e1f0000 + getpid();
	int a = msgget(key, IPC_CREAT | 0600), b;

	if (!check_ok(a, "msgget IPC_CREAT"))
		return;
	b = msgget(key, 0);
	check(b == a, "the same key gives the same queue");
	check_errno(msgget(key, IPC_CREAT | IPC_EXCL | 0600), EEXIST, "IPC_EXCL on an existing key");
	check_errno(msgget(key + 1, 0), ENOENT, "a key no queue has");
	int p1 = msgget(IPC_PRIVATE, 0600), p2 = msgget(IPC_PRIVATE, 0600);
	check(p1 >= 0 && p2 >= 0 && p1 != p2, "IPC_PRIVATE: always a new one");
	msgctl(p1, IPC_RMID, NULL);
	msgctl(p2, IPC_RMID, NULL);
	check_ok(msgctl(a, IPC_RMID, NULL), "IPC_RMID");
	check_errno(msgctl(a, IPC_STAT, &(struct msqid_ds){ 0 }), EINVAL, "gone: EINVAL");
	check_errno(msgget(key, 0), ENOENT, "its key is free");
}

static void t_types(void)
{
	int id = msgget(IPC_PRIVATE, 0600);
	struct m64 m;

	snd(id, 3, "three", 0);
	snd(id, 1, "one", 0);
	snd(id, 2, "two", 0);
	snd(id, 1, "uno", 0);
	check(rcv(id, 2, 0, &m, 64) == 3 && !strcmp(m.text, "two") && m.type == 2, "type 2 exactly");
	check(rcv(id, 3, MSG_EXCEPT, &m, 64) == 3 && !strcmp(m.text, "one"), "MSG_EXCEPT 3: the first other");
	check(rcv(id, -5, 0, &m, 64) == 3 && !strcmp(m.text, "uno"), "-5: the lowest type, 1");
	check(rcv(id, 0, 0, &m, 64) == 5 && !strcmp(m.text, "three"), "0: the first");
	check_errno(rcv(id, 0, IPC_NOWAIT, &m, 64), ENOMSG, "empty, IPC_NOWAIT: ENOMSG");
	snd(id, 4, "longer text", 0);
	check_errno(rcv(id, 0, 0, &m, 4), E2BIG, "a buffer too small: E2BIG");
	check(rcv(id, 0, MSG_NOERROR, &m, 4) == 4 && !strncmp(m.text, "long", 4),
	      "MSG_NOERROR: cut to the buffer");
	msgctl(id, IPC_RMID, NULL);
}

static void t_full_and_stat(void)
{
	int id = msgget(IPC_PRIVATE, 0640);
	struct msqid_ds ds;
	char big[8192] = { 0 };
	struct { long type; char text[8192]; } *m = malloc(sizeof(*m));
	int sent = 0;

	m->type = 1;
	memcpy(m->text, big, sizeof(big));
	while (msgsnd(id, m, sizeof(m->text), IPC_NOWAIT) == 0)
		sent++;
	check(errno == EAGAIN && sent == 2, "a 16384-byte queue holds two 8192-byte messages, then EAGAIN");
	check_ok(msgctl(id, IPC_STAT, &ds), "IPC_STAT");
	check(ds.msg_qnum == 2 && ds.msg_cbytes == 16384 && ds.msg_qbytes == 16384 &&
	      ds.msg_lspid == getpid() && ds.msg_perm.mode == 0640 && ds.msg_perm.uid == getuid() &&
	      ds.msg_stime > 0, "its fields");
	check_errno(msgsnd(id, m, 8193, IPC_NOWAIT), EINVAL, "above msgmax");
	m->type = 0;
	check_errno(msgsnd(id, m, 1, IPC_NOWAIT), EINVAL, "type 0");
	check_errno(msgsnd(id, (void *)8, 1, IPC_NOWAIT), EFAULT, "a bad message");
	check_errno(msgsnd(-1, m, 1, IPC_NOWAIT), EINVAL, "id -1");
	// Above msgmnb needs CAP_SYS_RESOURCE (which root in a container may
	// lack: then EPERM, and nothing changes).
	ds.msg_qbytes = 32768;
	long set = msgctl(id, IPC_SET, &ds);
	check(set == 0 || errno == EPERM, "IPC_SET above msgmnb");
	m->type = 1;
	if (set == 0)
		check_ok(msgsnd(id, m, 8192, IPC_NOWAIT), "room for a third");
	ds.msg_qbytes = 8192;
	check_ok(msgctl(id, IPC_SET, &ds), "IPC_SET lowering qbytes: the owner may");
	check_errno(msgsnd(id, m, 1, IPC_NOWAIT), EAGAIN, "no room now");
	struct msginfo mi;
	check(msgctl(0, IPC_INFO, (struct msqid_ds *)&mi) >= 0 && mi.msgmax == 8192 && mi.msgmnb == 16384,
	      "IPC_INFO: the limits");
	int slot = msgctl(0, MSG_INFO, (struct msqid_ds *)&mi);
	check(slot >= 0 && mi.msgpool >= 1 && mi.msgmap >= 2, "MSG_INFO: queues and messages in use");
	int found = 0;
	for (int i = 0; i <= slot; i++)
		if (msgctl(i, MSG_STAT, &ds) == id)
			found = 1;
	check(found, "MSG_STAT by slot gives the id");
	// The slot is the identifier's low 15 bits, so the identifier itself
	// works as one (Linux's ipcid_to_idx; LTP msgctl06).
	check(msgctl(id, MSG_STAT, &ds) == id, "MSG_STAT of the identifier itself");
	check(msgctl(id, MSG_STAT_ANY, &ds) == id, "MSG_STAT_ANY of it");
	msgctl(id, IPC_RMID, NULL);
	free(m);
}

static void t_blocking_across_processes(void)
{
	int id = msgget(IPC_PRIVATE, 0600);
	struct m64 m;
	pid_t pid = fork_child();

	if (pid == 0) {
		usleep(50000);
		_exit(snd(id, 7, "later", 0) == 0 ? 0 : 1);
	}
	check(rcv(id, 7, 0, &m, 64) == 5 && !strcmp(m.text, "later"), "woken by the other process");
	check_child_ok(pid, "the sender");
	msgctl(id, IPC_RMID, NULL);
}

static void t_removed_while_waiting(void)
{
	int id = msgget(IPC_PRIVATE, 0600);
	pid_t pid = fork_child();

	if (pid == 0) {
		struct m64 m;

		_exit(rcv(id, 0, 0, &m, 64) == -1 && errno == EIDRM ? 0 : 1);
	}
	usleep(100000);
	check_ok(msgctl(id, IPC_RMID, NULL), "remove it under the sleeper");
	check_child_ok(pid, "the sleeper: EIDRM");
}

static void on_alarm(int sig) { (void)sig; }

static void t_eintr(void)
{
	int id = msgget(IPC_PRIVATE, 0600);
	pid_t pid = fork_child();

	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_alarm };
		struct itimerval it = { .it_value = { 0, 50000 } };
		struct m64 m;

		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		_exit(rcv(id, 0, 0, &m, 64) == -1 && errno == EINTR ? 0 : 1);
	}
	check_child_ok(pid, "a handled signal: EINTR");
	msgctl(id, IPC_RMID, NULL);
}

// Root's queues, made by the parent and looked at by a child that has
// dropped to uid 1000.
static int root_only, open_to_all;

static int c_permissions(void)
{
	struct msqid_ds ds;

	if (drop_to(U1, G1, 0, NULL))
		return 1;
	if (c_err(snd(root_only, 1, "x", IPC_NOWAIT), EACCES, "send to root's 0600 queue") ||
	    c_err(msgctl(root_only, IPC_STAT, &ds), EACCES, "IPC_STAT of it") ||
	    c_err(msgctl(root_only, IPC_RMID, NULL), EPERM, "IPC_RMID of it") ||
	    c_ok(snd(open_to_all, 1, "y", IPC_NOWAIT), "send to a 0666 queue") ||
	    c_ok(msgctl(open_to_all, IPC_STAT, &ds), "IPC_STAT"))
		return 1;
	return c_err(msgctl(open_to_all, IPC_SET, &ds), EPERM, "IPC_SET of root's queue");
}

static void t_permissions(void)
{
	root_only = msgget(IPC_PRIVATE, 0600);
	open_to_all = msgget(IPC_PRIVATE, 0666);
	in_child(c_permissions, "permissions");
	msgctl(root_only, IPC_RMID, NULL);
	msgctl(open_to_all, IPC_RMID, NULL);
}

static long read_long(const char *path)
{
	char buf[64];

	return read_file(path, buf, sizeof(buf)) > 0 ? strtol(buf, NULL, 10) : -1;
}

// 0, or the errno (sysutil.h's write_file).
static int write_long(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", v);
	return write_file(path, buf);
}

// /proc/sys/kernel/msgmax, msgmnb and msgmni are the limits msgsnd,
// msgget and IPC_INFO obey, writable by root as Linux's (LTP msgget03).
static void t_sysctl_limits(void)
{
	long msgmax = read_long("/proc/sys/kernel/msgmax");
	long msgmnb = read_long("/proc/sys/kernel/msgmnb");
	long msgmni = read_long("/proc/sys/kernel/msgmni");
	struct msginfo mi;
	struct { long type; char text[64]; } m = { 1, "0123456789" };
	int id = msgget(IPC_PRIVATE, IPC_CREAT | 0600), id2;

	check(msgmax > 0 && msgmnb > 0 && msgmni > 0, "msgmax, msgmnb, msgmni read");
	check(msgctl(0, IPC_INFO, (struct msqid_ds *)&mi) >= 0 && mi.msgmax == msgmax &&
	      mi.msgmnb == msgmnb && mi.msgmni == msgmni, "IPC_INFO agrees");
	check(write_file("/proc/sys/kernel/msgmax", "-1") == EINVAL, "msgmax -1: EINVAL");
	check(write_file("/proc/sys/kernel/msgmni", "40000") == EINVAL,
		    "msgmni above 32768: EINVAL");
	check(write_long("/proc/sys/kernel/msgmax", 4) == 0, "msgmax 4");
	check_errno(msgsnd(id, &m, 5, IPC_NOWAIT), EINVAL, "a 5-byte message now: EINVAL");
	check_ok(msgsnd(id, &m, 4, IPC_NOWAIT), "a 4-byte one");
	write_long("/proc/sys/kernel/msgmax", msgmax);
	check_ok(msgsnd(id, &m, 10, IPC_NOWAIT), "10 bytes once msgmax is back");
	check_errno(msgrcv(id, &m, 2, 1, IPC_NOWAIT | MSG_COPY | MSG_NOERROR), EINVAL,
		    "MSG_COPY into too small a buffer: EINVAL even with MSG_NOERROR");
	int in_use = msgctl(0, MSG_INFO, (struct msqid_ds *)&mi) >= 0 ? mi.msgpool : -1;
	check(write_long("/proc/sys/kernel/msgmni", in_use + 1) == 0, "msgmni: one queue more");
	id2 = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	check(id2 >= 0, "that one");
	check_errno(msgget(IPC_PRIVATE, IPC_CREAT | 0600), ENOSPC, "then ENOSPC");
	write_long("/proc/sys/kernel/msgmni", msgmni);
	check(read_long("/proc/sys/kernel/msgmni") == msgmni, "msgmni restored");
	msgctl(id, IPC_RMID, NULL);
	msgctl(id2, IPC_RMID, NULL);
}

// msg_next_id (Linux's CONFIG_CHECKPOINT_RESTORE): the identifier the next
// queue gets, -1 again once taken (LTP msgget04).
static void t_next_id(void)
{
	long want = (7L << 15) | 4242;
	int id;

	check(read_long("/proc/sys/kernel/msg_next_id") == -1, "unset: -1");
	check(write_file("/proc/sys/kernel/msg_next_id", "-5") == EINVAL, "-5: EINVAL");
	check(write_long("/proc/sys/kernel/msg_next_id", want) == 0, "ask for one");
	id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	check(id == want, "the next queue has it");
	check(read_long("/proc/sys/kernel/msg_next_id") == -1, "taken: -1 again");
	check(read_long("/proc/sys/kernel/sem_next_id") == -1, "sem_next_id: -1");
	msgctl(id, IPC_RMID, NULL);
}

// /proc/sysvipc/msg: Linux's header and a line per queue, parsed by
// position as ipcs-style tools do.
static void t_proc_sysvipc(void)
{
	key_t key = 0x5a5a0000 + getpid();
	int id = msgget(key, IPC_CREAT | 0640);
	struct { long type; char text[8]; } m = { 3, "abcde" };
	static const char header[] = "       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  "
				    "cuid  cgid      stime      rtime      ctime\n";
	static char text[1 << 16];
	int found = 0;

	msgsnd(id, &m, 5, 0);
	if (!check(read_file("/proc/sysvipc/msg", text, sizeof(text)) >= 0,
		   "read /proc/sysvipc/msg"))
		return;
	check(strncmp(text, header, strlen(header)) == 0, "Linux's header");
	for (char *line = strchr(text, '\n'); line && *line; line = strchr(line + 1, '\n')) {
		int k, i, lspid;
		unsigned mode;
		unsigned long cbytes, qnum;

		if (sscanf(line + 1, "%d %d %o %lu %lu %d", &k, &i, &mode, &cbytes, &qnum,
			   &lspid) == 6 && k == key)
			found = i == id && mode == 0640 && cbytes == 5 && qnum == 1 &&
				lspid == getpid();
	}
	check(found, "our queue's line: id, mode, bytes, messages, sender");
	msgctl(id, IPC_RMID, NULL);
}

static const struct test_case cases[] = {
	{ "msgget_keys_and_private", t_get_and_keys },
	{ "msgrcv_by_type", t_types },
	{ "full_queue_stat_set_info", t_full_and_stat },
	{ "receiver_woken_across_processes", t_blocking_across_processes },
	{ "removed_while_waiting_EIDRM", t_removed_while_waiting },
	{ "interrupted_EINTR", t_eintr },
	{ "permissions", t_permissions },
	{ "sysctl_limits", t_sysctl_limits },
	{ "msg_next_id", t_next_id },
	{ "proc_sysvipc_msg", t_proc_sysvipc },
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
