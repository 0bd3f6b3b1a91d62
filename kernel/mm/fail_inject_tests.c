// In-kernel tests of the allocation-failure injection's control
// commands and of the frame-use accounting.  (Kernel threads are never
// failed on purpose, so these run safely whatever the mode; what the
// injection does to system calls is tested from user space by
// user/tests/allocfail.c.)

#include <stdbool.h>
#include <stdint.h>

#include <kernel/ktest.h>
#include <lib/string.h>
#include <mm/fail_inject.h>
#include <mm/frame.h>
#include <uapi/errno.h>

// Does the rendered state contain 'text'?
static bool state_has(const char *text)
{
	char buf[256];
	size_t len = fail_inject_render(buf, sizeof(buf));
	size_t n = strlen(text);

	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(buf + i, text, n) == 0)
			return true;
	return false;
}

KTEST(mm, fail_alloc_commands)
{
	static const char *const bad[] = {
		"", "every:", "every:0", "every:x", "every:-1", "0", "101", "100.0001",
		"0.00001", "1.", ".5", "5%", "seed", "seed x", "self", "self -1", "on",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		KEXPECT(fail_inject_command(bad[i]) == -EINVAL);
	KEXPECT(fail_inject_command("every:3") == 0);
	KEXPECT(state_has("mode every:3\n"));
	KEXPECT(fail_inject_command("0.05") == 0);
	KEXPECT(state_has("mode 0.0500\n"));
	KEXPECT(fail_inject_command("100") == 0);
	KEXPECT(state_has("mode 100.0000\n"));
	KEXPECT(fail_inject_command("seed 0x10") == 0);
	KEXPECT(state_has("seed 16\n"));
	// A kernel thread is never failed on purpose, whatever the mode.
	KEXPECT(!fail_inject_alloc());
	KEXPECT(fail_inject_command("self 0") == 0);
	KEXPECT(state_has("self pending\n"));
	KEXPECT(!fail_inject_alloc());
	KEXPECT(fail_inject_command("self off") == 0);
	KEXPECT(state_has("self off\n"));
	KEXPECT(fail_inject_command("seed 1") == 0);
	KEXPECT(fail_inject_command("off") == 0);
	KEXPECT(state_has("mode off\n"));
	return true;
}

// Frames are counted by use: set_use moves a block's pages between
// counts, freeing takes them off the right one.
KTEST(mm, frame_use_accounting)
{
	uint64_t before[FRAME_USE_COUNT], during[FRAME_USE_COUNT], after[FRAME_USE_COUNT];

	// (Counted as FRAME_OTHER until named.)
	uint64_t pa = frame_alloc(2);

	KEXPECT(pa != 0);
	frame_use_stats(before);
	frame_set_use(pa, FRAME_PIPE);
	frame_use_stats(during);
	frame_free(pa, 2);
	frame_use_stats(after);
	// No pipe is made or freed while kernel tests run: the pipe count
	// moves only by what this test does.
	KEXPECT(during[FRAME_PIPE] == before[FRAME_PIPE] + 4);
	KEXPECT(after[FRAME_PIPE] == before[FRAME_PIPE]);
	return true;
}
