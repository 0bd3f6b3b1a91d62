// Starting the first user process.

#include <kernel/proc.h>
#include <kernel/boot.h>
#include <kernel/console.h>
#include <kernel/power.h>

void start_init(void)
{
	if (!boot_info.initrd_size) {
		kprintf("switchyard: no initramfs, nothing to run; powering off\n");
		machine_exit(0);
	}
	kprintf("switchyard: user space is not available yet; powering off\n");
	machine_exit(0);
}
