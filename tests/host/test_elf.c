// Host tests of kernel/proc/elf.c, the ELF64 parser behind exec.
//
// Real executables are compiled on the fly (musl-gcc -static and
// -static-pie, gcc -static, gcc -static -z execstack, a default dynamic
// gcc build) and the parser's view is compared with what readelf reports
// about the same file.  Hand-built images check each rejection one at a
// time, and a fuzz loop mutates a valid image 10,000 times: under ASan and
// UBSan the parser must never misbehave and must answer 0 or -ENOEXEC.
#define _DEFAULT_SOURCE		// mkdtemp, popen
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proc/elf.h>
#include <uapi/errno.h>

#include "ktap.h"

// ---- Reading files from memory ----------------------------------------

struct memfile {
	const uint8_t *data;
	uint64_t size;		// bytes really behind data
	int fail_errno;		// nonzero: every read fails with it
	bool short_reads;	// return one byte less than asked
};

static long mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct memfile *f = ctx;

	if (f->fail_errno)
		return -f->fail_errno;
	if (off >= f->size)
		return 0;
	if (len > f->size - off)
		len = f->size - off;
	if (f->short_reads && len > 0)
		len--;
	memcpy(buf, f->data + off, len);
	return (long)len;
}

static uint8_t *load_file(const char *path, uint64_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		data = malloc((size_t)n);
		if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
			free(data);
			data = NULL;
		}
		*size = (uint64_t)n;
	}
	fclose(f);
	return data;
}

// ---- What readelf says about a file -----------------------------------

struct facts {
	bool dyn;
	uint64_t entry, phoff;
	int nload;
	uint64_t load[64][4];	// offset, vaddr, filesz, memsz
	int prot[64];
	bool interp, has_phdr, exec_stack, tls;
	uint64_t phdr_vaddr, tls_vaddr, tls_memsz, tls_align;
};

// readelf prints flags as up to three columns "RWE" (blank when unset)
// followed by the alignment.
static int prot_from_flags(const char *rest)
{
	int prot = 0;

	for (const char *p = rest; *p && !(p[0] == '0' && p[1] == 'x'); p++) {
		if (*p == 'R')
			prot |= ELF_PROT_READ;
		if (*p == 'W')
			prot |= ELF_PROT_WRITE;
		if (*p == 'E')
			prot |= ELF_PROT_EXEC;
	}
	return prot;
}

static bool read_facts(const char *path, struct facts *fx)
{
	char cmd[512], line[512], type[64];
	unsigned long long off, va, pa, fsz, msz;
	int used;
	FILE *p;

	memset(fx, 0, sizeof(*fx));
	snprintf(cmd, sizeof(cmd), "readelf -hlW '%s' 2>/dev/null", path);
	if ((p = popen(cmd, "r")) == NULL)
		return false;
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, " Type: %63s", type) == 1)
			fx->dyn = strcmp(type, "DYN") == 0;
		if (sscanf(line, " Entry point address: %llx", &va) == 1)
			fx->entry = va;
		if (sscanf(line, " Start of program headers: %llu", &off) == 1)
			fx->phoff = off;
		if (sscanf(line, " %63s %llx %llx %llx %llx %llx%n", type, &off,
			   &va, &pa, &fsz, &msz, &used) != 6)
			continue;
		if (strcmp(type, "LOAD") == 0 && fx->nload < 64) {
			uint64_t *l = fx->load[fx->nload];
			l[0] = off, l[1] = va, l[2] = fsz, l[3] = msz;
			fx->prot[fx->nload++] = prot_from_flags(line + used);
		} else if (strcmp(type, "INTERP") == 0) {
			fx->interp = true;
		} else if (strcmp(type, "PHDR") == 0) {
			fx->has_phdr = true;
			fx->phdr_vaddr = va;
		} else if (strcmp(type, "GNU_STACK") == 0) {
			fx->exec_stack = prot_from_flags(line + used) &
					 ELF_PROT_EXEC;
		} else if (strcmp(type, "TLS") == 0) {
			fx->tls = true;
			fx->tls_vaddr = va;
			fx->tls_memsz = msz;
			sscanf(strstr(line + used, "0x"), "%llx", &pa);
			fx->tls_align = pa;
		}
	}
	return pclose(p) == 0;
}

// ---- Comparing the parser with readelf --------------------------------

static bool same(const char *what, uint64_t got, uint64_t want)
{
	if (got != want)
		printf("# %s: parser %#llx, readelf %#llx\n", what,
		       (unsigned long long)got, (unsigned long long)want);
	return got == want;
}

// The program headers must be where the parser says: translate its
// phdr_vaddr back to a file offset through the PT_LOADs.
static bool phdr_maps_to_phoff(const struct elf_image *img, uint64_t phoff)
{
	for (int i = 0; i < img->nseg; i++) {
		const struct elf_segment *s = &img->seg[i];
		if (img->phdr_vaddr >= s->vaddr &&
		    img->phdr_vaddr - s->vaddr < s->filesz)
			return same("phdr file offset",
				    s->offset + (img->phdr_vaddr - s->vaddr),
				    phoff);
	}
	printf("# phdr_vaddr %#llx is in no PT_LOAD\n",
	       (unsigned long long)img->phdr_vaddr);
	return false;
}

static bool matches_facts(const struct elf_image *img, const struct facts *fx)
{
	bool ok = same("entry", img->entry, fx->entry);
	ok &= same("pie", img->pie, fx->dyn);
	ok &= same("segment count", (uint64_t)img->nseg, (uint64_t)fx->nload);
	for (int i = 0; i < img->nseg && i < fx->nload; i++) {
		const struct elf_segment *s = &img->seg[i];
		ok &= same("offset", s->offset, fx->load[i][0]);
		ok &= same("vaddr", s->vaddr, fx->load[i][1]);
		ok &= same("filesz", s->filesz, fx->load[i][2]);
		ok &= same("memsz", s->memsz, fx->load[i][3]);
		ok &= same("prot", (uint64_t)s->prot, (uint64_t)fx->prot[i]);
	}
	if (fx->nload > 0) {
		uint64_t last = fx->load[fx->nload - 1][1] +
				fx->load[fx->nload - 1][3];
		ok &= same("lo", img->lo, fx->load[0][1] & ~4095ULL);
		ok &= same("hi", img->hi, (last + 4095) & ~4095ULL);
	}
	ok &= same("exec_stack", img->exec_stack, fx->exec_stack);
	ok &= same("tls_vaddr", img->tls_vaddr, fx->tls ? fx->tls_vaddr : 0);
	ok &= same("tls_memsz", img->tls_memsz, fx->tls ? fx->tls_memsz : 0);
	ok &= same("tls_align", img->tls_align, fx->tls ? fx->tls_align : 0);
	if (fx->has_phdr)
		ok &= same("phdr_vaddr", img->phdr_vaddr, fx->phdr_vaddr);
	ok &= phdr_maps_to_phoff(img, fx->phoff);
	ok &= same("phnum/phentsize", img->phentsize, 56);
	return ok;
}

// ---- Real executables ---------------------------------------------------

static char tmpdir[] = "/tmp/switchyard-elf-XXXXXX";
static bool have_tmpdir;

// Thread-local data gives the static builds a PT_TLS to compare.
static const char program[] =
	"#include <stdio.h>\n"
	"__thread int counter = 3;\n"
	"__thread char scratch[100];\n"
	"int main(int argc, char **argv) {\n"
	"	scratch[0] = (char)argc;\n"
	"	printf(\"%s %d\\n\", argv[0], counter + scratch[0]);\n"
	"	return 0;\n"
	"}\n";

// Compiles the test program as "compiler before prog.c after" into
// tmpdir/name; false if that tool chain is not available.
static bool build(const char *name, const char *compiler, const char *before,
		  const char *after, char *path, size_t pathlen)
{
	char cmd[1024];

	snprintf(path, pathlen, "%s/%s", tmpdir, name);
	snprintf(cmd, sizeof(cmd),
		 "%s %s -o '%s' '%s/prog.c' %s >/dev/null 2>&1", compiler,
		 before, path, tmpdir, after);
	return have_tmpdir && system(cmd) == 0;
}

// The distribution's musl-gcc wrapper does not know -static-pie: it links
// Scrt1.o against libc.so and records an interpreter.  A real musl
// static-pie starts from rcrt1.o (which relocates the program itself) and
// links libc.a with no interpreter.
#define MUSL_LIB "/usr/lib/x86_64-linux-musl"
#define MUSL_PIE_BEFORE "-O1 -fPIE -nostartfiles " MUSL_LIB "/rcrt1.o " \
	MUSL_LIB "/crti.o"
#define MUSL_PIE_AFTER MUSL_LIB "/crtn.o " \
	"-Wl,-static,-pie,--no-dynamic-linker,-z,text"

static void skip(const char *name, const char *why)
{
	ktap_n++;
	printf("ok %d %s # SKIP %s\n", ktap_n, name, why);
}

// Two results per executable: parses (or is refused, for a dynamic one)
// and agrees with readelf.
static void check_real(const char *name, const char *path, bool available,
		       bool expect_dynamic)
{
	char tname[160];
	struct elf_image img;
	struct facts fx;
	struct memfile f = { 0 };
	uint8_t *data = available ? load_file(path, &f.size) : NULL;

	snprintf(tname, sizeof(tname), "%s: %s", name,
		 expect_dynamic ? "parses, PT_INTERP recorded" :
				  "parses");
	if (data == NULL || !read_facts(path, &fx)) {
		skip(tname, "tool chain or file unavailable");
		snprintf(tname, sizeof(tname), "%s: agrees with readelf", name);
		skip(tname, "tool chain or file unavailable");
		free(data);
		return;
	}
	f.data = data;
	int r = elf_parse(mem_read, &f, f.size, &img);
	if (expect_dynamic) {
		ktap_ok(r == 0 && img.interp_size >= 2 && img.interp_offset < f.size &&
			data[img.interp_offset + img.interp_size - 1] == 0, tname);
		snprintf(tname, sizeof(tname), "%s: readelf sees PT_INTERP",
			 name);
		ktap_ok(fx.interp, tname);
	} else {
		if (r != 0)
			printf("# elf_parse returned %d\n", r);
		ktap_ok(r == 0, tname);
		snprintf(tname, sizeof(tname), "%s: agrees with readelf", name);
		ktap_ok(r == 0 && !fx.interp && matches_facts(&img, &fx), tname);
	}
	free(data);
}

static void test_real_binaries(void)
{
	char path[256], src[300];
	FILE *f;
	bool ok;

	have_tmpdir = mkdtemp(tmpdir) != NULL;
	snprintf(src, sizeof(src), "%s/prog.c", tmpdir);
	if (have_tmpdir && (f = fopen(src, "w")) != NULL) {
		fputs(program, f);
		fclose(f);
	}

	ok = build("musl-static", "musl-gcc", "-static -O1", "", path,
		   sizeof(path));
	check_real("musl-gcc -static", path, ok, false);
	ok = build("musl-pie", "musl-gcc", MUSL_PIE_BEFORE, MUSL_PIE_AFTER,
		   path, sizeof(path));
	check_real("musl static-pie (rcrt1.o)", path, ok, false);
	ok = build("gcc-static", "gcc", "-static -O1", "", path, sizeof(path));
	check_real("gcc -static", path, ok, false);
	ok = build("gcc-static-pie", "gcc", "-static-pie -O1", "", path,
		   sizeof(path));
	check_real("gcc -static-pie", path, ok, false);
	ok = build("gcc-execstack", "gcc", "-static -O1 -z execstack", "",
		   path, sizeof(path));
	check_real("gcc -static -z execstack", path, ok, false);
	ok = build("gcc-dynamic", "gcc", "-O1", "", path, sizeof(path));
	check_real("gcc dynamic", path, ok, true);
	check_real("/bin/busybox", "/bin/busybox", true, false);
}

// The execstack build must really be seen as such (agreeing with readelf
// could also mean both said "no").
static void test_execstack_flag(void)
{
	char path[256];
	struct elf_image img;
	struct memfile f = { 0 };

	snprintf(path, sizeof(path), "%s/gcc-execstack", tmpdir);
	uint8_t *data = have_tmpdir ? load_file(path, &f.size) : NULL;
	if (data == NULL) {
		skip("gcc -z execstack: exec_stack is set", "not built");
		return;
	}
	f.data = data;
	int r = elf_parse(mem_read, &f, f.size, &img);
	ktap_ok(r == 0 && img.exec_stack, "gcc -z execstack: exec_stack is set");
	free(data);
}

// ---- Hand-built images ---------------------------------------------------

// A minimal static executable: header, four program headers (PT_PHDR,
// text, data with bss, PT_GNU_STACK), two pages of file.
#define IMG_SIZE	0x2000
static uint8_t img_buf[IMG_SIZE];

static void put16(uint8_t *p, uint16_t v) { p[0] = v; p[1] = v >> 8; }
static void put32(uint8_t *p, uint32_t v) { put16(p, v); put16(p + 2, v >> 16); }
static void put64(uint8_t *p, uint64_t v) { put32(p, v); put32(p + 4, v >> 32); }

static uint8_t *phdr(int i)
{
	return img_buf + 64 + 56 * i;
}

static void set_phdr(int i, uint32_t type, uint32_t flags, uint64_t off,
		     uint64_t vaddr, uint64_t filesz, uint64_t memsz,
		     uint64_t align)
{
	uint8_t *p = phdr(i);

	put32(p, type);
	put32(p + 4, flags);
	put64(p + 8, off);
	put64(p + 16, vaddr);
	put64(p + 24, vaddr);
	put64(p + 32, filesz);
	put64(p + 40, memsz);
	put64(p + 48, align);
}

static void make_image(void)
{
	memset(img_buf, 0, sizeof(img_buf));
	memcpy(img_buf, "\177ELF\2\1\1", 7);
	put16(img_buf + 16, 2);			// ET_EXEC
	put16(img_buf + 18, 62);		// EM_X86_64
	put32(img_buf + 20, 1);
	put64(img_buf + 24, 0x400100);		// entry
	put64(img_buf + 32, 64);		// phoff
	put16(img_buf + 52, 64);
	put16(img_buf + 54, 56);
	put16(img_buf + 56, 4);
	set_phdr(0, 6, 4, 64, 0x400040, 4 * 56, 4 * 56, 8);
	set_phdr(1, 1, 5, 0, 0x400000, 0x1000, 0x1000, 0x1000);
	set_phdr(2, 1, 6, 0x1000, 0x401000, 0x800, 0x3000, 0x1000);
	set_phdr(3, 0x6474e551, 6, 0, 0, 0, 0, 16);
}

static int parse_image(uint64_t size, struct elf_image *out)
{
	struct memfile f = { .data = img_buf, .size = IMG_SIZE };

	return elf_parse(mem_read, &f, size, out);
}

static void test_image_fields(void)
{
	struct elf_image img;

	make_image();
	int r = parse_image(IMG_SIZE, &img);
	bool ok = r == 0 && img.entry == 0x400100 && !img.pie &&
		  img.phdr_vaddr == 0x400040 && img.phnum == 4 &&
		  img.phentsize == 56 && img.nseg == 2 &&
		  img.seg[0].vaddr == 0x400000 && img.seg[0].prot == 5 &&
		  img.seg[1].vaddr == 0x401000 && img.seg[1].filesz == 0x800 &&
		  img.seg[1].memsz == 0x3000 && img.seg[1].prot == 3 &&
		  img.lo == 0x400000 && img.hi == 0x404000 && !img.exec_stack &&
		  img.tls_memsz == 0;
	ktap_ok(ok, "image: every field as built");

	// Without PT_PHDR, the header address comes from the text segment.
	make_image();
	put32(phdr(0), 0x70000000);
	ok = parse_image(IMG_SIZE, &img) == 0 && img.phdr_vaddr == 0x400040;
	ktap_ok(ok, "image: phdr_vaddr found through the PT_LOAD covering e_phoff");

	// ET_DYN at vaddr 0 is a static-pie.
	make_image();
	put16(img_buf + 16, 3);
	put64(img_buf + 24, 0x100);
	set_phdr(0, 6, 4, 64, 0x40, 4 * 56, 4 * 56, 8);
	set_phdr(1, 1, 5, 0, 0, 0x1000, 0x1000, 0x1000);
	set_phdr(2, 1, 6, 0x1000, 0x1000, 0x800, 0x3000, 0x1000);
	ok = parse_image(IMG_SIZE, &img) == 0 && img.pie && img.lo == 0 &&
	     img.hi == 0x4000 && img.entry == 0x100;
	ktap_ok(ok, "image: ET_DYN is a PIE based at 0");

	// A dynamically linked program: the first PT_INTERP is recorded,
	// a second one ignored, as Linux.
	make_image();
	put16(img_buf + 56, 5);
	set_phdr(3, 3, 4, 0x200, 0x400200, 28, 28, 1);
	set_phdr(4, 3, 4, 0x300, 0x400300, 4097, 4097, 1);
	ok = parse_image(IMG_SIZE, &img) == 0 && img.interp_offset == 0x200 &&
	     img.interp_size == 28;
	ktap_ok(ok, "image: the first PT_INTERP is recorded");
	make_image();
	ok = parse_image(IMG_SIZE, &img) == 0 && img.interp_size == 0;
	ktap_ok(ok, "image: a static executable has no interpreter");
}

// One rejection per case: a mutation of the valid image and the file size
// to claim.
struct reject_case {
	const char *name;
	void (*mutate)(void);
};

static void bad_magic(void) { img_buf[1] = 'e'; }
static void bad_class(void) { img_buf[4] = 1; }
static void bad_data(void) { img_buf[5] = 2; }
static void bad_ident_version(void) { img_buf[6] = 0; }
static void bad_version(void) { put32(img_buf + 20, 2); }
static void bad_machine(void) { put16(img_buf + 18, 3); }
static void bad_type_rel(void) { put16(img_buf + 16, 1); }
static void bad_type_core(void) { put16(img_buf + 16, 4); }
static void bad_phentsize(void) { put16(img_buf + 54, 64); }
static void zero_phnum(void) { put16(img_buf + 56, 0); }
static void huge_phnum(void) { put16(img_buf + 56, 65); }
static void xnum_phnum(void) { put16(img_buf + 56, 0xffff); }
static void phoff_past_end(void) { put64(img_buf + 32, IMG_SIZE - 100); }
static void phoff_wraps(void) { put64(img_buf + 32, ~0ULL - 8); }
static void filesz_over_memsz(void) { put64(phdr(2) + 32, 0x3001); }
static void filesz_past_end(void) { put64(phdr(2) + 32, 0x1001); put64(phdr(2) + 40, 0x5000); }
static void offset_past_end(void) { put64(phdr(2) + 8, 0x3000); put64(phdr(2) + 16, 0x403000); }
static void offset_wraps(void) { put64(phdr(2) + 8, ~0ULL - 0xfff); put64(phdr(2) + 16, 0x401000); }
static void vaddr_wraps(void) { put64(phdr(2) + 16, ~0ULL & ~0xfffULL); }
static void memsz_wraps(void) { put64(phdr(2) + 40, ~0ULL - 0x1000); }
static void vaddr_kernel_half(void) { put64(phdr(2) + 16, 0xffff800000001000ULL); }
static void end_past_user_top(void) { put64(phdr(2) + 16, 0x00007ffffffff000ULL); put64(phdr(2) + 40, 0x2000); }
static void misaligned(void) { put64(phdr(2) + 16, 0x401800); }
static void interp_short(void) { set_phdr(3, 3, 4, 0x200, 0x400200, 1, 1, 1); }
static void interp_long(void) { set_phdr(3, 3, 4, 0x200, 0x400200, 4097, 4097, 1); }
static void interp_past_end(void) { set_phdr(3, 3, 4, 0x1ff0, 0x401ff0, 28, 28, 1); }
static void no_loads(void) { put32(phdr(1), 0x70000000); put32(phdr(2), 0x70000000); }
static void entry_outside(void) { put64(img_buf + 24, 0x500000); }
static void tls_bad_align(void) { set_phdr(3, 7, 4, 0x1000, 0x401000, 8, 16, 24); }
static void tls_filesz_over_memsz(void) { set_phdr(3, 7, 4, 0x1000, 0x401000, 32, 16, 8); }
static void phdr_wraps(void) { put64(phdr(0) + 16, ~0ULL - 16); }

// 17 PT_LOADs: one more than the parser keeps.
static void too_many_loads(void)
{
	put16(img_buf + 56, 17);
	for (int i = 0; i < 17; i++)
		set_phdr(i, 1, 4, 0, 0x400000 + 0x1000 * i, 0x100, 0x100, 0x1000);
}

static const struct reject_case reject_cases[] = {
	{ "bad magic", bad_magic },
	{ "ELFCLASS32", bad_class },
	{ "big-endian", bad_data },
	{ "e_ident version 0", bad_ident_version },
	{ "e_version 2", bad_version },
	{ "machine i386", bad_machine },
	{ "type ET_REL", bad_type_rel },
	{ "type ET_CORE", bad_type_core },
	{ "phentsize 64", bad_phentsize },
	{ "phnum 0", zero_phnum },
	{ "phnum 65", huge_phnum },
	{ "phnum PN_XNUM", xnum_phnum },
	{ "program headers past end of file", phoff_past_end },
	{ "e_phoff + size wraps", phoff_wraps },
	{ "filesz > memsz", filesz_over_memsz },
	{ "offset + filesz past end of file", filesz_past_end },
	{ "offset past end of file", offset_past_end },
	{ "offset + filesz wraps", offset_wraps },
	{ "vaddr + memsz wraps (vaddr)", vaddr_wraps },
	{ "vaddr + memsz wraps (memsz)", memsz_wraps },
	{ "vaddr in the kernel half", vaddr_kernel_half },
	{ "segment ends past the user half", end_past_user_top },
	{ "vaddr and offset misaligned", misaligned },
	{ "PT_INTERP of 1 byte", interp_short },
	{ "PT_INTERP longer than PATH_MAX", interp_long },
	{ "PT_INTERP past end of file", interp_past_end },
	{ "no PT_LOAD", no_loads },
	{ "entry outside every segment", entry_outside },
	{ "PT_TLS alignment not a power of two", tls_bad_align },
	{ "PT_TLS filesz > memsz", tls_filesz_over_memsz },
	{ "PT_PHDR vaddr wraps", phdr_wraps },
	{ "17 PT_LOADs", too_many_loads },
};
#define NREJECT (int)(sizeof(reject_cases) / sizeof(reject_cases[0]))

static void test_rejections(void)
{
	struct elf_image img;
	char name[128];

	for (int i = 0; i < NREJECT; i++) {
		make_image();
		reject_cases[i].mutate();
		int r = parse_image(IMG_SIZE, &img);
		if (r != -ENOEXEC)
			printf("# returned %d\n", r);
		snprintf(name, sizeof(name), "reject: %s", reject_cases[i].name);
		ktap_ok(r == -ENOEXEC, name);
	}
}

// 16 PT_LOADs is the limit, not one past it.
static void test_sixteen_loads(void)
{
	struct elf_image img;

	make_image();
	put16(img_buf + 56, 16);
	for (int i = 0; i < 16; i++)
		set_phdr(i, 1, 4, 0, 0x400000 + 0x1000 * i, 0x200, 0x200, 0x1000);
	int r = parse_image(IMG_SIZE, &img);
	ktap_ok(r == 0 && img.nseg == 16 && img.hi == 0x410000,
		"image: 16 PT_LOADs are accepted");
}

static void test_short_files(void)
{
	struct elf_image img;
	struct memfile f = { .data = img_buf, .size = IMG_SIZE };
	bool ok = true;

	make_image();
	// A file too small for the header or for the segments it declares.
	ok &= parse_image(0, &img) == -ENOEXEC;
	ok &= parse_image(63, &img) == -ENOEXEC;
	ok &= parse_image(64 + 4 * 56 - 1, &img) == -ENOEXEC;
	ok &= parse_image(0x17ff, &img) == -ENOEXEC;
	ok &= parse_image(0x1800, &img) == 0;
	ktap_ok(ok, "truncated sizes are refused, the exact size is not");

	// A read failure is passed on; a short read is not an executable.
	f.fail_errno = EIO;
	ok = elf_parse(mem_read, &f, IMG_SIZE, &img) == -EIO;
	f.fail_errno = 0;
	f.short_reads = true;
	ok &= elf_parse(mem_read, &f, IMG_SIZE, &img) == -ENOEXEC;
	ktap_ok(ok, "read errors are returned, short reads give ENOEXEC");

	// The file claims to be bigger than what reads return: the program
	// headers are cut off.
	f.short_reads = false;
	f.size = 200;
	ok = elf_parse(mem_read, &f, IMG_SIZE, &img) == -ENOEXEC;
	ktap_ok(ok, "a file shorter than its claimed size gives ENOEXEC");
}

// ---- Fuzzing ---------------------------------------------------------------

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

// What a successful parse promises, whatever the input.
static bool invariants_hold(const struct elf_image *img, uint64_t size)
{
	if (img->nseg < 1 || img->nseg > ELF_MAX_SEGMENTS)
		return false;
	if (img->lo % 4096 || img->hi % 4096 || img->lo >= img->hi ||
	    img->hi > ELF_USER_TOP || img->entry < img->lo ||
	    img->entry >= img->hi)
		return false;
	for (int i = 0; i < img->nseg; i++) {
		const struct elf_segment *s = &img->seg[i];
		if (s->filesz > s->memsz || s->offset > size ||
		    s->filesz > size - s->offset || s->vaddr < img->lo ||
		    s->memsz > img->hi - s->vaddr ||
		    s->vaddr % 4096 != s->offset % 4096 || (s->prot & ~7))
			return false;
	}
	return img->phnum >= 1 && img->phnum <= 64 && img->phentsize == 56;
}

// Mutates the first 'span' bytes of a copy of 'base', sometimes claims a
// truncated size, and parses.  The copy is a fresh allocation of exactly
// the file's size so that ASan catches any read past it.
static bool fuzz(const uint8_t *base, uint64_t size, uint64_t span, int rounds,
		 int *accepted)
{
	for (int n = 0; n < rounds; n++) {
		uint8_t *copy = malloc(size);
		struct memfile f = { .data = copy, .size = size };
		struct elf_image img;
		uint64_t claimed = size;

		memcpy(copy, base, size);
		int flips = 1 + (int)(rng() % 8);
		for (int i = 0; i < flips; i++) {
			uint64_t at = rng() % span;
			if (rng() % 4 == 0)
				copy[at] = (uint8_t)rng();	// random byte
			else
				copy[at] ^= (uint8_t)(1u << (rng() % 8));
		}
		if (rng() % 4 == 0)
			claimed = rng() % (size + 1);
		if (claimed < size)
			f.size = claimed;
		int r = elf_parse(mem_read, &f, claimed, &img);
		free(copy);
		if (r == 0 && !invariants_hold(&img, claimed)) {
			printf("# round %d: accepted with broken invariants\n", n);
			return false;
		}
		if (r != 0 && r != -ENOEXEC) {
			printf("# round %d: returned %d\n", n, r);
			return false;
		}
		*accepted += r == 0;
	}
	return true;
}

static void test_fuzz(void)
{
	char path[256];
	uint64_t size = 0;
	uint8_t *data;
	int accepted = 0;
	bool ok;

	// A real static-pie if one was built, else the hand-made image.
	snprintf(path, sizeof(path), "%s/musl-pie", tmpdir);
	data = have_tmpdir ? load_file(path, &size) : NULL;
	if (data != NULL) {
		uint64_t span = 64 + 56 * (uint64_t)(data[56] | data[57] << 8);
		ok = fuzz(data, size, span < size ? span : size, 10000,
			  &accepted);
		printf("# static-pie: %d of 10000 mutants accepted\n", accepted);
		free(data);
	} else {
		make_image();
		ok = fuzz(img_buf, IMG_SIZE, 64 + 4 * 56, 10000, &accepted);
		printf("# image: %d of 10000 mutants accepted\n", accepted);
	}
	ktap_ok(ok, "fuzz: 10000 mutated headers give 0 or ENOEXEC, sanely");

	accepted = 0;
	make_image();
	ok = fuzz(img_buf, IMG_SIZE, 64 + 4 * 56, 10000, &accepted);
	printf("# image: %d of 10000 mutants accepted\n", accepted);
	ktap_ok(ok, "fuzz: 10000 mutated hand-made images, sanely");
}

int main(void)
{
	ktap_plan(7 * 2 + 1 + 3 + NREJECT + 1 + 3 + 2);
	test_real_binaries();
	test_execstack_flag();
	test_image_fields();
	test_rejections();
	test_sixteen_loads();
	test_short_files();
	test_fuzz();
	if (have_tmpdir) {
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmpdir);
	}
	return ktap_exit();
}
