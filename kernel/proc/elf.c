// ELF64 executable parser for exec.
//
// The file is untrusted: every field is read through byte-wise little-endian
// decoding (no casts of file bytes to structs, so no alignment or packing
// questions), every offset and size is checked against the file size and
// the user half of the address space before it is used, and sums are
// checked by comparing against what is left rather than by adding, so
// nothing can overflow.  The parser only describes the image; mapping it
// is the loader's job.
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proc/elf.h>
#include <uapi/errno.h>
#include <uapi/machine.h>

#define EHDR_SIZE	64
#define PHDR_SIZE	56
#define MAX_PHNUM	64
#define ELF_PAGE	4096ULL

// e_ident bytes and header values Switchyard accepts.
#define ELFCLASS64	2
#define ELFDATA2LSB	1
#define EV_CURRENT	1
#define ET_EXEC		2
#define ET_DYN		3

// Program header types and flags.
#define PT_LOAD		1
#define PT_INTERP	3
#define PT_PHDR		6
#define PT_TLS		7
#define PT_GNU_STACK	0x6474e551
#define PF_X		1
#define PF_W		2
#define PF_R		4

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

// Reads exactly len bytes at off, which the caller has checked lie inside
// the file.  A short read means the file changed or lied about its size:
// not an executable we can trust.
static int read_exact(elf_read_fn read, void *ctx, uint64_t off, void *buf,
		      size_t len)
{
	long n = read(ctx, off, buf, len);

	if (n < 0)
		return n < -4095 ? -EIO : (int)n;
	if ((size_t)n != len)
		return -ENOEXEC;
	return 0;
}

// True if [start, start + len) lies inside [0, limit), without computing
// start + len.
static bool range_within(uint64_t start, uint64_t len, uint64_t limit)
{
	return start <= limit && len <= limit - start;
}

static uint64_t page_down(uint64_t v)
{
	return v & ~(ELF_PAGE - 1);
}

// Only called on values at most ELF_USER_TOP, so it cannot overflow.
static uint64_t page_up(uint64_t v)
{
	return page_down(v + ELF_PAGE - 1);
}

static int check_ehdr(const uint8_t *e, uint64_t file_size,
		      struct elf_image *out)
{
	if (e[0] != 0x7f || e[1] != 'E' || e[2] != 'L' || e[3] != 'F')
		return -ENOEXEC;
	if (e[4] != ELFCLASS64 || e[5] != ELFDATA2LSB || e[6] != EV_CURRENT)
		return -ENOEXEC;
	uint16_t type = get16(e + 16);
	if (type != ET_EXEC && type != ET_DYN)
		return -ENOEXEC;
	if (get16(e + 18) != ELF_MACHINE || get32(e + 20) != EV_CURRENT)
		return -ENOEXEC;

	uint64_t phoff = get64(e + 32);
	uint16_t phentsize = get16(e + 54);
	uint16_t phnum = get16(e + 56);
	if (phentsize != PHDR_SIZE || phnum == 0 || phnum > MAX_PHNUM)
		return -ENOEXEC;
	if (!range_within(phoff, (uint64_t)phnum * PHDR_SIZE, file_size))
		return -ENOEXEC;

	out->entry = get64(e + 24);
	out->pie = type == ET_DYN;
	out->phnum = phnum;
	out->phentsize = phentsize;
	return 0;
}

static int flags_to_prot(uint32_t flags)
{
	int prot = 0;

	if (flags & PF_R)
		prot |= ELF_PROT_READ;
	if (flags & PF_W)
		prot |= ELF_PROT_WRITE;
	if (flags & PF_X)
		prot |= ELF_PROT_EXEC;
	return prot;
}

// Checks one PT_LOAD and appends it to out->seg.
static int add_load(const uint8_t *ph, uint64_t file_size,
		    struct elf_image *out)
{
	uint64_t offset = get64(ph + 8);
	uint64_t vaddr = get64(ph + 16);
	uint64_t filesz = get64(ph + 32);
	uint64_t memsz = get64(ph + 40);

	if (filesz > memsz)
		return -ENOEXEC;
	if (!range_within(offset, filesz, file_size))
		return -ENOEXEC;
	if (!range_within(vaddr, memsz, ELF_USER_TOP))
		return -ENOEXEC;
	// The file page and the memory page must line up for the segment
	// to be mapped page by page from the file.
	if (vaddr % ELF_PAGE != offset % ELF_PAGE)
		return -ENOEXEC;
	// An empty segment maps nothing; leaving it out keeps it from
	// stretching the extent.
	if (memsz == 0)
		return 0;
	if (out->nseg == ELF_MAX_SEGMENTS)
		return -ENOEXEC;

	struct elf_segment *s = &out->seg[out->nseg++];
	s->vaddr = vaddr;
	s->memsz = memsz;
	s->filesz = filesz;
	s->offset = offset;
	s->prot = flags_to_prot(get32(ph + 4));
	return 0;
}

// PT_TLS is only informational for the kernel, but user space trusts
// whatever reaches it, so it must describe sane memory.
static int note_tls(const uint8_t *ph, uint64_t file_size,
		    struct elf_image *out)
{
	uint64_t offset = get64(ph + 8);
	uint64_t vaddr = get64(ph + 16);
	uint64_t filesz = get64(ph + 32);
	uint64_t memsz = get64(ph + 40);
	uint64_t align = get64(ph + 48);

	if (filesz > memsz || !range_within(offset, filesz, file_size) ||
	    !range_within(vaddr, memsz, ELF_USER_TOP))
		return -ENOEXEC;
	if (align & (align - 1))
		return -ENOEXEC;
	out->tls_vaddr = vaddr;
	out->tls_memsz = memsz;
	out->tls_align = align;
	return 0;
}

// A dynamically linked program names its interpreter (the dynamic
// linker).  As Linux: only the first PT_INTERP counts, and a path shorter
// than 2 bytes or longer than PATH_MAX is not an executable.
static int note_interp(const uint8_t *ph, uint64_t file_size,
		       struct elf_image *out)
{
	uint64_t offset = get64(ph + 8);
	uint64_t filesz = get64(ph + 32);

	if (out->interp_size)
		return 0;
	if (filesz < 2 || filesz > ELF_INTERP_MAX ||
	    !range_within(offset, filesz, file_size))
		return -ENOEXEC;
	out->interp_offset = offset;
	out->interp_size = filesz;
	return 0;
}

// Looks at one program header.  *phdr_seen records a PT_PHDR.
static int parse_phdr(const uint8_t *ph, uint64_t file_size,
		      struct elf_image *out, bool *phdr_seen)
{
	uint32_t type = get32(ph);

	switch (type) {
	case PT_LOAD:
		return add_load(ph, file_size, out);
	case PT_INTERP:
		return note_interp(ph, file_size, out);
	case PT_PHDR: {
		uint64_t vaddr = get64(ph + 16);
		if (!range_within(vaddr, (uint64_t)out->phnum * PHDR_SIZE,
				  ELF_USER_TOP))
			return -ENOEXEC;
		if (!*phdr_seen)
			out->phdr_vaddr = vaddr;
		*phdr_seen = true;
		return 0;
	}
	case PT_TLS:
		return note_tls(ph, file_size, out);
	case PT_GNU_STACK:
		out->exec_stack = (get32(ph + 4) & PF_X) != 0;
		return 0;
	default:
		return 0;
	}
}

// Without PT_PHDR, the headers are visible to the program only if a
// PT_LOAD maps the file bytes that hold them.  Static libcs find their TLS
// template through AT_PHDR, so 0 (not mapped) is left for the loader to
// judge.
static uint64_t phdr_from_loads(const struct elf_image *img, uint64_t phoff)
{
	uint64_t len = (uint64_t)img->phnum * PHDR_SIZE;

	for (int i = 0; i < img->nseg; i++) {
		const struct elf_segment *s = &img->seg[i];
		if (phoff >= s->offset &&
		    range_within(phoff - s->offset, len, s->filesz))
			return s->vaddr + (phoff - s->offset);
	}
	return 0;
}

// The extent of the PT_LOADs, and the entry point must fall inside it: a
// loader adding a bias to an entry outside the checked range could be
// pointed anywhere.
static int finish_extent(struct elf_image *out)
{
	if (out->nseg == 0)
		return -ENOEXEC;
	out->lo = ELF_USER_TOP;
	out->hi = 0;
	for (int i = 0; i < out->nseg; i++) {
		const struct elf_segment *s = &out->seg[i];
		if (page_down(s->vaddr) < out->lo)
			out->lo = page_down(s->vaddr);
		if (page_up(s->vaddr + s->memsz) > out->hi)
			out->hi = page_up(s->vaddr + s->memsz);
	}
	if (out->entry < out->lo || out->entry >= out->hi)
		return -ENOEXEC;
	return 0;
}

int elf_parse(elf_read_fn read, void *ctx, uint64_t file_size,
	      struct elf_image *out)
{
	uint8_t ehdr[EHDR_SIZE];
	uint8_t ph[PHDR_SIZE];
	bool phdr_seen = false;
	int err;

	*out = (struct elf_image){ 0 };
	if (file_size < EHDR_SIZE)
		return -ENOEXEC;
	if ((err = read_exact(read, ctx, 0, ehdr, sizeof(ehdr))) != 0)
		return err;
	if ((err = check_ehdr(ehdr, file_size, out)) != 0)
		return err;

	// One header at a time: 56 bytes of stack instead of 3.5 KiB.
	uint64_t phoff = get64(ehdr + 32);
	for (int i = 0; i < out->phnum; i++) {
		uint64_t off = phoff + (uint64_t)i * PHDR_SIZE;
		if ((err = read_exact(read, ctx, off, ph, sizeof(ph))) != 0)
			return err;
		if ((err = parse_phdr(ph, file_size, out, &phdr_seen)) != 0)
			return err;
	}
	if (!phdr_seen)
		out->phdr_vaddr = phdr_from_loads(out, phoff);
	return finish_extent(out);
}
