// rseq: restartable sequences (rseq(2)) as Linux has them.  The errno of
// every refused registration and unregistration; the ids the kernel keeps
// in the area (cpu_id after forced migrations, node_id, mm_cid unique
// among running threads); registration kept across fork, dropped by exec
// and not given to new threads; critical sections sent to their abort
// handler when another thread takes the CPU or a signal arrives (the
// handler's frame returns there); and SIGSEGV for every bad descriptor,
// signature, deprecated flag or unmapped area.  musl does not register
// rseq itself, so the program owns the registration of its threads.  The
// same binary passes on Linux 6.3 and later (on 6.1, which has no
// AT_RSEQ_FEATURE_SIZE, the long area's cases expect EINVAL).
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include "testcase.h"
#include "sysutil.h"
#include "cpustat_parse.h"

#ifndef SYS_rseq
#define SYS_rseq 334
#endif
#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#define AT_RSEQ_ALIGN 28
#endif

#define SIG 0x53053053u		// the x86 signature of Linux's selftests and glibc
#define FLAG_UNREGISTER 1
#define CPU_ID_UNINITIALIZED 0xffffffffu

// struct rseq with room for the fields Linux 6.3 added, in a 64-byte
// block: registered with length 32 (the original ABI) or 64.
struct area {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
	uint32_t node_id;
	uint32_t mm_cid;
	uint8_t pad[36];
} __attribute__((aligned(32)));

struct cs_desc {
	uint32_t version;
	uint32_t flags;
	uint64_t start_ip;
	uint64_t post_commit_offset;
	uint64_t abort_ip;
} __attribute__((aligned(32)));

static struct area area0, area1;
static const char *self_path;		// argv[0]
static int cpu_list[CPU_SETSIZE];
static int nr_cpus;
static cpu_set_t initial_mask;

static long sys_rseq(void *area, uint32_t len, int flags, uint32_t sig)
{
	return syscall(SYS_rseq, area, len, flags, sig);
}

static unsigned current_cpu(void)
{
	unsigned cpu = ~0u;

	syscall(SYS_getcpu, &cpu, NULL, NULL);
	return cpu;
}

static void unpin_self(void)
{
	sched_setaffinity(0, sizeof(initial_mask), &initial_mask);
}

static int on_switchyard(void)
{
	return access(CPUSTAT_PATH, R_OK) == 0;
}

// Linux 6.3 and later announce the longer area; 6.1 takes only 32 bytes.
static int long_area_supported(void)
{
	return getauxval(AT_RSEQ_FEATURE_SIZE) >= 28;
}

// The sum over CPUs of one cpustat column, or 0 where there is none.
static uint64_t cpustat_total(const char *name)
{
	static struct cpustat st;
	uint64_t sum = 0;

	if (!cpustat_snapshot(CPUSTAT_PATH, &st))
		return 0;
	for (int f = 0; f < st.nr_fields; f++)
		if (strcmp(st.names[f], name) == 0)
			for (int c = 0; c < st.nr_cpus; c++)
				sum += st.value[c][f];
	return sum;
}

// ---- critical sections ----
//
// Each spins inside its section until the kernel sends it to the abort
// handler (the only way out), and returns the abort handler's address.
// The descriptor sits in .data; the section is the one-instruction loop,
// followed by the signature word and the abort handler.

static __attribute__((noinline)) uint64_t spin_in_cs(struct area *a)
{
	uint64_t abort_ip;

	__asm__ __volatile__(
		".pushsection .data, \"aw\"\n\t"
		".balign 32\n"
		"100:\n\t"
		".long 0, 0\n\t"
		".quad 1f, 2f - 1f, 4f\n\t"
		".popsection\n\t"
		"leaq 100b(%%rip), %%rax\n\t"
		"movq 24(%%rax), %[ab]\n\t"
		"movq %%rax, 8(%[a])\n"
		"1:\n\t"
		"jmp 1b\n"
		"2:\n\t"
		".long 0x53053053\n"
		"4:\n\t"
		: [ab] "=&r"(abort_ip)
		: [a] "r"(a)
		: "rax", "memory");
	return abort_ip;
}

// The same with another word before the abort handler.
static __attribute__((noinline)) void spin_in_cs_bad_signature(struct area *a)
{
	__asm__ __volatile__(
		".pushsection .data, \"aw\"\n\t"
		".balign 32\n"
		"100:\n\t"
		".long 0, 0\n\t"
		".quad 1f, 2f - 1f, 4f\n\t"
		".popsection\n\t"
		"leaq 100b(%%rip), %%rax\n\t"
		"movq %%rax, 8(%[a])\n"
		"1:\n\t"
		"jmp 1b\n"
		"2:\n\t"
		".long 0x53053054\n"
		"4:\n\t"
		:
		: [a] "r"(a)
		: "rax", "memory");
}

// The same with RSEQ_CS_FLAG_NO_RESTART_ON_SIGNAL in the descriptor.
static __attribute__((noinline)) void spin_in_cs_flagged(struct area *a)
{
	__asm__ __volatile__(
		".pushsection .data, \"aw\"\n\t"
		".balign 32\n"
		"100:\n\t"
		".long 0, 2\n\t"
		".quad 1f, 2f - 1f, 4f\n\t"
		".popsection\n\t"
		"leaq 100b(%%rip), %%rax\n\t"
		"movq %%rax, 8(%[a])\n"
		"1:\n\t"
		"jmp 1b\n"
		"2:\n\t"
		".long 0x53053053\n"
		"4:\n\t"
		:
		: [a] "r"(a)
		: "rax", "memory");
}

// A signature word followed by an address usable as an abort handler in
// descriptors built in C (never jumped to: those are refused or stale).
static const uint32_t good_sig_word[2] __attribute__((aligned(8))) = { SIG, 0 };

// ---- registration ----

static void test_register_and_ids(void)
{
	int cpu = cpu_list[nr_cpus - 1];

	memset(&area0, 0xaa, sizeof(area0));
	area0.rseq_cs = 0;
	area0.flags = 0;
	check_ok(pin_self(cpu), "pin");
	if (!check_ok(sys_rseq(&area0, 32, 0, SIG), "register"))
		goto out;
	check(area0.cpu_id == (uint32_t)cpu && area0.cpu_id_start == (uint32_t)cpu,
	      "cpu_id and cpu_id_start are the CPU right after registration");
	check_ok(sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG), "unregister");
	check(area0.cpu_id == CPU_ID_UNINITIALIZED, "cpu_id is -1 after unregistration");
	check(area0.cpu_id_start == 0, "cpu_id_start is 0 after unregistration");
out:
	unpin_self();
}

static void test_register_errors(void)
{
	char *bytes = (char *)&area1;

	check_errno(sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG), EINVAL, "unregister, none registered");
	check_errno(sys_rseq(&area0, 32, 2, SIG), EINVAL, "unknown flag");
	check_errno(sys_rseq(&area0, 32, FLAG_UNREGISTER | 2, SIG), EINVAL, "unregister with unknown flag");
	check_errno(sys_rseq(&area0, 31, 0, SIG), EINVAL, "length 31");
	check_errno(sys_rseq(&area0, 0, 0, SIG), EINVAL, "length 0");
	check_errno(sys_rseq(bytes + 4, 32, 0, SIG), EINVAL, "4-byte aligned");
	check_errno(sys_rseq(bytes + 16, 32, 0, SIG), EINVAL, "16-byte aligned");
	check_errno(sys_rseq(bytes + 16, 64, 0, SIG), EINVAL, "16-byte aligned, length 64");
	check_errno(sys_rseq(NULL, 32, 0, SIG), EFAULT, "NULL");
	check_errno(sys_rseq((void *)0xffff800000000000ul, 32, 0, SIG), EFAULT, "kernel address");
	check_errno(sys_rseq((void *)0x800000000000ul, 32, 0, SIG), EFAULT, "non-canonical address");
	check_errno(sys_rseq((void *)0x7ffffffff000ul, 32, 0, SIG), EFAULT, "area at the user limit");
	if (!check_ok(sys_rseq(&area0, 32, 0, SIG), "register"))
		return;
	check_errno(sys_rseq(&area0, 32, 0, SIG), EBUSY, "same registration again");
	check_errno(sys_rseq(&area0, 32, 0, SIG + 1), EPERM, "again with another signature");
	check_errno(sys_rseq(&area1, 32, 0, SIG), EINVAL, "another area");
	check_errno(sys_rseq(&area0, 64, 0, SIG), EINVAL, "another length");
	check_errno(sys_rseq(&area1, 32, 0, SIG + 1), EINVAL, "another area and signature");
	check_errno(sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG + 1), EPERM, "unregister, wrong signature");
	check_errno(sys_rseq(&area1, 32, FLAG_UNREGISTER, SIG), EINVAL, "unregister, wrong area");
	check_errno(sys_rseq(&area0, 64, FLAG_UNREGISTER, SIG), EINVAL, "unregister, wrong length");
	check_ok(sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG), "unregister");
	check_errno(sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG), EINVAL, "unregister twice");
}

// A descriptor left in the area is cleared by registration.
static void test_register_clears_cs(void)
{
	area0.rseq_cs = 0x1234;
	if (!check_ok(sys_rseq(&area0, 32, 0, SIG), "register"))
		return;
	check(area0.rseq_cs == 0, "rseq_cs cleared by registration");
	check_ok(sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG), "unregister");
}

// The longer area of Linux 6.3: node_id and mm_cid.
static void test_long_area(void)
{
	int supported = long_area_supported();	// getauxval may set errno
	long r = sys_rseq(&area1, 64, 0, SIG);

	if (!supported) {
		check_errno(r, EINVAL, "length 64 before Linux 6.3");
		return;
	}
	if (!check_ok(r, "register 64 bytes"))
		return;
	unsigned cpu = ~0u, node = ~0u;
	syscall(SYS_getcpu, &cpu, &node, NULL);
	check(area1.node_id == node, "node_id is getcpu's node");
	check(area1.mm_cid == 0, "mm_cid of a lone thread is 0");
	check(getauxval(AT_RSEQ_ALIGN) == 32, "AT_RSEQ_ALIGN is 32");
	check_ok(sys_rseq(&area1, 64, FLAG_UNREGISTER, SIG), "unregister");
	check(area1.cpu_id == CPU_ID_UNINITIALIZED && area1.mm_cid == 0, "reset by unregistration");
}

// ---- ids ----

// Forced migrations: after each sched_setaffinity the area names the new
// CPU before the call returns.
static void test_cpu_id_migrations(void)
{
	if (!check_ok(sys_rseq(&area0, 32, 0, SIG), "register"))
		return;
	for (int round = 0; round < 20; round++) {
		int cpu = cpu_list[round % nr_cpus];
		if (!check_ok(pin_self(cpu), "pin"))
			break;
		uint32_t id = __atomic_load_n(&area0.cpu_id, __ATOMIC_RELAXED);
		uint32_t start = __atomic_load_n(&area0.cpu_id_start, __ATOMIC_RELAXED);
		if (id != (uint32_t)cpu || start != (uint32_t)cpu) {
			fail("pinned to %d, area says cpu_id %u cpu_id_start %u", cpu, id, start);
			break;
		}
		if (current_cpu() != (unsigned)cpu) {
			fail("pinned to %d, getcpu says %u", cpu, current_cpu());
			break;
		}
	}
	unpin_self();
	check_ok(sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG), "unregister");
}

// mm_cid: threads running at the same time have distinct ids, below the
// number of threads.
#define CID_THREADS_MAX 64
static atomic_int cid_started, cid_done;
static int cid_nthreads;
static uint32_t cid_seen[CID_THREADS_MAX];

static void *cid_thread(void *arg)
{
	int i = (int)(intptr_t)arg;
	static struct area areas[CID_THREADS_MAX];
	struct area *a = &areas[i];

	pin_self(cpu_list[i]);
	if (sys_rseq(a, 64, 0, SIG) != 0) {
		cid_seen[i] = ~0u;
		atomic_fetch_add(&cid_started, 1);
		atomic_fetch_add(&cid_done, 1);
		return NULL;
	}
	atomic_fetch_add(&cid_started, 1);
	while (atomic_load(&cid_started) < cid_nthreads)
		;
	cid_seen[i] = __atomic_load_n(&a->mm_cid, __ATOMIC_RELAXED);
	atomic_fetch_add(&cid_done, 1);
	while (atomic_load(&cid_done) < cid_nthreads)
		;
	sys_rseq(a, 64, FLAG_UNREGISTER, SIG);
	return NULL;
}

static int cid_round(void)
{
	pthread_t th[CID_THREADS_MAX];

	atomic_store(&cid_started, 0);
	atomic_store(&cid_done, 0);
	for (int i = 0; i < cid_nthreads; i++)
		if (pthread_create(&th[i], NULL, cid_thread, (void *)(intptr_t)i) != 0)
			return fail("pthread_create");
	for (int i = 0; i < cid_nthreads; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < cid_nthreads; i++) {
		if (cid_seen[i] >= (uint32_t)cid_nthreads)
			return 0;
		for (int j = 0; j < i; j++)
			if (cid_seen[i] == cid_seen[j])
				return 0;
	}
	return 1;
}

static void test_mm_cid_unique(void)
{
	if (!long_area_supported()) {
		skip("no mm_cid before Linux 6.3");
		return;
	}
	cid_nthreads = nr_cpus < CID_THREADS_MAX ? nr_cpus : CID_THREADS_MAX;
	// On a loaded Linux host a thread may lose its CPU between the
	// reads: a few tries.
	for (int attempt = 0; attempt < 5; attempt++)
		if (cid_round())
			return;
	fail("mm_cid values of %d running threads not distinct and below %d (first %u %u)",
	     cid_nthreads, cid_nthreads, cid_seen[0], cid_seen[cid_nthreads > 1]);
}

// ---- inheritance ----

static void test_fork_keeps(void)
{
	if (!check_ok(sys_rseq(&area0, 32, 0, SIG), "register"))
		return;
	pid_t pid = fork_child();
	if (pid == 0) {
		if (sys_rseq(&area0, 32, 0, SIG) != -1 || errno != EBUSY)
			_exit(1);
		int cpu = cpu_list[0];
		if (pin_self(cpu) < 0 || area0.cpu_id != (uint32_t)cpu)
			_exit(2);
		if (sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG) != 0)
			_exit(3);
		_exit(0);
	}
	check_child_ok(pid, "child: still registered (1), cpu_id kept current (2), unregisters (3)");
	check_ok(sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG), "unregister in the parent");
}

static long thread_result;

static void *new_thread_fn(void *arg)
{
	static struct area mine;

	(void)arg;
	thread_result = 0;
	if (sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG) != -1 || errno != EINVAL)
		thread_result = 1;	// it must not have the creator's registration
	else if (sys_rseq(&mine, 32, 0, SIG) != 0)
		thread_result = 2;
	else if (mine.cpu_id != current_cpu())
		thread_result = 3;
	else if (sys_rseq(&mine, 32, FLAG_UNREGISTER, SIG) != 0)
		thread_result = 4;
	return NULL;
}

static void test_thread_not_inherited(void)
{
	pthread_t th;

	if (!check_ok(sys_rseq(&area0, 32, 0, SIG), "register"))
		return;
	if (pthread_create(&th, NULL, new_thread_fn, NULL) != 0) {
		fail("pthread_create");
	} else {
		pthread_join(th, NULL);
		if (thread_result)
			fail("new thread: inherited (1), cannot register (2), wrong cpu_id (3), "
			     "cannot unregister (4): %ld", thread_result);
	}
	check_ok(sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG), "unregister");
}

// After exec the new image registers its own area: nothing is left.
static int after_exec(void)
{
	if (sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG) != -1 || errno != EINVAL)
		return 1;
	if (sys_rseq(&area0, 32, 0, SIG) != 0)
		return 2;
	return 0;
}

static void test_exec_clears(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		char *argv[] = { "rseq", "--after-exec", NULL };
		if (sys_rseq(&area0, 32, 0, SIG) != 0)
			_exit(10);
		execv("/proc/self/exe", argv);
		execv(self_path, argv);		// no /proc (a bare Linux guest)
		_exit(11);
	}
	check_child_ok(pid, "exec'd child: still registered (1), cannot register (2), "
		       "setup (10, 11)");
}

// ---- critical sections ----

static void test_preempted_cs_aborts(void)
{
	int cpu = cpu_list[0];
	uint64_t before = cpustat_total("rseq_aborts");

	if (!check_ok(pin_self(cpu), "pin"))
		return;
	pid_t spinner = fork_child();
	if (spinner == 0)
		for (;;)
			;
	if (spinner < 0)
		goto out;
	if (!check_ok(sys_rseq(&area0, 32, 0, SIG), "register"))
		goto out;
	// Another thread wants this CPU: the scheduler's next switch lands
	// the loop in its abort handler.  The loop has no other exit.
	for (int i = 0; i < 3; i++) {
		spin_in_cs(&area0);
		if (area0.rseq_cs != 0) {
			fail("rseq_cs not cleared by the restart");
			break;
		}
	}
	check_ok(sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG), "unregister");
	if (on_switchyard())
		check(cpustat_total("rseq_aborts") - before >= 3, "cpustat counts the aborts");
out:
	if (spinner > 0) {
		kill(spinner, SIGKILL);
		reap(spinner);
	}
	unpin_self();
}

static volatile uint64_t handler_rip;
static volatile int handler_ran;

static void record_rip(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	(void)si;
	handler_rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	handler_ran = 1;
}

static void catch_usr1(void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
}

// A signal that arrives in the section: the handler's frame returns to
// the abort handler.
static void test_signalled_cs_aborts(void)
{
	int ok = 0;

	if (!check_ok(sys_rseq(&area0, 32, 0, SIG), "register"))
		return;
	catch_usr1(record_rip);
	for (int attempt = 0; attempt < 5 && !ok; attempt++) {
		handler_ran = 0;
		pid_t pid = fork_child();
		if (pid == 0) {
			sleep_ms(50);
			kill(getppid(), SIGUSR1);
			_exit(0);
		}
		if (pid < 0)
			break;
		// Left by the signal, or (rarely) by a preemption first.
		uint64_t abort_ip = spin_in_cs(&area0);
		while (!handler_ran)
			abort_ip = spin_in_cs(&area0);
		reap(pid);
		ok = handler_rip == abort_ip;
	}
	signal(SIGUSR1, SIG_DFL);
	install_escape_handlers();
	check(ok, "the handler's saved rip is the abort handler");
	check_ok(sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG), "unregister");
}

// A descriptor the thread has left (ip outside it) is cleared at the next
// signal.
static void test_stale_cs_cleared(void)
{
	static struct cs_desc d;

	d = (struct cs_desc){ 0, 0, 0x1000, 0x10, (uint64_t)&good_sig_word[1] };
	if (!check_ok(sys_rseq(&area0, 32, 0, SIG), "register"))
		return;
	catch_usr1(record_rip);
	area0.rseq_cs = (uint64_t)&d;
	raise(SIGUSR1);
	check(area0.rseq_cs == 0, "rseq_cs cleared");
	signal(SIGUSR1, SIG_DFL);
	check_ok(sys_rseq(&area0, 32, FLAG_UNREGISTER, SIG), "unregister");
}

static void nothing(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
}

// In a child: register, let 'setup' spoil something, then take a signal
// (with a handler, so the kernel builds a frame and looks at rseq); the
// child must die of SIGSEGV.
static void expect_segv(void (*setup)(struct area *), const char *what)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		static struct area a;
		if (sys_rseq(&a, 32, 0, SIG) != 0)
			_exit(10);
		catch_usr1(nothing);
		setup(&a);
		raise(SIGUSR1);
		_exit(0);
	}
	check_killed_by(pid, SIGSEGV, what);
}

static struct cs_desc bad_desc;

static void set_desc(struct area *a, const struct cs_desc *d)
{
	bad_desc = *d;
	a->rseq_cs = (uint64_t)&bad_desc;
}

static void desc_version(struct area *a)
{
	set_desc(a, &(struct cs_desc){ 1, 0, 0x1000, 0x10, (uint64_t)&good_sig_word[1] });
}

static void desc_abort_inside(struct area *a)
{
	uint64_t abort = (uint64_t)&good_sig_word[1];
	set_desc(a, &(struct cs_desc){ 0, 0, abort - 8, 0x10, abort });
}

static void desc_start_kernel(struct area *a)
{
	set_desc(a, &(struct cs_desc){ 0, 0, 0xffff800000001000ul, 0x10, (uint64_t)&good_sig_word[1] });
}

// Past the user limit of 4-level paging (0x7ffffffff000) and of 5-level
// paging, which Linux uses where the CPU has it.
static void desc_end_past_user(struct area *a)
{
	set_desc(a, &(struct cs_desc){ 0, 0, 0x7ffffffff000ul - 0x10, 0x0100000000000000ul,
				       (uint64_t)&good_sig_word[1] });
}

static void desc_wraps(struct area *a)
{
	set_desc(a, &(struct cs_desc){ 0, 0, 0x2000, ~0ul - 0x1000, 0x1000 });
}

static void desc_abort_kernel(struct area *a)
{
	set_desc(a, &(struct cs_desc){ 0, 0, 0x1000, 0x10, 0xffff800000001000ul });
}

static void desc_bad_signature(struct area *a)
{
	set_desc(a, &(struct cs_desc){ 0, 0, 0x1000, 0x10, (uint64_t)&good_sig_word[2] });
}

static void desc_unreadable_signature(struct area *a)
{
	set_desc(a, &(struct cs_desc){ 0, 0, 0x2000, 0x10, 0x1004 });
}

static void desc_ptr_kernel(struct area *a)
{
	a->rseq_cs = 0xffff800000000000ul;
}

static void desc_ptr_unmapped(struct area *a)
{
	a->rseq_cs = 0x1000;
}

static void test_bad_descriptors(void)
{
	expect_segv(desc_version, "version 1");
	expect_segv(desc_abort_inside, "abort_ip inside the section");
	expect_segv(desc_start_kernel, "start_ip in the kernel half");
	expect_segv(desc_end_past_user, "section ends past the user limit");
	expect_segv(desc_wraps, "section wraps around");
	expect_segv(desc_abort_kernel, "abort_ip in the kernel half");
	expect_segv(desc_bad_signature, "wrong signature before abort_ip");
	expect_segv(desc_unreadable_signature, "signature unreadable");
	expect_segv(desc_ptr_kernel, "rseq_cs in the kernel half");
	expect_segv(desc_ptr_unmapped, "rseq_cs unmapped");
}

// Registered, then the area's page goes away: the next signal kills; or
// it becomes read-only: the next write of the ids kills.
static void test_area_unmapped(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED || sys_rseq(p, 32, 0, SIG) != 0)
			_exit(10);
		munmap(p, 4096);
		catch_usr1(nothing);
		raise(SIGUSR1);
		_exit(0);
	}
	check_killed_by(pid, SIGSEGV, "area unmapped");
	if (nr_cpus < 2)
		return;
	// Read-only: the write of the new CPU after a migration kills.
	pid = fork_child();
	if (pid == 0) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED || pin_self(cpu_list[0]) < 0 || sys_rseq(p, 32, 0, SIG) != 0)
			_exit(10);
		mprotect(p, 4096, PROT_READ);
		pin_self(cpu_list[1]);
		_exit(0);
	}
	check_killed_by(pid, SIGSEGV, "area read-only, then migrated");
}

// Inside a section: a wrong signature before the abort handler, and the
// deprecated NO_RESTART flags (in the descriptor or the area), kill.
static void test_section_faults(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		static struct area a;
		if (sys_rseq(&a, 32, 0, SIG) != 0)
			_exit(10);
		catch_usr1(nothing);
		struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
		setitimer(ITIMER_REAL, &it, NULL);
		spin_in_cs_bad_signature(&a);
		_exit(0);
	}
	check_killed_by(pid, SIGSEGV, "wrong signature, in the section");
	pid = fork_child();
	if (pid == 0) {
		static struct area a;
		if (sys_rseq(&a, 32, 0, SIG) != 0)
			_exit(10);
		catch_usr1(nothing);
		struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
		setitimer(ITIMER_REAL, &it, NULL);
		spin_in_cs_flagged(&a);
		_exit(0);
	}
	check_killed_by(pid, SIGSEGV, "NO_RESTART flag in the descriptor");
	pid = fork_child();
	if (pid == 0) {
		static struct area a;
		if (sys_rseq(&a, 32, 0, SIG) != 0)
			_exit(10);
		a.flags = 1;	// RSEQ_CS_FLAG_NO_RESTART_ON_PREEMPT
		catch_usr1(nothing);
		struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
		setitimer(ITIMER_REAL, &it, NULL);
		spin_in_cs(&a);
		_exit(0);
	}
	check_killed_by(pid, SIGSEGV, "NO_RESTART flag in the area");
}

static const struct test_case cases[] = {
	{ "register_sets_ids_unregister_resets", test_register_and_ids },
	{ "register_errnos", test_register_errors },
	{ "register_clears_stale_rseq_cs", test_register_clears_cs },
	{ "long_area_node_id_mm_cid", test_long_area },
	{ "cpu_id_after_forced_migrations", test_cpu_id_migrations },
	{ "mm_cid_unique_among_running_threads", test_mm_cid_unique },
	{ "fork_keeps_registration", test_fork_keeps },
	{ "new_thread_starts_unregistered", test_thread_not_inherited },
	{ "exec_drops_registration", test_exec_clears },
	{ "preempted_section_aborts", test_preempted_cs_aborts },
	{ "signalled_section_returns_to_abort", test_signalled_cs_aborts },
	{ "stale_rseq_cs_cleared", test_stale_cs_cleared },
	{ "bad_descriptors_sigsegv", test_bad_descriptors },
	{ "area_unmapped_or_read_only_sigsegv", test_area_unmapped },
	{ "section_signature_and_flags_sigsegv", test_section_faults },
};

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--after-exec"))
		return after_exec();
	self_path = argv[0];
	sched_getaffinity(0, sizeof(initial_mask), &initial_mask);
	nr_cpus = usable_cpus(cpu_list);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
