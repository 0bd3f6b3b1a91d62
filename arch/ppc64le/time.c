// Time on ppc64: the timebase is the clock (one counter, synchronised
// across CPUs by the platform) and each CPU's decrementer its one-shot
// timer.  The wall clock at boot comes from RTAS get-time-of-day.

#include <stdint.h>
#include <arch/spr.h>
#include <arch/cycles.h>
#include <arch/platform.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/ktimer.h>
#include <kernel/time.h>
#include <kernel/boot.h>
#include <lib/printf.h>
#include <kernel/console.h>

// The decrementer counts down at the timebase rate and interrupts while
// its top bit is set; 31 bits are always usable (more only with LPCR[LD],
// which the hypervisor owns).
#define DEC_MAX		0x7fffffffUL

static uint64_t tb_at_boot;
// Conversions as 32.32 fixed-point factors: a multiply, no division.
static uint64_t ns_per_tick, ticks_per_ns;

static uint64_t ticks_to_ns(uint64_t ticks)
{
	return (uint64_t)(((unsigned __int128)ticks * ns_per_tick) >> 32);
}

static uint64_t ns_to_ticks(uint64_t ns)
{
	return (uint64_t)(((unsigned __int128)ns * ticks_per_ns) >> 32);
}

uint64_t arch_cycles_to_ns(uint64_t cycles)
{
	return ticks_to_ns(cycles);
}

uint64_t clock_monotonic_ns(void)
{
	return ticks_to_ns(arch_cycles() - tb_at_boot);
}

// boot_stress: for the robustness boots of ./switchyard test.  Every
// CPU's decrementer fires every 20 us from its start, for the whole run,
// whatever the timers ask for (and the boot CPU sends every kind of IPI
// to each CPU while it comes online, platform.c).
bool boot_stress;
#define STRESS_NS	20000

static int set_boot_stress(const char *value)
{
	if (value)
		return -1;
	boot_stress = true;
	return 0;
}
BOOT_OPTION(boot_stress, "boot_stress: fast ticks from CPU start, IPIs at starting CPUs (tests only)",
	    set_boot_stress);

// The decrementer's next expiry after an interrupt: parked, or under
// boot_stress soon again.
void time_rearm_after_interrupt(void)
{
	mtspr(SPRN_DEC, boot_stress ? ns_to_ticks(STRESS_NS) : DEC_MAX);
}

void time_init(void)
{
	ns_per_tick = (1000000000ULL << 32) / pseries.timebase_hz;
	ticks_per_ns = (pseries.timebase_hz << 32) / 1000000000ULL;
	tb_at_boot = arch_cycles();
	time_rearm_after_interrupt();
}

void arch_timer_oneshot(uint64_t ns)
{
	if (boot_stress)
		return;
	uint64_t ticks = ns_to_ticks(ns);

	mtspr(SPRN_DEC, ticks == 0 ? 1 : ticks > DEC_MAX ? DEC_MAX : ticks);
}

// The decrementer cannot be turned off: it is parked at its longest
// count, and an interrupt that comes anyway finds no timer due.
void arch_timer_stop(void)
{
	if (boot_stress)
		return;
	mtspr(SPRN_DEC, DEC_MAX);
}

uint64_t arch_timer_max_ns(void)
{
	return ticks_to_ns(DEC_MAX) / 2;
}

void arch_clock_tick(void)
{
}

bool arch_clock_needs_tick(void)
{
	return false;
}

// Days from 1970-01-01 to year/month/day (the proleptic Gregorian
// calendar; Howard Hinnant's days_from_civil).
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

uint64_t arch_rtc_seconds(void)
{
	uint32_t r[8];

	if (!pseries.rtas_get_time_of_day ||
	    rtas_call(pseries.rtas_get_time_of_day, 0, 8, r) != 0) {
		kprintf("time: RTAS get-time-of-day failed; the clock starts at 1970\n");
		return 0;
	}
	// r[0] is the status; then year, month, day, hour, minute, second, ns.
	int64_t days = days_from_civil(r[1], r[2], r[3]);
	return (uint64_t)(days * 86400 + r[4] * 3600 + r[5] * 60 + r[6]);
}

const char *arch_clock_description(void)
{
	static char buf[96];

	ksnprintf(buf, sizeof(buf), "timebase %lu MHz, decrementer, tick %u Hz",
		  pseries.timebase_hz / 1000000, timer_hz);
	return buf;
}
