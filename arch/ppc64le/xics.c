// Interrupts on pseries through the XICS hypercalls: each CPU has one
// presentation controller (its CPPR, MFRR and XIRR), reached with H_CPPR,
// H_IPI, H_XIRR and H_EOI.  An IPI is the MFRR of the target's
// controller; the kind of IPI travels in the target's ipi_pending bits.

#include <stdint.h>
#include <arch/hcall.h>
#include <arch/irq.h>
#include <arch/platform.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/panic.h>
#include <kernel/smp.h>
#include <kernel/trap.h>
#include <kernel/time.h>
#include <lib/printf.h>

#define XICS_IPI_SOURCE		2
#define XICS_SPURIOUS		0
#define IPI_PRIORITY		4	// anything below the CPPR's 0xff
#define MFRR_NONE		0xff

void xics_init_this_cpu(void)
{
	hcall(H_CPPR, 0xff, 0, 0, 0, 0, 0);	// accept every priority
	hcall(H_IPI, this_cpu()->arch.hw_id, MFRR_NONE, 0, 0, 0, 0);
}

void arch_send_ipi(int cpu, enum ipi_kind kind)
{
	this_cpu()->stats.ipi_sent++;
	__atomic_or_fetch(&cpus[cpu].arch.ipi_pending, 1u << kind, __ATOMIC_SEQ_CST);
	hcall(H_IPI, cpus[cpu].arch.hw_id, IPI_PRIORITY, 0, 0, 0, 0);
}

void arch_send_ipi_all_others(enum ipi_kind kind)
{
	int me = this_cpu()->id;

	for (int i = 0; i < ncpus; i++)
		if (i != me && cpus[i].online)
			arch_send_ipi(i, kind);
}

static void ipi_received(struct cpu *c, uint64_t *kind)
{
	c->stats.ipi_recv++;
	if (kind)
		(*kind)++;
}

static void ipi_interrupt(struct cpu *c)
{
	hcall(H_IPI, c->arch.hw_id, MFRR_NONE, 0, 0, 0, 0);
	uint32_t kinds = __atomic_exchange_n(&c->arch.ipi_pending, 0, __ATOMIC_SEQ_CST);

	if (kinds & (1u << IPI_CALL)) {
		ipi_received(c, &c->stats.ipi_call);
		cross_call_interrupt();
	}
	if (kinds & (1u << IPI_RESCHED)) {
		ipi_received(c, &c->stats.ipi_resched);
		c->need_resched = true;
	}
	if (kinds & (1u << IPI_TLB)) {
		ipi_received(c, &c->stats.ipi_tlb);
		tlb_shootdown_interrupt();
	}
	if (kinds & (1u << IPI_TEST)) {
		ipi_received(c, 0);
		ipi_test_interrupt();
	}
	if (kinds & (1u << IPI_TICK)) {
		ipi_received(c, 0);
		tick_ipi();
	}
}

// 0x500: whatever the controller presents, acknowledged (EOI) after the
// handler: XICS holds back lower priorities until then, and every source
// here has the same one.
void external_interrupt(struct trap_frame *f)
{
	struct cpu *c = this_cpu();
	uint64_t ret[4];

	(void)f;
	if (hcall_ret(ret, H_XIRR, 0, 0, 0, 0, 0, 0) != H_SUCCESS)
		return;
	uint32_t xirr = (uint32_t)ret[0];
	uint32_t source = xirr & 0xffffff;
	if (source == XICS_SPURIOUS)
		return;
	if (source == XICS_IPI_SOURCE)
		ipi_interrupt(c);
	else
		device_interrupt(source);
	hcall(H_EOI, xirr, 0, 0, 0, 0, 0);
}
