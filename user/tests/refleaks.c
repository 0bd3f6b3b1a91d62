// Error paths give back what they took.  Each case makes calls that fail
// in one particular way (found leaking by the fuzzer, see
// docs/testing.md) and checks that /proc/switchyard/memstat comes back to
// where it was, by the rules of user/lib/memstat.h.  The calls' errnos
// are checked on Linux too; the memory only on Switchyard.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memstat.h"
#include "testcase.h"

static int have_memstat;
static struct memstat base, now;
static char why[1024];

static void snapshot(void)
{
	if (have_memstat && memstat_read(&base) < 0)
		fail("cannot read %s", MEMSTAT_PATH);
}

static void memory_back(void)
{
	if (have_memstat && !fail_why[0] && memstat_settle(&base, &now, 5, why, sizeof(why)) != 0)
		fail("memory not back: %s", why);
}

// mmap of a file with a length beyond the user address space: ENOMEM,
// and the file is freed once unlinked and closed (the reference the
// mapping attempt took was kept: the file's vnode, name, page array and
// data stayed allocated for good).
static void t_mmap_file_huge_length(void)
{
	static const uint64_t lengths[] = {
		0x800000000001ULL, 1ULL << 48, 1ULL << 62, UINT64_MAX - 4096,
	};
	const char *path = scratch("mapped");
	char data[8192];

	memset(data, 'm', sizeof(data));
	snapshot();
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (!check_ok(fd, "open") || !check(write(fd, data, sizeof(data)) == sizeof(data), "write"))
		return;
	for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		void *p = mmap(NULL, lengths[i], PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			munmap(p, lengths[i]);
			fail("mmap of %#llx bytes succeeded", (unsigned long long)lengths[i]);
		} else if (errno != ENOMEM) {
			fail("mmap of %#llx bytes: errno %d, want ENOMEM",
			     (unsigned long long)lengths[i], errno);
		}
	}
	close(fd);
	unlink(path);
	memory_back();
}

// One thread moves between two directories (and asks where it is) while
// another forks: a child takes its own reference to the working
// directory.  Read twice without the lock, the child got one directory
// and the reference went to the other, so a removed directory stayed
// allocated for good (its vnode and name), and getcwd read a directory
// another thread had just let go of.
#define CWD_RACE_FORKS 400

// The moving thread's states, set by the main thread unless noted.
enum { CWD_CREATED, CWD_READY /* mover */, CWD_RUN, CWD_STOP, CWD_STOPPED /* mover */, CWD_EXIT };

static atomic_int cwd_race_state;
static atomic_int cwd_race_failed;
static char cwd_race_dirs[2][PATH_MAX];

static void wait_state(int state)
{
	while (atomic_load(&cwd_race_state) != state)
		sched_yield();
}

static void *cwd_mover(void *arg)
{
	char buf[PATH_MAX];
	long moves = 0;

	(void)arg;
	memset(buf, 0, sizeof(buf));	// its stack pages exist before the snapshot
	atomic_store(&cwd_race_state, CWD_READY);
	wait_state(CWD_RUN);
	while (atomic_load(&cwd_race_state) == CWD_RUN) {
		if (chdir(cwd_race_dirs[moves++ & 1]) != 0 || !getcwd(buf, sizeof(buf)))
			atomic_store(&cwd_race_failed, 1);
	}
	// Parked, not gone: the check after the race counts this thread.
	atomic_store(&cwd_race_state, CWD_STOPPED);
	wait_state(CWD_EXIT);
	return NULL;
}

static void t_cwd_race_with_fork(void)
{
	pthread_t mover;
	char home[PATH_MAX];

	if (!check(getcwd(home, sizeof(home)) != NULL, "getcwd"))
		return;
	for (int i = 0; i < 2; i++) {
		strcpy(cwd_race_dirs[i], scratch(i ? "cwd-b" : "cwd-a"));
		if (!check_ok(mkdir(cwd_race_dirs[i], 0700), "mkdir"))
			return;
	}
	// The thread (and its stack) exist from before the snapshot until
	// after the check.
	atomic_store(&cwd_race_state, CWD_CREATED);
	atomic_store(&cwd_race_failed, 0);
	if (!check(pthread_create(&mover, NULL, cwd_mover, NULL) == 0, "pthread_create"))
		return;
	wait_state(CWD_READY);
	snapshot();
	atomic_store(&cwd_race_state, CWD_RUN);
	for (int i = 0; i < CWD_RACE_FORKS; i++) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid) {
			fail("fork %d: errno %d", i, errno);
			break;
		}
	}
	atomic_store(&cwd_race_state, CWD_STOP);
	wait_state(CWD_STOPPED);
	check(!atomic_load(&cwd_race_failed), "chdir or getcwd failed in the moving thread");
	check_ok(chdir(home), "chdir back");
	for (int i = 0; i < 2; i++)
		check_ok(rmdir(cwd_race_dirs[i]), "rmdir");
	// The directories were made before the snapshot: gone now, they
	// must take their memory with them.  Remade, the balance is even.
	for (int i = 0; i < 2; i++)
		check_ok(mkdir(cwd_race_dirs[i], 0700), "mkdir again");
	memory_back();
	atomic_store(&cwd_race_state, CWD_EXIT);
	pthread_join(mover, NULL);
	for (int i = 0; i < 2; i++)
		rmdir(cwd_race_dirs[i]);
}

static const struct test_case cases[] = {
	{ "mmap_file_huge_length_keeps_no_reference", t_mmap_file_huge_length },
	{ "cwd_race_with_fork_keeps_no_reference", t_cwd_race_with_fork },
};

int main(void)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/refleaks-%d", (int)getpid());
	mkdir(scratch_dir, 0700);
	memstat_touch_image(64 * 1024);
	for (int i = 0; i < 4; i++)
		memset((char *)scratch(""), 0, PATH_MAX);
	have_memstat = memstat_read(&base) == 0;
	if (have_memstat)
		memstat_settle(&base, &now, 0, why, sizeof(why));	// touches its buffers
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
