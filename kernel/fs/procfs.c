// Synthetic files: /proc/meminfo and, under
// /proc/switchyard, cpustat (per-CPU counters), memstat (memory by use,
// for leak checks) and fail_alloc (allocation-failure injection).
// /proc/self and the process directories: kernel/fs/procfs_pid.c.

#include <fs/dev.h>
#include <fs/vfs.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/membarrier.h>
#include <kernel/process.h>
#include <kernel/proc_internal.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/fail_inject.h>
#include <mm/frame.h>
#include <mm/kmalloc.h>
#include <mm/kmalloc_trace.h>
#include <mm/phys.h>
#include <uapi/errno.h>
#include <fs/procfs.h>
#include <mm/kstack.h>

long procfs_text_read(size_t (*render)(char *, size_t), size_t size, uint64_t off,
		      struct iobuf *b, size_t n)
{
	char *text = kmalloc(size);
	size_t len;
	long rc;

	if (!text)
		return -ENOMEM;
	len = render(text, size);
	if (off >= len) {
		kfree(text);
		return 0;
	}
	if (n > len - off)
		n = len - off;
	rc = iobuf_put(b, 0, text + off, n) < 0 ? -EFAULT : (long)n;
	kfree(text);
	return rc;
}

long procfs_read_command(struct iobuf *b, size_t n, char *cmd, size_t size)
{
	if (n == 0 || n > size - 1)
		return -EINVAL;
	if (iobuf_get(b, 0, cmd, n) < 0)
		return -EFAULT;
	cmd[n] = 0;
	if (cmd[n - 1] == '\n')
		cmd[n - 1] = 0;
	return 0;
}

// ---- /proc/switchyard/cpustat ----

static const char cpustat_header[] =
	"cpu ctxsw ctxsw_vol ctxsw_invol migrations ipi_sent ipi_recv ipi_resched "
	"ipi_call ipi_tlb syscalls pgfaults ticks idle_ns xsave xsave_skip xrstor "
	"xrstor_skip fpu_traps mb_ipi_sent mb_ipi_recv mb_sync_core rseq_aborts rseq_id_writes "
	"timer_irqs idle_poll_hits preempt_ipi lb_moves rt_pulls pi_boosts\n";

#define CPUSTAT_FIELDS (sizeof(struct cpu_stats) / sizeof(uint64_t))
#define CPUSTAT_LINE_MAX (4 + CPUSTAT_FIELDS * 21 + 1)

_Static_assert(CPUSTAT_FIELDS == 29, "cpustat header names every cpu_stats field");

// The extended-state columns sum every facility's counters
// (/proc/switchyard/facilities has them one by one).
static void facility_totals(struct cpu_stats *s, const struct cpu *c)
{
	s->xsave = s->xsave_skip = s->xrstor = s->xrstor_skip = s->fpu_traps = 0;
	for (int f = 0; f < NR_FACILITIES; f++) {
		const struct fac_stats *fs = &c->fac[f].stats;
		s->xsave += fs->saves;
		s->xsave_skip += fs->save_skips;
		s->xrstor += fs->restores + fs->inits;
		s->xrstor_skip += fs->restore_skips;
		s->fpu_traps += fs->traps;
	}
}

// The whole file as it reads now; returns its length.  Every number is
// padded to a fixed width (as Plan 9's /dev/sysstat does), so the file's
// length does not change as counters grow: a reader that takes it in
// several read() calls gets whole lines at the offsets it expects, never
// the tail of a longer, newer rendering.
static size_t cpustat_render(char *buf, size_t size)
{
	size_t len = strlcpy(buf, cpustat_header, size);

	for (int i = 0; i < ncpus && i < MAX_CPUS; i++) {
		struct cpu_stats s;
		const uint64_t *v = (const uint64_t *)&s;

		if (!cpus[i].online)
			continue;
		memcpy(&s, (const void *)&cpus[i].stats, sizeof(s));
		facility_totals(&s, &cpus[i]);
		len += ksnprintf(buf + len, size - len, "%3d", i);
		for (size_t f = 0; f < CPUSTAT_FIELDS; f++)
			len += ksnprintf(buf + len, size - len, " %20lu", (unsigned long)v[f]);
		len += ksnprintf(buf + len, size - len, "\n");
	}
	return len;
}

static long cpustat_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f;
	return procfs_text_read(cpustat_render,
			 sizeof(cpustat_header) + (size_t)MAX_CPUS * CPUSTAT_LINE_MAX, off, b, n);
}

static long cpustat_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	char cmd[8];
	long rc = procfs_read_command(b, n, cmd, sizeof(cmd));

	(void)vn; (void)f; (void)off;
	if (rc < 0)
		return rc;
	if (strcmp(cmd, "reset") != 0)
		return -EINVAL;
	// Each CPU owns its counters; a reset racing with an increment may
	// leave that one count behind, which is fine for statistics.
	for (int i = 0; i < ncpus && i < MAX_CPUS; i++)
		memset((void *)&cpus[i].stats, 0, sizeof(cpus[i].stats));
	fac_stats_reset();
	return n;
}

static const struct vnode_ops cpustat_ops = { .read = cpustat_read, .write = cpustat_write };

// ---- /proc/switchyard/mbstat: membarrier IPI timings (read-only) ----

static long mbstat_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f;
	return procfs_text_read(membarrier_stat_render, MBSTAT_SIZE_MAX, off, b, n);
}

static const struct vnode_ops mbstat_ops = { .read = mbstat_read };

// ---- memory statistics ----

// Everything /proc/meminfo and memstat print, in pages unless named.
struct mem_snapshot {
	uint64_t total, free, used;
	uint64_t by_use[FRAME_USE_COUNT];
	struct kmalloc_stats km;
	uint64_t slab, slab_empty;
	uint64_t kstacks_in_use, kstacks_cached, kstack_pages_each;
	uint64_t processes, threads;
};

static void count_process(struct process *p, void *arg)
{
	struct mem_snapshot *m = arg;

	m->processes++;
	m->threads += (uint64_t)__atomic_load_n(&p->nthreads, __ATOMIC_RELAXED);
}

static void mem_snapshot(struct mem_snapshot *m)
{
	memset(m, 0, sizeof(*m));
	frame_stats(&m->total, &m->free);
	m->used = m->total - m->free;
	frame_use_stats(m->by_use);
	kmalloc_stats(&m->km);
	for (int c = 0; c < KMALLOC_NCLASSES; c++) {
		m->slab += m->km.slab_pages[c];
		m->slab_empty += m->km.empty_slabs[c];
	}
	kstack_stats(&m->kstacks_in_use, &m->kstacks_cached, &m->kstack_pages_each);
	uint64_t flags = spin_lock_irqsave(&proc_tree_lock);
	process_for_each_locked(count_process, m);
	spin_unlock_irqrestore(&proc_tree_lock, flags);
}

// The frames a leak check compares (docs/testing.md): all in use but
// those that caches keep and that come back with no one freeing anything
// (kmalloc's slabs, whose objects are compared class by class instead;
// kernel stacks kept for reuse; the kernel's own page tables, which grow
// with the kernel-stack area and are never freed).
static uint64_t pinned_pages(const struct mem_snapshot *m)
{
	return m->used - m->slab - m->kstacks_cached * m->kstack_pages_each -
	       m->by_use[FRAME_KPAGETABLE];
}

// One "Name:  value kB" line in the layout of Linux's /proc/meminfo.
static size_t meminfo_line(char *buf, size_t size, const char *name, uint64_t kb)
{
	char label[24];

	ksnprintf(label, sizeof(label), "%s:", name);
	return ksnprintf(buf, size, "%-15s %8lu kB\n", label, (unsigned long)kb);
}

// The fields Switchyard can state truthfully.  The whole file tree is in
// memory, as tmpfs is: its pages are both Cached and Shmem.  Empty slabs
// (kmalloc_trim frees them) and cached kernel stacks count as available.
static size_t meminfo_render(char *buf, size_t size)
{
	struct mem_snapshot m;
	const uint64_t kb = PAGE_SIZE / 1024;
	size_t len = 0;

	mem_snapshot(&m);
	const struct { const char *name; uint64_t pages; } rows[] = {
		{ "MemTotal", m.total },
		{ "MemFree", m.free },
		{ "MemAvailable", m.free + m.slab_empty + m.kstacks_cached * m.kstack_pages_each },
		{ "Buffers", 0 },
		{ "Cached", m.by_use[FRAME_FILE] },
		{ "SwapCached", 0 },
		{ "AnonPages", m.by_use[FRAME_USER] },
		{ "Shmem", m.by_use[FRAME_FILE] },
		{ "KReclaimable", m.slab_empty },
		{ "Slab", m.slab },
		{ "SReclaimable", m.slab_empty },
		{ "SUnreclaim", m.slab - m.slab_empty },
		{ "KernelStack", m.kstacks_in_use * m.kstack_pages_each },
		{ "PageTables", m.by_use[FRAME_PAGETABLE] },
		{ "SwapTotal", 0 },
		{ "SwapFree", 0 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && len < size; i++)
		len += meminfo_line(buf + len, size - len, rows[i].name, rows[i].pages * kb);
	return len < size ? len : size - 1;
}

static long meminfo_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f;
	return procfs_text_read(meminfo_render, 1024, off, b, n);
}

static const struct vnode_ops meminfo_ops = { .read = meminfo_read };

// /sys/devices/system/node/node0/meminfo: the one memory node holds all
// of it, in the layout of Linux's per-node file (libnuma and LTP read
// MemTotal, MemFree, MemUsed and FilePages), with the same true fields.
static size_t node_meminfo_render(char *buf, size_t size)
{
	struct mem_snapshot m;
	const uint64_t kb = PAGE_SIZE / 1024;
	size_t len = 0;

	mem_snapshot(&m);
	const struct { const char *name; uint64_t pages; } rows[] = {
		{ "MemTotal", m.total },
		{ "MemFree", m.free },
		{ "MemUsed", m.total - m.free },
		{ "SwapCached", 0 },
		{ "FilePages", m.by_use[FRAME_FILE] },
		{ "AnonPages", m.by_use[FRAME_USER] },
		{ "Shmem", m.by_use[FRAME_FILE] },
		{ "KernelStack", m.kstacks_in_use * m.kstack_pages_each },
		{ "PageTables", m.by_use[FRAME_PAGETABLE] },
		{ "KReclaimable", m.slab_empty },
		{ "Slab", m.slab },
		{ "SReclaimable", m.slab_empty },
		{ "SUnreclaim", m.slab - m.slab_empty },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && len < size; i++) {
		char label[24];
		ksnprintf(label, sizeof(label), "%s:", rows[i].name);
		len += ksnprintf(buf + len, size - len, "Node 0 %-16s%8lu kB\n", label,
				 (unsigned long)(rows[i].pages * kb));
	}
	return len < size ? len : size - 1;
}

static long node_meminfo_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			      size_t n)
{
	(void)vn; (void)f;
	return procfs_text_read(node_meminfo_render, 1024, off, b, n);
}

static const struct vnode_ops node_meminfo_ops = { .read = node_meminfo_read };

// "name value" lines, for programs (see docs/testing.md).
static size_t memstat_render(char *buf, size_t size)
{
	struct mem_snapshot m;
	size_t len = 0;

	mem_snapshot(&m);
	const struct { const char *name; uint64_t value; } rows[] = {
		{ "pages_total", m.total },
		{ "pages_free", m.free },
		{ "pages_used", m.used },
		{ "pages_pinned", pinned_pages(&m) },
		{ "pages_kmalloc_slab", m.slab },
		{ "pages_kmalloc_slab_empty", m.slab_empty },
		{ "pages_kmalloc_large", m.km.large_pages },
		{ "pages_kstack", m.by_use[FRAME_KSTACK] },
		{ "pages_kstack_cached", m.kstacks_cached * m.kstack_pages_each },
		{ "pages_pagetable", m.by_use[FRAME_PAGETABLE] },
		{ "pages_kernel_pagetable", m.by_use[FRAME_KPAGETABLE] },
		{ "pages_file", m.by_use[FRAME_FILE] },
		{ "pages_pipe", m.by_use[FRAME_PIPE] },
		{ "pages_user", m.by_use[FRAME_USER] },
		{ "pages_other", m.by_use[FRAME_OTHER] },
		{ "kstacks_in_use", m.kstacks_in_use },
		{ "kstacks_cached", m.kstacks_cached },
		{ "kmalloc_large_blocks", m.km.large_blocks },
		{ "processes", m.processes },
		{ "threads", m.threads },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]) && len < size; i++)
		len += ksnprintf(buf + len, size - len, "%s %lu\n", rows[i].name,
				 (unsigned long)rows[i].value);
	for (int c = 0; c < KMALLOC_NCLASSES && len < size; c++)
		len += ksnprintf(buf + len, size - len, "kmalloc_objects_%lu %lu\n",
				 (unsigned long)m.km.class_size[c], (unsigned long)m.km.objects[c]);
	for (int c = 0; c < KMALLOC_NCLASSES && len < size; c++)
		len += ksnprintf(buf + len, size - len, "kmalloc_pages_%lu %lu\n",
				 (unsigned long)m.km.class_size[c], (unsigned long)m.km.slab_pages[c]);
	return len < size ? len : size - 1;
}

static long memstat_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f;
	return procfs_text_read(memstat_render, 2048, off, b, n);
}

// A control file's write: one command line, handed to 'apply' (0 or a
// negative errno).  Returns n, or the errno.
static long command_write(struct iobuf *b, size_t n, int (*apply)(const char *cmd))
{
	char cmd[40];
	long rc = procfs_read_command(b, n, cmd, sizeof(cmd));

	if (rc == 0)
		rc = apply(cmd);
	return rc < 0 ? rc : (long)n;
}

// "trim": give kmalloc's empty slabs back (they are not counted by the
// leak check, but a reader may want MemFree without them).
static int memstat_command(const char *cmd)
{
	if (strcmp(cmd, "trim") != 0)
		return -EINVAL;
	kmalloc_trim();
	return 0;
}

static long memstat_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f; (void)off;
	return command_write(b, n, memstat_command);
}

static const struct vnode_ops memstat_ops = { .read = memstat_read, .write = memstat_write };

// ---- /proc/switchyard/fail_alloc ----

// Rendered on the stack: reading must not allocate, or a pending "self K"
// failure would be spent on the read that asks about it.
static long fail_alloc_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	char text[256];
	size_t len = fail_inject_render(text, sizeof(text));

	(void)vn; (void)f;
	if (off >= len)
		return 0;
	if (n > len - off)
		n = len - off;
	return iobuf_put(b, 0, text + off, n) < 0 ? -EFAULT : (long)n;
}

static long fail_alloc_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			     size_t n)
{
	(void)vn; (void)f; (void)off;
	return command_write(b, n, fail_inject_command);
}

static const struct vnode_ops fail_alloc_ops = { .read = fail_alloc_read,
						 .write = fail_alloc_write };

// ---- /proc/switchyard/kmalloc_live ----

static long kmalloc_live_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			      size_t n)
{
	(void)vn; (void)f;
	return procfs_text_read(kmalloc_trace_render, 8192, off, b, n);
}

static long kmalloc_live_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b,
			       size_t n)
{
	(void)vn; (void)f; (void)off;
	return command_write(b, n, kmalloc_trace_command);
}

static const struct vnode_ops kmalloc_live_ops = { .read = kmalloc_live_read,
						   .write = kmalloc_live_write };

// ---- the tree ----

int procfs_add(const char *dir, const char *name, enum vnode_type type, uint32_t perm,
	       const struct vnode_ops *ops, const void *priv)
{
	struct vnode *vn = vnode_alloc(type, perm);
	int rc;

	if (!vn)
		return -ENOMEM;
	vn->ops = ops;
	vn->priv = (void *)priv;
	rc = vfs_add_node(dir, name, vn);
	vnode_put(vn);
	return rc;
}

int procfs_init(void)
{
	int rc = procfs_pid_init();

	if (rc == 0)
		rc = procfs_add("/proc", "meminfo", VNODE_REG, 0444, &meminfo_ops, NULL);
	if (rc == 0)
		rc = procfs_add("/sys/devices/system/node/node0", "meminfo", VNODE_REG, 0444,
				&node_meminfo_ops, NULL);
	if (rc == 0)
		rc = procfs_add("/proc/switchyard", "cpustat", VNODE_REG, 0644, &cpustat_ops, NULL);
	if (rc == 0)
		rc = procfs_add("/proc/switchyard", "mbstat", VNODE_REG, 0444, &mbstat_ops, NULL);
	if (rc == 0)
		rc = procfs_add("/proc/switchyard", "memstat", VNODE_REG, 0644, &memstat_ops, NULL);
	if (rc == 0)
		rc = procfs_add("/proc/switchyard", "fail_alloc", VNODE_REG, 0644, &fail_alloc_ops, NULL);
	if (rc == 0)
		rc = procfs_add("/proc/switchyard", "kmalloc_live", VNODE_REG, 0644, &kmalloc_live_ops,
				NULL);
	return rc;
}
