// /proc/config.gz (Linux's CONFIG_IKCONFIG_PROC): the kernel's
// configuration in Linux's words, gzipped, so that the tools that ask a
// Linux kernel what it has (LTP's tst_kconfig, scripts that zcat it)
// can ask this one.  It must be true: an option is "=y" only where
// Switchyard does what Linux does with it, and the options tools look
// for that it does not have are listed as "is not set".

#include <fs/procfs.h>
#include <fs/dev.h>
#include <fs/vnode.h>
#include <fs/iobuf.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/uts.h>
#include <lib/gzip.h>
#include <lib/printf.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

static const char kconfig_common[] =
	"#\n# Switchyard (Linux " UTS_RELEASE " ABI) kernel configuration\n#\n"
	"CONFIG_64BIT=y\n"
	"CONFIG_MMU=y\n"
	"CONFIG_SMP=y\n"
	"CONFIG_MULTIUSER=y\n"
	"CONFIG_SYSVIPC=y\n"
	"CONFIG_POSIX_MQUEUE=y\n"
	"CONFIG_FUTEX=y\n"
	"CONFIG_FUTEX_PI=y\n"
	"CONFIG_EPOLL=y\n"
	"CONFIG_SIGNALFD=y\n"
	"CONFIG_TIMERFD=y\n"
	"CONFIG_EVENTFD=y\n"
	"CONFIG_AIO=y\n"
	"CONFIG_SHMEM=y\n"
	"CONFIG_TMPFS=y\n"
	"CONFIG_MEMFD_CREATE=y\n"
	"CONFIG_FILE_LOCKING=y\n"
	"CONFIG_INOTIFY_USER=y\n"
	"CONFIG_FHANDLE=y\n"
	"CONFIG_ADVISE_SYSCALLS=y\n"
	"CONFIG_MEMBARRIER=y\n"
	"CONFIG_RSEQ=y\n"
	"CONFIG_SECCOMP=y\n"
	"CONFIG_SECCOMP_FILTER=y\n"
	"CONFIG_POSIX_TIMERS=y\n"
	"CONFIG_HIGH_RES_TIMERS=y\n"
	"CONFIG_CHECKPOINT_RESTORE=y\n"
	"CONFIG_KCMP=y\n"
	"CONFIG_BSD_PROCESS_ACCT=y\n"
	"CONFIG_PRINTK=y\n"
	"CONFIG_PROC_FS=y\n"
	"CONFIG_SYSFS=y\n"
	"CONFIG_NET=y\n"
	"CONFIG_UNIX=y\n"
	"CONFIG_IKCONFIG=y\n"
	"CONFIG_IKCONFIG_PROC=y\n"
	"CONFIG_PREEMPT_NONE=y\n"
	"# CONFIG_INET is not set\n"
	"# CONFIG_IPV6 is not set\n"
	"# CONFIG_MODULES is not set\n"
	"# CONFIG_BLOCK is not set\n"
	"# CONFIG_SWAP is not set\n"
	"# CONFIG_COREDUMP is not set\n"
	"# CONFIG_ELF_CORE is not set\n"
	"# CONFIG_NAMESPACES is not set\n"
	"# CONFIG_USER_NS is not set\n"
	"# CONFIG_PID_NS is not set\n"
	"# CONFIG_NET_NS is not set\n"
	"# CONFIG_UTS_NS is not set\n"
	"# CONFIG_IPC_NS is not set\n"
	"# CONFIG_TIME_NS is not set\n"
	"# CONFIG_CGROUPS is not set\n"
	"# CONFIG_MEMCG is not set\n"
	"# CONFIG_PERF_EVENTS is not set\n"
	"# CONFIG_BPF_SYSCALL is not set\n"
	"# CONFIG_IO_URING is not set\n"
	"# CONFIG_USERFAULTFD is not set\n"
	"# CONFIG_FANOTIFY is not set\n"
	"# CONFIG_QUOTA is not set\n"
	"# CONFIG_KEYS is not set\n"
	"# CONFIG_AUDIT is not set\n"
	"# CONFIG_KALLSYMS is not set\n"
	"# CONFIG_FTRACE is not set\n"
	"# CONFIG_KPROBES is not set\n"
	"# CONFIG_KSM is not set\n"
	"# CONFIG_TRANSPARENT_HUGEPAGE is not set\n"
	"# CONFIG_HUGETLBFS is not set\n"
	"# CONFIG_PROC_PAGE_MONITOR is not set\n"	/* pagemap, but no smaps */
	"# CONFIG_MEM_SOFT_DIRTY is not set\n"
	"# CONFIG_MEMORY_FAILURE is not set\n"
	"# CONFIG_KEXEC is not set\n";

// The gzipped text, made once at boot.
static uint8_t *config_gz;
static size_t config_gz_len;

static long config_read(struct vnode *vn, struct file *f, uint64_t off, struct iobuf *b, size_t n)
{
	(void)vn; (void)f;
	if (off >= config_gz_len)
		return 0;
	if (n > config_gz_len - off)
		n = config_gz_len - off;
	return iobuf_put(b, 0, config_gz + off, n) < 0 ? -EFAULT : (long)n;
}

static const struct vnode_ops config_ops = { .read = config_read };

int procfs_config_init(void)
{
	char cpus_line[32];
	const char *arch = arch_kconfig();
	int cl = ksnprintf(cpus_line, sizeof(cpus_line), "CONFIG_NR_CPUS=%d\n", MAX_CPUS);
	size_t common = sizeof(kconfig_common) - 1, al = strlen(arch);
	size_t len = common + (size_t)cl + al;
	char *text = kmalloc(len);

	if (!text)
		return -ENOMEM;
	memcpy(text, kconfig_common, common);
	memcpy(text + common, cpus_line, (size_t)cl);
	memcpy(text + common + cl, arch, al);
	config_gz = kmalloc(gzip_stored_size(len));
	if (config_gz)
		config_gz_len = gzip_stored(text, len, config_gz);
	kfree(text);
	if (!config_gz)
		return -ENOMEM;
	return procfs_add("/proc", "config.gz", VNODE_REG, 0444, &config_ops, NULL);
}
