// execshare: exec maps a program from its file.  The program's read-only
// data and text are the file's own frames: /proc/PID/statm's "shared"
// column counts them, two processes running the program use one copy
// (Switchyard's /proc/switchyard/memstat shows no second copy), the
// mappings name the file in /proc/PID/maps, and the memory after the
// file's bytes in the data segment's last page (the start of .bss) is
// zero.  The program re-executes itself with "--hold FD" to get a process
// that has read every page of its 1 MiB read-only array, says so on FD,
// and waits to be killed.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memstat.h"
#include "testcase.h"

#define BIG_PAGES 256
#define PAGE 4096

// In the file (initialised, const: .rodata), 1 MiB of it.
static const unsigned char big_rodata[BIG_PAGES * PAGE] = { 1, 2, 3 };

// The end of the file's bytes of the data segment (GNU ld's symbols).
extern char edata[], end[];

// The --hold child: reads a byte of every page of big_rodata.
static int hold(const char *fdtext)
{
	int fd = atoi(fdtext);
	unsigned sum = 0;

	for (size_t i = 0; i < sizeof(big_rodata); i += PAGE)
		sum += ((volatile const unsigned char *)big_rodata)[i];
	char c = (char)(sum == 1 ? 'k' : 'x');	// only the first page holds non-zero bytes
	if (write(fd, &c, 1) != 1)
		return 1;
	for (;;)
		pause();
}

// Starts a holder; returns its pid once it has read its array, or -1.
static pid_t start_holder(void)
{
	int p[2];
	char fdtext[16], c = 0;

	if (pipe(p) != 0)
		return fail("pipe: errno %d", errno), -1;
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		snprintf(fdtext, sizeof(fdtext), "%d", p[1]);
		char *argv[] = { "execshare", "--hold", fdtext, NULL };
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return fail("fork: errno %d", errno), -1;
	}
	ssize_t n = read(p[0], &c, 1);
	close(p[0]);
	if (n != 1 || c != 'k') {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return fail("the holder did not read its array (%zd, '%c')", n, c), -1;
	}
	return pid;
}

static void stop_holder(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

// statm's resident and shared columns, in pages.
static int read_statm(pid_t pid, long *resident, long *shared)
{
	char path[64];
	long size;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
	FILE *f = fopen(path, "r");
	int n = f ? fscanf(f, "%ld %ld %ld", &size, resident, shared) : 0;

	if (f)
		fclose(f);
	return n == 3 ? 0 : fail("cannot read %s", path);
}

static void t_statm_shared_counts_file_pages(void)
{
	long resident, shared;
	pid_t pid = start_holder();

	if (pid < 0)
		return;
	if (read_statm(pid, &resident, &shared) == 0) {
		check(shared >= BIG_PAGES && shared <= resident,
		      "statm: the 256 file pages read are resident and shared");
		if (shared < BIG_PAGES || shared > resident)
			ktap_diag("resident %ld shared %ld", resident, shared);
	}
	stop_holder(pid);
}

// A second process running the program adds no copy of what the first
// one read: the frames are the file's.  Only Switchyard counts frames.
static void t_second_process_shares_frames(void)
{
	struct memstat before, after;

	if (access(MEMSTAT_PATH, R_OK) != 0) {
		skip("no " MEMSTAT_PATH " (not Switchyard)");
		return;
	}
	pid_t first = start_holder();
	if (first < 0)
		return;
	if (memstat_read(&before) != 0) {
		fail("cannot read " MEMSTAT_PATH);
		stop_holder(first);
		return;
	}
	pid_t second = start_holder();
	if (second >= 0) {
		if (memstat_read(&after) == 0) {
			long user = memstat_get(&after, "pages_user") - memstat_get(&before, "pages_user");
			long file = memstat_get(&after, "pages_file") - memstat_get(&before, "pages_file");
			// Its stack, data and page tables are its own: far
			// fewer than the 256 pages both read.
			check(user < BIG_PAGES / 2 && file == 0,
			      "the second process made no copy of the file's pages");
			ktap_diag("second process: %ld user pages, %ld file pages more", user, file);
		} else {
			fail("cannot read " MEMSTAT_PATH);
		}
		stop_holder(second);
	}
	stop_holder(first);
}

// The lines of /proc/PID/maps for the program name its file.
static void t_maps_name_the_file(void)
{
	char path[64], exe[256], line[512];
	int named = 0;
	pid_t pid = start_holder();

	if (pid < 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *name = strchr(line, '/');
		if (name && strncmp(name, exe, strlen(exe)) == 0 && name[strlen(exe)] == '\n')
			named++;
	}
	if (f)
		fclose(f);
	check(n > 0 && named >= 2, "at least two mappings (text, read-only data) name the file");
	if (named < 2)
		ktap_diag("%d mappings name %s", named, exe);
	stop_holder(pid);
}

// Never written: must read as zero.
static char bss_probe[3000];

// .bss is zero: a variable never written, and the bytes past the last
// variable ('end') to the end of that page (past the file's bytes, in the
// page the data segment's file bytes end in when .bss is small, as here).
static void t_bss_after_file_bytes_zero(void)
{
	uintptr_t to = (uintptr_t)end, page_end = (to + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
	int nonzero = 0;

	for (size_t i = 0; i < sizeof(bss_probe); i++)
		nonzero += ((volatile char *)bss_probe)[i] != 0;
	for (uintptr_t a = to; a < page_end; a++)
		nonzero += *(volatile const char *)a != 0;
	check((uintptr_t)edata <= to && nonzero == 0, "the .bss and the rest of its page are zero");
	if (nonzero)
		ktap_diag("%d non-zero bytes (edata %p, end %p)", nonzero, (void *)edata, (void *)end);
}

static const struct test_case cases[] = {
	{ "statm_shared_counts_file_pages", t_statm_shared_counts_file_pages },
	{ "second_process_shares_frames", t_second_process_shares_frames },
	{ "maps_name_the_file", t_maps_name_the_file },
	{ "bss_after_file_bytes_zero", t_bss_after_file_bytes_zero },
};

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--hold") == 0)
		return hold(argv[2]);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
