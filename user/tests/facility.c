// facility: the extended-state facility under whatever policy the kernel
// runs (Switchyard's xstate=eager|lazy|counter:N|deferred:N; Linux's
// eager): register values survive migrations, signals, fork, exec and
// thread exits; another process never sees them; a thread that used the
// registers once goes through the counter policy's life cycle; AMX
// permission follows Linux's arch_prctl ABI.
//
// The cases that read Switchyard's counters (/proc/switchyard/facilities
// and thread_facilities) are skipped on Linux.  Vector registers are only
// touched inside asm blocks (user/lib/vecregs.h): compiled C may use xmm
// registers for anything between two statements.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "sysutil.h"
#include "testcase.h"
#include "vecregs.h"

#define ARCH_GET_XCOMP_SUPP	0x1021
#define ARCH_GET_XCOMP_PERM	0x1022
#define ARCH_REQ_XCOMP_PERM	0x1023
#define XFEATURE_TILEDATA	18

static int cpu_list[CPU_SETSIZE];
static int nr_cpus;
static int on_switchyard;
static char self_path[256];

// A value no other process of this test puts in a register: the top six
// bytes of every 8-byte lane (the low two number the register and lane).
#define MAGIC_LANE	0x1eaf5ec2e7000000ULL
#define MAGIC_MASK	0xffffffffffff0000ULL

static void fill_magic(struct vec_image *v)
{
	for (int r = 0; r < 16; r++)
		for (int l = 0; l < 4; l++) {
			uint64_t lane = MAGIC_LANE | (uint64_t)(r << 8 | l);
			memcpy(v->reg[r] + 8 * l, &lane, 8);
		}
}

static int has_magic(const struct vec_image *v)
{
	for (int r = 0; r < 16; r++)
		for (int l = 0; l < image_width() / 8; l++) {
			uint64_t lane;
			memcpy(&lane, v->reg[r] + 8 * l, 8);
			if ((lane & MAGIC_MASK) == MAGIC_LANE)
				return 1;
		}
	return 0;
}

static int is_initial(const struct vec_image *v)
{
	static const struct vec_image zero;

	return memcmp(v, &zero, sizeof(zero)) == 0;
}

static unsigned read_mxcsr(void)
{
	unsigned m;

	__asm__ volatile("stmxcsr %0" : "=m"(m));
	return m;
}

// ---- raw system calls with the vector registers live across them ----

// Loads 'in' into the registers, makes system call 'nr' (up to three
// arguments) and stores the registers to 'out', all in one asm block, so
// nothing but the kernel touches them in between.  Returns the call's
// result (a raw -errno on failure).
static long vec_syscall(const struct vec_image *in, struct vec_image *out, long nr, long a0,
			long a1, long a2)
{
	long rc;

	if (has_avx)
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "vmovdqu \\i*32(%[src]), %%ymm\\i\n\t"
				 ".endr\n\t"
				 "syscall\n\t"
				 ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "vmovdqu %%ymm\\i, \\i*32(%[dst])\n\t"
				 ".endr"
				 : "=a"(rc)
				 : "a"(nr), "D"(a0), "S"(a1), "d"(a2), [src] "r"(in->reg),
				   [dst] "r"(out->reg)
				 : "rcx", "r11", "memory", VEC_CLOBBERS);
	else
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "movdqu \\i*32(%[src]), %%xmm\\i\n\t"
				 ".endr\n\t"
				 "syscall\n\t"
				 ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "movdqu %%xmm\\i, \\i*32(%[dst])\n\t"
				 ".endr"
				 : "=a"(rc)
				 : "a"(nr), "D"(a0), "S"(a1), "d"(a2), [src] "r"(in->reg),
				   [dst] "r"(out->reg)
				 : "rcx", "r11", "memory", VEC_CLOBBERS);
	return rc;
}

static long set_affinity_raw(const struct vec_image *in, struct vec_image *out, int cpu)
{
	static cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return vec_syscall(in, out, SYS_sched_setaffinity, 0, sizeof(set), (long)&set);
}

// ---- clobbering neighbours ----

struct clobberer {
	pthread_t thread;
	int cpu;
	atomic_int stop;
};

static void *clobber_loop(void *arg)
{
	struct clobberer *c = arg;

	pin_self(c->cpu);
	while (!atomic_load(&c->stop)) {
		clobber_vectors();
		sched_yield();
	}
	return NULL;
}

static void start_clobberers(struct clobberer *c, int n)
{
	for (int i = 0; i < n; i++) {
		c[i].cpu = cpu_list[i];
		atomic_store(&c[i].stop, 0);
		pthread_create(&c[i].thread, NULL, clobber_loop, &c[i]);
	}
}

static void stop_clobberers(struct clobberer *c, int n)
{
	for (int i = 0; i < n; i++) {
		atomic_store(&c[i].stop, 1);
		pthread_join(c[i].thread, NULL);
	}
}

// ---- cases ----

// A thread with live vector state moves CPU0 -> CPU1 -> CPU0 (under
// deferred saving its state stays live on the CPU it left) while other
// threads clobber the registers of both CPUs; it must get its own values.
static void test_migration(void)
{
	struct clobberer c[2];
	struct vec_image in, out, mid;
	int ok = 1;

	if (nr_cpus < 2)
		return skip("needs two CPUs");
	pin_self(cpu_list[0]);
	start_clobberers(c, 2);
	for (int round = 0; round < 50 && ok; round++) {
		fill_pattern(&in, round + 7);
		check_ok(set_affinity_raw(&in, &mid, cpu_list[1]), "sched_setaffinity to CPU1");
		ok = images_equal(&in, &mid, "after moving to CPU1");
		check_ok(set_affinity_raw(&mid, &out, cpu_list[0]), "sched_setaffinity to CPU0");
		ok = ok && images_equal(&in, &out, "after moving back to CPU0");
	}
	stop_clobberers(c, 2);
	check(ok, "a register changed across a migration");
}

// The signal handler starts from the initial state whatever the
// interrupted code held, may clobber everything, and the interrupted code
// gets its own values back; and the other way round: a handler that uses
// vectors while the interrupted code never did leaves it none.
static struct vec_image seen_in_handler;
static unsigned mxcsr_in_handler;

static void handler_reads_then_clobbers(int sig)
{
	(void)sig;
	store_vectors(&seen_in_handler);
	mxcsr_in_handler = read_mxcsr();
	clobber_vectors();
}

static void test_signal_handler(void)
{
	struct sigaction sa;
	struct vec_image in, out;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler_reads_then_clobbers;
	sigaction(SIGUSR1, &sa, NULL);
	fill_pattern(&in, 3);
	long rc = vec_syscall(&in, &out, SYS_tgkill, getpid(), my_tid(), SIGUSR1);
	signal(SIGUSR1, SIG_DFL);
	check_ok(rc, "tgkill");
	check(is_initial(&seen_in_handler), "the handler did not start from the initial state");
	check(mxcsr_in_handler == 0x1f80, "the handler's MXCSR is not the default");
	check(images_equal(&in, &out, "after the handler"),
	      "the interrupted code lost its registers to the handler");
}

// fork: the child starts with the parent's registers, the parent keeps them.
static void test_fork(void)
{
	struct vec_image in, out;

	fill_pattern(&in, 11);
	long pid = vec_syscall(&in, &out, SYS_fork, 0, 0, 0);
	if (pid == 0)
		_exit(images_equal(&in, &out, "in the child") ? 0 : 1);
	if (!check_ok(pid, "fork"))
		return;
	check(images_equal(&in, &out, "in the parent"), "the parent's registers changed");
	check_child_ok(pid, "the child did not get the parent's registers");
}

// exec: the new program starts from the initial state (checked by the
// child mode below, before it touches a vector register itself), and so
// does a thread it clones before touching them.
static void test_exec(void)
{
	struct vec_image in;

	fill_pattern(&in, 5);
	load_vectors(&in);
	pid_t pid = fork_child();
	if (pid == 0) {
		execl(self_path, self_path, "--child", "exec-probe", (char *)NULL);
		_exit(99);
	}
	check_child_ok(pid, "exec-probe child (1: registers not initial, 2: MXCSR, "
		       "3: clone of an unused thread)");
}

static atomic_int probe_result = -1;

static int probe_thread(void *arg)
{
	struct vec_image v;

	(void)arg;
	store_vectors(&v);
	atomic_store(&probe_result, is_initial(&v) && read_mxcsr() == 0x1f80);
	return 0;
}

// Runs right after exec, before anything here has touched a vector
// register: they must be in the initial state, and a thread cloned now
// (from a thread that never used them) must start that way too.
static int exec_probe(void)
{
	struct vec_image v;
	static char stack[65536] __attribute__((aligned(16)));

	store_vectors(&v);
	if (!is_initial(&v))
		return 1;
	if (read_mxcsr() != 0x1f80)
		return 2;
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		    CLONE_SYSVSEM;
	if (clone(probe_thread, stack + sizeof(stack), flags, NULL) < 0)
		return 3;
	for (int i = 0; i < 2000 && atomic_load(&probe_result) < 0; i++)
		sleep_ms(5);
	return atomic_load(&probe_result) == 1 ? 0 : 3;
}

// A thread loads a pattern on CPU1, moves to CPU0 and exits there at once,
// its state perhaps still live on CPU1 (deferred saving).  Another process
// on CPU1 must never see the pattern, and nothing may break.
static void *use_then_leave(void *arg)
{
	struct vec_image in, out;

	(void)arg;
	pin_self(cpu_list[1]);
	fill_magic(&in);
	set_affinity_raw(&in, &out, cpu_list[0]);
	return NULL;
}

static void test_exit_while_live_elsewhere(void)
{
	if (nr_cpus < 2)
		return skip("needs two CPUs");
	int pipefd[2];
	if (!check_ok(pipe(pipefd), "pipe"))
		return;
	pid_t pid = fork_child();
	if (pid == 0) {
		struct vec_image v;
		char c;
		int seen = 0;
		pin_self(cpu_list[1]);
		close(pipefd[1]);
		while (read(pipefd[0], &c, 1) == 1) {
			store_vectors(&v);
			seen |= has_magic(&v);
		}
		_exit(seen ? 1 : 0);
	}
	close(pipefd[0]);
	for (int i = 0; i < 100; i++) {
		pthread_t t;
		pthread_create(&t, NULL, use_then_leave, NULL);
		pthread_join(t, NULL);
		if (write(pipefd[1], "x", 1) != 1)
			break;
	}
	close(pipefd[1]);
	check_child_ok(pid, "another process saw a dead thread's registers");
}

// A child pinned to 'cpu' that keeps every vector register filled with
// the magic pattern and yields, until killed.
static pid_t start_filler(int cpu)
{
	pid_t filler = fork_child();

	if (filler == 0) {
		struct vec_image v;
		pin_self(cpu);
		fill_magic(&v);
		for (;;) {
			load_vectors(&v);
			sched_yield();
		}
	}
	return filler;
}

// The leak probe: one process fills every vector register with a pattern
// and yields; another on the same CPU reads its registers without writing
// them first, around each of its own yields.  It must never see the
// pattern.
static void test_leak_probe(void)
{
	int cpu = cpu_list[nr_cpus - 1];
	pid_t filler = start_filler(cpu);
	pid_t reader = fork_child();
	if (reader == 0) {
		struct vec_image v;
		int seen = 0;
		pin_self(cpu);
		for (int i = 0; i < 2000; i++) {
			store_vectors(&v);
			seen |= has_magic(&v);
			sched_yield();
			store_vectors(&v);
			seen |= has_magic(&v);
		}
		_exit(seen ? 1 : 0);
	}
	check_child_ok(reader, "a process read another process's vector registers");
	kill(filler, SIGKILL);
	reap_child(filler);
}

// ---- Switchyard's counters ----
//
// Read without touching a vector register: a thread that did would start
// the very window the test watches.  So these are raw system calls and
// hand-written parsing in functions the compiler may not vectorize.

#define NOVEC __attribute__((noinline, target("general-regs-only")))

static NOVEC long raw3(long nr, long a0, long a1, long a2)
{
	long rc;

	__asm__ volatile("syscall" : "=a"(rc) : "a"(nr), "D"(a0), "S"(a1), "d"(a2)
			 : "rcx", "r11", "memory");
	return rc;
}

static NOVEC void raw_yield(void)
{
	raw3(SYS_sched_yield, 0, 0, 0);
}

static char proc_text[8192];

// Reads a whole proc file into proc_text; returns its length or -1.
static NOVEC long raw_read_file(const char *path)
{
	long fd = raw3(SYS_open, (long)path, O_RDONLY, 0), len = 0, n;

	if (fd < 0)
		return -1;
	while ((n = raw3(SYS_read, fd, (long)proc_text + len, (long)sizeof(proc_text) - 1 - len)) > 0)
		len += n;
	raw3(SYS_close, fd, 0, 0);
	proc_text[len] = 0;
	return len;
}

static NOVEC const char *skip_spaces(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

static NOVEC const char *parse_u64(const char *p, uint64_t *v)
{
	*v = 0;
	p = skip_spaces(p);
	while (*p >= '0' && *p <= '9')
		*v = *v * 10 + (uint64_t)(*p++ - '0');
	return p;
}

static NOVEC const char *next_line(const char *p)
{
	while (*p && *p != '\n')
		p++;
	return *p ? p + 1 : p;
}

struct thread_counts {
	uint64_t traps, loads;
};

// thread_facilities: "fac traps loads saved on load_count", then a line
// per facility; the FP line is the one of interest.
static NOVEC int read_thread_counts(struct thread_counts *out)
{
	if (raw_read_file("/proc/switchyard/thread_facilities") < 0)
		return 0;
	for (const char *p = proc_text; *p; p = next_line(p)) {
		if (p[0] == 'F' && p[1] == 'P' && p[2] == ' ') {
			p = parse_u64(p + 2, &out->traps);
			parse_u64(p, &out->loads);
			return 1;
		}
	}
	return 0;
}

// The sum over CPUs of one column of /proc/switchyard/facilities's FP
// lines ("cpu fac traps saves save_skips restores restore_skips inits
// resets eager_loads fetches": column 0 is traps).
static NOVEC uint64_t read_fp_column(int column)
{
	uint64_t total = 0, v;

	if (raw_read_file("/proc/switchyard/facilities") < 0)
		return 0;
	for (const char *p = proc_text; *p; p = next_line(p)) {
		const char *q = parse_u64(p, &v);
		q = skip_spaces(q);
		if (q == p || q[0] != 'F' || q[1] != 'P')
			continue;
		q += 2;
		for (int c = 0; c <= column; c++)
			q = parse_u64(q, &v);
		total += v;
	}
	return total;
}

#define COLUMN_RESETS 6

// The policy line of /proc/switchyard/facilities: kind and window.
static int read_policy(char *kind, size_t size, unsigned *window)
{
	if (raw_read_file("/proc/switchyard/facilities") < 0 ||
	    strncmp(proc_text, "policy ", 7) != 0)
		return 0;
	char *name = proc_text + 7;
	name[strcspn(name, " \n")] = 0;
	char *colon = strchr(name, ':');
	*window = 0;
	if (colon) {
		*colon = 0;
		*window = (unsigned)atoi(colon + 1);
	}
	snprintf(kind, size, "%.*s", (int)size - 1, name);
	return 1;
}

// A partner on the same CPU that uses the vector registers every round,
// so that whoever ran before must load its own state again.
static atomic_int partner_stop;

static void *partner_loop(void *arg)
{
	(void)arg;
	pin_self(cpu_list[0]);
	while (!atomic_load(&partner_stop)) {
		clobber_vectors();
		sched_yield();
	}
	return NULL;
}

static NOVEC void yield_times(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		raw_yield();
}

static void __attribute__((noinline)) touch_sse_once(void)
{
	__asm__ volatile("pxor %%xmm15, %%xmm15" ::: "xmm15");
}

// The seed's life cycle (counter:N and deferred:N), against a partner that
// takes the registers at every switch: once the thread's window has
// closed, a use traps; the state is then loaded eagerly at the following
// switch-ins while the u8 counter, set to 1 by the trap and bumped at each
// switch-out, has not wrapped at N (N - 2 loads); the next use after that
// traps again.
static NOVEC int life_cycle(unsigned window, struct thread_counts *c)
{
	yield_times(window + 8);	// whatever window was open closes
	if (!read_thread_counts(&c[0]))
		return 0;
	touch_sse_once();		// trap: the window opens
	if (!read_thread_counts(&c[1]))
		return 0;
	yield_times(window + 8);	// ... and closes again
	touch_sse_once();		// trap
	return read_thread_counts(&c[2]);
}

static void test_counter_life_cycle(void)
{
	char kind[32];
	unsigned window;
	struct thread_counts c[3];
	pthread_t partner;

	if (!on_switchyard)
		return skip("reads Switchyard's counters");
	if (!read_policy(kind, sizeof(kind), &window))
		return (void)fail("no policy line in /proc/switchyard/facilities");
	if (strcmp(kind, "counter") && strcmp(kind, "deferred"))
		return skip("the policy has no counter");
	pin_self(cpu_list[0]);
	atomic_store(&partner_stop, 0);
	pthread_create(&partner, NULL, partner_loop, NULL);
	int ok = life_cycle(window, c);
	atomic_store(&partner_stop, 1);
	pthread_join(partner, NULL);
	if (!check(ok, "thread_facilities unreadable"))
		return;
	uint64_t eager = window > 2 ? window - 2 : 0;
	ktap_diag("policy %s:%u traps %llu->%llu->%llu loads %llu->%llu->%llu", kind, window,
		  (unsigned long long)c[0].traps, (unsigned long long)c[1].traps,
		  (unsigned long long)c[2].traps, (unsigned long long)c[0].loads,
		  (unsigned long long)c[1].loads, (unsigned long long)c[2].loads);
	check(c[1].traps == c[0].traps + 1, "the first use did not trap once");
	check(c[2].traps == c[1].traps + 1, "the use after the window closed did not trap once");
	// N - 2 eager loads and the second trap's load, when the partner
	// displaces this thread's state before every switch back.  A switch
	// that was not to the partner (another thread that ran on this CPU
	// in between) still counts towards the window but finds the state
	// live and loads nothing, so a few loads may be missing; never more.
	uint64_t loads = c[2].loads - c[1].loads;
	check(loads <= eager + 1 && loads + 3 >= eager + 1,
	      "not N - 2 eager loads (or a few fewer) and the trap's load between the two uses");
}

// The leak guard: a process that never uses the registers, running after
// one that does on the same CPU, makes the kernel wipe them (unless the
// policy loads every thread's own state anyway, as eager does).
static NOVEC int idle_and_count(unsigned window)
{
	yield_times(window + 8);		// an inherited window closes
	uint64_t before = read_fp_column(COLUMN_RESETS);
	yield_times(200);
	uint64_t after = read_fp_column(COLUMN_RESETS);
	return after - before >= 100 ? 0 : 1;
}

static void test_leak_guard_counted(void)
{
	char kind[32];
	unsigned window;

	if (!on_switchyard)
		return skip("reads Switchyard's counters");
	if (!read_policy(kind, sizeof(kind), &window))
		return (void)fail("no policy line in /proc/switchyard/facilities");
	if (!strcmp(kind, "eager"))
		return skip("eager loads every thread's own state");
	int cpu = cpu_list[0];
	pid_t filler = start_filler(cpu);
	pid_t idler = fork_child();
	if (idler == 0) {
		pin_self(cpu);
		_exit(idle_and_count(window));
	}
	check_child_ok(idler, "fewer leak-guard resets than switches into the idle process");
	kill(filler, SIGKILL);
	reap_child(filler);
}

// AMX permission, as Linux: ARCH_GET_XCOMP_SUPP lists XCR0's user
// components; only tile data can be requested, and only where it exists;
// using it without permission is SIGILL.
static void tile_zero(void)
{
	// tilerelease: a tile instruction that needs no configuration.
	__asm__ volatile(".byte 0xc4, 0xe2, 0x78, 0x49, 0xc0");
}

static void test_xcomp_prctl(void)
{
	uint64_t supp = 0, perm = 0;

	if (!check_ok(syscall(SYS_arch_prctl, ARCH_GET_XCOMP_SUPP, &supp), "ARCH_GET_XCOMP_SUPP"))
		return;
	check((supp & 3) == 3 && (supp & ~read_xcr0()) == 0, "SUPP is not within XCR0");
	check_ok(syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &perm), "ARCH_GET_XCOMP_PERM");
	check((perm & (1ULL << XFEATURE_TILEDATA)) == 0, "tile data permitted before asking");
	check_errno(syscall(SYS_arch_prctl, ARCH_GET_XCOMP_SUPP, (void *)8), EFAULT,
		    "ARCH_GET_XCOMP_SUPP to a bad pointer");
	check_errno(syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, 64), EINVAL,
		    "ARCH_REQ_XCOMP_PERM of component 64");
	check_errno(syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, 1), EOPNOTSUPP,
		    "ARCH_REQ_XCOMP_PERM of SSE (not dynamic)");
	int has_tiles = (supp >> XFEATURE_TILEDATA) & 1;
	pid_t pid = fork_child();
	if (pid == 0) {
		tile_zero();	// no permission: SIGILL (also where there is no AMX)
		_exit(0);
	}
	check_killed_by(pid, SIGILL, "a tile instruction without permission");
	if (!has_tiles) {
		check_errno(syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_TILEDATA),
			    EOPNOTSUPP, "ARCH_REQ_XCOMP_PERM of tile data without AMX");
		return;
	}
	pid = fork_child();
	if (pid == 0) {
		if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_TILEDATA) != 0)
			_exit(1);
		if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &perm) != 0 ||
		    !((perm >> XFEATURE_TILEDATA) & 1))
			_exit(2);
		tile_zero();
		_exit(0);
	}
	check_child_ok(pid, "tile data after ARCH_REQ_XCOMP_PERM (1: refused, 2: PERM)");
}

// The policy changes at run time (/proc/switchyard/facilities takes
// "policy NAME", for benchmarks that compare policies in one boot): a
// thread cycles through every policy while this one keeps values in its
// registers across yields and migrations with clobberers on both CPUs.
static const char *const run_time_policies[] = {
	"eager", "lazy", "counter:4", "deferred:2", "counter:256", "deferred:256",
};
static atomic_int policy_cycler_stop;

static int write_policy(const char *name)
{
	char cmd[64];
	int fd = open("/proc/switchyard/facilities", O_WRONLY);
	int n = snprintf(cmd, sizeof(cmd), "policy %s\n", name);
	ssize_t rc;

	if (fd < 0)
		return -errno;
	rc = write(fd, cmd, (size_t)n);
	int err = rc < 0 ? -errno : 0;
	close(fd);
	return err;
}

static void *policy_cycler(void *arg)
{
	long i = 0;

	(void)arg;
	while (!atomic_load(&policy_cycler_stop)) {
		const char *name = run_time_policies[i++ % 6];
		if (write_policy(name) != 0)
			return (void *)1;
	}
	return NULL;
}

static void test_policy_changes_at_run_time(void)
{
	static const char *const refused[] = { "bogus", "eager:3", "counter:0", "deferred:257", "" };
	char kind[16], original[32];
	unsigned window;
	struct clobberer c[2];
	struct vec_image in, out, mid;
	pthread_t cycler;
	void *cycler_failed = NULL;
	int ok = 1;

	if (!read_policy(kind, sizeof(kind), &window))
		return skip("no /proc/switchyard/facilities (not Switchyard)");
	if (nr_cpus < 2)
		return skip("needs two CPUs");
	if (window)
		snprintf(original, sizeof(original), "%s:%u", kind, window);
	else
		snprintf(original, sizeof(original), "%s", kind);
	for (int i = 0; i < 5; i++)
		check(write_policy(refused[i]) == -EINVAL, "a bad policy name was not refused");
	pin_self(cpu_list[0]);
	start_clobberers(c, 2);
	atomic_store(&policy_cycler_stop, 0);
	if (!check(pthread_create(&cycler, NULL, policy_cycler, NULL) == 0, "pthread_create"))
		goto out;
	for (int round = 0; round < 60 && ok; round++) {
		fill_pattern(&in, round + 17);
		check_ok(vec_syscall(&in, &mid, SYS_sched_yield, 0, 0, 0), "sched_yield");
		ok = images_equal(&in, &mid, "after a yield");
		check_ok(set_affinity_raw(&mid, &out, cpu_list[1 - round % 2]), "sched_setaffinity");
		ok = ok && images_equal(&in, &out, "after a migration");
	}
	atomic_store(&policy_cycler_stop, 1);
	pthread_join(cycler, &cycler_failed);
	check(cycler_failed == NULL, "writing a policy failed");
out:
	stop_clobberers(c, 2);
	check(ok, "a register changed while the policy changed");
	check(write_policy(original) == 0, "the original policy could not be put back");
}

static const struct test_case cases[] = {
	{ "state_survives_migrations", test_migration },
	{ "signal_handler_starts_initial_and_keeps_interrupted_state", test_signal_handler },
	{ "fork_child_inherits_registers", test_fork },
	{ "exec_and_its_first_clone_start_initial", test_exec },
	{ "thread_exit_while_state_live_on_another_cpu", test_exit_while_live_elsewhere },
	{ "other_process_never_sees_registers", test_leak_probe },
	{ "counter_policy_life_cycle", test_counter_life_cycle },
	{ "leak_guard_wipes_for_other_process", test_leak_guard_counted },
	{ "amx_permission_abi", test_xcomp_prctl },
	{ "policy_changes_at_run_time_keep_state", test_policy_changes_at_run_time },
};

int main(int argc, char **argv)
{
	struct utsname u;

	detect_vectors();
	if (argc == 3 && !strcmp(argv[1], "--child") && !strcmp(argv[2], "exec-probe"))
		return exec_probe();
	setvbuf(stdout, NULL, _IOLBF, 0);
	nr_cpus = usable_cpus(cpu_list);
	on_switchyard = uname(&u) == 0 && strstr(u.version, "Switchyard") != NULL;
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	if (n > 0)
		self_path[n] = 0;
	else
		snprintf(self_path, sizeof(self_path), "%s", argv[0]);
	run_cases(cases, (int)(sizeof(cases) / sizeof(cases[0])));
	return ktap_finish();
}
