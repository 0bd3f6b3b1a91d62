// Bringing up the x86-64 platform on the boot CPU: the clock, the ACPI
// CPU list, the local APIC and its timer.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/apic.h>
#include <arch/acpi.h>
#include <arch/tsc.h>
#include <arch/mmu.h>
#include <arch/serial.h>
#include <arch/irq_vectors.h>
#include <arch/xstate.h>
#include <kernel/arch.h>
#include <kernel/boot.h>
#include <kernel/cpu.h>
#include <kernel/spinlock.h>
#include <kernel/console.h>
#include <kernel/time.h>
#include <lib/printf.h>
#include <lib/string.h>

void mmu_frames_ready(void);

// boot_stress: for the robustness boots of ./switchyard test.  Every
// CPU's local APIC timer fires every few tens of microseconds from when its
// APIC is enabled, for the whole run, and the boot CPU sends every kind
// of IPI to each CPU while it comes online: an interrupt then arrives at
// every point of boot where one can.
bool boot_stress;

static int set_boot_stress(const char *value)
{
	if (value)
		return -1;
	boot_stress = true;
	return 0;
}
BOOT_OPTION(boot_stress, "boot_stress: fast ticks from APIC enable on, IPIs at starting CPUs (tests only)",
	    set_boot_stress);

uint64_t arch_early_alloc_end(void)
{
	return early_alloc_end();
}

void arch_frames_ready(void)
{
	mmu_frames_ready();
}

static void cpus_from_firmware(void)
{
	uint32_t boot_id = cpuid(1, 0).ebx >> 24;

	if (cpu_has.x2apic)
		boot_id = cpuid(0xb, 0).edx;
	if (acpi_init(boot_info.rsdp_pa, boot_id) < 0) {
		kprintf("acpi: no usable MADT; running on the boot CPU only\n");
		acpi.ncpus = 1;
		acpi.apic_ids[0] = boot_id;
	}
	ncpus = acpi.ncpus > MAX_CPUS ? MAX_CPUS : acpi.ncpus;
	for (int i = 0; i < ncpus; i++) {
		cpus[i].id = i;
		cpus[i].arch.apic_id = acpi.apic_ids[i];
	}
}

// The firmware may leave the legacy 8259 PICs delivering the PIT's IRQ 0
// on vector 8, which would look like a double fault.  Move them out of
// the exception range and mask every line: the local APIC does the work.
static void legacy_pic_disable(void)
{
	outb(0x20, 0x11);	// ICW1: initialise, expect ICW4
	outb(0xa0, 0x11);
	outb(0x21, 0x20);	// ICW2: vectors 0x20.. and 0x28..
	outb(0xa1, 0x28);
	outb(0x21, 0x04);	// ICW3: slave on line 2
	outb(0xa1, 0x02);
	outb(0x21, 0x01);	// ICW4: 8086 mode
	outb(0xa1, 0x01);
	outb(0x21, 0xff);	// mask all
	outb(0xa1, 0xff);
}

void arch_init_platform(void)
{
	legacy_pic_disable();
	cpus_from_firmware();		// ACPI: CPUs, and the clock references
	tsc_init();
	xstate_init();
	tlb_init_cpu();
	lapic_init();
	lapic_init_this_cpu();
	lapic_timer_calibrate();
	// Interrupts stay off: the core starts the tick and enables them once
	// the scheduler is ready (smp_boot_cpu_online).
}

// Called on every CPU once its scheduler state exists, interrupts off.
void arch_cpu_start_timer(void)
{
	lapic_timer_start();
}

// Every tick on every CPU, interrupts off: the RTC check of the clock's
// first seconds (CPU 0), which needs the tick until it is done.
void arch_clock_tick(void)
{
	if (this_cpu()->id == 0)
		tsc_rtc_tick();
}

bool arch_clock_needs_tick(void)
{
	return this_cpu()->id == 0 && !tsc_rtc_done();
}

const char *arch_cpu_description(void)
{
	static char buf[200];

	ksnprintf(buf, sizeof(buf), "%s%s%s%s%s%s%s%s%s%s%s", cpu_has.vendor,
		  cpu_has.x2apic ? " x2apic" : " xapic", cpu_has.pcid ? " pcid" : "",
		  cpu_has.smep ? " smep" : "", cpu_has.smap ? " smap" : "",
		  cpu_has.xsaves ? " xsaves" : cpu_has.xsaveopt ? " xsaveopt" :
		  cpu_has.xsave ? " xsave" : "",
		  cpu_has.avx ? " avx" : "", cpu_has.avx512 ? " avx512" : "",
		  cpu_has.amx ? " amx" : "", cpu_has.xfd ? " xfd" : "",
		  cpu_has.hypervisor ? " (virtual)" : "");
	return buf;
}

const char *arch_clock_description(void)
{
	static char buf[120];
	uint64_t khz = tsc_hz() / 1000;

	ksnprintf(buf, sizeof(buf), "TSC %lu.%04lu GHz (%s), APIC timer %lu MHz %s, tick %u Hz",
		  khz / 1000000, khz % 1000000 / 100, tsc_source(), lapic_timer_hz() / 1000000,
		  lapic_timer_tsc_deadline() ? "TSC-deadline" : "one-shot", timer_hz);
	return buf;
}
