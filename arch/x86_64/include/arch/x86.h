// Thin wrappers around x86-64 instructions the kernel needs.
#ifndef ARCH_X86_H
#define ARCH_X86_H

#include <stdint.h>
#include <stdbool.h>
#include <arch/irq.h>

#define MSR_EFER		0xc0000080
#define MSR_STAR		0xc0000081
#define MSR_LSTAR		0xc0000082
#define MSR_SFMASK		0xc0000084
#define MSR_FS_BASE		0xc0000100
#define MSR_GS_BASE		0xc0000101
#define MSR_KERNEL_GS_BASE	0xc0000102
#define MSR_TSC_AUX		0xc0000103
#define MSR_APIC_BASE		0x1b
#define MSR_PAT			0x277
#define MSR_XFD			0x1c4
#define MSR_XFD_ERR		0x1c5

#define EFER_SCE		(1UL << 0)
#define EFER_NXE		(1UL << 11)

#define CR0_TS			(1UL << 3)
#define CR0_NE			(1UL << 5)
#define CR0_WP			(1UL << 16)
#define CR4_TSD			(1UL << 2)
#define CR4_PGE			(1UL << 7)
#define CR4_OSFXSR		(1UL << 9)
#define CR4_OSXMMEXCPT		(1UL << 10)
#define CR4_FSGSBASE		(1UL << 16)
#define CR4_PCIDE		(1UL << 17)
#define CR4_OSXSAVE		(1UL << 18)
#define CR4_SMEP		(1UL << 20)
#define CR4_SMAP		(1UL << 21)

#define RFLAGS_AC		(1UL << 18)

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;
	__asm__ volatile("cpuid" : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			 : "a"(leaf), "c"(subleaf));
	return r;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t read_cr0(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline void write_cr0(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline void write_cr3(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline uint64_t read_cr4(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void write_cr4(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}


static inline void invlpg(uint64_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static inline void clts(void)	{ __asm__ volatile("clts" ::: "memory"); }
static inline void mfence(void)	{ __asm__ volatile("mfence" ::: "memory"); }

#endif
