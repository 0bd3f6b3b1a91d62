// Allocation-failure injection (see mm/fail_inject.h for the options and
// why they wait for init).
//
// Every allocation call made while armed gets a number k from one global
// counter; whether it fails is decided from (seed, k) alone, so the same
// calls in the same order fail the same way.  The counters are atomics
// and the settings plain words read without a lock: a command that
// changes the mode while other CPUs allocate only decides which of those
// few calls use the old setting.

#include <stdint.h>

#include <kernel/boot.h>
#include <kernel/process.h>
#include <kernel/thread.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/fail_inject.h>
#include <uapi/errno.h>

enum fail_mode { FAIL_OFF, FAIL_PERCENT, FAIL_EVERY };

// Probabilities are kept in parts per million: 4 decimals of a percent.
#define PPM_PER_PERCENT	10000
#define PPM_ALL		1000000

static enum fail_mode boot_mode, mode;
static uint64_t boot_arg, arg;		// ppm (FAIL_PERCENT) or N (FAIL_EVERY)
static uint64_t seed = 1;
static bool armed;

static uint64_t calls;			// allocation calls seen while armed
static uint64_t failures;		// of which failed on purpose

// "self K": one thread's (K+1)-th allocation fails.  The countdown ends
// when the thread leaves its address space (a successful execve): the
// new program did not ask for it.
enum self_state { SELF_OFF, SELF_PENDING, SELF_FIRED, SELF_VOID };
static const char *const self_names[] = { "off", "pending", "fired", "void" };
static struct thread *target;
static int target_tid;
static struct mm *target_mm;
static uint64_t target_left;
static enum self_state self_state;

// Parses "P" with up to four decimals into parts per million.
static bool parse_percent(const char *s, uint64_t *ppm)
{
	char whole[12], frac[5] = "0000";
	const char *dot = strchr(s, '.');
	size_t wlen = dot ? (size_t)(dot - s) : strlen(s);
	uint64_t w, f;

	if (wlen == 0 || wlen >= sizeof(whole))
		return false;
	memcpy(whole, s, wlen);
	whole[wlen] = 0;
	if (dot) {
		size_t flen = strlen(dot + 1);
		if (flen == 0 || flen > 4)
			return false;
		memcpy(frac, dot + 1, flen);
	}
	if (!parse_u64(whole, 10, &w) || !parse_u64(frac, 10, &f) || w > 100)
		return false;
	*ppm = w * PPM_PER_PERCENT + f;
	return *ppm > 0 && *ppm <= PPM_ALL;
}

// "P" or "every:N" into a mode.
static bool parse_spec(const char *s, enum fail_mode *m, uint64_t *a)
{
	if (!s)
		return false;
	if (strncmp(s, "every:", 6) == 0) {
		if (!parse_u64(s + 6, 10, a) || *a == 0)
			return false;
		*m = FAIL_EVERY;
		return true;
	}
	if (!parse_percent(s, a))
		return false;
	*m = FAIL_PERCENT;
	return true;
}

static int set_fail_alloc(const char *value)
{
	return parse_spec(value, &boot_mode, &boot_arg) ? 0 : -1;
}
BOOT_OPTION(fail_alloc, "fail_alloc=P (percent, e.g. 0.5) or every:N: make frame_alloc and "
	    "kmalloc fail from the start of init on (not in init itself)", set_fail_alloc);

static int set_fail_seed(const char *value)
{
	return value && parse_u64(value, 0, &seed) ? 0 : -1;
}
BOOT_OPTION(fail_seed, "fail_seed=S: seed (or, with every:N, phase) of fail_alloc (default 1)",
	    set_fail_seed);

void fail_inject_arm(void)
{
	if (boot_mode == FAIL_OFF)
		return;		// nothing to check on every allocation
	mode = boot_mode;
	arg = boot_arg;
	__atomic_store_n(&armed, true, __ATOMIC_RELEASE);
}

// A well-mixed 64-bit function of (seed, k) (the splitmix64 finaliser).
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static bool decide(uint64_t k)
{
	switch (mode) {
	case FAIL_EVERY:
		return (k + seed % arg) % arg == arg - 1;
	case FAIL_PERCENT:
		return mix(seed ^ mix(k)) % PPM_ALL < arg;
	default:
		return false;
	}
}

// The targeted countdown of "self K", for the current thread only.
static bool targeted(struct thread *t)
{
	if (__atomic_load_n(&target, __ATOMIC_ACQUIRE) != t || t->tid != target_tid)
		return false;
	if (t->mm != target_mm) {
		self_state = SELF_VOID;
		__atomic_store_n(&target, NULL, __ATOMIC_RELEASE);
		return false;
	}
	if (target_left > 0) {
		target_left--;
		return false;
	}
	self_state = SELF_FIRED;
	__atomic_store_n(&target, NULL, __ATOMIC_RELEASE);
	return true;
}

bool fail_inject_alloc(void)
{
	if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE))
		return false;
	struct thread *t = current_thread();
	// Kernel threads and init are never failed on purpose.
	if (!t || !t->proc || t->proc->pid == 1)
		return false;
	bool fail = targeted(t);
	if (mode != FAIL_OFF) {
		uint64_t k = __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
		fail = decide(k) || fail;
	}
	if (fail)
		__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
	return fail;
}

size_t fail_inject_render(char *buf, size_t size)
{
	size_t len;

	switch (mode) {
	case FAIL_EVERY:
		len = ksnprintf(buf, size, "mode every:%lu\n", (unsigned long)arg);
		break;
	case FAIL_PERCENT:
		len = ksnprintf(buf, size, "mode %lu.%04lu\n", (unsigned long)(arg / PPM_PER_PERCENT),
				(unsigned long)(arg % PPM_PER_PERCENT));
		break;
	default:
		len = ksnprintf(buf, size, "mode off\n");
		break;
	}
	if (len >= size)
		return size ? size - 1 : 0;
	len += ksnprintf(buf + len, size - len,
			 "seed %lu\narmed %d\ncalls %lu\nfailures %lu\nself %s\n",
			 (unsigned long)seed, armed ? 1 : 0,
			 (unsigned long)__atomic_load_n(&calls, __ATOMIC_RELAXED),
			 (unsigned long)__atomic_load_n(&failures, __ATOMIC_RELAXED),
			 self_names[self_state]);
	return len < size ? len : (size ? size - 1 : 0);
}

int fail_inject_command(const char *cmd)
{
	enum fail_mode m;
	uint64_t a;
	struct thread *t = current_thread();

	if (strcmp(cmd, "off") == 0) {
		mode = FAIL_OFF;
		__atomic_store_n(&target, NULL, __ATOMIC_RELEASE);
		self_state = SELF_OFF;
		__atomic_store_n(&armed, false, __ATOMIC_RELEASE);	// nothing left to check
		return 0;
	}
	if (strncmp(cmd, "seed ", 5) == 0)
		return parse_u64(cmd + 5, 0, &seed) ? 0 : -EINVAL;
	if (strcmp(cmd, "self off") == 0) {
		__atomic_store_n(&target, NULL, __ATOMIC_RELEASE);
		if (self_state == SELF_PENDING)
			self_state = SELF_OFF;
		if (mode == FAIL_OFF)
			__atomic_store_n(&armed, false, __ATOMIC_RELEASE);
		return 0;
	}
	if (strncmp(cmd, "self ", 5) == 0) {
		if (!parse_u64(cmd + 5, 10, &a))
			return -EINVAL;
		target_left = a;
		target_tid = t->tid;
		target_mm = t->mm;
		self_state = SELF_PENDING;
		__atomic_store_n(&target, t, __ATOMIC_RELEASE);
		__atomic_store_n(&armed, true, __ATOMIC_RELEASE);
		return 0;
	}
	if (!parse_spec(cmd, &m, &a))
		return -EINVAL;
	arg = a;
	mode = m;
	__atomic_store_n(&armed, true, __ATOMIC_RELEASE);
	return 0;
}
