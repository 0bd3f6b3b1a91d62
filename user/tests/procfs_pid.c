// procfs_pid: /proc/self, /proc/thread-self, /proc/PID and
// /proc/PID/task/TID, read as programs read them: stat parsed by position,
// status by name, cmdline and environ byte for byte (embedded NULs, long
// arguments), comm written, fd links and fdinfo, maps of a known mapping,
// readdir of /proc with a child's PID and without a reaped one, a
// zombie's files, and reads at offsets and in small pieces.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdio.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "testcase.h"
#include "memstat.h"
#include "sysutil.h"

extern char **environ;

// The value after "Name:\t" in a status text, or NULL.
static const char *status_field(const char *text, const char *name, char *out, size_t size)
{
	size_t nl = strlen(name);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, name, nl) == 0 && p[nl] == ':') {
			const char *v = p + nl + 1;
			size_t len;

			while (*v == '\t' || *v == ' ')
				v++;
			len = strcspn(v, "\n");
			if (len >= size)
				len = size - 1;
			memcpy(out, v, len);
			out[len] = 0;
			return out;
		}
	}
	return NULL;
}

static void copy_field(char *dst, const char *src)
{
	size_t len = strlen(src);

	if (len > 63)
		len = 63;
	memcpy(dst, src, len);
	dst[len] = 0;
}

// stat split by position: f[1] is the pid, f[2] the comm (without
// parentheses), f[3] the state ... as proc(5) numbers them.  The count.
static int stat_fields(const char *path, char fields[64][64])
{
	char buf[2048];
	int n = 0;

	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren)
		return -1;
	*open_paren = 0;
	*close_paren = 0;
	buf[strcspn(buf, " ")] = 0;
	copy_field(fields[1], buf);
	copy_field(fields[2], open_paren + 1);
	n = 2;
	for (char *tok = strtok(close_paren + 1, " \n"); tok && n < 63; tok = strtok(NULL, " \n"))
		copy_field(fields[++n], tok);
	return n;
}

static unsigned long long num(const char *s)
{
	return strtoull(s, NULL, 10);
}

// ---- cases ----

static void t_self_links(void)
{
	char buf[64], want[64];
	long n = readlink("/proc/self", buf, sizeof(buf) - 1);

	if (!check_ok(n, "readlink /proc/self"))
		return;
	buf[n] = 0;
	snprintf(want, sizeof(want), "%d", (int)getpid());
	if (!check(strcmp(buf, want) == 0, "/proc/self names the caller"))
		return;
	n = readlink("/proc/thread-self", buf, sizeof(buf) - 1);
	if (!check_ok(n, "readlink /proc/thread-self"))
		return;
	buf[n] = 0;
	snprintf(want, sizeof(want), "%d/task/%d", (int)getpid(), (int)syscall(SYS_gettid));
	check(strcmp(buf, want) == 0, "/proc/thread-self names the calling thread");
	struct stat a, b;
	snprintf(want, sizeof(want), "/proc/%d", (int)getpid());
	if (check_ok(stat("/proc/self", &a), "stat /proc/self") &&
	    check_ok(stat(want, &b), "stat /proc/PID"))
		check(a.st_ino == b.st_ino && S_ISDIR(a.st_mode), "the same directory");
}

static void t_stat_by_position(void)
{
	char f[64][64];
	int n = stat_fields("/proc/self/stat", f);

	if (!check(n >= 52, "stat has 52 fields"))
		return;
	check(num(f[1]) == (unsigned long long)getpid(), "field 1 is the pid");
	check(strcmp(f[3], "R") == 0, "a reader of its own stat is running");
	check(num(f[4]) == (unsigned long long)getppid(), "field 4 is the ppid");
	check(num(f[5]) == (unsigned long long)getpgrp(), "field 5 is the process group");
	check(num(f[6]) == (unsigned long long)getsid(0), "field 6 is the session");
	check(num(f[20]) == 1, "field 20: one thread");
	check(num(f[23]) > 0, "vsize");
	check(num(f[38]) == 17 || getpid() == 1, "exit signal SIGCHLD");
	unsigned long long as = num(f[48]), ae = num(f[49]), es = num(f[50]), ee = num(f[51]);
	check(as && as < ae && ae <= es && es <= ee, "arg and env bounds in order");
	char comm[32];
	prctl(PR_GET_NAME, comm);
	check(strcmp(f[2], comm) == 0, "field 2 is the comm");
}

static void t_status_and_statm(void)
{
	char text[4096], v[128];
	long n = read_file("/proc/self/status", text, sizeof(text));

	if (!check(n > 0, "read status"))
		return;
	check(status_field(text, "Pid", v, sizeof(v)) && atoi(v) == getpid(), "Pid");
	check(status_field(text, "Tgid", v, sizeof(v)) && atoi(v) == getpid(), "Tgid");
	check(status_field(text, "PPid", v, sizeof(v)) && atoi(v) == getppid(), "PPid");
	check(status_field(text, "Threads", v, sizeof(v)) && atoi(v) == 1, "Threads");
	check(status_field(text, "State", v, sizeof(v)) && strcmp(v, "R (running)") == 0,
	      "State");
	check(status_field(text, "VmRSS", v, sizeof(v)) && strstr(v, " kB"), "VmRSS in kB");
	check(status_field(text, "Uid", v, sizeof(v)) != NULL, "Uid");
	check(status_field(text, "SigBlk", v, sizeof(v)) && strlen(v) == 16, "SigBlk");
	unsigned long sz, res, shr, txt, lib, dat, dt;
	n = read_file("/proc/self/statm", text, sizeof(text));
	check(n > 0 && sscanf(text, "%lu %lu %lu %lu %lu %lu %lu", &sz, &res, &shr, &txt, &lib,
			      &dat, &dt) == 7, "statm has 7 numbers");
	check(sz >= res && res > 0, "statm size >= resident > 0");
}

// The re-executed child: argv and environ must read back byte for byte.
static int cmdline_child(int argc, char **argv)
{
	static char buf[1 << 16], want[1 << 16];
	size_t len = 0;

	for (int i = 0; i < argc; i++) {
		memcpy(want + len, argv[i], strlen(argv[i]) + 1);
		len += strlen(argv[i]) + 1;
	}
	if (read_file("/proc/self/cmdline", buf, sizeof(buf)) != (long)len || memcmp(buf, want, len))
		return 1;
	len = 0;
	for (char **e = environ; *e; e++) {
		memcpy(want + len, *e, strlen(*e) + 1);
		len += strlen(*e) + 1;
	}
	if (read_file("/proc/self/environ", buf, sizeof(buf)) != (long)len || memcmp(buf, want, len))
		return 2;
	// Pieces of 7 bytes give the same bytes.
	int fd = open("/proc/self/cmdline", O_RDONLY);
	size_t got = 0, total = 0;
	long n;
	for (int i = 0; i < argc; i++) {
		memcpy(want + total, argv[i], strlen(argv[i]) + 1);
		total += strlen(argv[i]) + 1;
	}
	while (got < sizeof(buf) && (n = read(fd, buf + got, 7)) > 0)
		got += (size_t)n;
	close(fd);
	if (got != total || memcmp(buf, want, total) != 0)
		return 3;
	return 0;
}

static void t_cmdline_environ(void)
{
	static char longarg[20000];
	char self[256];
	long n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (!check_ok(n, "readlink /proc/self/exe"))
		return;
	self[n] = 0;
	memset(longarg, 'x', sizeof(longarg) - 1);
	char *argv[] = { "procfs_pid", "--cmdline-child", "", "two words", "line\nbreak", longarg,
			 NULL };
	char *envp[] = { "A=1", "EMPTY=", "B=two words", NULL };
	pid_t pid = fork_child();
	if (pid == 0) {
		execve(self, argv, envp);
		_exit(99);
	}
	if (pid > 0)
		check_child_ok(pid, "cmdline and environ read back");
}

// auxv: the pairs exec gave us, AT_NULL last, each as getauxval reads
// them from the stack.
static void t_auxv(void)
{
	static unsigned long v[512];
	long n = read_file("/proc/self/auxv", (char *)v, sizeof(v));
	long pairs = n / (long)(2 * sizeof(v[0]));
	int mismatches = 0, seen_pagesz = 0;

	if (!check(n > 0 && n % (long)(2 * sizeof(v[0])) == 0, "auxv reads whole pairs"))
		return;
	check(v[2 * (pairs - 1)] == AT_NULL, "auxv ends with AT_NULL");
	for (long i = 0; i < pairs - 1; i++) {
		mismatches += getauxval(v[2 * i]) != v[2 * i + 1];
		seen_pagesz |= v[2 * i] == AT_PAGESZ;
	}
	check(mismatches == 0, "every auxv pair is what getauxval says");
	check(seen_pagesz, "auxv has AT_PAGESZ");
}

static void t_cmdline_of_other(void)
{
	int ready[2], hold[2];
	char buf[256], path[64];

	if (!check_ok(pipe(ready), "pipe") || !check_ok(pipe(hold), "pipe"))
		return;
	pid_t pid = fork_child();
	if (pid == 0) {
		close(ready[0]);
		close(hold[1]);
		// Stays as the forked copy: same cmdline as the parent.
		write(ready[1], "x", 1);
		read(hold[0], buf, 1);
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	read(ready[0], buf, 1);
	char mine[256];
	long a = read_file("/proc/self/cmdline", mine, sizeof(mine));
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	long b = read_file(path, buf, sizeof(buf));
	check(a > 0 && a == b && memcmp(mine, buf, (size_t)a) == 0,
	      "a forked child's cmdline is its parent's");
	close(hold[1]);
	close(ready[0]);
	reap(pid);
}

static void *comm_thread(void *arg)
{
	int *hold = arg;
	char c;

	prctl(PR_SET_NAME, "worker");
	read(hold[0], &c, 1);
	return NULL;
}

static void t_task_dirs_and_comm(void)
{
	int hold[2];
	pthread_t th;
	char path[128], buf[256];

	if (!check_ok(pipe(hold), "pipe"))
		return;
	if (pthread_create(&th, NULL, comm_thread, hold) != 0) {
		fail("pthread_create");
		return;
	}
	// Find the other thread in task/.
	int other = 0, seen_self = 0;
	for (int tries = 0; tries < 200 && !other; tries++) {
		DIR *d = opendir("/proc/self/task");
		struct dirent *e;

		if (!d) {
			fail("opendir task: errno=%d", errno);
			break;
		}
		while ((e = readdir(d)) != NULL) {
			int tid = atoi(e->d_name);
			if (tid == (int)syscall(SYS_gettid))
				seen_self = 1;
			else if (tid > 0) {
				snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
				if (read_file(path, buf, sizeof(buf)) > 0 && strcmp(buf, "worker\n") == 0)
					other = tid;
			}
		}
		closedir(d);
		if (!other)
			usleep(10000);
	}
	check(seen_self, "task/ lists the caller");
	check(other, "task/ lists the other thread, named by prctl");
	if (other) {
		char f[64][64];
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", other);
		check(stat_fields(path, f) >= 52 && atoi(f[1]) == other, "task stat field 1 is the tid");
		check(atoi(f[20]) == 2, "two threads");
		snprintf(path, sizeof(path), "/proc/self/task/%d/status", other);
		char v[64];
		read_file(path, buf, sizeof(buf));
		check(status_field(buf, "Pid", v, sizeof(v)) && atoi(v) == other &&
		      status_field(buf, "Tgid", v, sizeof(v)) && atoi(v) == getpid(),
		      "task status: Pid is the tid, Tgid the process");
		// Renaming the other thread through its comm.
		snprintf(path, sizeof(path), "/proc/self/task/%d/comm", other);
		int fd = open(path, O_WRONLY);
		check(fd >= 0 && write(fd, "renamed", 7) == 7, "write task comm");
		close(fd);
		check(read_file(path, buf, sizeof(buf)) > 0 && strcmp(buf, "renamed\n") == 0,
		      "the thread has the new name");
	}
	close(hold[1]);
	pthread_join(th, NULL);
	close(hold[0]);
}

static void t_comm_write(void)
{
	char buf[64], old[32];
	int fd;

	prctl(PR_GET_NAME, old);
	fd = open("/proc/self/comm", O_WRONLY);
	if (!check_ok(fd, "open comm for writing"))
		return;
	check(write(fd, "abcdefghijklmnopqrstuvwxyz", 26) == 26, "a long name: all bytes taken");
	close(fd);
	check(read_file("/proc/self/comm", buf, sizeof(buf)) == 16 &&
	      strcmp(buf, "abcdefghijklmno\n") == 0, "cut to 15 bytes");
	fd = open("/proc/self/comm", O_WRONLY);
	check(write(fd, "nl\n", 3) == 3, "a name with a newline");
	close(fd);
	prctl(PR_GET_NAME, buf);
	check(strcmp(buf, "nl\n") == 0, "the newline is part of the name, as Linux");
	prctl(PR_SET_NAME, old);

	// Another process's name cannot be set.
	int hold[2];
	if (!check_ok(pipe(hold), "pipe"))
		return;
	pid_t pid = fork_child();
	if (pid == 0) {
		char c;
		close(hold[1]);
		read(hold[0], &c, 1);
		_exit(0);
	}
	close(hold[0]);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_WRONLY);
	if (check_ok(fd, "open a child's comm")) {
		check_errno(write(fd, "x", 1), EINVAL, "write another process's comm");
		close(fd);
	}
	close(hold[1]);
	reap(pid);
}

static void t_fd_links(void)
{
	char path[64], buf[512], want[512];
	const char *file = scratch("linked");
	int fd = open(file, O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	int p[2];
	struct stat st;

	if (!check_ok(fd, "create") || !check_ok(pipe(p), "pipe"))
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	long n = readlink(path, buf, sizeof(buf) - 1);
	if (check_ok(n, "readlink fd")) {
		buf[n] = 0;
		check(strcmp(buf, file) == 0, "a file's link is its path");
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	n = readlink(path, buf, sizeof(buf) - 1);
	fstat(p[0], &st);
	snprintf(want, sizeof(want), "pipe:[%lu]", (unsigned long)st.st_ino);
	if (check_ok(n, "readlink pipe fd")) {
		buf[n] = 0;
		check(strcmp(buf, want) == 0, "a pipe's link is pipe:[inode]");
	}
	check(lstat(path, &st) == 0 && S_ISLNK(st.st_mode), "fd entries are symlinks");
	// Following the link reaches the file.
	struct stat a, b;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	check(stat(path, &a) == 0 && fstat(fd, &b) == 0 && a.st_ino == b.st_ino,
	      "stat through the link is the file");
	// fdinfo: position, flags with O_CLOEXEC, mnt_id.
	write(fd, "0123456789", 10);
	lseek(fd, 5, SEEK_SET);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	char v[64];
	if (check(read_file(path, buf, sizeof(buf)) > 0, "read fdinfo")) {
		check(status_field(buf, "pos", v, sizeof(v)) && atoi(v) == 5, "fdinfo pos");
		check(status_field(buf, "flags", v, sizeof(v)) &&
		      (strtoul(v, NULL, 8) & O_CLOEXEC) && (strtoul(v, NULL, 8) & O_ACCMODE) == O_RDWR,
		      "fdinfo flags, octal, with O_CLOEXEC");
		check(status_field(buf, "mnt_id", v, sizeof(v)) != NULL, "fdinfo mnt_id");
	}
	// The listing has exactly the open descriptors.
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int seen_fd = 0, seen_pipe = 0, seen_closed = 0;
	close(p[1]);
	while (d && (e = readdir(d)) != NULL) {
		if (atoi(e->d_name) == fd && e->d_name[0] != '.')
			seen_fd = 1;
		if (atoi(e->d_name) == p[0])
			seen_pipe = 1;
		if (atoi(e->d_name) == p[1] && p[1] != dirfd(d))
			seen_closed = 1;
	}
	if (d)
		closedir(d);
	check(seen_fd && seen_pipe && !seen_closed, "fd/ lists what is open, not what is closed");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[1]);
	check_errno(readlink(path, buf, sizeof(buf)), ENOENT, "a closed descriptor");
	close(p[0]);
	// An unlinked file is still reached through its descriptor's link.
	unlink(file);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (check(n > 0 && n < (long)sizeof(buf), "readlink of an unlinked file's fd")) {
		buf[n] = 0;
		check(n > 10 && strcmp(buf + n - 10, " (deleted)") == 0, "named (deleted)");
	}
	int again = open(path, O_RDONLY);
	if (check_ok(again, "open an unlinked file through /proc/self/fd")) {
		check(read(again, buf, 10) == 10 && memcmp(buf, "0123456789", 10) == 0,
		      "it is the same file");
		close(again);
	}
	close(fd);
}

static void t_maps_known_mapping(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 3 * pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char want[64], line[512];
	int found = 0, file_found = 0;

	if (m == MAP_FAILED) {
		fail("mmap");
		return;
	}
	const char *file = scratch("mapped");
	int fd = open(file, O_CREAT | O_RDWR, 0644);
	ftruncate(fd, 2 * pg);
	char *fm = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, pg);
	snprintf(want, sizeof(want), "%08lx-%08lx r--p 00000000 00:00 0 ", (unsigned long)m,
		 (unsigned long)(m + 3 * pg));
	FILE *f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, want, strlen(want)) == 0)
			found = 1;
		unsigned long lo, hi, off;
		char perms[8];
		int name_at = 0;
		if (fm != MAP_FAILED &&
		    sscanf(line, "%lx-%lx %7s %lx %*x:%*x %*u %n", &lo, &hi, perms, &off, &name_at) >= 4 &&
		    lo == (unsigned long)fm && name_at) {
			line[strcspn(line, "\n")] = 0;
			file_found = strcmp(perms, "rw-p") == 0 && off == (unsigned long)pg &&
				     strcmp(line + 73, file) == 0;
		}
	}
	if (f)
		fclose(f);
	check(found, "the anonymous mapping, as Linux prints it");
	check(file_found, "the file mapping: perms, offset, path at column 73");
	munmap(m, 3 * pg);
	if (fm != MAP_FAILED)
		munmap(fm, pg);
	close(fd);
	unlink(file);
}

// Is 'pid' in the listing of /proc?
static int proc_lists(pid_t pid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int seen = 0;

	while (d && (e = readdir(d)) != NULL)
		if (atoi(e->d_name) == pid && e->d_type == DT_DIR)
			seen = 1;
	if (d)
		closedir(d);
	return seen;
}

static void t_readdir_children(void)
{
	int hold[2];
	char path[64];
	struct stat st;

	if (!check_ok(pipe(hold), "pipe"))
		return;
	pid_t pid = fork_child();
	if (pid == 0) {
		char c;
		close(hold[1]);
		read(hold[0], &c, 1);
		_exit(0);
	}
	close(hold[0]);
	check(proc_lists(pid), "/proc lists a live child");
	check(proc_lists(getpid()), "/proc lists the caller");
	close(hold[1]);
	reap(pid);
	check(!proc_lists(pid), "/proc does not list a reaped child");
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	check_errno(stat(path, &st), ENOENT, "a reaped child's directory");
	check_errno(stat("/proc/0", &st), ENOENT, "/proc/0");
	check_errno(stat("/proc/self/task/0", &st), ENOENT, "task/0");
	check_errno(stat("/proc/self/nosuchfile", &st), ENOENT, "an unknown name");
}

static void t_zombie(void)
{
	char path[64], buf[4096], v[64];
	pid_t pid = fork_child();

	if (pid == 0)
		_exit(3);
	if (pid < 0)
		return;
	// Wait until it is a zombie, without reaping it.
	char f[64][64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int tries;
	for (tries = 0; tries < 500; tries++) {
		if (stat_fields(path, f) >= 52 && strcmp(f[3], "Z") == 0)
			break;
		usleep(10000);
	}
	if (!check(tries < 500, "the child's state becomes Z")) {
		reap(pid);
		return;
	}
	check(num(f[4]) == (unsigned long long)getpid(), "a zombie's ppid");
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	check(read_file(path, buf, sizeof(buf)) == 0, "a zombie's cmdline reads empty");
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	check_errno(open(path, O_RDONLY), ESRCH, "a zombie's environ");
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	check(read_file(path, buf, sizeof(buf)) > 0 && status_field(buf, "State", v, sizeof(v)) &&
	      strcmp(v, "Z (zombie)") == 0, "a zombie's status");
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	check_errno(readlink(path, buf, sizeof(buf)), ENOENT, "a zombie's exe");
	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)pid);
	check_errno(readlink(path, buf, sizeof(buf)), ENOENT, "a zombie's cwd");
	// A file opened before the reap reads ESRCH after it.
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY);
	check_ok(fd, "open a zombie's stat");
	check_exit_code(pid, 3, "the zombie's status");
	if (fd >= 0) {
		check_errno(read(fd, buf, sizeof(buf)), ESRCH, "its stat after the reap");
		close(fd);
	}
}

static void t_offsets_and_pieces(void)
{
	char whole[4096], pieces[4096], buf[64];
	long n = read_file("/proc/self/limits", whole, sizeof(whole));
	int fd = open("/proc/self/limits", O_RDONLY);
	size_t got = 0;
	long r;

	if (!check(n > 0, "read limits") || !check_ok(fd, "open limits"))
		return;
	while ((r = read(fd, pieces + got, 7)) > 0)
		got += (size_t)r;
	check(got == (size_t)n && memcmp(whole, pieces, got) == 0, "7-byte pieces add up");
	check(lseek(fd, 26, SEEK_SET) == 26, "lseek");
	r = read(fd, buf, 10);
	check(r == 10 && memcmp(buf, whole + 26, 10) == 0, "a read after lseek");
	r = pread(fd, buf, 5, n - 3);
	check(r == 3 && memcmp(buf, whole + n - 3, 3) == 0, "pread at the end is short");
	check(pread(fd, buf, 5, n + 100) == 0, "pread beyond the end reads 0");
	close(fd);
	// Linux's columns: soft value at 26, hard at 47, units at 68.
	check(strncmp(whole, "Limit                     Soft Limit           Hard Limit           "
			     "Units     \n", 79) == 0, "the header line");
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	const char *line = strstr(whole, "Max open files");
	char want[32];
	snprintf(want, sizeof(want), "%-20lu ", (unsigned long)rl.rlim_cur);
	check(line && strncmp(line + 26, want, strlen(want)) == 0, "open files soft limit at 26");
}

static void t_readdir_positions(void)
{
	// Entries read one getdents at a time match one big read.
	char big[8192], small[8192];
	size_t bl = 0, sl = 0;
	int fd = open("/proc/self", O_RDONLY | O_DIRECTORY);
	long n;
	char buf[4096];

	if (!check_ok(fd, "open /proc/self"))
		return;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			bl += (size_t)snprintf(big + bl, sizeof(big) - bl, "%s/", d->d_name);
			off += d->d_reclen;
		}
	lseek(fd, 0, SEEK_SET);
	// A buffer that holds one entry at a time.
	while ((n = syscall(SYS_getdents64, fd, buf, 40)) > 0)
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			sl += (size_t)snprintf(small + sl, sizeof(small) - sl, "%s/", d->d_name);
			off += d->d_reclen;
		}
	close(fd);
	check(bl > 0 && bl == sl && strcmp(big, small) == 0, "the same entries either way");
	check(strstr(big, "/stat/") && strstr(big, "/cmdline/") && strstr(big, "/fd/") &&
	      strstr(big, "/task/"), "stat, cmdline, fd and task listed");
}

static void t_cwd_exe_root(void)
{
	char buf[512];
	pid_t pid = fork_child();

	if (pid == 0) {
		long n;
		if (chdir(scratch_dir) < 0)
			_exit(1);
		n = readlink("/proc/self/cwd", buf, sizeof(buf) - 1);
		if (n < 0)
			_exit(2);
		buf[n] = 0;
		if (strcmp(buf, scratch_dir) != 0)
			_exit(3);
		n = readlink("/proc/self/root", buf, sizeof(buf) - 1);
		if (n != 1 || buf[0] != '/')
			_exit(4);
		struct stat a, b;
		if (stat("/proc/self/exe", &a) < 0 || readlink("/proc/self/exe", buf, sizeof(buf)) <= 0)
			_exit(5);
		n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
		buf[n] = 0;
		if (stat(buf, &b) < 0 || a.st_ino != b.st_ino)
			_exit(6);
		_exit(0);
	}
	if (pid > 0)
		check_child_ok(pid, "cwd, root and exe");
}

// One round of lookups, reads and listings, ending in 'home'.
static void proc_round(const char *home, char *buf, size_t size)
{
	DIR *d = opendir("/proc/self/fd");
	struct stat st;

	read_file("/proc/thread-self/stat", buf, size);
	read_file("/proc/self/maps", buf, size);
	read_file("/proc/self/fdinfo/1", buf, size);
	readlink("/proc/self/fd/1", buf, size);
	stat("/proc/self/task/../nosuch", &st);
	while (d && readdir(d))
		;
	if (d)
		closedir(d);
	if (chdir("/proc/self/task") == 0 && getcwd(buf, size))
		chdir(home);
}

// Vnodes made by lookups go with their last reference: many lookups,
// reads, listings and a directory kept as the working directory leave
// nothing behind (/proc/switchyard/memstat; skipped on Linux).
static void t_no_leaks(void)
{
	static struct memstat base, now;
	static char buf[8192], why[512];
	char home[PATH_MAX];

	if (access(MEMSTAT_PATH, R_OK) < 0) {
		skip("no /proc/switchyard/memstat");
		return;
	}
	if (!check(getcwd(home, sizeof(home)) != NULL, "getcwd"))
		return;
	proc_round(home, buf, sizeof(buf));	// the C library's buffers exist from here on
	if (!check(memstat_read(&base) == 0, "read memstat"))
		return;
	for (int i = 0; i < 50; i++)
		proc_round(home, buf, sizeof(buf));
	check_ok(chdir(home), "chdir back");
	if (memstat_settle(&base, &now, 5, why, sizeof(why)) != 0)
		fail("memory not back: %s", why);
}

// The IDs, groups and capabilities in status are the process's own, and
// its files belong to its effective user and group.
static int ids_child(void)
{
	char text[4096], v[128];
	gid_t groups[2] = { 7, 9 };
	struct stat st;

	if (setgroups(2, groups) < 0 || setresgid(2000, 2001, 2002) < 0 ||
	    setresuid(1000, 1001, 1002) < 0)
		return 1;
	if (read_file("/proc/self/status", text, sizeof(text)) < 0)
		return 2;
	if (!status_field(text, "Uid", v, sizeof(v)) || strcmp(v, "1000\t1001\t1002\t1001"))
		return 3;
	if (!status_field(text, "Gid", v, sizeof(v)) || strcmp(v, "2000\t2001\t2002\t2001"))
		return 4;
	if (!status_field(text, "Groups", v, sizeof(v)) || strcmp(v, "7 9 "))
		return 5;
	if (!status_field(text, "CapEff", v, sizeof(v)) || strcmp(v, "0000000000000000"))
		return 6;
	// Changing IDs made it undumpable: its files are root's until it
	// says otherwise.
	if (stat("/proc/self/status", &st) < 0 || st.st_uid != 0 || st.st_gid != 0)
		return 7;
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0 || stat("/proc/self/status", &st) < 0 ||
	    st.st_uid != 1001 || st.st_gid != 2001)
		return 8;
	return 0;
}

static void t_status_ids(void)
{
	char text[4096], v[128];
	pid_t pid;

	if (!check(read_file("/proc/self/status", text, sizeof(text)) > 0, "read status"))
		return;
	check(status_field(text, "CapEff", v, sizeof(v)) && strlen(v) == 16 && strcmp(v, "0000000000000000"),
	      "root has capabilities");
	pid = fork_child();
	if (pid == 0)
		_exit(ids_child());
	check_child_ok(pid, "status of a process with other IDs (1 set IDs, 2 read, 3 Uid, 4 Gid, "
			    "5 Groups, 6 CapEff, 7 owner not root when undumpable, 8 owner when dumpable)");
}

// A stopped process shows T, and R or S again once continued.
static void t_stopped_state(void)
{
	char fields[64][64], path[64];
	int status;
	pid_t pid = fork_child();

	if (pid == 0) {
		for (;;)
			pause();
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	kill(pid, SIGSTOP);
	if (check(waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status), "stopped") &&
	    check(stat_fields(path, fields) > 3, "read stat"))
		if (strcmp(fields[3], "T"))
			fail("state of a stopped process: %s, not T", fields[3]);
	kill(pid, SIGCONT);
	waitpid(pid, &status, WCONTINUED);
	if (check(stat_fields(path, fields) > 3, "read stat"))
		check(strcmp(fields[3], "T") != 0, "not T once continued");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

// A session leader with a pseudo-terminal as its controlling terminal:
// stat's tty_nr is the terminal's device number (Linux's encoding) and
// tpgid its foreground group; without a terminal 0 and -1.
static int tty_child(int master)
{
	char fields[64][64];
	struct stat st;

	if (setsid() < 0)
		return 1;
	if (stat_fields("/proc/self/stat", fields) < 8 || strcmp(fields[7], "0") ||
	    strcmp(fields[8], "-1"))
		return 2;
	int slave = open(ptsname(master), O_RDWR);
	if (slave < 0 || fstat(slave, &st) < 0)
		return 3;
	unsigned major = (unsigned)(st.st_rdev >> 8) & 0xfff, minor = (unsigned)(st.st_rdev & 0xff);
	unsigned long want = (minor & 0xff) | (major << 8);
	if (stat_fields("/proc/self/stat", fields) < 8 || strtoul(fields[7], NULL, 10) != want)
		return 4;
	if (atoi(fields[8]) != getpid())
		return 5;
	return 0;
}

static void t_tty_fields(void)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY);

	if (!check(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0, "a pty"))
		return;
	pid_t pid = fork_child();
	if (pid == 0)
		_exit(tty_child(master));
	check_child_ok(pid, "tty_nr and tpgid (1 setsid, 2 none before, 3 open slave, 4 tty_nr, "
			    "5 tpgid)");
	close(master);
}

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// stat's utime + stime (fields 14 and 15, clock ticks) is the process's
// CPU time: between the CPU clock read before and after, to a tick or two.
static void t_stat_times(void)
{
	char fields[64][64];
	long tick = sysconf(_SC_CLK_TCK);
	long long tick_ns = 1000000000LL / tick;
	volatile unsigned long spin = 0;

	while (cpu_ns() < 300000000LL)
		spin++;
	long long before = cpu_ns();
	if (!check(stat_fields("/proc/self/stat", fields) > 17, "read stat"))
		return;
	long long after = cpu_ns();
	long long ticks = (long long)num(fields[14]) + (long long)num(fields[15]);
	if (ticks * tick_ns > after + tick_ns || (ticks + 2) * tick_ns < before)
		fail("utime+stime %lld ticks, CPU clock %lld..%lld ns", ticks, before, after);
	check(num(fields[10]) > 0, "minor faults counted");
}

// coredump_filter: 00000033 at first, a number in any base sets its
// nine bits, fork and exec keep it, a thread's task/TID has none.
static void t_coredump_filter(void)
{
	char buf[32], path[64];
	int fd = open("/proc/self/coredump_filter", O_RDWR);

	if (!check_ok(fd, "open"))
		return;
	memset(buf, 0, sizeof(buf));
	check(pread(fd, buf, sizeof(buf) - 1, 0) == 9 && !strcmp(buf, "00000033\n"), "00000033 at first");
	check(pwrite(fd, "0x1ff3\n", 7, 0) == 7, "write 0x1ff3");
	memset(buf, 0, sizeof(buf));
	check(pread(fd, buf, sizeof(buf) - 1, 0) == 9 && !strcmp(buf, "000001f3\n"), "its nine bits kept");
	check(pwrite(fd, "17", 2, 0) == 2, "write 17 (decimal)");
	memset(buf, 0, sizeof(buf));
	check(pread(fd, buf, sizeof(buf) - 1, 0) == 9 && !strcmp(buf, "00000011\n"), "reads 00000011");
	errno = 0;
	check(pwrite(fd, "junk", 4, 0) == -1 && errno == EINVAL, "junk: EINVAL");
	close(fd);
	pid_t pid = fork_child();
	if (pid == 0) {
		memset(buf, 0, sizeof(buf));
		_exit(read_file("/proc/self/coredump_filter", buf, sizeof(buf)) == 9 &&
		      !strcmp(buf, "00000011\n") ? 0 : 1);
	}
	check_child_ok(pid, "a child inherits it");
	snprintf(path, sizeof(path), "/proc/self/task/%d/coredump_filter", (int)my_tid());
	check(access(path, F_OK) == -1 && errno == ENOENT, "not in task/TID");
	write_file("/proc/self/coredump_filter", "0x33");
}

// pagemap: 8 bytes a page; a touched private page is present and mapped
// once (with its frame number for root), an untouched one 0, a shared
// one a "file" page; reads must be multiples of 8 at multiples of 8.
static void t_pagemap(void)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t e[4];
	char *a = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *sh = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (!check(a != MAP_FAILED && sh != MAP_FAILED, "mmap") || !check_ok(fd, "open"))
		return;
	a[0] = 1;
	a[2 * page] = 1;
	sh[0] = 1;
	if (check(pread(fd, e, sizeof(e), (off_t)((uintptr_t)a / (uintptr_t)page) * 8) == sizeof(e),
		  "read 4 entries")) {
		check((e[0] >> 63) && (e[2] >> 63), "touched pages present");
		check(e[1] == 0 && e[3] == 0, "untouched ones 0");
		check((e[0] >> 56 & 1) && !(e[0] >> 61 & 1), "private: mapped once, not a file page");
		check(geteuid() != 0 || (e[0] & ((1ULL << 55) - 1)) != 0, "root sees the frame number");
	}
	if (check(pread(fd, e, 8, (off_t)((uintptr_t)sh / (uintptr_t)page) * 8) == 8, "read 1 entry"))
		check((e[0] >> 63) && (e[0] >> 61 & 1), "shared memory: present, a \"file\" page");
	errno = 0;
	check(pread(fd, e, 7, 0) == -1 && errno == EINVAL, "7 bytes: EINVAL");
	errno = 0;
	check(pread(fd, e, 8, 3) == -1 && errno == EINVAL, "offset 3: EINVAL");
	close(fd);
	munmap(a, 4 * page);
	munmap(sh, page);
}

static const struct test_case cases[] = {
	{ "self_links", t_self_links },
	{ "coredump_filter", t_coredump_filter },
	{ "pagemap", t_pagemap },
	{ "stat_by_position", t_stat_by_position },
	{ "status_and_statm", t_status_and_statm },
	{ "status_ids_and_owner", t_status_ids },
	{ "cmdline_environ", t_cmdline_environ },
	{ "cmdline_of_other", t_cmdline_of_other },
	{ "auxv", t_auxv },
	{ "task_dirs_and_comm", t_task_dirs_and_comm },
	{ "comm_write", t_comm_write },
	{ "fd_links", t_fd_links },
	{ "maps_known_mapping", t_maps_known_mapping },
	{ "readdir_children", t_readdir_children },
	{ "zombie", t_zombie },
	{ "stopped_state_T", t_stopped_state },
	{ "stat_times_are_the_cpu_clock", t_stat_times },
	{ "tty_nr_and_tpgid", t_tty_fields },
	{ "offsets_and_pieces", t_offsets_and_pieces },
	{ "readdir_positions", t_readdir_positions },
	{ "cwd_exe_root", t_cwd_exe_root },
	{ "no_leaks", t_no_leaks },
};

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--cmdline-child") == 0)
		return cmdline_child(argc, argv);
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/procfs_pid-%d", (int)getpid());
	mkdir(scratch_dir, 0755);
	memstat_touch_image(64 * 1024);		// for no_leaks
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
