// A fixed-seed system-call fuzzer.
//
//	fuzz [-s SEED] [-c CHILDREN] [-n CALLS] [-t THREADS] [-j PARALLEL]
//	     [-d DEADLINE] [-F FIRST] [-C CHILD] [-v] [--safe]
//
// CHILDREN processes (PARALLEL at a time) each make CALLS system calls,
// split over THREADS threads that share the child's descriptors and
// memory and race on them.  Calls are drawn from the whole x86-64 system
// call table (numbers 0..462 and some beyond), with arguments made by
// generators that know what each argument is: descriptors, pointers to
// buffers the kernel reads or writes (valid, read-only, unmapped,
// straddling a boundary, NULL, the last user page, the first kernel page,
// non-canonical), lengths near powers of two and boundaries, flags,
// paths, process IDs, signals, clock values, iovec arrays, addresses for
// the memory calls.
//
// The seed fixes every call: thread T of child C makes the same calls
// with the same arguments whenever the seed, CALLS and THREADS are the
// same (results and timing may differ).  "-C C" runs child C alone, "-v"
// prints each of its calls before making it; "-F FIRST" runs children
// FIRST .. FIRST+CHILDREN-1 (to bisect a long run).  A run prints its seed and
// the command that reproduces it.
//
// The kernel must survive: every child ends (normally, by a signal, or
// killed with SIGKILL by the parent when it runs past DEADLINE seconds,
// which must end it at once), the system still forks, pipes and executes
// afterwards, and the memory comes back (/proc/switchyard/memstat, see
// user/lib/memstat.h).  The run prints statistics: calls made, results
// by errno, how the children ended, the calls that were in flight when
// children had to be killed.
//
// What a child may not do (the deny-list; everything else is fair game):
//   reboot, kexec_load, kexec_file_load  would end the machine, not test it
//   exit, exit_group               would only end the child's own run early
//   signals and process-directed calls to other processes: kill, tkill,
//     tgkill, rt_(tg)sigqueueinfo, pidfd_*, ptrace, prlimit64,
//     sched_set*, setpriority, process_vm_*, ... get process IDs only from
//     the child's own (its pid, its threads, its process group, 0) or
//     IDs no process has: random PIDs would kill the harness
//   setpgid                        only within the child's own group (so
//     that kill(0, ...) never reaches the parent); setsid is harmless
//   paths                          only names inside the child's scratch
//     directory (no "..", nothing absolute), so no real program can be
//     executed and no file outside be touched
//   memory calls                   only on the fuzzing arena or at the
//     boundary addresses, never on the fuzzer's own code, stack or data
//   syslog's console actions      would silence the kernel's own lines
// sethostname and setdomainname are fuzzed; the parent puts the names back
// when the children are done, so the programs after it see the system's.
// The clock too (clock_settime, settimeofday): it is put back where it
// would have been, the time zone to UTC and the NTP state (adjtimex) to
// boot's; process accounting a child turned on is turned off.
// So it does with the modes and owners of /dev/null and /dev/zero, which
// the children hold open (fchmod and fchown reach them; an unprivileged
// program after the fuzzer could no longer write to /dev/null), and it
// removes the System V message queues, semaphore sets and shared memory
// segments the children and the probe made (they outlive their makers, as
// on Linux; shmat, a memory call, attaches only on the arena).
// A forked or cloned child of a fuzzing thread exits at once, inside the
// asm statement of the call (user/lib/rawsys.h), touching no memory.
//
// On a system without /proc/switchyard (Linux), only calls that cannot
// harm the host are made (--safe, the allow-list below): the program is
// checked there, the kernel it fuzzes is Switchyard.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "memstat.h"
#include "rawsys.h"
#include "sysv_cleanup.h"

// ---- settings ----

#define MAX_THREADS	8
#define MAX_LANES	16
#define NR_MAX		480		// numbers fuzzed: 0 .. NR_MAX - 1, then a few beyond
#define NERRNO		134		// errno values counted one by one

static uint64_t seed = 1;
static int children = 8;
static long calls = 600;		// per child, split over its threads
static int nthreads = 3;
static int parallel = 2;
static int deadline = 4;		// seconds a child may run
static int only_child = -1;
static int first_child;
static int verbose;
static int safe_mode;

// Fixed addresses, so that a seed means the same pointers every time.
#define ARENA		0x200000000UL	// the memory fuzzed
#define ARENA_PAGES	64
#define ARENA_RW	48		// pages 0..47 read-write
#define ARENA_RO	56		// 48..55 read-only, 56..59 PROT_NONE, 60..63 unmapped
#define ARENA_NONE	60
#define PATHS		(ARENA - 4 * 4096)	// the path strings, read-only
#define STACKS		0x300000000UL	// thread stacks
#define STACK_SIZE	(64 * 1024)

#define PAGE		4096UL
#define LAST_USER_PAGE	0x7ffffffff000UL
#define USER_END	0x800000000000UL
#define KERNEL_FIRST	0xffff800000000000UL

// ---- statistics shared with the parent ----

// One per thread of a running child, in memory shared with the parent.
struct slot {
	volatile long calls;		// made so far
	volatile long skipped;		// denied
	volatile long ok;		// returned >= 0
	volatile long err[NERRNO + 1];	// -errno results (last: others)
	volatile long nr, a[6];		// the call in flight
	volatile int in_call;
	volatile int done;
};

struct lane {
	struct slot slot[MAX_THREADS];
};

static struct lane *lanes;		// MAP_SHARED, one per running child

// Which numbers the kernel implements (not ENOSYS), found once by a probe
// process before the children start; 7 draws in 8 pick among them, the
// rest from the whole table and beyond.  The same kernel gives the same
// list, so a seed still means the same calls.
static volatile unsigned char *implemented;	// MAP_SHARED, NR_MAX entries
static int implemented_nr[NR_MAX];
static int nimplemented;

// ---- randomness ----

struct rng {
	uint64_t s;
};

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t rnd(struct rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return mix64(r->s);
}

static uint64_t pick(struct rng *r, uint64_t n)
{
	return n ? rnd(r) % n : 0;
}

// ---- what each call takes ----
//
// One letter per argument:
//   f descriptor    p buffer the kernel reads    o buffer it writes
//   l length        s path                       F flags
//   m mode          a address (memory calls)     P process ID (own only)
//   g signal        i small number / command     t time (timespec ptr)
//   v iovec array   u uid or gid                 c clone flags
//   T timeout in ms x anything
// A leading '!' marks a call that ends a child's progress (blocks for
// good, or kills it): it is made one time in 64 it is drawn.
// A leading '-' marks a denied call (see the header).

static const char *const sig_table[NR_MAX] = {
	[0] = "fol", [1] = "fpl", [2] = "sFm", [3] = "f", [4] = "so", [5] = "fo",
	[6] = "so", [7] = "vlT", [8] = "fxi", [9] = "alFFfx", [10] = "alF", [11] = "al",
	[12] = "a", [13] = "gpol", [14] = "ipol", [15] = "!", [16] = "fix", [17] = "folx",
	[18] = "fplx", [19] = "fvl", [20] = "fvl", [21] = "si", [22] = "o",
	[23] = "iooot", [24] = "", [25] = "allFa", [26] = "alF", [27] = "alo", [28] = "ali",
	[29] = "ilF", [30] = "iaF", [31] = "iio", [32] = "f", [33] = "ff", [34] = "!",
	[35] = "to", [36] = "io", [37] = "i", [38] = "ipo", [39] = "", [40] = "ffol",
	[41] = "iii", [42] = "fpl", [43] = "fol", [44] = "fplFpl", [45] = "folFol",
	[46] = "fpF", [47] = "foF", [48] = "fi", [49] = "fpl", [50] = "fi", [51] = "foo",
	[52] = "foo", [53] = "iiio", [54] = "fiipl", [55] = "fiioo", [56] = "caoox",
	[57] = "", [58] = "", [59] = "soo", [60] = "-", [61] = "Pooo", [62] = "Pg",
	[63] = "o", [64] = "iiF", [65] = "ipl", [66] = "iiix", [67] = "a", [68] = "iF",
	[69] = "iplF", [70] = "iollF", [71] = "iio", [72] = "fix", [73] = "fi", [74] = "f",
	[75] = "f", [76] = "sl", [77] = "fl", [78] = "fol", [79] = "ol", [80] = "s",
	[81] = "f", [82] = "ss", [83] = "sm", [84] = "s", [85] = "sm", [86] = "ss",
	[87] = "s", [88] = "ss", [89] = "sol", [90] = "sm", [91] = "fm", [92] = "suu",
	[93] = "fuu", [94] = "suu", [95] = "m", [96] = "oo", [97] = "io", [98] = "io",
	[99] = "o", [100] = "o", [101] = "iPao", [102] = "", [103] = "iol", [104] = "",
	[105] = "u", [106] = "u", [107] = "", [108] = "", [109] = "PP", [110] = "",
	[111] = "", [112] = "", [113] = "uu", [114] = "uu", [115] = "lo", [116] = "lp",
	[117] = "uuu", [118] = "ooo", [119] = "uuu", [120] = "ooo", [121] = "P",
	[122] = "u", [123] = "u", [124] = "P", [125] = "po", [126] = "pp", [127] = "ol",
	[128] = "potl", [129] = "Pgp", [130] = "!pl", [131] = "po", [132] = "sp",
	[133] = "smi", [134] = "s", [135] = "i", [136] = "io", [137] = "so", [138] = "fo",
	[139] = "ixx", [140] = "iP", [141] = "iPi", [142] = "Pp", [143] = "Po",
	[144] = "Pip", [145] = "P", [146] = "i", [147] = "i", [148] = "Po", [149] = "al",
	[150] = "al", [151] = "F", [152] = "", [153] = "", [154] = "iol", [155] = "ss",
	[156] = "p", [157] = "ixxxx", [158] = "ix", [159] = "o", [160] = "ip",
	[161] = "s", [162] = "", [163] = "s", [164] = "pp", [165] = "sssFp", [166] = "sF",
	[167] = "sF", [168] = "s", [169] = "-", [170] = "pl", [171] = "pl", [172] = "i",
	[173] = "lli", [174] = "", [175] = "plp", [176] = "pF", [177] = "", [178] = "",
	[179] = "isuo", [180] = "", [181] = "", [182] = "", [183] = "", [184] = "",
	[185] = "", [186] = "", [187] = "fll", [188] = "sspli", [189] = "sspli",
	[190] = "fspli", [191] = "ssol", [192] = "ssol", [193] = "fsol", [194] = "sol",
	[195] = "sol", [196] = "fol", [197] = "ss", [198] = "ss", [199] = "fs",
	[200] = "Pg", [201] = "o", [202] = "pixtpi", [203] = "Plp", [204] = "Plo",
	[205] = "p", [206] = "io", [207] = "x", [208] = "xllot", [209] = "xlp",
	[210] = "xpo", [211] = "o", [212] = "xol", [213] = "i", [214] = "", [215] = "",
	[216] = "alixF", [217] = "fol", [218] = "a", [219] = "", [220] = "iplt",
	[221] = "flli", [222] = "ipo", [223] = "iFpo", [224] = "io", [225] = "i",
	[226] = "i", [227] = "ip", [228] = "io", [229] = "io", [230] = "iFto",
	[231] = "-", [232] = "folT", [233] = "fiip", [234] = "PPg", [235] = "sp",
	[236] = "", [237] = "aliplF", [238] = "ipl", [239] = "oolaF", [240] = "sFmp",
	[241] = "s", [242] = "fplit", [243] = "folot", [244] = "fp", [245] = "fpo",
	[246] = "-", [247] = "iPoFo", [248] = "pppli", [249] = "pppi", [250] = "ixxxx",
	[251] = "iPi", [252] = "iP", [253] = "", [254] = "fsF", [255] = "fi",
	[256] = "Plpp", [257] = "fsFm", [258] = "fsm", [259] = "fsmi", [260] = "fsuuF",
	[261] = "fsp", [262] = "fsoF", [263] = "fsF", [264] = "fsfs", [265] = "fsfsF",
	[266] = "sfs", [267] = "fsol", [268] = "fsm", [269] = "fsi", [270] = "ioootp",
	[271] = "vltpl", [272] = "F", [273] = "pl", [274] = "Poo", [275] = "fofolF",
	[276] = "fflF", [277] = "fllF", [278] = "fvlF", [279] = "Plppoi", [280] = "fspF",
	[281] = "folTpl", [282] = "fpl", [283] = "iF", [284] = "i", [285] = "fill",
	[286] = "fFpo", [287] = "fo", [288] = "foF", [289] = "fplF", [290] = "iF",
	[291] = "F", [292] = "ffF", [293] = "oF", [294] = "F", [295] = "fvlll",
	[296] = "fvlll", [297] = "PPgp", [298] = "pPifF", [299] = "fplFt",
	[300] = "FF", [301] = "fFxfs", [302] = "Pipo", [303] = "fsooF", [304] = "fpF",
	[305] = "ip", [306] = "f", [307] = "fplF", [308] = "fi", [309] = "ooo",
	[310] = "Pvlvll", [311] = "Pvlvll", [312] = "PPixx", [313] = "fsF", [314] = "PpF",
	[315] = "PolF", [316] = "fsfsF", [317] = "iFp", [318] = "olF", [319] = "sF",
	[320] = "-", [321] = "ipl", [322] = "fsooF", [323] = "F", [324] = "iFi",
	[325] = "alF", [326] = "fofolF", [327] = "fvlllF", [328] = "fvlllF",
	[329] = "alFi", [330] = "Fi", [331] = "i", [332] = "fsFio", [333] = "xllotp",
	[334] = "plFi", [335] = "", [336] = "", [337] = "",
	[424] = "fgpF", [425] = "lp", [426] = "fiiFpl", [427] = "fipi", [428] = "fsF",
	[429] = "fsfsF", [430] = "sF", [431] = "fipoi", [432] = "fFF", [433] = "fsF",
	[434] = "PF", [435] = "pl", [436] = "ffF", [437] = "fspl", [438] = "ffF",
	[439] = "fsiF", [440] = "fvliF", [441] = "folitpl", [442] = "fsFpl", [443] = "fiuo",
	[444] = "plF", [445] = "fipF", [446] = "fF", [447] = "F", [448] = "fF",
	[449] = "pllt", [450] = "allF", [451] = "fpoF", [452] = "fsmF", [453] = "alF",
	[454] = "pllF", [455] = "pllFti", [456] = "plFl", [457] = "polF", [458] = "polF",
	[459] = "iolF", [460] = "iplF", [461] = "olF", [462] = "alF",
};

// Calls that cannot harm a host they run on (Linux): the allow-list of
// --safe.  None takes another process's ID or a path outside the scratch
// directory; blocking ones are left out.
static const int safe_calls[] = {
	0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 13, 14, 16, 17, 18, 19, 20, 21, 22, 24, 25, 26,
	28, 32, 33, 36, 37, 38, 39, 40, 63, 74, 76, 77, 79, 82, 83, 84, 85, 86, 87,
	88, 89, 90, 95, 96, 97, 98, 99, 100, 102, 104, 107, 108, 110, 111, 127, 131, 137,
	138, 145, 146, 186, 201, 204, 217, 218, 228, 229, 257, 258, 262, 263, 264, 267,
	269, 273, 274, 292, 293, 295, 296, 309, 318, 332,
};
#define NSAFE (int)(sizeof(safe_calls) / sizeof(safe_calls[0]))

static bool is_clone_call(long nr)
{
	return nr == SYS_clone || nr == SYS_fork || nr == SYS_vfork || nr == SYS_clone3;
}

// ---- argument generators ----

struct gen {
	struct rng r;
	pid_t pid;		// the child
	pid_t tids[MAX_THREADS];
	int ntids;
};

static uint64_t pick_of(struct rng *r, const uint64_t *v, size_t n)
{
	return v[pick(r, n)];
}
#define PICK(r, ...) pick_of(r, (const uint64_t[]){ __VA_ARGS__ }, \
			     sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

// A pointer: mostly into the arena (whatever its pages are at the time),
// else one of the boundary cases.
static uint64_t gen_ptr(struct rng *r, bool out)
{
	switch (pick(r, 16)) {
	case 0: return 0;
	case 1: return LAST_USER_PAGE + pick(r, PAGE);		// last user page
	case 2: return USER_END - 1 - pick(r, 64);		// straddles the top
	case 3: return KERNEL_FIRST + pick(r, 2) * pick(r, PAGE);	// first kernel page
	case 4: return PICK(r, 0x0000800000000000ULL, 0x8000000000000000ULL,
			    0xdead000000000000ULL, 0xffff7ffffffff000ULL);	// non-canonical
	case 5: return 0xffffffff80000000ULL + pick(r, 0x100000);	// kernel image
	case 6: return ARENA + ARENA_RO * PAGE - 1 - pick(r, 64);	// read-write to read-only
	case 7: return ARENA + ARENA_RW * PAGE + pick(r, 8 * PAGE);	// read-only pages
	case 8: return ARENA + ARENA_RO * PAGE + pick(r, 8 * PAGE);	// none / unmapped
	case 9: return PICK(r, 0x1000, 0x10000, 0x400000 - 4096);	// low, unmapped
	default:
		(void)out;
		return ARENA + pick(r, ARENA_RW * PAGE);	// read-write
	}
}

static uint64_t gen_len(struct rng *r)
{
	switch (pick(r, 12)) {
	case 0: return 0;
	case 1: return 1 + pick(r, 16);
	case 2: return PICK(r, 4095, 4096, 4097, 8192, 65536, 65537);
	case 3: return (1ULL << pick(r, 64)) + PICK(r, 0, 1, (uint64_t)-1);
	case 4: return PICK(r, 0x7fffffffULL, 0x80000000ULL, 0xffffffffULL, 0x100000000ULL,
			    0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL);
	case 5: return (uint64_t)-(int64_t)(1 + pick(r, 4096));	// negative
	case 6: return USER_END - ARENA;			// up to the user boundary
	default: return pick(r, 2 * PAGE);
	}
}

static uint64_t gen_fd(struct rng *r)
{
	switch (pick(r, 10)) {
	case 0: return PICK(r, (uint64_t)-1, (uint64_t)-100 /* AT_FDCWD */, 0x7fffffff,
			    0x80000000, 1024, 4096, (uint64_t)-2);
	case 1: return pick(r, 64);
	default: return pick(r, 16);		// the child's own: 0..9 and what it opened
	}
}

static uint64_t gen_flags(struct rng *r)
{
	switch (pick(r, 8)) {
	case 0: return 0;
	case 1: return 1ULL << pick(r, 64);
	case 2: return ~0ULL;
	case 3: return rnd(r);
	case 4: return rnd(r) & 0xffffffff;
	default: return (1ULL << pick(r, 24)) | (1ULL << pick(r, 24)) | pick(r, 4);
	}
}

static uint64_t gen_small(struct rng *r)
{
	switch (pick(r, 8)) {
	case 0: return rnd(r);
	case 1: return (uint64_t)-(int64_t)pick(r, 4);
	case 2: return PICK(r, 0x7fffffff, 0x80000000, 0xffffffff, 1ULL << 32);
	default: return pick(r, 32);
	}
}

// Process IDs: only the child's own, or IDs no process can have.
static uint64_t gen_pid(struct gen *g)
{
	struct rng *r = &g->r;

	switch (pick(r, 8)) {
	case 0: return 0;
	case 1: return (uint64_t)(int64_t)-g->pid;			// own group
	case 2: return PICK(r, 0x7fffffff, 0x80000000 /* INT_MIN */, 0x400000 + pick(r, 1000),
			    (uint64_t)(int64_t)-0x400123);
	case 3: return g->ntids ? g->tids[pick(r, g->ntids)] : g->pid;
	default: return g->pid;
	}
}

static uint64_t gen_signal(struct rng *r)
{
	switch (pick(r, 8)) {
	case 0: return PICK(r, 0, 65, 128, (uint64_t)-1, 0x100000001ULL);
	case 1: return 32 + pick(r, 33);		// real-time
	default:
		// Ones the child ignores or blocks mostly; SIGKILL and SIGSTOP
		// are drawn now and then like any other.
		return 1 + pick(r, 31);
	}
}

// A timespec (or timeval) pointer: short times mostly.
static uint64_t gen_time(struct rng *r, uint64_t scratch)
{
	uint64_t *ts = (uint64_t *)scratch;

	switch (pick(r, 10)) {
	case 0: return 0;
	case 1: return gen_ptr(r, false);
	case 2: ts[0] = rnd(r); ts[1] = rnd(r); return scratch;		// garbage
	case 3: ts[0] = 0; ts[1] = 1000000000; return scratch;		// bad nsec
	case 4: ts[0] = (uint64_t)-1; ts[1] = 0; return scratch;	// negative
	default: ts[0] = 0; ts[1] = pick(r, 2000000); return scratch;	// < 2 ms
	}
}

// An iovec array in the arena: some good buffers, some bad.
static uint64_t gen_iov(struct rng *r, uint64_t scratch)
{
	uint64_t *iov = (uint64_t *)scratch;
	int n = 1 + (int)pick(r, 8);

	if (pick(r, 8) == 0)
		return gen_ptr(r, false);
	for (int i = 0; i < n; i++) {
		iov[2 * i] = pick(r, 4) ? ARENA + pick(r, ARENA_RW * PAGE) : gen_ptr(r, true);
		iov[2 * i + 1] = pick(r, 4) ? pick(r, 512) : gen_len(r);
	}
	return scratch;
}

// Addresses for the memory calls: the arena, or the boundaries.
static uint64_t gen_addr(struct rng *r)
{
	switch (pick(r, 12)) {
	case 0: return 0;
	case 1: return LAST_USER_PAGE;				// the last user page
	case 2: return PICK(r, USER_END, USER_END - PAGE * 2, KERNEL_FIRST,
			    0x0000800000000000ULL + PAGE, 0xffffffff80000000ULL);
	case 3: return ARENA + pick(r, ARENA_PAGES * PAGE);	// unaligned
	case 4: return PICK(r, 0x1000, 0x8000, 0x10000);	// low pages
	default: return ARENA + pick(r, ARENA_PAGES + 4) * PAGE;
	}
}

// Paths: only names inside the scratch directory (see the header), or
// pointers the kernel cannot read a name from -- never arena memory,
// where a call may have left an absolute path (getcwd does).
#define NPATHS	24
static uint64_t path_at[NPATHS];

static uint64_t gen_path(struct rng *r)
{
	if (pick(r, 12) == 0)
		return PICK(r, 0, LAST_USER_PAGE + PAGE - 1 - pick(r, 8), KERNEL_FIRST,
			    0x0000800000000000ULL, 0x1000, ARENA + ARENA_RO * PAGE + pick(r, 4 * PAGE),
			    path_at[NPATHS - 1] + 4 * PAGE);
	return path_at[pick(r, NPATHS)];
}

static uint64_t gen_clone_flags(struct rng *r)
{
	static const uint64_t bits[] = {
		0x100, 0x200, 0x400, 0x800, 0x2000, 0x4000, 0x8000, 0x10000, 0x40000,
		0x80000, 0x100000, 0x200000, 0x400000, 0x1000000, 0x2000000, 0x8000000,
		0x80000000ULL,
	};
	uint64_t f = pick(r, 3) ? 17 /* SIGCHLD */ : pick(r, 65);

	for (int i = 0; i < 3; i++)
		if (pick(r, 2))
			f |= bits[pick(r, sizeof(bits) / sizeof(bits[0]))];
	if (pick(r, 16) == 0)
		f = rnd(r);
	return f;
}

static uint64_t gen_arg(struct gen *g, char kind, uint64_t scratch)
{
	struct rng *r = &g->r;

	switch (kind) {
	case 'f': return gen_fd(r);
	case 'p': return gen_ptr(r, false);
	case 'o': return gen_ptr(r, true);
	case 'l': return gen_len(r);
	case 's': return gen_path(r);
	case 'F': return gen_flags(r);
	case 'm': return pick(r, 4) ? pick(r, 01000) : rnd(r) & 0xffff;
	case 'a': return gen_addr(r);
	case 'P': return gen_pid(g);
	case 'g': return gen_signal(r);
	case 'i': return gen_small(r);
	case 't': return gen_time(r, scratch);
	case 'v': return gen_iov(r, scratch);
	case 'u': return PICK(r, 0, 1, 1000, 65534, (uint64_t)-1, 0xffffffff);
	case 'c': return gen_clone_flags(r);
	case 'T': return pick(r, 8) ? pick(r, 3) : PICK(r, (uint64_t)-1, 10, 0x7fffffff);
	default: return pick(r, 2) ? gen_ptr(r, false) : rnd(r);
	}
}

// Picks the next call and its arguments.  Returns false when the call
// drawn is denied (it is counted, not made).
static bool next_call(struct gen *g, long *nr, uint64_t a[6], uint64_t scratch)
{
	struct rng *r = &g->r;
	const char *sig;

	if (safe_mode) {
		*nr = safe_calls[pick(r, NSAFE)];
	} else if (nimplemented && pick(r, 8) != 0) {
		*nr = implemented_nr[pick(r, nimplemented)];
	} else if (pick(r, 32) == 0) {
		// Numbers nobody implements, and the x32 and 32-bit bits.
		*nr = (long)PICK(r, NR_MAX + pick(r, 100), 0x40000000 + pick(r, 600),
				 (uint64_t)-1, 0x100000000ULL + pick(r, 400), 1024, 100000);
	} else {
		*nr = (long)pick(r, NR_MAX);
	}
	sig = *nr >= 0 && *nr < NR_MAX && sig_table[*nr] ? sig_table[*nr] : "xxxxxx";
	for (int i = 0; i < 6; i++)
		a[i] = 0;
	const char *kinds = sig;
	if (*kinds == '!' || *kinds == '-')
		kinds++;
	for (int i = 0; i < 6; i++)
		a[i] = kinds[i] ? gen_arg(g, kinds[i], scratch + 64 * i) : rnd(r);
	if (*sig == '-')
		return false;
	if (*sig == '!' && pick(r, 64) != 0)
		return false;
	// Commands that name a process take the child's own IDs too.
	if (*nr == SYS_fcntl && (a[1] == 8 /* F_SETOWN */ || a[1] == 15 /* F_SETOWN_EX */))
		a[2] = gen_pid(g);
	if (*nr == SYS_ioctl && pick(r, 2))
		a[1] = PICK(r, 0x5401, 0x5402, 0x5403, 0x540f, 0x5410, 0x5413, 0x5414, 0x541b,
			    0x5421, 0x5451, 0x5450, 0x80045430, 0x40045431);
	if (*nr == SYS_fcntl && pick(r, 4) == 0)
		a[1] = 1024 + pick(r, 16);	// F_SETLEASE .. F_GET_SEALS
	// syslog's console actions would silence the kernel lines the test
	// runner reads after the fuzzer: they become SIZE_UNREAD.
	if (*nr == SYS_syslog && (int)a[0] >= 6 && (int)a[0] <= 8)
		a[0] = 9;
	// The clone family: the new stack, if any, is never used.
	if (*nr == SYS_clone3 && a[0] >= ARENA && a[0] < ARENA + ARENA_RW * PAGE) {
		uint64_t *ca = (uint64_t *)a[0];
		if ((uint64_t)ca + 88 <= ARENA + ARENA_RW * PAGE && pick(r, 2))
			ca[0] = gen_clone_flags(r) & ~0xffULL;	// flags; the rest is as found
	}
	return true;
}

// ---- the child ----

static const char *path_names[NPATHS] = {
	"a", "b", "c", "d", "aa", "ab", "ba", "dd", "a/b", "a/c", "b/a", "c/d/e", ".", "",
	"a/", "./a", "f", "o", "a/b/c", "d/", NULL /* 255 x */, NULL /* 256 x */,
	NULL /* a long path */, "b//a",
};

static void make_paths(void)
{
	char *p = mmap((void *)PATHS, 4 * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	size_t at = 0;

	for (int i = 0; i < NPATHS; i++) {
		path_at[i] = (uint64_t)p + at;
		if (path_names[i]) {
			strcpy(p + at, path_names[i]);
		} else if (i == 20 || i == 21) {
			memset(p + at, 'x', i == 20 ? 255 : 256);	// NAME_MAX and one more
		} else {
			for (int k = 0; k < 2100; k++)			// > PATH_MAX
				memcpy(p + at + 2 * k, "a/", 2);
		}
		at += strlen(p + at) + 1;
	}
	mprotect(p, 4 * PAGE, PROT_READ);
}

// The arena: read-write pages with a mix of zeros, small numbers and
// pointers; read-only pages; PROT_NONE pages; a hole.
static void make_arena(struct rng *r)
{
	uint64_t *w = mmap((void *)ARENA, ARENA_NONE * PAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	for (size_t i = 0; i < ARENA_NONE * PAGE / 8; i++) {
		switch (pick(r, 4)) {
		case 0: w[i] = 0; break;
		case 1: w[i] = pick(r, 64); break;
		case 2: w[i] = ARENA + pick(r, ARENA_PAGES * PAGE); break;
		default: w[i] = rnd(r); break;
		}
	}
	mprotect((void *)(ARENA + ARENA_RW * PAGE), (ARENA_RO - ARENA_RW) * PAGE, PROT_READ);
	mprotect((void *)(ARENA + ARENA_RO * PAGE), (ARENA_NONE - ARENA_RO) * PAGE, PROT_NONE);
}

struct thread_arg {
	struct gen g;
	struct slot *slot;
	long ncalls;
	int index;
	int log_fd;
};

static struct thread_arg targs[MAX_THREADS];

static void log_call(int fd, int t, long i, long nr, const uint64_t *a)
{
	char line[200];
	int n = snprintf(line, sizeof(line), "# fuzz: thread %d call %ld: %ld(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)\n",
			 t, i, nr, (unsigned long)a[0], (unsigned long)a[1], (unsigned long)a[2],
			 (unsigned long)a[3], (unsigned long)a[4], (unsigned long)a[5]);
	raw_syscall3(SYS_write, fd, (uint64_t)line, n);
}

// One thread's calls.  No libc here: another thread may have changed
// this one's TLS base, signal handlers or anything else.
static void fuzz_thread(void *p)
{
	struct thread_arg *ta = p;
	struct slot *s = ta->slot;
	uint64_t a[6];
	// Room for what generators build (timespecs, iovecs), per argument.
	uint64_t scratch = ARENA + (uint64_t)(40 + ta->index) * PAGE;

	for (long i = 0; i < ta->ncalls; i++) {
		long nr;
		if (!next_call(&ta->g, &nr, a, scratch)) {
			s->skipped++;
			continue;
		}
		if (ta->log_fd >= 0)
			log_call(ta->log_fd, ta->index, i, nr, a);
		s->nr = nr;
		for (int k = 0; k < 6; k++)
			s->a[k] = (long)a[k];
		s->in_call = 1;
		long rc = is_clone_call(nr) ? raw_clone_exit(nr, a[0], a[1], a[2], a[3], a[4], a[5])
					    : raw_syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		s->in_call = 0;
		s->calls++;
		if (rc >= 0 || rc < -4095)
			s->ok++;
		else
			s->err[-rc <= NERRNO ? -rc : NERRNO]++;
	}
	s->done = 1;
}

// A thread on its own stack, running fn(arg) and then exit(0).
static long start_thread(void *stack_top, void (*fn)(void *), void *arg)
{
	long ret;
	register uint64_t r12 __asm__("r12") = (uint64_t)fn;
	register uint64_t r13 __asm__("r13") = (uint64_t)arg;
	uint64_t flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
			 CLONE_SYSVSEM;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r13, %%rdi\n\t"
			 "call *%%r12\n\t"
			 "mov $60, %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "a"(SYS_clone), "D"(flags), "S"(stack_top), "d"(0), "r"(r12), "r"(r13)
			 : "rcx", "r11", "r10", "r8", "memory");
	return ret;
}

static void open_fds(const char *dir)
{
	int p[2];
	int null = open("/dev/null", O_RDWR);

	// 0, 1, 2: /dev/null; 3: a file; 4: the directory; 5, 6: a pipe
	// (non-blocking, so a read does not hang the thread); 7: /dev/null;
	// 8: /dev/zero; 9: another file.
	for (int fd = 0; fd < 3; fd++)
		dup2(null, fd);
	dup2(open("f", O_RDWR | O_CREAT, 0644), 3);
	dup2(open(dir, O_RDONLY | O_DIRECTORY), 4);
	if (pipe2(p, O_NONBLOCK) == 0) {
		dup2(p[0], 5);
		dup2(p[1], 6);
	}
	dup2(null, 7);
	dup2(open("/dev/zero", O_RDONLY), 8);
	dup2(open("o", O_RDWR | O_CREAT | O_APPEND, 0600), 9);
	for (int fd = 10; fd < 64; fd++)
		close(fd);
}

static __attribute__((noreturn)) void run_child(int index, struct lane *lane, const char *dir,
						 int console)
{
	struct rng r = { mix64(seed ^ mix64((uint64_t)index + 1)) };
	sigset_t all;
	int log_fd = -1;

	setpgid(0, 0);
	if (verbose && console >= 0)
		log_fd = dup2(console, 100);
	for (int fd = 3; fd < 1024; fd++)
		if (fd != 100 || log_fd < 0)
			close(fd);
	if (chdir(dir) < 0)
		_exit(3);
	open_fds(dir);
	// Signals stay pending rather than killing the child at once (the
	// calls may unblock them, as they may change anything else).
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	make_paths();
	make_arena(&r);
	mmap((void *)STACKS, (size_t)MAX_THREADS * STACK_SIZE, PROT_READ | PROT_WRITE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	pid_t pid = getpid();
	for (int t = 0; t < nthreads; t++) {
		struct thread_arg *ta = &targs[t];
		ta->g.r.s = mix64(r.s ^ mix64((uint64_t)t + 100));
		ta->g.pid = pid;
		ta->slot = &lane->slot[t];
		ta->ncalls = calls / nthreads + (t < calls % nthreads);
		ta->index = t;
		ta->log_fd = log_fd;
	}
	for (int t = 1; t < nthreads; t++) {
		long tid = start_thread((void *)(STACKS + (uint64_t)(t + 1) * STACK_SIZE - 64),
					fuzz_thread, &targs[t]);
		if (tid > 0) {
			for (int k = 0; k < nthreads; k++)
				targs[k].g.tids[targs[k].g.ntids++] = (pid_t)tid;
		} else {
			lane->slot[t].done = 1;
		}
	}
	fuzz_thread(&targs[0]);
	// Wait for the others without libc (this thread's TLS may be gone).
	for (;;) {
		int done = 1;
		for (int t = 0; t < nthreads; t++)
			done &= lane->slot[t].done;
		if (done)
			break;
		struct timespec ms = { 0, 1000000 };
		raw_syscall3(SYS_nanosleep, (uint64_t)&ms, 0, 0);
	}
	raw_syscall3(SYS_exit_group, 0, 0, 0);
	__builtin_unreachable();
}

// ---- the parent ----

// The probe: every number once, with every argument -1 (a bad descriptor,
// pointer, length or ID everywhere), in a process of its own; calls that
// would end or block it are taken as implemented without a try.
static void probe_table(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		sigset_t all;
		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, NULL);
		for (long nr = 0; nr < NR_MAX; nr++) {
			const char *sig = sig_table[nr];
			uint64_t m = (uint64_t)-1;
			if (nr == SYS_pause || nr == SYS_rt_sigreturn || nr == SYS_exit ||
			    nr == SYS_exit_group || (sig && *sig == '-')) {
				implemented[nr] = 1;
				continue;
			}
			long rc = is_clone_call(nr) ? raw_clone_exit(nr, m, m, m, m, m, m)
						    : raw_syscall6(nr, m, m, m, m, m, m);
			implemented[nr] = rc != -ENOSYS;
		}
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		ktap_diag("fuzz: the probe failed; drawing from the whole table only");
		return;
	}
	for (int nr = 0; nr < NR_MAX; nr++)
		if (implemented[nr] && (!sig_table[nr] || *sig_table[nr] != '-'))
			implemented_nr[nimplemented++] = nr;
}

struct running {
	pid_t pid;
	int index;
	struct timespec start;
	int killed;		// SIGKILL sent (deadline)
	struct timespec kill_time;
};

static struct running run[MAX_LANES];

static long total_calls, total_skipped, total_ok, total_err[NERRNO + 1];
static int ended, exited, by_signal[65], deadline_kills, unkillable, fork_failures;
static long inflight[NR_MAX + 1];	// calls in flight when a child had to be killed

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) + (now.tv_nsec - t->tv_nsec) / 1e9;
}

static void account(struct lane *lane)
{
	for (int t = 0; t < nthreads; t++) {
		struct slot *s = &lane->slot[t];
		total_calls += s->calls;
		total_skipped += s->skipped;
		total_ok += s->ok;
		for (int e = 0; e <= NERRNO; e++)
			total_err[e] += s->err[e];
	}
}

static void note_inflight(struct lane *lane, int index)
{
	for (int t = 0; t < nthreads; t++) {
		struct slot *s = &lane->slot[t];
		if (!s->in_call || s->done)
			continue;
		inflight[s->nr >= 0 && s->nr < NR_MAX ? s->nr : NR_MAX]++;
		if (verbose)
			ktap_diag("fuzz: child %d thread %d was in %ld(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)",
				  index, t, s->nr, s->a[0], s->a[1], s->a[2], s->a[3], s->a[4], s->a[5]);
	}
}

static bool start_child(int lane_no, int index, const char *dir, int console)
{
	struct lane *lane = &lanes[lane_no];

	memset(lane, 0, sizeof(*lane));
	pid_t pid = fork();
	if (pid == 0)
		run_child(index, lane, dir, console);
	if (pid < 0) {
		fork_failures++;
		return false;
	}
	run[lane_no] = (struct running){ .pid = pid, .index = index };
	clock_gettime(CLOCK_MONOTONIC, &run[lane_no].start);
	return true;
}

// The end of a child: its status, its statistics.
static void finished(int lane_no, int status)
{
	ended++;
	// Reported as not ended by SIGKILL, it ended after all: slowly (a
	// loaded host), which is no failure.
	if (run[lane_no].killed == 2) {
		unkillable--;
		ktap_diag("fuzz: child %d (pid %d) ended %.0f s after SIGKILL", run[lane_no].index,
			  run[lane_no].pid, since(&run[lane_no].kill_time));
	}
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		if (run[lane_no].killed && sig == SIGKILL)
			deadline_kills++;
		else
			by_signal[sig > 0 && sig < 65 ? sig : 0]++;
	} else {
		exited++;
	}
	account(&lanes[lane_no]);
	run[lane_no].pid = 0;
}

// Kills children past the deadline; reports those SIGKILL does not end.
static void police(int lane_no)
{
	struct running *c = &run[lane_no];

	if (!c->killed && since(&c->start) > deadline) {
		note_inflight(&lanes[lane_no], c->index);
		kill(c->pid, SIGKILL);
		c->killed = 1;
		clock_gettime(CLOCK_MONOTONIC, &c->kill_time);
	} else if (c->killed == 1 && since(&c->kill_time) > 10) {
		ktap_diag("fuzz: child %d (pid %d) still alive 10 s after SIGKILL", c->index, c->pid);
		for (int t = 0; t < nthreads; t++) {
			struct slot *s = &lanes[lane_no].slot[t];
			if (s->in_call)
				ktap_diag("fuzz:   thread %d in %ld(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)",
					  t, s->nr, s->a[0], s->a[1], s->a[2], s->a[3], s->a[4], s->a[5]);
		}
		unkillable++;
		c->killed = 2;		// reported once; still waited for
	}
}

// Runs every child; returns when all have ended (or are unkillable).
static void run_children(const char *dir, int console)
{
	int next = only_child >= 0 ? only_child : first_child;
	int last = only_child >= 0 ? only_child + 1 : first_child + children;
	struct timespec pause = { 0, 5 * 1000 * 1000 }, stuck_since = { 0, 0 };

	for (;;) {
		int busy = 0;
		for (int l = 0; l < parallel; l++) {
			if (!run[l].pid && next < last && start_child(l, next, dir, console))
				next++;
			if (run[l].pid)
				busy++;
		}
		if (!busy && next >= last)
			break;
		int status;
		pid_t pid;
		while ((pid = waitpid(-1, &status, WNOHANG | __WALL)) > 0) {
			for (int l = 0; l < parallel; l++)
				if (run[l].pid == pid)
					finished(l, status);
			// Other pids: children of a clone with CLONE_PARENT.
		}
		int stuck = 0;
		for (int l = 0; l < parallel; l++) {
			if (run[l].pid)
				police(l);
			if (run[l].pid && run[l].killed == 2)
				stuck++;
		}
		// Only children SIGKILL has not ended are left: they get two
		// minutes (a loaded host can be that slow) before they count
		// as unkillable.
		if (stuck && stuck == busy && next >= last) {
			if (!stuck_since.tv_sec)
				clock_gettime(CLOCK_MONOTONIC, &stuck_since);
			else if (since(&stuck_since) > 120)
				break;
		}
		nanosleep(&pause, NULL);
	}
}

// Removes everything below 'dir' (not dir itself), without malloc: the
// memory check must not see the parent's own heap grow.
#define MAX_DEPTH 64	// children can chdir into what they made and nest further

static void empty_dir(int dirfd)
{
	static char bufs[MAX_DEPTH][4096];
	static int depth;

	if (depth >= MAX_DEPTH)
		return;
	char *buf = bufs[depth++];
	long n;
	// Passes until one removes nothing (what cannot be removed stays).
	for (int removed = 1; removed;) {
		removed = 0;
		lseek(dirfd, 0, SEEK_SET);
		while ((n = raw_syscall3(SYS_getdents64, dirfd, (uint64_t)buf, 4096)) > 0) {
			for (long off = 0; off < n;) {
				unsigned short reclen = *(unsigned short *)(buf + off + 16);
				unsigned char type = *(unsigned char *)(buf + off + 18);
				const char *name = buf + off + 19;
				off += reclen;
				if (!strcmp(name, ".") || !strcmp(name, ".."))
					continue;
				if (type == DT_DIR) {
					int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
					if (sub >= 0) {
						empty_dir(sub);
						close(sub);
					}
					removed += unlinkat(dirfd, name, AT_REMOVEDIR) == 0;
				} else {
					removed += unlinkat(dirfd, name, 0) == 0;
				}
			}
		}
	}
	depth--;
}

static const char *errno_name(int e)
{
	static const char *const names[] = {
		[EPERM] = "EPERM", [ENOENT] = "ENOENT", [ESRCH] = "ESRCH", [EINTR] = "EINTR",
		[EIO] = "EIO", [ENXIO] = "ENXIO", [E2BIG] = "E2BIG", [ENOEXEC] = "ENOEXEC",
		[EBADF] = "EBADF", [ECHILD] = "ECHILD", [EAGAIN] = "EAGAIN", [ENOMEM] = "ENOMEM",
		[EACCES] = "EACCES", [EFAULT] = "EFAULT", [EBUSY] = "EBUSY", [EEXIST] = "EEXIST",
		[EXDEV] = "EXDEV", [ENODEV] = "ENODEV", [ENOTDIR] = "ENOTDIR", [EISDIR] = "EISDIR",
		[EINVAL] = "EINVAL", [ENFILE] = "ENFILE", [EMFILE] = "EMFILE", [ENOTTY] = "ENOTTY",
		[EFBIG] = "EFBIG", [ENOSPC] = "ENOSPC", [ESPIPE] = "ESPIPE", [EROFS] = "EROFS",
		[EMLINK] = "EMLINK", [EPIPE] = "EPIPE", [EDOM] = "EDOM", [ERANGE] = "ERANGE",
		[ENAMETOOLONG] = "ENAMETOOLONG", [ENOSYS] = "ENOSYS", [ENOTEMPTY] = "ENOTEMPTY",
		[ELOOP] = "ELOOP", [EOVERFLOW] = "EOVERFLOW", [ENOTSOCK] = "ENOTSOCK",
		[EOPNOTSUPP] = "EOPNOTSUPP", [ETIMEDOUT] = "ETIMEDOUT",
	};

	if (e >= 0 && e < (int)(sizeof(names) / sizeof(names[0])) && names[e])
		return names[e];
	return NULL;
}

static void print_statistics(double seconds)
{
	char line[1024];
	size_t len = 0;

	ktap_diag("fuzz: %ld calls made in %.1f s (%.0f/s), %ld denied; %ld returned >= 0",
		  total_calls, seconds, seconds > 0 ? total_calls / seconds : 0.0, total_skipped,
		  total_ok);
	// The errno histogram, largest first.
	static long shown[NERRNO + 1];
	memcpy(shown, total_err, sizeof(shown));
	for (int k = 0; k < 20; k++) {
		int best = -1;
		for (int e = 1; e <= NERRNO; e++)
			if (shown[e] && (best < 0 || shown[e] > shown[best]))
				best = e;
		if (best < 0)
			break;
		const char *name = errno_name(best);
		if (name)
			len += snprintf(line + len, sizeof(line) - len, " %s %ld", name, shown[best]);
		else
			len += snprintf(line + len, sizeof(line) - len, " %s%d %ld",
					best == NERRNO ? ">=" : "errno", best, shown[best]);
		shown[best] = 0;
	}
	ktap_diag("fuzz: errors:%s", len ? line : " none");
	len = 0;
	for (int s = 0; s < 65; s++)
		if (by_signal[s])
			len += snprintf(line + len, sizeof(line) - len, " %s %d", strsignal(s), by_signal[s]);
	ktap_diag("fuzz: %d children ended: %d exited, by signal:%s; %d killed at the %d s deadline, "
		  "%d not ended by SIGKILL; %d forks failed", ended, exited, len ? line : " none",
		  deadline_kills, deadline, unkillable, fork_failures);
	len = 0;
	for (int n = 0; n <= NR_MAX; n++)
		if (inflight[n])
			len += snprintf(line + len, sizeof(line) - len, " %d:%ld", n, inflight[n]);
	if (len)
		ktap_diag("fuzz: in flight at deadline kills (syscall:count):%s", line);
}

// The kernel still forks, pipes and executes.
static int system_works(void)
{
	int p[2], status;
	char byte = 0;

	if (pipe(p) < 0)
		return 0;
	pid_t pid = fork();
	if (pid == 0) {
		char *args[] = { "/proc/self/exe", "--ping", NULL };
		dup2(p[1], 1);
		execv(args[0], args);
		_exit(127);
	}
	int ok = pid > 0 && read(p[0], &byte, 1) == 1 && byte == 'k';
	ok = ok && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	close(p[0]);
	close(p[1]);
	return ok;
}

static void usage(void)
{
	fprintf(stderr, "usage: fuzz [-s SEED] [-c CHILDREN] [-n CALLS] [-t THREADS] [-j PARALLEL]\n"
			"            [-d DEADLINE] [-F FIRST] [-C CHILD] [-v] [--safe]\n");
	exit(2);
}

static long number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (!*s || *end)
		usage();
	return v;
}

static void parse(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "-v")) { verbose = 1; continue; }
		if (!strcmp(o, "--safe")) { safe_mode = 1; continue; }
		if (i + 1 >= argc)
			usage();
		const char *v = argv[++i];
		if (!strcmp(o, "-s")) seed = strtoull(v, NULL, 0);
		else if (!strcmp(o, "-c")) children = (int)number(v);
		else if (!strcmp(o, "-n")) calls = number(v);
		else if (!strcmp(o, "-t")) nthreads = (int)number(v);
		else if (!strcmp(o, "-j")) parallel = (int)number(v);
		else if (!strcmp(o, "-d")) deadline = (int)number(v);
		else if (!strcmp(o, "-C")) only_child = (int)number(v);
		else if (!strcmp(o, "-F")) first_child = (int)number(v);
		else usage();
	}
	if (children < 1 || calls < 0 || nthreads < 1 || nthreads > MAX_THREADS || parallel < 1 ||
	    parallel > MAX_LANES || deadline < 1 || first_child < 0)
		usage();
}

extern char __executable_start[], _end[];

// Everything the parent touches from here on is touched now, so that
// the memory snapshots differ only by what the kernel kept: its image,
// and the stack below main that the functions it calls will use.
static __attribute__((noinline)) void touch_memory(void)
{
	volatile char stack[64 * 1024];

	for (volatile char *p = __executable_start; p < _end; p += 4096)
		(void)*p;
	for (size_t i = 0; i < sizeof(stack); i += 4096)
		stack[i] = 0;
}

// After a failed memory check: the processes other than init and this
// one, as /proc/PID/stat begins (pid, name, state, ppid), which tells
// who was left.
static void list_processes(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char path[64], line[160];

	while (d && (e = readdir(d))) {
		int pid = atoi(e->d_name);
		if (pid <= 1 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		int fd = open(path, O_RDONLY);
		long n = fd >= 0 ? read(fd, line, sizeof(line) - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			continue;
		line[n] = 0;
		char *end = strchr(line, ')');
		if (end && end[1] && end[2] && end[3])
			end[4 + strcspn(end + 4, " ")] = 0;	// up to the ppid
		ktap_diag("fuzz: left: %s", line);
	}
	if (d)
		closedir(d);
}

int main(int argc, char **argv)
{
	static struct memstat before, after;
	static char why[1024], dir[64], work[96];
	struct timespec start;

	if (argc == 2 && !strcmp(argv[1], "--ping"))
		return write(1, "k", 1) == 1 ? 0 : 1;
	parse(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	bool switchyard = access(MEMSTAT_PATH, R_OK) == 0;
	if (!switchyard)
		safe_mode = 1;

	ktap_plan(3);
	ktap_diag("fuzz: seed %#lx, %d children x %ld calls, %d threads each, %d at a time, "
		  "deadline %d s%s", (unsigned long)seed, children, calls, nthreads, parallel,
		  deadline, safe_mode ? ", safe calls only" : "");
	ktap_diag("fuzz: reproduce with: fuzz -s %#lx -c %d -n %ld -t %d -j %d -d %d -F %d%s "
		  "(same kernel: the calls drawn depend on which it implements)",
		  (unsigned long)seed, children, calls, nthreads, parallel, deadline, first_child,
		  safe_mode ? " --safe" : "");
	snprintf(dir, sizeof(dir), "/tmp/fuzz.%d", (int)getpid());
	snprintf(work, sizeof(work), "%s/work", dir);
	lanes = mmap(NULL, sizeof(struct lane) * MAX_LANES + NR_MAX, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	implemented = (unsigned char *)(lanes + MAX_LANES);
	if (lanes == MAP_FAILED || mkdir(dir, 0700) < 0 || mkdir(work, 0700) < 0) {
		ktap_result(0, "children_end # cannot set up (errno %d)", errno);
		ktap_result(0, "system_works_afterwards");
		ktap_result(0, "memory_returned");
		return ktap_finish();
	}
	// The objects there are now are noted before the probe, whose calls
	// make some (msgget(-1, -1) creates a queue: IPC_CREAT, mode 0777),
	// and what it made goes before the memory is counted.
	if (!safe_mode) {
		sysv_note_objects();
		probe_table();
		sysv_remove_new_objects();
	}
	touch_memory();
	int console = dup(1);
	if (switchyard) {
		// ioprio_set(IOPRIO_WHO_USER) by a child gives every process of
		// root an I/O context, this one too (as on Linux), which it
		// keeps: it gets its own now, with the value it has, so that it
		// does not count as memory the run kept.  (Init's, if a child
		// makes it one, still counts: init's own memory check would see
		// one made here.)
		long prio = syscall(SYS_ioprio_get, 1L /* IOPRIO_WHO_PROCESS */, 0L);
		if (prio >= 0)
			syscall(SYS_ioprio_set, 1L, 0L, prio);
		memstat_read(&before);
		memstat_settle(&before, &after, 0, why, sizeof(why));
		memstat_read(&before);
		kmalloc_live_mark();	// with kmalloc_trace: who allocates what stays
	}

	if (nimplemented)
		ktap_diag("fuzz: %d of %d numbers implemented", nimplemented, NR_MAX);
	struct utsname names;
	bool have_names = uname(&names) == 0;

	static const char *const devices[] = { "/dev/null", "/dev/zero" };
	struct stat dev_st[2];
	for (int i = 0; i < 2; i++)
		if (stat(devices[i], &dev_st[i]) < 0)
			dev_st[i].st_mode = 0;

	// The children may set the clock (and the time zone): it goes back
	// to where it would be, as the names do.
	struct timespec real0, mono0;
	clock_gettime(CLOCK_REALTIME, &real0);
	clock_gettime(CLOCK_MONOTONIC, &mono0);
	clock_gettime(CLOCK_MONOTONIC, &start);
	run_children(work, console);
	double seconds = since(&start);
	if (!safe_mode) {
		struct timespec mono1, real1;
		struct { int minuteswest, dsttime; } utc = { 0, 0 };
		clock_gettime(CLOCK_MONOTONIC, &mono1);
		int64_t ns = (int64_t)real0.tv_sec * 1000000000 + real0.tv_nsec +
			     ((int64_t)mono1.tv_sec - mono0.tv_sec) * 1000000000 +
			     (mono1.tv_nsec - mono0.tv_nsec);
		real1.tv_sec = ns / 1000000000;
		real1.tv_nsec = ns % 1000000000;
		clock_settime(CLOCK_REALTIME, &real1);
		syscall(SYS_settimeofday, 0, &utc);
		syscall(SYS_acct, 0);	// accounting a child may have turned on
		// The NTP state as at boot: unsynchronized, errors at the phase
		// limit, time constant 2, TAI offset 0, microseconds.
		struct timex ntp = { .modes = ADJ_STATUS | ADJ_MAXERROR | ADJ_ESTERROR |
					      ADJ_TIMECONST | ADJ_MICRO,
				     .status = STA_UNSYNC, .maxerror = 16000000,
				     .esterror = 16000000, .constant = -2 };
		adjtimex(&ntp);
		ntp = (struct timex){ .modes = ADJ_TAI, .constant = 0 };
		adjtimex(&ntp);
	}
	if (have_names && !safe_mode) {
		sethostname(names.nodename, strlen(names.nodename));
		setdomainname(names.domainname, strlen(names.domainname));
	}
	for (int i = 0; i < 2 && !safe_mode; i++) {
		if (!dev_st[i].st_mode)
			continue;
		chown(devices[i], dev_st[i].st_uid, dev_st[i].st_gid);
		chmod(devices[i], dev_st[i].st_mode & 07777);
	}
	if (!safe_mode) {
		sysv_remove_new_objects();
		// POSIX message queues the children made under their path
		// names (queue names are global, not in the scratch directory).
		for (int i = 0; i < NPATHS; i++)
			if (path_names[i])
				syscall(SYS_mq_unlink, path_names[i]);
	}
	close(console);
	print_statistics(seconds);
	ktap_result(ended == (only_child >= 0 ? 1 : children) && !unkillable,
		    "children_end # %d of %d, %d not ended by SIGKILL", ended,
		    only_child >= 0 ? 1 : children, unkillable);

	int fd = open(work, O_RDONLY | O_DIRECTORY);
	// A child can get out of the work directory (a path an earlier call
	// left in its memory: getcwd writes one), into its parent: that is
	// emptied too, work included.
	int parent = open(dir, O_RDONLY | O_DIRECTORY);
	if (parent >= 0) {
		empty_dir(parent);
		close(parent);
		mkdir(work, 0700);
		if (fd >= 0)
			close(fd);
		fd = open(work, O_RDONLY | O_DIRECTORY);
	}
	if (fd >= 0) {
		empty_dir(fd);
		lseek(fd, 0, SEEK_SET);
		static char names[4096];
		if (raw_syscall3(SYS_getdents64, fd, (uint64_t)names, sizeof(names)) > 48)
			ktap_diag("fuzz: %s could not be emptied: what is left counts in the memory "
				  "figures", work);
		close(fd);
	}
	ktap_result(system_works(), "system_works_afterwards");
	if (!switchyard) {
		ktap_skip("memory_returned", "no /proc/switchyard/memstat");
	} else if (unkillable) {
		ktap_skip("memory_returned", "children are still alive");
	} else {
		int differ = memstat_settle(&before, &after, 10, why, sizeof(why));
		ktap_diag("fuzz: pages in use before %ld, after %ld", memstat_get(&before, "pages_used"),
			  memstat_get(&after, "pages_used"));
		if (differ == 0)
			ktap_result(1, "memory_returned");
		else if (memstat_get(&after, "processes") < memstat_get(&before, "processes"))
			ktap_skip("memory_returned", "processes that were there before the run ended "
				  "during it: the figures cannot be compared");
		else {
			static char text[8192];
			ktap_result(0, "memory_returned # %s", why);
			list_processes();
			if (kmalloc_live_read(text, sizeof(text)) > 0)
				for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
					ktap_diag("fuzz: kmalloc_live: %s", line);
		}
	}
	rmdir(work);
	rmdir(dir);
	return ktap_finish();
}
