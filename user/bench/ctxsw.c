// ctxsw: context-switch benchmark.
//
// Two sides pass a token back and forth for a fixed time; each pass is one
// handoff, and on one CPU one handoff is one context switch.  The token
// travels through a pipe, a futex word, or a shared word polled around
// sched_yield().  Optionally each side touches a class of vector registers
// on every round (or only once at the start) so the cost of switching that
// extended state, and a lazy policy's ability to stop switching it, show up
// in the rate.
//
// Output: one line,
//   RESULT ctxsw kernel=switchyard policy=deferred:256 mech=pipe mode=thread
//          cpus=0,0 vec=none once=0
//          switches_per_sec=N switches=N seconds=S
// or, when the CPU or kernel lacks the requested registers,
//   SKIP ctxsw ... reason=...
#define _GNU_SOURCE
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <errno.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_PRIVATE_FLAG 128
#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18
// Check the clock once per this many rounds: cheap, yet precise enough.
#define CLOCK_CHECK_MASK 63

enum mech { MECH_PIPE, MECH_FUTEX, MECH_YIELD };
// x86-64's register classes, then ppc64's (FP, VMX, and TM: the seed's).
enum vec { VEC_NONE, VEC_SSE, VEC_AVX, VEC_AVX512, VEC_AMX, VEC_FP, VEC_VMX, VEC_TM };
#define NR_VEC 8

static const char *const mech_names[] = { "pipe", "futex", "yield" };
static const char *const vec_names[] = { "none", "sse", "avx", "avx512", "amx", "fp", "vmx", "tm" };

struct options {
	enum mech mech;
	int processes;
	int cpu[2];
	enum vec vec;
	int once;
	double duration;
};

// Lives in MAP_SHARED memory so processes can use it as well as threads.
struct shared {
	atomic_int turn;	// futex and yield: whose turn it is (0 or 1)
	atomic_int stop;	// side 0 asks side 1 to finish after this round
	atomic_int ready[2];
	atomic_int failed;
	long handoffs[2];
	long long ns;		// side 0's run time
	int pipe_to[2][2];	// pipe_to[side]: fds of the pipe that side reads
};

static struct options opt = { MECH_PIPE, 0, { 0, 0 }, VEC_NONE, 0, 2.0 };
static long long duration_ns;	// opt.duration, converted before the sides start
static struct shared *sh;

// 8 KB of tile data, also 32 registers x 64 bytes of vector patterns.
static _Alignas(64) uint8_t pattern[8192];

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ctxsw [-m pipe|futex|yield] [-p] [-c CPU0,CPU1] [-v CLASS]\n"
		"             [-o] [-d SECONDS] [-h]\n"
		"  -m  how the token passes: a pipe, a futex word, or a word polled around\n"
		"      sched_yield (yield needs both sides on the same CPU); default pipe\n"
		"  -p  two processes (futex over MAP_SHARED memory) instead of two threads\n"
		"  -c  CPUs of the two sides; default 0,0\n"
		"  -v  registers each side touches every round: none (default); x86-64:\n"
		"      sse, avx, avx512, amx; ppc64: fp, vmx, tm (a TM SPR read)\n"
		"  -o  touch them once at the start only, then never again\n"
		"  -d  how long to run, in seconds; default 2\n"
		"Prints one line: RESULT ctxsw kernel=.. policy=.. mech=.. mode=.. cpus=.. vec=.. once=..\n"
		"  switches_per_sec=.. switches=.. seconds=..  (a switch = one handoff)\n");
}

// ---- feature detection ----

#if defined(__x86_64__)

static uint64_t read_xcr0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

static int have_osxsave(void)
{
	unsigned a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE);
}

// Returns NULL when the registers can be used, else the reason they cannot.
static const char *vec_unsupported(enum vec v)
{
	unsigned a, b, c, d;

	switch (v) {
	case VEC_NONE:
	case VEC_SSE:
		return NULL;
	case VEC_AVX:
		if (!have_osxsave() || !__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_AVX))
			return "cpu-lacks-avx";
		return (read_xcr0() & 0x6) == 0x6 ? NULL : "kernel-disables-avx";
	case VEC_AVX512:
		if (!have_osxsave() || !__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 16)))
			return "cpu-lacks-avx512";
		return (read_xcr0() & 0xe6) == 0xe6 ? NULL : "kernel-disables-avx512";
	case VEC_AMX:
		if (!have_osxsave() || !__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(d & (1u << 24)))
			return "cpu-lacks-amx";
		if ((read_xcr0() & 0x60000) != 0x60000)
			return "kernel-disables-amx";
		// Tile data is off until the process asks for it.
		if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) != 0)
			return "arch_prctl-refused";
		return NULL;
	case VEC_FP:
	case VEC_VMX:
	case VEC_TM:
		return "ppc64-only";
	}
	return "unknown";
}

// ---- touching register state ----

// Palette 1, tiles 0-7 each 16 rows of 64 bytes.
static void load_tile_config(void)
{
	_Alignas(64) uint8_t cfg[64];

	memset(cfg, 0, sizeof(cfg));
	cfg[0] = 1;
	for (int t = 0; t < 8; t++) {
		cfg[16 + 2 * t] = 64;	// bytes per row, little-endian u16
		cfg[48 + t] = 16;	// rows
	}
	__asm__ volatile("ldtilecfg %0" :: "m"(cfg));
}

// Load every register of the class from the pattern, so the state is in
// use and modified since the kernel last restored it.
static void touch_vectors(enum vec v)
{
	switch (v) {
	case VEC_NONE:
		break;
	case VEC_SSE:
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "movdqu \\i*16(%0), %%xmm\\i\n\t"
				 ".endr"
				 :: "r"(pattern)
				 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
				 "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
		break;
	case VEC_AVX:
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "vmovdqu \\i*32(%0), %%ymm\\i\n\t"
				 ".endr"
				 :: "r"(pattern)
				 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
				 "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
		break;
	case VEC_AVX512:
		// zmm16-31 are outside what this compiler is told about; it does
		// not use them without -mavx512f, so no clobber is needed.
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,"
				 "24,25,26,27,28,29,30,31\n\t"
				 "vmovdqu64 \\i*64(%0), %%zmm\\i\n\t"
				 ".endr\n\t"
				 "kmovw (%0), %%k1"
				 :: "r"(pattern)
				 : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
				 "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
		break;
	case VEC_AMX:
		__asm__ volatile("movq $64, %%rcx\n\t"
				 ".irp i,0,1,2,3,4,5,6,7\n\t"
				 "tileloadd \\i*1024(%0,%%rcx,1), %%tmm\\i\n\t"
				 ".endr"
				 :: "r"(pattern)
				 : "rcx", "memory");
		break;
	case VEC_FP:		// ppc64's: refused by vec_unsupported
	case VEC_VMX:
	case VEC_TM:
		break;
	}
}

#elif defined(__powerpc64__)
#include <sys/auxv.h>
#define PPC_FEATURE2_HTM 0x40000000

static const char *vec_unsupported(enum vec v)
{
	if (v == VEC_NONE || v == VEC_FP || v == VEC_VMX)
		return NULL;
	if (v == VEC_TM)
		return getauxval(AT_HWCAP2) & PPC_FEATURE2_HTM ? NULL : "no HTM in AT_HWCAP2";
	return "x86-64-only";
}

static void load_tile_config(void)
{
}

// One instruction of the class: enough to need the facility.
static void touch_vectors(enum vec v)
{
	uint64_t x;

	switch (v) {
	case VEC_FP:
		__asm__ volatile("fmr 0, 0" ::: "fr0");
		break;
	case VEC_VMX:
		__asm__ volatile("vor 0, 0, 0" ::: "v0");
		break;
	case VEC_TM:
		__asm__ volatile("mfspr %0, 128" : "=r"(x));	// TFHAR
		break;
	default:
		break;
	}
}
#else
static const char *vec_unsupported(enum vec v)
{
	return v == VEC_NONE ? NULL : "no register classes on this arch";
}

static void load_tile_config(void)
{
}

static void touch_vectors(enum vec v)
{
	(void)v;
}
#endif

// ---- the token ----

static long futex(atomic_int *word, int op, int val)
{
	int flags = opt.processes ? 0 : FUTEX_PRIVATE_FLAG;

	return syscall(SYS_futex, word, op | flags, val, NULL, NULL, 0);
}

// Block until it is 'side's turn.
static void wait_turn(int side)
{
	char c;

	switch (opt.mech) {
	case MECH_PIPE:
		while (read(sh->pipe_to[side][0], &c, 1) != 1)
			if (errno != EINTR) {
				atomic_store(&sh->failed, 1);
				return;
			}
		break;
	case MECH_FUTEX:
		while (atomic_load(&sh->turn) != side)
			futex(&sh->turn, FUTEX_WAIT, !side);
		break;
	case MECH_YIELD:
		while (atomic_load(&sh->turn) != side)
			sched_yield();
		break;
	}
}

// Hand the token to the other side.
static void pass_turn(int side)
{
	int other = !side;

	switch (opt.mech) {
	case MECH_PIPE:
		if (write(sh->pipe_to[other][1], "t", 1) != 1)
			atomic_store(&sh->failed, 1);
		break;
	case MECH_FUTEX:
		atomic_store(&sh->turn, other);
		futex(&sh->turn, FUTEX_WAKE, 1);
		break;
	case MECH_YIELD:
		atomic_store(&sh->turn, other);
		break;
	}
}

// ---- the two sides ----

static void prepare_side(int side)
{
	if (pin_or_complain("ctxsw", opt.cpu[side]) != 0)
		atomic_store(&sh->failed, 1);
	if (opt.vec == VEC_AMX)
		load_tile_config();
	touch_vectors(opt.vec);
	atomic_store(&sh->ready[side], 1);
}

// Side 0 starts with the token, keeps the time, and decides when to stop.
// The loop keeps time in integer nanoseconds: floating-point arithmetic
// would use the vector registers that a "-v none" run must leave alone
// (and that a lazy policy would then keep switching for it).
static void run_side0(void)
{
	int every_round = !opt.once;
	long n = 0;
	long long start, deadline;

	prepare_side(0);
	while (!atomic_load(&sh->ready[1]))
		sched_yield();
	start = now_ns(CLOCK_MONOTONIC);
	deadline = start + duration_ns;
	for (;;) {
		if (every_round)
			touch_vectors(opt.vec);
		if ((n & CLOCK_CHECK_MASK) == 0 && now_ns(CLOCK_MONOTONIC) >= deadline)
			atomic_store(&sh->stop, 1);
		pass_turn(0);
		n++;
		wait_turn(0);
		if (atomic_load(&sh->stop) || atomic_load(&sh->failed))
			break;
	}
	sh->ns = now_ns(CLOCK_MONOTONIC) - start;
	sh->handoffs[0] = n;
}

static void run_side1(void)
{
	int every_round = !opt.once;
	long n = 0;

	prepare_side(1);
	for (;;) {
		wait_turn(1);
		if (every_round)
			touch_vectors(opt.vec);
		int last = atomic_load(&sh->stop) || atomic_load(&sh->failed);

		pass_turn(1);
		n++;
		if (last)
			break;
	}
	sh->handoffs[1] = n;
}

static void *side1_thread(void *arg)
{
	(void)arg;
	run_side1();
	return NULL;
}

// ---- options ----

static int parse_name(const char *arg, const char *const *names, int count)
{
	for (int i = 0; i < count; i++)
		if (strcmp(arg, names[i]) == 0)
			return i;
	return -1;
}

static int parse_options(int argc, char **argv)
{
	int ch, v;
	char *end;

	while ((ch = getopt(argc, argv, "m:pc:v:od:h")) != -1) {
		switch (ch) {
		case 'm':
			if ((v = parse_name(optarg, mech_names, 3)) < 0)
				return 0;
			opt.mech = (enum mech)v;
			break;
		case 'p':
			opt.processes = 1;
			break;
		case 'c':
			if (!parse_cpu_pair(optarg, opt.cpu))
				return 0;
			break;
		case 'v':
			if ((v = parse_name(optarg, vec_names, NR_VEC)) < 0)
				return 0;
			opt.vec = (enum vec)v;
			break;
		case 'o':
			opt.once = 1;
			break;
		case 'd':
			opt.duration = strtod(optarg, &end);
			if (*end || !(opt.duration > 0))
				return 0;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return 0;
		}
	}
	return optind == argc;
}

// Called after the run: reading the policy uses stdio, which may touch
// vector registers, and must not make a "vec=none" side a user of them.
static void print_settings(const char *tag)
{
	char kernel[32], policy[48];

	kernel_and_policy(kernel, sizeof(kernel), policy, sizeof(policy));
	printf("%s ctxsw kernel=%s policy=%s mech=%s mode=%s cpus=%d,%d vec=%s once=%d", tag, kernel,
	       policy, mech_names[opt.mech], opt.processes ? "process" : "thread", opt.cpu[0],
	       opt.cpu[1], vec_names[opt.vec], opt.once);
}

int main(int argc, char **argv)
{
	const char *why;
	long switches;

	if (!parse_options(argc, argv)) {
		usage(stderr);
		return 2;
	}
	if (opt.mech == MECH_YIELD && opt.cpu[0] != opt.cpu[1]) {
		fprintf(stderr, "ctxsw: -m yield needs both sides on the same CPU\n");
		return 2;
	}
	why = vec_unsupported(opt.vec);
	if (why) {
		fprintf(stderr, "ctxsw: cannot use %s registers here (%s); skipping\n", vec_names[opt.vec], why);
		print_settings("SKIP");
		printf(" reason=%s\n", why);
		return 0;
	}
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + 1);
	duration_ns = (long long)(opt.duration * 1e9);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("ctxsw: mmap");
		return 1;
	}
	if (opt.mech == MECH_PIPE && (pipe(sh->pipe_to[0]) != 0 || pipe(sh->pipe_to[1]) != 0)) {
		perror("ctxsw: pipe");
		return 1;
	}
	if (opt.processes) {
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			perror("ctxsw: fork");
			return 1;
		}
		if (pid == 0) {
			run_side1();
			_exit(0);
		}
		run_side0();
		waitpid(pid, &status, 0);
	} else {
		pthread_t t;

		if (pthread_create(&t, NULL, side1_thread, NULL) != 0) {
			fprintf(stderr, "ctxsw: cannot create a thread\n");
			return 1;
		}
		run_side0();
		pthread_join(t, NULL);
	}
	if (atomic_load(&sh->failed)) {
		fprintf(stderr, "ctxsw: the run failed\n");
		return 1;
	}
	switches = sh->handoffs[0] + sh->handoffs[1];
	print_settings("RESULT");
	double seconds = (double)sh->ns / 1e9;
	printf(" switches_per_sec=%.0f switches=%ld seconds=%.3f\n", (double)switches / seconds, switches,
	       seconds);
	return 0;
}
