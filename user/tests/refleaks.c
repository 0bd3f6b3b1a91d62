// Error paths give back what they took.  Each case makes calls that fail
// in one particular way (found leaking by the fuzzer, see
// docs/testing.md) and checks that /proc/switchyard/memstat comes back to
// where it was, by the rules of user/lib/memstat.h.  The calls' errnos
// are checked on Linux too; the memory only on Switchyard.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

static const struct test_case cases[] = {
	{ "mmap_file_huge_length_keeps_no_reference", t_mmap_file_huge_length },
};

// The stack this program uses and its whole image (code is faulted in on
// first use) are touched first, so no page fault of its own shows up
// between two snapshots.
extern char __executable_start[], _end[];

static void touch_memory(void)
{
	volatile char area[64 * 1024];

	for (size_t i = 0; i < sizeof(area); i += 4096)
		area[i] = 0;
	for (volatile char *p = __executable_start; p < _end; p += 4096)
		(void)*p;
}

int main(void)
{
	snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/refleaks-%d", (int)getpid());
	mkdir(scratch_dir, 0700);
	touch_memory();
	for (int i = 0; i < 4; i++)
		memset((char *)scratch(""), 0, PATH_MAX);
	have_memstat = memstat_read(&base) == 0;
	if (have_memstat)
		memstat_settle(&base, &now, 0, why, sizeof(why));	// touches its buffers
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	rmdir(scratch_dir);
	return ktap_finish();
}
