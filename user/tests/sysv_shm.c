// sysv_shm: System V shared memory as Linux: shmget (keys, IPC_PRIVATE,
// IPC_CREAT/IPC_EXCL, sizes: EINVAL, ENOENT, EEXIST), shmat/shmdt (two
// attachments share the bytes, at an address, SHM_RND, SHM_REMAP, SHM_RDONLY
// faults on a write and refuses mprotect, SHM_EXEC, EINVAL cases), the
// IPC_STAT fields (segsz, cpid, lpid, nattch, times, mode), IPC_RMID while
// attached (SHM_DEST, the key made private, gone at the last detach),
// attachments inherited by fork and dropped by exec and exit, mprotect
// pieces counted and detached together, IPC_SET, SHM_LOCK/SHM_UNLOCK,
// IPC_INFO/SHM_INFO/SHM_STAT/SHM_STAT_ANY, permissions for another user
// (EACCES, EPERM), the sysctls (shmmax, shmall, shmmni, shm_next_id) and
// /proc/sysvipc/shm.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"
#include "sysutil.h"
#include "sysv_cleanup.h"

#define PAGE 4096
#ifndef SHM_STAT_ANY
#define SHM_STAT_ANY 15
#endif
#ifndef SHM_EXEC
#define SHM_EXEC 0100000
#endif
#ifndef SHM_DEST
#define SHM_DEST 01000
#endif
#ifndef SHM_LOCKED
#define SHM_LOCKED 02000
#endif

static char *self_path;

static int nattch(int id)
{
	struct shmid_ds ds;

	return shmctl(id, IPC_STAT, &ds) == 0 ? (int)ds.shm_nattch : -1;
}

static char *attach(int id, const void *addr, int flags)
{
	char *p = shmat(id, addr, flags);

	if (p == (char *)-1) {
		fail("shmat: errno=%d", errno);
		return NULL;
	}
	return p;
}

static void t_get_and_keys(void)
{
	key_t key = 0x5b000000 + getpid();
	int id, id2;

	check_errno(shmget(IPC_PRIVATE, 0, 0600), EINVAL, "size 0");
	check_errno(shmget(key, PAGE, 0600), ENOENT, "unknown key without IPC_CREAT");
	id = shmget(key, 2 * PAGE, IPC_CREAT | 0600);
	check(id >= 0, "create with a key");
	check(shmget(key, PAGE, 0) == id, "the same key finds it (smaller size)");
	check(shmget(key, 0, 0) == id, "size 0 finds it too");
	check_errno(shmget(key, 3 * PAGE, 0), EINVAL, "a larger size than the segment's");
	check_errno(shmget(key, PAGE, IPC_CREAT | IPC_EXCL | 0600), EEXIST, "IPC_EXCL");
	check_errno(shmget(key, 3 * PAGE, IPC_CREAT | IPC_EXCL), EEXIST, "EEXIST before EINVAL");
	id2 = shmget(IPC_PRIVATE, PAGE, 0600);
	check(id2 >= 0 && id2 != id, "IPC_PRIVATE makes a new one");
	check(shmget(IPC_PRIVATE, PAGE, 0600) != id2, "every time");
	check_errno(shmget(IPC_PRIVATE, (size_t)-1, 0600), EINVAL, "larger than shmmax");
	shmctl(id, IPC_RMID, NULL);
	shmctl(id2, IPC_RMID, NULL);
}

static void t_attach_share_stat(void)
{
	int id = shmget(IPC_PRIVATE, 3 * PAGE, 0640);
	struct shmid_ds ds;
	time_t before = time(NULL);
	char *a, *b;

	if (!check(id >= 0, "shmget"))
		return;
	check(shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_segsz == 3 * PAGE && ds.shm_nattch == 0 &&
	      ds.shm_cpid == getpid() && ds.shm_lpid == 0 && ds.shm_atime == 0 &&
	      ds.shm_dtime == 0 && ds.shm_ctime >= before - 1 &&
	      (ds.shm_perm.mode & 0777) == 0640 && ds.shm_perm.uid == geteuid() &&
	      ds.shm_perm.cuid == geteuid(), "IPC_STAT of a new segment");
	if (!(a = attach(id, NULL, 0)) || !(b = attach(id, NULL, 0)))
		goto out;
	check(a != b, "two attachments at two addresses");
	check(a[0] == 0 && a[3 * PAGE - 1] == 0, "zero-filled");
	a[100] = 'x';
	b[2 * PAGE + 1] = 'y';
	check(b[100] == 'x' && a[2 * PAGE + 1] == 'y', "the attachments share the bytes");
	check(shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 2 && ds.shm_lpid == getpid() &&
	      ds.shm_atime >= before - 1, "nattch 2, lpid, atime");
	check_ok(shmdt(b), "shmdt");
	check(shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 1 && ds.shm_dtime >= before - 1,
	      "nattch 1, dtime");
	check_errno(shmdt(b), EINVAL, "shmdt of what is no longer attached");
	check_errno(shmdt(a + 1), EINVAL, "shmdt of an unaligned address");
	check_errno(shmdt(a + PAGE), EINVAL, "shmdt of the middle of an attachment");
	check_ok(shmdt(a), "shmdt of the other");
	check(nattch(id) == 0, "nattch 0");
out:
	shmctl(id, IPC_RMID, NULL);
}

static void t_rmid_while_attached(void)
{
	key_t key = 0x5c000000 + getpid();
	int id = shmget(key, PAGE, IPC_CREAT | 0600);
	struct shmid_ds ds;
	char *a;

	if (!check(id >= 0, "shmget") || !(a = attach(id, NULL, 0)))
		return;
	a[0] = 'k';
	check_ok(shmctl(id, IPC_RMID, NULL), "IPC_RMID while attached");
	check(shmctl(id, IPC_STAT, &ds) == 0 && (ds.shm_perm.mode & SHM_DEST) &&
	      ds.shm_perm.__key == IPC_PRIVATE && ds.shm_nattch == 1,
	      "still there: SHM_DEST, the key private");
	check_errno(shmget(key, PAGE, 0600), ENOENT, "the key finds nothing");
	check(a[0] == 'k', "the attachment still works");
	char *b = attach(id, NULL, 0);
	if (b) {
		check(b[0] == 'k' && nattch(id) == 2, "a removed segment may still be attached");
		shmdt(b);
	}
	check_ok(shmdt(a), "the last detach");
	check_errno(shmctl(id, IPC_STAT, &ds), EINVAL, "then it is gone");
	id = shmget(IPC_PRIVATE, PAGE, 0600);
	check_ok(shmctl(id, IPC_RMID, NULL), "IPC_RMID of an unattached segment");
	check_errno(shmat(id, NULL, 0) == (void *)-1 ? -1 : 0, EINVAL, "is at once");
}

static void t_addresses(void)
{
	int id = shmget(IPC_PRIVATE, 2 * PAGE, 0600);
	char *spot = mmap(NULL, 4 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *p;

	if (!check(id >= 0 && spot != MAP_FAILED, "shmget, mmap"))
		return;
	check_errno(shmat(id, spot, 0) == (void *)-1 ? -1 : 0, EINVAL,
		    "an address already mapped, without SHM_REMAP");
	p = shmat(id, spot, SHM_REMAP);
	check(p == spot, "SHM_REMAP replaces the mapping there");
	if (p == spot) {
		p[0] = 'r';
		shmdt(p);
	}
	check_errno(shmat(id, spot + 1, 0) == (void *)-1 ? -1 : 0, EINVAL,
		    "an unaligned address without SHM_RND");
	munmap(spot, 4 * PAGE);
	p = shmat(id, spot + 100, SHM_RND);
	check(p == spot && p[0] == 'r', "SHM_RND rounds down");
	if (p != (char *)-1)
		shmdt(p);
	check_errno(shmat(id, NULL, SHM_REMAP) == (void *)-1 ? -1 : 0, EINVAL,
		    "SHM_REMAP without an address");
	check_errno(shmat(id, (void *)100, SHM_RND | SHM_REMAP) == (void *)-1 ? -1 : 0, EINVAL,
		    "SHM_RND rounding to 0 with SHM_REMAP");
	check_errno(shmat(-1, NULL, 0) == (void *)-1 ? -1 : 0, EINVAL, "a negative id");
	check_errno(shmat(id + (1 << 15), NULL, 0) == (void *)-1 ? -1 : 0, EINVAL,
		    "a stale sequence");
	p = shmat(id, NULL, SHM_EXEC);
	check(p != (char *)-1, "SHM_EXEC");
	if (p != (char *)-1)
		shmdt(p);
	shmctl(id, IPC_RMID, NULL);
}

static void t_rdonly(void)
{
	int id = shmget(IPC_PRIVATE, PAGE, 0600);
	char *p;

	if (!check(id >= 0, "shmget") || !(p = attach(id, NULL, SHM_RDONLY)))
		goto out;
	check(p[0] == 0, "readable");
	check_errno(mprotect(p, PAGE, PROT_READ | PROT_WRITE), EACCES,
		    "mprotect adding PROT_WRITE to a SHM_RDONLY attachment");
	pid_t pid = fork_child();
	if (pid == 0) {
		p[0] = 1;
		_exit(0);
	}
	check_killed_by(pid, SIGSEGV, "a write to a SHM_RDONLY attachment");
	shmdt(p);
out:
	shmctl(id, IPC_RMID, NULL);
}

// fork shares the attachment (nattch 2 while the child lives); the child's
// exit and exec detach it.
static void t_fork_exec_exit(void)
{
	int id = shmget(IPC_PRIVATE, PAGE, 0600), go[2];
	char *p;

	if (!check(id >= 0 && pipe(go) == 0, "shmget, pipe") || !(p = attach(id, NULL, 0)))
		goto out;
	pid_t pid = fork_child();
	if (pid == 0) {
		char c;
		p[1] = 'c';
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(0);
	}
	while (p[1] != 'c')
		usleep(1000);
	check(nattch(id) == 2, "the child's attachment counts");
	check(write(go[1], "g", 1) == 1, "go");
	check_child_ok(pid, "the child");
	check(nattch(id) == 1, "its exit detached it");
	pid = fork_child();
	if (pid == 0) {
		char ids[16];
		snprintf(ids, sizeof(ids), "%d", id);
		execl(self_path, self_path, "--nattch", ids, (char *)NULL);
		_exit(3);
	}
	check_child_ok(pid, "after exec the child sees nattch 1: its own is gone");
	check(nattch(id) == 1, "and so does the parent");
	shmdt(p);
	close(go[0]);
	close(go[1]);
out:
	shmctl(id, IPC_RMID, NULL);
}

// mprotect splits an attachment in pieces, each counted (as Linux's
// vm_ops->open); shmdt of the start detaches all of them.
static void t_pieces(void)
{
	int id = shmget(IPC_PRIVATE, 3 * PAGE, 0600);
	char *p;

	if (!check(id >= 0, "shmget") || !(p = attach(id, NULL, 0)))
		goto out;
	check_ok(mprotect(p + PAGE, PAGE, PROT_READ), "mprotect the middle page");
	check(nattch(id) == 3, "three pieces, nattch 3");
	check_ok(munmap(p + 2 * PAGE, PAGE), "munmap the last page");
	check(nattch(id) == 2, "two pieces left");
	check_ok(shmdt(p), "shmdt");
	check(nattch(id) == 0, "every piece detached");
	char c;
	check(mincore(p, PAGE, (unsigned char *)&c) == -1 && mincore(p + PAGE, PAGE,
	      (unsigned char *)&c) == -1, "nothing left mapped");
out:
	shmctl(id, IPC_RMID, NULL);
}

static void t_set_lock_info(void)
{
	int id = shmget(IPC_PRIVATE, 2 * PAGE, 0600);
	struct shmid_ds ds;
	struct shminfo si;
	struct shm_info hi;
	int max;
	char *p;

	if (!check(id >= 0 && shmctl(id, IPC_STAT, &ds) == 0, "shmget, IPC_STAT"))
		return;
	ds.shm_perm.mode = 0644;
	check_ok(shmctl(id, IPC_SET, &ds), "IPC_SET");
	check(shmctl(id, IPC_STAT, &ds) == 0 && (ds.shm_perm.mode & 0777) == 0644, "the new mode");
	check_ok(shmctl(id, SHM_LOCK, NULL), "SHM_LOCK");
	check(shmctl(id, IPC_STAT, &ds) == 0 && (ds.shm_perm.mode & SHM_LOCKED), "SHM_LOCKED");
	ds.shm_perm.mode = 0600;
	check_ok(shmctl(id, IPC_SET, &ds), "IPC_SET keeps SHM_LOCKED");
	check(shmctl(id, IPC_STAT, &ds) == 0 && (ds.shm_perm.mode & 07777) == (SHM_LOCKED | 0600),
	      "mode 0600 and SHM_LOCKED");
	check_ok(shmctl(id, SHM_UNLOCK, NULL), "SHM_UNLOCK");
	check(shmctl(id, IPC_STAT, &ds) == 0 && !(ds.shm_perm.mode & SHM_LOCKED), "unlocked");
	max = shmctl(0, IPC_INFO, (struct shmid_ds *)&si);
	check(max >= 0 && si.shmmin == 1 && si.shmmni > 0 && si.shmseg == si.shmmni &&
	      si.shmmax > 0 && si.shmall > 0, "IPC_INFO");
	if ((p = attach(id, NULL, 0)) != NULL) {
		p[0] = 1;
		check(shmctl(0, SHM_INFO, (struct shmid_ds *)&hi) == max && hi.used_ids >= 1 &&
		      hi.shm_tot >= 2 && hi.shm_rss >= 1, "SHM_INFO");
		shmdt(p);
	}
	int slot = id & 0x7fff, found = -1;
	for (int s = 0; s <= max && found < 0; s++)
		if (s == slot)
			found = shmctl(s, SHM_STAT, &ds);
	check(found == id && ds.shm_segsz == 2 * PAGE, "SHM_STAT of its slot gives its id");
	check(shmctl(slot, SHM_STAT_ANY, &ds) == id, "SHM_STAT_ANY");
	check_errno(shmctl(id, 99, &ds), EINVAL, "an unknown command");
	check_errno(shmctl(-1, IPC_STAT, &ds), EINVAL, "a negative id");
	check_errno(shmctl(id, IPC_STAT, (struct shmid_ds *)8), EFAULT, "IPC_STAT to a bad buffer");
	check_errno(shmctl(id, IPC_SET, (struct shmid_ds *)8), EFAULT, "IPC_SET from a bad buffer");
	shmctl(id, IPC_RMID, NULL);
}

// Root's segments, looked at by a child that has dropped to uid 1000.
static int root_only, open_to_all;

static int c_permissions(void)
{
	struct shmid_ds ds;

	if (drop_to(U1, G1, 0, NULL))
		return 1;
	if (c_err(shmat(root_only, NULL, 0) == (void *)-1 ? -1 : 0, EACCES, "shmat of root's 0600") ||
	    c_err(shmctl(root_only, IPC_STAT, &ds), EACCES, "IPC_STAT of it") ||
	    c_err(shmctl(root_only, IPC_RMID, NULL), EPERM, "IPC_RMID of it") ||
	    c_err(shmctl(root_only, SHM_LOCK, NULL), EPERM, "SHM_LOCK of it") ||
	    c_err(shmat(open_to_all, NULL, 0) == (void *)-1 ? -1 : 0, EACCES,
		  "shmat for writing of a 0644 segment") ||
	    c_ok(shmat(open_to_all, NULL, SHM_RDONLY) == (void *)-1 ? -1 : 0, "SHM_RDONLY of it") ||
	    c_ok(shmctl(open_to_all, IPC_STAT, &ds), "IPC_STAT"))
		return 1;
	return c_err(shmctl(open_to_all, IPC_SET, &ds), EPERM, "IPC_SET of root's segment");
}

static void t_permissions(void)
{
	root_only = shmget(IPC_PRIVATE, PAGE, 0600);
	open_to_all = shmget(IPC_PRIVATE, PAGE, 0644);
	in_child(c_permissions, "permissions");
	shmctl(root_only, IPC_RMID, NULL);
	shmctl(open_to_all, IPC_RMID, NULL);
}

static long read_long(const char *path)
{
	char buf[64];

	return read_file(path, buf, sizeof(buf)) > 0 ? strtol(buf, NULL, 10) : -1;
}

static unsigned long read_ulong(const char *path)
{
	char buf[64];

	return read_file(path, buf, sizeof(buf)) > 0 ? strtoul(buf, NULL, 10) : 0;
}

static int write_ulong(const char *path, unsigned long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lu\n", v);
	return write_file(path, buf);
}

// Puts a limit back, trying again if the write fails for want of memory
// (under allocation-failure injection): the programs after us need it.
static void restore_ulong(const char *path, unsigned long v)
{
	for (int i = 0; i < 100 && write_ulong(path, v) != 0; i++)
		usleep(1000);
}

// shmmax, shmall and shmmni are the limits shmget and IPC_INFO obey.
static void t_sysctl_limits(void)
{
	unsigned long shmmax = read_ulong("/proc/sys/kernel/shmmax");
	unsigned long shmall = read_ulong("/proc/sys/kernel/shmall");
	long shmmni = read_long("/proc/sys/kernel/shmmni");
	struct shminfo si;
	struct shm_info hi;

	check(shmmax > 0 && shmall > 0 && shmmni > 0, "shmmax, shmall, shmmni read");
	check(shmctl(0, IPC_INFO, (struct shmid_ds *)&si) >= 0 && si.shmmax == shmmax &&
	      si.shmall == shmall && (long)si.shmmni == shmmni, "IPC_INFO agrees");
	check(write_ulong("/proc/sys/kernel/shmmax", 2 * PAGE) == 0, "shmmax 8192");
	check_errno(shmget(IPC_PRIVATE, 2 * PAGE + 1, 0600), EINVAL, "8193 bytes now: EINVAL");
	int id = shmget(IPC_PRIVATE, 2 * PAGE, 0600);
	check(id >= 0, "8192 bytes");
	shmctl(id, IPC_RMID, NULL);
	restore_ulong("/proc/sys/kernel/shmmax", shmmax);
	check(read_ulong("/proc/sys/kernel/shmmax") == shmmax, "shmmax restored");
	long tot = shmctl(0, SHM_INFO, (struct shmid_ds *)&hi) >= 0 ? (long)hi.shm_tot : -1;
	check(write_ulong("/proc/sys/kernel/shmall", (unsigned long)tot + 1) == 0, "shmall: one page more");
	check_errno(shmget(IPC_PRIVATE, 2 * PAGE, 0600), ENOSPC, "two pages: ENOSPC");
	id = shmget(IPC_PRIVATE, PAGE, 0600);
	check(id >= 0, "one page fits");
	shmctl(id, IPC_RMID, NULL);
	restore_ulong("/proc/sys/kernel/shmall", shmall);
	check(read_ulong("/proc/sys/kernel/shmall") == shmall, "shmall restored");
	check(write_file("/proc/sys/kernel/shmmni", "40000") == EINVAL, "shmmni above 32768: EINVAL");
	int in_use = shmctl(0, SHM_INFO, (struct shmid_ds *)&hi) >= 0 ? hi.used_ids : -1;
	check(write_ulong("/proc/sys/kernel/shmmni", (unsigned long)in_use + 1) == 0,
	      "shmmni: one segment more");
	id = shmget(IPC_PRIVATE, PAGE, 0600);
	check(id >= 0, "that one");
	check_errno(shmget(IPC_PRIVATE, PAGE, 0600), ENOSPC, "then ENOSPC");
	restore_ulong("/proc/sys/kernel/shmmni", (unsigned long)shmmni);
	check(read_long("/proc/sys/kernel/shmmni") == shmmni, "shmmni restored");
	shmctl(id, IPC_RMID, NULL);
}

static void t_next_id(void)
{
	long want = (9L << 15) | 4343;
	int id;

	check(read_long("/proc/sys/kernel/shm_next_id") == -1, "unset: -1");
	check(write_file("/proc/sys/kernel/shm_next_id", "-5") == EINVAL, "-5: EINVAL");
	check(write_ulong("/proc/sys/kernel/shm_next_id", (unsigned long)want) == 0, "ask for one");
	id = shmget(IPC_PRIVATE, PAGE, IPC_CREAT | 0600);
	check(id == want, "the next segment has it");
	check(read_long("/proc/sys/kernel/shm_next_id") == -1, "taken: -1 again");
	shmctl(id, IPC_RMID, NULL);
}

// /proc/sysvipc/shm: Linux's header and a line per segment.
static void t_proc_sysvipc(void)
{
	key_t key = 0x5d000000 + getpid();
	int id = shmget(key, 5000, IPC_CREAT | 0640);
	static const char header[] = "       key      shmid perms                  size  cpid  lpid "
				     "nattch   uid   gid  cuid  cgid      atime      dtime      ctime "
				     "                  rss                  swap\n";
	static char text[1 << 16];
	int found = 0;
	char *p = attach(id, NULL, 0);

	if (p)
		p[0] = 1;
	if (!check(read_file("/proc/sysvipc/shm", text, sizeof(text)) >= 0,
		   "read /proc/sysvipc/shm"))
		goto out;
	check(strncmp(text, header, strlen(header)) == 0, "Linux's header");
	for (char *line = strchr(text, '\n'); line && *line; line = strchr(line + 1, '\n')) {
		int k, i, cpid, lpid;
		unsigned mode;
		unsigned long size, nat, rss, swap;
		unsigned uid, gid, cuid, cgid;
		long long at, dt, ct;

		if (sscanf(line + 1, "%d %d %o %lu %d %d %lu %u %u %u %u %lld %lld %lld %lu %lu", &k,
			   &i, &mode, &size, &cpid, &lpid, &nat, &uid, &gid, &cuid, &cgid, &at, &dt,
			   &ct, &rss, &swap) == 16 && k == key)
			found = i == id && mode == 0640 && size == 5000 && cpid == getpid() &&
				lpid == getpid() && nat == 1 && rss == PAGE && swap == 0;
	}
	check(found, "our segment's line: id, mode, size, pids, nattch, rss");
out:
	if (p)
		shmdt(p);
	shmctl(id, IPC_RMID, NULL);
}

static const struct test_case cases[] = {
	{ "shmget_keys_and_sizes", t_get_and_keys },
	{ "attach_share_stat", t_attach_share_stat },
	{ "rmid_while_attached", t_rmid_while_attached },
	{ "attach_addresses", t_addresses },
	{ "shm_rdonly", t_rdonly },
	{ "fork_exec_exit", t_fork_exec_exit },
	{ "mprotect_pieces", t_pieces },
	{ "set_lock_info_stat", t_set_lock_info },
	{ "permissions", t_permissions },
	{ "sysctl_limits", t_sysctl_limits },
	{ "shm_next_id", t_next_id },
	{ "proc_sysvipc_shm", t_proc_sysvipc },
};

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--nattch") == 0)
		return nattch(atoi(argv[2])) == 1 ? 0 : 1;
	self_path = argv[0];
	privdrop_init();
	// What a case that stopped half-way left goes now (segments outlive
	// us, and the memory check after the tests would count them).
	sysv_note_objects();
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	sysv_remove_new_objects();
	return ktap_finish();
}
