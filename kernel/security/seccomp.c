// seccomp, as Linux 6.1's kernel/seccomp.c: strict mode (only read,
// write, exit and rt_sigreturn) and filters, classic BPF programs run
// over struct seccomp_data at every system call.  The filters of a
// thread form a chain, newest first, shared with the threads and
// children made after they were installed; every filter of the chain
// runs and the most restrictive answer wins (Linux's order: kill the
// process, kill the thread, trap, errno, user notification, trace, log,
// allow).  Nothing traces or listens here, so SECCOMP_RET_TRACE and
// SECCOMP_RET_USER_NOTIF fail the call with ENOSYS, as Linux does with no
// tracer or listener; SECCOMP_FILTER_FLAG_NEW_LISTENER (a listener
// descriptor) is refused with EINVAL and GET_ACTION_AVAIL does not offer
// USER_NOTIF.

#include <kernel/seccomp.h>
#include <kernel/syscall.h>
#include <kernel/thread.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <kernel/cred.h>
#include <kernel/uaccess.h>
#include <mm/kmalloc.h>
#include <lib/string.h>
#include <uapi/errno.h>
#include <uapi/signal.h>
#include <kernel/rseq.h>		// arch_frame_ip
#include <arch/trapframe.h>		// ARCH_AUDIT_ARCH

#define SECCOMP_SET_MODE_STRICT		0
#define SECCOMP_SET_MODE_FILTER		1
#define SECCOMP_GET_ACTION_AVAIL	2
#define SECCOMP_GET_NOTIF_SIZES		3

#define FLAG_TSYNC			(1U << 0)
#define FLAG_LOG			(1U << 1)
#define FLAG_SPEC_ALLOW			(1U << 2)
#define FLAG_NEW_LISTENER		(1U << 3)
#define FLAG_TSYNC_ESRCH		(1U << 4)
#define FLAG_WAIT_KILLABLE_RECV		(1U << 5)
#define FLAG_MASK			0x3fU

#define RET_KILL_PROCESS	0x80000000U
#define RET_KILL_THREAD		0x00000000U
#define RET_TRAP		0x00030000U
#define RET_ERRNO		0x00050000U
#define RET_USER_NOTIF		0x7fc00000U
#define RET_TRACE		0x7ff00000U
#define RET_LOG			0x7ffc0000U
#define RET_ALLOW		0x7fff0000U
#define RET_ACTION_FULL		0xffff0000U
#define RET_DATA		0x0000ffffU
#define MAX_ERRNO		4095

#define BPF_MAXINSNS		4096
#define MAX_INSNS_PER_PATH	((1 << 18) / 8)
#define BPF_MEMWORDS		16

// Classic BPF: class, size, mode, operation, source.
#define BPF_LD		0x00
#define BPF_LDX		0x01
#define BPF_ST		0x02
#define BPF_STX		0x03
#define BPF_ALU		0x04
#define BPF_JMP		0x05
#define BPF_RET		0x06
#define BPF_MISC	0x07
#define BPF_W		0x00
#define BPF_IMM		0x00
#define BPF_ABS		0x20
#define BPF_MEM		0x60
#define BPF_LEN		0x80
#define BPF_ADD		0x00
#define BPF_SUB		0x10
#define BPF_MUL		0x20
#define BPF_DIV		0x30
#define BPF_OR		0x40
#define BPF_AND		0x50
#define BPF_LSH		0x60
#define BPF_RSH		0x70
#define BPF_NEG		0x80
#define BPF_XOR		0xa0
#define BPF_JA		0x00
#define BPF_JEQ		0x10
#define BPF_JGT		0x20
#define BPF_JGE		0x30
#define BPF_JSET	0x40
#define BPF_K		0x00
#define BPF_X		0x08
#define BPF_A		0x10
#define BPF_TAX		0x00
#define BPF_TXA		0x80
// seccomp's own load: a word of struct seccomp_data (Linux rewrites
// BPF_LD|BPF_W|BPF_ABS to this code after checking the offset).
#define LOAD_DATA	(BPF_LDX | BPF_W | BPF_ABS)

struct sock_filter {
	uint16_t code;
	uint8_t jt, jf;
	uint32_t k;
};

struct user_sock_fprog {
	uint16_t len;
	uint16_t pad[3];
	uint64_t filter;
};

// What a filter sees: the call's number, ABI, instruction pointer and
// arguments (64 bytes, as Linux's).
struct seccomp_data {
	int32_t nr;
	uint32_t arch;
	uint64_t instruction_pointer;
	uint64_t args[6];
};

_Static_assert(sizeof(struct seccomp_data) == 64, "struct seccomp_data is 64 bytes");

struct seccomp_filter {
	int refs;			// threads and newer filters holding it
	struct seccomp_filter *prev;
	uint32_t len;
	struct sock_filter insns[];
};

// ---- checking a program ----

static bool is_cond_jump(uint16_t code)
{
	if ((code & 0x07) != BPF_JMP)
		return false;
	uint16_t op = code & 0xf0;
	return op == BPF_JEQ || op == BPF_JGT || op == BPF_JGE || op == BPF_JSET;
}

// The codes seccomp takes (seccomp_check_filter's list, after its
// rewrites), with Linux's bpf_check_classic rules for each.
static bool insn_ok(struct sock_filter *f, uint32_t pc, uint32_t len)
{
	uint32_t k = f->k;

	switch (f->code) {
	case BPF_LD | BPF_W | BPF_ABS:
		if (k >= sizeof(struct seccomp_data) || (k & 3))
			return false;
		f->code = LOAD_DATA;
		return true;
	case BPF_LD | BPF_W | BPF_LEN:
		f->code = BPF_LD | BPF_IMM;
		f->k = sizeof(struct seccomp_data);
		return true;
	case BPF_LDX | BPF_W | BPF_LEN:
		f->code = BPF_LDX | BPF_IMM;
		f->k = sizeof(struct seccomp_data);
		return true;
	case BPF_ALU | BPF_DIV | BPF_K:
		return k != 0;
	case BPF_ALU | BPF_LSH | BPF_K:
	case BPF_ALU | BPF_RSH | BPF_K:
		return k < 32;
	case BPF_LD | BPF_MEM:
	case BPF_LDX | BPF_MEM:
	case BPF_ST:
	case BPF_STX:
		return k < BPF_MEMWORDS;
	case BPF_JMP | BPF_JA:
		return k < len - pc - 1;
	case BPF_RET | BPF_K: case BPF_RET | BPF_A:
	case BPF_ALU | BPF_ADD | BPF_K: case BPF_ALU | BPF_ADD | BPF_X:
	case BPF_ALU | BPF_SUB | BPF_K: case BPF_ALU | BPF_SUB | BPF_X:
	case BPF_ALU | BPF_MUL | BPF_K: case BPF_ALU | BPF_MUL | BPF_X:
	case BPF_ALU | BPF_DIV | BPF_X:
	case BPF_ALU | BPF_AND | BPF_K: case BPF_ALU | BPF_AND | BPF_X:
	case BPF_ALU | BPF_OR | BPF_K: case BPF_ALU | BPF_OR | BPF_X:
	case BPF_ALU | BPF_XOR | BPF_K: case BPF_ALU | BPF_XOR | BPF_X:
	case BPF_ALU | BPF_LSH | BPF_X: case BPF_ALU | BPF_RSH | BPF_X:
	case BPF_ALU | BPF_NEG:
	case BPF_LD | BPF_IMM: case BPF_LDX | BPF_IMM:
	case BPF_MISC | BPF_TAX: case BPF_MISC | BPF_TXA:
		return true;
	default:
		if (is_cond_jump(f->code) && ((f->code & 0x08) == BPF_K || (f->code & 0x08) == BPF_X))
			return pc + f->jt + 1 < len && pc + f->jf + 1 < len;
		return false;
	}
}

// Linux's check_load_and_stores: no scratch word is read on a path that
// has not written it.
static bool memory_ok(const struct sock_filter *f, uint32_t len)
{
	uint16_t *masks = kmalloc(len * sizeof(*masks));
	uint16_t valid = 0;
	bool ok = true;

	if (!masks)
		return false;
	memset(masks, 0xff, len * sizeof(*masks));
	for (uint32_t pc = 0; pc < len && ok; pc++) {
		valid &= masks[pc];
		uint16_t code = f[pc].code;
		if (code == BPF_ST || code == BPF_STX) {
			valid |= (uint16_t)(1U << f[pc].k);
		} else if (code == (BPF_LD | BPF_MEM) || code == (BPF_LDX | BPF_MEM)) {
			ok = (valid >> f[pc].k) & 1;
		} else if (code == (BPF_JMP | BPF_JA)) {
			masks[pc + 1 + f[pc].k] &= valid;
			valid = 0xffff;
		} else if (is_cond_jump(code)) {
			masks[pc + 1 + f[pc].jt] &= valid;
			masks[pc + 1 + f[pc].jf] &= valid;
			valid = 0xffff;
		}
	}
	kfree(masks);
	return ok;
}

static bool program_ok(struct sock_filter *f, uint32_t len)
{
	for (uint32_t pc = 0; pc < len; pc++)
		if (!insn_ok(&f[pc], pc, len))
			return false;
	uint16_t last = f[len - 1].code;
	if (last != (BPF_RET | BPF_K) && last != (BPF_RET | BPF_A))
		return false;
	return memory_ok(f, len);
}

// ---- running a program ----

static uint32_t alu(uint16_t op, uint32_t a, uint32_t v)
{
	switch (op) {
	case BPF_ADD: return a + v;
	case BPF_SUB: return a - v;
	case BPF_MUL: return a * v;
	case BPF_DIV: return a / v;	// v != 0: checked by the caller
	case BPF_OR: return a | v;
	case BPF_AND: return a & v;
	case BPF_LSH: return a << (v & 31);
	case BPF_RSH: return a >> (v & 31);
	case BPF_XOR: return a ^ v;
	default: return -a;		// BPF_NEG
	}
}

static bool jump_taken(uint16_t op, uint32_t a, uint32_t v)
{
	switch (op) {
	case BPF_JEQ: return a == v;
	case BPF_JGT: return a > v;
	case BPF_JGE: return a >= v;
	default: return (a & v) != 0;	// BPF_JSET
	}
}

// A checked program over the call: its return value.  Every jump goes
// forward and the last instruction returns, so it ends.
static uint32_t run(const struct seccomp_filter *fl, const struct seccomp_data *d)
{
	const uint8_t *data = (const uint8_t *)d;
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };

	for (uint32_t pc = 0;; pc++) {
		const struct sock_filter *f = &fl->insns[pc];
		uint32_t v = (f->code & BPF_X) ? x : f->k;
		switch (f->code & 0x07) {
		case BPF_LD:
			if (f->code == (BPF_LD | BPF_MEM))
				a = mem[f->k];
			else
				a = f->k;	// BPF_IMM (LEN was rewritten to it)
			break;
		case BPF_LDX:
			if (f->code == LOAD_DATA)
				memcpy(&a, data + f->k, 4);
			else if (f->code == (BPF_LDX | BPF_MEM))
				x = mem[f->k];
			else
				x = f->k;
			break;
		case BPF_ST:
			mem[f->k] = a;
			break;
		case BPF_STX:
			mem[f->k] = x;
			break;
		case BPF_ALU:
			if ((f->code & 0xf0) == BPF_DIV && v == 0)
				return 0;	// classic BPF: a division by zero returns 0
			a = alu(f->code & 0xf0, a, v);
			break;
		case BPF_JMP:
			if ((f->code & 0xf0) == BPF_JA)
				pc += f->k;
			else
				pc += jump_taken(f->code & 0xf0, a, v) ? f->jt : f->jf;
			break;
		case BPF_RET:
			return (f->code & BPF_A) ? a : f->k;
		default:		// BPF_MISC
			if (f->code & BPF_TXA)
				a = x;
			else
				x = a;
			break;
		}
	}
}

// ---- the chain of filters ----

static void filter_get(struct seccomp_filter *f)
{
	if (f)
		__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
}

static void filter_put(struct seccomp_filter *f)
{
	while (f && __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		struct seccomp_filter *prev = f->prev;
		kfree(f);
		f = prev;
	}
}

static bool is_ancestor(const struct seccomp_filter *parent, const struct seccomp_filter *child)
{
	if (!parent)
		return true;
	for (; child; child = child->prev)
		if (child == parent)
			return true;
	return false;
}

void seccomp_fork(struct thread *child, const struct thread *parent)
{
	child->seccomp = parent->seccomp;
	filter_get(child->seccomp.filter);
}

void seccomp_thread_free(struct thread *t)
{
	filter_put(t->seccomp.filter);
	t->seccomp.filter = NULL;
}

// ---- at each system call ----

// Linux's ACTION_ONLY: the action as a signed number, lowest first.
static int32_t action_rank(uint32_t ret)
{
	return (int32_t)(ret & RET_ACTION_FULL);
}

static uint32_t run_filters(const struct seccomp_filter *f, const struct seccomp_data *d)
{
	uint32_t ret = RET_ALLOW;

	for (; f; f = f->prev) {
		uint32_t cur = run(f, d);
		if (action_rank(cur) < action_rank(ret))
			ret = cur;
	}
	return ret;
}

// Strict mode: only these four; anything else ends the thread with
// SIGKILL (Linux's do_exit(SIGKILL)).
static bool strict_allows(uint64_t nr)
{
	return nr == SYS_read || nr == SYS_write || nr == SYS_exit || nr == SYS_rt_sigreturn;
}

static void trap(uint64_t nr, uint64_t ip, uint32_t data)
{
	struct ksiginfo info = {
		.signo = SIGSYS, .code = SYS_SECCOMP, .errno_ = (int)data,
		.addr = ip, .status = (int)nr, .value = ARCH_AUDIT_ARCH,
	};

	signal_force_info(&info);
}

bool seccomp_check(uint64_t nr, const struct syscall_args *args, long *ret)
{
	struct thread *t = current_thread();

	if (t->seccomp.mode == SECCOMP_MODE_STRICT) {
		if (strict_allows(nr))
			return true;
		thread_exit_user(SIGKILL, false);
	}
	struct seccomp_data d = {
		.nr = (int32_t)nr, .arch = ARCH_AUDIT_ARCH, .instruction_pointer = arch_frame_ip(syscall_frame()),
	};
	memcpy(d.args, args->a, sizeof(d.args));
	uint32_t r = run_filters(t->seccomp.filter, &d), data = r & RET_DATA;

	switch (r & RET_ACTION_FULL) {
	case RET_ALLOW:
	case RET_LOG:
		return true;
	case RET_ERRNO:
		*ret = -(long)(data > MAX_ERRNO ? MAX_ERRNO : data);
		return false;
	case RET_TRAP:
		// The call is skipped and its number is in the return
		// register, as Linux's syscall_rollback leaves it.
		trap(nr, d.instruction_pointer, data);
		*ret = (long)nr;
		return false;
	case RET_TRACE:
	case RET_USER_NOTIF:
		*ret = -ENOSYS;		// no tracer, no listener
		return false;
	case RET_KILL_THREAD:
		if (t->proc->nthreads > 1)
			thread_exit_user(SIGSYS, false);
		signal_die_now(SIGSYS);
	default:			// KILL_PROCESS, and unknown actions
		signal_die_now(SIGSYS);
	}
}

// ---- installing ----

// seccomp_may_assign_mode: a thread never changes from one mode to the
// other.
static bool may_assign(int mode)
{
	int cur = current_thread()->seccomp.mode;

	return cur == SECCOMP_MODE_DISABLED || cur == mode;
}

static long set_strict(void)
{
	struct thread *t = current_thread();

	if (!may_assign(SECCOMP_MODE_STRICT))
		return -EINVAL;
	t->seccomp.mode = SECCOMP_MODE_STRICT;
	return 0;
}

// A copy of the user's program, checked: Linux's seccomp_prepare_filter
// order (length, then no_new_privs or CAP_SYS_ADMIN, then the copy, then
// the program).
static struct seccomp_filter *prepare(uint64_t ufprog, long *err)
{
	struct user_sock_fprog fp;
	struct thread *t = current_thread();

	*err = -EFAULT;
	if (copy_from_user(&fp, ufprog, sizeof(fp)) < 0)
		return NULL;
	*err = -EINVAL;
	if (fp.len == 0 || fp.len > BPF_MAXINSNS)
		return NULL;
	*err = -EACCES;
	if (!t->no_new_privs && !cred_capable(current_cred(), CAP_SYS_ADMIN))
		return NULL;
	*err = -EINVAL;
	if (!fp.filter)
		return NULL;
	struct seccomp_filter *f = kmalloc(sizeof(*f) + fp.len * sizeof(struct sock_filter));
	*err = -ENOMEM;
	if (!f)
		return NULL;
	*err = -EFAULT;
	if (copy_from_user(f->insns, fp.filter, fp.len * sizeof(struct sock_filter)) < 0) {
		kfree(f);
		return NULL;
	}
	*err = -EINVAL;
	if (!program_ok(f->insns, fp.len)) {
		kfree(f);
		return NULL;
	}
	f->len = fp.len;
	f->refs = 1;
	f->prev = NULL;
	*err = 0;
	return f;
}

// With TSYNC every other thread must run under an ancestor of the
// caller's chain (or none): the first that does not, by ID.
static int first_unsyncable_locked(struct process *p, struct thread *me)
{
	for (struct thread *o = p->threads; o; o = o->proc_next) {
		if (o == me || o->exiting)
			continue;
		if (o->seccomp.mode == SECCOMP_MODE_DISABLED ||
		    (o->seccomp.mode == SECCOMP_MODE_FILTER &&
		     is_ancestor(o->seccomp.filter, me->seccomp.filter)))
			continue;
		return o->tid ? o->tid : -ESRCH;
	}
	return 0;
}

static void sync_threads_locked(struct process *p, struct thread *me)
{
	for (struct thread *o = p->threads; o; o = o->proc_next) {
		if (o == me || o->exiting)
			continue;
		filter_get(me->seccomp.filter);
		filter_put(o->seccomp.filter);
		o->seccomp.filter = me->seccomp.filter;
		o->seccomp.nfilters = me->seccomp.nfilters;
		if (me->no_new_privs)
			o->no_new_privs = true;
		o->seccomp.mode = SECCOMP_MODE_FILTER;
	}
}

static long set_filter(unsigned flags, uint64_t ufprog)
{
	struct thread *t = current_thread();
	struct process *p = t->proc;
	long rc;

	if (flags & ~FLAG_MASK)
		return -EINVAL;
	if ((flags & FLAG_TSYNC) && (flags & FLAG_NEW_LISTENER) && !(flags & FLAG_TSYNC_ESRCH))
		return -EINVAL;
	if ((flags & FLAG_WAIT_KILLABLE_RECV) && !(flags & FLAG_NEW_LISTENER))
		return -EINVAL;
	struct seccomp_filter *f = prepare(ufprog, &rc);
	if (!f)
		return rc;
	if (flags & FLAG_NEW_LISTENER) {
		kfree(f);
		return -EINVAL;		// no user-space notification here
	}
	uint64_t irq = spin_lock_irqsave(&p->lock);
	uint32_t total = f->len;
	for (struct seccomp_filter *w = t->seccomp.filter; w; w = w->prev)
		total += w->len + 4;	// Linux's per-filter penalty
	if (!may_assign(SECCOMP_MODE_FILTER))
		rc = -EINVAL;
	else if (total > MAX_INSNS_PER_PATH)
		rc = -ENOMEM;
	else if ((flags & FLAG_TSYNC) && (rc = first_unsyncable_locked(p, t)) != 0)
		rc = (flags & FLAG_TSYNC_ESRCH) ? -ESRCH : rc;
	if (rc == 0) {
		f->prev = t->seccomp.filter;	// our reference passes to f
		t->seccomp.filter = f;
		t->seccomp.nfilters++;
		t->seccomp.mode = SECCOMP_MODE_FILTER;
		if (flags & FLAG_TSYNC)
			sync_threads_locked(p, t);
		f = NULL;
	}
	spin_unlock_irqrestore(&p->lock, irq);
	kfree(f);
	return rc;
}

static long action_avail(uint64_t uaction)
{
	uint32_t action;

	if (copy_from_user(&action, uaction, sizeof(action)) < 0)
		return -EFAULT;
	switch (action) {
	case RET_KILL_PROCESS: case RET_KILL_THREAD: case RET_TRAP: case RET_ERRNO:
	case RET_TRACE: case RET_LOG: case RET_ALLOW:
		return 0;
	default:
		return -EOPNOTSUPP;	// also USER_NOTIF: no listeners here
	}
}

static long notif_sizes(uint64_t usizes)
{
	uint16_t sizes[3] = { 80, 24, sizeof(struct seccomp_data) };

	return copy_to_user(usizes, sizes, sizeof(sizes)) < 0 ? -EFAULT : 0;
}

static long do_seccomp(unsigned op, unsigned flags, uint64_t uargs)
{
	switch (op) {
	case SECCOMP_SET_MODE_STRICT:
		if (flags || uargs)
			return -EINVAL;
		return set_strict();
	case SECCOMP_SET_MODE_FILTER:
		return set_filter(flags, uargs);
	case SECCOMP_GET_ACTION_AVAIL:
		return flags ? -EINVAL : action_avail(uargs);
	case SECCOMP_GET_NOTIF_SIZES:
		return flags ? -EINVAL : notif_sizes(uargs);
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE(SYS_seccomp, seccomp)
{
	return do_seccomp((unsigned)args->a[0], (unsigned)args->a[1], args->a[2]);
}

long seccomp_prctl_set(uint64_t mode, uint64_t filter)
{
	if (mode == SECCOMP_MODE_STRICT)
		return do_seccomp(SECCOMP_SET_MODE_STRICT, 0, 0);
	if (mode == SECCOMP_MODE_FILTER)
		return do_seccomp(SECCOMP_SET_MODE_FILTER, 0, filter);
	return -EINVAL;
}
