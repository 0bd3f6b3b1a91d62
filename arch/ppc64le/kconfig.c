// ppc64le's lines of /proc/config.gz: what this port provides, in Linux's
// words (POWER9 under QEMU's pseries, transactional memory included).

#include <kernel/arch.h>

const char *arch_kconfig(void)
{
	return "CONFIG_PPC64=y\n"
	       "CONFIG_PPC=y\n"
	       "CONFIG_PPC_BOOK3S_64=y\n"
	       "CONFIG_PPC_PSERIES=y\n"
	       "CONFIG_CPU_LITTLE_ENDIAN=y\n"
	       "CONFIG_PPC_FPU=y\n"
	       "CONFIG_ALTIVEC=y\n"
	       "CONFIG_VSX=y\n"
	       "CONFIG_PPC_TRANSACTIONAL_MEM=y\n"
	       "# CONFIG_COMPAT is not set\n";
}
