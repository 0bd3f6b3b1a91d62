// memfd_seals: memfd_create with MFD_ALLOW_SEALING and fcntl's
// F_ADD_SEALS/F_GET_SEALS as Linux: a file made without it starts with
// F_SEAL_SEAL; F_SEAL_SHRINK, F_SEAL_GROW, F_SEAL_WRITE and
// F_SEAL_FUTURE_WRITE each refuse what they seal (EPERM) through write,
// pwrite, ftruncate and fallocate; F_SEAL_SEAL ends the adding; the
// errnos for other files, read-only descriptors and unknown bits.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testcase.h"

static int memfd(unsigned flags)
{
	return (int)syscall(SYS_memfd_create, "seals", flags);
}

static void t_without_sealing(void)
{
	int fd = memfd(MFD_CLOEXEC);

	check(fcntl(fd, F_GET_SEALS) == F_SEAL_SEAL, "F_SEAL_SEAL from the start");
	check_errno(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), EPERM, "no seals can be added");
	close(fd);
}

static void t_shrink_grow(void)
{
	int fd = memfd(MFD_ALLOW_SEALING);

	check(fcntl(fd, F_GET_SEALS) == 0, "no seals at first");
	check(write(fd, "0123456789", 10) == 10, "write");
	check_ok(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), "F_SEAL_SHRINK");
	check_errno(ftruncate(fd, 5), EPERM, "shrinking");
	check_ok(ftruncate(fd, 20), "growing still");
	check_ok(fcntl(fd, F_ADD_SEALS, F_SEAL_GROW), "F_SEAL_GROW");
	check(fcntl(fd, F_GET_SEALS) == (F_SEAL_SHRINK | F_SEAL_GROW), "both");
	check_errno(ftruncate(fd, 30), EPERM, "growing");
	check_ok(ftruncate(fd, 20), "the same size");
	check_errno(pwrite(fd, "x", 1, 20), EPERM, "a write past the end");
	check(pwrite(fd, "y", 1, 19) == 1, "a write inside");
	check_errno(fallocate(fd, 0, 0, 4096), EPERM, "fallocate past the end");
	close(fd);
}

static void t_write_and_seal(void)
{
	int fd = memfd(MFD_ALLOW_SEALING);
	int ro;
	char path[64], c;

	check(write(fd, "data", 4) == 4, "write");
	check_ok(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), "F_SEAL_WRITE");
	check_errno(write(fd, "x", 1), EPERM, "write");
	check_errno(pwrite(fd, "x", 1, 0), EPERM, "pwrite");
	check(pread(fd, &c, 1, 0) == 1 && c == 'd', "reads still");
	check_errno(fcntl(fd, F_ADD_SEALS, 0x100), EINVAL, "an unknown bit");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY);
	check(ro >= 0, "open read-only through /proc");
	check_errno(fcntl(ro, F_ADD_SEALS, F_SEAL_SHRINK), EPERM, "adding through a read-only descriptor");
	check_ok(fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL), "F_SEAL_SEAL");
	check_errno(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), EPERM, "after F_SEAL_SEAL");
	check(fcntl(ro, F_GET_SEALS) == (F_SEAL_WRITE | F_SEAL_SEAL), "F_GET_SEALS read-only");
	close(ro);
	close(fd);
	fd = memfd(MFD_ALLOW_SEALING);
	check_ok(fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE), "F_SEAL_FUTURE_WRITE");
	check_errno(write(fd, "x", 1), EPERM, "write after it");
	close(fd);
}

static void t_other_files(void)
{
	int fd = open("/tmp", O_RDONLY | O_DIRECTORY), p[2];

	check_errno(fcntl(fd, F_GET_SEALS), EINVAL, "a directory has no seals");
	close(fd);
	if (pipe(p) == 0) {
		check_errno(fcntl(p[1], F_ADD_SEALS, F_SEAL_WRITE), EINVAL, "a pipe has no seals");
		close(p[0]);
		close(p[1]);
	}
	check_errno(memfd(0x100), EINVAL, "an unknown memfd flag");
}

static const struct test_case cases[] = {
	{ "without_sealing_sealed_against_seals", t_without_sealing },
	{ "shrink_and_grow", t_shrink_grow },
	{ "write_seals_and_the_last_seal", t_write_and_seal },
	{ "other_files_EINVAL", t_other_files },
};

int main(void)
{
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
