// The arch-neutral boot sequence, entered from the arch's boot code once
// the direct map is up.

#include <kernel/boot.h>
#include <kernel/cpu.h>
#include <kernel/console.h>
#include <kernel/panic.h>
#include <kernel/power.h>
#include <kernel/smp.h>
#include <kernel/arch.h>
#include <kernel/ktest.h>
#include <kernel/proc.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>
#include <mm/frame.h>
#include <mm/kmalloc.h>
#include <lib/string.h>
#include <fs/dev.h>

static void memory_init(void)
{
	uint64_t total, free;

	frame_init(boot_info.ram, boot_info.nram, arch_early_alloc_end());
	arch_frames_ready();
	frame_stats(&total, &free);
	kprintf("memory: %lu MiB usable, %lu MiB free\n", total >> 8, free >> 8);
}

void kernel_main(void)
{
	kprintf("\nSwitchyard booting\n");
	memory_init();
	boot_options_apply(boot_info.cmdline);

	// Interrupts stay off until this CPU's scheduler state exists: every
	// handler may rely on it (docs/architecture.md, "Interrupts during
	// boot").
	arch_init_platform();		// clock, CPU list, interrupt controller
	for (int i = 0; i < ncpus; i++)
		sched_init_cpu(&cpus[i]);
	smp_boot_cpu_online(&cpus[0]);	// tick on, interrupts on
	console_input_start();
	kprintf("cpu: %s, %d CPU%s, %s\n", arch_cpu_description(), ncpus,
		ncpus == 1 ? "" : "s", arch_clock_description());
	arch_start_secondary_cpus();
	kprintf("smp: %d of %d CPUs online\n", ncpus_online, ncpus);
	syscall_table_init();
	ktest_run_selected();
	start_init();
	// The boot flow is done: this thread's CPU goes back to the scheduler.
	sched_exit_current();
}
