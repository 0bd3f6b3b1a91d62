// membarrier: membarrier(2) as Linux 6.x has it.  The errno of every
// command and flag (unregistered and after each registration), QUERY's
// mask against what the commands accept, GET_REGISTRATIONS, registration
// across threads, fork and exec; the store-buffering pattern (one side
// with only a compiler barrier, the other with membarrier) never shows
// the forbidden outcome; a function rewritten by one thread runs new on
// another CPU after SYNC_CORE; PRIVATE_EXPEDITED_RSEQ restarts another
// thread's rseq critical section (where offered).  On Switchyard, the per-CPU counters show
// that no membarrier IPI reaches a CPU that runs an unrelated process or
// is idle, that SYNC_CORE serializes the targets, and that switching into
// a SYNC_CORE process serializes while an unregistered one pays nothing.
//
// Registrations are inherited by fork, so every case that registers does
// it in a child; the program itself stays unregistered.
//
//	membarrier                    the KTAP cases
//	membarrier --sb-control [S]   the store-buffering pattern for S seconds
//	                              (default 5) with membarrier and with
//	                              nothing in its place, printing how often
//	                              the forbidden outcome appeared: it does
//	                              without the barrier, which shows the
//	                              test can fail
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpustat_parse.h"
#include "membarrier_abi.h"
#include "sysutil.h"
#include "testcase.h"

#define ALL_COMMANDS		0x3ff

static int cpu_list[CPU_SETSIZE];
static int nr_cpus;
static int on_switchyard;
static const char *self_path;

// The raw call, with every argument a full register, so the kernel's
// truncation to int / unsigned int is tested too.
static long mb(long cmd, long flags, long cpu_id)
{
	return syscall(SYS_membarrier, cmd, flags, cpu_id);
}

// The result as the tables write it: the value, or -errno.
static long mb_result(long cmd, long flags, long cpu_id)
{
	long r = mb(cmd, flags, cpu_id);

	return r < 0 ? -errno : r;
}

static int query_mask(void)
{
	return (int)mb(CMD_QUERY, 0, 0);
}

static int rseq_offered(void)
{
	return (query_mask() & CMD_RSEQ) != 0;
}

// ---- the errno matrix ----

// One call and what it must give: 'want' where the kernel offers the RSEQ
// commands, 'want_no_rseq' where it does not (a Linux built without
// CONFIG_RSEQ).
struct step {
	long cmd, flags, cpu_id;
	long want, want_no_rseq;
};

#define SAME(cmd, flags, cpu, want)	{ cmd, flags, cpu, want, want }

// Unregistered: unknown commands and flags, private commands refused.
static const struct step unregistered[] = {
	SAME(3, 0, 0, -EINVAL), SAME(5, 0, 0, -EINVAL), SAME(6, 0, 0, -EINVAL),
	SAME(1 << 10, 0, 0, -EINVAL), SAME(1 << 11, 0, 0, -EINVAL),
	SAME(1 << 30, 0, 0, -EINVAL), SAME(-1, 0, 0, -EINVAL),
	SAME(INT_MIN, 0, 0, -EINVAL), SAME(INT_MAX, 0, 0, -EINVAL),
	SAME(3, 1, 0, -EINVAL),
	// Every command but the RSEQ one refuses every flag.
	SAME(CMD_QUERY, 1, 0, -EINVAL), SAME(CMD_QUERY, 2, 0, -EINVAL),
	SAME(CMD_GLOBAL, FLAG_CPU, 0, -EINVAL), SAME(CMD_GLOBAL_EXP, FLAG_CPU, 0, -EINVAL),
	SAME(CMD_REG_GLOBAL_EXP, FLAG_CPU, 0, -EINVAL),
	SAME(CMD_PRIVATE_EXP, FLAG_CPU, 0, -EINVAL),
	SAME(CMD_REG_PRIVATE_EXP, FLAG_CPU, 0, -EINVAL),
	SAME(CMD_SYNC_CORE, FLAG_CPU, 0, -EINVAL), SAME(CMD_REG_SYNC_CORE, FLAG_CPU, 0, -EINVAL),
	SAME(CMD_REG_RSEQ, FLAG_CPU, 0, -EINVAL), SAME(CMD_GET_REG, FLAG_CPU, 0, -EINVAL),
	SAME(CMD_PRIVATE_EXP, 0x80000000L, 0, -EINVAL),
	// The RSEQ command takes FLAG_CPU and nothing else.
	SAME(CMD_RSEQ, 2, 0, -EINVAL), SAME(CMD_RSEQ, 3, 0, -EINVAL),
	SAME(CMD_RSEQ, 0x80000000L, 0, -EINVAL),
	// Private commands need a registration.
	SAME(CMD_PRIVATE_EXP, 0, 0, -EPERM), SAME(CMD_SYNC_CORE, 0, 0, -EPERM),
	{ CMD_RSEQ, 0, 0, -EPERM, -EINVAL }, { CMD_RSEQ, FLAG_CPU, 0, -EPERM, -EINVAL },
	{ CMD_RSEQ, FLAG_CPU, 9999, -EPERM, -EINVAL },
	// The global ones do not.
	SAME(CMD_GLOBAL, 0, 0, 0), SAME(CMD_GLOBAL_EXP, 0, 0, 0), SAME(CMD_GET_REG, 0, 0, 0),
	// cmd is an int and flags an unsigned int: the upper halves of the
	// registers do not count.
	SAME((1L << 32) | CMD_GET_REG, 0, 0, 0), SAME(CMD_GET_REG, 1L << 32, 0, 0),
	SAME((1L << 32) | 3, 0, 0, -EINVAL), SAME(CMD_PRIVATE_EXP, 1L << 32, 0, -EPERM),
	// The third argument only counts with FLAG_CPU.
	SAME(CMD_GLOBAL_EXP, 0, -7, 0),
};

// SYNC_CORE first: it also marks the plain private registration begun
// (GET_REGISTRATIONS shows both) but does not make PRIVATE_EXPEDITED
// usable; registering that too does.
static const struct step sync_core_first[] = {
	SAME(CMD_REG_SYNC_CORE, 0, 0, 0),
	SAME(CMD_GET_REG, 0, 0, CMD_REG_SYNC_CORE | CMD_REG_PRIVATE_EXP),
	SAME(CMD_SYNC_CORE, 0, 0, 0), SAME(CMD_PRIVATE_EXP, 0, 0, -EPERM),
	SAME(CMD_SYNC_CORE, FLAG_CPU, 0, -EINVAL),
	SAME(CMD_REG_SYNC_CORE, 0, 0, 0),
	SAME(CMD_REG_PRIVATE_EXP, 0, 0, 0),
	SAME(CMD_GET_REG, 0, 0, CMD_REG_SYNC_CORE | CMD_REG_PRIVATE_EXP),
	SAME(CMD_PRIVATE_EXP, 0, 0, 0), SAME(CMD_SYNC_CORE, 0, 0, 0),
	SAME(CMD_GLOBAL_EXP, 0, 0, 0),
};

static const struct step private_first[] = {
	SAME(CMD_REG_PRIVATE_EXP, 0, 0, 0), SAME(CMD_GET_REG, 0, 0, CMD_REG_PRIVATE_EXP),
	SAME(CMD_PRIVATE_EXP, 0, 0, 0), SAME(CMD_SYNC_CORE, 0, 0, -EPERM),
	{ CMD_RSEQ, 0, 0, -EPERM, -EINVAL }, SAME(CMD_REG_PRIVATE_EXP, 0, 0, 0),
	SAME(CMD_PRIVATE_EXP, 0, 0, 0), SAME(CMD_GET_REG, 0, 0, CMD_REG_PRIVATE_EXP),
};

static const struct step global_expedited[] = {
	SAME(CMD_REG_GLOBAL_EXP, 0, 0, 0), SAME(CMD_GET_REG, 0, 0, CMD_REG_GLOBAL_EXP),
	SAME(CMD_GLOBAL_EXP, 0, 0, 0), SAME(CMD_PRIVATE_EXP, 0, 0, -EPERM),
	SAME(CMD_REG_GLOBAL_EXP, 0, 0, 0), SAME(CMD_GLOBAL, 0, 0, 0),
	SAME(CMD_GET_REG, 0, 0, CMD_REG_GLOBAL_EXP),
};

// RSEQ: FLAG_CPU with any CPU number (one that does not exist, or a
// negative one meaning all) succeeds once registered.
static const struct step rseq_steps[] = {
	{ CMD_REG_RSEQ, 0, 0, 0, -EINVAL },
	{ CMD_GET_REG, 0, 0, CMD_REG_RSEQ | CMD_REG_PRIVATE_EXP, 0 },
	{ CMD_RSEQ, 0, 0, 0, -EINVAL }, { CMD_RSEQ, FLAG_CPU, 0, 0, -EINVAL },
	{ CMD_RSEQ, FLAG_CPU, 9999, 0, -EINVAL }, { CMD_RSEQ, FLAG_CPU, -1, 0, -EINVAL },
	{ CMD_RSEQ, FLAG_CPU, INT_MAX, 0, -EINVAL }, { CMD_RSEQ, 0, 12345, 0, -EINVAL },
	SAME(CMD_RSEQ, 2, 0, -EINVAL), SAME(CMD_PRIVATE_EXP, 0, 0, -EPERM),
	SAME(CMD_SYNC_CORE, 0, 0, -EPERM),
};

// Runs the steps in a child (registrations stay there); exit code 0 or
// the number of the first step that failed (its details on stdout).
static void run_steps(const char *name, const struct step *steps, int n)
{
	int rseq = rseq_offered();
	pid_t pid = fork_child();

	if (pid == 0) {
		for (int i = 0; i < n; i++) {
			const struct step *s = &steps[i];
			long want = rseq ? s->want : s->want_no_rseq;
			long got = mb_result(s->cmd, s->flags, s->cpu_id);

			if (got != want) {
				printf("# %s step %d: membarrier(%#lx, %#lx, %ld) = %ld, want %ld\n",
				       name, i, s->cmd, s->flags, s->cpu_id, got, want);
				fflush(stdout);
				_exit(i + 1 > 255 ? 255 : i + 1);
			}
		}
		_exit(0);
	}
	check_child_ok(pid, name);
}

#define RUN_STEPS(name, table) run_steps(name, table, (int)(sizeof(table) / sizeof(table[0])))

static void test_errno_unregistered(void)	{ RUN_STEPS("unregistered", unregistered); }
static void test_errno_sync_core(void)		{ RUN_STEPS("sync_core_first", sync_core_first); }
static void test_errno_private(void)		{ RUN_STEPS("private_first", private_first); }
static void test_errno_global_exp(void)		{ RUN_STEPS("global_expedited", global_expedited); }
static void test_errno_rseq(void)		{ RUN_STEPS("rseq", rseq_steps); }

// QUERY names exactly the commands the kernel accepts: each of the ten
// command bits is in the mask if and only if that command is not EINVAL.
static void test_query_mask(void)
{
	int mask = query_mask();
	pid_t pid;

	ktap_diag("QUERY = %#x", (unsigned)mask);
	if (mask <= 0 || (mask & ~ALL_COMMANDS)) {
		fail("QUERY returned %#x", (unsigned)mask);
		return;
	}
	if (on_switchyard && mask != ALL_COMMANDS) {
		fail("QUERY %#x is not every command", (unsigned)mask);
		return;
	}
	pid = fork_child();
	if (pid == 0) {
		for (int bit = 0; bit < 10; bit++) {
			long r = mb(1L << bit, 0, 0);
			int refused = r < 0 && errno == EINVAL;

			if (refused == ((mask >> bit) & 1)) {
				printf("# command %#x: %ld (errno %d), QUERY says %s\n", 1 << bit, r,
				       r < 0 ? errno : 0, (mask >> bit) & 1 ? "offered" : "not offered");
				fflush(stdout);
				_exit(bit + 1);
			}
		}
		_exit(0);
	}
	check_child_ok(pid, "commands against QUERY");
}

// ---- registration across threads, fork and exec ----

static void *register_private(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)mb(CMD_REG_PRIVATE_EXP, 0, 0);
}

static void test_registration_shared_by_threads(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		pthread_t t;
		void *r;

		if (mb(CMD_PRIVATE_EXP, 0, 0) != -1 || errno != EPERM)
			_exit(1);
		if (pthread_create(&t, NULL, register_private, NULL) != 0)
			_exit(2);
		pthread_join(t, &r);
		if (r != 0)
			_exit(3);
		_exit(mb(CMD_PRIVATE_EXP, 0, 0) == 0 ? 0 : 4);
	}
	check_child_ok(pid, "a thread's registration serves the process");
}

static void test_registration_survives_fork(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		int want = CMD_REG_PRIVATE_EXP | CMD_REG_SYNC_CORE | CMD_REG_GLOBAL_EXP;
		int status;

		if (mb(CMD_REG_PRIVATE_EXP, 0, 0) || mb(CMD_REG_SYNC_CORE, 0, 0) ||
		    mb(CMD_REG_GLOBAL_EXP, 0, 0))
			_exit(1);
		pid_t grandchild = fork();
		if (grandchild == 0) {
			if (mb(CMD_GET_REG, 0, 0) != want)
				_exit(1);
			if (mb(CMD_PRIVATE_EXP, 0, 0) || mb(CMD_SYNC_CORE, 0, 0) ||
			    mb(CMD_GLOBAL_EXP, 0, 0))
				_exit(2);
			_exit(0);
		}
		if (grandchild < 0 || waitpid(grandchild, &status, 0) != grandchild)
			_exit(3);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			_exit(10 + (WIFEXITED(status) ? WEXITSTATUS(status) : 9));
		_exit(0);
	}
	check_child_ok(pid, "registered child forks");
	// And the program itself was never registered.
	check_errno(mb(CMD_PRIVATE_EXP, 0, 0), EPERM, "parent of the registered child");
}

// The exec'd image (--exec-check) must start unregistered.
static int exec_check(void)
{
	if (mb(CMD_GET_REG, 0, 0) != 0)
		return 1;
	if (mb(CMD_PRIVATE_EXP, 0, 0) != -1 || errno != EPERM)
		return 2;
	if (mb(CMD_SYNC_CORE, 0, 0) != -1 || errno != EPERM)
		return 3;
	return 0;
}

static void test_registration_cleared_by_exec(void)
{
	pid_t pid = fork_child();

	if (pid == 0) {
		char *argv[] = { (char *)self_path, "--exec-check", NULL };

		if (mb(CMD_REG_PRIVATE_EXP, 0, 0) || mb(CMD_REG_SYNC_CORE, 0, 0) ||
		    mb(CMD_REG_GLOBAL_EXP, 0, 0))
			_exit(20);
		execv("/proc/self/exe", argv);
		execv(self_path, argv);
		_exit(21);
	}
	check_child_ok(pid, "registered child execs itself");
}

// ---- store buffering ----
//
// x = y = 0; the fast side does x = 1, a compiler barrier, r1 = y; the
// slow side y = 1, the barrier under test, r2 = x.  r1 == 0 && r2 == 0
// means both loads passed the other side's store: the hardware allows it
// unless the slow side's barrier reaches the fast side.

enum sb_barrier { SB_NONE, SB_PRIVATE, SB_SYNC_CORE, SB_GLOBAL_EXP, SB_GLOBAL };

struct sb_shared {
	volatile int x, y;
	volatile int r1;
	volatile long go;	// iteration the fast side may run
	volatile long done;	// iteration the fast side finished
	volatile int quit;
	int cpu;
};

static struct sb_shared sb;

static void spin_a_little(unsigned n)
{
	for (volatile unsigned i = 0; i < n; i++)
		;
}

static void *sb_fast(void *arg)
{
	long seen = 0;

	(void)arg;
	pin_self(sb.cpu);
	while (!sb.quit) {
		long go = sb.go;
		if (go == seen)
			continue;
		seen = go;
		spin_a_little((unsigned)go & 7);
		sb.x = 1;
		__asm__ volatile("" ::: "memory");
		sb.r1 = sb.y;
		__atomic_store_n(&sb.done, go, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void slow_barrier(enum sb_barrier kind)
{
	switch (kind) {
	case SB_NONE:		__asm__ volatile("" ::: "memory"); break;
	case SB_PRIVATE:	mb(CMD_PRIVATE_EXP, 0, 0); break;
	case SB_SYNC_CORE:	mb(CMD_SYNC_CORE, 0, 0); break;
	case SB_GLOBAL_EXP:	mb(CMD_GLOBAL_EXP, 0, 0); break;
	case SB_GLOBAL:		mb(CMD_GLOBAL, 0, 0); break;
	}
}

// Runs the pattern for up to 'seconds' or 'max' iterations on two CPUs;
// returns how many iterations showed r1 == r2 == 0 (-1 if it could not
// run), and the iteration count in *runs.
static long sb_run(enum sb_barrier kind, double seconds, long max, long *runs)
{
	pthread_t fast;
	long forbidden = 0, i;
	long long end = now_ns(CLOCK_MONOTONIC) + (long long)(seconds * 1e9);

	memset(&sb, 0, sizeof(sb));
	sb.cpu = cpu_list[1];
	if (pin_self(cpu_list[0]) != 0 || pthread_create(&fast, NULL, sb_fast, NULL) != 0)
		return -1;
	for (i = 1; i <= max && now_ns(CLOCK_MONOTONIC) < end; i++) {
		sb.x = 0;
		sb.y = 0;
		sb.r1 = -1;
		__atomic_store_n(&sb.go, i, __ATOMIC_SEQ_CST);
		spin_a_little((unsigned)(i >> 3) & 7);
		sb.y = 1;
		slow_barrier(kind);
		int r2 = sb.x;
		while (__atomic_load_n(&sb.done, __ATOMIC_ACQUIRE) != i)
			;
		if (sb.r1 == 0 && r2 == 0)
			forbidden++;
	}
	sb.quit = 1;
	pthread_join(fast, NULL);
	*runs = i - 1;
	return forbidden;
}

static void sb_case(enum sb_barrier kind, int reg_cmd, double seconds, long max, const char *what)
{
	pid_t pid;

	if (nr_cpus < 2) {
		skip("needs two CPUs");
		return;
	}
	pid = fork_child();
	if (pid == 0) {
		long runs = 0, bad;

		if (reg_cmd && mb(reg_cmd, 0, 0) != 0)
			_exit(2);
		bad = sb_run(kind, seconds, max, &runs);
		printf("# %s: %ld iterations, %ld with r1 == r2 == 0\n", what, runs, bad);
		fflush(stdout);
		_exit(bad < 0 ? 3 : bad > 0 ? 1 : 0);
	}
	check_child_ok(pid, what);
}

static void test_sb_private(void)
{
	sb_case(SB_PRIVATE, CMD_REG_PRIVATE_EXP, 6.0, 1000000, "PRIVATE_EXPEDITED");
}

static void test_sb_sync_core(void)
{
	sb_case(SB_SYNC_CORE, CMD_REG_SYNC_CORE, 3.0, 1000000, "PRIVATE_EXPEDITED_SYNC_CORE");
}

static void test_sb_global_expedited(void)
{
	sb_case(SB_GLOBAL_EXP, CMD_REG_GLOBAL_EXP, 3.0, 1000000, "GLOBAL_EXPEDITED");
}

static void test_sb_global(void)
{
	sb_case(SB_GLOBAL, 0, 3.0, 300, "GLOBAL");
}

// --sb-control: the same with and without the barrier, counts printed.
static int sb_control(double seconds)
{
	long runs, bad;

	if (nr_cpus < 2) {
		printf("sb-control: needs two CPUs\n");
		return 2;
	}
	if (mb(CMD_REG_PRIVATE_EXP, 0, 0) != 0)
		perror("sb-control: register");
	bad = sb_run(SB_NONE, seconds, LONG_MAX, &runs);
	printf("sb-control: no barrier: %ld iterations, %ld with r1 == r2 == 0\n", runs, bad);
	bad = sb_run(SB_PRIVATE, seconds, LONG_MAX, &runs);
	printf("sb-control: PRIVATE_EXPEDITED: %ld iterations, %ld with r1 == r2 == 0\n", runs, bad);
	return 0;
}

// ---- SYNC_CORE and cross-modifying code ----
//
// The writer rewrites "mov $N, %eax; ret" with a new N while the runner
// on another CPU waits, issues SYNC_CORE, then lets it run the function:
// it must return the new N.  Between rounds the runner calls the
// function many times, so the old code is as hot as it gets.

struct xmc_shared {
	volatile unsigned char *code;
	volatile int gen;		// what the function should return now
	volatile int seen;		// the runner checked this generation
	volatile int bad;		// first wrong value seen
	int cpu;
};

static struct xmc_shared xmc;

static void *xmc_runner(void *arg)
{
	int (*fn)(void) = (int (*)(void))(uintptr_t)xmc.code;
	int last = 0;

	(void)arg;
	pin_self(xmc.cpu);
	for (;;) {
		int gen = __atomic_load_n(&xmc.gen, __ATOMIC_ACQUIRE);
		if (gen < 0)
			break;
		if (gen == last)
			continue;
		int got = fn();
		if (got != gen && !xmc.bad)
			xmc.bad = got ? got : -1;
		for (int i = 0; i < 50; i++)
			got = fn();
		last = gen;
		__atomic_store_n(&xmc.seen, gen, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void write_function(volatile unsigned char *code, int value)
{
	code[0] = 0xb8;				// mov $imm32, %eax
	memcpy((unsigned char *)code + 1, &value, 4);
	code[5] = 0xc3;				// ret
}

static void test_sync_core_cross_modifying(void)
{
	pid_t pid;

	if (nr_cpus < 2) {
		skip("needs two CPUs");
		return;
	}
	pid = fork_child();
	if (pid == 0) {
		pthread_t t;
		int rounds = 2000;
		void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (page == MAP_FAILED)
			_exit(2);
		if (mb(CMD_REG_SYNC_CORE, 0, 0) != 0)
			_exit(3);
		memset(&xmc, 0, sizeof(xmc));
		xmc.code = page;
		xmc.cpu = cpu_list[1];
		write_function(xmc.code, 0);
		pin_self(cpu_list[0]);
		if (pthread_create(&t, NULL, xmc_runner, NULL) != 0)
			_exit(4);
		for (int g = 1; g <= rounds && !xmc.bad; g++) {
			write_function(xmc.code, g);
			if (mb(CMD_SYNC_CORE, 0, 0) != 0)
				_exit(5);
			__atomic_store_n(&xmc.gen, g, __ATOMIC_RELEASE);
			while (__atomic_load_n(&xmc.seen, __ATOMIC_ACQUIRE) != g)
				;
		}
		__atomic_store_n(&xmc.gen, -1, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		if (xmc.bad) {
			printf("# the runner got %d after a rewrite\n", xmc.bad);
			fflush(stdout);
			_exit(1);
		}
		_exit(0);
	}
	check_child_ok(pid, "rewrite, SYNC_CORE, run on the other CPU");
}

// ---- who gets the IPIs (Switchyard's counters) ----

static struct cpustat before, after;

static int field(const struct cpustat *st, const char *name)
{
	for (int i = 0; i < st->nr_fields; i++)
		if (strcmp(st->names[i], name) == 0)
			return i;
	return -1;
}

// The change of 'name' on 'cpu' between the two snapshots.
static long long delta(const char *name, int cpu)
{
	int f = field(&before, name);

	for (int r = 0; r < before.nr_cpus && f >= 0; r++)
		if ((int)before.value[r][0] == cpu && (int)after.value[r][0] == cpu)
			return (long long)(after.value[r][f] - before.value[r][f]);
	return -1;
}

static int counters_usable(int cpus_needed)
{
	if (!on_switchyard) {
		skip("Switchyard's counters");
		return 0;
	}
	if (nr_cpus < cpus_needed) {
		skip("needs more CPUs");
		return 0;
	}
	return 1;
}

static volatile int spin_stop;

static void *spin_on(void *arg)
{
	pin_self((int)(intptr_t)arg);
	while (!spin_stop)
		;
	return NULL;
}

// An unrelated process spinning on 'cpu' until killed.
static pid_t start_spinner(int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		pin_self(cpu);
		alarm(CHILD_TIMEOUT);
		for (;;)
			;
	}
	sleep_ms(50);
	return pid;
}

static void stop(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

// Calls 'cmd' n times between two snapshots of the per-CPU counters in
// 'path'; 1 if all went well.
static int calls_between_snapshots_of(const char *path, long cmd, int n)
{
	int ok = cpustat_snapshot(path, &before);

	for (int i = 0; ok && i < n; i++)
		ok = mb(cmd, 0, 0) == 0;
	return cpustat_snapshot(path, &after) && ok;
}

static int calls_between_snapshots(long cmd, int n)
{
	return calls_between_snapshots_of(CPUSTAT_PATH, cmd, n);
}

// In a child: the caller pinned to the first CPU and registered with
// 'reg_cmd', a thread of its own spinning on the second (stopped with
// spin_stop).  0, or the child's exit code for what failed.
static int start_busy_sibling(long reg_cmd, pthread_t *t)
{
	pin_self(cpu_list[0]);
	if (mb(reg_cmd, 0, 0))
		return 2;
	spin_stop = 0;
	if (pthread_create(t, NULL, spin_on, (void *)(intptr_t)cpu_list[1]) != 0)
		return 3;
	sleep_ms(50);
	return 0;
}

// The caller on the first CPU, an unrelated process busy on the second
// (and any further CPUs idle): expedited commands send that CPU nothing.
// A thread of the caller's own on the second CPU gets every one.
static void test_ipis_spare_unrelated_cpu(void)
{
	pid_t pid;

	if (!counters_usable(2))
		return;
	pid = fork_child();
	if (pid == 0) {
		int n = 200, code = 0;
		pid_t other = start_spinner(cpu_list[1]);

		pin_self(cpu_list[0]);
		if (mb(CMD_REG_PRIVATE_EXP, 0, 0) || mb(CMD_REG_SYNC_CORE, 0, 0))
			_exit(2);
		long cmds[] = { CMD_PRIVATE_EXP, CMD_SYNC_CORE, CMD_GLOBAL_EXP };

		for (unsigned i = 0; !code && i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			long cmd = cmds[i];

			if (!calls_between_snapshots(cmd, n))
				code = 3;
			for (int c = 1; !code && c < nr_cpus; c++) {
				long long got = delta("mb_ipi_recv", cpu_list[c]);
				if (got != 0) {
					printf("# command %#lx: cpu %d (%s) got %lld membarrier IPIs\n", cmd,
					       cpu_list[c], c == 1 ? "unrelated process" : "idle", got);
					code = 4;
				}
			}
		}
		stop(other);
		// Our own thread there instead: each call reaches it.
		pthread_t t;
		spin_stop = 0;
		if (!code && pthread_create(&t, NULL, spin_on, (void *)(intptr_t)cpu_list[1]) == 0) {
			sleep_ms(50);
			if (!calls_between_snapshots(CMD_PRIVATE_EXP, n))
				code = 5;
			else if (delta("mb_ipi_recv", cpu_list[1]) < n) {
				printf("# own thread's cpu got %lld of %d IPIs\n",
				       delta("mb_ipi_recv", cpu_list[1]), n);
				code = 6;
			} else if (delta("mb_ipi_sent", cpu_list[0]) < n) {
				code = 7;
			}
			spin_stop = 1;
			pthread_join(t, NULL);
		}
		fflush(stdout);
		_exit(code);
	}
	check_child_ok(pid, "IPI counts");
}

// Nothing of ours runs elsewhere (our second thread sleeps): no CPU gets
// an IPI, idle CPUs stay asleep, and GLOBAL does not wait for them.
static void test_idle_cpus_not_woken(void)
{
	pid_t pid;

	if (!counters_usable(2))
		return;
	pid = fork_child();
	if (pid == 0) {
		int code = 0;
		long cmds[] = { CMD_PRIVATE_EXP, CMD_SYNC_CORE, CMD_GLOBAL_EXP, CMD_GLOBAL };

		pin_self(cpu_list[0]);
		if (mb(CMD_REG_PRIVATE_EXP, 0, 0) || mb(CMD_REG_SYNC_CORE, 0, 0) ||
		    mb(CMD_REG_GLOBAL_EXP, 0, 0))
			_exit(2);
		for (unsigned i = 0; !code && i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			if (!calls_between_snapshots(cmds[i], cmds[i] == CMD_GLOBAL ? 20 : 200))
				code = 3;
			for (int c = 0; !code && c < nr_cpus; c++)
				if (delta("mb_ipi_recv", cpu_list[c]) != 0) {
					printf("# command %#lx: cpu %d got %lld membarrier IPIs\n", cmds[i],
					       cpu_list[c], delta("mb_ipi_recv", cpu_list[c]));
					code = 4;
				}
		}
		fflush(stdout);
		_exit(code);
	}
	check_child_ok(pid, "idle CPUs");
}

// /proc/switchyard/mbstat times every call that sent IPIs: n calls to
// our own busy thread are n round trips on the caller's CPU and n
// handlers on the target's, with cycles counted and a largest one that
// is at least their mean.
static void test_mbstat_counts(void)
{
	pid_t pid;

	if (!counters_usable(2))
		return;
	pid = fork_child();
	if (pid == 0) {
		int n = 200, code;
		pthread_t t;

		code = start_busy_sibling(CMD_REG_PRIVATE_EXP, &t);
		if (code)
			_exit(code);
		int ok = calls_between_snapshots_of("/proc/switchyard/mbstat", CMD_PRIVATE_EXP, n);
		spin_stop = 1;
		pthread_join(t, NULL);
		long long rts = delta("rt_count", cpu_list[0]);
		long long rt_cycles = delta("rt_cycles", cpu_list[0]);
		long long handlers = delta("ipi_count", cpu_list[1]);
		int max = field(&after, "rt_max");
		unsigned long long rt_max = 0;
		for (int r = 0; max >= 0 && r < after.nr_cpus; r++)
			if ((int)after.value[r][0] == cpu_list[0])
				rt_max = after.value[r][max];
		if (!ok)
			code = 4;
		else if (rts < n || handlers < n || rt_cycles <= 0 || delta("ipi_cycles", cpu_list[1]) < 0) {
			printf("# mbstat: %lld round trips, %lld cycles, %lld handlers for %d calls\n",
			       rts, rt_cycles, handlers, n);
			code = 5;
		} else if (rt_max < (unsigned long long)(rt_cycles / rts)) {
			printf("# mbstat: largest round trip %llu below the mean %lld\n", rt_max,
			       rt_cycles / rts);
			code = 6;
		}
		fflush(stdout);
		_exit(code);
	}
	check_child_ok(pid, "mbstat counts round trips");
}

// SYNC_CORE serializes the caller and the target CPU each time.
static void test_sync_core_counts(void)
{
	pid_t pid;

	if (!counters_usable(2))
		return;
	pid = fork_child();
	if (pid == 0) {
		int n = 100, code;
		pthread_t t;

		code = start_busy_sibling(CMD_REG_SYNC_CORE, &t);
		if (code)
			_exit(code);
		if (!calls_between_snapshots(CMD_SYNC_CORE, n))
			code = 4;
		else if (delta("mb_sync_core", cpu_list[0]) < n || delta("mb_sync_core", cpu_list[1]) < n) {
			printf("# serializations: caller %lld, target %lld, of %d calls\n",
			       delta("mb_sync_core", cpu_list[0]), delta("mb_sync_core", cpu_list[1]), n);
			code = 5;
		}
		spin_stop = 1;
		pthread_join(t, NULL);
		fflush(stdout);
		_exit(code);
	}
	check_child_ok(pid, "SYNC_CORE serializations");
}

// A thread on an otherwise idle CPU that sleeps and wakes n times: the
// CPU switches from idle into its address space each time.  Registered
// for SYNC_CORE, each of those switches serializes; unregistered, none.
static int sleeper_serializations(int registered, int n, long long *count)
{
	int go[2];
	char c = 0;

	if (pipe(go) < 0)
		return 0;
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		pin_self(cpu_list[1]);
		if (registered && mb(CMD_REG_SYNC_CORE, 0, 0) != 0)
			_exit(2);
		// Its wake-ups start once the parent has its snapshot: a
		// sleep of its own could end before that on a loaded host.
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		for (int i = 0; i < n; i++)
			sleep_ms(2);
		_exit(0);
	}
	if (pid < 0) {
		close(go[0]);
		close(go[1]);
		return 0;
	}
	sleep_ms(10);
	int ok = cpustat_snapshot(CPUSTAT_PATH, &before);
	ok = write(go[1], "g", 1) == 1 && ok;
	waitpid(pid, &status, 0);
	ok = cpustat_snapshot(CPUSTAT_PATH, &after) && ok;
	close(go[0]);
	close(go[1]);
	*count = delta("mb_sync_core", cpu_list[1]);
	return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_switch_in_serializes(void)
{
	long long reg = 0, unreg = 0;
	int n = 50;

	if (!counters_usable(2))
		return;
	pin_self(cpu_list[0]);
	if (!sleeper_serializations(1, n, &reg) || !sleeper_serializations(0, n, &unreg)) {
		fail("sleeper child failed");
	} else {
		ktap_diag("serializations on cpu %d: registered %lld, unregistered %lld (%d wake-ups)",
			  cpu_list[1], reg, unreg, n);
		check(reg >= n, "registered process not serialized at each switch-in");
		check(unreg == 0, "unregistered process serialized");
	}
	pin_self(cpu_list[0]);
	cpu_set_t all;
	CPU_ZERO(&all);
	for (int i = 0; i < nr_cpus; i++)
		CPU_SET(cpu_list[i], &all);
	sched_setaffinity(0, sizeof(all), &all);
}

// ---- PRIVATE_EXPEDITED_RSEQ restarts a critical section ----
//
// A thread on the second CPU registers rseq(2) and spins inside a
// critical section until released; the first thread then sends
// PRIVATE_EXPEDITED_RSEQ (to that CPU with MEMBARRIER_CMD_FLAG_CPU, or to
// all): the section must leave through its abort handler.  Without the
// call it commits (checked on Switchyard, where nothing else runs on
// that CPU to preempt it).  Skipped where QUERY does not offer the RSEQ commands.

#define RSEQ_SIG 0x53053053

struct rseq_area {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
	uint32_t node_id;
	uint32_t mm_cid;
	char end[];
} __attribute__((aligned(32)));

// int rseq_spin(volatile int *release, struct rseq_area *rs): spins in a
// critical section until *release; 0 when it got to the end, 1 when it
// was restarted at its abort handler.
int rseq_spin(volatile int *release, struct rseq_area *rs);
__asm__(
	"	.text\n"
	"	.globl rseq_spin\n"
	"	.type rseq_spin, @function\n"
	"rseq_spin:\n"
	"	leaq	rseq_spin_cs(%rip), %rax\n"
	"	movq	%rax, 8(%rsi)\n"
	"1:	movl	(%rdi), %eax\n"
	"	testl	%eax, %eax\n"
	"	jz	1b\n"
	"2:	movq	$0, 8(%rsi)\n"
	"	xorl	%eax, %eax\n"
	"	ret\n"
	"	.long	0x53053053\n"
	"3:	movq	$0, 8(%rsi)\n"
	"	movl	$1, %eax\n"
	"	ret\n"
	"	.size rseq_spin, . - rseq_spin\n"
	"	.data\n"
	"	.balign 32\n"
	"rseq_spin_cs:\n"
	"	.long	0, 0\n"
	"	.quad	1b, 2b - 1b, 3b\n"
	"	.text\n");

struct rseq_run {
	volatile int release, ready, result;
	int cpu;
};

static void *rseq_spinner(void *arg)
{
	static struct rseq_area area;
	struct rseq_run *r = arg;

	pin_self(r->cpu);
	memset(&area, 0, sizeof(area));
	if (syscall(334, &area, (long)sizeof(area), 0L, (long)RSEQ_SIG) != 0) {
		r->result = -errno;
		r->ready = 1;
		return NULL;
	}
	r->ready = 1;
	r->result = rseq_spin(&r->release, &area);
	syscall(334, &area, (long)sizeof(area), 1L, (long)RSEQ_SIG);
	return NULL;
}

// 1 if the section was restarted, 0 if it committed, -1 on trouble.
static int rseq_round(long flags, long cpu_id, int send)
{
	struct rseq_run r = { .cpu = cpu_list[1] };
	pthread_t t;

	if (pthread_create(&t, NULL, rseq_spinner, &r) != 0)
		return -1;
	while (!r.ready)
		;
	sleep_ms(30);
	if (r.result == 0 && send && mb(CMD_RSEQ, flags, cpu_id) != 0)
		r.result = -1000 - errno;
	sleep_ms(30);
	r.release = 1;
	pthread_join(t, NULL);
	return r.result;
}

static void test_rseq_restart(void)
{
	pid_t pid;

	if (!rseq_offered()) {
		skip("QUERY does not offer the RSEQ commands");
		return;
	}
	if (nr_cpus < 2) {
		skip("needs two CPUs");
		return;
	}
	pid = fork_child();
	if (pid == 0) {
		int plain, targeted, all;

		pin_self(cpu_list[0]);
		if (mb(CMD_REG_RSEQ, 0, 0) != 0)
			_exit(2);
		plain = rseq_round(0, 0, 0);
		targeted = rseq_round(FLAG_CPU, cpu_list[1], 1);
		all = rseq_round(0, 0, 1);
		printf("# without the call: %d, to its CPU: %d, to all: %d (1 = restarted)\n",
		       plain, targeted, all);
		fflush(stdout);
		// On a busy Linux host the lone spinner may also be preempted
		// (which restarts it too); on Switchyard nothing else runs there.
		if (on_switchyard && plain != 0)
			_exit(1);
		_exit(targeted == 1 && all == 1 ? 0 : 1);
	}
	check_child_ok(pid, "critical section restarted by PRIVATE_EXPEDITED_RSEQ");
}

static const struct test_case cases[] = {
	{ "errno_unregistered", test_errno_unregistered },
	{ "errno_sync_core_registration", test_errno_sync_core },
	{ "errno_private_registration", test_errno_private },
	{ "errno_global_expedited_registration", test_errno_global_exp },
	{ "errno_rseq_registration", test_errno_rseq },
	{ "query_mask_is_what_the_commands_accept", test_query_mask },
	{ "registration_shared_by_threads", test_registration_shared_by_threads },
	{ "registration_survives_fork", test_registration_survives_fork },
	{ "registration_cleared_by_exec", test_registration_cleared_by_exec },
	{ "store_buffering_private_expedited", test_sb_private },
	{ "store_buffering_sync_core", test_sb_sync_core },
	{ "store_buffering_global_expedited", test_sb_global_expedited },
	{ "store_buffering_global", test_sb_global },
	{ "sync_core_cross_modifying_code", test_sync_core_cross_modifying },
	{ "no_ipi_to_unrelated_or_idle_cpus", test_ipis_spare_unrelated_cpu },
	{ "idle_cpus_not_woken", test_idle_cpus_not_woken },
	{ "sync_core_serializes_caller_and_target", test_sync_core_counts },
	{ "mbstat_counts_ipi_round_trips", test_mbstat_counts },
	{ "switch_into_sync_core_process_serializes", test_switch_in_serializes },
	{ "rseq_critical_section_restarted", test_rseq_restart },
};

int main(int argc, char **argv)
{
	self_path = argv[0];
	if (argc >= 2 && strcmp(argv[1], "--exec-check") == 0)
		return exec_check();
	nr_cpus = usable_cpus(cpu_list);
	if (argc >= 2 && strcmp(argv[1], "--sb-control") == 0)
		return sb_control(argc >= 3 ? atof(argv[2]) : 5.0);
	on_switchyard = access(CPUSTAT_PATH, R_OK) == 0;
	setvbuf(stdout, NULL, _IONBF, 0);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
