// Per-CPU setup on x86-64: feature detection, GDT and TSS, the IDT,
// control-register features (NX, SMEP, SMAP, PCID, FSGSBASE, native x87
// error reporting) and the syscall MSRs.

#include <stdint.h>
#include <arch/x86.h>
#include <arch/trapframe.h>
#include <arch/irq_vectors.h>
#include <arch/memlayout.h>
#include <kernel/cpu.h>
#include <kernel/console.h>
#include <lib/string.h>

struct cpu_features cpu_has;

// Stacks for faults that must not run on a possibly broken kernel stack.
#define IST_STACK_SIZE 8192
static uint8_t ist_double_fault[MAX_CPUS][IST_STACK_SIZE] __attribute__((aligned(16)));
static uint8_t ist_nmi[MAX_CPUS][IST_STACK_SIZE] __attribute__((aligned(16)));

struct idt_entry {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t zero;
} __attribute__((packed));

struct descriptor_pointer {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

static struct idt_entry idt[256];
extern char vector_stubs[];		// entry.S: 256 stubs, 16 bytes apart
extern void syscall_entry(void);

void cpu_detect_features(void)
{
	struct cpuid_regs r = cpuid(0, 0);
	uint32_t max_leaf = r.eax;

	memcpy(cpu_has.vendor, &r.ebx, 4);
	memcpy(cpu_has.vendor + 4, &r.edx, 4);
	memcpy(cpu_has.vendor + 8, &r.ecx, 4);

	r = cpuid(1, 0);
	cpu_has.x2apic = r.ecx & (1u << 21);
	cpu_has.tsc_deadline = r.ecx & (1u << 24);
	cpu_has.pcid = r.ecx & (1u << 17);
	cpu_has.xsave = r.ecx & (1u << 26);
	cpu_has.avx = r.ecx & (1u << 28);
	cpu_has.rdrand = r.ecx & (1u << 30);
	cpu_has.hypervisor = r.ecx & (1u << 31);

	if (max_leaf >= 7) {
		r = cpuid(7, 0);
		cpu_has.fsgsbase = r.ebx & (1u << 0);
		cpu_has.smep = r.ebx & (1u << 7);
		cpu_has.invpcid = r.ebx & (1u << 10);
		cpu_has.avx512 = r.ebx & (1u << 16);
		cpu_has.rdseed = r.ebx & (1u << 18);
		cpu_has.smap = r.ebx & (1u << 20);
		cpu_has.rdpid = r.ecx & (1u << 22);
		cpu_has.amx = r.edx & (1u << 24);	// AMX-TILE
		cpu_has.serialize = r.edx & (1u << 14);
	}
	if (max_leaf >= 0xd) {
		r = cpuid(0xd, 1);
		cpu_has.xsaveopt = r.eax & (1u << 0);
		cpu_has.xsavec = r.eax & (1u << 1);
		cpu_has.xgetbv1 = r.eax & (1u << 2);
		cpu_has.xsaves = r.eax & (1u << 3);
		cpu_has.xfd = r.eax & (1u << 4);
	}
	r = cpuid(0x80000000, 0);
	uint32_t max_ext = r.eax;
	if (max_ext >= 0x80000001) {
		r = cpuid(0x80000001, 0);
		cpu_has.nx = r.edx & (1u << 20);
		cpu_has.pdpe1gb = r.edx & (1u << 26);
		cpu_has.rdtscp = r.edx & (1u << 27);
	}
	if (max_ext >= 0x80000007)
		cpu_has.invariant_tsc = cpuid(0x80000007, 0).edx & (1u << 8);
}

static uint64_t segment(uint32_t flags)
{
	// Base 0, limit 0xfffff; 'flags' holds access byte and flag nibble.
	return 0x000f00000000ffffULL | ((uint64_t)flags << 40);
}

static void gdt_init(struct cpu *c)
{
	uint64_t *gdt = c->arch.gdt;
	uint64_t tss = (uint64_t)&c->arch.tss;
	uint64_t limit = sizeof(struct tss) - 1;

	memset(gdt, 0, sizeof(c->arch.gdt));
	gdt[SEL_KERNEL_CS >> 3] = segment(0xa09a);	// L=1, P, DPL0, code
	gdt[SEL_KERNEL_DS >> 3] = segment(0xc092);	// data
	gdt[SEL_USER32_CS >> 3] = segment(0xc0fa);	// 32-bit user code (unused)
	gdt[SEL_USER_DS >> 3] = segment(0xc0f2);
	gdt[SEL_USER_CS >> 3] = segment(0xa0fa);
	gdt[SEL_TSS >> 3] = (limit & 0xffff) | ((tss & 0xffffff) << 16) |
			    (0x89ULL << 40) | (((limit >> 16) & 0xf) << 48) |
			    ((tss >> 24 & 0xff) << 56);
	gdt[(SEL_TSS >> 3) + 1] = tss >> 32;

	memset(&c->arch.tss, 0, sizeof(c->arch.tss));
	c->arch.tss.ist[0] = (uint64_t)&ist_double_fault[c->id][IST_STACK_SIZE];
	c->arch.tss.ist[1] = (uint64_t)&ist_nmi[c->id][IST_STACK_SIZE];
	c->arch.tss.iomap_base = sizeof(struct tss);	// no I/O bitmap

	struct descriptor_pointer p = { sizeof(c->arch.gdt) - 1, (uint64_t)gdt };
	__asm__ volatile(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %w2, %%ds\n\t"
		"movw %w2, %%es\n\t"
		"movw %w2, %%ss\n\t"
		"ltr %w3"
		: : "m"(p), "i"(SEL_KERNEL_CS), "r"(SEL_KERNEL_DS), "r"(SEL_TSS)
		: "rax", "memory");
}

static void idt_set(int vec, uint64_t handler, int ist, int dpl)
{
	idt[vec].offset_low = handler & 0xffff;
	idt[vec].selector = SEL_KERNEL_CS;
	idt[vec].ist = ist;
	idt[vec].type_attr = 0x8e | (dpl << 5);	// present, 64-bit interrupt gate
	idt[vec].offset_mid = (handler >> 16) & 0xffff;
	idt[vec].offset_high = handler >> 32;
	idt[vec].zero = 0;
}

static void idt_build(void)
{
	for (int v = 0; v < 256; v++)
		idt_set(v, (uint64_t)vector_stubs + 16 * v, 0, 0);
	idt_set(VEC_DOUBLE_FAULT, (uint64_t)vector_stubs + 16 * VEC_DOUBLE_FAULT, 1, 0);
	idt_set(VEC_NMI, (uint64_t)vector_stubs + 16 * VEC_NMI, 2, 0);
	// int3 may be used from user space (debuggers, tests).
	idt_set(VEC_BREAKPOINT, (uint64_t)vector_stubs + 16 * VEC_BREAKPOINT, 0, 3);
}

static void syscall_msrs_init(void)
{
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	// SYSCALL loads CS from STAR[47:32]; SYSRET loads CS from STAR[63:48]+16
	// and SS from STAR[63:48]+8: with 0x23 that gives Linux's 0x33 and 0x2b.
	wrmsr(MSR_STAR, ((uint64_t)SEL_USER32_CS << 48) | ((uint64_t)SEL_KERNEL_CS << 32));
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	// Clear IF, TF, DF, AC and NT on entry.
	wrmsr(MSR_SFMASK, (1u << 9) | (1u << 8) | (1u << 10) | (1u << 18) | (1u << 14));
}

static void control_registers_init(void)
{
	uint64_t cr4 = read_cr4();

	cr4 |= CR4_PGE | CR4_OSFXSR | CR4_OSXMMEXCPT;
	if (cpu_has.smep)
		cr4 |= CR4_SMEP;
	if (cpu_has.smap)
		cr4 |= CR4_SMAP;
	if (cpu_has.fsgsbase)
		cr4 |= CR4_FSGSBASE;
	if (cpu_has.xsave)
		cr4 |= CR4_OSXSAVE;
	write_cr4(cr4);
	// NE: x87 errors a program unmasked raise #MF (SIGFPE), as on
	// Linux, instead of the legacy FERR# line nobody listens to.
	write_cr0(read_cr0() | CR0_WP | CR0_NE);
	if (cpu_has.nx)
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
}

void cpu_init_this(struct cpu *c)
{
	static int idt_ready;

	c->self = c;
	wrmsr(MSR_GS_BASE, (uint64_t)c);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
	gdt_init(c);
	if (!idt_ready) {
		idt_build();
		idt_ready = 1;
	}
	struct descriptor_pointer p = { sizeof(idt) - 1, (uint64_t)idt };
	__asm__ volatile("lidt %0" : : "m"(p));
	control_registers_init();
	syscall_msrs_init();
	if (cpu_has.rdtscp || cpu_has.rdpid)
		wrmsr(MSR_TSC_AUX, c->id);	// RDTSCP/RDPID report the CPU number
}

// Point the TSS and the syscall path at the kernel stack of the thread
// about to run on this CPU.
void cpu_set_kernel_stack(uint64_t top)
{
	struct cpu *c = this_cpu();

	c->arch.tss.rsp0 = top;
	c->arch.kstack_top = top;
}

