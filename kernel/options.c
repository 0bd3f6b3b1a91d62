// Boot options: every subsystem registers its own with BOOT_OPTION; this
// applies the command line to all of them.

#include <kernel/boot.h>
#include <kernel/console.h>
#include <kernel/power.h>
#include <lib/cmdline.h>
#include <lib/string.h>

extern const struct boot_option boot_options_start[], boot_options_end[];

const char *init_args;

void boot_options_apply(const char *cmdline)
{
	char err[160];
	size_t n = boot_options_end - boot_options_start;

	kprintf("command line: %s\n", cmdline);
	if (cmdline_parse(cmdline, boot_options_start, n, &init_args, err, sizeof(err)) == 0)
		return;
	char help[2048];
	cmdline_help(boot_options_start, n, help, sizeof(help));
	kprintf("switchyard: %s\nboot options:\n", err);
	console_write(help, strlen(help));	// more than one kprintf holds
	arch_machine_exit(EXIT_BAD_OPTION);
}
