// x86-64 details of exec: the auxiliary vector's hardware words, the
// random bytes for AT_RANDOM, and a clean register state.

#include <stdint.h>
#include <stddef.h>
#include <arch/x86.h>
#include <arch/xstate.h>
#include <kernel/exec.h>
#include <kernel/thread.h>
#include <kernel/time.h>

uint64_t arch_hwcap(void)
{
	return cpuid(1, 0).edx;		// what Linux reports in AT_HWCAP
}

uint64_t arch_hwcap2(void)
{
	return cpu_has.fsgsbase ? 2 : 0;	// HWCAP2_FSGSBASE
}

// The new program starts with FS and GS bases of 0 and a fresh extended
// state.  The bases are written whatever the kernel last knew of them:
// the old program may have changed them itself (WRFSBASE).
void arch_exec_reset_thread(struct thread *t)
{
	xstate_exec_reset(t);
	arch_set_user_fs(0);
	arch_set_user_gs(0);
}

// Signal handlers return through the sa_restorer libc supplies: nothing
// to map.
int arch_exec_map(struct mm *mm)
{
	(void)mm;
	return 0;
}
