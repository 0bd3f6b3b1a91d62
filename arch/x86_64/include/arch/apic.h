// Local APIC (xAPIC through MMIO, or x2APIC through MSRs when present).
#ifndef ARCH_APIC_H
#define ARCH_APIC_H

#include <stdint.h>
#include <stdbool.h>

void lapic_init(void);			// boot CPU: choose the mode, map registers
void lapic_init_this_cpu(void);		// every CPU: enable, spurious vector
uint32_t lapic_id(void);
void lapic_eoi(void);
void lapic_send_ipi(uint32_t apic_id, uint8_t vector);
void lapic_send_ipi_all_others(uint8_t vector);
void lapic_send_nmi(uint32_t apic_id);
void lapic_send_nmi_all_others(void);
void lapic_send_init(uint32_t apic_id);
void lapic_send_startup(uint32_t apic_id, uint8_t page);
bool lapic_x2apic_mode(void);

// Timer: measure its rate against the TSC, then run it one-shot
// (arch_timer_oneshot, include/kernel/ktimer.h) on every CPU.
void lapic_timer_calibrate(void);
void lapic_timer_start(void);
uint64_t lapic_timer_hz(void);
bool lapic_timer_tsc_deadline(void);	// in TSC-deadline mode
// The TSC's rate was corrected from old to new: so is the timer's.
void lapic_timer_rescale(uint64_t old_tsc_hz, uint64_t new_tsc_hz);

// boot_stress (platform.c): tiny timer period from APIC enable on, IPIs
// at CPUs coming online.
extern bool boot_stress;
void lapic_stress_ipis(uint32_t apic_id);

// IOAPIC: route an ISA IRQ to a vector on the boot CPU.
void ioapic_route_isa_irq(int irq, uint8_t vector);

#endif
