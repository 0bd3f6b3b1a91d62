// Tests that must end in a kernel panic; the host runner boots each one
// alone and checks the panic report for the text announced here.

#include <kernel/ktest.h>
#include <kernel/console.h>

KTEST_PANIC(panic, kernel_page_fault)
{
	kprintf("# expect-panic: page fault at address 0xdead000: kernel write to a not-present page\n");
	*(volatile int *)0xdead000 = 1;
	return false;
}

KTEST_PANIC(panic, kernel_divide_error)
{
	volatile int zero = 0;

	kprintf("# expect-panic: divide error\n");
	return 10 / zero == 3;
}
