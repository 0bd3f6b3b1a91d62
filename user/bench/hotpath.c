// hotpath: the operations whose instruction budgets docs/benchmarking.md
// sets, one at a time, each run N times inside a profile window
// (user/lib/profmark.h) so that ./switchyard profile can say where every
// instruction of one operation goes.  The same static binary runs on
// Switchyard and on Linux; without the profiler the markers do nothing.
//
//   hotpath [-n N] [-w WARMUP] [-c CPU] [-K] OP...
//
// OP is one of
//   getppid      the null system call
//   read_zero    read(2) of one byte from /dev/zero
//   write_null   write(2) of one byte to /dev/null
//   mb_private   membarrier(PRIVATE_EXPEDITED) of a registered process, alone
//   mb_sibling   the same with a thread of the process spinning on the
//                next CPU: every call is an IPI round trip, and under the
//                profiler both CPUs' instructions count (needs 2 CPUs)
//   pipe         two threads pass a byte through two pipes (a switch each way)
//   futex        the same through a futex word (FUTEX_WAIT/FUTEX_WAKE)
//   yield        two threads calling sched_yield
//   pipe_proc    pipe between two processes (an address-space switch each way)
//   pipe:T       T threads in T/2 such pipe pairs at once, so that about T/2
//                threads are runnable at any time (hackbench's load, without
//                its batching: every hand-off is a wake-up and a switch)
//   futex:T      the same with futex pairs
//   yield:T      T threads calling sched_yield, all runnable
//   sleep:T      T threads each in a loop of nanosleeps of (T - 1) us,
//                timer slack 1 ns: each sleep arms a timer, switches away
//                and is woken by its timer's interrupt.  The sleep is
//                shorter than the others' turns take, so another thread
//                is always runnable (an idle CPU would count its polling),
//                and long enough that many of the T sleep at once, their
//                timers queued (a few hundred at T = 1000)
// All threads run on CPU (-c, default 0).  Each OP runs WARMUP times
// (default N/10; sleep:T's threads about WARMUP/T times each), then N
// times (default 10000) inside window K, its place in the list (1, 2,
// ...), and prints
//   RESULT hotpath op=OP window=K ops=N switches=S involuntary=I ns=NS ns_per_op=X
// where an operation of the switch kinds is one switch: S, the voluntary
// and involuntary switches getrusage reports for the process (both
// kernels count them; I of them involuntary: preemptions), is what N
// means for them; one of sleep:T is one nanosleep, whose wake-up may or
// may not preempt the thread running then (counted per switch, that mix
// would move the figure).  ns_per_op is wall time per operation (under
// -icount shift=0, instructions).
// With -K it then prints the kernel's text symbols from /proc/kallsyms
// (mounting /proc if it must) as "KSYM ADDRESS NAME" lines: Debian ships
// Linux's System.map only in its 800 MB debug package, so the profile of
// the Linux guest takes its symbols from the guest itself.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profmark.h"
#include "sysutil.h"

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_PRIVATE_FLAG 128
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED		(1 << 3)
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED	(1 << 4)
#define MAX_WINDOWS 32
#define RING_MAX 4096

static long n_ops = 10000, n_warm = -1;
static int cpu;

static void die(const char *what)
{
	fprintf(stderr, "hotpath: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long involuntary(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nivcsw;
}

static long switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

// The window's marks, with constant ids (the marker encodes them).
static void mark(int window, int start)
{
	switch (window) {
#define W(i) case i: if (start) profmark_start(i); else profmark_stop(i); break;
	W(1) W(2) W(3) W(4) W(5) W(6) W(7) W(8) W(9) W(10) W(11) W(12) W(13) W(14) W(15) W(16)
	W(17) W(18) W(19) W(20) W(21) W(22) W(23) W(24) W(25) W(26) W(27) W(28) W(29) W(30)
	W(31) W(32)
#undef W
	}
}

struct window {
	int id;
	long long t0, t1;
	long sw0, sw1;
	long inv0, inv1;
};

static void window_open(struct window *w)
{
	w->inv0 = involuntary();
	w->sw0 = switches();
	w->t0 = now_ns(CLOCK_MONOTONIC);
	mark(w->id, 1);
}

static void window_close(struct window *w)
{
	mark(w->id, 0);
	w->t1 = now_ns(CLOCK_MONOTONIC);
	w->sw1 = switches();
	w->inv1 = involuntary();
}

static void report(const char *op, const struct window *w, long ops)
{
	long sw = w->sw1 - w->sw0;
	long long ns = w->t1 - w->t0;

	printf("RESULT hotpath op=%s window=%d ops=%ld switches=%ld involuntary=%ld ns=%lld "
	       "ns_per_op=%.1f\n", op, w->id, ops, sw, w->inv1 - w->inv0, ns,
	       ops ? (double)ns / (double)ops : 0.0);
	fflush(stdout);
}

// ---- system calls alone ----

static void op_syscall(const char *op, struct window *w)
{
	char byte = 0;
	int fd = -1;

	if (!strcmp(op, "read_zero") && (fd = open("/dev/zero", O_RDONLY)) < 0)
		die("/dev/zero");
	if (!strcmp(op, "write_null") && (fd = open("/dev/null", O_WRONLY)) < 0)
		die("/dev/null");
	if (!strncmp(op, "mb_", 3) &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0)
		die("membarrier register");
	for (int pass = 0; pass < 2; pass++) {
		long n = pass ? n_ops : n_warm;
		if (pass)
			window_open(w);
		if (!strcmp(op, "getppid")) {
			for (long i = 0; i < n; i++)
				syscall(SYS_getppid);
		} else if (!strcmp(op, "read_zero")) {
			for (long i = 0; i < n; i++)
				if (read(fd, &byte, 1) != 1)
					die("read");
		} else if (!strcmp(op, "write_null")) {
			for (long i = 0; i < n; i++)
				if (write(fd, &byte, 1) != 1)
					die("write");
		} else {
			for (long i = 0; i < n; i++)
				syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
		}
		if (pass)
			window_close(w);
	}
	if (fd >= 0)
		close(fd);
	report(op, w, n_ops);
}

static atomic_int sibling_stop;

static void *sibling_spin(void *arg)
{
	(void)arg;
	if (pin_self(cpu + 1) != 0)
		die("sched_setaffinity (mb_sibling needs a second CPU)");
	while (!atomic_load_explicit(&sibling_stop, memory_order_relaxed))
		;
	return NULL;
}

// mb_private with a busy sibling on the next CPU, which each call must
// interrupt.
static void op_mb_sibling(struct window *w)
{
	pthread_t t;

	atomic_store(&sibling_stop, 0);
	if (pthread_create(&t, NULL, sibling_spin, NULL) != 0)
		die("pthread_create");
	usleep(20000);		// the sibling is running there
	op_syscall("mb_sibling", w);
	atomic_store(&sibling_stop, 1);
	pthread_join(t, NULL);
}

// ---- switches: T sides in pairs, each waiting for a token ----
//
// Side i waits on its own pipe (or futex word), then hands the token to
// its partner i^1: every pair is a ping-pong, and T/2 of them run at
// once on one CPU.  Yielding sides just yield: all T stay runnable.
// Side 0 (the main thread) opens and closes the window; the other sides
// go on until it has closed it, so the load is the same throughout
// (with a fixed number of rounds each, the threads that had done theirs
// exited inside the window, and their exits counted as switches' cost).

enum ring_kind { RING_PIPE, RING_FUTEX, RING_YIELD };

struct ring {
	enum ring_kind kind;
	int sides;
	long rounds;			// hand-offs side 0 makes in the window
	_Atomic int stop;		// side 0 is done: the others end
	int (*fd)[2];			// per side: its pipe
	_Atomic int *word;		// per side: tokens waiting (futex ring)
	pthread_barrier_t go;
	int processes;
	struct window win;		// side 0's
};

static long futex(_Atomic int *addr, int op, int val)
{
	return syscall(SYS_futex, addr, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

static void take_token(struct ring *r, int side)
{
	char c;

	switch (r->kind) {
	case RING_PIPE:
		if (read(r->fd[side][0], &c, 1) != 1)
			die("ring read");
		break;
	case RING_FUTEX:
		for (;;) {
			int v = atomic_load(&r->word[side]);
			if (v > 0 && atomic_compare_exchange_weak(&r->word[side], &v, v - 1))
				break;
			if (v <= 0)
				futex(&r->word[side], FUTEX_WAIT, 0);
		}
		break;
	case RING_YIELD:
		break;
	}
}

static void pass_token(struct ring *r, int side)
{
	int next = side ^ 1;
	char c = 1;

	switch (r->kind) {
	case RING_PIPE:
		if (write(r->fd[next][1], &c, 1) != 1)
			die("ring write");
		break;
	case RING_FUTEX:
		if (atomic_fetch_add(&r->word[next], 1) == 0)
			futex(&r->word[next], FUTEX_WAKE, 1);
		break;
	case RING_YIELD:
		sched_yield();
		break;
	}
}

static void side_loop(struct ring *r, int side, long rounds)
{
	for (long i = 0; i < rounds; i++) {
		take_token(r, side);
		pass_token(r, side);
	}
}

// A side other than 0: hands on until side 0 is done.  Seeing 'stop', it
// passes once more: its partner may have taken its last token and be
// waiting for the next (side 0, done, sets 'stop' and passes once more
// for side 1 likewise).  Tokens may be left unread: no matter.
static void side_run(struct ring *r, int side)
{
	while (!atomic_load(&r->stop)) {
		take_token(r, side);
		pass_token(r, side);
	}
	pass_token(r, side);
}

struct side_arg {
	struct ring *r;
	int side;
};

// Every side is a new thread (or process) made the same way, running
// SCHED_BATCH; side 0 also opens and closes the window.
static void run_side(struct ring *r, int side)
{
	struct sched_param batch = { 0 };

	pin_self(cpu);
	// SCHED_BATCH: a wake-up never preempts (on Linux as here), so every
	// switch of a ping-pong is the waiting side blocking.  Under
	// SCHED_OTHER whether the woken side preempts the waker depends on
	// how far apart their virtual runtimes happen to start, and the same
	// operation measured as a mix of two paths that changed with it.
	if (syscall(SYS_sched_setscheduler, 0, SCHED_BATCH, &batch) != 0)
		die("sched_setscheduler(SCHED_BATCH)");
	pthread_barrier_wait(&r->go);
	if (side != 0) {
		side_run(r, side);
		return;
	}
	side_loop(r, 0, n_warm);
	window_open(&r->win);
	side_loop(r, 0, r->rounds);
	window_close(&r->win);
	atomic_store(&r->stop, 1);
	pass_token(r, 0);
}

static void *side_thread(void *p)
{
	struct side_arg *a = p;

	run_side(a->r, a->side);
	return NULL;
}

// Puts the first tokens in: one in each pair, at its even side.
static void seed_tokens(struct ring *r)
{
	for (int side = 0; side < r->sides && r->kind != RING_YIELD; side += 2) {
		if (r->kind == RING_PIPE) {
			char c = 1;
			if (write(r->fd[side][1], &c, 1) != 1)
				die("seed");
		} else {
			atomic_fetch_add(&r->word[side], 1);
		}
	}
}

// A pipe ring of T sides needs 2T descriptors: the soft limit (1024 on
// both kernels) goes up to the hard one (4096) when it must.
static void room_for_fds(long n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || (rlim_t)n <= rl.rlim_cur)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		die("setrlimit(RLIMIT_NOFILE)");
}

static void op_ring(const char *op, enum ring_kind kind, int sides, int processes,
		    struct window *w)
{
	struct ring *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			      -1, 0);
	pthread_t *tids = calloc((size_t)sides, sizeof(*tids));
	struct side_arg *args = calloc((size_t)sides, sizeof(*args));
	pid_t *children = calloc((size_t)sides, sizeof(*children));

	if (r == MAP_FAILED || !tids || !args || !children)
		die("memory");
	r->kind = kind;
	r->sides = sides;
	r->processes = processes;
	r->rounds = n_ops / sides ? n_ops / sides : 1;
	r->win = *w;
	r->fd = calloc((size_t)sides, sizeof(*r->fd));
	r->word = mmap(NULL, (size_t)sides * sizeof(*r->word), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!r->fd || r->word == MAP_FAILED)
		die("memory");
	if (kind == RING_PIPE)
		room_for_fds(2 * sides + 16);
	for (int i = 0; i < sides && kind == RING_PIPE; i++)
		if (pipe(r->fd[i]) != 0)
			die("pipe");
	pthread_barrierattr_t ba;
	pthread_barrierattr_init(&ba);
	if (processes)
		pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(&r->go, &ba, (unsigned)sides);
	seed_tokens(r);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 0; i < sides; i++) {
		if (processes) {
			children[i] = fork();
			if (children[i] < 0)
				die("fork");
			if (children[i] == 0) {
				run_side(r, i);
				_exit(0);
			}
			continue;
		}
		args[i] = (struct side_arg){ r, i };
		if (pthread_create(&tids[i], &attr, side_thread, &args[i]) != 0)
			die("pthread_create");
	}
	for (int i = 0; i < sides; i++) {
		if (processes)
			waitpid(children[i], NULL, 0);
		else
			pthread_join(tids[i], NULL);
	}
	*w = r->win;
	// A switch is what getrusage counted: a pipe or futex side blocks
	// once per hand-off, a yielding side switches at each yield.  A
	// process's count is its own: for processes, count the hand-offs.
	long ops = processes ? (long)sides * r->rounds : w->sw1 - w->sw0;
	report(op, w, ops);
	for (int i = 0; i < sides && kind == RING_PIPE; i++) {
		close(r->fd[i][0]);
		close(r->fd[i][1]);
	}
	munmap(r->word, (size_t)sides * sizeof(*r->word));
	free(r->fd);
	munmap(r, sizeof(*r));
	free(tids);
	free(args);
	free(children);
}

// ---- sleeps: T threads in a loop of short nanosleeps ----
//
// The others sleep until side 0 has closed its window, so the load is
// the same from its first sleep to its last.

struct sleepers {
	struct timespec nap;
	_Atomic int stop;
	_Atomic long naps;		// all threads' sleeps so far
	pthread_barrier_t go;
};

static void nap(struct sleepers *s)
{
	if (nanosleep(&s->nap, NULL) != 0)
		die("nanosleep");
	atomic_fetch_add_explicit(&s->naps, 1, memory_order_relaxed);
}

static void *sleeper_thread(void *p)
{
	struct sleepers *s = p;

	pin_self(cpu);
	pthread_barrier_wait(&s->go);
	while (!atomic_load(&s->stop))
		nap(s);
	return NULL;
}

static void op_sleep(const char *op, int threads, struct window *w)
{
	static struct sleepers s;
	pthread_t *tids = calloc((size_t)threads, sizeof(*tids));
	long rounds = n_ops / threads ? n_ops / threads : 1, naps;
	pthread_attr_t attr;

	if (!tids)
		die("memory");
	// Inherited by the threads made below.
	if (prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) != 0)
		die("PR_SET_TIMERSLACK");
	s.nap = (struct timespec){ 0, 1000L * (threads - 1) };
	atomic_store(&s.stop, 0);
	pthread_barrier_init(&s.go, NULL, (unsigned)threads);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 1; i < threads; i++)
		if (pthread_create(&tids[i], &attr, sleeper_thread, &s) != 0)
			die("pthread_create");
	pthread_barrier_wait(&s.go);
	// The others sleep as often as side 0: n_warm sleeps in all (each
	// of side 0's is T us of the virtual clock, and 2000 of them took
	// minutes of TCG at T = 1000).
	for (long i = 0; i <= n_warm / threads; i++)
		nap(&s);
	naps = atomic_load(&s.naps);
	window_open(w);
	for (long i = 0; i < rounds; i++)
		nap(&s);
	window_close(w);
	naps = atomic_load(&s.naps) - naps;
	atomic_store(&s.stop, 1);
	for (int i = 1; i < threads; i++)
		pthread_join(tids[i], NULL);
	pthread_barrier_destroy(&s.go);
	prctl(PR_SET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
	report(op, w, naps);
	free(tids);
}

// The kernel's text symbols, for the profile's report.
static void dump_kallsyms(void)
{
	char line[512], name[256];
	unsigned long long addr;
	char type;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f) {
		mkdir("/proc", 0555);
		mount("proc", "/proc", "proc", 0, NULL);
		f = fopen("/proc/kallsyms", "r");
	}
	if (!f) {
		printf("# hotpath: no /proc/kallsyms: %s\n", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && addr &&
		    (type == 't' || type == 'T'))
			printf("KSYM %llx %s\n", addr, name);
	fclose(f);
	fflush(stdout);
}

static void usage(void)
{
	fprintf(stderr, "usage: hotpath [-n N] [-w WARMUP] [-c CPU] [-K] OP...\n"
			"  OP: getppid read_zero write_null mb_private mb_sibling pipe futex yield\n"
			"      pipe_proc pipe:THREADS futex:THREADS yield:THREADS sleep:THREADS\n");
	exit(2);
}

static void run_op(const char *op, int id)
{
	struct window w = { .id = id };
	int t;

	if (!strcmp(op, "getppid") || !strcmp(op, "read_zero") || !strcmp(op, "write_null") ||
	    !strcmp(op, "mb_private"))
		op_syscall(op, &w);
	else if (!strcmp(op, "mb_sibling"))
		op_mb_sibling(&w);
	else if (!strcmp(op, "pipe"))
		op_ring(op, RING_PIPE, 2, 0, &w);
	else if (!strcmp(op, "futex"))
		op_ring(op, RING_FUTEX, 2, 0, &w);
	else if (!strcmp(op, "yield"))
		op_ring(op, RING_YIELD, 2, 0, &w);
	else if (!strcmp(op, "pipe_proc"))
		op_ring(op, RING_PIPE, 2, 1, &w);
	else if (sscanf(op, "pipe:%d", &t) == 1 && t >= 2 && t % 2 == 0 && t <= RING_MAX)
		op_ring(op, RING_PIPE, t, 0, &w);
	else if (sscanf(op, "futex:%d", &t) == 1 && t >= 2 && t % 2 == 0 && t <= RING_MAX)
		op_ring(op, RING_FUTEX, t, 0, &w);
	else if (sscanf(op, "yield:%d", &t) == 1 && t >= 2 && t <= RING_MAX)
		op_ring(op, RING_YIELD, t, 0, &w);
	else if (sscanf(op, "sleep:%d", &t) == 1 && t >= 2 && t <= RING_MAX)
		op_sleep(op, t, &w);
	else
		usage();
}

int main(int argc, char **argv)
{
	int c, kallsyms = 0;

	while ((c = getopt(argc, argv, "n:w:c:K")) != -1) {
		switch (c) {
		case 'n': n_ops = atol(optarg); break;
		case 'w': n_warm = atol(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		case 'K': kallsyms = 1; break;
		default: usage();
		}
	}
	if (optind >= argc || n_ops <= 0 || argc - optind > MAX_WINDOWS)
		usage();
	if (n_warm < 0)
		n_warm = n_ops / 10;
	if (pin_self(cpu) != 0)
		die("sched_setaffinity");
	for (int i = optind; i < argc; i++)
		run_op(argv[i], i - optind + 1);
	if (kallsyms)
		dump_kallsyms();
	return 0;
}
