// Local APIC and IOAPIC.  x2APIC is used when the CPU has it (MSR access,
// no MMIO, a single 64-bit ICR write per IPI); otherwise xAPIC through an
// uncached MMIO mapping.  Both paths are first-class: QEMU's TCG 'max'
// CPU has no x2APIC.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/apic.h>
#include <arch/acpi.h>
#include <arch/mmu.h>
#include <arch/tsc.h>
#include <arch/clock_refs.h>
#include <arch/irq_vectors.h>
#include <kernel/cpu.h>
#include <kernel/panic.h>
#include <kernel/console.h>
#include <lib/clock_estimate.h>
#include <lib/string.h>
#include <kernel/boot.h>
#include <kernel/ktimer.h>

#define REG_ID		0x020
#define REG_EOI		0x0b0
#define REG_SPURIOUS	0x0f0
#define REG_IRR		0x200		// 8 registers, 0x10 apart
#define REG_ICR_LOW	0x300
#define REG_ICR_HIGH	0x310
#define REG_LVT_TIMER	0x320
#define REG_LVT_LINT0	0x350
#define REG_LVT_LINT1	0x360
#define REG_LVT_ERROR	0x370
#define REG_TIMER_INIT	0x380
#define REG_TIMER_CUR	0x390
#define REG_TIMER_DIV	0x3e0

#define ICR_DELIVERY_PENDING	(1u << 12)
#define ICR_LEVEL_ASSERT	(1u << 14)
#define ICR_INIT		(5u << 8)
#define ICR_STARTUP		(6u << 8)
#define ICR_NMI			(4u << 8)
#define ICR_ALL_BUT_SELF	(3u << 18)
#define LVT_MASKED		(1u << 16)
#define LVT_PERIODIC		(1u << 17)
#define LVT_TSC_DEADLINE	(2u << 17)
#define MSR_TSC_DEADLINE	0x6e0

// With boot_stress the timer runs with this count from the moment the
// APIC is enabled: 50 us under QEMU (1 GHz timer), about 100 times more
// often than the normal tick.  (Shorter periods make QEMU TCG deliver
// fewer ticks, not more.)
#define STRESS_TIMER_COUNT	50000

#define CAL_WINDOWS	8

static volatile uint32_t *xapic;
static bool x2apic;
static uint64_t apic_hz;		// LAPIC timer counts per second (divide by 1)
static bool timer_mode_oneshot;		// apic_timer=oneshot: no TSC deadline

static uint32_t lapic_read(uint32_t reg)
{
	if (x2apic)
		return (uint32_t)rdmsr(0x800 + (reg >> 4));
	return xapic[reg / 4];
}

static void lapic_write(uint32_t reg, uint32_t v)
{
	if (x2apic)
		wrmsr(0x800 + (reg >> 4), v);
	else
		xapic[reg / 4] = v;
}

static bool timer_pending(void)
{
	return lapic_read(REG_IRR + 0x10 * (VEC_TIMER / 32)) & (1u << (VEC_TIMER % 32));
}

// boot_stress: the timer fires as early and as often as it can.  Wait
// until a tick is pending, so the first moment this CPU enables
// interrupts takes one, however quickly it gets there.
static void stress_timer_arm(void)
{
	if (!boot_stress)
		return;
	lapic_write(REG_TIMER_DIV, 0xb);
	lapic_write(REG_LVT_TIMER, VEC_TIMER | LVT_PERIODIC);
	lapic_write(REG_TIMER_INIT, STRESS_TIMER_COUNT);
	for (int i = 0; i < 10000000 && !timer_pending(); i++)
		cpu_relax();
}

bool lapic_x2apic_mode(void)
{
	return x2apic;
}

void lapic_init(void)
{
	x2apic = cpu_has.x2apic;
	if (!x2apic)
		xapic = mmio_map(acpi.lapic_pa, 4096);
}

void lapic_init_this_cpu(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);

	base |= 1u << 11;			// global enable
	if (x2apic)
		base |= 1u << 10;
	wrmsr(MSR_APIC_BASE, base);
	lapic_write(REG_SPURIOUS, 0x100 | VEC_SPURIOUS);
	lapic_write(REG_LVT_TIMER, LVT_MASKED);
	lapic_write(REG_LVT_ERROR, LVT_MASKED);
	lapic_write(REG_TIMER_DIV, 0xb);	// divide by 1
	lapic_eoi();
	stress_timer_arm();
}

uint32_t lapic_id(void)
{
	if (x2apic)
		return lapic_read(REG_ID);
	return lapic_read(REG_ID) >> 24;
}

void lapic_eoi(void)
{
	lapic_write(REG_EOI, 0);
}

static void icr_write(uint32_t apic_id, uint32_t low)
{
	if (x2apic) {
		wrmsr(0x830, ((uint64_t)apic_id << 32) | low);
		return;
	}
	lapic_write(REG_ICR_HIGH, apic_id << 24);
	lapic_write(REG_ICR_LOW, low);
	for (int i = 0; i < 1000000 && (lapic_read(REG_ICR_LOW) & ICR_DELIVERY_PENDING); i++)
		cpu_relax();
}

void lapic_send_ipi(uint32_t apic_id, uint8_t vector)
{
	uint64_t flags = irq_save();	// the xAPIC ICR is two registers
	icr_write(apic_id, vector);
	irq_restore(flags);
}

// One ICR write reaches every CPU but this one (the "all excluding self"
// shorthand).
void lapic_send_ipi_all_others(uint8_t vector)
{
	uint64_t flags = irq_save();
	icr_write(0, vector | ICR_ALL_BUT_SELF);
	irq_restore(flags);
}

// boot_stress: one IPI of every kind at a CPU that is coming online.
void lapic_stress_ipis(uint32_t apic_id)
{
	static const uint8_t vectors[] = {
		VEC_IPI_CALL, VEC_IPI_RESCHED, VEC_IPI_TLB, VEC_IPI_TEST, VEC_IPI_TICK, VEC_TIMER,
	};

	for (unsigned i = 0; i < sizeof(vectors); i++)
		lapic_send_ipi(apic_id, vectors[i]);
}

void lapic_send_nmi(uint32_t apic_id)
{
	uint64_t flags = irq_save();
	icr_write(apic_id, ICR_NMI | ICR_LEVEL_ASSERT);
	irq_restore(flags);
}

void lapic_send_nmi_all_others(void)
{
	icr_write(0, ICR_NMI | ICR_ALL_BUT_SELF | ICR_LEVEL_ASSERT);
}

void lapic_send_init(uint32_t apic_id)
{
	icr_write(apic_id, ICR_INIT | ICR_LEVEL_ASSERT);
}

void lapic_send_startup(uint32_t apic_id, uint8_t page)
{
	icr_write(apic_id, ICR_STARTUP | page);
}

// The timer counting up from a one-shot start at the largest count.
static uint32_t timer_elapsed(void)
{
	return 0xffffffffu - lapic_read(REG_TIMER_CUR);
}

// The timer's rate against the TSC, as the TSC's against its references
// (clock_refs.c): windows of 5 ms of TSC time between two reads of the
// timer's count, each bracketed tightly by TSC reads, then the median of
// the windows that agree.
void lapic_timer_calibrate(void)
{
	uint64_t tsc = tsc_hz(), samples[CAL_WINDOWS];
	struct rate_estimate est;
	int n = 0;

	lapic_write(REG_LVT_TIMER, LVT_MASKED);
	lapic_write(REG_TIMER_DIV, 0xb);
	lapic_write(REG_TIMER_INIT, 0xffffffff);
	uint64_t limit = clock_tight_limit(timer_elapsed);
	for (int i = 0; i < CAL_WINDOWS; i++) {
		struct bracketed a, b;
		lapic_write(REG_TIMER_INIT, 0xffffffff);	// restart
		if (!clock_read_tight(timer_elapsed, limit, &a))
			continue;
		while (rdtsc() - a.tsc < tsc / 200)
			cpu_relax();
		if (!clock_read_tight(timer_elapsed, limit, &b))
			continue;
		if (b.value == 0xffffffffu || b.value <= a.value)
			continue;	// ran out (a stall of seconds), or stopped
		samples[n++] = rate_from_counts(b.value - a.value, b.tsc - a.tsc, tsc);
	}
	lapic_write(REG_TIMER_INIT, 0);
	int rc = rate_estimate(samples, n, CAL_WINDOWS, 500, &est);
	if (est.hz == 0)
		panic("local APIC timer does not count");
	apic_hz = est.hz;
	kprintf("clock: APIC timer %lu.%03lu MHz (%d/%d windows agree, spread %u.%04u%%%s)\n",
		apic_hz / 1000000, apic_hz % 1000000 / 1000, est.agree, est.total,
		est.spread_ppm / 10000, est.spread_ppm % 10000, rc ? ", no majority" : "");
	stress_timer_arm();
}

uint64_t lapic_timer_hz(void)
{
	return apic_hz;
}

// The timer is one-shot (include/kernel/ktimer.h): in TSC-deadline mode
// where the CPU has it (one MSR write, no rate of its own to know), else
// counting down from a count at the rate calibrated above.  boot_stress
// keeps the periodic 50 us interrupt it set up and ignores the rest:
// every timer is then checked that often.
static bool use_tsc_deadline;

static int set_timer_mode(const char *value)
{
	if (value && !strcmp(value, "oneshot"))
		timer_mode_oneshot = true;
	else if (!value || strcmp(value, "auto"))
		return -1;
	return 0;
}
BOOT_OPTION(apic_timer, "local APIC timer mode: auto (TSC deadline where the CPU has it) or oneshot",
	    set_timer_mode);

void lapic_timer_start(void)
{
	use_tsc_deadline = cpu_has.tsc_deadline && !timer_mode_oneshot;
	if (boot_stress)
		return;
	lapic_write(REG_TIMER_INIT, 0);
	lapic_write(REG_TIMER_DIV, 0xb);
	lapic_write(REG_LVT_TIMER, VEC_TIMER | (use_tsc_deadline ? LVT_TSC_DEADLINE : 0));
}

bool lapic_timer_tsc_deadline(void)
{
	return use_tsc_deadline;
}

// The TSC's rate was corrected: the timer's, measured against it, scales
// the same way (the next count programmed uses it).
void lapic_timer_rescale(uint64_t old_tsc_hz, uint64_t new_tsc_hz)
{
	__atomic_store_n(&apic_hz, rate_from_counts(apic_hz, old_tsc_hz, new_tsc_hz),
			 __ATOMIC_RELAXED);
	kprintf("clock: APIC timer now %lu.%03lu MHz\n", apic_hz / 1000000,
		apic_hz % 1000000 / 1000);
}

// ns * hz / 10^9 without 128-bit division: rates stay below 2^34 Hz, so
// the remainder's product fits in 64 bits.
static uint64_t ns_to_counts(uint64_t ns, uint64_t hz)
{
	return ns / 1000000000u * hz + ns % 1000000000u * hz / 1000000000u;
}

void arch_timer_oneshot(uint64_t ns)
{
	if (boot_stress)
		return;
	if (use_tsc_deadline) {
		wrmsr(MSR_TSC_DEADLINE, rdtsc() + ns_to_counts(ns, tsc_hz()) + 1);
		return;
	}
	uint64_t count = ns_to_counts(ns, __atomic_load_n(&apic_hz, __ATOMIC_RELAXED));
	lapic_write(REG_TIMER_INIT, count == 0 ? 1 : count > 0xffffffffu ? 0xffffffffu : (uint32_t)count);
}

void arch_timer_stop(void)
{
	if (boot_stress)
		return;
	if (use_tsc_deadline)
		wrmsr(MSR_TSC_DEADLINE, 0);
	else
		lapic_write(REG_TIMER_INIT, 0);
}

// A count of 2^32 - 1 at the calibrated rate (4.3 s at QEMU's 1 GHz),
// with a margin for a rate corrected upwards; the TSC's range is larger
// than any use.
uint64_t arch_timer_max_ns(void)
{
	if (use_tsc_deadline)
		return 1ULL << 40;
	return 0xffffffffull * 1000000000ull / apic_hz / 2;
}

// IOAPIC: just enough to route the serial port's interrupt.
static volatile uint32_t *ioapic;

static void ioapic_write(uint32_t reg, uint32_t v)
{
	ioapic[0] = reg;
	ioapic[4] = v;
}

void ioapic_route_isa_irq(int irq, uint8_t vector)
{
	if (!acpi.ioapic_pa)
		return;
	if (!ioapic)
		ioapic = mmio_map(acpi.ioapic_pa, 4096);
	uint32_t pin = acpi.isa_irq_gsi[irq] - acpi.ioapic_gsi_base;
	ioapic_write(0x10 + 2 * pin + 1, cpus[0].arch.apic_id << 24);
	ioapic_write(0x10 + 2 * pin, vector);	// edge, active high, unmasked
}
