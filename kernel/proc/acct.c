// BSD process accounting, acct(2), as Linux 6.1's kernel/acct.c: while a
// file is set, every process that ends appends a struct acct_v3 to it
// (its command name, IDs, times, average memory, exit status and flags).
// The records are what GNU's lastcomm and sa read.

#include <kernel/syscall.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/cred.h>
#include <kernel/cputime.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/tty.h>
#include <kernel/vm.h>
#include <kernel/mutex.h>
#include <fs/file.h>
#include <fs/fcntl.h>
#include <fs/fs_syscall.h>
#include <fs/iobuf.h>
#include <lib/string.h>
#include <uapi/errno.h>

#define CAP_SYS_PACCT	20
#define AHZ		100		// the records' clock, USER_HZ on x86
#define ACCT_VERSION	3

#define AFORK	0x01	// forked but did not exec
#define ASU	0x02	// used superuser privileges
#define ACORE	0x08	// dumped core
#define AXSIG	0x10	// killed by a signal

typedef uint16_t comp_t;

struct acct_v3 {
	char ac_flag;
	char ac_version;
	uint16_t ac_tty;
	uint32_t ac_exitcode;
	uint32_t ac_uid, ac_gid, ac_pid, ac_ppid;
	uint32_t ac_btime;
	uint32_t ac_etime;	// a float's bits
	comp_t ac_utime, ac_stime, ac_mem, ac_io, ac_rw, ac_minflt, ac_majflt, ac_swaps;
	char ac_comm[16];
};

_Static_assert(sizeof(struct acct_v3) == 64, "struct acct_v3 is 64 bytes");

// The file records go to (referenced), under acct_mutex, which also
// keeps records whole when processes end on several CPUs at once.
static struct mutex acct_mutex = MUTEX_INIT("acct");
static struct file *acct_file;

// Linux's encode_comp_t: 13 bits of mantissa, 3 of base-8 exponent.
static comp_t encode_comp(uint64_t value)
{
	int exp = 0, rnd = 0;

	while (value > 8191) {
		rnd = value & 4;
		value >>= 3;
		exp++;
	}
	if (rnd && ++value > 8191) {
		value >>= 3;
		exp++;
	}
	if (exp > 7)
		return (comp_t)~0U;
	return (comp_t)((exp << 13) + value);
}

// Linux's encode_float: the value as an IEEE single's bits.
static uint32_t encode_float(uint64_t value)
{
	unsigned exp = 190;

	if (value == 0)
		return 0;
	while ((int64_t)value > 0) {
		value <<= 1;
		exp--;
	}
	return (uint32_t)((value >> 40) & 0x7fffffU) | (exp << 23);
}

static uint64_t ns_to_ahz(uint64_t ns)
{
	return ns / (1000000000ULL / AHZ);
}

struct vsize_sum {
	uint64_t total;
};

static void add_region(void *arg, const struct vm_region *r)
{
	((struct vsize_sum *)arg)->total += r->end - r->start;
}

// At the end of a process (its last thread, before the address space
// goes): the record, if accounting is on.  No locks held.
void acct_process_exit(struct process *p, struct mm *mm, int wait_status)
{
	struct acct_v3 ac;
	struct acct_totals self, children;
	struct vsize_sum vs = { 0 };

	if (!__atomic_load_n(&acct_file, __ATOMIC_ACQUIRE))
		return;
	memset(&ac, 0, sizeof(ac));
	if (mm)
		vm_regions(mm, add_region, &vs);
	uint64_t irq = spin_lock_irqsave(&proc_tree_lock);
	spin_lock(&p->lock);
	acct_task_totals_locked(p, NULL, &self, &children);
	spin_unlock(&p->lock);
	ac.ac_pid = (uint32_t)p->pid;
	ac.ac_ppid = p->parent ? (uint32_t)p->parent->pid : 0;
	if (p->ctty) {
		uint64_t rdev = p->ctty->vn ? p->ctty->vn->rdev : CONSOLE_RDEV;
		ac.ac_tty = (uint16_t)rdev;	// old_encode_dev: major << 8 | minor
	}
	spin_unlock_irqrestore(&proc_tree_lock, irq);
	struct cred *c = cred_of(p);
	ac.ac_uid = c->uid;
	ac.ac_gid = c->gid;
	cred_put(c);
	memcpy(ac.ac_comm, current_thread()->name, sizeof(ac.ac_comm));
	ac.ac_comm[sizeof(ac.ac_comm) - 1] = 0;
	ac.ac_version = ACCT_VERSION;
	ac.ac_flag = (char)((p->did_exec ? 0 : AFORK) | (p->used_super ? ASU : 0) |
			    ((wait_status & 0x80) ? ACORE : 0) |
			    ((wait_status & 0x7f) ? AXSIG : 0));
	ac.ac_exitcode = (uint32_t)wait_status;
	uint64_t elapsed = ns_to_ahz(clock_monotonic_ns() - acct_start_ns(p));
	ac.ac_etime = encode_float(elapsed);
	ac.ac_btime = (uint32_t)(clock_realtime_ns() / 1000000000ULL - elapsed / AHZ);
	ac.ac_utime = encode_comp(ns_to_ahz(self.user_ns));
	ac.ac_stime = encode_comp(ns_to_ahz(self.sys_ns));
	ac.ac_minflt = encode_comp(self.minflt);
	ac.ac_majflt = encode_comp(self.majflt);
	ac.ac_mem = encode_comp(vs.total / 1024);
	mutex_lock(&acct_mutex);
	if (acct_file) {
		struct iobuf b = iobuf_kernel(&ac);
		file_write(acct_file, &b, sizeof(ac));
	}
	mutex_unlock(&acct_mutex);
}

// acct(path): accounting to that regular file, opened for appending
// (the caller's permissions, Linux's errnos: a non-regular file is
// EACCES); acct(NULL): off.  Both need CAP_SYS_PACCT.
SYSCALL_DEFINE(SYS_acct, acct)
{
	struct file *f = NULL;

	if (!cred_capable(current_cred(), CAP_SYS_PACCT))
		return -EPERM;
	if (args->a[0]) {
		long rc = file_open_user(args->a[0], O_WRONLY | O_APPEND | O_LARGEFILE, &f);
		if (rc < 0)
			return rc;
		if (!f->vn || f->vn->type != VNODE_REG) {
			file_put(f);
			return -EACCES;
		}
	}
	mutex_lock(&acct_mutex);
	struct file *old = acct_file;
	__atomic_store_n(&acct_file, f, __ATOMIC_RELEASE);
	mutex_unlock(&acct_mutex);
	if (old)
		file_put(old);
	return 0;
}
