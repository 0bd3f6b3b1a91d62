// Kernel panic: report, stop the other CPUs, end the machine.

#include <stdarg.h>
#include <kernel/panic.h>
#include <kernel/console.h>
#include <kernel/cpu.h>
#include <kernel/power.h>
#include <kernel/arch.h>
#include <kernel/thread.h>
#include <lib/printf.h>

volatile bool panicking;
static volatile int panic_cpu = -1;

extern const uint64_t ksyms_count __attribute__((weak));
extern const uint64_t ksyms_addr[] __attribute__((weak));
extern const uint32_t ksyms_name_off[] __attribute__((weak));
extern const char ksyms_names[] __attribute__((weak));

const char *ksym_lookup(uint64_t addr, uint64_t *offset)
{
	if (&ksyms_count == 0 || ksyms_count == 0 || addr < ksyms_addr[0])
		return 0;
	// Binary search for the last symbol at or below addr.
	uint64_t lo = 0, hi = ksyms_count - 1;
	while (lo < hi) {
		uint64_t mid = (lo + hi + 1) / 2;
		if (ksyms_addr[mid] <= addr)
			lo = mid;
		else
			hi = mid - 1;
	}
	*offset = addr - ksyms_addr[lo];
	return ksyms_names + ksyms_name_off[lo];
}

void ksym_print(uint64_t addr)
{
	uint64_t off;
	const char *name = ksym_lookup(addr, &off);

	if (name)
		kprintf_unlocked("  [<%016lx>] %s+%#lx\n", addr, name, off);
	else
		kprintf_unlocked("  [<%016lx>] ?\n", addr);
}

static void panic_begin(void)
{
	struct cpu *c = this_cpu();
	int me = c ? c->id : 0;

	arch_irq_disable_all();
	// Only the first CPU to panic reports; others wait to be stopped.  A
	// fault while reporting (say, a broken frame pointer) ends at once.
	if (__atomic_exchange_n(&panicking, true, __ATOMIC_SEQ_CST)) {
		if (panic_cpu == me) {
			console_write_unlocked("\nnested fault during panic\n", 28);
			arch_machine_exit(EXIT_PANIC);
		}
		arch_halt_forever();
	}
	panic_cpu = me;
	arch_stop_other_cpus();
}

static __attribute__((noreturn)) void panic_end(const struct trap_frame *frame)
{
	struct cpu *c = this_cpu();

	struct thread *t = c ? c->current : 0;
	kprintf_unlocked("cpu %d, thread %s (tid %d)\n", c ? c->id : -1,
			 t ? t->name : "-", t ? t->tid : 0);
	if (frame)
		arch_dump_frame(frame);
	arch_backtrace(frame);
	kprintf_unlocked("---[ end of kernel panic ]---\n");
	arch_machine_exit(EXIT_PANIC);
}

static void panic_message(const char *fmt, va_list ap)
{
	char buf[256];

	kvsnprintf(buf, sizeof(buf), fmt, ap);
	kprintf_unlocked("\nKERNEL PANIC: %s\n", buf);
}

void panic(const char *fmt, ...)
{
	va_list ap;

	panic_begin();
	va_start(ap, fmt);
	panic_message(fmt, ap);
	va_end(ap);
	panic_end(0);
}

void panic_frame(const struct trap_frame *frame, const char *fmt, ...)
{
	va_list ap;

	panic_begin();
	va_start(ap, fmt);
	panic_message(fmt, ap);
	va_end(ap);
	panic_end(frame);
}
