// Tests that must end in a kernel panic; the host runner boots each one
// alone and checks the panic report for the text announced here.

#include <kernel/ktest.h>
#include <kernel/console.h>
#include <kernel/thread.h>
#include <kernel/sched.h>

KTEST_PANIC(panic, kernel_page_fault)
{
	kprintf("# expect-panic: page fault at address 0xdead000: kernel write to a not-present page\n");
	*(volatile int *)0xdead000 = 1;
	return false;
}

// Deep enough recursion to run off a kernel stack; the guard page below
// it turns that into a clear report instead of silent corruption.
static int __attribute__((noinline)) recurse(volatile char *prev, int depth)
{
	volatile char frame[512];

	frame[0] = (char)depth;
	frame[511] = prev ? prev[0] : 0;
	return depth > 100000 ? frame[0] : recurse(frame, depth + 1) + frame[511];
}

static void overflow_thread(void *arg)
{
	(void)arg;
	recurse(0, 0);
}

// Runs in a kernel thread: thread stacks have the guard page (the boot
// CPU's start-up stack does not).
KTEST_PANIC(panic, kernel_stack_overflow)
{
	kprintf("# expect-panic: kernel stack overflow\n");
	kthread_create("overflow", overflow_thread, 0, -1);
	for (;;)
		sched_yield();
	return false;
}
