// The system call table, built at boot from every SYSCALL_DEFINE.

#include <kernel/syscall.h>
#include <kernel/boot.h>
#include <kernel/console.h>
#include <kernel/panic.h>
#include <kernel/thread.h>
#include <kernel/proc_internal.h>
#include <lib/string.h>
#include <uapi/errno.h>

extern const struct syscall_entry syscalls_start[], syscalls_end[];

syscall_fn syscall_table[SYSCALL_MAX];
#define table syscall_table
static const char *names[SYSCALL_MAX];
static bool log_unknown;
static uint64_t unknown_logged[SYSCALL_MAX / 64];
uint64_t syscalls_unknown;		// calls to numbers we do not implement

static int set_syscall_log(const char *value)
{
	if (!value || strcmp(value, "unknown"))
		return -1;
	log_unknown = true;
	return 0;
}
BOOT_OPTION(syscall_log, "syscall_log=unknown: log each unimplemented syscall number once", set_syscall_log);

void syscall_table_init(void)
{
	for (const struct syscall_entry *e = syscalls_start; e < syscalls_end; e++) {
		if (e->nr < 0 || e->nr >= SYSCALL_MAX)
			panic("syscall %s: number %d out of range", e->name, e->nr);
		if (table[e->nr])
			panic("syscall %d defined twice (%s, %s)", e->nr, names[e->nr], e->name);
		table[e->nr] = e->fn;
		names[e->nr] = e->name;
	}
}

struct trap_frame *syscall_frame(void)
{
	return arch_thread_user_frame(current_thread());
}

const char *syscall_name(uint64_t nr)
{
	return nr < SYSCALL_MAX && names[nr] ? names[nr] : "?";
}

static long unknown(uint64_t nr)
{
	__atomic_add_fetch(&syscalls_unknown, 1, __ATOMIC_RELAXED);
	if (log_unknown && nr < SYSCALL_MAX &&
	    !(__atomic_fetch_or(&unknown_logged[nr / 64], 1ULL << (nr % 64), __ATOMIC_RELAXED) &
	      (1ULL << (nr % 64))))
		kprintf("syscall: %s called unimplemented syscall %lu\n", current_thread()->name, nr);
	else if (log_unknown && nr >= SYSCALL_MAX)
		kprintf("syscall: %s called out-of-range syscall %lu\n", current_thread()->name, nr);
	return -ENOSYS;
}

long syscall_invoke_slow(struct thread *t, uint64_t nr, const struct syscall_args *args)
{
	long ret;

	// A seccomp filter sees every call, implemented or not.
	if (t->seccomp.mode != SECCOMP_MODE_DISABLED && !seccomp_check(nr, args, &ret))
		return ret;
	if (nr >= SYSCALL_MAX || !table[nr])
		return unknown(nr);
	return table[nr](args);
}

// A call made on behalf of another (ipc's and socketcall-like
// multiplexers): the table alone, since seccomp saw the outer call.
long syscall_call(uint64_t nr, const struct syscall_args *args)
{
	if (nr >= SYSCALL_MAX || !table[nr])
		return -ENOSYS;
	return table[nr](args);
}
