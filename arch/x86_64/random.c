// The CPU's own random numbers, for seeding kernel/random.c: RDSEED (the
// conditioned entropy source itself) where the CPU has it, else RDRAND
// (a DRBG the CPU reseeds from that source).

#include <stdbool.h>
#include <stdint.h>
#include <arch/cpu_arch.h>
#include <kernel/arch.h>

// Both may fail transiently when the source is drained; Intel suggests
// retrying RDRAND ten times.  RDSEED fails more often, so it gets more.
static bool rdseed64(uint64_t *v)
{
	unsigned char ok;

	for (int i = 0; i < 100; i++) {
		__asm__ volatile("rdseed %0; setc %1" : "=r"(*v), "=qm"(ok));
		if (ok)
			return true;
	}
	return false;
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

bool arch_entropy64(uint64_t *v)
{
	if (cpu_has.rdseed && rdseed64(v))
		return true;
	return cpu_has.rdrand && rdrand64(v);
}
