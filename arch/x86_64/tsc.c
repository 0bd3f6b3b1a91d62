// TSC frequency and the monotonic clock.  The clock is the TSC scaled to
// nanoseconds with a 32.32 fixed-point multiplier; QEMU keeps the TSCs of
// all vCPUs in step (and hardware with an invariant TSC does), so the
// same formula on every CPU gives one clock.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/tsc.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>

static uint64_t hz;
static uint64_t ns_mult;	// ns per tick << 32
static uint64_t tsc_zero;
static const char *source = "none";

#define PIT_HZ		1193182
#define PIT_CH0		0x40
#define PIT_CMD		0x43

static uint64_t from_cpuid(void)
{
	uint32_t max = cpuid(0, 0).eax;

	if (max >= 0x15) {
		struct cpuid_regs r = cpuid(0x15, 0);
		if (r.eax && r.ebx && r.ecx) {
			source = "cpuid 0x15";
			return (uint64_t)r.ecx * r.ebx / r.eax;
		}
	}
	if (max >= 0x16) {
		struct cpuid_regs r = cpuid(0x16, 0);
		if (r.eax) {
			source = "cpuid 0x16";
			return (uint64_t)r.eax * 1000000;
		}
	}
	return 0;
}

// KVM and other hypervisors publish the TSC rate in kHz at 0x40000010.
static uint64_t from_hypervisor(void)
{
	if (!cpu_has.hypervisor)
		return 0;
	struct cpuid_regs r = cpuid(0x40000000, 0);
	if (r.eax < 0x40000010)
		return 0;
	r = cpuid(0x40000010, 0);
	if (!r.eax)
		return 0;
	source = "hypervisor leaf";
	return (uint64_t)r.eax * 1000;
}

static uint16_t pit_read(void)
{
	outb(PIT_CMD, 0x00);			// latch channel 0
	uint8_t lo = inb(PIT_CH0);
	uint8_t hi = inb(PIT_CH0);
	return (uint16_t)(hi << 8 | lo);
}

// Counts TSC ticks while the PIT's channel 0 counts down 20 ms.
static uint64_t from_pit(void)
{
	const uint32_t ticks = PIT_HZ / 50;

	outb(PIT_CMD, 0x34);			// channel 0, lo/hi, mode 2
	outb(PIT_CH0, 0xff);
	outb(PIT_CH0, 0xff);
	uint16_t start = pit_read();
	uint64_t t0 = rdtsc();
	uint64_t guard = 0;
	while ((uint16_t)(start - pit_read()) < ticks) {
		if (++guard > 100000000)
			return 0;		// no PIT
	}
	uint64_t t1 = rdtsc();
	source = "PIT calibration";
	return (t1 - t0) * 50;
}

void tsc_init(void)
{
	hz = from_cpuid();
	if (!hz)
		hz = from_hypervisor();
	if (!hz)
		hz = from_pit();
	if (!hz) {
		hz = 1000000000;
		source = "guess (no PIT)";
	}
	ns_mult = (1000000000ULL << 32) / hz;	// fits: 1e9 << 32 < 2^64
	tsc_zero = rdtsc();
}

uint64_t tsc_hz(void)
{
	return hz;
}

const char *tsc_source(void)
{
	return source;
}

uint64_t clock_monotonic_ns(void)
{
	uint64_t delta = rdtsc() - tsc_zero;
	return (uint64_t)(((unsigned __int128)delta * ns_mult) >> 32);
}
