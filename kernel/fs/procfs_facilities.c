// /proc/switchyard/facilities: the facility counters of every CPU (what
// explains a benchmark's figures: traps, saves, restores, leak-guard
// resets, eager loads, fetches from other CPUs), under the policy in
// force; writing "reset" zeroes them, writing "policy NAME" (a name
// xstate= takes) changes the policy from the next switch on.  /proc/switchyard/thread_facilities:
// the same story for the thread that reads it.

#include <fs/dev.h>
#include <fs/vfs.h>
#include <fs/iobuf.h>
#include <fs/procfs.h>
#include <kernel/cpu.h>
#include <kernel/thread.h>
#include <kernel/facility.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <uapi/errno.h>

#define FAC_FIELDS (sizeof(struct fac_stats) / sizeof(uint64_t))
#define FAC_LINE_MAX (4 + 4 + FAC_FIELDS * 21 + 1)
#define FAC_TEXT_MAX (160 + (size_t)MAX_CPUS * NR_FACILITIES * FAC_LINE_MAX)

_Static_assert(FAC_FIELDS == 9, "the header names every fac_stats field");

// Every number is padded to a fixed width, so the file keeps its length
// while counters grow and a reader taking it in pieces gets whole lines.
static size_t render_cpus(char *buf, size_t size)
{
	char policy[FAC_POLICY_NAME_MAX];
	fac_policy_name(policy, sizeof(policy));
	// The name padded too: the policy may change between two reads.
	size_t len = ksnprintf(buf, size, "policy %-*s\n"
			       "cpu fac traps saves save_skips restores restore_skips inits "
			       "resets eager_loads fetches\n", FAC_POLICY_NAME_MAX - 1, policy);

	for (int i = 0; i < ncpus && i < MAX_CPUS; i++) {
		if (!cpus[i].online)
			continue;
		for (int f = 0; f < NR_FACILITIES; f++) {
			struct fac_stats s;
			const uint64_t *v = (const uint64_t *)&s;
			memcpy(&s, (const void *)&cpus[i].fac[f].stats, sizeof(s));
			len += ksnprintf(buf + len, size - len, "%3d %-3s", i, arch_fac_name(f));
			for (size_t k = 0; k < FAC_FIELDS; k++)
				len += ksnprintf(buf + len, size - len, " %20lu", (unsigned long)v[k]);
			len += ksnprintf(buf + len, size - len, "\n");
		}
	}
	return len;
}

static size_t render_thread(char *buf, size_t size)
{
	struct thread *t = current_thread();
	size_t len = ksnprintf(buf, size, "fac traps loads saved on load_count\n");

	for (int f = 0; f < NR_FACILITIES; f++) {
		const struct fac_thread *ft = &t->fac[f];
		len += ksnprintf(buf + len, size - len, "%-3s %10u %10u %d %d %3u\n",
				 arch_fac_name(f), ft->traps, ft->loads, ft->saved, ft->on,
				 ft->load_count);
	}
	return len;
}

static long cpus_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f;
	return procfs_text_read(render_cpus, FAC_TEXT_MAX, off, b, n);
}

static long thread_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f;
	return procfs_text_read(render_thread, FAC_TEXT_MAX, off, b, n);
}

void fac_stats_reset(void)
{
	// Each CPU owns its counters; a reset racing with an increment may
	// leave that one count behind, which is fine for statistics.
	for (int i = 0; i < ncpus && i < MAX_CPUS; i++)
		for (int f = 0; f < NR_FACILITIES; f++)
			memset((void *)&cpus[i].fac[f].stats, 0, sizeof(cpus[i].fac[f].stats));
}

static long cpus_write(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	char cmd[8 + FAC_POLICY_NAME_MAX];
	long rc = procfs_read_command(b, n, cmd, sizeof(cmd));

	(void)vn; (void)f; (void)off;
	if (rc < 0)
		return rc;
	if (strcmp(cmd, "reset") == 0)
		fac_stats_reset();
	else if (strncmp(cmd, "policy ", 7) != 0 || fac_set_policy(cmd + 7) < 0)
		return -EINVAL;
	return n;
}

static const struct vnode_ops cpus_ops = { .read = cpus_read, .write = cpus_write };
static const struct vnode_ops thread_ops = { .read = thread_read };

int procfs_facilities_init(void)
{
	struct vnode *all = vnode_alloc(VNODE_REG, 0644);
	struct vnode *mine = vnode_alloc(VNODE_REG, 0444);
	int rc = -ENOMEM;

	if (all && mine) {
		all->ops = &cpus_ops;
		mine->ops = &thread_ops;
		rc = vfs_add_node("/proc/switchyard", "facilities", all);
		if (rc == 0)
			rc = vfs_add_node("/proc/switchyard", "thread_facilities", mine);
	}
	if (all)
		vnode_put(all);
	if (mine)
		vnode_put(mine);
	return rc;
}
