// procfs_sys: the system-wide files of /proc, /proc/sys, /sys and /dev.
//
// Readers that parse by position must work, so the layouts are checked
// as Linux's are: /proc/cpuinfo's fields in Linux's order, one block per
// online CPU; /proc/loadavg's five fields; the CPU range lists of /sys.
// The /proc/sys settings must do what they say: pipe-max-size bounds
// F_SETPIPE_SZ and new pipes for a process without CAP_SYS_RESOURCE, the
// host name written there is uname's and sethostname's.  Linux is the
// reference: every case passes there too (run as root; the host-name
// case works in a UTS namespace of its own there, and pipe-max-size is
// put back as it was).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sysutil.h"
#include "testcase.h"

#define TMPFS_MAGIC 0x01021994
#define MAX_SPINNERS_GUARD 65

// ---- helpers -----------------------------------------------------------------

static bool on_switchyard(void)
{
	struct utsname u;

	return uname(&u) == 0 && strstr(u.version, "Switchyard") != NULL;
}

static int read_long(const char *path, long *v)
{
	char buf[64], *end;

	if (read_file(path, buf, sizeof(buf)) < 0)
		return fail("read %s: errno=%d", path, errno);
	errno = 0;
	*v = strtol(buf, &end, 10);
	if (errno || end == buf || strcmp(end, "\n") != 0)
		return fail("%s: '%s' is not one number and a newline", path, buf);
	return 1;
}

// Parses a Linux CPU list ("0-3,5") into a mask; -1 if malformed.
static int parse_cpu_list(const char *s, uint64_t *mask)
{
	*mask = 0;
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0 || a > 63)
			return -1;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b > 63)
				return -1;
			s = end;
		}
		for (long i = a; i <= b; i++)
			*mask |= 1ULL << i;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return strcmp(s, "\n") == 0 ? 0 : -1;
}

static int popcount64(uint64_t m)
{
	return __builtin_popcountll(m);
}

// ---- /proc/cpuinfo -------------------------------------------------------------

// Linux x86's fields, in its order; "cache size" may be missing where
// the CPU does not say, "microcode" in a virtual machine, and others
// (vmx flags, TLB size) may come between.
static const char *const cpuinfo_fields[] = {
	"processor", "vendor_id", "cpu family", "model", "model name", "stepping",
	"cpu MHz", "physical id", "siblings", "core id", "cpu cores",
	"apicid", "initial apicid", "fpu", "fpu_exception", "cpuid level", "wp", "flags",
	"bugs", "bogomips", "clflush size", "cache_alignment", "address sizes",
	"power management",
};
#define NR_CPUINFO_FIELDS (int)(sizeof(cpuinfo_fields) / sizeof(cpuinfo_fields[0]))

static char cpuinfo[1 << 17];

// One block: each line "name<tabs>: value", the fields in order.
static int check_block(char *block, int index)
{
	int next = 0;
	double mhz = 0;
	bool fpu_flag = false;

	for (char *line = strtok(block, "\n"); line; line = strtok(NULL, "\n")) {
		char *colon = strchr(line, ':');
		char name[64];
		size_t n;

		if (!colon)
			return fail("cpu %d: line without ':': '%s'", index, line);
		n = (size_t)(colon - line);
		while (n && line[n - 1] == '\t')
			n--;
		if (n == 0 || n >= sizeof(name))
			return fail("cpu %d: bad field name in '%s'", index, line);
		memcpy(name, line, n);
		name[n] = 0;
		if (colon[1] != 0 && colon[1] != ' ')
			return fail("cpu %d: no space after ':' in '%s'", index, line);
		if (strcmp(name, "cpu MHz") == 0)
			mhz = atof(colon + 1);
		if (strcmp(name, "flags") == 0)
			fpu_flag = strncmp(colon + 1, " fpu ", 5) == 0;
		if (strcmp(name, "processor") == 0 && atoi(colon + 1) < index)
			return fail("cpu %d: processor %d out of order", index, atoi(colon + 1));
		if (next < NR_CPUINFO_FIELDS && strcmp(name, cpuinfo_fields[next]) == 0)
			next++;
	}
	if (next != NR_CPUINFO_FIELDS)
		return fail("cpu %d: field '%s' missing or out of order", index,
			    cpuinfo_fields[next]);
	if (!(mhz > 0))
		return fail("cpu %d: cpu MHz is not positive", index);
	if (!fpu_flag)
		return fail("cpu %d: flags do not start with fpu", index);
	return 1;
}

static void t_cpuinfo_layout(void)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int blocks = 0;
	char *p;

#if !defined(__x86_64__)
	skip("the fields checked are x86's");
	return;
#endif
	if (read_file("/proc/cpuinfo", cpuinfo, sizeof(cpuinfo)) < 0) {
		fail("read /proc/cpuinfo: errno=%d", errno);
		return;
	}
	// Blocks end with an empty line.
	p = cpuinfo;
	while (*p) {
		char *end = strstr(p, "\n\n");

		if (!end) {
			fail("block %d does not end with an empty line", blocks);
			return;
		}
		end[1] = 0;
		if (!check_block(p, blocks))
			return;
		blocks++;
		p = end + 2;
	}
	if (blocks != online)
		fail("%d blocks, sysconf says %ld CPUs online", blocks, online);
}

// Reading in small pieces gives the same text as one large read.
static void t_cpuinfo_small_reads(void)
{
	static char whole[1 << 17], pieces[1 << 17];
	long len = read_file("/proc/cpuinfo", whole, sizeof(whole));
	int fd = open("/proc/cpuinfo", O_RDONLY);
	size_t got = 0;
	ssize_t n;

	if (!check_ok(len, "read cpuinfo") || !check_ok(fd, "open cpuinfo"))
		return;
	while (got + 1 < sizeof(pieces) && (n = read(fd, pieces + got, 7)) > 0)
		got += (size_t)n;
	close(fd);
	pieces[got] = 0;
	// cpu MHz may differ between renderings on Linux (x86); compare
	// everything before the first "cpu MHz" line only.  Without such a
	// line (ppc64), the whole text.
	char *a = strstr(whole, "cpu MHz"), *b = strstr(pieces, "cpu MHz");
	if (!a && !b) {
		a = whole + len;
		b = pieces + got;
	}
	check(a && b && a - whole == b - pieces &&
	      memcmp(whole, pieces, (size_t)(a - whole)) == 0,
	      "7-byte reads give the text of one large read");
}

// ---- /proc/loadavg -------------------------------------------------------------

struct loadavg {
	double avg[3];
	int running, total, last;
};

// "0.52 0.58 0.59 2/191 4217\n", parsed by position.
static bool two_decimals(const char *s)
{
	size_t n = s ? strspn(s, "0123456789") : 0;

	return n > 0 && s[n] == '.' && strspn(s + n + 1, "0123456789") == 2 && s[n + 3] == 0;
}

static int read_loadavg(struct loadavg *l)
{
	char buf[128], copy[128], tail[8], *tok;
	int fields;

	if (read_file("/proc/loadavg", buf, sizeof(buf)) < 0)
		return fail("read /proc/loadavg: errno=%d", errno);
	strcpy(copy, buf);
	tok = strtok(copy, " ");
	for (int i = 0; i < 3; i++, tok = strtok(NULL, " "))
		if (!two_decimals(tok))
			return fail("average %d not as 'N.NN': '%s'", i, buf);
	fields = sscanf(buf, "%lf %lf %lf %d/%d %d%7s", &l->avg[0], &l->avg[1], &l->avg[2],
			&l->running, &l->total, &l->last, tail);
	if (fields != 6 || buf[strlen(buf) - 1] != '\n')
		return fail("loadavg not in Linux's layout: '%s'", buf);
	return 1;
}

static void t_loadavg_format(void)
{
	struct loadavg l;
	long pid_max;

	if (!read_loadavg(&l) || !read_long("/proc/sys/kernel/pid_max", &pid_max))
		return;
	for (int i = 0; i < 3; i++)
		if (l.avg[i] < 0)
			fail("average %d negative", i);
	check(l.running >= 1, "at least the reader runs");
	check(l.running <= l.total, "running <= all threads");
	check(l.last > 0 && l.last < pid_max, "last pid within pid_max");
}

static volatile int spin_stop;

static void *spin(void *arg)
{
	(void)arg;
	while (!spin_stop)
		;
	return NULL;
}

// The 1-minute average is sampled every 5 seconds: with more threads
// running than CPUs it must rise within a few samples.
static void t_loadavg_rises(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int nthreads = (int)cpus + 1;
	pthread_t th[MAX_SPINNERS_GUARD];
	struct loadavg before, now;
	bool rose = false;

	if (nthreads > MAX_SPINNERS_GUARD)
		nthreads = MAX_SPINNERS_GUARD;
	if (!read_loadavg(&before))
		return;
	spin_stop = 0;
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, spin, NULL) != 0) {
			nthreads = i;
			break;
		}
	for (int i = 0; i < 48 && !rose; i++) {		// 12 s: two samples at least
		sleep_ms(250);
		if (!read_loadavg(&now))
			break;
		rose = now.avg[0] > before.avg[0];
		if (now.running < 2)
			fail("%d running while %d threads spin", now.running, nthreads);
	}
	spin_stop = 1;
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	// Where the machine was busier than our threads make it (a shared
	// host), the average may fall while they spin: nothing to learn.
	if (!rose && before.avg[0] >= nthreads)
		skip("the machine was already loaded");
	else
		check(rose, "1-minute load average rose under load");
}

// ---- /proc/sys -----------------------------------------------------------------

#define PIPE_MAX "/proc/sys/fs/pipe-max-size"

// As a user without CAP_SYS_RESOURCE: F_SETPIPE_SZ cannot grow a pipe
// beyond pipe-max-size, and a new pipe holds no more than it.
static int pipe_limit_child(void)
{
	int p[2];

	if (setuid(65534) < 0)
		return 1;
	if (pipe(p) < 0)
		return 2;
	if (fcntl(p[0], F_GETPIPE_SZ) > 8192)
		return 3;
	if (fcntl(p[0], F_SETPIPE_SZ, 16384) != -1 || errno != EPERM)
		return 4;
	if (fcntl(p[0], F_SETPIPE_SZ, 8192) != 8192)
		return 5;
	if (fcntl(p[0], F_SETPIPE_SZ, 4096) != 4096)		// shrinking is fine
		return 6;
	return 0;
}

// Whether this process has CAP_SYS_RESOURCE (24) in its effective set
// (root in a container may not).
static int have_sys_resource(void)
{
	struct { uint32_t version; int pid; } head = { 0x20080522, 0 };	// v3
	struct { uint32_t effective, permitted, inheritable; } data[2];

	if (syscall(SYS_capget, &head, data) < 0)
		return 0;
	return (data[0].effective >> 24) & 1;
}

// Root (CAP_SYS_RESOURCE) is not bound by pipe-max-size, as on Linux.
static int pipe_root_child(void)
{
	int p[2];

	if (!have_sys_resource())
		return 0;		// nothing to check here
	if (pipe(p) < 0)
		return 1;
	if (fcntl(p[0], F_GETPIPE_SZ) != 65536)
		return 2;
	if (fcntl(p[0], F_SETPIPE_SZ, 131072) != 131072)
		return 3;
	return 0;
}

static void t_pipe_max_size(void)
{
	char buf[32], orig[32];
	pid_t pid;

	if (read_file(PIPE_MAX, orig, sizeof(orig)) < 0) {
		fail("read %s: errno=%d", PIPE_MAX, errno);
		return;
	}
	// Written values round up to a power of two pages, as F_SETPIPE_SZ does.
	if (!check(write_file(PIPE_MAX, "5000\n") == 0, "write 5000"))
		goto out;
	read_file(PIPE_MAX, buf, sizeof(buf));
	check(strcmp(buf, "8192\n") == 0, "5000 reads back as 8192");
	check(write_file(PIPE_MAX, "abc") == EINVAL, "a word is EINVAL");
	check(write_file(PIPE_MAX, "0") == 0, "write 0");
	read_file(PIPE_MAX, buf, sizeof(buf));
	check(strcmp(buf, "4096\n") == 0, "0 reads back as a page");
	check(write_file(PIPE_MAX, "8192") == 0, "write 8192");
	check(write_file(PIPE_MAX, "") == 0 || errno == EINVAL, "empty write");
	check(write_file(PIPE_MAX, "2147483649") == EINVAL, "above 2^31 is EINVAL");
	check(write_file(PIPE_MAX, "8192x") == EINVAL, "junk after the number is EINVAL");
	check(write_file(PIPE_MAX, "-1") == EINVAL, "a sign is EINVAL");
	check(write_file(PIPE_MAX, "\n") == EINVAL, "no number is EINVAL");
	check(write_file(PIPE_MAX, "0x") == EINVAL, "0x alone is EINVAL");
	check(write_file(PIPE_MAX, "0x2000 whatever") == 0, "hexadecimal, rest ignored");
	read_file(PIPE_MAX, buf, sizeof(buf));
	check(strcmp(buf, "8192\n") == 0, "failed writes change nothing");
	pid = fork_child();
	if (pid == 0)
		_exit(pipe_limit_child());
	check_child_ok(pid, "unprivileged F_SETPIPE_SZ under pipe-max-size 8192 "
			    "(1 setuid, 2 pipe, 3 new size, 4 grow, 5 at limit, 6 shrink)");
	pid = fork_child();
	if (pid == 0)
		_exit(pipe_root_child());
	check_child_ok(pid, "root's pipes under pipe-max-size 8192 (1 pipe, 2 new size 64 KiB, "
			    "3 grows past the limit)");
out:
	check(write_file(PIPE_MAX, orig) == 0, "pipe-max-size restored");
}

static int hostname_child(void)
{
	static const char long_name[] =
		"0123456789012345678901234567890123456789012345678901234567890123456789";
	char proc[128];
	struct utsname u;

	if (unshare(CLONE_NEWUTS) < 0 && !on_switchyard())
		return 10;		// never rename the host
	if (sethostname("sy-one", 6) < 0 || uname(&u) < 0 || strcmp(u.nodename, "sy-one"))
		return 1;
	if (read_file("/proc/sys/kernel/hostname", proc, sizeof(proc)) < 0 ||
	    strcmp(proc, "sy-one\n"))
		return 2;
	if (write_file("/proc/sys/kernel/hostname", "sy-two\n") || uname(&u) < 0 ||
	    strcmp(u.nodename, "sy-two"))
		return 3;
	if (gethostname(proc, sizeof(proc)) < 0 || strcmp(proc, "sy-two"))
		return 4;
	if (sethostname(long_name, 65) != -1 || errno != EINVAL)
		return 5;
	if (syscall(SYS_sethostname, NULL, 5) != -1 || errno != EFAULT)
		return 6;
	if (syscall(SYS_sethostname, "x", -1) != -1 || errno != EINVAL)
		return 7;
	// Written through /proc, a name is cut to 64 bytes.
	if (write_file("/proc/sys/kernel/hostname", long_name) || uname(&u) < 0 ||
	    strlen(u.nodename) != 64 || strncmp(u.nodename, long_name, 64))
		return 8;
	if (setdomainname("sy.example", 10) < 0 || uname(&u) < 0 ||
	    strcmp(u.domainname, "sy.example") ||
	    read_file("/proc/sys/kernel/domainname", proc, sizeof(proc)) < 0 ||
	    strcmp(proc, "sy.example\n"))
		return 9;
	// Without CAP_SYS_ADMIN: EPERM, checked before the length.
	pid_t pid = fork();
	if (pid == 0) {
		if (setuid(65534) < 0)
			_exit(1);
		if (sethostname("sy-three", 8) != -1 || errno != EPERM)
			_exit(2);
		if (sethostname(long_name, 65) != -1 || errno != EPERM)
			_exit(3);
		if (setdomainname("x", 1) != -1 || errno != EPERM)
			_exit(4);
		if (write_file("/proc/sys/kernel/hostname", "sy-three") != EACCES)
			_exit(5);
		_exit(0);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || uname(&u) < 0 || strncmp(u.nodename, long_name, 64))
		return 11;
	return 0;
}

static void t_hostname_agrees(void)
{
	char proc[128], orig_host[65], orig_dom[65];
	struct utsname u;
	pid_t pid;

	if (!check_ok(uname(&u), "uname") ||
	    !check_ok(read_file("/proc/sys/kernel/hostname", proc, sizeof(proc)), "read hostname"))
		return;
	if (!check(strlen(proc) > 0 && strncmp(proc, u.nodename, strlen(proc) - 1) == 0 &&
		   strlen(proc) - 1 == strlen(u.nodename), "/proc hostname is uname's"))
		return;
	strcpy(orig_host, u.nodename);
	strcpy(orig_dom, u.domainname);
	pid = fork_child();
	if (pid == 0)
		_exit(hostname_child());
	check_child_ok(pid, "sethostname and /proc/sys/kernel/hostname agree (1 set, 2 proc, "
			    "3 proc write, 4 gethostname, 5 too long, 6 EFAULT, 7 negative, "
			    "8 cut to 64, 9 domainname, 10 no UTS namespace, "
			    "11 an unprivileged user renamed the host)");
	if (on_switchyard()) {		// the namespace is the whole system here
		sethostname(orig_host, strlen(orig_host));
		setdomainname(orig_dom, strlen(orig_dom));
	}
}

static void t_sysctl_values(void)
{
	long pid_max, threads_max, file_max, nr_open, overcommit, tainted, soft;
	char buf[256];
	struct utsname u;
	struct rlimit rl;

	if (!read_long("/proc/sys/kernel/pid_max", &pid_max) ||
	    !read_long("/proc/sys/kernel/threads-max", &threads_max) ||
	    !read_long("/proc/sys/fs/file-max", &file_max) ||
	    !read_long("/proc/sys/fs/nr_open", &nr_open) ||
	    !read_long("/proc/sys/fs/pipe-user-pages-soft", &soft) ||
	    !read_long("/proc/sys/vm/overcommit_memory", &overcommit) ||
	    !read_long("/proc/sys/kernel/tainted", &tainted) || !check_ok(uname(&u), "uname"))
		return;
	check(pid_max > 300 && threads_max > 0 && file_max > 0 && soft >= 0 && tainted >= 0,
	      "limits are positive");
	check(overcommit >= 0 && overcommit <= 2, "overcommit_memory is 0, 1 or 2");
	check(getpid() < pid_max, "our pid is below pid_max");
	// nr_open bounds RLIMIT_NOFILE.
	check_ok(getrlimit(RLIMIT_NOFILE, &rl), "getrlimit");
	check(rl.rlim_max <= (rlim_t)nr_open, "RLIMIT_NOFILE max <= nr_open");
	rl.rlim_max = (rlim_t)nr_open + 1;
	rl.rlim_cur = 64;
	check_errno(setrlimit(RLIMIT_NOFILE, &rl), EPERM, "RLIMIT_NOFILE above nr_open");
	read_file("/proc/sys/kernel/ostype", buf, sizeof(buf));
	check(strlen(buf) && strncmp(buf, u.sysname, strlen(buf) - 1) == 0, "ostype is uname's");
	read_file("/proc/sys/kernel/osrelease", buf, sizeof(buf));
	check(strlen(buf) && strncmp(buf, u.release, strlen(buf) - 1) == 0, "osrelease is uname's");
	check(read_file("/proc/sys/kernel/core_pattern", buf, sizeof(buf)) > 1, "core_pattern");
}

// Linux's read-only settings refuse writers at open, root included.
static void t_sysctl_readonly(void)
{
	static const char *const ro[] = { "/proc/sys/kernel/ostype", "/proc/sys/kernel/osrelease" };

	for (size_t i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
		check_errno(open(ro[i], O_WRONLY), EACCES, ro[i]);
		check_errno(open(ro[i], O_RDWR), EACCES, ro[i]);
	}
}

// ---- /proc/version, filesystems, mounts ------------------------------------

static void t_version_filesystems_mounts(void)
{
	char buf[8192], want[128];
	struct utsname u;
	bool root = false;

	if (!check_ok(uname(&u), "uname") ||
	    !check_ok(read_file("/proc/version", buf, sizeof(buf)), "read /proc/version"))
		return;
	snprintf(want, sizeof(want), "Linux version %s ", u.release);
	check(strncmp(buf, want, strlen(want)) == 0, "/proc/version names uname's release");
	if (!check_ok(read_file("/proc/filesystems", buf, sizeof(buf)), "read filesystems"))
		return;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *tab = strchr(line, '\t');

		if (!tab || (tab != line && strncmp(line, "nodev", 5) != 0) || !tab[1])
			fail("filesystems line '%s'", line);
	}
	if (!check_ok(read_file("/proc/mounts", buf, sizeof(buf)), "read mounts"))
		return;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char dev[256], dir[256], type[64], opts[512];
		int freq, pass;

		if (sscanf(line, "%255s %255s %63s %511s %d %d", dev, dir, type, opts, &freq,
			   &pass) != 6)
			fail("mounts line '%s'", line);
		root |= strcmp(dir, "/") == 0;
	}
	check(root, "/ is in /proc/mounts");
}

// statfs of the in-memory tree: its blocks go as a file grows.
static void t_statfs_tree(void)
{
	struct statfs a, b;
	char *page = calloc(1, 1 << 20);
	int fd;

	if (!page || !check_ok(statfs("/tmp", &a), "statfs /tmp"))
		goto out;
	check(a.f_bsize > 0 && a.f_bfree <= a.f_blocks && a.f_bavail <= a.f_blocks,
	      "sane statfs");
	if (!on_switchyard()) {
		free(page);
		return;		// the host's /tmp is shared with everyone
	}
	check(a.f_type == TMPFS_MAGIC, "the tree says tmpfs");
	check(a.f_files == 0 && a.f_ffree == 0, "no file-count limit, said as tmpfs says it");
	fd = open("/tmp/procfs_sys.statfs", O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (!check_ok(fd, "create"))
		goto out;
	memset(page, 1, 1 << 20);
	check(write(fd, page, 1 << 20) == 1 << 20, "write 1 MiB");
	check_ok(fstatfs(fd, &b), "fstatfs");
	check(a.f_bfree - b.f_bfree >= (unsigned long)((1 << 20) / a.f_bsize), "1 MiB written takes 1 MiB");
	close(fd);
	unlink("/tmp/procfs_sys.statfs");
out:
	free(page);
}

// ---- /dev ----------------------------------------------------------------------

static void t_dev_full(void)
{
	int fd = open("/dev/full", O_RDWR);
	char buf[16];

	if (!check_ok(fd, "open /dev/full"))
		return;
	check_errno(write(fd, "x", 1), ENOSPC, "write /dev/full");
	memset(buf, 1, sizeof(buf));
	check(read(fd, buf, sizeof(buf)) == sizeof(buf), "read /dev/full");
	for (size_t i = 0; i < sizeof(buf); i++)
		if (buf[i])
			fail("/dev/full reads non-zero");
	close(fd);
}

static void t_dev_random(void)
{
	static const char *const devs[] = { "/dev/urandom", "/dev/random" };
	unsigned char a[64], b[64], c[64], zero[64] = { 0 };

	for (size_t d = 0; d < 2; d++) {
		int fd = open(devs[d], O_RDONLY);

		if (!check_ok(fd, devs[d]))
			return;
		check(read(fd, a, sizeof(a)) == sizeof(a) && read(fd, b, sizeof(b)) == sizeof(b),
		      "64-byte reads");
		check(memcmp(a, b, sizeof(a)) != 0, "two reads differ");
		check(memcmp(a, zero, sizeof(a)) != 0, "not all zero");
		// A write stirs the pool; anyone may write.
		check(write(fd, "seed", 4) == -1 && errno == EBADF, "read-only fd refuses writes");
		close(fd);
	}
	check(getrandom(c, sizeof(c), 0) == sizeof(c), "getrandom");
	check(memcmp(c, a, sizeof(c)) != 0 && memcmp(c, b, sizeof(c)) != 0,
	      "getrandom differs from /dev/urandom's output");
	int fd = open("/dev/urandom", O_WRONLY);
	check(fd >= 0 && write(fd, "seed", 4) == 4, "write /dev/urandom");
	close(fd);
}

// Bits set over many bytes: a constant or a biased source is far off 50%.
static void t_dev_urandom_balanced(void)
{
	static unsigned char buf[1 << 16];
	int fd = open("/dev/urandom", O_RDONLY);
	long ones = 0, total = (long)sizeof(buf) * 8;

	if (!check_ok(fd, "open"))
		return;
	check(read(fd, buf, sizeof(buf)) == sizeof(buf), "read 64 KiB");
	close(fd);
	for (size_t i = 0; i < sizeof(buf); i++)
		ones += __builtin_popcount(buf[i]);
	// 524288 bits: the standard deviation is 362; allow 10 of them.
	check(ones > total / 2 - 3620 && ones < total / 2 + 3620, "half the bits set");
}

static void t_dev_links(void)
{
	static const struct { const char *link, *target; } links[] = {
		{ "/dev/fd", "/proc/self/fd" },
		{ "/dev/stdin", "/proc/self/fd/0" },
		{ "/dev/stdout", "/proc/self/fd/1" },
		{ "/dev/stderr", "/proc/self/fd/2" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		ssize_t n = readlink(links[i].link, buf, sizeof(buf) - 1);

		if (!check_ok(n, links[i].link))
			return;
		buf[n] = 0;
		if (strcmp(buf, links[i].target))
			fail("%s -> %s, want %s", links[i].link, buf, links[i].target);
	}
}

// /dev/fd/N opens what descriptor N is (through /proc/self/fd).
// A pipe opened again through /dev/fd/N and /proc/self/fd/N, as Linux
// does it: a write end, a read end, O_RDWR, /dev/stdin on a pipe, and no
// waiting for the other end (a pipe is not a FIFO).
static void t_dev_fd_reopen(void)
{
	char path[32], buf[8] = { 0 };
	int p[2], fd, rd;

	if (!check_ok(pipe(p), "pipe"))
		return;
	snprintf(path, sizeof(path), "/dev/fd/%d", p[1]);
	fd = open(path, O_WRONLY);
	if (check_ok(fd, "open /dev/fd/N for writing")) {
		check(write(fd, "hi", 2) == 2, "write through the reopened end");
		check(read(p[0], buf, sizeof(buf)) == 2 && strcmp(buf, "hi") == 0,
		      "the pipe got it");
		close(fd);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	rd = open(path, O_RDONLY);
	if (check_ok(rd, "open /proc/self/fd/N for reading")) {
		check(write(p[1], "yo", 2) == 2, "write to the pipe");
		memset(buf, 0, sizeof(buf));
		check(read(rd, buf, sizeof(buf)) == 2 && strcmp(buf, "yo") == 0,
		      "read through the reopened end");
	}
	fd = open(path, O_RDWR);
	if (check_ok(fd, "open O_RDWR")) {
		check(write(fd, "rw", 2) == 2, "write through the O_RDWR end");
		memset(buf, 0, sizeof(buf));
		check(read(fd, buf, sizeof(buf)) == 2 && strcmp(buf, "rw") == 0, "and read back");
		close(fd);
	}
	// The process's stdin as a pipe: /dev/stdin stats as a FIFO (test -p)
	// and reads it.
	pid_t pid = fork_child();
	if (pid == 0) {
		struct stat st;

		dup2(rd, 0);
		if (stat("/dev/stdin", &st) != 0 || !S_ISFIFO(st.st_mode))
			_exit(2);
		int in = open("/dev/stdin", O_RDONLY);
		char c[4] = { 0 };
		_exit(in >= 0 && read(in, c, 3) == 3 && strcmp(c, "abc") == 0 ? 0 : 1);
	}
	check(write(p[1], "abc", 3) == 3, "write for /dev/stdin");
	check_child_ok(pid, "/dev/stdin on a pipe: a FIFO to stat (2), read");
	close(p[1]);
	// No writer left: a reader opens at once and reads end of file; a
	// writer opens at once with no reader left.
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	fd = open(path, O_RDONLY);
	check(fd >= 0, "a reader opens without a writer");
	if (fd >= 0) {
		check(read(fd, buf, 1) == 0, "and reads end of file");
		close(fd);
	}
	int w[2];
	if (check_ok(pipe(w), "second pipe")) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", w[1]);
		close(w[0]);
		fd = open(path, O_WRONLY | O_NONBLOCK);
		check(fd >= 0, "a writer opens without a reader");
		close(fd);
		close(w[1]);
	}
	close(rd);
	close(p[0]);
}

static void t_dev_shm(void)
{
	struct stat st;
	int fd;

	if (!check_ok(stat("/dev/shm", &st), "stat /dev/shm"))
		return;
	check(S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 01777,
	      "/dev/shm is a sticky world-writable directory");
	shm_unlink("/procfs_sys_shm");
	fd = shm_open("/procfs_sys_shm", O_CREAT | O_EXCL | O_RDWR, 0600);
	if (!check_ok(fd, "shm_open"))
		return;
	// (Shared mappings of files are another matter: docs/syscalls.md.)
	check_ok(ftruncate(fd, 4096), "ftruncate");
	check(pwrite(fd, "shared", 6, 0) == 6, "write");
	close(fd);
	fd = shm_open("/procfs_sys_shm", O_RDONLY, 0);
	if (check_ok(fd, "shm_open again")) {
		char buf[8] = { 0 };

		check(read(fd, buf, 6) == 6 && strcmp(buf, "shared") == 0, "contents kept");
		close(fd);
	}
	check_ok(shm_unlink("/procfs_sys_shm"), "shm_unlink");
}

// ---- /sys ----------------------------------------------------------------------

static void t_sys_cpu_lists(void)
{
	char buf[256];
	uint64_t online, possible, present;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (read_file("/sys/devices/system/cpu/online", buf, sizeof(buf)) < 0 ||
	    parse_cpu_list(buf, &online) < 0)
		return (void)fail("online: '%s'", buf);
	if (read_file("/sys/devices/system/cpu/possible", buf, sizeof(buf)) < 0 ||
	    parse_cpu_list(buf, &possible) < 0)
		return (void)fail("possible: '%s'", buf);
	if (read_file("/sys/devices/system/cpu/present", buf, sizeof(buf)) < 0 ||
	    parse_cpu_list(buf, &present) < 0)
		return (void)fail("present: '%s'", buf);
	check(popcount64(online) == n, "online count is sysconf's");
	check((online & ~present) == 0 && (present & ~possible) == 0,
	      "online within present within possible");
	for (int i = 0; i < 64; i++) {
		char dir[64];
		struct stat st;

		if (!(present & (1ULL << i)))
			continue;
		snprintf(dir, sizeof(dir), "/sys/devices/system/cpu/cpu%d", i);
		if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
			fail("%s missing", dir);
	}
	check_errno(open("/sys/devices/system/cpu/online", O_WRONLY), EACCES,
		    "online is read-only");
}

// pid_max is writable within Linux's bounds, and new IDs stay below it.
static void t_pid_max_writable(void)
{
	const char *path = "/proc/sys/kernel/pid_max";
	char orig[32];
	long v;

	if (read_file(path, orig, sizeof(orig)) < 0)
		return (void)fail("read pid_max: errno %d", errno);
	check(write_file(path, "300") == EINVAL, "300 is below the minimum");
	check(write_file(path, "99999999") == EINVAL, "past the maximum");
	if (!check(write_file(path, "5000") == 0, "write 5000"))
		return;
	check(read_long(path, &v) && v == 5000, "5000 reads back");
	// Every new ID is below the new limit (the next one wraps around).
	for (int i = 0; i < 40; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid < 0) {
			fail("fork: errno %d", errno);
			break;
		}
		waitpid(pid, NULL, 0);
		if (pid >= 5000) {
			fail("child %d past pid_max 5000", (int)pid);
			break;
		}
	}
	check(write_file(path, orig) == 0, "restore pid_max");
}

// ns_last_pid: the last ID handed out; writing it (root) makes the next
// process's ID come after the value written.
static void t_ns_last_pid(void)
{
	const char *path = "/proc/sys/kernel/ns_last_pid";
	long pid_max, last;
	char text[32];

	if (!read_long("/proc/sys/kernel/pid_max", &pid_max) || !read_long(path, &last))
		return (void)fail("read pid_max or ns_last_pid: errno %d", errno);
	check(last > 0 && last < pid_max, "within pid_max");
	check(write_file(path, "-1") == EINVAL, "a negative value");
	snprintf(text, sizeof(text), "%ld", pid_max + 1);
	check(write_file(path, text) == EINVAL, "past pid_max");
	long want = last + 500 < pid_max - 100 ? last + 500 : 400;
	snprintf(text, sizeof(text), "%ld", want);
	if (!check(write_file(path, text) == 0, "write it"))
		return;
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return (void)fail("fork: errno %d", errno);
	waitpid(pid, NULL, 0);
	// Other programs may take IDs meanwhile (on a busy Linux host).
	check(pid > want && pid < want + 50, "the next child's ID comes after it");
}

// The names in /proc and /sys are the kernel's: even root cannot add or
// remove one, with Linux's errnos (procfs: ENOENT for a new name, EPERM
// for a removal, EACCES in /proc/sys; sysfs: EACCES for a new file).
static void t_names_fixed(void)
{
	check_errno(open("/proc/sys/kernel/zz_new", O_CREAT | O_WRONLY, 0644), ENOENT,
		    "create in /proc/sys/kernel");
	check_errno(open("/proc/zz_new", O_CREAT | O_WRONLY, 0644), ENOENT, "create in /proc");
	check_errno(open("/proc/self/zz_new", O_CREAT | O_WRONLY, 0644), ENOENT,
		    "create in /proc/self");
	check_errno(open("/sys/zz_new", O_CREAT | O_WRONLY, 0644), EACCES, "create in /sys");
	check_errno(mkdir("/proc/zz_new", 0755), ENOENT, "mkdir in /proc");
	check_errno(mknod("/proc/sys/kernel/zz_new", S_IFIFO | 0600, 0), ENOENT, "mknod there");
	check_errno(symlink("x", "/proc/sys/kernel/zz_new"), ENOENT, "symlink there");
	check_errno(unlink("/proc/meminfo"), EPERM, "unlink /proc/meminfo");
	check_errno(unlink("/proc/sys/kernel/hostname"), EACCES, "unlink in /proc/sys");
	check_errno(rmdir("/proc/sys/kernel"), EACCES, "rmdir /proc/sys/kernel");
	check_errno(rename("/proc/meminfo", "/proc/zz_new"), ENOENT, "rename within /proc");
	check_errno(link("/proc/meminfo", "/tmp/zz_new"), EXDEV, "link out of /proc");
	check(access("/proc/meminfo", R_OK) == 0 && access("/proc/sys/kernel/zz_new", F_OK) < 0,
	      "meminfo still there, nothing new");
}

// /proc/config.gz (IKCONFIG_PROC): a gzip file that zcat turns into
// "CONFIG_X=..." and "# CONFIG_X is not set" lines, with the options any
// kernel that runs this has (FUTEX, MMU).  A Linux built without it: skip.
static void t_config_gz(void)
{
	unsigned char magic[2];
	char line[256];
	int fd = open("/proc/config.gz", O_RDONLY), set = 0, lines = 0, futex = 0, mmu = 0, bad = 0;

	if (fd < 0) {
		struct utsname u;
		if (errno == ENOENT && !(uname(&u) == 0 && strstr(u.version, "Switchyard")))
			skip("no /proc/config.gz (a kernel without IKCONFIG_PROC)");
		else
			fail("open /proc/config.gz: errno %d", errno);
		return;
	}
	check(read(fd, magic, 2) == 2 && magic[0] == 0x1f && magic[1] == 0x8b, "gzip's magic");
	close(fd);
	fflush(stdout);
	FILE *z = popen("zcat /proc/config.gz 2>/dev/null || busybox zcat /proc/config.gz", "r");
	if (!check(z != NULL, "popen zcat"))
		return;
	while (fgets(line, sizeof(line), z)) {
		lines++;
		if (!strcmp(line, "CONFIG_FUTEX=y\n"))
			futex = 1;
		if (!strcmp(line, "CONFIG_MMU=y\n"))
			mmu = 1;
		if (!strncmp(line, "CONFIG_", 7) && strchr(line, '='))
			set++;
		else if (line[0] != '#' && line[0] != '\n')
			bad++;
	}
	check(pclose(z) == 0, "zcat succeeded");
	check(lines > 10 && set > 10, "a configuration");
	check(!bad, "only CONFIG_ lines and comments");
	check(futex && mmu, "CONFIG_FUTEX=y and CONFIG_MMU=y");
}

static const struct test_case cases[] = {
	{ "cpuinfo_layout_one_block_per_online_cpu", t_cpuinfo_layout },
	{ "config_gz", t_config_gz },
	{ "pid_max_writable", t_pid_max_writable },
	{ "ns_last_pid", t_ns_last_pid },
	{ "cpuinfo_small_reads", t_cpuinfo_small_reads },
	{ "loadavg_format", t_loadavg_format },
	{ "loadavg_rises_under_load", t_loadavg_rises },
	{ "sysctl_pipe_max_size_bounds_pipes", t_pipe_max_size },
	{ "sysctl_hostname_agrees_with_uname", t_hostname_agrees },
	{ "sysctl_values", t_sysctl_values },
	{ "sysctl_readonly_eacces", t_sysctl_readonly },
	{ "version_filesystems_mounts", t_version_filesystems_mounts },
	{ "statfs_tree", t_statfs_tree },
	{ "dev_full_enospc", t_dev_full },
	{ "dev_random_urandom_getrandom", t_dev_random },
	{ "dev_urandom_balanced", t_dev_urandom_balanced },
	{ "dev_links", t_dev_links },
	{ "dev_fd_reopen", t_dev_fd_reopen },
	{ "dev_shm", t_dev_shm },
	{ "sys_cpu_lists", t_sys_cpu_lists },
	{ "names_in_proc_and_sys_are_fixed", t_names_fixed },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
