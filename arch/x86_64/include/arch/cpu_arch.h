// x86-64 part of the per-CPU state, and the per-CPU pointer.
#ifndef ARCH_CPU_ARCH_H
#define ARCH_CPU_ARCH_H

#include <stdint.h>
#include <stdbool.h>

struct tss {
	uint32_t reserved0;
	uint64_t rsp0;
	uint64_t rsp1;
	uint64_t rsp2;
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

// Entry code reads the first two fields by offset (arch/asm_offsets.h).
struct cpu_arch {
	uint64_t syscall_user_rsp;	// scratch for the syscall entry path
	uint64_t kstack_top;		// top of the current thread's kernel stack
	uint32_t apic_id;
	uint64_t gdt[9];
	struct tss tss;
	uint64_t lapic_timer_count;	// initial count for one tick
	uint64_t boot_stack_pa;		// stack the CPU started on
	uint64_t user_fs_loaded;	// what MSR_FS_BASE holds for user space
	uint64_t user_gs_loaded;	// ... and MSR_KERNEL_GS_BASE
	bool fpu_off;			// CR0.TS set: x87/SSE/AVX trap (#NM)
	bool xfd_armed;			// IA32_XFD arms tile data: AMX traps
	bool tsd_set;			// CR4.TSD: user RDTSC/RDTSCP fault
};

// CPU features found by CPUID on the boot CPU.
struct cpu_features {
	bool x2apic;
	bool tsc_deadline;		// the local APIC timer's TSC-deadline mode
	bool pcid;
	bool invpcid;
	bool smep;
	bool smap;
	bool nx;
	bool pdpe1gb;
	bool fsgsbase;
	bool xsave;
	bool xsaveopt;
	bool xsavec;
	bool xsaves;
	bool xgetbv1;
	bool avx;
	bool avx512;
	bool amx;
	bool xfd;
	bool rdrand;
	bool rdseed;
	bool rdtscp;
	bool rdpid;
	bool serialize;		// SERIALIZE (membarrier's core serialization)
	bool invariant_tsc;
	bool hypervisor;
	char vendor[13];
};

extern struct cpu_features cpu_has;

struct cpu;

static inline struct cpu *arch_this_cpu(void)
{
	struct cpu *c;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(c));
	return c;
}

void cpu_detect_features(void);
void cpu_init_this(struct cpu *c);	// GDT, TSS, IDT, GS base, CR4, syscall MSRs

#endif
