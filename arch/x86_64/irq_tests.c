// In-kernel tests of interrupt handling that needs the x86 interrupt
// controller: NMIs.

#include <arch/apic.h>
#include <kernel/ktest.h>
#include <kernel/console.h>
#include <kernel/cpu.h>
#include <kernel/smp.h>
#include <kernel/time.h>
#include <arch/irq.h>

extern volatile uint64_t nmis_ignored;	// entry.S

static void set_flag(void *arg)
{
	__atomic_store_n((volatile int *)arg, 1, __ATOMIC_SEQ_CST);
}

// Does CPU 'cpu' still run code?  A call that does not wait, so a
// stopped CPU makes this return false instead of hanging.
static bool nmi_counted(uint64_t before)
{
	uint64_t t0 = clock_monotonic_ns();

	while (__atomic_load_n(&nmis_ignored, __ATOMIC_SEQ_CST) == before) {
		if (clock_monotonic_ns() - t0 > 2000000000ULL)
			return false;
		cpu_relax();
	}
	return true;
}

static bool cpu_answers(int cpu)
{
	static volatile int flag;

	flag = 0;
	if (cross_call(cpu, set_flag, (void *)&flag, false) != 0)
		return false;
	uint64_t t0 = clock_monotonic_ns();
	while (!__atomic_load_n(&flag, __ATOMIC_SEQ_CST)) {
		if (clock_monotonic_ns() - t0 > 2000000000ULL)
			return false;
		cpu_relax();
	}
	return true;
}

// An NMI outside a panic (a watchdog, the QEMU monitor's "nmi" command)
// must not stop the CPU it reaches: it is ignored.  Every other CPU
// first, then this one.
KTEST(traps, nmi_outside_panic_is_ignored)
{
	int me = this_cpu()->id;

	for (int i = 0; i < ncpus; i++) {
		if (i == me || !cpus[i].online)
			continue;
		uint64_t before = nmis_ignored;
		lapic_send_nmi(cpus[i].arch.apic_id);
		KEXPECT(nmi_counted(before));
		KEXPECT(cpu_answers(i));
	}
	uint64_t before = nmis_ignored;
	lapic_send_nmi(this_cpu()->arch.apic_id);
	KEXPECT(nmi_counted(before));
	KEXPECT(cpu_answers(me));
	return true;
}

// Integer division by zero traps on x86-64 (#DE); not every arch has
// such a trap (ppc64 gives an undefined result).
KTEST_PANIC(panic, kernel_divide_error)
{
	volatile int zero = 0;

	kprintf("# expect-panic: divide error\n");
	return 10 / zero == 3;
}
