// Starting the other CPUs: INIT, then two STARTUP IPIs pointing at the
// real-mode trampoline, one CPU at a time.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/apic.h>
#include <arch/acpi.h>
#include <arch/mmu.h>
#include <arch/memlayout.h>
#include <arch/irq_vectors.h>
#include <arch/xstate.h>
#include <arch/mmu.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/console.h>
#include <kernel/panic.h>
#include <kernel/smp.h>
#include <mm/frame.h>
#include <mm/phys.h>
#include <lib/string.h>

extern char trampoline_start[], trampoline_end[];
extern char trampoline_cr3[], trampoline_efer[], trampoline_stack[];
extern char trampoline_cpu[], trampoline_entry[];

static void *tramp_field(char *sym)
{
	return phys_to_virt(AP_TRAMPOLINE_PHYS + (sym - trampoline_start));
}

static void delay_us(uint64_t us)
{
	uint64_t t0 = clock_monotonic_ns();
	while (clock_monotonic_ns() - t0 < us * 1000)
		cpu_relax();
}

// First C code on an application processor.
static __attribute__((noreturn)) void ap_entry(struct cpu *c)
{
	cpu_init_this(c);
	xstate_init_cpu();
	tlb_init_cpu();
	lapic_init_this_cpu();
	smp_cpu_online(c);	// arch-neutral: idle thread, timer, never returns
}

static bool start_one(struct cpu *c)
{
	uint64_t stack = frame_alloc(2);	// 16 KiB boot/idle stack

	if (!stack)
		return false;
	*(uint32_t *)tramp_field(trampoline_cr3) = (uint32_t)kernel_pml4_pa;
	*(uint32_t *)tramp_field(trampoline_efer) = (1u << 8) | (cpu_has.nx ? 1u << 11 : 0);
	*(uint64_t *)tramp_field(trampoline_stack) = (uint64_t)phys_to_virt(stack) + 4 * PAGE_SIZE;
	*(uint64_t *)tramp_field(trampoline_cpu) = (uint64_t)c;
	*(uint64_t *)tramp_field(trampoline_entry) = (uint64_t)ap_entry;
	c->arch.boot_stack_pa = stack;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	lapic_send_init(c->arch.apic_id);
	delay_us(10000);
	for (int tries = 0; tries < 2 && !c->online; tries++) {
		lapic_send_startup(c->arch.apic_id, AP_TRAMPOLINE_PHYS >> 12);
		// Under emulation a CPU can take long to come up: wait up to 2 s.
		for (int i = 0; i < 2000 && !c->online; i++) {
			if (boot_stress)
				lapic_stress_ipis(c->arch.apic_id);
			delay_us(1000);
		}
	}
	return c->online;
}

void arch_start_secondary_cpus(void)
{
	memcpy(phys_to_virt(AP_TRAMPOLINE_PHYS), trampoline_start,
	       trampoline_end - trampoline_start);
	mmu_map_low_identity(true);
	for (int i = 1; i < ncpus; i++) {
		if (!start_one(&cpus[i]))
			kprintf("smp: cpu %d (APIC id %u) did not start\n", i, cpus[i].arch.apic_id);
	}
	mmu_map_low_identity(false);
}

static const uint8_t ipi_vectors[] = {
	[IPI_CALL] = VEC_IPI_CALL,
	[IPI_RESCHED] = VEC_IPI_RESCHED,
	[IPI_TLB] = VEC_IPI_TLB,
	[IPI_TEST] = VEC_IPI_TEST,
	[IPI_TICK] = VEC_IPI_TICK,
};

void arch_send_ipi(int cpu, enum ipi_kind kind)
{
	this_cpu()->stats.ipi_sent++;
	lapic_send_ipi(cpus[cpu].arch.apic_id, ipi_vectors[kind]);
}

// Every online CPU but this one, with one ICR write; counted once per
// CPU reached.
void arch_send_ipi_all_others(enum ipi_kind kind)
{
	this_cpu()->stats.ipi_sent += ncpus_online - 1;
	lapic_send_ipi_all_others(ipi_vectors[kind]);
}

void arch_stop_other_cpus(void)
{
	if (ncpus_online > 1)
		lapic_send_nmi_all_others();
}
