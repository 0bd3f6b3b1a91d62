// execve: replace the calling process's program with a new one from the
// file tree.  Everything that can fail is done on the side (new address
// space, initial stack) before the point of no return.

#include <kernel/process.h>
#include <kernel/futex.h>
#include <kernel/proc_internal.h>
#include <kernel/exec.h>
#include <kernel/thread.h>
#include <kernel/sched.h>
#include <kernel/signal.h>
#include <kernel/syscall.h>
#include <kernel/uaccess.h>
#include <kernel/vm.h>
#include <kernel/arch.h>
#include <kernel/membarrier.h>
#include <arch/irq.h>
#include <mm/kmalloc.h>
#include <mm/phys.h>
#include <fs/vfs.h>
#include <fs/file.h>
#include <fs/fs_syscall.h>
#include <fs/fcntl.h>
#include <lib/printf.h>
#include <proc/elf.h>
#include <proc/exec_stack.h>
#include <lib/string.h>
#include <uapi/errno.h>
#include <uapi/personality.h>
#include <uapi/auxv.h>
#include <uapi/rseq.h>
#include <kernel/rseq.h>
#include <kernel/cred.h>
#include <kernel/random.h>

// Linux's limits on what execve copies: one string at most
// MAX_ARG_STRLEN bytes with its NUL; all of them, with the pointers to
// them, at most a quarter of RLIMIT_STACK (at least ARG_MAX, at most
// three quarters of the default 8 MiB stack).
#define MAX_ARG_STRLEN	(32 * 4096)
#define RLIMIT_STACK	3
#define ARG_MIN_LIMIT	(32 * 4096)
#define ARG_MAX_LIMIT	(6UL << 20)
#define STRINGS_FIRST	4096
#define PIE_BASE	0x555555554000UL
#define SHEBANG_DEPTH	4
// Room the initial stack mapping gets below the arguments (Linux's
// stack_expand); it grows down from there on faults, up to RLIMIT_STACK.
#define STACK_EXPAND	(128 * 1024)

// The strings of argv and envp, copied into one kernel buffer that grows
// as they arrive (it moves, so the vectors hold offsets until
// strings_finish turns them into pointers).
struct exec_strings {
	char *buf;
	size_t used, cap;
	size_t limit;		// bytes of strings and pointers allowed
	size_t execfn_len;	// AT_EXECFN's string, counted in the limit
	size_t *argo, *envo;	// offsets of the strings in buf
	int argc, envc, argcap, envcap;
	const char **argv, **envp;	// after strings_finish
	const struct cred *cred;	// what the new program runs with (auxv)
	bool secure;			// AT_SECURE: the exec changed privileges
};

// Safe to call twice, and on a partly built set.
static void strings_free(struct exec_strings *s)
{
	kfree(s->buf);
	kfree(s->argo);
	kfree(s->envo);
	kfree(s->argv);
	kfree(s->envp);
	memset(s, 0, sizeof(*s));
}

static size_t arg_limit(void)
{
	uint64_t stack = current_process() ? current_process()->rlimits[RLIMIT_STACK].cur
					   : USER_STACK_SIZE;
	uint64_t limit = stack / 4;

	if (limit > ARG_MAX_LIMIT)
		limit = ARG_MAX_LIMIT;
	if (limit < ARG_MIN_LIMIT)
		limit = ARG_MIN_LIMIT;
	return limit;
}

static void strings_init(struct exec_strings *s)
{
	memset(s, 0, sizeof(*s));
	s->limit = arg_limit();
}

// Strings and pointers so far, against Linux's limit.
static bool strings_fit(const struct exec_strings *s, size_t more)
{
	size_t ptrs = 8 * ((size_t)(s->argc > 0 ? s->argc : 1) + (size_t)s->envc);

	return s->used + s->execfn_len + more + ptrs <= s->limit;
}

// Makes room for 'more' bytes at the end of buf.
static int strings_reserve(struct exec_strings *s, size_t more)
{
	if (s->cap - s->used >= more)
		return 0;
	size_t cap = s->cap ? s->cap : STRINGS_FIRST;
	while (cap - s->used < more)
		cap *= 2;
	char *nb = kmalloc(cap);
	if (!nb)
		return -ENOMEM;
	if (s->buf)
		memcpy(nb, s->buf, s->used);
	kfree(s->buf);
	s->buf = nb;
	s->cap = cap;
	return 0;
}

// Appends one more offset to *vec (argo or envo).
static int vec_push(size_t **vec, int *count, int *cap, size_t off)
{
	if (*count == INT32_MAX - 1)
		return -E2BIG;
	if (*count == *cap) {
		int ncap = *cap ? *cap * 2 : 16;
		size_t *nv = kmalloc((size_t)ncap * sizeof(size_t));
		if (!nv)
			return -ENOMEM;
		if (*vec)
			memcpy(nv, *vec, (size_t)*count * sizeof(size_t));
		kfree(*vec);
		*vec = nv;
		*cap = ncap;
	}
	(*vec)[(*count)++] = off;
	return 0;
}

// A kernel string into buf; its offset in *off.
static int strings_add(struct exec_strings *s, const char *str, size_t *off)
{
	size_t n = strlen(str) + 1;

	if (n > MAX_ARG_STRLEN || !strings_fit(s, n))
		return -E2BIG;
	int r = strings_reserve(s, n);
	if (r < 0)
		return r;
	memcpy(s->buf + s->used, str, n);
	*off = s->used;
	s->used += n;
	return 0;
}

// A user string into buf, growing it until the string fits; -E2BIG past
// MAX_ARG_STRLEN or the total limit.
static int strings_add_user(struct exec_strings *s, uint64_t up, size_t *off)
{
	for (;;) {
		size_t room = s->cap - s->used;
		if (room > MAX_ARG_STRLEN)
			room = MAX_ARG_STRLEN;
		long n = room ? strncpy_from_user(s->buf + s->used, up, room) : -ENAMETOOLONG;
		if (n >= 0) {
			if (!strings_fit(s, (size_t)n + 1))
				return -E2BIG;
			*off = s->used;
			s->used += (size_t)n + 1;
			return 0;
		}
		if (n != -ENAMETOOLONG)
			return (int)n;
		// Did not fit: too long for Linux, or the buffer must grow.
		if (room == MAX_ARG_STRLEN || !strings_fit(s, room + 1))
			return -E2BIG;
		int r = strings_reserve(s, room + 1 > STRINGS_FIRST ? 2 * room : STRINGS_FIRST);
		if (r < 0)
			return r;
	}
}

// Copies a NULL-terminated array of user string pointers.
static int copy_user_vector(struct exec_strings *s, uint64_t uvec, bool env)
{
	if (!uvec)
		return 0;		// Linux accepts NULL as an empty vector
	for (uint64_t i = 0;; i++) {
		uint64_t up;
		size_t off = 0;
		if (get_user_u64(&up, uvec + 8 * i) < 0)
			return -EFAULT;
		if (!up)
			return 0;
		int r = strings_add_user(s, up, &off);
		if (r == 0)
			r = env ? vec_push(&s->envo, &s->envc, &s->envcap, off)
				: vec_push(&s->argo, &s->argc, &s->argcap, off);
		if (r < 0)
			return r;
		if (!strings_fit(s, 0))
			return -E2BIG;
	}
}

static const char **offsets_to_pointers(const struct exec_strings *s, const size_t *o, int n)
{
	const char **v = kmalloc(((size_t)n + 1) * sizeof(char *));

	if (!v)
		return 0;
	for (int i = 0; i < n; i++)
		v[i] = s->buf + o[i];
	v[n] = 0;
	return v;
}

// The vectors as pointers, for the stack builder; buf no longer moves.
static int strings_finish(struct exec_strings *s)
{
	kfree(s->argv);
	kfree(s->envp);
	s->argv = offsets_to_pointers(s, s->argo, s->argc);
	s->envp = offsets_to_pointers(s, s->envo, s->envc);
	return s->argv && s->envp ? 0 : -ENOMEM;
}

static long read_vnode(void *ctx, uint64_t off, void *buf, size_t len)
{
	return vnode_read(ctx, off, buf, len);
}

// Maps the PT_LOAD segments; returns the load bias.
static int map_segments(struct mm *mm, struct vnode *vn, const struct elf_image *img, uint64_t bias)
{
	for (int i = 0; i < img->nseg; i++) {
		const struct elf_segment *s = &img->seg[i];
		uint64_t start = (s->vaddr + bias) & ~(PAGE_SIZE - 1);
		uint64_t file_end = s->vaddr + bias + s->filesz;
		uint64_t mem_end = s->vaddr + bias + s->memsz;
		uint64_t off = s->offset & ~(PAGE_SIZE - 1);
		uint64_t file_map_end = (file_end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
		long r;

		if (s->filesz) {
			r = vm_map(mm, start, file_map_end - start, s->prot, MAP_PRIVATE | MAP_FIXED,
				   vn, off, file_end - start, false);
			if (r < 0)
				return (int)r;
		} else {
			file_map_end = start;
		}
		if (mem_end > file_map_end) {
			r = vm_map(mm, file_map_end, mem_end - file_map_end, s->prot,
				   MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, 0, 0, 0, false);
			if (r < 0)
				return (int)r;
		}
	}
	return 0;
}

// Reserves room for an ET_DYN image where mmap would put it and maps its
// segments there; the gaps between segments are left unmapped, as
// Linux's loader leaves them.  *bias gets the load bias.
static int map_anywhere(struct mm *mm, struct vnode *vn, const struct elf_image *img,
			uint64_t *bias)
{
	long at = vm_map(mm, 0, img->hi - img->lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 0, 0, 0, false);

	if (at < 0)
		return (int)at;
	*bias = (uint64_t)at - img->lo;
	int r = map_segments(mm, vn, img, *bias);
	for (int i = 1; r == 0 && i < img->nseg; i++) {
		const struct elf_segment *a = &img->seg[i - 1], *b = &img->seg[i];
		uint64_t gap = (a->vaddr + a->memsz + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
		uint64_t next = b->vaddr & ~(PAGE_SIZE - 1);
		if (next > gap)
			r = vm_unmap(mm, gap + *bias, next - gap);
	}
	return r;
}

// The interpreter a dynamically linked program names (PT_INTERP): read
// its path from the file, check it is a NUL-terminated string.
static int read_interp_path(struct vnode *vn, const struct elf_image *img, char *path)
{
	long n = vnode_read(vn, img->interp_offset, path, img->interp_size);

	if (n < 0)
		return (int)n;
	if ((uint64_t)n != img->interp_size || path[n - 1] != 0)
		return -ENOEXEC;
	return 0;
}

// Loads the interpreter into mm as Linux does: an ET_DYN one wherever
// mmap finds room, an ET_EXEC one where it says.  Its own PT_INTERP, if
// any, is ignored.  A file that is not an x86-64 ELF executable is
// ELIBBAD (EIO if it is shorter than an ELF header: Linux's read of the
// header comes up short); a missing one ENOENT; one that may not be
// executed EACCES.
static int load_interp(struct mm *mm, const char *path, uint64_t *base, uint64_t *entry)
{
	struct vnode *vn;
	struct elf_image *img = kmalloc(sizeof(*img));
	int r;

	if (!img)
		return -ENOMEM;
	r = vfs_lookup(path, true, &vn);
	if (r < 0)
		goto out;
	if (vn->type != VNODE_REG)
		r = -EACCES;
	else if ((r = vnode_may(vn, MAY_EXEC)) < 0)
		;
	else if (vn->size < ELF_EHDR_SIZE)
		r = -EIO;
	else if (elf_parse(read_vnode, vn, vn->size, img) < 0)
		r = -ELIBBAD;
	else if (img->pie)
		r = map_anywhere(mm, vn, img, base);
	else
		r = map_segments(mm, vn, img, *base = 0);
	if (r == 0)
		*entry = img->entry + *base;
	vnode_put(vn);
out:
	kfree(img);
	return r;
}

// The code and data bounds /proc/PID/stat shows, worked out from the
// segments as Linux's ELF loader does: code is what executable segments
// hold of the file, data starts at the highest segment.
static void record_segments(struct mm *mm, const struct elf_image *img, uint64_t bias)
{
	uint64_t start_code = UINT64_MAX, end_code = 0, start_data = 0, end_data = 0;

	for (int i = 0; i < img->nseg; i++) {
		const struct elf_segment *g = &img->seg[i];
		uint64_t end = g->vaddr + g->filesz;
		bool x = g->prot & ELF_PROT_EXEC;

		if (x && g->vaddr < start_code)
			start_code = g->vaddr;
		if (g->vaddr > start_data)
			start_data = g->vaddr;
		if (x && end > end_code)
			end_code = end;
		if (end > end_data)
			end_data = end;
	}
	if (start_code == UINT64_MAX)
		start_code = 0;
	mm->start_code = start_code + bias;
	mm->end_code = end_code + bias;
	mm->start_data = start_data + bias;
	mm->end_data = end_data + bias;
}

// Where the argument and environment strings landed, read back from the
// pointer table at sp (in buf, which stands for [base, ...)): what
// /proc/PID/cmdline and environ show.
static void record_strings(struct mm *mm, const uint8_t *buf, uint64_t base, uint64_t sp,
			   const struct exec_strings *s)
{
	uint64_t argv0, envp0;
	const uint8_t *table = buf + (sp - base);

	memcpy(&argv0, table + 8, 8);
	memcpy(&envp0, table + 8 * (2 + (uint64_t)s->argc), 8);
	if (s->argc > 0) {
		mm->arg_start = argv0;
		memcpy(&mm->arg_end, table + 8 * (uint64_t)s->argc, 8);
		mm->arg_end += strlen(s->argv[s->argc - 1]) + 1;
	}
	if (s->envc > 0) {
		mm->env_start = envp0;
		memcpy(&mm->env_end, table + 8 * (1 + (uint64_t)s->argc + (uint64_t)s->envc), 8);
		mm->env_end += strlen(s->envp[s->envc - 1]) + 1;
	}
	if (s->argc == 0)
		mm->arg_start = mm->arg_end = s->envc > 0 ? mm->env_start : sp;
	if (s->envc == 0)
		mm->env_start = mm->env_end = mm->arg_end;
	mm->start_stack = sp;
	// The auxiliary vector follows envp's NULL; it ends with its AT_NULL
	// pair, which /proc/PID/auxv shows too, as Linux's.
	uint64_t pair[2], aux = sp + 8 * (3 + (uint64_t)s->argc + (uint64_t)s->envc);
	mm->auxv_start = aux;
	do {
		memcpy(pair, buf + (aux - base), 16);
		aux += 16;
	} while (pair[0] != 0);
	mm->auxv_end = aux;
}

static int build_stack(struct mm *mm, const struct exec_strings *s, const char *execfn,
		       const struct elf_image *img, uint64_t bias, uint64_t interp_base,
		       uint64_t *sp)
{
	struct exec_stack_args a;
	uint8_t random[16];
	size_t size = ((s->used + strlen(execfn) + 64 + 8 * ((size_t)s->argc + s->envc) + 1024) +
		       4095) & ~4095UL;

	memset(&a, 0, sizeof(a));
	a.argv = s->argv;
	a.argc = s->argc;
	a.envp = s->envp;
	a.envc = s->envc;
	a.execfn = execfn;
	random_bytes(random, sizeof(random));	// AT_RANDOM: the kernel's generator
	a.random16 = random;
	uint64_t aux[][2] = {
		{ AT_HWCAP, arch_hwcap() },
		{ AT_PAGESZ, PAGE_SIZE },
		{ AT_CLKTCK, 100 },
		{ AT_PHDR, img->phdr_vaddr + bias },
		{ AT_PHENT, img->phentsize },
		{ AT_PHNUM, img->phnum },
		{ AT_BASE, interp_base },
		{ AT_FLAGS, 0 },
		{ AT_ENTRY, img->entry + bias },
		{ AT_UID, s->cred->uid }, { AT_EUID, s->cred->euid },
		{ AT_GID, s->cred->gid }, { AT_EGID, s->cred->egid },
		{ AT_SECURE, s->secure },
		{ AT_HWCAP2, arch_hwcap2() },
		{ AT_MINSIGSTKSZ, arch_min_sigstack() },
		{ AT_RSEQ_FEATURE_SIZE, RSEQ_FEATURE_SIZE },
		{ AT_RSEQ_ALIGN, RSEQ_ALIGN },
	};
	a.nauxv = sizeof(aux) / sizeof(aux[0]);
	memcpy(a.auxv, aux, sizeof(aux));

	uint8_t *buf = kzalloc(size);
	if (!buf)
		return -ENOMEM;
	int r = exec_stack_build(buf, size, USER_STACK_TOP, &a, sp);
	if (r == 0)
		record_strings(mm, buf, USER_STACK_TOP - size, *sp, s);
	if (r == 0) {
		long m = vm_map(mm, USER_STACK_TOP - size - STACK_EXPAND, size + STACK_EXPAND,
				PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_GROWSDOWN, 0, 0, 0,
				false);
		r = m < 0 ? (int)m : 0;
	}
	if (r == 0)
		r = vm_write(mm, USER_STACK_TOP - size, buf, size);
	kfree(buf);
	return r;
}

// Maps the program, its interpreter if it names one, and the stack.
static int fill_mm(struct mm *mm, struct vnode *vn, const struct elf_image *img,
		   const struct exec_strings *s, const char *execfn, uint64_t *entry, uint64_t *sp)
{
	uint64_t bias = img->pie ? PIE_BASE : 0, interp_base = 0;
	int r = map_segments(mm, vn, img, bias);

	*entry = img->entry + bias;
	if (r == 0 && img->interp_size) {
		char *path = kmalloc(ELF_INTERP_MAX);
		if (!path)
			return -ENOMEM;
		r = read_interp_path(vn, img, path);
		if (r == 0)
			r = load_interp(mm, path, &interp_base, entry);
		kfree(path);
	}
	if (r == 0)
		r = build_stack(mm, s, execfn, img, bias, interp_base, sp);
	if (r == 0)
		r = arch_exec_map(mm);
	if (r == 0) {
		mm->brk_start = mm->brk = (img->hi + bias + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
		record_segments(mm, img, bias);		// the program's, not the interpreter's
	}
	return r;
}

// Builds the new address space for the ELF file vn.
static int load_elf(struct vnode *vn, const struct exec_strings *s, const char *execfn,
		    struct mm **out_mm, uint64_t *entry, uint64_t *sp)
{
	struct elf_image *img = kmalloc(sizeof(*img));
	int r;

	if (!img)
		return -ENOMEM;
	r = elf_parse(read_vnode, vn, vn->size, img);
	struct mm *mm = r == 0 ? mm_create() : 0;
	if (r == 0 && !mm)
		r = -ENOMEM;
	if (r == 0)
		r = fill_mm(mm, vn, img, s, execfn, entry, sp);
	if (r < 0 && mm)
		mm_put(mm);
	else if (r == 0)
		*out_mm = mm;
	kfree(img);
	return r;
}

// "#!interpreter [arg]": rewrites argv to run the interpreter on the file.
static int shebang(struct vnode *vn, const char *path, struct exec_strings *s, char *interp)
{
	char line[256];
	long n = vnode_read(vn, 0, line, sizeof(line) - 1);

	if (n < 2 || line[0] != '#' || line[1] != '!')
		return 1;		// not a script
	line[n] = 0;
	char *end = strchr(line, '\n');
	if (!end)
		return -ENOEXEC;
	*end = 0;
	char *p = line + 2;
	while (*p == ' ' || *p == '\t')
		p++;
	char *name = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	char *arg = 0;
	if (*p) {
		*p++ = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p) {
			arg = p;
			size_t l = strlen(arg);
			while (l && (arg[l - 1] == ' ' || arg[l - 1] == '\t'))
				arg[--l] = 0;
		}
	}
	if (!*name)
		return -ENOEXEC;
	strlcpy(interp, name, PATH_MAX);
	// New argv: interp [arg] path argv[1..]
	size_t o0, o1 = 0, o2;
	int r = strings_add(s, interp, &o0);
	if (r == 0 && arg)
		r = strings_add(s, arg, &o1);
	if (r == 0)
		r = strings_add(s, path, &o2);
	int extra = arg ? 3 : 2;
	int first = s->argc > 0 ? 1 : 0;	// argv[0] is replaced
	int keep = s->argc - first;
	// Room for the new vector: pushing grows it (the values are set below).
	for (int i = 0; r == 0 && i < extra - first; i++)
		r = vec_push(&s->argo, &s->argc, &s->argcap, 0);
	if (r < 0)
		return r;
	memmove(s->argo + extra, s->argo + first, (size_t)keep * sizeof(size_t));
	s->argo[0] = o0;
	if (arg)
		s->argo[1] = o1;
	s->argo[extra - 1] = o2;
	s->argc = keep + extra;
	return strings_fit(s, 0) ? 0 : -E2BIG;
}

// Ends every other thread of the process (exec keeps only the caller).
static void kill_other_threads(struct process *p)
{
	uint64_t flags = spin_lock_irqsave(&p->lock);
	for (struct thread *o = p->threads; o; o = o->proc_next) {
		if (o != current_thread()) {
			o->exiting = true;
			thread_work_set(o, WORK_SIGNAL);
			signal_kick(o);		// running elsewhere too: an IPI
		}
	}
	spin_unlock_irqrestore(&p->lock, flags);
	while (__atomic_load_n(&p->nthreads, __ATOMIC_SEQ_CST) > 1)
		sched_yield();
}

// As Linux's unshare_sighand: the new program's dispositions are its
// own, so that exec's reset does not touch another process's
// (CLONE_SIGHAND).  The copy is allocated before the point of no
// return, also when other threads are there (one of them could still
// clone a process that shares them before it is gone); commit_exec
// uses it if it must.
static int exec_sighand_prepare(struct process *p, struct sighand **own)
{
	*own = 0;
	if (!sighand_shared(p->sighand) && __atomic_load_n(&p->nthreads, __ATOMIC_RELAXED) == 1)
		return 0;
	*own = sighand_copy(0, false);
	return *own ? 0 : -ENOMEM;
}

static void commit_exec(struct thread *t, struct mm *mm, struct vnode *vn, const char *path,
			struct trap_frame *f, uint64_t entry, uint64_t sp, bool secure,
			struct sighand *own_sighand)
{
	struct process *p = t->proc;
	const struct cred *cred = current_cred();	// the program's, committed
	struct mm *old = p->mm;

	if (p->nthreads > 1)
		kill_other_threads(p);
	// Alone in p now: nobody else can start sharing its dispositions.
	if (own_sighand && sighand_shared(p->sighand))
		sighand_exec_own(p, own_sighand);
	else
		sighand_put(own_sighand);
	thread_tables_adopt(t);
	// The old image's robust locks die with it, read from the old memory.
	futex_release_robust_list(t);
	rseq_exec(t);		// before the old address space goes
	uint64_t pl = spin_lock_irqsave(&p->lock);	// /proc takes it under p->lock
	p->mm = mm;
	spin_unlock_irqrestore(&p->lock, pl);
	t->mm = mm;
	arch_mm_activate(mm);
	// This CPU now runs the new address space, which has no membarrier
	// registration (exec clears it).
	uint64_t flags = irq_save();
	membarrier_switch_mm(mm);
	irq_restore(flags);
	if (old) {
		mm->coredump_filter = old->coredump_filter;	// kept across exec, as Linux
		acct_mm_peak(p, old->rss_peak);		// ru_maxrss outlives the image
		mm_put(old);
	}
	vfork_release(t);
	fdtable_close_on_exec(p->fdt);
	signal_exec_reset(p);
	posix_timers_exit(p);		// as Linux's exit_itimers
	// A program run with other IDs than its caller's is not dumpable, and
	// a privilege change forgets the parent-death signal, as on Linux.
	p->not_dumpable = cred->euid != cred->uid || cred->egid != cred->gid;
	if (secure) {
		p->pdeath_signal = 0;
		t->personality &= ~PER_CLEAR_ON_SETID;
	}
	p->did_exec = true;		// setpgid by the parent: EACCES from now on
	p->exec_id++;			// mq_notify's signal is not for the new program
	if (vnode_path(vn, p->exe_path, sizeof(p->exe_path)) < 0)
		strlcpy(p->exe_path, path, sizeof(p->exe_path));
	const char *base = strrchr(path, '/');
	strlcpy(t->name, base ? base + 1 : path, sizeof(t->name));
	arch_exec_reset_thread(t);
	arch_frame_init_user(f, entry, sp);
	// A new frame, and signal state that exec reset: the return to
	// user mode looks at both (kernel/proc/return_to_user.c).
	thread_work_set(t, WORK_FRAME | WORK_SIGNAL | WORK_STATE);
}

// Runs the file 'path' names (from 'start', NULL for the cwd, with the
// LOOKUP_* 'lflags'); execfn is the name the program sees as AT_EXECFN
// and its scripts' interpreters as the script's path.
static int do_execve(struct vnode *start, const char *path, int lflags, const char *execfn,
		     struct exec_strings *s, struct trap_frame *f)
{
	char *interp = kmalloc(PATH_MAX);
	const char *file = execfn;
	struct vnode *vn = 0;
	bool denied = false;
	int r;

	if (!interp)
		return -ENOMEM;
	// As Linux since 5.18: an empty argv gets "" as argv[0], so that a
	// program reading argv[1] does not walk into envp.
	size_t off;
	if (s->argc == 0 && ((r = strings_add(s, "", &off)) < 0 ||
			     (r = vec_push(&s->argo, &s->argc, &s->argcap, off)) < 0))
		goto out;
	for (int depth = 0;; depth++) {
		r = depth == 0 ? vfs_lookup_at(start, path, lflags, &vn)
			       : vfs_lookup(file, true, &vn);
		if (r < 0)
			goto out;
		// AT_SYMLINK_NOFOLLOW on a symlink: ELOOP, as Linux.
		if (vn->type == VNODE_SYMLINK) {
			r = -ELOOP;
			goto out;
		}
		// Directories and devices: EACCES; files by their mode bits
		// (root too needs one execute bit).
		r = vn->type != VNODE_REG ? -EACCES : vnode_may(vn, MAY_EXEC);
		if (r < 0)
			goto out;
		r = depth < SHEBANG_DEPTH ? shebang(vn, file, s, interp) : 1;
		if (r < 0)
			goto out;
		if (r == 1)
			break;
		vnode_put(vn);
		vn = 0;
		file = interp;
	}
	struct mm *mm;
	uint64_t entry, sp;
	// A file open for writing is not run (ETXTBSY, as Linux); from here
	// on nobody may open it for writing, and the new address space keeps
	// it so (mm->exe).
	r = vnode_deny_write_access(vn);
	if (r < 0)
		goto out;
	denied = true;
	// The program's setuid and setgid bits (not a script's) decide the
	// new credentials, as on Linux.
	struct cred *nc = cred_for_exec(vn, &s->secure);
	if (!nc) {
		r = -ENOMEM;
		goto out;
	}
	s->cred = nc;
	r = strings_finish(s);
	// As Linux: the new program's table is its own, so that close-on-exec
	// does not close another process's descriptors (CLONE_FILES).
	if (r == 0)
		r = exec_unshare_files(current_thread());
	struct sighand *own_sighand = 0;
	if (r == 0)
		r = exec_sighand_prepare(current_process(), &own_sighand);
	if (r == 0)
		r = load_elf(vn, s, execfn, &mm, &entry, &sp);
	if (r == 0) {
		vnode_get(vn);
		mm->exe = vn;		// with the denial taken above
		denied = false;
		cred_commit(nc);
		commit_exec(current_thread(), mm, vn, file, f, entry, sp, s->secure, own_sighand);
	} else {
		sighand_put(own_sighand);
		cred_put(nc);
	}
out:
	if (denied)
		vnode_allow_write_access(vn);
	if (vn)
		vnode_put(vn);
	kfree(interp);
	return r;
}

// The name Linux gives a program started through a descriptor:
// "/dev/fd/N" or "/dev/fd/N/PATH" (a path from the cwd or an absolute
// one is kept as it is).
static int exec_name(int dirfd, const char *path, char **out)
{
	char *name = kmalloc(PATH_MAX);

	if (!name)
		return -ENOMEM;
	if (path[0] == '/' || dirfd == AT_FDCWD)
		strlcpy(name, path, PATH_MAX);
	else if (!path[0])
		ksnprintf(name, PATH_MAX, "/dev/fd/%d", dirfd);
	else if ((size_t)ksnprintf(name, PATH_MAX, "/dev/fd/%d/%s", dirfd, path) >= PATH_MAX) {
		kfree(name);
		return -ENAMETOOLONG;
	}
	*out = name;
	return 0;
}

// The directory (or, with AT_EMPTY_PATH and "", the file) the lookup
// starts from.  Unlike the other *at() calls, execveat takes an O_PATH
// descriptor for the file itself.
static int exec_start(int dirfd, const char *path, int flags, struct vnode **start)
{
	*start = 0;
	// An absolute path ignores dirfd; an empty one without AT_EMPTY_PATH
	// is ENOENT from the lookup, before dirfd is looked at (as Linux).
	if (path[0] == '/' || dirfd == AT_FDCWD || (!path[0] && !(flags & AT_EMPTY_PATH)))
		return 0;
	struct file *fp = fget_raw(dirfd);
	if (!fp)
		return -EBADF;
	int r = 0;
	if (!fp->vn)
		r = path[0] ? -ENOTDIR : -EACCES;	// a pipe: not a file to run
	else if (path[0] && fp->vn->type != VNODE_DIR)
		r = -ENOTDIR;
	if (r == 0) {
		vnode_get(fp->vn);
		*start = fp->vn;
	}
	file_put(fp);
	return r;
}

static long execveat(int dirfd, uint64_t upath, uint64_t uargv, uint64_t uenvp, int flags,
		     struct trap_frame *f)
{
	struct exec_strings s;
	struct vnode *start = 0;
	char *path = 0, *name = 0;
	long r;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	r = user_path(upath, &path);
	if (r < 0)
		return r;
	strings_init(&s);
	r = nproc_exec_check();		// after a set*id past RLIMIT_NPROC, as Linux
	if (r == 0)
		r = exec_start(dirfd, path, flags, &start);
	if (r == 0)
		r = exec_name(dirfd, path, &name);
	// The file name counts against the limit too, as on Linux (the stack
	// builder places it).
	if (r == 0) {
		s.execfn_len = strlen(name) + 1;
		if (!strings_fit(&s, 0))
			r = -E2BIG;
	}
	if (r == 0)
		r = copy_user_vector(&s, uargv, false);
	if (r == 0)
		r = copy_user_vector(&s, uenvp, true);
	if (r == 0) {
		int lflags = (flags & AT_SYMLINK_NOFOLLOW) ? 0 : LOOKUP_FOLLOW;
		if (flags & AT_EMPTY_PATH)
			lflags |= LOOKUP_EMPTY_OK;
		r = do_execve(start, path, lflags, name, &s, f);
	}
	strings_free(&s);
	if (start)
		vnode_put(start);
	kfree(name);
	kfree(path);
	return r;
}

SYSCALL_DEFINE(SYS_execve, execve)
{
	return execveat(AT_FDCWD, args->a[0], args->a[1], args->a[2], 0, syscall_frame());
}

SYSCALL_DEFINE(SYS_execveat, execveat)
{
	return execveat((int)args->a[0], args->a[1], args->a[2], args->a[3], (int)args->a[4],
			syscall_frame());
}

// The kernel starting init: argv and envp from kernel strings.
int exec_from_kernel(const char *path, const char *const *argv, int argc,
		     const char *const *envp, int envc, struct trap_frame *f)
{
	struct exec_strings s;
	size_t off;
	int r = 0;

	strings_init(&s);
	for (int i = 0; i < argc && r == 0; i++)
		if ((r = strings_add(&s, argv[i], &off)) == 0)
			r = vec_push(&s.argo, &s.argc, &s.argcap, off);
	for (int i = 0; i < envc && r == 0; i++)
		if ((r = strings_add(&s, envp[i], &off)) == 0)
			r = vec_push(&s.envo, &s.envc, &s.envcap, off);
	if (r == 0)
		r = do_execve(0, path, LOOKUP_FOLLOW, path, &s, f);
	strings_free(&s);
	return r;
}
