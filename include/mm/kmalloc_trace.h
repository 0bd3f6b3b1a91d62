// Who allocated what is still on the heap: a debugging aid for leaks.
//
// With the boot option kmalloc_trace, every kmalloc records the object,
// its size, the code that asked for it (the return address into the
// caller of kmalloc or kzalloc), the thread and a sequence number, and
// kfree forgets it.  /proc/switchyard/kmalloc_live reads the objects still
// live that were allocated after the last "mark" written to it, grouped
// by caller and size; the leak check of init --check-memory marks when
// it takes its first snapshot and prints the file when the memory did
// not come back.  Without the option the heap pays one test of a flag
// per call and the file reads "off".
#ifndef MM_KMALLOC_TRACE_H
#define MM_KMALLOC_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern bool kmalloc_tracing;

void kmalloc_trace_alloc(void *p, size_t size, uintptr_t caller);
void kmalloc_trace_free(void *p);

// "mark": later reads list only what was allocated from now on.
int kmalloc_trace_command(const char *cmd);

// The live objects since the mark, as "count size caller" lines;
// returns the length.
size_t kmalloc_trace_render(char *buf, size_t size);

#endif
