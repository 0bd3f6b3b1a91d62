// What the arch's boot code hands to the arch-neutral kernel.
#ifndef KERNEL_BOOT_H
#define KERNEL_BOOT_H

#include <stdint.h>
#include <stddef.h>
#include <mm/frame.h>
#include <lib/cmdline.h>

#define BOOT_MAX_RANGES 64

struct boot_info {
	struct mem_range ram[BOOT_MAX_RANGES];	// usable RAM
	size_t nram;
	struct mem_range mapped[BOOT_MAX_RANGES];	// direct-map these too
	size_t nmapped;					// (firmware tables, initrd)
	const char *cmdline;			// via the direct map; "" if none
	uint64_t initrd_pa, initrd_size;	// 0 if no initrd
	uint64_t rsdp_pa;
};

extern struct boot_info boot_info;

// Registers a boot option:  BOOT_OPTION(hz, "timer ticks per second", set_hz);
#define BOOT_OPTION(name_, help_, set_)					\
	static const struct boot_option boot_option_##name_		\
	    __attribute__((used, section(".boot_options"), aligned(8))) = \
	    { #name_, help_, set_ }

__attribute__((noreturn)) void kernel_main(void);

// Parses the command line against every BOOT_OPTION; on an error prints
// it with the list of options and ends the machine.  Words after "--"
// become init's arguments (init_argv).
void boot_options_apply(const char *cmdline);
extern const char *init_args;	// text after "--", or NULL

#endif
