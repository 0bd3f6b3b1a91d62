// fifo: named pipes and mknod, as Linux: mkfifo makes a FIFO node, a lone
// reader or writer waits for the other side (O_NONBLOCK: the reader goes
// ahead, the writer gets ENXIO), O_RDWR never waits, the data goes with
// the last close, a waiting open is interrupted (EINTR); mknod's types,
// its errnos and CAP_MKNOD, a character node for a device this kernel
// has working as that device, one for none (and block and socket nodes)
// refusing to open with ENXIO.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"
#include "privdrop.h"

static char dir[64], fifo[80];

static void t_mkfifo_node(void)
{
	struct stat st;
	mode_t old = umask(022);

	unlink(fifo);
	check_ok(mkfifo(fifo, 0666), "mkfifo");
	umask(old);
	check(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode) && (st.st_mode & 0777) == 0644,
	      "a FIFO, mode 0666 less the umask");
	check_errno(mkfifo(fifo, 0600), EEXIST, "the name is taken");
	DIR *d = opendir(dir);
	struct dirent *e;
	int type = -1;
	while (d && (e = readdir(d)))
		if (!strcmp(e->d_name, "fifo"))
			type = e->d_type;
	if (d)
		closedir(d);
	check(type == DT_FIFO, "getdents: DT_FIFO");
}

static void t_reader_and_writer_meet(void)
{
	char buf[16] = { 0 };
	pid_t pid = fork_child();

	if (pid == 0) {
		int w = open(fifo, O_WRONLY);	// waits for the reader
		_exit(w >= 0 && write(w, "through", 7) == 7 ? 0 : 1);
	}
	int r = open(fifo, O_RDONLY);		// waits for the writer
	if (!check_ok(r, "open for reading"))
		return;
	check(read(r, buf, sizeof(buf)) == 7 && strcmp(buf, "through") == 0, "the writer's bytes");
	check_child_ok(pid, "the writer");
	check(read(r, buf, sizeof(buf)) == 0, "end of file after the writer closed");
	close(r);
}

static void t_nonblocking_opens(void)
{
	char c;
	int r = open(fifo, O_RDONLY | O_NONBLOCK);

	check(r >= 0, "a non-blocking reader opens at once");
	check(r >= 0 && read(r, &c, 1) == 0, "and reads end of file (no writer)");
	int w = open(fifo, O_WRONLY | O_NONBLOCK);
	check(w >= 0, "a non-blocking writer opens while a reader is there");
	close(w);
	close(r);
	check_errno(open(fifo, O_WRONLY | O_NONBLOCK), ENXIO, "a non-blocking writer alone: ENXIO");
}

static void t_rdwr_and_data_lifetime(void)
{
	char buf[8] = { 0 };
	int fd = open(fifo, O_RDWR);

	if (!check_ok(fd, "O_RDWR opens without waiting"))
		return;
	check(write(fd, "rw", 2) == 2 && read(fd, buf, sizeof(buf)) == 2, "write and read back");
	check(write(fd, "left", 4) == 4, "leave data");
	close(fd);
	fd = open(fifo, O_RDWR | O_NONBLOCK);
	check(fd >= 0 && read(fd, buf, sizeof(buf)) == -1 && errno == EAGAIN,
	      "gone with the last close");
	close(fd);
}

static void on_alarm(int sig) { (void)sig; }

static void t_waiting_open_interrupted(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_alarm };	// no SA_RESTART
		struct itimerval it = { .it_value = { 0, 50000 } };

		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		_exit(open(fifo, O_RDONLY) == -1 && errno == EINTR ? 0 : 1);
	}
	check_child_ok(pid, "a reader waiting for a writer: EINTR");
}

static int c_mknod_unprivileged(void)
{
	char path[96];

	snprintf(path, sizeof(path), "%s/cdev-u", dir);
	if (drop_to(U1, G1, 0, NULL))
		return 1;
	// The directory's permission first (root's), then the capability.
	if (c_err(mknod(path, S_IFCHR | 0600, makedev(1, 3)), EACCES, "in root's directory"))
		return 1;
	snprintf(path, sizeof(path), "/tmp/fifo-cdev-%d", (int)getpid());
	return c_err(mknod(path, S_IFCHR | 0600, makedev(1, 3)), EPERM, "a device as uid 1000") ||
	       c_err(mknod(path, S_IFBLK | 0600, makedev(250, 0)), EPERM, "a block device as uid 1000") ||
	       c_ok(mknod(path, S_IFIFO | 0600, 0), "a FIFO as uid 1000") || c_ok(unlink(path), "unlink");
}

static void t_mknod(void)
{
	char path[96], c;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/null", dir);
	check_ok(mknod(path, S_IFCHR | 0666, makedev(1, 3)), "mknod c 1 3");
	check(stat(path, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
	      minor(st.st_rdev) == 3, "a character device 1:3");
	fd = open(path, O_RDWR);
	check(fd >= 0 && write(fd, "x", 1) == 1 && read(fd, &c, 1) == 0, "it is /dev/null");
	close(fd);
	snprintf(path, sizeof(path), "%s/nothing", dir);
	check_ok(mknod(path, S_IFCHR | 0600, makedev(240, 7)), "mknod c 240 7");
	check_errno(open(path, O_RDWR), ENXIO, "a number no driver serves: ENXIO");
	snprintf(path, sizeof(path), "%s/blk", dir);
	check_ok(mknod(path, S_IFBLK | 0600, makedev(250, 0)), "mknod b 250 0");
	check(stat(path, &st) == 0 && S_ISBLK(st.st_mode), "a block device node");
	check_errno(open(path, O_RDONLY), ENXIO, "a block number nothing serves: ENXIO");
	snprintf(path, sizeof(path), "%s/sock", dir);
	check_ok(mknod(path, S_IFSOCK | 0600, 0), "mknod a socket node");
	check(stat(path, &st) == 0 && S_ISSOCK(st.st_mode), "S_IFSOCK");
	check_errno(open(path, O_RDONLY), ENXIO, "a socket node: ENXIO");
	snprintf(path, sizeof(path), "%s/reg", dir);
	check_ok(mknod(path, S_IFREG | 0600, 0), "mknod a regular file");
	check(stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0, "S_IFREG");
	snprintf(path, sizeof(path), "%s/plain", dir);
	check_ok(mknod(path, 0600, 0), "type 0 is a regular file");
	snprintf(path, sizeof(path), "%s/d", dir);
	check_errno(mknod(path, S_IFDIR | 0700, 0), EPERM, "S_IFDIR");
	check_errno(mknod(path, 0150000 | 0700, 0), EINVAL, "an unknown type");
	snprintf(path, sizeof(path), "%s/missing/x", dir);
	check_errno(mknod(path, S_IFIFO | 0600, 0), ENOENT, "a missing directory");
	in_child(c_mknod_unprivileged, "unprivileged");
}

static const struct test_case cases[] = {
	{ "mkfifo_makes_a_fifo", t_mkfifo_node },
	{ "reader_and_writer_wait_for_each_other", t_reader_and_writer_meet },
	{ "nonblocking_reader_opens_writer_ENXIO", t_nonblocking_opens },
	{ "rdwr_never_waits_data_goes_with_last_close", t_rdwr_and_data_lifetime },
	{ "waiting_open_interrupted_EINTR", t_waiting_open_interrupted },
	{ "mknod_types_devices_and_errnos", t_mknod },
};

int main(void)
{
	privdrop_init();
	snprintf(dir, sizeof(dir), "/tmp/fifo-%d", (int)getpid());
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	mkdir(dir, 0755);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
