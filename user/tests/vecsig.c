// vecsig: vector register state across signals and context switches.
//
// This is the user-visible contract of any lazy or eager extended-state
// policy: a signal handler may clobber xmm/ymm freely and the interrupted
// code sees its own values again after sigreturn; edits a handler makes to
// the saved fpstate do take effect; and two threads never see each other's
// registers, however the kernel switches (or skips switching) the state.
//
// Vector registers are only touched inside asm blocks, because compiled C
// may use xmm registers for anything between two statements.
#define _GNU_SOURCE
#include <cpuid.h>
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
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "ktap.h"
#include "sysutil.h"
#include "watchdog.h"
#include "vecregs.h"

#define WATCHDOG_SECONDS 120
#define NR_CASES 10

// Signal frame fpstate layout (the x86-64 Linux ABI): a 512-byte FXSAVE
// image whose bytes 464..511 ("sw_reserved") describe the XSAVE extension.
#define FX_XMM_OFFSET 160
#define FX_SW_OFFSET 464
#define XSAVE_HEADER_OFFSET 512
#define FP_XSTATE_MAGIC1 0x46505853u
#define FP_XSTATE_MAGIC2 0x46505845u

struct fpx_sw_bytes {
	uint32_t magic1;
	uint32_t extended_size;
	uint64_t xfeatures;
	uint32_t xstate_size;
	uint32_t padding[7];
};

static int cpu_list[CPU_SETSIZE];
static int nr_cpus;

static void detect_cpu(void)
{
	detect_vectors();
	nr_cpus = usable_cpus(cpu_list);
}

// Load 'in' into the vector registers, execute ud2 (the SIGILL handler
// skips it), store the registers to 'out'.  MXCSR is set to round-down
// around the trap and its value afterwards returned.
static unsigned run_ud2_with_vectors(const struct vec_image *in, struct vec_image *out)
{
	unsigned mxcsr_in = 0x1f80 | 0x2000, mxcsr_out = 0, mxcsr_default = 0x1f80;

	if (has_avx)
		__asm__ volatile("ldmxcsr %[mi]\n\t"
				 ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "vmovdqu \\i*32(%[src]), %%ymm\\i\n\t"
				 ".endr\n\t"
				 "ud2\n\t"
				 ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "vmovdqu %%ymm\\i, \\i*32(%[dst])\n\t"
				 ".endr\n\t"
				 "stmxcsr %[mo]\n\t"
				 "ldmxcsr %[md]"
				 : [mo] "=m"(mxcsr_out)
				 : [src] "r"(in->reg), [dst] "r"(out->reg), [mi] "m"(mxcsr_in),
				   [md] "m"(mxcsr_default)
				 : "memory", VEC_CLOBBERS);
	else
		__asm__ volatile("ldmxcsr %[mi]\n\t"
				 ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "movdqu \\i*32(%[src]), %%xmm\\i\n\t"
				 ".endr\n\t"
				 "ud2\n\t"
				 ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "movdqu %%xmm\\i, \\i*32(%[dst])\n\t"
				 ".endr\n\t"
				 "stmxcsr %[mo]\n\t"
				 "ldmxcsr %[md]"
				 : [mo] "=m"(mxcsr_out)
				 : [src] "r"(in->reg), [dst] "r"(out->reg), [mi] "m"(mxcsr_in),
				   [md] "m"(mxcsr_default)
				 : "memory", VEC_CLOBBERS);
	return mxcsr_out;
}

// ---- the SIGILL handler that plays with vector state ----

enum handler_mode { CLOBBER_ONLY, EDIT_FPSTATE };

static volatile enum handler_mode handler_mode;
static struct vec_image edit_value;	// register 5 is set to this
static volatile int frame_ok;
static struct fpx_sw_bytes seen_sw;
static uint32_t seen_magic2;

static void check_frame(ucontext_t *uc)
{
	uint8_t *fx = (uint8_t *)uc->uc_mcontext.fpregs;

	frame_ok = 0;
	if (!fx || ((uintptr_t)fx & 63) != 0)
		return;
	memcpy(&seen_sw, fx + FX_SW_OFFSET, sizeof(seen_sw));
	if (seen_sw.magic1 != FP_XSTATE_MAGIC1)
		return;
	memcpy(&seen_magic2, fx + seen_sw.xstate_size, sizeof(seen_magic2));
	frame_ok = seen_magic2 == FP_XSTATE_MAGIC2 &&
		   seen_sw.extended_size == seen_sw.xstate_size + sizeof(uint32_t) &&
		   (seen_sw.xfeatures & 3) == 3 && (!has_avx || (seen_sw.xfeatures & 4));
}

static void edit_fpstate(ucontext_t *uc)
{
	uint8_t *fx = (uint8_t *)uc->uc_mcontext.fpregs;
	uint64_t xstate_bv;

	memcpy(fx + FX_XMM_OFFSET + 5 * 16, edit_value.reg[5], 16);
	if (!has_avx || !frame_ok)
		return;
	memcpy(fx + ymm_hi_offset + 5 * 16, edit_value.reg[5] + 16, 16);
	// Mark SSE and AVX state present so the restore takes our bytes.
	memcpy(&xstate_bv, fx + XSAVE_HEADER_OFFSET, sizeof(xstate_bv));
	xstate_bv |= 6;
	memcpy(fx + XSAVE_HEADER_OFFSET, &xstate_bv, sizeof(xstate_bv));
}

static void sigill_handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	(void)si;
	check_frame(uc);
	clobber_vectors();
	if (handler_mode == EDIT_FPSTATE)
		edit_fpstate(uc);
	uc->uc_mcontext.gregs[REG_RIP] += 2;	// skip the ud2
}

static void install_sigill(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigill_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGILL, &sa, NULL);
}

// ---- cases ----

static void test_fpstate_magic(void)
{
	struct vec_image in, out;

	fill_pattern(&in, 1);
	handler_mode = CLOBBER_ONLY;
	run_ud2_with_vectors(&in, &out);
	ktap_diag("fpstate: magic1 %#x xfeatures %#llx xstate_size %u extended_size %u magic2 %#x",
		  seen_sw.magic1, (unsigned long long)seen_sw.xfeatures, seen_sw.xstate_size,
		  seen_sw.extended_size, seen_magic2);
	ktap_result(frame_ok, "fpstate_xstate_magic");
}

// A signal whose frame cannot be written (its alternate stack is read
// only): as Linux, SIGSEGV follows, on the normal stack to its own
// handler, and the vector state of the interrupted code survives both
// (LTP signal06 checks the x87 side of the same path).
static volatile int segv_seen, segv_code;

static void segv_handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	segv_seen++;
	segv_code = si->si_code;
	clobber_vectors();
	uc->uc_mcontext.gregs[REG_RIP] += 2;	// skip the ud2 whose SIGILL had no frame
}

static void test_frame_fault_gives_sigsegv(void)
{
	static char altstack[64 * 1024] __attribute__((aligned(4096)));
	stack_t st = { .ss_sp = altstack, .ss_size = sizeof(altstack) }, off = { .ss_flags = SS_DISABLE };
	struct sigaction sa, old_ill, old_segv;
	struct vec_image in, out;
	int ok;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = segv_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGILL, NULL, &old_ill);
	sa = old_ill;
	sa.sa_flags |= SA_ONSTACK;
	sigaction(SIGILL, &sa, NULL);
	sigaltstack(&st, NULL);
	mprotect(altstack, sizeof(altstack), PROT_READ);
	segv_seen = 0;
	handler_mode = CLOBBER_ONLY;
	fill_pattern(&in, 77);
	run_ud2_with_vectors(&in, &out);
	mprotect(altstack, sizeof(altstack), PROT_READ | PROT_WRITE);
	sigaltstack(&off, NULL);
	sigaction(SIGILL, &old_ill, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	ok = images_equal(&in, &out, "after the failed frame");
	if (segv_seen != 1 || segv_code != SI_KERNEL) {
		ktap_diag("SIGSEGV handler ran %d times, si_code %#x", segv_seen, segv_code);
		ok = 0;
	}
	ktap_result(ok, "frame_fault_gives_sigsegv_keeping_vectors");
}

static void test_preserved_across_handler(void)
{
	struct vec_image in, out;
	unsigned mxcsr;
	int ok = 1;

	handler_mode = CLOBBER_ONLY;
	for (unsigned round = 0; round < 20 && ok; round++) {
		fill_pattern(&in, round + 2);
		memset(&out, 0, sizeof(out));
		mxcsr = run_ud2_with_vectors(&in, &out);
		ok = images_equal(&in, &out, "after handler") && (mxcsr & 0xffbf) == 0x3f80;
		if ((mxcsr & 0xffbf) != 0x3f80)
			ktap_diag("mxcsr after handler %#x", mxcsr);
	}
	ktap_result(ok, "%s_preserved_across_clobbering_handler", has_avx ? "ymm" : "xmm");
}

static void test_handler_edits_fpstate(void)
{
	struct vec_image in, out, want;

	fill_pattern(&in, 40);
	fill_pattern(&edit_value, 99);
	want = in;
	memcpy(want.reg[5], edit_value.reg[5], 32);
	handler_mode = EDIT_FPSTATE;
	run_ud2_with_vectors(&in, &out);
	handler_mode = CLOBBER_ONLY;
	ktap_result(images_equal(&want, &out, "after edit"), "handler_edit_of_fpstate_%s_applied",
		    has_avx ? "ymm5" : "xmm5");
}

// An asynchronous signal: it arrives while the code spins with live vector
// registers, through an interrupt or a switch rather than a trap.
static atomic_int async_handled;
static pid_t spinner_tid;

static void async_handler(int sig)
{
	(void)sig;
	clobber_vectors();
	atomic_store(&async_handled, 1);
}

static void *async_sender(void *arg)
{
	(void)arg;
	sleep_ms(20);
	syscall(SYS_tgkill, getpid(), spinner_tid, SIGUSR1);
	return NULL;
}

static void spin_until_handled(const struct vec_image *in, struct vec_image *out)
{
	if (has_avx)
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "vmovdqu \\i*32(%[src]), %%ymm\\i\n\t"
				 ".endr\n\t"
				 "1: pause\n\t"
				 "cmpl $0, %[flag]\n\t"
				 "je 1b\n\t"
				 ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "vmovdqu %%ymm\\i, \\i*32(%[dst])\n\t"
				 ".endr"
				 :: [src] "r"(in->reg), [dst] "r"(out->reg), [flag] "m"(async_handled)
				 : "memory", VEC_CLOBBERS);
	else
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "movdqu \\i*32(%[src]), %%xmm\\i\n\t"
				 ".endr\n\t"
				 "1: pause\n\t"
				 "cmpl $0, %[flag]\n\t"
				 "je 1b\n\t"
				 ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "movdqu %%xmm\\i, \\i*32(%[dst])\n\t"
				 ".endr"
				 :: [src] "r"(in->reg), [dst] "r"(out->reg), [flag] "m"(async_handled)
				 : "memory", VEC_CLOBBERS);
}

static void test_async_signal(void)
{
	struct vec_image in, out;
	pthread_t sender;
	int ok = 1;

	signal(SIGUSR1, async_handler);
	spinner_tid = (pid_t)syscall(SYS_gettid);
	for (unsigned round = 0; round < 5 && ok; round++) {
		fill_pattern(&in, 200 + round);
		atomic_store(&async_handled, 0);
		pthread_create(&sender, NULL, async_sender, NULL);
		spin_until_handled(&in, &out);
		pthread_join(sender, NULL);
		ok = images_equal(&in, &out, "async signal");
	}
	signal(SIGUSR1, SIG_DFL);
	ktap_result(ok, "%s_preserved_across_async_signal", has_avx ? "ymm" : "xmm");
}

// ---- threads keep their own registers across switches ----

#define SWITCH_ROUNDS 40
#define YIELDS_PER_ROUND 25

struct vec_thread {
	pthread_t thread;
	unsigned seed;
	int cpu_a, cpu_b;	// the thread hops between these two CPUs
	int errors;
	int rounds_done;
};

// With the registers live: yield (and, when the masks differ, migrate)
// 'count' times, all inside one asm block.
static void hold_vectors_through_syscalls(const struct vec_image *in, struct vec_image *out,
					  cpu_set_t *mask_a, cpu_set_t *mask_b, long count)
{
	if (has_avx)
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "vmovdqu \\i*32(%[src]), %%ymm\\i\n\t"
				 ".endr\n\t"
				 "1:\n\t"
				 "movl $203, %%eax\n\t"	// sched_setaffinity(0, size, mask)
				 "xorl %%edi, %%edi\n\t"
				 "movl %[size], %%esi\n\t"
				 "movq %[ma], %%rdx\n\t"
				 "xchgq %[ma], %[mb]\n\t"
				 "syscall\n\t"
				 "movl $24, %%eax\n\t"	// sched_yield()
				 "syscall\n\t"
				 "decq %[n]\n\t"
				 "jnz 1b\n\t"
				 ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "vmovdqu %%ymm\\i, \\i*32(%[dst])\n\t"
				 ".endr"
				 : [n] "+r"(count), [ma] "+r"(mask_a), [mb] "+r"(mask_b)
				 : [src] "r"(in->reg), [dst] "r"(out->reg), [size] "i"(sizeof(cpu_set_t))
				 : "rax", "rcx", "rdx", "rsi", "rdi", "r11", "memory", VEC_CLOBBERS);
	else
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "movdqu \\i*32(%[src]), %%xmm\\i\n\t"
				 ".endr\n\t"
				 "1:\n\t"
				 "movl $203, %%eax\n\t"
				 "xorl %%edi, %%edi\n\t"
				 "movl %[size], %%esi\n\t"
				 "movq %[ma], %%rdx\n\t"
				 "xchgq %[ma], %[mb]\n\t"
				 "syscall\n\t"
				 "movl $24, %%eax\n\t"
				 "syscall\n\t"
				 "decq %[n]\n\t"
				 "jnz 1b\n\t"
				 ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "movdqu %%xmm\\i, \\i*32(%[dst])\n\t"
				 ".endr"
				 : [n] "+r"(count), [ma] "+r"(mask_a), [mb] "+r"(mask_b)
				 : [src] "r"(in->reg), [dst] "r"(out->reg), [size] "i"(sizeof(cpu_set_t))
				 : "rax", "rcx", "rdx", "rsi", "rdi", "r11", "memory", VEC_CLOBBERS);
}

static void *vec_thread_body(void *arg)
{
	struct vec_thread *t = arg;
	cpu_set_t mask_a, mask_b;
	struct vec_image in, out;

	CPU_ZERO(&mask_a);
	CPU_SET(t->cpu_a, &mask_a);
	CPU_ZERO(&mask_b);
	CPU_SET(t->cpu_b, &mask_b);
	sched_setaffinity(0, sizeof(mask_a), &mask_a);
	for (int round = 0; round < SWITCH_ROUNDS; round++) {
		fill_pattern(&in, t->seed * 1000 + (unsigned)round);
		memset(&out, 0, sizeof(out));
		hold_vectors_through_syscalls(&in, &out, &mask_a, &mask_b, YIELDS_PER_ROUND);
		for (int r = 0; r < 16; r++)
			if (memcmp(in.reg[r], out.reg[r], image_width()) != 0)
				t->errors++;
		t->rounds_done++;
	}
	return NULL;
}

static void run_vec_threads(const char *name, int nthreads, const int *cpu_a, const int *cpu_b)
{
	struct vec_thread t[nthreads];
	int errors = 0, rounds = 0;

	for (int i = 0; i < nthreads; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].seed = (unsigned)i + 1;
		t[i].cpu_a = cpu_a[i];
		t[i].cpu_b = cpu_b[i];
		pthread_create(&t[i].thread, NULL, vec_thread_body, &t[i]);
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_join(t[i].thread, NULL);
		errors += t[i].errors;
		rounds += t[i].rounds_done;
	}
	if (errors)
		ktap_diag("%s: %d registers held foreign or lost values", name, errors);
	ktap_result(errors == 0 && rounds == nthreads * SWITCH_ROUNDS, "%s", name);
}

static void test_threads_same_cpu(void)
{
	int cpus[3] = { cpu_list[0], cpu_list[0], cpu_list[0] };

	run_vec_threads("threads_keep_vectors_same_cpu", 3, cpus, cpus);
}

static void test_threads_different_cpus(void)
{
	int a[2] = { cpu_list[0], cpu_list[nr_cpus - 1] };

	if (nr_cpus < 2) {
		ktap_skip("threads_keep_vectors_different_cpus", "one CPU");
		return;
	}
	run_vec_threads("threads_keep_vectors_different_cpus", 2, a, a);
}

static void test_threads_migrating(void)
{
	// Four threads hop between two CPUs on every iteration, with their
	// registers live: state must follow each thread to its new CPU.
	int a[4], b[4];

	if (nr_cpus < 2) {
		ktap_skip("threads_keep_vectors_while_migrating", "one CPU");
		return;
	}
	for (int i = 0; i < 4; i++) {
		a[i] = cpu_list[i % 2 == 0 ? 0 : nr_cpus - 1];
		b[i] = cpu_list[i % 2 == 0 ? nr_cpus - 1 : 0];
	}
	run_vec_threads("threads_keep_vectors_while_migrating", 4, a, b);
}

// A thread that never touches vectors must not see another's values: it
// reads its registers (which it never wrote) after many switches with a
// thread holding a pattern.  The initial state of a new thread is whatever
// its creator left (clone copies it), so compare against a pre-read.
static void *snoop_body(void *arg)
{
	int *changed = arg;
	struct vec_image before, after;
	cpu_set_t mask;

	CPU_ZERO(&mask);
	CPU_SET(cpu_list[0], &mask);
	sched_setaffinity(0, sizeof(mask), &mask);
	// Snapshot, yield many times, snapshot: nothing in between writes them.
	if (has_avx)
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "vmovdqu %%ymm\\i, \\i*32(%[b])\n\t"
				 ".endr\n\t"
				 "movq $400, %%r8\n\t"
				 "1: movl $24, %%eax\n\t"
				 "syscall\n\t"
				 "decq %%r8\n\t"
				 "jnz 1b\n\t"
				 ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "vmovdqu %%ymm\\i, \\i*32(%[a])\n\t"
				 ".endr"
				 :: [b] "r"(before.reg), [a] "r"(after.reg)
				 : "rax", "rcx", "r8", "r11", "memory", VEC_CLOBBERS);
	else
		__asm__ volatile(".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "movdqu %%xmm\\i, \\i*32(%[b])\n\t"
				 ".endr\n\t"
				 "movq $400, %%r8\n\t"
				 "1: movl $24, %%eax\n\t"
				 "syscall\n\t"
				 "decq %%r8\n\t"
				 "jnz 1b\n\t"
				 ".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t"
				 "movdqu %%xmm\\i, \\i*32(%[a])\n\t"
				 ".endr"
				 :: [b] "r"(before.reg), [a] "r"(after.reg)
				 : "rax", "rcx", "r8", "r11", "memory", VEC_CLOBBERS);
	*changed = 0;
	for (int r = 0; r < 16; r++)
		if (memcmp(before.reg[r], after.reg[r], image_width()) != 0)
			(*changed)++;
	return NULL;
}

static void test_idle_thread_not_leaked_into(void)
{
	struct vec_thread writer;
	pthread_t snoop;
	int changed = -1;
	int cpu[1] = { cpu_list[0] };

	memset(&writer, 0, sizeof(writer));
	writer.seed = 77;
	writer.cpu_a = writer.cpu_b = cpu[0];
	pthread_create(&snoop, NULL, snoop_body, &changed);
	pthread_create(&writer.thread, NULL, vec_thread_body, &writer);
	pthread_join(writer.thread, NULL);
	pthread_join(snoop, NULL);
	if (changed)
		ktap_diag("passive thread saw %d registers change", changed);
	ktap_result(changed == 0 && writer.errors == 0, "passive_thread_sees_no_foreign_vectors");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	start_watchdog("vecsig", WATCHDOG_SECONDS);
	detect_cpu();
	install_sigill();
	ktap_plan(NR_CASES);
	ktap_diag("AVX %s (component 2 at %u), %d CPUs", has_avx ? "present" : "absent", ymm_hi_offset,
		  nr_cpus);

	test_fpstate_magic();
	test_preserved_across_handler();
	test_frame_fault_gives_sigsegv();
	test_handler_edits_fpstate();
	test_async_signal();
	test_threads_same_cpu();
	test_threads_different_cpus();
	test_threads_migrating();
	test_idle_thread_not_leaked_into();
	finish_watchdog();
	return ktap_finish();
}
