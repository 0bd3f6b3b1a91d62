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
#include <proc/elf.h>
#include <proc/exec_stack.h>
#include <lib/string.h>
#include <uapi/errno.h>
#include <uapi/auxv.h>
#include <uapi/rseq.h>
#include <kernel/rseq.h>

#define EXEC_ARGS_MAX	(256 * 1024)	// bytes of argv + envp strings
#define EXEC_ARGC_MAX	8192
#define PIE_BASE	0x555555554000UL
#define SHEBANG_DEPTH	4
// Room the initial stack mapping gets below the arguments (Linux's
// stack_expand); it grows down from there on faults, up to RLIMIT_STACK.
#define STACK_EXPAND	(128 * 1024)

// The strings of argv and envp, copied into one kernel buffer.
struct exec_strings {
	char *buf;
	size_t used;
	const char **argv;
	int argc;
	const char **envp;
	int envc;
};

// Safe to call twice (strings_init frees what it got when it fails, and
// execve frees on every path).
static void strings_free(struct exec_strings *s)
{
	kfree(s->buf);
	kfree(s->argv);
	kfree(s->envp);
	s->buf = NULL;
	s->argv = s->envp = NULL;
}

static int strings_init(struct exec_strings *s)
{
	memset(s, 0, sizeof(*s));
	s->buf = kmalloc(EXEC_ARGS_MAX);
	s->argv = kmalloc(EXEC_ARGC_MAX * sizeof(char *));
	s->envp = kmalloc(EXEC_ARGC_MAX * sizeof(char *));
	if (!s->buf || !s->argv || !s->envp) {
		strings_free(s);
		return -ENOMEM;
	}
	return 0;
}

static const char *strings_add(struct exec_strings *s, const char *str)
{
	size_t n = strlen(str) + 1;

	if (s->used + n > EXEC_ARGS_MAX)
		return 0;
	char *dst = s->buf + s->used;
	memcpy(dst, str, n);
	s->used += n;
	return dst;
}

// Copies a NULL-terminated array of user string pointers.
static int copy_user_vector(struct exec_strings *s, uint64_t uvec, const char **out, int *count)
{
	*count = 0;
	if (!uvec)
		return 0;		// Linux accepts NULL as an empty vector
	for (int i = 0;; i++) {
		uint64_t up;
		if (get_user_u64(&up, uvec + 8 * (uint64_t)i) < 0)
			return -EFAULT;
		if (!up)
			return 0;
		if (i >= EXEC_ARGC_MAX - 1)
			return -E2BIG;
		long n = strncpy_from_user(s->buf + s->used, up, EXEC_ARGS_MAX - s->used);
		if (n == -ENAMETOOLONG)
			return -E2BIG;
		if (n < 0)
			return (int)n;
		out[i] = s->buf + s->used;
		s->used += n + 1;
		*count = i + 1;
	}
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
				   vn, off, file_end - start);
			if (r < 0)
				return (int)r;
		} else {
			file_map_end = start;
		}
		if (mem_end > file_map_end) {
			r = vm_map(mm, file_map_end, mem_end - file_map_end, s->prot,
				   MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, 0, 0, 0);
			if (r < 0)
				return (int)r;
		}
	}
	return 0;
}

static int build_stack(struct mm *mm, const struct exec_strings *s, const char *execfn,
		       const struct elf_image *img, uint64_t bias, uint64_t *sp)
{
	struct exec_stack_args a;
	uint8_t random[16];
	size_t size = ((s->used + strlen(execfn) + 64 + 8 * (s->argc + s->envc) + 1024) + 4095) & ~4095UL;

	memset(&a, 0, sizeof(a));
	a.argv = s->argv;
	a.argc = s->argc;
	a.envp = s->envp;
	a.envc = s->envc;
	a.execfn = execfn;
	arch_random_bytes(random, sizeof(random));
	a.random16 = random;
	uint64_t aux[][2] = {
		{ AT_HWCAP, arch_hwcap() },
		{ AT_PAGESZ, PAGE_SIZE },
		{ AT_CLKTCK, 100 },
		{ AT_PHDR, img->phdr_vaddr + bias },
		{ AT_PHENT, img->phentsize },
		{ AT_PHNUM, img->phnum },
		{ AT_BASE, 0 },
		{ AT_FLAGS, 0 },
		{ AT_ENTRY, img->entry + bias },
		{ AT_UID, 0 }, { AT_EUID, 0 }, { AT_GID, 0 }, { AT_EGID, 0 },
		{ AT_SECURE, 0 },
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
	if (r == 0) {
		long m = vm_map(mm, USER_STACK_TOP - size - STACK_EXPAND, size + STACK_EXPAND,
				PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_GROWSDOWN, 0, 0, 0);
		r = m < 0 ? (int)m : 0;
	}
	if (r == 0)
		r = vm_write(mm, USER_STACK_TOP - size, buf, size);
	kfree(buf);
	return r;
}

// Builds the new address space for the ELF file vn.
static int load_elf(struct vnode *vn, const struct exec_strings *s, const char *execfn,
		    struct mm **out_mm, uint64_t *entry, uint64_t *sp)
{
	struct elf_image img;
	int r = elf_parse(read_vnode, vn, vn->size, &img);

	if (r < 0)
		return r;
	struct mm *mm = mm_create();
	if (!mm)
		return -ENOMEM;
	uint64_t bias = img.pie ? PIE_BASE : 0;
	r = map_segments(mm, vn, &img, bias);
	if (r == 0)
		r = build_stack(mm, s, execfn, &img, bias, sp);
	if (r < 0) {
		mm_put(mm);
		return r;
	}
	mm->brk_start = mm->brk = (img.hi + bias + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	*entry = img.entry + bias;
	*out_mm = mm;
	return 0;
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
	int extra = arg ? 3 : 2;
	if (s->argc + extra > EXEC_ARGC_MAX - 1)
		return -E2BIG;
	int old = s->argc > 0 ? s->argc - 1 : 0;
	memmove(s->argv + extra, s->argv + (s->argc > 0 ? 1 : 0), old * sizeof(char *));
	const char *a0 = strings_add(s, interp);
	const char *a1 = arg ? strings_add(s, arg) : 0;
	const char *a2 = strings_add(s, path);
	if (!a0 || (arg && !a1) || !a2)
		return -E2BIG;
	s->argv[0] = a0;
	if (arg)
		s->argv[1] = a1;
	s->argv[extra - 1] = a2;
	s->argc = old + extra;
	return 0;
}

// Ends every other thread of the process (exec keeps only the caller).
static void kill_other_threads(struct process *p)
{
	uint64_t flags = spin_lock_irqsave(&p->lock);
	for (struct thread *o = p->threads; o; o = o->proc_next) {
		if (o != current_thread()) {
			o->exiting = true;
			wake_interruptible(o);
		}
	}
	spin_unlock_irqrestore(&p->lock, flags);
	while (__atomic_load_n(&p->nthreads, __ATOMIC_SEQ_CST) > 1)
		sched_yield();
}

static void commit_exec(struct thread *t, struct mm *mm, struct vnode *vn, const char *path,
			struct trap_frame *f, uint64_t entry, uint64_t sp)
{
	struct process *p = t->proc;
	struct mm *old = p->mm;

	if (p->nthreads > 1)
		kill_other_threads(p);
	// The old image's robust locks die with it, read from the old memory.
	futex_release_robust_list(t);
	rseq_exec(t);		// before the old address space goes
	p->mm = mm;
	t->mm = mm;
	mm_activate(mm);
	// This CPU now runs the new address space, which has no membarrier
	// registration (exec clears it).
	uint64_t flags = irq_save();
	membarrier_switch_mm(mm);
	irq_restore(flags);
	if (old) {
		acct_mm_peak(p, old->rss_peak);		// ru_maxrss outlives the image
		mm_put(old);
	}
	vfork_release(t);
	fdtable_close_on_exec(p->fdt);
	signal_exec_reset(p);
	if (vnode_path(vn, p->exe_path, sizeof(p->exe_path)) < 0)
		strlcpy(p->exe_path, path, sizeof(p->exe_path));
	const char *base = strrchr(path, '/');
	strlcpy(t->name, base ? base + 1 : path, sizeof(t->name));
	arch_exec_reset_thread(t);
	arch_frame_init_user(f, entry, sp);
}

int do_execve(const char *path, struct exec_strings *s, struct trap_frame *f)
{
	char *interp = kmalloc(PATH_MAX);
	const char *file = path;
	struct vnode *vn = 0;
	int r;

	if (!interp)
		return -ENOMEM;
	for (int depth = 0;; depth++) {
		r = vfs_lookup(file, true, &vn);
		if (r < 0)
			goto out;
		// Directories, devices and files without an execute bit: EACCES.
		if (vn->type != VNODE_REG || !(vn->mode & 0111)) {
			r = -EACCES;
			goto out;
		}
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
	r = load_elf(vn, s, path, &mm, &entry, &sp);
	if (r == 0)
		commit_exec(current_thread(), mm, vn, file, f, entry, sp);
out:
	if (vn)
		vnode_put(vn);
	kfree(interp);
	return r;
}

SYSCALL_DEFINE(SYS_execve, execve)
{
	struct exec_strings s;
	char *path = kmalloc(PATH_MAX);
	long r;

	if (!path)
		return -ENOMEM;
	r = strncpy_from_user(path, args->a[0], PATH_MAX);
	if (r >= 0 && path[0] == 0)
		r = -ENOENT;
	if (r < 0) {
		kfree(path);
		return r;
	}
	r = strings_init(&s);
	if (r == 0)
		r = copy_user_vector(&s, args->a[1], s.argv, &s.argc);
	if (r == 0)
		r = copy_user_vector(&s, args->a[2], s.envp, &s.envc);
	if (r == 0)
		r = do_execve(path, &s, args->frame);
	strings_free(&s);
	kfree(path);
	return r;
}

// The kernel starting init: argv and envp from kernel strings.
int exec_from_kernel(const char *path, const char *const *argv, int argc,
		     const char *const *envp, int envc, struct trap_frame *f)
{
	struct exec_strings s;
	int r = strings_init(&s);

	if (r < 0)
		return r;
	for (int i = 0; i < argc && r == 0; i++)
		if (!(s.argv[s.argc++] = strings_add(&s, argv[i])))
			r = -E2BIG;
	for (int i = 0; i < envc && r == 0; i++)
		if (!(s.envp[s.envc++] = strings_add(&s, envp[i])))
			r = -E2BIG;
	if (r == 0)
		r = do_execve(path, &s, f);
	strings_free(&s);
	return r;
}
