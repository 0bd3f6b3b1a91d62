// The narrow interface between the arch-neutral kernel and arch/<arch>/.
// Everything the core needs from the CPU beyond these calls lives in the
// arch's own headers and stays there.
#ifndef KERNEL_ARCH_H
#define KERNEL_ARCH_H

#include <stdint.h>
#include <stdbool.h>

struct trap_frame;
struct cpu;

// Panic support.
void arch_irq_disable_all(void);
__attribute__((noreturn)) void arch_halt_forever(void);
void arch_stop_other_cpus(void);
void arch_dump_frame(const struct trap_frame *frame);
void arch_backtrace(const struct trap_frame *frame);

// Time: nanoseconds since boot, monotonic and consistent across CPUs.
uint64_t clock_monotonic_ns(void);
void arch_clock_tick(void);		// every tick, every CPU: clock upkeep
bool arch_clock_needs_tick(void);	// ... and this CPU needs one now
uint64_t arch_rtc_seconds(void);	// wall clock at boot, seconds since 1970

// Inter-processor interrupts (counted in struct cpu_stats).
enum ipi_kind { IPI_CALL, IPI_RESCHED, IPI_TLB, IPI_TEST, IPI_TICK };
void arch_send_ipi(int cpu, enum ipi_kind kind);
void arch_send_ipi_all_others(enum ipi_kind kind);	// only when all are online

// PR_GET_TSC / PR_SET_TSC: may the calling thread read the time-stamp
// counter (true), or does it fault with SIGSEGV?  Per thread, kept across
// fork, clone and exec, switched with the thread.
bool arch_tsc_allowed(void);
void arch_set_tsc_allowed(bool allowed);

// Boot.
uint64_t arch_early_alloc_end(void);	// end of memory used before frame_init
void arch_frames_ready(void);		// frame allocator usable from now on
void arch_init_platform(void);		// clock, CPU list, interrupt controllers;
					// interrupts stay off
void arch_cpu_start_timer(void);	// this CPU's tick, interrupts still off
const char *arch_cpu_description(void);
const char *arch_clock_description(void);

// 64 bits from the CPU's hardware random source (x86: RDSEED, else
// RDRAND); false if it has none or it failed.  Seeds kernel/random.c.
bool arch_entropy64(uint64_t *v);
// /proc/cpuinfo's block for one online CPU, in the arch's own Linux
// layout; returns the length written (at most size - 1).
struct cpu;
unsigned long arch_cpuinfo(const struct cpu *c, char *buf, unsigned long size);
// The arch's lines of /proc/config.gz (kernel/fs/procfs_config.c): the
// CONFIG_ options of its architecture, in Linux's vocabulary.
const char *arch_kconfig(void);

// The console device (x86-64: the 16550 UART on COM1).  Output waits a
// bounded time for the device, so a missing one cannot hang the kernel.
void arch_console_putc(char c);
int arch_console_getc(void);			// -1 when no byte is waiting
// Interrupts on input from now on; false: there is no way to, and the
// console polls arch_console_getc from a timer instead.
bool arch_console_enable_rx_interrupt(void);

#endif
