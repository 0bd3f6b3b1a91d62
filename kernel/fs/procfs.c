// Synthetic files: /proc/self/exe and /proc/switchyard/cpustat.

#include <fs/dev.h>
#include <fs/vfs.h>
#include <kernel/cpu.h>
#include <kernel/process.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

// ---- /proc/self/exe ----

static long self_exe_target(struct vnode *vn, char *buf, size_t size)
{
	struct thread *t = current_thread();
	struct process *p = t ? t->proc : NULL;
	size_t len;

	(void)vn;
	if (!p || !p->exe_path[0])
		return -ENOENT;
	len = strnlen(p->exe_path, sizeof(p->exe_path));
	if (len > size)
		len = size;
	memcpy(buf, p->exe_path, len);
	return len;
}

static const struct vnode_ops self_exe_ops = { .target = self_exe_target };

// ---- /proc/switchyard/cpustat ----

static const char cpustat_header[] =
	"cpu ctxsw ctxsw_vol ctxsw_invol migrations ipi_sent ipi_recv ipi_resched "
	"ipi_call ipi_tlb syscalls pgfaults ticks idle_ns xsave xsave_skip xrstor "
	"xrstor_skip fpu_traps rseq_aborts rseq_id_writes\n";

#define CPUSTAT_FIELDS (sizeof(struct cpu_stats) / sizeof(uint64_t))
#define CPUSTAT_LINE_MAX (4 + CPUSTAT_FIELDS * 21 + 1)

_Static_assert(CPUSTAT_FIELDS == 20, "cpustat header names every cpu_stats field");

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
	size_t size = sizeof(cpustat_header) + (size_t)MAX_CPUS * CPUSTAT_LINE_MAX;
	char *text = kmalloc(size);
	size_t len;
	long rc;

	(void)vn; (void)f;
	if (!text)
		return -ENOMEM;
	len = cpustat_render(text, size);
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

static long cpustat_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	char cmd[8] = { 0 };

	(void)vn; (void)f; (void)off;
	if (n > sizeof(cmd) - 1)
		return -EINVAL;
	if (iobuf_get(b, 0, cmd, n) < 0)
		return -EFAULT;
	if (n && cmd[n - 1] == '\n')
		cmd[n - 1] = 0;
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

int procfs_init(void)
{
	struct vnode *exe = vnode_alloc(VNODE_SYMLINK, 0777);
	struct vnode *cpustat = vnode_alloc(VNODE_REG, 0644);
	int rc = -ENOMEM;

	if (exe && cpustat) {
		exe->ops = &self_exe_ops;
		cpustat->ops = &cpustat_ops;
		rc = vfs_add_node("/proc/self", "exe", exe);
		if (rc == 0)
			rc = vfs_add_node("/proc/switchyard", "cpustat", cpustat);
	}
	if (exe)
		vnode_put(exe);
	if (cpustat)
		vnode_put(cpustat);
	return rc;
}
