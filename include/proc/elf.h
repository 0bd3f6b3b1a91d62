// ELF64 executable parsing for exec: reads and checks the file header and
// program headers of an x86-64 executable and describes what to map.
// Pure code: the file is reached only through a read callback, so the same
// parser runs in the kernel and in the host unit tests.
#ifndef PROC_ELF_H
#define PROC_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_MAX_SEGMENTS 16

// Segment protections, with the values of mmap's PROT_READ, PROT_WRITE and
// PROT_EXEC, so the loader can hand them to the mapping code unchanged.
#define ELF_PROT_READ	1
#define ELF_PROT_WRITE	2
#define ELF_PROT_EXEC	4

// Addresses at or above this are not user addresses (the lower canonical
// half of the 48-bit address space).
#define ELF_USER_TOP	0x0000800000000000ULL

struct elf_segment {
	uint64_t vaddr, memsz, filesz, offset;
	int prot;			// ELF_PROT_* bits
};

struct elf_image {
	uint64_t entry;		// as in the file (add the load bias for PIE)
	bool pie;		// ET_DYN (static-pie): the loader picks a bias
	uint64_t phdr_vaddr;	// vaddr of the program headers: PT_PHDR, else
				// from the PT_LOAD covering e_phoff, else 0
	uint16_t phnum, phentsize;
	struct elf_segment seg[ELF_MAX_SEGMENTS];	// PT_LOAD only, file order
	int nseg;
	uint64_t lo, hi;	// page-aligned extent of all PT_LOAD segments
	bool exec_stack;	// PT_GNU_STACK with PF_X
	uint64_t tls_vaddr, tls_memsz, tls_align;	// PT_TLS, if any
	// The first PT_INTERP: where in the file the interpreter's path
	// lies (interp_size bytes, its NUL included; 0 if none).  Checked
	// against the file size only: the loader reads it and checks the NUL.
	uint64_t interp_offset, interp_size;
};

// The size of the ELF64 file header.
#define ELF_EHDR_SIZE	64

// The longest interpreter path accepted (Linux's PATH_MAX, NUL included).
#define ELF_INTERP_MAX	4096

// Reads len bytes at file offset off into buf; returns the number of bytes
// read (fewer only at end of file) or a negative errno.
typedef long (*elf_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);

// Parses the executable of file_size bytes behind 'read'.  Returns 0 and
// fills *out, -ENOEXEC if the file is not an x86-64 ELF64 executable
// (static, static-pie or dynamically linked) Switchyard can load, or the negative errno a failed read returned.
int elf_parse(elf_read_fn read, void *ctx, uint64_t file_size,
	      struct elf_image *out);

#endif
