// The little of ACPI Switchyard needs: the CPU list from the MADT, and
// the clock references (the PM timer from the FADT, the HPET's table).
#ifndef ARCH_ACPI_H
#define ARCH_ACPI_H

#include <stdint.h>

struct acpi_info {
	uint64_t lapic_pa;		// local APIC registers (xAPIC mode)
	uint64_t ioapic_pa;		// first IOAPIC, 0 if none
	uint32_t ioapic_gsi_base;
	int ncpus;
	uint32_t apic_ids[64];		// enabled CPUs, boot CPU first
	uint32_t isa_irq_gsi[16];	// ISA IRQ -> GSI (interrupt overrides)
	uint16_t pm_timer_port;		// ACPI PM timer (I/O port), 0 if none
	uint8_t pm_timer_bits;		// 24 or 32
	uint64_t hpet_pa;		// HPET registers, 0 if none
};

extern struct acpi_info acpi;

// Parses the tables reachable from the RSDP; returns 0, or -1 if there is
// no usable MADT (the clock references are filled in either way).
int acpi_init(uint64_t rsdp_pa, uint32_t boot_apic_id);

#endif
