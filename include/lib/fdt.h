// A reader of flattened device trees (the "dtb" format of the Devicetree
// Specification, version 16 and later), as firmware hands them to the
// kernel: QEMU's pseries machine passes one in r3.  The blob is
// big-endian whatever the CPU; nothing here trusts its offsets.
#ifndef LIB_FDT_H
#define LIB_FDT_H

#include <stdint.h>
#include <stddef.h>

#define FDT_MAGIC	0xd00dfeed
#define FDT_MAX_PATH	256

// Called for every property, with the path of its node ("/" for the
// root, "/cpus/PowerPC,POWER9@0"), its name and its raw value.
typedef void (*fdt_prop_fn)(void *ctx, const char *path, const char *name,
			    const void *value, uint32_t len);

// The blob's total size from its header, or 0 if 'blob' is not a device
// tree that fits in 'avail' bytes.
uint32_t fdt_size(const void *blob, size_t avail);

// Walks every property in tree order.  0, or -1 if the blob is malformed
// (the walk stops there: properties before the flaw were reported).
int fdt_walk(const void *blob, size_t avail, fdt_prop_fn fn, void *ctx);

// Big-endian cells of a property value.
uint32_t fdt_cell32(const void *value, uint32_t index);
uint64_t fdt_cell64(const void *value, uint32_t index);	// two cells at 2*index

// Is 'path' the node 'name' (without its "@unit"), at any depth?
// fdt_node_is("/vdevice/vty@71000000", "vty") is true.
int fdt_node_is(const char *path, const char *name);

#endif
