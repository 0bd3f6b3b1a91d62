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

static bool rdrand64(uint64_t *v)
{
	unsigned char ok;

	for (int i = 0; i < 10; i++) {
		__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok));
		if (ok)
			return true;
	}
	return false;
}

// Random bytes from RDRAND when the CPU has it, else a mix of the TSC
// (good enough for AT_RANDOM's stack-protector canary on a test kernel).
void arch_random_bytes(uint8_t *buf, size_t n)
{
	static uint64_t state = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < n; i += 8) {
		uint64_t v;
		if (!cpu_has.rdrand || !rdrand64(&v)) {
			state ^= rdtsc();
			state ^= state << 13;
			state ^= state >> 7;
			state ^= state << 17;
			v = state;
		}
		for (size_t j = 0; j < 8 && i + j < n; j++)
			buf[i + j] = (uint8_t)(v >> (8 * j));
	}
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
