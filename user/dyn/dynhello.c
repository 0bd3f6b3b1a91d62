// A dynamically linked program (built with the host's gcc and glibc) for
// tests/dynexec: started through its interpreter, it checks what the
// kernel gave it and loads a shared object with dlopen.
//
// usage: dynhello PLUGIN.so [ARGS...]
// Prints "dynhello ok ARGC" and exits 0; any other exit status names the
// first check that failed.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

extern char _start[];

// The program headers the dynamic linker found for the main program.
static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(struct dl_phdr_info *)data = *info;
	return 1;
}

int main(int argc, char **argv)
{
	struct dl_phdr_info main_map;

	if (argc < 2)
		return 2;
	if (getauxval(AT_BASE) == 0)
		return 3;		// no interpreter base
	if (getauxval(AT_ENTRY) != (unsigned long)_start)
		return 4;		// AT_ENTRY is not the program's entry
	dl_iterate_phdr(first_object, &main_map);
	if (getauxval(AT_PHDR) != (unsigned long)main_map.dlpi_phdr ||
	    getauxval(AT_PHNUM) != main_map.dlpi_phnum ||
	    getauxval(AT_PHENT) != sizeof(ElfW(Phdr)))
		return 5;
	const char *execfn = (const char *)getauxval(AT_EXECFN);
	if (!execfn || strcmp(execfn, argv[0]) != 0)
		return 6;
	if (getauxval(AT_RANDOM) == 0 || getauxval(AT_SECURE) != 0)
		return 7;
	// The interpreter is mapped at AT_BASE: its ELF header is there.
	if (memcmp((const void *)getauxval(AT_BASE), ELFMAG, SELFMAG) != 0)
		return 8;
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dynhello: %s\n", dlerror());
		return 9;
	}
	int (*add)(int, int) = (int (*)(int, int))dlsym(h, "plug_add");
	if (!add || add(2, 3) != 5 || add(20, 3) != 25)
		return 10;
	if (dlclose(h) != 0)
		return 11;
	printf("dynhello ok %d\n", argc);
	return 0;
}
