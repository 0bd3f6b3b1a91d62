// /proc/stat and /proc/uptime, from the CPU-time accounting
// (kernel/proc/cputime.c): per-CPU time by kind in USER_HZ clock ticks,
// and the system-wide counters Linux puts beside them.  Switchyard has no
// nice levels, I/O waits, soft interrupts, steal or guests: those columns
// are 0 because nothing here is ever counted in them, not for lack of
// measuring.

#include <fs/dev.h>
#include <fs/vfs.h>
#include <fs/procfs.h>
#include <kernel/cpu.h>
#include <kernel/cputime.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <lib/printf.h>
#include <uapi/errno.h>

#define USER_HZ_NS	10000000ULL
#define NSEC		1000000000ULL
#define STAT_LINE_MAX	(8 + 10 * 21 + 1)
#define STAT_MAX	(STAT_LINE_MAX * (MAX_CPUS + 1) + 512)

struct cpu_times {
	uint64_t user, sys, idle, irq;		// ns
};

static void add_cpu(int i, struct cpu_times *sum, struct cpu_times *one)
{
	acct_cpu_times(i, &one->user, &one->sys, &one->idle, &one->irq);
	sum->user += one->user;
	sum->sys += one->sys;
	sum->idle += one->idle;
	sum->irq += one->irq;
}

// "cpu" or "cpuN": user nice system idle iowait irq softirq steal guest
// guest_nice.
static size_t cpu_line(char *buf, size_t size, const char *name, const struct cpu_times *t)
{
	return ksnprintf(buf, size, "%s %lu 0 %lu %lu 0 %lu 0 0 0 0\n", name,
			 (unsigned long)(t->user / USER_HZ_NS), (unsigned long)(t->sys / USER_HZ_NS),
			 (unsigned long)(t->idle / USER_HZ_NS), (unsigned long)(t->irq / USER_HZ_NS));
}

static size_t stat_render(char *buf, size_t size)
{
	struct cpu_times sum = { 0 }, each[MAX_CPUS];
	uint64_t ctxt = 0, intr = 0;
	size_t len;

	for (int i = 0; i < ncpus && i < MAX_CPUS; i++) {
		if (!cpus[i].online)
			continue;
		add_cpu(i, &sum, &each[i]);
		ctxt += cpus[i].stats.ctxsw;
		intr += acct_cpu_irqs(i);
	}
	len = cpu_line(buf, size, "cpu ", &sum);
	for (int i = 0; i < ncpus && i < MAX_CPUS; i++) {
		char name[8];
		if (!cpus[i].online)
			continue;
		ksnprintf(name, sizeof(name), "cpu%d", i);
		len += cpu_line(buf + len, size - len, name, &each[i]);
	}
	uint64_t btime = (clock_realtime_ns() - clock_monotonic_ns()) / NSEC;
	len += ksnprintf(buf + len, size - len,
			 "intr %lu\nctxt %lu\nbtime %lu\nprocesses %lu\nprocs_running %d\n"
			 "procs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n",
			 (unsigned long)intr, (unsigned long)ctxt, (unsigned long)btime,
			 (unsigned long)acct_forks(), sched_nr_running());
	return len;
}

// "uptime idle": seconds since boot, and the idle time of all CPUs summed.
static size_t uptime_render(char *buf, size_t size)
{
	uint64_t up = clock_monotonic_ns(), idle = 0;

	for (int i = 0; i < ncpus && i < MAX_CPUS; i++) {
		uint64_t u, s, id, irq;
		if (!cpus[i].online)
			continue;
		acct_cpu_times(i, &u, &s, &id, &irq);
		idle += id;
	}
	return ksnprintf(buf, size, "%lu.%02lu %lu.%02lu\n", (unsigned long)(up / NSEC),
			 (unsigned long)(up % NSEC / USER_HZ_NS), (unsigned long)(idle / NSEC),
			 (unsigned long)(idle % NSEC / USER_HZ_NS));
}

static long stat_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f;
	return procfs_text_read(stat_render, STAT_MAX, off, b, n);
}

static long uptime_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f;
	return procfs_text_read(uptime_render, 64, off, b, n);
}

static const struct vnode_ops stat_ops = { .read = stat_read };
static const struct vnode_ops uptime_ops = { .read = uptime_read };

int procfs_stat_init(void)
{
	int rc = procfs_add("/proc", "stat", VNODE_REG, 0444, &stat_ops, NULL);

	return rc < 0 ? rc : procfs_add("/proc", "uptime", VNODE_REG, 0444, &uptime_ops, NULL);
}
