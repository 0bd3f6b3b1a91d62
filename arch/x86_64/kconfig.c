// x86-64's lines of /proc/config.gz: what this port provides, in Linux's
// words; 32-bit programs do not run here.

#include <kernel/arch.h>

const char *arch_kconfig(void)
{
	return "CONFIG_X86_64=y\n"
	       "CONFIG_X86=y\n"
	       "CONFIG_X86_64_SMP=y\n"
	       "CONFIG_X86_TSC=y\n"
	       "CONFIG_X86_LOCAL_APIC=y\n"
	       "# CONFIG_X86_INTEL_MEMORY_PROTECTION_KEYS is not set\n"
	       "# CONFIG_IA32_EMULATION is not set\n"
	       "# CONFIG_X86_X32_ABI is not set\n"
	       "# CONFIG_X86_16BIT is not set\n"
	       "# CONFIG_MODIFY_LDT_SYSCALL is not set\n";
}
