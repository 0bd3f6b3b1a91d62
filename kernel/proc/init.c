// Starting the first user process, /init from the initramfs, as PID 1.

#include <kernel/proc.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/exec.h>
#include <kernel/mqueue.h>
#include <kernel/boot.h>
#include <kernel/console.h>
#include <kernel/power.h>
#include <kernel/panic.h>
#include <kernel/sched.h>
#include <kernel/signal.h>
#include <kernel/trap.h>
#include <fs/fcntl.h>
#include <kernel/vm.h>
#include <mm/fail_inject.h>
#include <mm/kmalloc.h>
#include <mm/phys.h>
#include <fs/vfs.h>
#include <fs/file.h>
#include <lib/string.h>

#define INIT_MAX_ARGS 32

static char init_path[256] = "/init";

static int set_init(const char *value)
{
	if (!value || value[0] != '/' || strlen(value) >= sizeof(init_path))
		return -1;
	strlcpy(init_path, value, sizeof(init_path));
	return 0;
}
BOOT_OPTION(init, "program to run as PID 1 (default /init)", set_init);

static char arg_buf[1024];
static const char *init_argv[INIT_MAX_ARGS + 2];
static int init_argc;

// Splits the text after "--" on the command line into init's arguments.
static void split_init_args(void)
{
	init_argv[init_argc++] = init_path;
	if (!init_args)
		return;
	strlcpy(arg_buf, init_args, sizeof(arg_buf));
	char *p = arg_buf;
	while (*p && init_argc < INIT_MAX_ARGS) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		init_argv[init_argc++] = p;
		while (*p && *p != ' ')
			p++;
		if (*p)
			*p++ = 0;
	}
}

void arch_enter_user(struct trap_frame *f);

static void init_thread(void *arg)
{
	static const char *const envp[] = { "HOME=/", "PATH=/bin:/sbin:/usr/bin", "TERM=vt100" };
	struct trap_frame *f = arch_thread_user_frame(current_thread());

	(void)arg;
	int r = exec_from_kernel(init_path, init_argv, init_argc, envp, 3, f);
	if (r < 0) {
		kprintf("switchyard: cannot run %s (error %d)\n", init_path, -r);
		arch_machine_exit(EXIT_PANIC);
	}
	// The boot is over: from here on allocations may fail on purpose.
	fail_inject_arm();
	exit_to_user(f);
	arch_enter_user(f);
}

void start_init(void)
{
	if (!boot_info.initrd_size) {
		kprintf("switchyard: no initramfs, nothing to run; powering off\n");
		arch_machine_exit(0);
	}
	if (vfs_init(phys_to_virt(boot_info.initrd_pa), boot_info.initrd_size) < 0)
		panic("cannot unpack the initramfs");
	split_init_args();

	struct process *p = process_alloc();
	if (!p)
		panic("no memory for init");
	p->pgid = p->sid = 1;
	p->mm = mm_create();
	p->fdt = fdtable_new();
	p->sighand = kzalloc(sizeof(*p->sighand));
	p->fs = fs_view_new();
	if (!p->mm || !p->fdt || !p->fs || !p->sighand || fdtable_open_console(p->fdt) < 0)
		panic("no memory for init");
	p->sighand->refcount = 1;
	spin_init(&p->sighand->lock, "sighand");
	for (int i = 0; i < RLIMIT_COUNT; i++)
		p->rlimits[i] = (struct rlimit_pair){ ~0ULL, ~0ULL };
	p->rlimits[3] = (struct rlimit_pair){ USER_STACK_SIZE, ~0ULL };	// RLIMIT_STACK
	p->rlimits[4] = (struct rlimit_pair){ 0, ~0ULL };	// RLIMIT_CORE: none, as Linux
	p->rlimits[7] = (struct rlimit_pair){ NOFILE_CUR, NOFILE_MAX };	// RLIMIT_NOFILE
	// RLIMIT_NPROC and RLIMIT_SIGPENDING: Linux gives init both half
	// its default threads-max.
	uint64_t sigq = sigpending_default_limit();
	p->rlimits[6] = (struct rlimit_pair){ sigq, sigq };	// RLIMIT_NPROC
	p->rlimits[RLIMIT_SIGPENDING_INDEX] = (struct rlimit_pair){ sigq, sigq };
	p->rlimits[12] = (struct rlimit_pair){ MQ_BYTES_MAX, MQ_BYTES_MAX };	// RLIMIT_MSGQUEUE
	// RLIMIT_NICE, RLIMIT_RTPRIO: 0, as Linux's INIT_RLIMITS, so only
	// CAP_SYS_NICE lowers nice or takes a real-time policy.
	p->rlimits[13] = (struct rlimit_pair){ 0, 0 };
	p->rlimits[14] = (struct rlimit_pair){ 0, 0 };

	struct thread *t = user_thread_alloc(p, "init");
	if (!t || p->pid != 1)
		panic("init did not get PID 1");
	uint64_t flags = spin_lock_irqsave(&p->lock);
	t->proc_next = p->threads;
	p->threads = t;
	p->nthreads = 1;
	spin_unlock_irqrestore(&p->lock, flags);
	arch_thread_init(t, init_thread, 0);
	sched_start(t);
}
