// What arch/ppc64le learns from QEMU's pseries device tree at boot, and
// the arch-internal calls between its files.
#ifndef ARCH_PLATFORM_H
#define ARCH_PLATFORM_H

#include <stdint.h>
#include <stddef.h>
#include <kernel/cpu.h>
#include <mm/frame.h>

#define PSERIES_DEFAULT_VTY	0x71000000	// QEMU's first spapr-vty

struct pseries {
	int ncpus;
	bool qemu;				// the root's compatible says "qemu,pseries"
	uint32_t cpu_hw_id[MAX_CPUS];		// "reg" of each /cpus node
	uint64_t timebase_hz;
	uint32_t dec_bits;			// decrementer width (ibm,dec-bits)
	uint32_t vty;				// the console's terminal number
	uint64_t initrd_end;
	// RTAS tokens (0: not offered).
	uint32_t rtas_start_cpu, rtas_stop_self, rtas_power_off;
	uint32_t rtas_get_time_of_day, rtas_query_cpu;
};

extern struct pseries pseries;

// mmu.c
void early_alloc_init(uint64_t start, uint64_t a_start, uint64_t a_end,
		      uint64_t b_start, uint64_t b_end);
uint64_t early_alloc_end(void);
void mmu_init(const struct mem_range *ram, size_t n);
void mmu_enable(void);			// this CPU: MMU on, kernel PID
void mmu_frames_ready(void);

// rtas.c: one RTAS call through QEMU's H_RTAS; the RTAS status.
int rtas_call(uint32_t token, int nargs, int nret, uint32_t *ret, ...);

#endif
