// System information and limits: uname, sethostname, setdomainname,
// sysinfo, rlimits, getrandom,
// resource usage.

#include <kernel/cred.h>
#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <fs/fcntl.h>
#include <kernel/uaccess.h>
#include <kernel/time.h>
#include <kernel/cpu.h>
#include <kernel/exec.h>
#include <kernel/random.h>
#include <kernel/uts.h>
#include <kernel/sched.h>
#include <mm/frame.h>
#include <lib/string.h>
#include <uapi/errno.h>

struct utsname {
	char sysname[65], nodename[65], release[65], version[65], machine[65], domainname[65];
};

SYSCALL_DEFINE(SYS_uname, uname)
{
	struct utsname u;

	memset(&u, 0, sizeof(u));
	strlcpy(u.sysname, UTS_SYSNAME, sizeof(u.sysname));
	uts_get(UTS_HOSTNAME, u.nodename);
	uts_release(u.release, sizeof(u.release));
	strlcpy(u.version, UTS_VERSION, sizeof(u.version));
	strlcpy(u.machine, personality_is_linux32() ? UTS_MACHINE_32 : UTS_MACHINE,
		sizeof(u.machine));
	uts_get(UTS_DOMAINNAME, u.domainname);
	return copy_to_user(args->a[0], &u, sizeof(u)) < 0 ? -EFAULT : 0;
}

// sethostname and setdomainname: the name is 'len' bytes, not
// NUL-terminated.  Everyone is root here, as Linux requires
// (CAP_SYS_ADMIN).
static long set_uts_name(enum uts_name which, uint64_t uname, uint64_t ulen)
{
	char name[UTS_LEN];
	int64_t len = (int64_t)(int)ulen;	// Linux takes an int

	// Linux checks the capability before the length.
	if (!cred_capable(current_cred(), CAP_SYS_ADMIN))
		return -EPERM;
	if (len < 0 || len > UTS_LEN)
		return -EINVAL;
	if (copy_from_user(name, uname, (size_t)len) < 0)
		return -EFAULT;
	return uts_set(which, name, (size_t)len);
}

SYSCALL_DEFINE(SYS_sethostname, sethostname)
{
	return set_uts_name(UTS_HOSTNAME, args->a[0], args->a[1]);
}

SYSCALL_DEFINE(SYS_setdomainname, setdomainname)
{
	return set_uts_name(UTS_DOMAINNAME, args->a[0], args->a[1]);
}

struct sysinfo_linux {
	int64_t uptime;
	uint64_t loads[3];
	uint64_t totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	uint16_t procs, pad;
	uint64_t totalhigh, freehigh;
	uint32_t mem_unit;
	char reserved[4];
};

static void count_threads(struct process *p, void *arg)
{
	if (!p->zombie)
		*(uint64_t *)arg += (uint64_t)p->nthreads;
}

// "procs" is, as on Linux, the number of threads; the load averages have
// 16 fractional bits (SI_LOAD_SHIFT) where the kernel keeps 11.  The file
// tree's pages are shared memory, as tmpfs's are on Linux (/proc/meminfo's
// Shmem).
SYSCALL_DEFINE(SYS_sysinfo, sysinfo)
{
	struct sysinfo_linux si;
	uint64_t total, free, threads = 0, flags, by_use[FRAME_USE_COUNT];
	unsigned long load[3];

	memset(&si, 0, sizeof(si));
	frame_stats(&total, &free);
	flags = spin_lock_irqsave(&proc_tree_lock);
	process_for_each_locked(count_threads, &threads);
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	si.uptime = (int64_t)(clock_monotonic_ns() / 1000000000ULL);
	si.totalram = total * 4096;
	si.freeram = free * 4096;
	frame_use_stats(by_use);
	si.sharedram = by_use[FRAME_FILE] * 4096;
	loadavg_get(load);
	for (int i = 0; i < 3; i++)
		si.loads[i] = (uint64_t)load[i] << (16 - LOAD_FSHIFT);
	si.procs = threads > 0xffff ? 0xffff : (uint16_t)threads;
	si.mem_unit = 1;
	return copy_to_user(args->a[0], &si, sizeof(si)) < 0 ? -EFAULT : 0;
}

#define RLIMIT_NLIMITS 16
#define RLIMIT_CPU	0
#define RLIMIT_STACK	3
#define RLIMIT_NOFILE	7

// Can 'nl' replace 'old'?  Where each is enforced: RLIMIT_NOFILE when
// descriptors are made, up to NR_OPEN, fs.nr_open (Linux: EPERM above
// it); RLIMIT_STACK, RLIMIT_AS, RLIMIT_DATA and RLIMIT_MEMLOCK when an
// address space grows (kernel/mm/vm.c); RLIMIT_FSIZE at writes,
// truncations and fallocate (kernel/fs/file.c, SIGXFSZ and EFBIG);
// RLIMIT_CPU by the tick (kernel/proc/cputime.c); RLIMIT_SIGPENDING when
// signals are queued (kernel/proc/signal.c); RLIMIT_NPROC when threads
// are made and at exec (kernel/proc/nproc.c); MSGQUEUE, NICE and RTPRIO
// where they apply (mqueue, nice, the scheduling calls).  The rest have
// no effect a program can see: no core dumps are written, RSS and LOCKS
// are ignored by Linux too.  RLIMIT_RTTIME: kernel/proc/cputime.c.
// As Linux: raising a hard limit takes CAP_SYS_RESOURCE (EPERM).
static int limit_check(int resource, const struct rlimit_pair *old, const struct rlimit_pair *nl)
{
	if (resource == RLIMIT_NOFILE && nl->max > NR_OPEN)
		return -EPERM;
	if (nl->max > old->max && !cred_capable(current_cred(), CAP_SYS_RESOURCE))
		return -EPERM;
	return 0;
}

// May the caller read or set p's limits?  Its own, or one whose IDs are
// all the caller's real ones, or with CAP_SYS_RESOURCE (Linux's
// check_prlimit_permission).  proc_tree_lock held.
static int prlimit_permitted(struct process *p)
{
	if (p == current_process() || cred_capable(current_cred(), CAP_SYS_RESOURCE) ||
	    cred_ids_all_callers(p))
		return 0;
	return -EPERM;
}

// prlimit64 of the caller or of a process it may reach; the old value
// goes out after the new one is set, as on Linux.
static long do_prlimit(int pid, int resource, uint64_t unew, uint64_t uold)
{
	struct rlimit_pair nl, old;
	struct process *p;
	uint64_t flags;
	long rc = 0;

	if (unew && copy_from_user(&nl, unew, sizeof(nl)) < 0)
		return -EFAULT;
	if (resource < 0 || resource >= RLIMIT_NLIMITS)
		return -EINVAL;
	if (unew && nl.cur > nl.max)
		return -EINVAL;
	flags = spin_lock_irqsave(&proc_tree_lock);
	p = pid == 0 ? current_process() : process_find(pid);
	if (!p) {
		rc = -ESRCH;
	} else if ((rc = prlimit_permitted(p)) == 0) {
		old = p->rlimits[resource];
		if (unew)
			rc = limit_check(resource, &old, &nl);
		if (unew && rc == 0) {
			p->rlimits[resource] = nl;
			if (resource == RLIMIT_CPU)
				tick_process_changed(p);	// its ticks check the limit
		}
	}
	spin_unlock_irqrestore(&proc_tree_lock, flags);
	if (rc == 0 && uold && copy_to_user(uold, &old, sizeof(old)) < 0)
		rc = -EFAULT;
	return rc;
}

SYSCALL_DEFINE(SYS_prlimit64, prlimit64)
{
	return do_prlimit((int)args->a[0], (int)args->a[1], args->a[2], args->a[3]);
}

SYSCALL_DEFINE(SYS_getrlimit, getrlimit)
{
	return do_prlimit(0, (int)args->a[0], 0, args->a[1]);
}

SYSCALL_DEFINE(SYS_setrlimit, setrlimit)
{
	return do_prlimit(0, (int)args->a[0], args->a[1], 0);
}

#define GRND_NONBLOCK	1
#define GRND_RANDOM	2
#define GRND_INSECURE	4

SYSCALL_DEFINE(SYS_getrandom, getrandom)
{
	uint64_t ubuf = args->a[0];
	size_t len = args->a[1];
	uint8_t chunk[256];

	if (args->a[2] & ~(uint64_t)(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
		return -EINVAL;
	if ((args->a[2] & (GRND_RANDOM | GRND_INSECURE)) == (GRND_RANDOM | GRND_INSECURE))
		return -EINVAL;		// contradictory, as on Linux
	if (len > 33554431)
		len = 33554431;
	for (size_t done = 0; done < len;) {
		size_t n = len - done < sizeof(chunk) ? len - done : sizeof(chunk);
		random_bytes(chunk, n);
		if (copy_to_user(ubuf + done, chunk, n) < 0) {
			memset(chunk, 0, sizeof(chunk));
			return done ? (long)done : -EFAULT;
		}
		done += n;
	}
	memset(chunk, 0, sizeof(chunk));
	return (long)len;
}

