// The pseries platform on the boot CPU and the others: the CPU list,
// the clock and the interrupt controller, starting CPUs with RTAS, idle
// with H_CEDE, and ending the machine with RTAS power-off.

#include <stdint.h>
#include <arch/spr.h>
#include <arch/irq.h>
#include <arch/hcall.h>
#include <arch/memlayout.h>
#include <arch/platform.h>
#include <kernel/arch.h>
#include <kernel/boot.h>
#include <kernel/cpu.h>
#include <kernel/spinlock.h>
#include <kernel/console.h>
#include <kernel/panic.h>
#include <kernel/power.h>
#include <kernel/smp.h>
#include <kernel/time.h>
#include <kernel/ktimer.h>
#include <mm/frame.h>
#include <mm/phys.h>
#include <lib/printf.h>
#include <lib/string.h>

void time_init(void);			// time.c
void xics_init_this_cpu(void);		// xics.c
void facility_init_this_cpu(void);	// facility.c
void mmu_enable(void);
void time_rearm_after_interrupt(void);
extern bool boot_stress;
extern char secondary_entry[];

uint64_t arch_early_alloc_end(void)
{
	return early_alloc_end();
}

void arch_frames_ready(void)
{
	mmu_frames_ready();
}

static char emergency_stacks[MAX_CPUS][4096] __attribute__((aligned(16)));

// Facilities start switched off for user mode on every CPU.
static void cpu_init_this(struct cpu *c)
{
	c->arch.emergency_top = (uint64_t)emergency_stacks[c->id] + sizeof(emergency_stacks[0]) - 64;
	c->arch.fp_off = c->arch.vec_off = c->arch.tm_off = true;
	facility_init_this_cpu();
	xics_init_this_cpu();
}

void arch_init_platform(void)
{
	ncpus = pseries.ncpus > MAX_CPUS ? MAX_CPUS : pseries.ncpus;
	uint32_t boot_hw = (uint32_t)mfspr(SPRN_PIR);
	// The boot CPU is cpus[0]; the others follow in device-tree order.
	int next = 1;
	cpus[0].arch.hw_id = boot_hw;
	for (int i = 0; i < pseries.ncpus && next < ncpus; i++)
		if (pseries.cpu_hw_id[i] != boot_hw)
			cpus[next++].arch.hw_id = pseries.cpu_hw_id[i];
	for (int i = 0; i < ncpus; i++) {
		cpus[i].id = i;
		cpus[i].self = &cpus[i];
	}
	time_init();
	cpu_init_this(&cpus[0]);
}

void arch_cpu_start_timer(void)
{
	arch_timer_oneshot(1000000000u / timer_hz);
}

// ---- secondary CPUs ----

// First C code on a secondary CPU (entry.S), real mode, on its stack.
void ppc_secondary_boot(struct cpu *c);

void ppc_secondary_boot(struct cpu *c)
{
	__asm__ volatile("mr 13, %0" : : "r"(c));
	mtspr(SPRN_SPRG0, c);
	__asm__ volatile("mtmsrd %0, 1" : : "r"(MSR_RI));
	time_rearm_after_interrupt();
	mmu_enable();
	cpu_init_this(c);
	smp_cpu_online(c);		// idle thread, timer; never returns
}

static void delay_us(uint64_t us)
{
	uint64_t t0 = clock_monotonic_ns();
	while (clock_monotonic_ns() - t0 < us * 1000)
		cpu_relax();
}

static bool start_one(struct cpu *c)
{
	uint64_t stack = frame_alloc(2);	// 16 KiB boot stack, then its idle stack
	uint32_t status;

	if (!stack)
		return false;
	c->arch.kstack_top = (uint64_t)phys_to_virt(stack) + 4 * PAGE_SIZE;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	// start-cpu(cpu, start address, r3): the CPU begins in real mode,
	// big-endian, at the real address of secondary_entry.
	int rc = rtas_call(pseries.rtas_start_cpu, 3, 1, &status, c->arch.hw_id,
			   (uint32_t)((uint64_t)secondary_entry - KERNEL_OFFSET),
			   (uint32_t)((uint64_t)c - KERNEL_OFFSET));
	if (rc != 0) {
		kprintf("smp: RTAS start-cpu of CPU %u failed (%d)\n", c->arch.hw_id, rc);
		frame_free(stack, 2);
		return false;
	}
	for (int i = 0; i < 2000 && !c->online; i++) {
		if (boot_stress)
			for (int k = IPI_CALL; k <= IPI_TICK; k++)
				arch_send_ipi(c->id, (enum ipi_kind)k);
		delay_us(1000);
	}
	return c->online;
}

// r3 for the new CPU is its struct cpu's real address: the top bits of an
// address are ignored in real mode, and secondary_start turns it into the
// kernel address before using it.
void arch_start_secondary_cpus(void)
{
	if (ncpus > 1 && !pseries.rtas_start_cpu) {
		kprintf("smp: the device tree has no RTAS start-cpu; one CPU only\n");
		return;
	}
	for (int i = 1; i < ncpus; i++)
		if (!start_one(&cpus[i]))
			kprintf("smp: cpu %d (hardware %u) did not start\n", i, cpus[i].arch.hw_id);
}

static void stop_this_cpu(void *arg)
{
	(void)arg;
	arch_halt_forever();
}

void arch_stop_other_cpus(void)
{
	for (int i = 0; i < ncpus; i++) {
		if (i == this_cpu()->id || !cpus[i].online)
			continue;
		cpus[i].online = false;
		arch_send_ipi(i, IPI_TEST);
	}
	(void)stop_this_cpu;
}

// ---- idle, power ----

// H_CEDE: sleep until an interrupt, with interrupts enabled by the call
// itself, so that one arriving just before cannot be missed.
void irq_enable_and_wait(void)
{
	hcall(H_CEDE, 0, 0, 0, 0, 0, 0);
	irq_enable();
}

void halt(void)
{
	hcall(H_CEDE, 0, 0, 0, 0, 0, 0);
}

void arch_irq_disable_all(void)
{
	irq_disable();
}

// With interrupts off H_CEDE still returns on a timer or IPI: loop.
void arch_halt_forever(void)
{
	for (;;) {
		irq_disable();
		mtspr(SPRN_DEC, 0x7fffffff);
		hcall(H_CEDE, 0, 0, 0, 0, 0, 0);
	}
}

// pseries has no exit-status device: the runner reads the status from
// the console (switchyard: init exited with status N), and the machine
// powers off.
void arch_machine_exit(int status)
{
	(void)status;
	if (pseries.rtas_power_off)
		rtas_call(pseries.rtas_power_off, 2, 1, 0, 0, 0);
	arch_halt_forever();
}

// ---- descriptions ----

bool arch_entropy64(uint64_t *v)
{
	uint64_t ret[4];

	if (hcall_ret(ret, H_RANDOM, 0, 0, 0, 0, 0, 0) != H_SUCCESS)
		return false;
	*v = ret[0];
	return true;
}

static const char *cpu_name(uint32_t pvr)
{
	switch (pvr >> 16) {
	case 0x004e: return "POWER9";
	case 0x0080: return "POWER10";
	case 0x004d: return "POWER8";
	case 0x004b: return "POWER8E";
	}
	return "unknown POWER";
}

const char *arch_cpu_description(void)
{
	static char buf[96];
	uint32_t pvr = (uint32_t)mfspr(SPRN_PVR);

	ksnprintf(buf, sizeof(buf), "%s (pvr %04x %04x), radix MMU, XICS (virtual)",
		  cpu_name(pvr), pvr >> 16, pvr & 0xffff);
	return buf;
}

// Linux's ppc64 /proc/cpuinfo block for one CPU.
unsigned long arch_cpuinfo(const struct cpu *c, char *buf, unsigned long size)
{
	uint32_t pvr = (uint32_t)mfspr(SPRN_PVR);

	if (size == 0)
		return 0;
	unsigned long n = (unsigned long)ksnprintf(buf, size,
		"processor\t: %d\ncpu\t\t: %s, altivec supported\nclock\t\t: 1000.000000MHz\n"
		"revision\t: %u.%u (pvr %04x %04x)\n\n",
		c->id, cpu_name(pvr), (pvr >> 8) & 0xff, pvr & 0xff, pvr >> 16, pvr & 0xffff);
	return n < size ? n : size - 1;
}
