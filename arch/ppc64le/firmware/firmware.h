// Switchyard's pseries firmware (firmware.c), as entry.S and the host
// tests see it.
#ifndef FIRMWARE_H
#define FIRMWARE_H

#include <stdint.h>

// Adds RTAS to the flat device tree at 'fdt' in place: the entry code
// after the tree (page-aligned; the memory there must be free), a
// reservation of it, and /rtas's "linux,rtas-base" and "linux,rtas-entry".
// Returns the code's address, or 0 when the tree was left alone (not
// the layout expected, no /rtas or no "rtas-size" there, or RTAS
// already described).
uintptr_t fdt_add_rtas(void *fdt);

// Called by entry.S with r3 as QEMU set it.
void firmware_main(void *fdt);

#endif
