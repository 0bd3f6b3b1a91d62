// personality(2).  Each thread has one, inherited by its children and
// kept across exec (a set-ID exec clears the flags that weaken the
// program's protection).  What it changes here: PER_LINUX32 makes uname
// report the 32-bit machine, STICKY_TIMEOUTS keeps select and pselect
// from writing back the time left, UNAME26 reports a 2.6 release.  The
// other flags are kept and reported, as on Linux for x86-64, where they
// change nothing either, or change what this kernel does not do anyway
// (no address randomization: ADDR_NO_RANDOMIZE holds already).

#include <kernel/syscall.h>
#include <kernel/thread.h>
#include <uapi/personality.h>

bool personality_has(uint32_t flags)
{
	return (current_thread()->personality & flags) != 0;
}

bool personality_is_linux32(void)
{
	return (current_thread()->personality & PER_MASK) == PER_LINUX32;
}

// A query is 0xffffffff; any other value is taken as it is, as Linux does.
SYSCALL_DEFINE(SYS_personality, personality)
{
	struct thread *t = current_thread();
	uint32_t old = t->personality, want = (uint32_t)args->a[0];

	if (want != 0xffffffff)
		t->personality = want;
	return old;
}
