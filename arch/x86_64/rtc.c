// The CMOS real-time clock: read to give CLOCK_REALTIME its starting
// point, and its seconds watched from CPU 0's tick for the first seconds
// to check the TSC's rate (tsc.c).  The CMOS is an index register and a
// data register: every access holds cmos_lock.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/tsc.h>
#include <kernel/arch.h>
#include <kernel/spinlock.h>

static struct spinlock cmos_lock = SPINLOCK_INIT("cmos");
static int format = -1;		// register B, read once
static uint8_t cmos(uint8_t reg)
{
	outb(0x70, reg);
	return inb(0x71);
}

static int bcd(uint8_t v, bool binary)
{
	return binary ? v : (v & 0xf) + 10 * (v >> 4);
}

// Days from 1970-01-01 to the given date (proleptic Gregorian).
static int64_t days_from_civil(int y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

// Seconds since the epoch, or a fixed date if the clock reads nonsense.
uint64_t arch_rtc_seconds(void)
{
	uint64_t flags = spin_lock_irqsave(&cmos_lock);
	for (int i = 0; i < 1000000 && (cmos(0x0a) & 0x80); i++)
		cpu_relax();		// wait out an update in progress
	bool binary = cmos(0x0b) & 0x04;
	int sec = bcd(cmos(0x00), binary), min = bcd(cmos(0x02), binary);
	int hour = bcd(cmos(0x04) & 0x7f, binary), day = bcd(cmos(0x07), binary);
	int mon = bcd(cmos(0x08), binary), year = bcd(cmos(0x09), binary) + 2000;
	spin_unlock_irqrestore(&cmos_lock, flags);

	if (mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60)
		return 1767225600;	// 2026-01-01
	return (uint64_t)(days_from_civil(year, mon, day) * 86400 + hour * 3600 + min * 60 + sec);
}

// The seconds register alone (its change is what the TSC check times), or
// -1 if another CPU is using the CMOS or there is no RTC.  Called from
// CPU 0's tick: it never waits.
int rtc_second(void)
{
	if (!spin_trylock(&cmos_lock))
		return -1;
	if (format < 0)
		format = cmos(0x0b);
	int sec = bcd(cmos(0x00), format & 0x04);
	spin_unlock(&cmos_lock);
	return sec <= 59 ? sec : -1;
}
