// tm: the seed's facility on POWER, transactional memory switched lazily,
// and the FP/VMX registers under every facility policy (ppc64 only).
//
// What QEMU's TCG allows: the TM instructions and SPRs trap while MSR[TM]
// is off and work once it is on, but every tbegin. fails, so no test here
// depends on a transaction succeeding.  The TM SPRs are written and read
// back with mtspr/mfspr (TFHAR, TFIAR, TEXASR), which is exactly the
// state the kernel switches.  Counters come from
// /proc/switchyard/thread_facilities ("TM traps loads saved on
// load_count"); the policy from /proc/switchyard/facilities, which also
// takes "policy NAME" to change it (root).
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
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcase.h"

#define PPC_FEATURE2_HTM	0x40000000
#define PPC_FEATURE2_HTM_NOSC	0x01000000

static int on_switchyard;
static int ncpus;

// ---- the registers ----

static uint64_t read_tfhar(void)
{
	uint64_t v;
	__asm__ volatile("mfspr %0, 128" : "=r"(v));
	return v;
}

struct tm_sprs {
	uint64_t tfhar, tfiar, texasr;
};

static void write_sprs(const struct tm_sprs *s)
{
	__asm__ volatile("mtspr 128, %0\n\tmtspr 129, %1\n\tmtspr 130, %2"
			 : : "r"(s->tfhar), "r"(s->tfiar), "r"(s->texasr) : "memory");
}

static void read_sprs(struct tm_sprs *s)
{
	__asm__ volatile("mfspr %0, 128\n\tmfspr %1, 129\n\tmfspr %2, 130"
			 : "=r"(s->tfhar), "=r"(s->tfiar), "=r"(s->texasr));
}

static int same_sprs(const struct tm_sprs *a, const struct tm_sprs *b)
{
	return a->tfhar == b->tfhar && a->tfiar == b->tfiar && a->texasr == b->texasr;
}

// FPR 14-17 and VR 20-21: callee-saved, so that libc between two reads
// keeps them as they were.
struct fpvec {
	double f[4];
	uint64_t v[2][2];
};

static void write_fpvec(const struct fpvec *s)
{
	__asm__ volatile("lfd 14, 0(%0)\n\tlfd 15, 8(%0)\n\tlfd 16, 16(%0)\n\tlfd 17, 24(%0)\n\t"
			 "li 9, 32\n\tlvx 20, %0, 9\n\tli 9, 48\n\tlvx 21, %0, 9"
			 : : "b"(s) : "r9", "fr14", "fr15", "fr16", "fr17", "v20", "v21", "memory");
}

static void read_fpvec(struct fpvec *s)
{
	__asm__ volatile("stfd 14, 0(%0)\n\tstfd 15, 8(%0)\n\tstfd 16, 16(%0)\n\tstfd 17, 24(%0)\n\t"
			 "li 9, 32\n\tstvx 20, %0, 9\n\tli 9, 48\n\tstvx 21, %0, 9"
			 : : "b"(s) : "r9", "memory");
}

static void clobber_fpvec(void)
{
	struct fpvec junk __attribute__((aligned(16))) = {
		{ -1.0, -2.0, -3.0, -4.0 }, { { ~0ULL, ~1ULL }, { ~2ULL, ~3ULL } } };
	write_fpvec(&junk);
}

// ---- Switchyard's counters ----

static char proc_text[65536];

static int read_text(const char *path)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while ((n = read(fd, proc_text + got, sizeof(proc_text) - 1 - got)) > 0)
		got += n;
	close(fd);
	proc_text[got] = 0;
	return (int)got;
}

struct counts {
	unsigned traps, loads;
};

// This thread's counters of facility 'name' ("TM", "FP", "VEC").
static int thread_counts(const char *name, struct counts *c)
{
	if (read_text("/proc/switchyard/thread_facilities") < 0)
		return fail("read /proc/switchyard/thread_facilities");
	for (char *line = strtok(proc_text, "\n"); line; line = strtok(NULL, "\n")) {
		char fac[16];
		if (sscanf(line, "%15s %u %u", fac, &c->traps, &c->loads) == 3 && !strcmp(fac, name))
			return 1;
	}
	return fail("no %s line in thread_facilities", name);
}

// The policy line of /proc/switchyard/facilities: "policy counter:256".
static int read_policy(char *name, size_t size)
{
	if (read_text("/proc/switchyard/facilities") < 0 || strncmp(proc_text, "policy ", 7))
		return 0;
	char *p = proc_text + 7;
	p[strcspn(p, " \n")] = 0;
	snprintf(name, size, "%.*s", (int)size - 1, p);
	return 1;
}

static int write_policy(const char *name)
{
	char cmd[64];
	int fd = open("/proc/switchyard/facilities", O_WRONLY);
	int n = snprintf(cmd, sizeof(cmd), "policy %s\n", name);
	int ok = fd >= 0 && write(fd, cmd, (size_t)n) == n;

	if (fd >= 0)
		close(fd);
	return ok;
}

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void yield_times(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		syscall(SYS_sched_yield);
}

// A partner on CPU 0 that writes its own TM SPRs and FP/VMX registers
// every round, so that whoever ran before must get its own back.
static atomic_int partner_stop;

static void *partner_loop(void *arg)
{
	struct tm_sprs mine = { 0x2000, 0x3000, 0 };

	(void)arg;
	pin_self(0);
	while (!atomic_load(&partner_stop)) {
		if (getauxval(AT_HWCAP2) & PPC_FEATURE2_HTM)
			write_sprs(&mine);
		clobber_fpvec();
		syscall(SYS_sched_yield);
	}
	return NULL;
}

static pthread_t start_partner(void)
{
	pthread_t t;

	atomic_store(&partner_stop, 0);
	pthread_create(&t, NULL, partner_loop, NULL);
	return t;
}

static void stop_partner(pthread_t t)
{
	atomic_store(&partner_stop, 1);
	pthread_join(t, NULL);
}

static int have_tm(void)
{
	return (getauxval(AT_HWCAP2) & PPC_FEATURE2_HTM) != 0;
}

// ---- cases ----

static void t_hwcap(void)
{
	unsigned long h = getauxval(AT_HWCAP2);

	check(!(h & PPC_FEATURE2_HTM) == !(h & PPC_FEATURE2_HTM_NOSC),
	      "HTM and HTM_NOSC come together (a system call aborts a transaction)");
}

static void t_first_use_traps_once(void)
{
	struct counts a, b, c;

	if (!have_tm())
		return skip("TM hidden (tm=off)");
	if (!on_switchyard)
		return skip("reads Switchyard's counters");
	if (!thread_counts("TM", &a))
		return;
	(void)read_tfhar();		// the first TM use of this thread
	if (!thread_counts("TM", &b))
		return;
	for (int i = 0; i < 100; i++)
		(void)read_tfhar();
	if (!thread_counts("TM", &c))
		return;
	check(a.traps == 0 && b.traps == 1, "the first mfspr TFHAR traps once");
	check(c.traps == 1, "later uses, with TM on, do not trap");
}

static void t_sigill_when_hidden(void)
{
	if (have_tm())
		return skip("TM present: see the other cases");
	pid_t pid = fork_child();
	if (pid == 0) {
		(void)read_tfhar();
		_exit(0);
	}
	check_killed_by(pid, SIGILL, "a TM instruction without TM");
}

// TFHAR keeps word-aligned addresses; TFIAR and TEXASR what is written
// (as QEMU keeps them).  What was read straight after writing is what
// must come back after switches and migrations.
static void t_sprs_survive_switches(void)
{
	struct tm_sprs want = { 0x10001234 & ~3UL, 0x10005678, 0x0000000100000001ULL }, now, got;

	if (!have_tm())
		return skip("TM hidden (tm=off)");
	pin_self(0);
	pthread_t p = start_partner();
	write_sprs(&want);
	read_sprs(&now);
	yield_times(200);
	read_sprs(&got);
	int ok = same_sprs(&now, &got);
	if (ncpus > 1) {
		pin_self(1);
		read_sprs(&got);
		ok = ok && same_sprs(&now, &got);
		pin_self(0);
		yield_times(50);
		read_sprs(&got);
		ok = ok && same_sprs(&now, &got);
	}
	stop_partner(p);
	if (!ok)
		ktap_diag("wrote %#lx %#lx %#lx, read %#lx %#lx %#lx, later %#lx %#lx %#lx",
			  want.tfhar, want.tfiar, want.texasr, now.tfhar, now.tfiar, now.texasr,
			  got.tfhar, got.tfiar, got.texasr);
	check(ok, "TFHAR, TFIAR and TEXASR survive 250 switches and two migrations");
}

// The seed's counter: after the trap the TM state is loaded eagerly at
// each switch-in while the u8 load count has not wrapped; some 256
// switches without a TM use later the facility is off again and the next
// use traps.  Under "lazy" every switch ends the window; under "eager"
// none does.
static void t_load_tm_decay(void)
{
	char policy[64];
	struct counts a, b, c;

	if (!have_tm())
		return skip("TM hidden (tm=off)");
	if (!on_switchyard)
		return skip("reads Switchyard's counters");
	if (!read_policy(policy, sizeof(policy)))
		return (void)fail("no policy line in /proc/switchyard/facilities");
	pin_self(0);
	pthread_t p = start_partner();
	yield_times(300);			// a window still open closes
	(void)read_tfhar();
	thread_counts("TM", &a);
	yield_times(10);
	(void)read_tfhar();
	thread_counts("TM", &b);
	yield_times(300);
	(void)read_tfhar();
	thread_counts("TM", &c);
	stop_partner(p);
	ktap_diag("policy %s: TM traps %u -> %u -> %u, loads %u -> %u -> %u", policy, a.traps,
		  b.traps, c.traps, a.loads, b.loads, c.loads);
	if (!strncmp(policy, "eager", 5)) {
		check(c.traps == a.traps, "eager: no trap once TM was on");
	} else if (!strncmp(policy, "lazy", 4)) {
		check(b.traps == a.traps + 1 && c.traps == b.traps + 1,
		      "lazy: a use after switches traps again");
	} else {
		check(b.traps == a.traps, "counter: a use 10 switches after the trap does not trap");
		check(c.traps == b.traps + 1, "counter: a use 300 switches later traps again");
		check(b.loads > a.loads, "counter: the state was loaded eagerly in the window");
	}
}

// FP and VMX values a thread keeps in callee-saved registers survive
// switches (the partner clobbers them), a signal handler that clobbers
// them, and fork (the child sees them; its own changes stay its own).
static void handler_clobbers(int sig)
{
	(void)sig;
	clobber_fpvec();
}

static int fpvec_round_trip(void)
{
	static const struct fpvec want __attribute__((aligned(16))) = {
		{ 1.5, 2.25, 3.125, 4.0625 },
		{ { 0x0123456789abcdefULL, 0xfedcba9876543210ULL }, { 0x1111, 0x2222 } } };
	struct fpvec got __attribute__((aligned(16)));
	int ok = 1;

	write_fpvec(&want);
	syscall(SYS_sched_yield);
	syscall(SYS_sched_yield);
	read_fpvec(&got);
	ok = ok && !memcmp(&got, &want, sizeof(got));
	write_fpvec(&want);
	raise(SIGUSR1);
	read_fpvec(&got);
	ok = ok && !memcmp(&got, &want, sizeof(got));
	write_fpvec(&want);
	pid_t pid = fork();
	if (pid == 0) {
		read_fpvec(&got);
		int same = !memcmp(&got, &want, sizeof(got));
		clobber_fpvec();
		_exit(same ? 0 : 1);
	}
	int status;
	waitpid(pid, &status, 0);
	read_fpvec(&got);
	ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0 && !memcmp(&got, &want, sizeof(got));
	return ok;
}

static void t_fpvec_every_policy(void)
{
	static const char *const policies[] = { "eager", "lazy", "counter:256", "counter:4",
						"deferred:256" };
	char old[64];
	int all = 1;

	if (!on_switchyard)
		return skip("switches Switchyard's policy");
	if (!read_policy(old, sizeof(old)))
		return (void)fail("no policy line");
	signal(SIGUSR1, handler_clobbers);
	pin_self(0);
	pthread_t p = start_partner();
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		if (!write_policy(policies[i])) {
			fail("cannot set policy %s", policies[i]);
			all = 0;
			break;
		}
		if (!fpvec_round_trip()) {
			fail("FP/VMX values lost under %s", policies[i]);
			all = 0;
		}
	}
	stop_partner(p);
	write_policy(old);
	signal(SIGUSR1, SIG_DFL);
	check(all, "FP/VMX survive switches, a signal and fork under every policy");
}

// A process that has never used FP or TM, run right after one that left
// values in those registers on the same CPU, must read its own initial
// state (zeros), never the other's.  The probe is a fresh exec of this
// program.
static int probe(void)
{
	struct fpvec got __attribute__((aligned(16)));
	struct tm_sprs sprs = { 0, 0, 0 };

	pin_self(0);
	read_fpvec(&got);
	if (have_tm())
		read_sprs(&sprs);
	for (int i = 0; i < 4; i++)
		if (got.f[i] != 0.0)
			return 1;
	if (got.v[0][0] || got.v[0][1] || got.v[1][0] || got.v[1][1])
		return 2;
	if (sprs.tfhar || sprs.tfiar || sprs.texasr)
		return 3;
	return 0;
}

static void t_no_leak_between_processes(void)
{
	static const struct fpvec secret __attribute__((aligned(16))) = {
		{ 42.0, 43.0, 44.0, 45.0 }, { { 0x5ec7e7, 0x5ec7e7 }, { 0x5ec7e7, 0x5ec7e7 } } };
	struct tm_sprs tm_secret = { 0x5ec7e0, 0x5ec7e4, 0x5ec7e8 };
	char policy[64] = "";
	int ok = 1;

	if (on_switchyard)
		read_policy(policy, sizeof(policy));
	pin_self(0);
	for (int round = 0; round < 3 && ok; round++) {
		write_fpvec(&secret);
		if (have_tm())
			write_sprs(&tm_secret);
		pid_t pid = fork();
		if (pid == 0) {
			char *args[] = { "/proc/self/exe", "--probe", NULL };
			execv("/proc/self/exe", args);
			_exit(99);
		}
		int status;
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			ktap_diag("probe under %s: status %#x", policy, status);
			ok = 0;
		}
	}
	check(ok, "a fresh process sees zeros, not the last process's FP/VMX/TM values");
}

static const struct test_case cases[] = {
	{ "hwcap_htm_nosc", t_hwcap },
	{ "first_use_traps_once", t_first_use_traps_once },
	{ "sigill_when_hidden", t_sigill_when_hidden },
	{ "sprs_survive_switches_and_migrations", t_sprs_survive_switches },
	{ "load_tm_decay", t_load_tm_decay },
	{ "fp_vmx_every_policy", t_fpvec_every_policy },
	{ "no_leak_between_processes", t_no_leak_between_processes },
};

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--probe"))
		return probe();
	on_switchyard = access("/proc/switchyard/facilities", R_OK) == 0;
	ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	run_cases(cases, sizeof(cases) / sizeof(cases[0]));
	return ktap_finish();
}
